//! Renders beside the simulation: a recording whose imaging sensors render
//! on worker threads exports, file for file and byte for byte, what a
//! recording rendering them inside the tick exports, and replies the
//! same; a tight bound on renders in flight makes the simulation wait, it
//! loses no sample.

use crate::export::run_in;
use crate::spill::files;
use oceansim_sim::{SimConfig, Simulation};
use std::path::Path;

/// A recording simulation under `root` rendering at most
/// `renders_in_flight` samples beside the simulation (0: in the tick).
fn sim(root: &Path, renders_in_flight: usize) -> Simulation {
    let mut s = Simulation::new(SimConfig {
        paused: true,
        deterministic: true,
        export_root: root.to_path_buf(),
        record_sensor_data: true,
        renders_in_flight,
        ..SimConfig::default()
    })
    .expect("default scenario loads");
    // The exports' clock origin, else each run's own wall-clock start.
    s.set_recording_started_unix_ns(1_700_000_000_000_000_000);
    s
}

#[test]
fn a_pipelined_recording_exports_what_an_inline_one_does_byte_for_byte() {
    let mut exports = Vec::new();
    // One root for all (paths in replies and files compare equal), the
    // run directory removed after each.
    let root = tempfile::tempdir().unwrap();
    // In the tick; beside it with the default bound; beside it with a
    // bound of one, so that recording waits for renders all along.
    for bound in [0, oceansim_sim::MAX_RENDERS_IN_FLIGHT, 1] {
        let (s, reply) = run_in(sim(root.path(), bound));
        let dir = root.path().join("runs/demo");
        let all = files(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        // Every imaging sensor's series is there, with every sample.
        for sensor in ["camera", "imaging_sonar", "side_scan_sonar"] {
            assert!(
                all.keys().any(|k| k.contains(sensor)),
                "{sensor} missing from {:?}",
                all.keys().collect::<Vec<_>>()
            );
        }
        let recorded = s.recorded();
        assert!(!recorded.is_empty());
        exports.push((bound, reply, all));
    }
    let (_, reply0, files0) = &exports[0];
    for (bound, reply, all) in &exports[1..] {
        assert_eq!(reply, reply0, "export reply, bound {bound}");
        assert_eq!(
            all.keys().collect::<Vec<_>>(),
            files0.keys().collect::<Vec<_>>(),
            "bound {bound}"
        );
        for (name, bytes) in all {
            assert!(bytes == &files0[name], "{name} differs with bound {bound}");
        }
    }
}

/// A state reply says what recording sensor data costs: render CPU time
/// per simulated second and the renders in flight; a `--deterministic`
/// run leaves it out (wall-clock figures would differ run to run).
#[test]
fn state_replies_say_what_recording_sensor_data_costs() {
    use crate::common::ok;
    use serde_json::json;
    let root = tempfile::tempdir().unwrap();
    let run = |deterministic: bool, record_sensor_data: bool| {
        let mut s = Simulation::new(SimConfig {
            paused: true,
            deterministic,
            export_root: root.path().to_path_buf(),
            record_sensor_data,
            ..SimConfig::default()
        })
        .expect("default scenario loads");
        for _ in 0..20 {
            ok(&mut s, "step", json!({"force": [0.0, 5.0, 0.0]}));
        }
        ok(&mut s, "get_state", json!({}))
    };
    let costly = run(false, true)["recording"].clone();
    assert_eq!(costly["sensor_data"], true, "{costly}");
    let ms = costly["render_cpu_ms_per_sim_s"].as_f64().unwrap();
    // Twenty steps at 0.1 s take the camera, RGB-D and sonars at 5 Hz:
    // milliseconds of rendering per simulated second, not zero or hours.
    assert!(ms > 0.1 && ms < 1e5, "{costly}");
    assert!(costly["renders_in_flight"].as_u64().is_some(), "{costly}");
    let plain = run(false, false)["recording"].clone();
    assert_eq!(plain["sensor_data"], false, "{plain}");
    assert!(
        plain["render_cpu_ms_per_sim_s"].as_f64().unwrap() < ms,
        "nothing renders unasked without sensor data: {plain} vs {costly}"
    );
    assert!(run(true, true).get("recording").is_none());
}

/// The simulation runs ahead of its renders (the default bound lets it),
/// and while it is paused and nobody steps the renders finish, their
/// frames join the record on the clock's calls and every state reply says
/// so (not the reply cached at the last step).
#[test]
fn paused_the_renders_catch_up_and_state_replies_follow_them() {
    use crate::common::ok;
    use serde_json::json;
    let root = tempfile::tempdir().unwrap();
    let mut s = Simulation::new(SimConfig {
        paused: true,
        export_root: root.path().to_path_buf(),
        record_sensor_data: true,
        ..SimConfig::default()
    })
    .expect("default scenario loads");
    // 60 s of the five imaging sensors at 5 Hz: 1,500 renders, seconds of
    // rendering, taken in the time the ticks take.
    for _ in 0..600 {
        ok(&mut s, "step", json!({"detail": "compact"}));
    }
    let waiting = |s: &mut Simulation| {
        ok(s, "get_state", json!({}))["recording"]["renders_in_flight"]
            .as_u64()
            .unwrap()
    };
    let first = waiting(&mut s);
    assert!(first > 0, "renders wait beside a long step: {first}");
    let mut seen = vec![first];
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while *seen.last().unwrap() > 0 {
        assert!(std::time::Instant::now() < deadline, "stuck at {seen:?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
        s.advance_realtime(0.0); // the clock, paused: no tick
        let now = waiting(&mut s);
        if now != *seen.last().unwrap() {
            seen.push(now);
        }
    }
    assert!(seen.windows(2).all(|w| w[1] < w[0]), "{seen:?}");
    assert_eq!(s.oldest_frame_waiting_for_renders(), None);
    let state = ok(&mut s, "get_state", json!({}));
    let t = state["sim_time"]
        .as_f64()
        .unwrap_or_else(|| panic!("{state}"));
    assert!(
        (t - 60.0).abs() < 1e-6,
        "paused: no tick while catching up ({t})"
    );
}
