//! `save_snapshot_json` → `load_snapshot` (or `Simulation::from_snapshot`)
//! → the same requests give the same replies, to the byte, as the run that
//! never stopped; a refused load leaves the world as it was.

use crate::common::{call, ok, request};
use oceansim_sim::{SimConfig, Simulation};
use serde_json::{json, Value};
use std::path::Path;

/// A simulation keeping no sensor data: a replay renders every camera and
/// sonar frame a recording kept, and the long runs here would spend
/// minutes on them.
fn sim(root: &Path) -> Simulation {
    Simulation::new(SimConfig {
        paused: true,
        deterministic: true,
        record_sensor_data: false,
        export_root: root.to_path_buf(),
        ..SimConfig::default()
    })
    .unwrap()
}

/// A run with something of everything that changes the world: forces,
/// a proxy and its velocity, an obstacle, an imaging sample (noise draws),
/// an acoustic message, a reset with a new seed, the waypoint PID.
fn busy(s: &mut Simulation) {
    for k in 0..8 {
        ok(
            s,
            "step",
            json!({"force": [20.0, 5.0 * f64::from(k), -3.0]}),
        );
    }
    let p = ok(s, "get_state", json!({}))["position"].clone();
    let (x, y, z) = (
        p[0].as_f64().unwrap(),
        p[1].as_f64().unwrap(),
        p[2].as_f64().unwrap(),
    );
    ok(
        s,
        "spawn_agent",
        json!({"agent_name": "buoy", "location": [x + 6.0, z, -y], "size_m": 1.0}),
    );
    ok(
        s,
        "set_agent_velocity",
        json!({"id": "buoy", "velocity": [0.3, 0.1, 0.0]}),
    );
    ok(
        s,
        "spawn_obstacle",
        json!({"id": "rock", "shape": "sphere", "position": [x - 8.0, z - 4.0, -y], "radius": 1.0}),
    );
    ok(s, "get_sensors", json!({"sensors": ["camera"]}));
    let _ = call(
        s,
        "send_acoustic_message",
        json!({"from": "auv/main", "to": "buoy", "message": "hello"}),
    );
    // A refused request is not journaled, and changes nothing.
    assert_eq!(
        call(s, "remove_obstacle", json!({"id": "nothing"}))["success"],
        false
    );
    for _ in 0..5 {
        ok(s, "step", json!({}));
    }
    ok(s, "reset", json!({"seed": 7}));
    ok(
        s,
        "set_waypoint",
        json!({"world_x": x + 4.0, "world_z": -y - 4.0, "depth": -z, "control_scheme": "waypoint_pid"}),
    );
    for _ in 0..6 {
        ok(s, "step", json!({}));
    }
}

/// The replies to the same continuation, as lines.
fn go_on(s: &mut Simulation) -> Vec<String> {
    let mut out = Vec::new();
    for k in 0..12 {
        let line = json!({"type": "command", "action": "step", "request_id": k,
                          "data": {"force": [10.0, -2.0, f64::from(k)]}});
        out.push(request(s, &line).to_string());
    }
    out.push(request(s, &json!({"type": "command", "action": "get_sensors"})).to_string());
    out.push(request(s, &json!({"type": "command", "action": "get_agents"})).to_string());
    out
}

#[test]
fn a_loaded_snapshot_goes_on_exactly_as_the_run_that_never_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut a = sim(root);
    busy(&mut a);
    let saved = ok(
        &mut a,
        "save_snapshot_json",
        json!({"path": "snaps/busy.json"}),
    );
    let path = saved["path"].as_str().unwrap().to_owned();
    let text = std::fs::read_to_string(&path).unwrap();
    let snapshot: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(snapshot["restore"]["restorable"], true);
    let expected = go_on(&mut a);

    let mut b = Simulation::from_snapshot(&snapshot, root.to_path_buf()).unwrap();
    assert_eq!(
        go_on(&mut b),
        expected,
        "from_snapshot continues byte for byte"
    );

    let mut c = sim(root);
    ok(&mut c, "step", json!({"force": [1.0, 0.0, 0.0]}));
    let loaded = ok(&mut c, "load_snapshot", json!({"path": "snaps/busy.json"}));
    assert_eq!(loaded["scenario"], "Static_Map");
    assert_eq!(
        go_on(&mut c),
        expected,
        "load_snapshot continues byte for byte"
    );

    // A snapshot of a loaded run loads too (the journal runs on).
    ok(
        &mut c,
        "save_snapshot_json",
        json!({"path": "snaps/again.json"}),
    );
    let mut d = sim(root);
    ok(&mut d, "load_snapshot", json!({"path": "snaps/again.json"}));
    let mut e = Simulation::from_snapshot(&snapshot, root.to_path_buf()).unwrap();
    go_on(&mut e);
    assert_eq!(go_on(&mut d), go_on(&mut e));
}

