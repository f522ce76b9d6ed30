//! Unicycles following an ellipse by guiding vector field: writes the run's
//! log (NPZ) and an SVG of the trajectories over the path, and prints the
//! final path error.
//!
//! ```text
//! cargo run --release -p oceansim-swarm --example gvf_ellipse [-- OUT_DIR]
//! ```
//!
//! Watch it in the browser, 1,000 of them at twice real time:
//!
//! ```text
//! cargo run --release -p oceansim-swarm --example gvf_ellipse -- --viewer --n 1000 --speed 2
//! ```

#[path = "support/viewer.rs"]
mod viewer;

use oceansim_math::gvf::GvfTrajectory;
use oceansim_swarm::scenarios::{run_gvf_ellipse_observed, GvfEllipseConfig};
use oceansim_viewer::SwarmView;
use plotters::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = viewer::parse();
    let out = args.out.clone();
    std::fs::create_dir_all(&out)?;
    let log = out.join("gvf_ellipse.npz");
    let cfg = GvfEllipseConfig {
        log: Some(log.clone()),
        n: args.n.unwrap_or(GvfEllipseConfig::default().n),
        ..GvfEllipseConfig::default()
    };
    let title = format!("GVF ellipse: {} unicycles", cfg.n);
    let page = viewer::start(&args, &title);
    let observer = page.as_ref().map(|v| {
        viewer::sink(
            v,
            &args,
            SwarmView::default().heading("theta").title(title.clone()),
        )
    });
    let run = run_gvf_ellipse_observed(&cfg, observer)?;

    let svg = out.join("gvf_ellipse.svg");
    let root = SVGBackend::new(&svg, (800, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    let lim = 14.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "GVF path following: {} unicycles, {:.0} s",
                cfg.n, cfg.duration_s
            ),
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(-lim..lim, -lim * 0.8..lim * 0.8)?;
    chart
        .configure_mesh()
        .x_desc("x (m)")
        .y_desc("y (m)")
        .draw()?;
    let path: Vec<(f64, f64)> = run
        .path
        .gen_param_points(400)
        .into_iter()
        .map(|p| (p[0], p[1]))
        .collect();
    chart
        .draw_series(LineSeries::new(path, BLACK.stroke_width(3)))?
        .label("path φ = 0")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(3)));
    for (i, track) in run.tracks.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart.draw_series(LineSeries::new(
            track.iter().map(|p| (p[0], p[1])),
            color.stroke_width(1),
        ))?;
        chart.draw_series(std::iter::once(Circle::new(
            (track[0][0], track[0][1]),
            4,
            color.filled(),
        )))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;

    println!(
        "GVF ellipse: {} unicycles, path error {:.3} m at the start -> {:.2e} m after {} s",
        cfg.n, run.initial_path_error_m, run.final_path_error_m, cfg.duration_s
    );
    println!("wrote {}", log.display());
    println!("wrote {}", svg.display());
    viewer::hold(page);
    Ok(())
}
