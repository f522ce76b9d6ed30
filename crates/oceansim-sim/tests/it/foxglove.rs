//! `run.mcap` read back: a channel per topic and a message per pose (read
//! here), and the JSON Schemas it embeds, checked by Python's `mcap`
//! reader and `jsonschema` (`tests/check_mcap_schemas.py`) when
//! `OCEANSIM_ROS2_PY` names a Python that has them (`.ci/run` does): every
//! message valid, every Foxglove schema embedded unchanged.

use crate::common::v3;
use crate::export::{lines, run, run_in, sim_keeping};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
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

#[test]
fn the_mcap_file_reads_back_with_a_channel_per_topic_and_a_message_per_pose() {
    let root = tempfile::tempdir().unwrap();
    run(root.path());
    let dir = root.path().join("runs/demo");
    let timeline = lines(&dir.join("agent_timeline.jsonl"));
    let bytes = std::fs::read(dir.join("run.mcap")).unwrap();
    let mut per_topic: BTreeMap<String, (String, usize)> = BTreeMap::new();
    let mut last_tf = Value::Null;
    let mut first_hull = Value::Null;
    let mut occupancy = Value::Null;
    for m in mcap::MessageStream::new(&bytes).unwrap() {
        let m = m.unwrap();
        let schema = m.channel.schema.as_ref().unwrap().name.clone();
        assert_eq!(m.channel.message_encoding, "json");
        let body: Value = serde_json::from_slice(&m.data).unwrap();
        if m.channel.topic == "/agents" && first_hull.is_null() {
            first_hull = body["entities"][0].clone();
        }
        if m.channel.topic == "/tf" {
            last_tf = body;
        } else if m.channel.topic == "/map/occupancy" {
            occupancy = body;
        }
        per_topic
            .entry(m.channel.topic.clone())
            .or_insert((schema, 0))
            .1 += 1;
    }
    let rows = |agent: &str| timeline.iter().filter(|r| r["agent"] == agent).count();
    let expect: BTreeMap<String, (String, usize)> = [
        ("/tf", "foxglove.FrameTransform", timeline.len()),
        ("/auv/main/pose", "foxglove.PoseInFrame", rows("auv/main")),
        ("/buoy/pose", "foxglove.PoseInFrame", rows("buoy")),
        ("/scene", "foxglove.SceneUpdate", 1),
        // The AUV at the first frame, the buoy when it joined.
        ("/agents", "foxglove.SceneUpdate", 2),
        ("/map/seabed", "foxglove.Grid", 1),
        ("/map/occupancy", "foxglove.Grid", 1),
        // Ten sensors on the AUV, and the optical frames of the camera
        // and the RGB-D camera.
        ("/tf_static", "foxglove.FrameTransform", 12),
        ("/auv/main/lidar_3d/points", "foxglove.PointCloud", 16),
        (
            "/auv/main/multibeam_sonar/points",
            "foxglove.PointCloud",
            16,
        ),
        (
            "/auv/main/rgbd_dense_cloud/points",
            "foxglove.PointCloud",
            16,
        ),
        ("/auv/main/side_scan_sonar/image", "foxglove.RawImage", 16),
        // Every other sensor at its own rate over 3 s, with the start.
        ("/auv/main/imu", "oceansim.Imu", 301),
        ("/auv/main/depth", "oceansim.Depth", 61),
        ("/auv/main/dvl", "oceansim.Dvl", 31),
        ("/auv/main/lidar_2d/scan", "foxglove.LaserScan", 31),
    ]
    .into_iter()
    .map(|(t, s, n)| (t.to_owned(), (s.to_owned(), n)))
    .chain(
        // Every imaging sample, once per image it carries.
        [
            ("camera", "image", "foxglove.CompressedImage"),
            ("camera", "depth", "foxglove.CompressedImage"),
            ("camera", "segmentation", "foxglove.CompressedImage"),
            ("camera", "segmentation_color", "foxglove.CompressedImage"),
            ("camera", "calibration", "foxglove.CameraCalibration"),
            ("rgbd_dense_cloud", "image", "foxglove.CompressedImage"),
            ("rgbd_dense_cloud", "depth", "foxglove.CompressedImage"),
            (
                "rgbd_dense_cloud",
                "calibration",
                "foxglove.CameraCalibration",
            ),
            ("imaging_sonar", "image", "foxglove.CompressedImage"),
        ]
        .into_iter()
        .map(|(sensor, what, schema)| {
            let n = lines(&dir.join(format!("sensors/auv_main/{sensor}.jsonl"))).len();
            assert!(n > 1, "{sensor} rendered at its rate");
            (format!("/auv/main/{sensor}/{what}"), (schema.to_owned(), n))
        }),
    )
    .collect();
    assert_eq!(per_topic, expect);
    // The AUV's hull rides on its base link, longer than it is wide.
    assert_eq!(first_hull["frame_id"], "auv/main/base_link");
    assert_eq!(first_hull["frame_locked"], true);
    let size = &first_hull["cubes"][0]["size"];
    assert!(
        size["x"].as_f64().unwrap() > 2.0 * size["y"].as_f64().unwrap(),
        "{size}"
    );
    // The last transform is the buoy's last pose, in the world frame.
    let last = &timeline[timeline.len() - 1];
    assert_eq!(last_tf["child_frame_id"], "buoy/base_link");
    assert_eq!(last_tf["parent_frame_id"], "world");
    let p = v3(&last["state"]["position"]);
    assert_eq!(last_tf["translation"]["x"].as_f64().unwrap(), p[0]);
    // The summary counts the same messages.
    let summary = mcap::Summary::read(&bytes).unwrap().unwrap();
    let stats = summary.stats.unwrap();
    assert_eq!(
        stats.message_count as usize,
        per_topic.values().map(|v| v.1).sum::<usize>()
    );
    assert_eq!(stats.channel_count, 25);
    // Chunks compressed; log times on the Unix clock from the recording's
    // start, the messages' own stamps simulated.
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("metadata.json")).unwrap()).unwrap();
    let start = meta["start_time_unix_ns"].as_u64().unwrap();
    assert!(start > 1_700_000_000_000_000_000, "{start}");
    let chunks = summary.chunk_indexes;
    assert!(!chunks.is_empty());
    assert!(chunks.iter().all(|c| c.compression == "lz4"));
    // Every frame a message names reaches the world frame through
    // `/tf` and `/tf_static`.
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut named: BTreeSet<String> = BTreeSet::new();
    for m in mcap::MessageStream::new(&bytes).unwrap() {
        let m = m.unwrap();
        let body: Value = serde_json::from_slice(&m.data).unwrap();
        if let Some(child) = body["child_frame_id"].as_str() {
            parent.insert(
                child.into(),
                body["parent_frame_id"].as_str().unwrap().into(),
            );
        }
        named.extend(body["frame_id"].as_str().map(str::to_owned));
    }
    assert!(named.contains("auv/main/camera_optical"), "{named:?}");
    for f in &named {
        let mut at = f.clone();
        for _ in 0..8 {
            if at == "world" {
                break;
            }
            at = parent
                .get(&at)
                .cloned()
                .unwrap_or_else(|| panic!("{f}: no transform"));
        }
        assert_eq!(at, "world", "{f}");
    }
    for m in mcap::MessageStream::new(&bytes).unwrap() {
        let m = m.unwrap();
        let body: Value = serde_json::from_slice(&m.data).unwrap();
        let ts = &body["timestamp"];
        if let (Some(sec), Some(nsec)) = (ts["sec"].as_u64(), ts["nsec"].as_u64()) {
            assert_eq!(
                m.log_time,
                start + sec * 1_000_000_000 + nsec,
                "{}",
                m.channel.topic
            );
        }
    }
    // The occupancy slice at the AUV's first depth: free water around the
    // AUV, and occupied cells (seabed or obstacles) somewhere.
    use base64::Engine as _;
    let cells = base64::engine::general_purpose::STANDARD
        .decode(occupancy["data"].as_str().unwrap())
        .unwrap();
    let cols = occupancy["column_count"].as_u64().unwrap() as usize;
    assert_eq!(cells.len() % cols, 0);
    assert!(cells.iter().all(|c| *c == 0 || *c == 100));
    assert!(
        cells.contains(&0) && cells.contains(&100),
        "free and occupied cells"
    );
    let first = &timeline[0]["state"]["position"];
    assert_eq!(
        occupancy["pose"]["position"]["z"].as_f64(),
        first[2].as_f64(),
        "the slice is at the AUV's first height"
    );
    let cell = occupancy["cell_size"]["x"].as_f64().unwrap();
    let (ox, oy) = (
        occupancy["pose"]["position"]["x"].as_f64().unwrap(),
        occupancy["pose"]["position"]["y"].as_f64().unwrap(),
    );
    let (i, j) = (
        ((first[0].as_f64().unwrap() - ox) / cell) as usize,
        ((first[1].as_f64().unwrap() - oy) / cell) as usize,
    );
    assert_eq!(cells[j * cols + i], 0, "the AUV's own cell is free");
}