/// A server takes the export cancel flag once, at start; a world restored
/// by `load_snapshot` must answer to the same one, or a stopping server
/// could no longer cancel its exports.
#[test]
fn a_loaded_world_keeps_the_export_cancel_flag_the_server_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut a = sim(root);
    busy(&mut a);
    ok(
        &mut a,
        "save_snapshot_json",
        json!({"path": "snaps/flag.json"}),
    );
    let mut c = sim(root);
    let cancel = c.export_cancel();
    ok(&mut c, "load_snapshot", json!({"path": "snaps/flag.json"}));
    ok(&mut c, "step", json!({"force": [1.0, 0.0, 0.0]}));
    assert!(!c.export_cancel().is_cancelled());
    cancel.cancel();
    assert!(c.export_cancel().is_cancelled(), "the same flag");
    let r = call(&mut c, "export_dataset", json!({"export_dir": "flag_run"}));
    assert_eq!(r["success"], false, "{r}");
    assert!(r["message"].as_str().unwrap().contains("cancelled"), "{r}");
    assert!(!root.join("flag_run").exists(), "nothing written");
}

/// The same for a world rebuilt by `reset`, `set_scenario` or
/// `generate_map`: it kept a fresh flag of its own, so a stopping server
/// could no longer cancel its exports.
#[test]
fn a_reset_world_keeps_the_export_cancel_flag_the_server_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut c = sim(root);
    let cancel = c.export_cancel();
    ok(&mut c, "reset", json!({}));
    ok(&mut c, "step", json!({"force": [1.0, 0.0, 0.0]}));
    cancel.cancel();
    assert!(
        c.export_cancel().is_cancelled(),
        "the same flag after a reset"
    );
    let r = call(
        &mut c,
        "export_dataset",
        json!({"export_dir": "reset_flag_run"}),
    );
    assert_eq!(r["success"], false, "{r}");
    assert!(r["message"].as_str().unwrap().contains("cancelled"), "{r}");
    assert!(!root.join("reset_flag_run").exists(), "nothing written");
}

#[test]
fn a_refused_load_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut s = sim(root);
    ok(&mut s, "step", json!({"force": [5.0, 0.0, 0.0]}));
    let before = ok(&mut s, "get_state", json!({})).to_string();
    let dir = root.join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("not_json.json"), "{ nope").unwrap();
    std::fs::write(dir.join("old.json"), r#"{"schema": "oceansim_snapshot"}"#).unwrap();
    std::fs::write(
        dir.join("full.json"),
        r#"{"restore": {"restorable": false, "reason": "the journal of requests passed 128 MiB"}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("forged.json"),
        r#"{"restore": {"schema": "oceansim_journal", "version": 1, "restorable": true, "ticks": 5,
            "config": {"scenario": "Static_Map", "seed": 0, "profile": null, "tick_s": 0.01, "step_period_s": 0.1,
                       "paused": true, "time_scale": 1.0, "deterministic": true, "record_sensor_data": false},
            "journal": [[9, "step", {}, null]]}}"#,
    )
    .unwrap();
    for (path, why) in [
        ("bad/missing.json", "cannot read"),
        ("bad/not_json.json", "not JSON"),
        ("bad/old.json", "no `restore`"),
        ("bad/full.json", "128 MiB"),
        ("bad/forged.json", "out of order"),
        ("../escape.json", "export root"),
    ] {
        let r = call(&mut s, "load_snapshot", json!({ "path": path }));
        assert_eq!(r["success"], false, "{path}: {r}");
        let msg = r.to_string();
        assert!(msg.contains(why), "{path}: {msg}");
    }
    assert_eq!(ok(&mut s, "get_state", json!({})).to_string(), before);
}

/// A recording longer than the replay keeps in memory: the restored run
/// spills more of it, and exports the very same frames and commands.
#[test]
fn a_long_recording_restores_to_the_same_export() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut s = sim(root);
    ok(&mut s, "set_force", json!({"force": [3.0, 1.0, 0.0]}));
    // 12,000 frames: past the 10,000 a replay keeps in memory.
    s.tick(120_000);
    ok(&mut s, "set_force", json!({"force": [0.0, -2.0, 0.0]}));
    s.tick(500);
    ok(&mut s, "save_snapshot_json", json!({"path": "long/s.json"}));
    let text = std::fs::read_to_string(root.join("long/s.json")).unwrap();
    let mut back =
        Simulation::from_snapshot(&serde_json::from_str(&text).unwrap(), root.to_path_buf())
            .unwrap();
    for (sim, dir) in [(&mut s, "long/a"), (&mut back, "long/b")] {
        ok(sim, "export_dataset", json!({"export_dir": dir}));
    }
    for file in [
        "trajectory.csv",
        "agent_timeline.jsonl",
        "commands.jsonl",
        "run.mcap",
    ] {
        let a = std::fs::read(root.join("long/a").join(file)).unwrap();
        let b = std::fs::read(root.join("long/b").join(file)).unwrap();
        assert!(a == b, "{file} differs");
    }
    let meta = |d: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(d).join("metadata.json")).unwrap())
            .unwrap()
    };
    let (a, b) = (meta("long/a"), meta("long/b"));
    assert_eq!(a["frame_count"], b["frame_count"]);
    assert_eq!(a["frame_count"], 12_051);
    assert_eq!(b["recording"]["frames_dropped"], 0);
    // The restored world keeps the snapshot's own memory bound from now on.
    assert_eq!(
        a["recording"]["memory_frames_limit"],
        b["recording"]["memory_frames_limit"]
    );
}
