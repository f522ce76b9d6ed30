//! The hostile suite, files and the clock: forged snapshots, paths that
//! point at the host, command-line values that never finish, the disk
//! budget, frames the spill could not take, and finished runs. Each case
//! repeats a reproduced attack against the real binary and checks the
//! error a client gets, that nothing was written or lost, and (where the
//! attack is a long request) that another connection was answered
//! within 100 ms throughout.

use crate::support::attack::Server;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oceansim"))
}

/// A saved snapshot's JSON (saved by the server as `name`).
fn saved_snapshot(server: &Server, name: &str) -> Value {
    let r = server
        .conn()
        .cmd("save_snapshot_json", json!({"path": name}));
    assert_eq!(r["status"], "ok", "{r}");
    let text = std::fs::read_to_string(server.exports().join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn write_json(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_vec(v).unwrap()).unwrap();
}

/// Run directories (not hidden) under `root`.
fn runs(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') && n != "snapshots")
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Finding 1: a journal that loads itself, or exports 300 times, is
/// refused whole, on the protocol and on the command line.
#[test]
fn forged_journals_are_refused_whole() {
    let server = Server::start();
    let mut c = server.conn();
    for _ in 0..3 {
        assert_eq!(c.cmd("step", json!({}))["status"], "ok");
    }
    let mut snap = saved_snapshot(&server, "honest.json");
    // At the journal's end, in order: only what it is makes it refused.
    let at = snap["restore"]["ticks"].clone();
    let journal = snap["restore"]["journal"].as_array_mut().unwrap();
    journal.push(json!([at, "load_snapshot", {"path": "recur.json"}, null]));
    write_json(&server.exports().join("recur.json"), &snap);
    let mut exports = saved_snapshot(&server, "exports.json");
    let journal = exports["restore"]["journal"].as_array_mut().unwrap();
    for i in 0..300 {
        journal.push(json!([at, "export_dataset", {"export_dir": format!("forged_{i}")}, null]));
    }
    write_json(&server.exports().join("exports.json"), &exports);
    let watch = server.watch();
    for file in ["recur.json", "exports.json"] {
        let r = c.cmd("load_snapshot", json!({"path": file}));
        assert_eq!(r["error_code"], "invalid_message", "{file}: {r}");
        let msg = r["message"].as_str().unwrap();
        assert!(msg.contains("never journaled"), "{file}: {msg}");
    }
    watch.finish();
    assert!(runs(&server.exports()).is_empty(), "no run was written");
    // The world is the one before the refusals.
    let state = c.cmd("get_state", json!({}));
    assert!(
        (state["sim_time"].as_f64().unwrap() - 0.3).abs() < 1e-9,
        "{state}"
    );
    // The command line refuses it too, with a message, not a crash.
    let out = bin()
        .args(["serve", "--port", "0", "--snapshot"])
        .arg(server.exports().join("recur.json"))
        .arg("--export-root")
        .arg(server.exports())
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("never journaled"), "{err}");
    server.assert_alive();
}

/// Finding 2: a long replay runs in slices (others are answered within
/// 100 ms throughout and it ends with the world restored), and forged
/// tick counts or ticks are refused at once.
#[test]
fn a_long_replay_blocks_nobody_and_forged_ticks_are_refused() {
    // 400,000 ticks in 4,000 steps of 1 s (batches of 64), whatever the
    // machine's speed; a replayed step is one slice, so steps stay short.
    // Frames past 5,000 spill to disk.
    let server = Server::start_with(&["--record-memory-frames", "5000", "--step-period", "1"]);
    let mut c = server.conn();
    c.cmd("set_force", json!({"force": [4.0, 1.0, 0.0]}));
    let steps: Vec<Value> = (0..64)
        .map(|_| json!({"type": "command", "action": "step"}))
        .collect();
    for _ in 0..62 {
        c.request(&json!({"type": "batch", "requests": steps}));
    }
    for _ in 0..32 {
        c.cmd("step", json!({}));
    }
    let before = c.cmd("get_state", json!({}));
    let snap = saved_snapshot(&server, "long.json");
    let ticks = snap["restore"]["ticks"].as_u64().unwrap();
    assert_eq!(ticks, 400_000);
    c.cmd("reset", json!({}));
    let watch = server.watch();
    let t = Instant::now();
    let r = c.cmd("load_snapshot", json!({"path": "long.json"}));
    let took = t.elapsed();
    let times = watch.finish();
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["data"]["ticks"], ticks);
    eprintln!(
        "replayed {ticks} ticks in {took:?}; {} get_state answered meanwhile",
        times.len()
    );
    assert!(
        times.len() >= 3,
        "the watcher was answered during the replay"
    );
    let after = c.cmd("get_state", json!({}));
    assert_eq!(after["data"]["position"], before["data"]["position"]);
    assert_eq!(after["sim_time"], before["sim_time"]);
    // Forged: too many ticks, a tick of a nanosecond, a step of 1e300 s.
    let forge = |name: &str, f: &dyn Fn(&mut Value)| {
        let mut v = snap.clone();
        f(&mut v["restore"]);
        write_json(&server.exports().join(name), &v);
    };
    forge("ticks.json", &|r| r["ticks"] = json!(1_000_000_000_000u64));
    forge("tick.json", &|r| r["config"]["tick_s"] = json!(1e-9));
    forge("step.json", &|r| {
        r["config"]["step_period_s"] = json!(1e300)
    });
    forge("frames.json", &|r| {
        r["config"]["record_memory_frames"] = json!(u64::MAX)
    });
    forge("bytes.json", &|r| {
        r["config"]["record_memory_bytes"] = json!(0)
    });
    // Steps run ticks of their own: 4,000 of them "at tick 0" would run
    // 40 M ticks, past the bound the file's `ticks` says it keeps to.
    forge("steps.json", &|r| {
        r["ticks"] = json!(0);
        r["journal"] = Value::Array(vec![json!([0, "step", {}, null]); 4000]);
    });
    for (file, needle) in [
        ("ticks.json", "ticks a replay may run"),
        ("tick.json", "tick must be from"),
        ("step.json", "ticks a step"),
        ("frames.json", "record_memory_frames"),
        ("bytes.json", "record_memory_bytes"),
        ("steps.json", "ticks out of order"),
    ] {
        let t = Instant::now();
        let r = c.cmd("load_snapshot", json!({"path": file}));
        assert_eq!(r["error_code"], "invalid_message", "{file}: {r}");
        let msg = r["message"].as_str().unwrap();
        assert!(msg.contains(needle), "{file}: {msg}");
        assert!(msg.len() < 300, "{file}: a short message: {msg}");
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{file}: refused at once"
        );
    }
    // Inside a batch a long replay is refused by the line's budget.
    let r = c.request(&json!({"type": "batch", "requests": [
        {"type": "command", "action": "load_snapshot", "data": {"path": "long.json"}}]}));
    let child = &r["data"]["responses"][0];
    assert_eq!(child["error_code"], "invalid_message", "{r}");
    assert!(
        child["message"].as_str().unwrap().contains("own line"),
        "{child}"
    );
    server.assert_alive();
}

