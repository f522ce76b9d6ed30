//! What keeping sensor data costs a recording, measured side by side in
//! one run: the default scenario (Static_Map, seed 0) driven headless by
//! the survey controller, as `oceansim run` does, once with sensor data
//! (the default: imaging sensors render at their rates) and once with
//! `--no-sensor-data`, alternating, for the same simulated time.
//!
//! Per mode: simulation speed as a multiple of real time (the run's wall
//! time, its export included, and the export alone), the run directory's
//! bytes per simulated minute, and how far the process's peak resident
//! memory rose while the run was recorded and exported (Linux: `VmHWM`,
//! reset before each run), per simulated minute.
//!
//! ```text
//! cargo run --release -p oceansim-server --example record_bench [-- SECONDS [ROUNDS]]
//! ```
//!
//! Defaults: 60 simulated seconds, 2 rounds of each mode.

use oceansim_server::headless::{Controller, HeadlessRun};
use std::path::Path;
use std::time::Instant;

/// Peak resident set since the last reset (KiB), Linux only.
fn peak_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resident set now (KiB), Linux only.
fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the peak to the current resident set (`clear_refs` 5).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn tree_bytes(p: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(p) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(p)
            .map(|d| d.flatten().map(|e| tree_bytes(&e.path())).sum())
            .unwrap_or(0)
    } else {
        meta.len()
    }
}

#[derive(Default)]
struct Tally {
    wall_s: Vec<f64>,
    export_s: Vec<f64>,
    bytes: u64,
    peak_kib: u64,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(60.0);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut tallies = [Tally::default(), Tally::default()];
    for round in 0..rounds {
        // Without first: memory is measured in the first round only, as the
        // growth of the peak over the resident set at the run's start, and
        // the allocator keeps what a larger run freed.
        for (mode, sensor_data) in [(1, false), (0, true)] {
            let out = dir.path().join(format!("run_{round}_{mode}"));
            let run = HeadlessRun {
                scenario: "Static_Map".into(),
                seed: 0,
                duration_s: secs,
                controller: Controller::Survey,
                out: out.clone(),
                record_memory_frames: 100_000,
                record_memory_bytes: oceansim_sim::MAX_RECORDED_BYTES,
                sensor_data,
                rosbag2: true,
            };
            reset_peak();
            let start_kib = rss_kib().unwrap_or(0);
            let mut sim_done = None;
            let t = Instant::now();
            let report = run
                .run(|done, total| {
                    if done >= total && sim_done.is_none() {
                        sim_done = Some(Instant::now());
                    }
                })
                .expect("the run completes");
            let wall = t.elapsed().as_secs_f64();
            let tally = &mut tallies[mode];
            tally.wall_s.push(wall);
            tally
                .export_s
                .push(sim_done.map_or(0.0, |s| s.elapsed().as_secs_f64()));
            tally.bytes = tree_bytes(&out);
            if round == 0 {
                tally.peak_kib = peak_kib().unwrap_or(0).saturating_sub(start_kib);
            }
            assert!((report.sim_time_s - secs).abs() < 0.2, "{report:?}");
            let _ = std::fs::remove_dir_all(&out);
        }
    }
    let minutes = secs / 60.0;
    println!(
        "recording cost on Static_Map (seed 0), survey controller, {secs} s simulated, {rounds} rounds (median)"
    );
    println!(
        "{:<18} {:>9} {:>11} {:>10} {:>14} {:>16}",
        "mode", "wall s", "x realtime", "export s", "MiB/sim-min", "peak MiB/sim-min"
    );
    for (name, t) in ["sensor data", "no sensor data"].iter().zip(&tallies) {
        let wall = median(&t.wall_s);
        println!(
            "{:<18} {:>9.2} {:>10.1}x {:>10.2} {:>14.2} {:>16.1}",
            name,
            wall,
            secs / wall,
            median(&t.export_s),
            t.bytes as f64 / minutes / (1 << 20) as f64,
            t.peak_kib as f64 / minutes / 1024.0,
        );
    }
    let (with, without) = (median(&tallies[0].wall_s), median(&tallies[1].wall_s));
    println!(
        "sensor data costs {:.1}x the wall time of a run without ({:.2} s vs {:.2} s per simulated minute)",
        with / without,
        with / minutes,
        without / minutes
    );
}
