//! The smoke checks as part of `cargo test`: builds the `xtask` binary with
//! the suite's profile and features (so `.ci/run` runs it without building it
//! again) and checks that every smoke check passes.

#[test]
fn every_smoke_check_passes() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("smoke")
        .output()
        .expect("xtask runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("all smoke checks passed"), "{stdout}");
}