/// Finding 3: a snapshot never makes the server open a host path, and
/// the command line reads only regular files of bounded size.
#[test]
fn snapshots_and_options_open_no_host_path() {
    let server = Server::start();
    let mut c = server.conn();
    let snap = saved_snapshot(&server, "base.json");
    // A JSON file outside the export root, whose keys must not leak.
    let outside = server.root.path().join("secret.json");
    std::fs::write(&outside, r#"{"private_key_name": 1}"#).unwrap();
    let paths = [
        "/dev/zero".to_owned(),
        outside.display().to_string(),
        "/etc".to_owned(),
        "/no/such/file.json".to_owned(),
    ];
    let watch = server.watch();
    for (i, path) in paths.iter().enumerate() {
        let mut v = snap.clone();
        v["restore"]["config"]["scenario"] = json!(path);
        let name = format!("forged_{i}.json");
        write_json(&server.exports().join(&name), &v);
        let r = c.cmd("load_snapshot", json!({"path": name}));
        assert_eq!(r["error_code"], "invalid_message", "{path}: {r}");
        let msg = r["message"].as_str().unwrap();
        assert!(
            msg.contains("never makes the server open a file"),
            "{path}: {msg}"
        );
        for leak in ["private_key_name", "Is a directory", "No such file"] {
            assert!(
                !msg.contains(leak),
                "{path}: the error tells {leak:?}: {msg}"
            );
        }
    }
    // A profile named by path, without its document.
    let mut v = snap.clone();
    v["restore"]["config"]["profile"] = json!(outside.display().to_string());
    write_json(&server.exports().join("profile.json"), &v);
    let r = c.cmd("load_snapshot", json!({"path": "profile.json"}));
    assert_eq!(r["error_code"], "invalid_message", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("carries no document"),
        "{r}"
    );
    // load_snapshot itself reads only regular files under the root.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/zero", server.exports().join("zero.json")).unwrap();
        let r = c.cmd("load_snapshot", json!({"path": "zero.json"}));
        assert_eq!(r["error_code"], "invalid_message", "{r}");
    }
    watch.finish();
    server.assert_alive();
    // The command line: devices and directories are refused before a byte
    // is read into memory.
    for (flag, path) in [
        ("--scenario", "/dev/zero"),
        ("--snapshot", "/dev/zero"),
        ("--profile", "/dev/zero.json"),
        ("--scenario", "/etc"),
    ] {
        let t = Instant::now();
        let out = bin()
            .args(["serve", "--port", "0", flag, path])
            .arg("--export-root")
            .arg(server.root.path().join("cli"))
            .stdout(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} {path}: {out:?}");
        assert!(t.elapsed() < Duration::from_secs(5), "{flag} {path}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.len() < 600, "{flag} {path}: {err}");
    }
}

/// A snapshot of a run started from a scenario file carries the file's
/// document, and loads back on a server that cannot see the file.
#[test]
fn a_snapshot_of_a_scenario_file_travels_with_its_document() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("mine.json");
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenarios/NarrowMap.json"
    );
    std::fs::copy(shipped, &scenario).unwrap();
    let server = Server::start_with(&["--scenario", scenario.to_str().unwrap()]);
    let mut c = server.conn();
    c.cmd("set_force", json!({"force": [0, 20, 0]}));
    for _ in 0..5 {
        c.cmd("step", json!({}));
    }
    let before = c.cmd("get_state", json!({}));
    let snap = saved_snapshot(&server, "mine_snap.json");
    assert!(snap["restore"]["config"]["scenario_document"].is_object());
    std::fs::remove_file(&scenario).unwrap();
    c.cmd("reset", json!({}));
    let r = c.cmd("load_snapshot", json!({"path": "mine_snap.json"}));
    assert_eq!(r["status"], "ok", "{r}");
    let after = c.cmd("get_state", json!({}));
    assert_eq!(after["data"]["position"], before["data"]["position"]);
    server.assert_alive();
}

