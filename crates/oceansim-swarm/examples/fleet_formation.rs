//! 100 AUVs (three torpedoes to each BlueROV2, each under its own Fossen
//! model) start scattered and form an 80 m ring at 10 m depth, steering on
//! nothing but the positions that arrived over one shared, lossy acoustic
//! channel. Writes the tracks (CSV), the formation error over time (CSV)
//! and a picture of the paths from above and from the side (SVG); prints
//! the error over time and checks the final error against its bound.
//!
//! ```text
//! cargo run --release -p oceansim-swarm --example fleet_formation [-- OUT_DIR] [--viewer [ADDR]] [--speed X] [--n N]
//! ```
//!
//! With `--viewer` the run plays in the browser, each vehicle a point and
//! an arrow for every report heard in the last two seconds.

#[path = "support/viewer.rs"]
mod viewer;

use oceansim_swarm::fleet::ring::{
    run_ring_formation, run_ring_formation_observed, RingFormationConfig, RingFormationRun,
};
use oceansim_viewer::SwarmView;
use plotters::prelude::*;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// The bound argued in `oceansim_swarm::fleet::ring` (m).
const FINAL_ERROR_BOUND_M: f64 = 0.5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = viewer::parse();
    let out = args.out.clone();
    std::fs::create_dir_all(&out)?;
    let mut cfg = RingFormationConfig::default();
    if let Some(n) = args.n {
        cfg.n = n;
    }
    println!(
        "{} AUVs -> {} m ring at {} m depth; acoustic channel {} bit/s shared, {} bits per report every {} s, {:.0}% loss",
        cfg.n,
        cfg.radius_m,
        cfg.depth_m,
        cfg.medium.bandwidth_bps,
        cfg.message_bits,
        cfg.period_s,
        cfg.medium.packet_drop_rate * 100.0
    );
    let wall = Instant::now();
    let page = viewer::start(&args, "fleet formation over an acoustic channel");
    let run = match &page {
        Some(v) => {
            let view = SwarmView::default()
                .position(oceansim_swarm::fleet::names::P)
                .ned()
                .links(oceansim_swarm::fleet::heard_links)
                .title(format!("{} AUVs forming a ring, who heard whom", cfg.n));
            run_ring_formation_observed(&cfg, Some(viewer::sink(v, &args, view)))?
        }
        None => run_ring_formation(&cfg)?,
    };
    let secs = wall.elapsed().as_secs_f64();
    println!("{:>8} {:>12}", "t (s)", "error (m)");
    for (t, e) in run.times.iter().zip(&run.errors) {
        if (*t as u64).is_multiple_of(60) {
            println!("{t:>8.0} {e:>12.3}");
        }
    }
    let [tx, delivered, lost, out_of_range, skipped] = run.acoustic;
    println!(
        "acoustic: {tx} broadcasts, {delivered} receptions, {lost} lost, {out_of_range} out of range, {skipped} skipped (channel busy)"
    );
    println!(
        "simulated {:.0} s of {} vehicles in {secs:.1} s ({:.0}x real time)",
        cfg.duration_s,
        cfg.n,
        cfg.duration_s / secs
    );
    write_csv(&out, &run)?;
    plot(&out.join("fleet_formation.svg"), &run, cfg.radius_m)?;
    println!(
        "wrote {}/fleet_formation{{_tracks.csv,_error.csv,.svg}}",
        out.display()
    );
    viewer::hold(page);
    let e = run.final_error_m();
    if e < FINAL_ERROR_BOUND_M {
        println!("final formation error {e:.3} m (bound {FINAL_ERROR_BOUND_M} m): formed");
        Ok(())
    } else {
        Err(
            format!("final formation error {e:.3} m exceeds the bound {FINAL_ERROR_BOUND_M} m")
                .into(),
        )
    }
}

fn write_csv(out: &Path, run: &RingFormationRun) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(
        out.join("fleet_formation_tracks.csv"),
    )?);
    writeln!(f, "t_s,vehicle,north_m,east_m,depth_m")?;
    for (t, rows) in run.times.iter().zip(&run.tracks) {
        for (i, p) in rows.iter().enumerate() {
            writeln!(f, "{t},{i},{},{},{}", p[0], p[1], p[2])?;
        }
    }
    f.flush()?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(
        out.join("fleet_formation_error.csv"),
    )?);
    writeln!(f, "t_s,formation_error_m")?;
    for (t, e) in run.times.iter().zip(&run.errors) {
        writeln!(f, "{t},{e}")?;
    }
    f.flush()
}

fn plot(
    path: &Path,
    run: &RingFormationRun,
    radius: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1200, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, side) = root.split_horizontally(600);
    let all = || run.tracks.iter().flatten();
    let max_h = all()
        .map(|p| p[0].abs().max(p[1].abs()))
        .fold(radius, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(&top)
        .caption("From above (north up)", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-max_h..max_h, -max_h..max_h)?;
    chart
        .configure_mesh()
        .x_desc("east (m)")
        .y_desc("north (m)")
        .disable_mesh()
        .draw()?;
    let n = run.offsets.len();
    let colour = |i: usize| HSLColor(i as f64 / n as f64, 0.7, 0.45);
    for i in 0..n {
        chart.draw_series(LineSeries::new(
            run.tracks.iter().map(|r| (r[i][1], r[i][0])),
            colour(i).stroke_width(1),
        ))?;
        let last = run.tracks.last().map(|r| r[i]).unwrap_or_default();
        chart.draw_series(std::iter::once(Circle::new(
            (last[1], last[0]),
            3,
            colour(i).filled(),
        )))?;
    }
    let max_d = all().map(|p| p[2]).fold(0.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&side)
        .caption("From the side (looking north)", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-max_h..max_h, max_d..0.0)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("depth (m)")
        .disable_mesh()
        .draw()?;
    for i in 0..n {
        chart.draw_series(LineSeries::new(
            run.times
                .iter()
                .zip(&run.tracks)
                .map(|(t, r)| (*t, r[i][2])),
            colour(i).stroke_width(1),
        ))?;
    }
    root.present()?;
    Ok(())
}
