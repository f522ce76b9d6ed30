//! A formation of single integrators seeking the source of a non-convex
//! scalar field with its L_σ estimate: writes the run's log (CSV) and an
//! SVG of the tracks over the field, and prints the final distance.
//!
//! ```text
//! cargo run --release -p oceansim-swarm --example source_seeking [-- OUT_DIR] [--viewer [ADDR]] [--speed X]
//! ```

#[path = "support/viewer.rs"]
mod viewer;

use oceansim_math::fields::ScalarField;
use oceansim_swarm::scenarios::{run_source_seeking_observed, SourceSeekingConfig};
use oceansim_viewer::SwarmView;
use plotters::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = viewer::parse();
    let out = args.out.clone();
    std::fs::create_dir_all(&out)?;
    let log = out.join("source_seeking.csv");
    let cfg = SourceSeekingConfig {
        log: Some(log.clone()),
        n: args.n.unwrap_or(SourceSeekingConfig::default().n),
        ..SourceSeekingConfig::default()
    };
    let title = format!("source seeking: {} agents", cfg.n);
    let page = viewer::start(&args, &title);
    let observer = page.as_ref().map(|v| {
        viewer::sink(
            v,
            &args,
            SwarmView::default()
                .title(title.clone())
                .bounds([-6.0, 6.0, -6.0, 6.0]),
        )
    });
    let run = run_source_seeking_observed(&cfg, observer)?;

    let svg = out.join("source_seeking.svg");
    let root = SVGBackend::new(&svg, (800, 720)).into_drawing_area();
    root.fill(&WHITE)?;
    let (x0, x1, y0, y1) = (-6.0, 6.0, -6.0, 6.0);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Source seeking on a non-convex field (L_σ ascent)",
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc("x (m)")
        .y_desc("y (m)")
        .disable_mesh()
        .draw()?;
    // The field as a heat map.
    let cells = 90;
    let (dx, dy) = ((x1 - x0) / cells as f64, (y1 - y0) / cells as f64);
    let mut values = Vec::with_capacity(cells * cells);
    for i in 0..cells {
        for j in 0..cells {
            values.push(
                cfg.field
                    .value([x0 + (i as f64 + 0.5) * dx, y0 + (j as f64 + 0.5) * dy]),
            );
        }
    }
    let (lo, hi) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    chart.draw_series(
        (0..cells)
            .flat_map(|i| (0..cells).map(move |j| (i, j)))
            .map(|(i, j)| {
                let t = (values[i * cells + j] - lo) / (hi - lo).max(1e-12);
                let color = HSLColor(0.66 - 0.66 * t, 0.75, 0.35 + 0.45 * t);
                let (x, y) = (x0 + i as f64 * dx, y0 + j as f64 * dy);
                Rectangle::new([(x, y), (x + dx, y + dy)], color.filled())
            }),
    )?;
    for track in &run.tracks {
        chart.draw_series(LineSeries::new(
            track.iter().map(|p| (p[0], p[1])),
            WHITE.mix(0.6).stroke_width(1),
        ))?;
    }
    chart
        .draw_series(LineSeries::new(
            run.centroid_track.iter().map(|p| (p[0], p[1])),
            BLACK.stroke_width(3),
        ))?
        .label("formation centroid")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(3)));
    chart
        .draw_series(std::iter::once(Cross::new(
            (run.source[0], run.source[1]),
            9,
            RED.stroke_width(3),
        )))?
        .label("source")
        .legend(|(x, y)| Cross::new((x + 10, y), 6, RED.stroke_width(3)));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;

    println!(
        "source seeking: {} agents (D = {} m), centroid {:.3} m from the source at the start -> {:.3} m after {} s",
        cfg.n, cfg.formation_radius, run.initial_distance_m, run.final_distance_m, cfg.duration_s
    );
    println!("wrote {}", log.display());
    println!("wrote {}", svg.display());
    viewer::hold(page);
    Ok(())
}
