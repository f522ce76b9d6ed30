//! The plain-Python example client drives the real binary (skipped when
//! python3 is not installed).

mod common;

use std::process::Command;

#[test]
fn the_python_example_drives_the_server() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not available: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut server, addr) = common::spawn_oceansim(&[], dir.path());
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/python/oceansim_demo.py"
    );
    let out = Command::new("python3")
        .args([script, "--port", &port])
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout:\n{text}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
