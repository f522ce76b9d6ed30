//! The `oceansim` binary itself: `--help`, the first stdout line, serving,
//! and a clean exit on Ctrl-C (SIGINT).

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oceansim"))
}

#[test]
fn help_lists_the_commands_and_serve_options() {
    let out = bin().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["serve", "validate", "list", "run", "replay", "Examples"] {
        assert!(text.contains(needle), "{needle} in --help:\n{text}");
    }
    let out = bin().args(["serve", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--host",
        "--port",
        "--scenario",
        "--seed",
        "--profile",
        "--paused",
        "--time-scale",
        "--tick",
        "--step-period",
        "--export-root",
        "--max-connections",
        "--viewer",
    ] {
        assert!(text.contains(flag), "{flag} in serve --help");
    }
}

#[test]
fn validate_reports_good_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"schema_version": 1, "id": "x", "display_name": "x", "generator": "volcano", "map_size_m": [40, 40], "terrain": {"floor_depth_m": 20}, "agents": []}"#).unwrap();
    let out = bin()
        .args(["validate", "Static_Map", bad.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(text.contains("ok    Static_Map"), "{text}");
    assert!(
        text.contains("generator: unknown generator `volcano`") && text.contains("no main agent"),
        "{text}"
    );
    let profile = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/vehicle_profiles/bluerov2_heavy.json"
    );
    let out = bin().args(["validate", profile]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn serves_on_port_zero_and_exits_cleanly_on_sigint() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) =
        common::spawn_oceansim(&["--paused", "--scenario", "PaleMap"], dir.path());
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut w = s.try_clone().unwrap();
    w.write_all(b"{\"type\":\"command\",\"request_id\":\"cli\",\"action\":\"get_state\"}\n")
        .unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["request_id"], "cli");
    assert_eq!(v["data"]["scenario"], "PaleMap");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(code) = child.try_wait().unwrap() {
            assert!(code.success(), "clean exit on SIGINT: {code:?}");
            break;
        }
        assert!(Instant::now() < deadline, "server did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Serves with `extra` flags, logging to a file, answers one request
/// (then the server is past its start-up log and handles SIGINT itself: a
/// signal before that would kill it silently), stops it with SIGINT and
/// returns the log.
fn log_of_one_request(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
    let mut child = bin()
        .args(["serve", "--port", "0", "--paused"])
        .args(extra)
        .arg("--export-root")
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    let s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.try_clone()
        .unwrap()
        .write_all(b"{\"type\":\"command\",\"action\":\"get_state\"}\n")
        .unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    assert!(line.contains("\"success\":true"), "{line}");
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(child.wait().unwrap().success(), "clean exit on SIGINT");
    std::fs::read_to_string(dir.path().join("server.log")).unwrap()
}

#[test]
fn logs_to_a_file_carry_no_colour_codes() {
    let text = log_of_one_request(&[]);
    assert!(
        text.contains("simulator ready") && text.contains("shutting down"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "ANSI escape codes in a log file: {text:?}"
    );
}

#[test]
fn json_logs_are_one_object_per_line_and_bad_log_options_are_refused() {
    let text = log_of_one_request(&["--log-format", "json"]);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    let ready = lines
        .iter()
        .find(|l| l["message"] == "simulator ready")
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(ready["level"], "INFO");
    assert_eq!(ready["scenario"], "Static_Map");

    for (flag, value, needle) in [
        ("--log-format", "fancy", "unknown log format `fancy`"),
        ("--log-level", "loud", "unknown log level `loud`"),
    ] {
        let out = bin().args(["list", flag, value]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{err}");
    }
    // A RUST_LOG that does not parse: the configured levels, and a warning.
    let out = bin().arg("list").env("RUST_LOG", "a=b=c").output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a list of target=level directives"),
        "{err}"
    );
}

#[test]
fn run_simulates_headless_and_replay_reads_the_export() {
    let root = tempfile::tempdir().unwrap();
    let out_dir = root.path().join("runs/survey");
    // Trajectories, commands and the spill, not sensor series (the
    // headless run's sensors are the next test's): no imaging sensor
    // renders, which in a debug build was most of this test's time.
    let out = bin()
        .args([
            "run",
            "--duration",
            "30",
            "--quiet",
            "--no-sensor-data",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("simulated 30.0 s"), "{text}");
    assert!(text.contains("waypoints reached"), "{text}");
    let replay = oceansim_dataset::RunReplay::open(&out_dir).unwrap();
    assert_eq!(replay.frame_count(), 301, "t = 0 and 300 control periods");
    assert!(
        replay.command(0).is_some(),
        "the survey's first waypoint is logged"
    );
    assert!(replay.summary().distance_m["auv/main"] > 10.0, "it moved");
    // The same run again gives the same trajectory (a headless run is
    // paused and stepped: deterministic), replacing the first; here with
    // all but 20 frames spilled to disk, which changes nothing exported.
    let first = replay.trajectory("auv/main");
    let first_timeline = std::fs::read(out_dir.join("agent_timeline.jsonl")).unwrap();
    let again = bin()
        .args([
            "run",
            "--duration",
            "30",
            "--quiet",
            "--record-memory-frames",
            "20",
            "--no-sensor-data",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(again.status.success());
    let second = oceansim_dataset::RunReplay::open(&out_dir).unwrap();
    assert_eq!(second.trajectory("auv/main"), first);
    assert!(std::fs::read(out_dir.join("agent_timeline.jsonl")).unwrap() == first_timeline);
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(
        meta["recording"]["frames_spilled"], 281,
        "{}",
        meta["recording"]
    );
    assert!(
        !root
            .path()
            .join("runs")
            .join(oceansim_sim::SPILL_DIR)
            .exists(),
        "the spill is gone with the run"
    );

    let out = bin().arg("replay").arg(&out_dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("301 frames") && text.contains("auv/main"),
        "{text}"
    );
    // Bad input: a clear error with its code, not a panic.
    let out = bin().args(["replay", "/nonexistent/run"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("[dataset_io]"));
    let out = bin()
        .args(["run", "--duration=-5", "--out"])
        .arg(root.path().join("x"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("[headless_run]"));
    let out = bin()
        .args(["run", "--duration=1e8", "--out"])
        .arg(root.path().join("x"))
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a longer run than MAX_RUN_S is refused"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("[headless_run]"));
}

#[test]
fn a_viewer_address_in_use_is_a_clear_error_before_serving() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = bin()
        .args(["serve", "--port", "0", "--viewer", &addr])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("viewer_bind") && err.contains(&addr), "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout).is_empty(),
        "no `listening on` line"
    );
    let out = bin().args(["replay", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("--viewer"));
}

#[test]
fn a_viewer_rate_out_of_range_or_without_a_viewer_is_refused() {
    for bad in ["0", "0.5", "121", "inf", "NaN", "-30", "fast"] {
        let out = bin()
            .args(["serve", "--port", "0", "--viewer", "127.0.0.1:0"])
            .arg(format!("--viewer-fps={bad}"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--viewer-fps {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--viewer-fps") && err.contains("from 1 to 120"),
            "{bad}: {err}"
        );
        assert!(out.stdout.is_empty(), "nothing served for {bad}");
    }
    let out = bin()
        .args(["serve", "--port", "0", "--viewer-fps", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("required") && err.contains("--viewer [<ADDR>]"),
        "{err}"
    );
}

#[test]
fn serve_snapshot_goes_on_from_a_saved_snapshot_byte_for_byte() {
    let root = tempfile::tempdir().unwrap();
    let (child, addr) = common::spawn_oceansim(&["--paused", "--deterministic"], root.path());
    let _a = common::KillOnDrop(child);
    let mut a = common::Client::connect(addr.parse().unwrap());
    for k in 0..5 {
        a.ok(
            "step",
            serde_json::json!({"force": [15.0, f64::from(k), 0.0]}),
        );
    }
    a.ok(
        "spawn_agent",
        serde_json::json!({"agent_name": "buoy", "location": [-5.0, -6.0, -17.0], "size_m": 1.0}),
    );
    let saved = a.ok("save_snapshot_json", serde_json::json!({"path": "s.json"}));
    let file = saved["data"]["path"].as_str().unwrap().to_owned();
    let go_on = |c: &mut common::Client| -> Vec<String> {
        (0..8)
            .map(|k| {
                c.request(
                    serde_json::json!({"type": "command", "request_id": k, "action": "step",
                                            "data": {"force": [5.0, -1.0, 2.0]}}),
                )
                .to_string()
            })
            .collect()
    };
    let expected = go_on(&mut a);
    let (child, addr) = common::spawn_oceansim(
        &["--paused", "--deterministic", "--snapshot", &file],
        root.path(),
    );
    let _b = common::KillOnDrop(child);
    let mut b = common::Client::connect(addr.parse().unwrap());
    assert_eq!(go_on(&mut b), expected);
    let out = bin()
        .args(["serve", "--port", "0", "--snapshot", "/nonexistent/s.json"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn a_killed_runs_spill_is_removed_by_the_next_run() {
    let root = tempfile::tempdir().unwrap();
    let spill = root.path().join(oceansim_sim::SPILL_DIR);
    let run = |name: &str, duration: &str| {
        let mut c = bin();
        c.args([
            "run",
            "--quiet",
            "--record-memory-frames",
            "1",
            "--duration",
            duration,
        ])
        .arg("--out")
        .arg(root.path().join(name));
        c
    };
    // No sensor data: it need only spill a frame before it is killed.
    let mut long = run("long", "100000")
        .arg("--no-sensor-data")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for its spill to be made and locked, then kill it: no clean-up.
    let deadline = Instant::now() + Duration::from_secs(120);
    let dir = loop {
        let found = std::fs::read_dir(&spill)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|d| d.join("owner.lock").exists() && d.join("frames.jsonl").exists());
        if let Some(d) = found {
            break d;
        }
        assert!(Instant::now() < deadline, "the long run never spilled");
        std::thread::sleep(Duration::from_millis(20));
    };
    long.kill().unwrap();
    long.wait().unwrap();
    assert!(
        dir.join("frames.jsonl").exists(),
        "a killed run leaves its spill"
    );

    // Its sweep runs beside the simulation: 30 s simulated is ample time.
    let short = run("short", "30").output().unwrap();
    assert!(
        short.status.success(),
        "{}",
        String::from_utf8_lossy(&short.stderr)
    );
    assert!(!dir.exists(), "the next run under the same root removes it");
    assert!(!spill.exists(), "and its own when it ends");
}

/// A run directory's `metadata.json`.
fn metadata_of(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("metadata.json")).unwrap()).unwrap()
}

/// Asserts that the run in `dir` holds every sensor's series at its rate
/// over `secs` simulated seconds (a sample at the start, then one per
/// period).
fn assert_every_series_at_its_rate(dir: &std::path::Path, secs: f64) {
    let meta = metadata_of(dir);
    assert_eq!(meta["sensor_data_recorded"], true);
    let sensors = meta["sensors"].as_array().unwrap();
    assert!(sensors.len() >= 10, "{sensors:?}");
    for s in sensors {
        assert_eq!(s["samples_recorded"], true, "{s}");
        let (name, rate) = (s["name"].as_str().unwrap(), s["rate_hz"].as_f64().unwrap());
        let path = dir.join(format!("sensors/auv_main/{name}.jsonl"));
        let lines = std::fs::read_to_string(path).map_or(0, |t| t.lines().count());
        let want = (secs * rate) as usize + 1;
        assert!(
            lines.abs_diff(want) <= 1,
            "{name}: {lines} samples, about {want} expected"
        );
    }
    assert!(
        dir.join("rosbag2/metadata.yaml").is_file() && dir.join("rosbag2/rosbag2_0.mcap").is_file()
    );
}

/// `oceansim run` with `args` into `out`, which must succeed.
fn run_ok(args: &[&str], out: &std::path::Path) {
    let done = bin()
        .args(["run", "--duration", "4", "--quiet"])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// `oceansim run` exports every sensor's series at its rate by default,
/// imaging sensors included (nobody asks for them in a headless run), and
/// a ROS 2 bag; `--no-rosbag2` and `--no-sensor-data` leave them out.
#[test]
fn a_headless_run_exports_every_sensor_at_its_rate_and_a_ros2_bag() {
    let root = tempfile::tempdir().unwrap();
    let sensed = root.path().join("sensed");
    run_ok(&[], &sensed);
    assert_every_series_at_its_rate(&sensed, 4.0);
    assert_eq!(metadata_of(&sensed)["rosbag2"]["dir"], "rosbag2");
    let lean = root.path().join("lean");
    run_ok(&["--no-sensor-data", "--no-rosbag2"], &lean);
    let meta = metadata_of(&lean);
    assert_eq!(meta["sensor_data_recorded"], false);
    assert!(meta["rosbag2"].is_null());
    assert!(!lean.join("rosbag2").exists() && !lean.join("sensors").exists());
}

/// `oceansim serve` with its defaults keeps sensor data: an export after
/// 2 s of paused steps holds every sensor's series at its rate, imaging
/// sensors included though no client asked for them, and a ROS 2 bag.
#[test]
fn a_served_export_holds_every_sensor_at_its_rate_by_default() {
    let root = tempfile::tempdir().unwrap();
    let exports = root.path().join("exports");
    let (child, addr) = common::spawn_oceansim(&["--paused"], &exports);
    let _kill = common::KillOnDrop(child);
    let mut c = common::Client::connect(addr.parse().unwrap());
    for _ in 0..20 {
        assert_eq!(c.cmd("step", serde_json::json!({}))["status"], "ok");
    }
    let r = c.cmd(
        "export_dataset",
        serde_json::json!({"export_dir": "served"}),
    );
    assert_eq!(r["status"], "ok", "{r}");
    assert_every_series_at_its_rate(&exports.join("served"), 2.0);
}

/// The bridge is opt-in: a binary built without the `ros2` feature refuses
/// `--ros2` before serving, and its message names the feature and the
/// command that builds it in.
#[cfg(not(feature = "ros2"))]
#[test]
fn ros2_without_its_feature_is_refused_naming_the_feature() {
    let root = tempfile::tempdir().unwrap();
    for extra in [&["--ros2"][..], &["--ros2", "tcp/127.0.0.1:7447"][..]] {
        let out = bin()
            .args(["serve", "--port", "0", "--paused"])
            .args(extra)
            .arg("--export-root")
            .arg(root.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("`ros2` cargo feature") && err.contains("--features ros2 -- serve --ros2"),
            "{err}"
        );
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("listening on"),
            "refused before serving"
        );
    }
}
