//! `run.mcap` against the JSON Schemas it embeds, checked by Python's
//! `mcap` reader and `jsonschema` (`tests/check_mcap_schemas.py`) when
//! `OCEANSIM_ROS2_PY` names a Python that has them (`.ci/run` does): every
//! message valid, every Foxglove schema embedded unchanged.

use crate::export::{run_in, sim_keeping};
use std::path::PathBuf;

#[test]
fn python_jsonschema_finds_every_mcap_message_valid() {
    let Ok(python) = std::env::var("OCEANSIM_ROS2_PY") else {
        eprintln!("skipped: set OCEANSIM_ROS2_PY to a python with mcap and jsonschema");
        return;
    };
    let root = tempfile::tempdir().unwrap();
    run_in(sim_keeping(root.path(), oceansim_sim::MAX_RECORDED_SAMPLES));
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(python)
        .arg(crate_dir.join("tests/check_mcap_schemas.py"))
        .arg(root.path().join("runs/demo/run.mcap"))
        .arg(crate_dir.join("../oceansim-export/src/foxglove"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "check_mcap_schemas.py failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("mcap ok:"), "{stdout}");
}