/// Finding 7: values that would make one step run forever are refused by
/// the command line, naming the bound.
#[test]
fn clock_options_that_never_finish_are_refused() {
    let root = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (vec!["--step-period", "1e300"], "ticks a step"),
        (vec!["--step-period", "1e9"], "ticks a step"),
        (vec!["--tick", "1e-9"], "tick must be from"),
        (
            vec!["--tick", "1e-9", "--step-period", "1e-9"],
            "tick must be from",
        ),
        (
            vec!["--tick", "0.001", "--step-period", "100"],
            "ticks a step",
        ),
    ] {
        let out = bin()
            .args(["serve", "--port", "0"])
            .args(&args)
            .arg("--export-root")
            .arg(root.path())
            .stdout(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(err.len() < 300, "{args:?}: a short message: {err}");
    }
    // The longest step allowed answers promptly.
    let server = Server::start_with(&["--tick", "0.01", "--step-period", "100"]);
    let t = Instant::now();
    assert_eq!(server.conn().cmd("step", json!({}))["status"], "ok");
    assert!(t.elapsed() < Duration::from_secs(10));
    server.assert_alive();
}

/// Finding 9: with an export root that does not exist yet, spilled frames
/// are kept (the root is made); when the spill truly cannot be made the
/// export says what it lost.
#[test]
fn frames_are_never_lost_silently() {
    let server = Server::start_with(&["--record-memory-frames", "10"]);
    assert!(!server.exports().exists(), "the root is not made up front");
    let mut c = server.conn();
    for _ in 0..50 {
        assert_eq!(c.cmd("step", json!({}))["status"], "ok");
    }
    let r = c.cmd("export_dataset", json!({"export_dir": "fresh"}));
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["data"]["samples"], 51, "{r}");
    assert!(r["data"].get("incomplete").is_none(), "{r}");
    drop(server);
    let _turn = crate::support::attack::exclusive();
    // A spill that cannot be made: the place it goes is a file.
    let root = tempfile::tempdir().unwrap();
    let exports = root.path().join("exports");
    std::fs::create_dir(&exports).unwrap();
    std::fs::write(exports.join(".oceansim-spill"), b"in the way").unwrap();
    let (child, addr) =
        crate::common::spawn_oceansim(&["--paused", "--record-memory-frames", "10"], &exports);
    let _kill = crate::common::KillOnDrop(child);
    let mut c = crate::support::attack::Conn::new(&addr);
    for _ in 0..50 {
        c.cmd("step", json!({}));
    }
    let r = c.cmd("export_dataset", json!({"export_dir": "lossy"}));
    assert_eq!(r["status"], "ok", "{r}");
    let lost = &r["data"]["incomplete"];
    assert_eq!(lost["frames_dropped"], 41, "{r}");
    assert!(lost["reason"].as_str().unwrap().contains("spill"), "{r}");
}

