//! The smoke checks as part of `cargo test`: builds the `xtask` binary with
//! the suite's profile and features (so `.ci/run` runs it without building it
//! again) and checks that every smoke check passes.

use std::process::Command;

#[test]
fn every_smoke_check_passes() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("smoke")
        .output()
        .expect("xtask runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("all 6 smoke checks passed"), "{stdout}");
    let runtime = stdout
        .lines()
        .find(|l| l.contains("agent runtime (client)"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(runtime.starts_with("pass"), "{runtime}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

#[test]
fn bench_explains_itself_and_refuses_unknown_names() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["bench", "--help"])
        .output()
        .expect("xtask runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for name in [
        "fleet_bench",
        "server_bench",
        "sensor_bench",
        "parry_raycast",
        "consensus",
        "--quick",
    ] {
        assert!(stdout.contains(name), "{name}: {stdout}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["bench", "--only", "nope"])
        .output()
        .expect("xtask runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no bench named `nope`"));
}
