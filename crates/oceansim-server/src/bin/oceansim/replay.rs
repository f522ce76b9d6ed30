//! `oceansim replay`: a recorded run in the browser, its sensors' series
//! served to the page's panels as it seeks.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
#[cfg(feature = "viewer")]
use {
    super::{stop_signal, SimConfig, Simulation},
    oceansim_dataset::RunReplay,
    oceansim_sim::panels::RecordedPanels,
    oceansim_viewer::{Mode, SensorSource, Viewer, ViewerConfig},
    std::sync::Arc,
};

/// A run's series as the viewer's [`SensorSource`].
#[cfg(feature = "viewer")]
struct Recorded(RecordedPanels);

#[cfg(feature = "viewer")]
impl SensorSource for Recorded {
    fn at(&self, key: &str, t: f64) -> Option<(u64, Arc<str>)> {
        self.0.at(key, t).map(|(seq, m)| (seq, m.into()))
    }

    fn sequence_at(&self, key: &str, t: f64) -> Option<u64> {
        self.0.sequence_at(key, t)
    }
}

/// `oceansim replay`: the summary of a run directory, and with `--viewer`
/// the run in the browser until Ctrl-C.
pub(super) fn replay(dir: &std::path::Path, viewer: Option<SocketAddr>) -> ExitCode {
    let run = match oceansim_dataset::RunReplay::open(dir) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("error [{}]: {e}", e.code());
            return ExitCode::FAILURE;
        }
    };
    say!("{}", run.summary().to_string().trim_end());
    let Some(at) = viewer else {
        return ExitCode::SUCCESS;
    };
    play(dir, &run, at)
}

/// Without the `viewer` feature, `replay --viewer` is refused.
#[cfg(not(feature = "viewer"))]
fn play(_: &std::path::Path, _: &oceansim_dataset::RunReplay, _: SocketAddr) -> ExitCode {
    eprintln!("{}", super::viewer_args::NO_VIEWER);
    ExitCode::from(2)
}

/// The run in the browser until Ctrl-C.
#[cfg(feature = "viewer")]
fn play(dir: &std::path::Path, run: &RunReplay, at: SocketAddr) -> ExitCode {
    // The sensors' series, for the panels: their list goes in the scene.
    let panels = RecordedPanels::open(run);
    let mut msg = oceansim_viewer::replay::replay_message(run, replay_scene(dir));
    msg.scene.sensors = Some(oceansim_sim::panels::catalogue(&panels.panels()));
    let title = msg.title.clone();
    let v = match Viewer::start(ViewerConfig::new(at, Mode::Replay).title(title)) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error [{}]: {e}", e.code());
            return ExitCode::FAILURE;
        }
    };
    let shown = panels.panels().len();
    v.serve_sensors_from(Arc::new(Recorded(panels)));
    v.publish_scene(oceansim_protocol::view::to_text(&msg));
    say!("viewer on {}", v.url());
    if shown > 0 {
        say!("{shown} sensor series for the page's panels");
    }
    say!("press Ctrl-C to stop");
    let _ = std::io::stdout().flush();
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    rt.block_on(async {
        let _ = stop_signal().await;
    });
    v.shutdown();
    ExitCode::SUCCESS
}

/// The run's scene with its seabed, rebuilt from the scenario and seed in
/// its snapshot (obstacles as they were at export); `None` when the
/// scenario no longer loads (the page then draws the snapshot's map).
#[cfg(feature = "viewer")]
fn replay_scene(dir: &std::path::Path) -> Option<oceansim_protocol::view::Scene> {
    // Read as every file of a run is: a regular file, no link, bounded.
    let text = oceansim_dataset::read_run_file(
        &dir.join("snapshot.json"),
        oceansim_dataset::MAX_RUN_FILE_BYTES,
    )
    .ok()?;
    let snap: serde_json::Value = serde_json::from_str(&text).ok()?;
    let config = SimConfig {
        scenario: snap["scenario"].as_str()?.to_owned(),
        seed: snap["seed"].as_u64()?,
        paused: true,
        ..SimConfig::default()
    };
    let mut scene = Simulation::new(config).ok()?.view_scene();
    if let Some(saved) = oceansim_viewer::replay::scene_from_snapshot(dir) {
        scene.obstacles = saved.obstacles;
    }
    Some(scene)
}