/// Findings 10, 12 and 15: exports keep to the root's disk budget (and a
/// replaced run gives its bytes back), finished runs are not written
/// into, and the root itself is not a run directory.
#[test]
fn exports_keep_to_the_disk_budget_and_finished_runs_stay() {
    // With sensor data a run of 3 s (its images in the series, run.mcap
    // and the bag) and its pack take about 15 MiB.
    let server = Server::start_with(&["--export-budget-mib", "64", "--record-sensor-data"]);
    let mut c = server.conn();
    for _ in 0..30 {
        c.cmd("step", json!({}));
    }
    // The same run replaced again and again costs one run.
    for _ in 0..20 {
        let r = c.cmd(
            "export_dataset",
            json!({"export_dir": "same", "pack_dataset": true}),
        );
        assert_eq!(r["status"], "ok", "{r}");
    }
    // New runs until the budget is spent; the one that does not fit
    // leaves nothing behind.
    let watch = server.watch();
    let mut refused = None;
    for i in 0..200 {
        let r = c.cmd(
            "export_dataset",
            json!({"export_dir": format!("run_{i}"), "pack_dataset": true}),
        );
        if r["status"] != "ok" {
            refused = Some((i, r));
            break;
        }
    }
    watch.finish();
    let (i, r) = refused.expect("the budget refuses an export");
    assert_eq!(r["error_code"], "invalid_message", "{r}");
    let msg = r["message"].as_str().unwrap();
    assert!(msg.contains("disk budget"), "{msg}");
    assert!(!server.exports().join(format!("run_{i}")).exists());
    let written = crate::support::attack::tree_bytes(&server.exports());
    eprintln!("{i} runs fit in the 64 MiB budget: {written} bytes under the root");
    assert!(
        written <= 64 << 20,
        "{written} bytes written under a 64 MiB budget"
    );
    assert!(i >= 1, "at least one more run fits");
    // Finished runs are not written into.
    let meta = std::fs::read(server.exports().join("same/metadata.json")).unwrap();
    for (action, data) in [
        ("save_snapshot_json", json!({"path": "same/metadata.json"})),
        (
            "save_snapshot_json",
            json!({"path": "same/trajectories/x.json"}),
        ),
        ("export_dataset", json!({"export_dir": "same/inner"})),
        ("export_dataset", json!({"export_dir": "."})),
        ("export_dataset", json!({"export_dir": "./"})),
    ] {
        let r = c.cmd(action, data.clone());
        assert_eq!(r["error_code"], "invalid_message", "{action} {data}: {r}");
    }
    assert_eq!(
        std::fs::read(server.exports().join("same/metadata.json")).unwrap(),
        meta
    );
    assert!(!server.exports().join("same/inner").exists());
    assert!(!server.exports().join("metadata.json").exists());
    server.assert_alive();
}

/// Finding 8 (the files): an export killed midway leaves its partial
/// directory, and the next export beside it removes it.
#[test]
fn a_killed_exports_partial_directory_is_swept() {
    let _turn = crate::support::attack::exclusive();
    let root = tempfile::tempdir().unwrap();
    let exports = root.path().join("exports");
    let args = ["--paused", "--record-sensor-data"];
    let (child, addr) = crate::common::spawn_oceansim(&args, &exports);
    let mut child = crate::common::KillOnDrop(child);
    let mut c = crate::support::attack::Conn::new(&addr);
    let steps: Vec<Value> = (0..64)
        .map(|_| json!({"type": "command", "action": "step"}))
        .collect();
    // 256 control periods of every sensor: an export of about a second
    // in a debug build, long enough to be killed while it writes (the
    // assertion below says so if it ever is not).
    for _ in 0..4 {
        c.request(&json!({"type": "batch", "requests": steps}));
    }
    c.send(b"{\"type\":\"command\",\"action\":\"export_dataset\",\"data\":{\"export_dir\":\"runA\"}}\n");
    let partial = || {
        std::fs::read_dir(&exports).ok().and_then(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|n| n.starts_with(".runA.partial."))
        })
    };
    let t = Instant::now();
    while partial().is_none() && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let left = partial().expect("the export started");
    // Killed once the export holds its lock (and is writing).
    while !exports.join(&left).join(".export.lock").exists()
        && t.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    child.0.kill().unwrap();
    let _ = child.0.wait();
    assert!(exports.join(&left).exists(), "a SIGKILL leaves {left}");
    let (child, addr) = crate::common::spawn_oceansim(&["--paused"], &exports);
    let _child = crate::common::KillOnDrop(child);
    let mut c = crate::support::attack::Conn::new(&addr);
    let r = c.cmd("export_dataset", json!({"export_dir": "runB"}));
    assert_eq!(r["status"], "ok", "{r}");
    assert!(
        !exports.join(&left).exists(),
        "the next export removed {left}"
    );
    assert!(partial().is_none());
}
