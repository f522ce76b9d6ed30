//! The plain-Python example client drives the real binary (skipped when
//! python3 is not installed).

use crate::common;

use std::process::Command;

#[test]
fn the_python_example_drives_the_server() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not available: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The demo's requests and what it prints, not a dataset: no imaging
    // sensor renders for a recording (a debug build spent half a minute
    // on them).
    let (mut server, addr) = common::spawn_oceansim(&["--no-sensor-data"], dir.path());
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/python/oceansim_demo.py"
    );
    let run = || {
        Command::new("python3")
            .args([script, "--port", &port])
            .output()
            .unwrap()
    };
    let before = state_of(&addr);
    // Twice against one server: it leaves the server as it found it.
    let (first, out) = (run(), run());
    let after = state_of(&addr);
    let _ = server.kill();
    let _ = server.wait();
    for o in [&first, &out] {
        assert!(
            o.status.success(),
            "stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(before, after, "(paused, agents) before and after two runs");
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "AUV at",
        "corner 4: reached",
        "get_agents: 2 agents",
        "target_01",
        "external_velocity",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
}

/// Whether the server's clock is paused, and how many agents it has.
fn state_of(addr: &str) -> (bool, u64) {
    let mut c = common::Client::connect(addr.parse().unwrap());
    let paused = c.ok("get_state", serde_json::json!({}))["data"]["paused"]
        .as_bool()
        .unwrap();
    let count = c.ok("get_agents", serde_json::json!({}))["data"]["count"]
        .as_u64()
        .unwrap();
    (paused, count)
}
