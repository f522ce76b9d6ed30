//! The independent check: dumps every sample message (CDR bytes, expected
//! values, definition, type hash) and runs `tests/check_cdr.py` on them,
//! which decodes and re-encodes them with the Python `rosbags` and
//! `mcap-ros2-support` packages and compares hashes with rosbags'.
//!
//! Runs only when `OCEANSIM_ROS2_PY` names a Python that has both:
//!
//! ```text
//! python3 -m venv /tmp/rosvenv && /tmp/rosvenv/bin/pip install rosbags mcap-ros2-support
//! OCEANSIM_ROS2_PY=/tmp/rosvenv/bin/python cargo test -p oceansim-ros2 --test python_check
//! ```
//!
//! `OCEANSIM_ROS2_DUMP=dir` keeps the files in `dir` to rerun the script by hand.

mod common;

use std::path::PathBuf;
use std::process::Command;

#[test]
fn python_tools_read_what_we_write() {
    let Ok(python) = std::env::var("OCEANSIM_ROS2_PY") else {
        eprintln!("skipped: set OCEANSIM_ROS2_PY to a python with rosbags and mcap-ros2-support");
        return;
    };
    let keep = std::env::var_os("OCEANSIM_ROS2_DUMP").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("oceansim-ros2-check-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).unwrap();
    for s in common::all() {
        let stem = dir.join(s.type_name.replace('/', "__"));
        std::fs::write(stem.with_extension("cdr"), &s.cdr).unwrap();
        std::fs::write(stem.with_extension("json"), &s.json).unwrap();
        std::fs::write(stem.with_extension("msg"), &s.definition).unwrap();
        std::fs::write(stem.with_extension("hash"), &s.hash).unwrap();
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/check_cdr.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(out.status.success(), "check_cdr.py failed:\n{stdout}");
    assert!(stdout.contains("31 passed, 0 failed"));
}
