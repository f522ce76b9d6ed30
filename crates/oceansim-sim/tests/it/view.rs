//! What the browser viewer is sent: the scene (seabed grid, obstacles) and
//! frames (agents, clock, overlays) in the user frame, read from the world
//! without changing it.

use crate::common::{ok, sim, steps, v3};
use serde_json::{json, Value};

/// A view message as the page reads it.
fn wire<T: serde::Serialize>(message: &T) -> Value {
    serde_json::to_value(message).expect("a view message serialises")
}

#[test]
fn the_scene_holds_the_seabed_and_every_obstacle_and_changes_with_them() {
    let mut s = sim("Static_Map");
    let scene = wire(&s.view_scene());
    let (cols, rows) = (
        scene["seabed"]["cols"].as_u64().unwrap() as usize,
        scene["seabed"]["rows"].as_u64().unwrap() as usize,
    );
    let z = scene["seabed"]["z"].as_array().unwrap();
    assert_eq!(z.len(), cols * rows);
    // Row 0 is the north edge: its cell centre's height is the terrain's.
    let b: Vec<f64> = scene["bounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let (x, y) = (
        b[0] + 0.5 * (b[1] - b[0]) / cols as f64,
        b[3] - 0.5 * (b[3] - b[2]) / rows as f64,
    );
    let sample = z[0].as_f64().unwrap();
    let min = scene["seabed"]["min"].as_f64().unwrap();
    let max = scene["seabed"]["max"].as_f64().unwrap();
    assert!(
        sample >= min - 0.01 && sample <= max + 0.01,
        "{sample} in [{min}, {max}] at ({x}, {y})"
    );
    let before = s.scene_revision();
    let n = scene["obstacles"].as_array().unwrap().len();
    ok(
        &mut s,
        "spawn_obstacle",
        json!({"id": "wall", "shape": "box", "position": [5.0, -6.0, -17.0], "size": [2.0, 2.0, 6.0], "rotation": [0.0, 90.0, 0.0]}),
    );
    assert_ne!(
        s.scene_revision(),
        before,
        "a new obstacle changes the scene"
    );
    let scene = wire(&s.view_scene());
    let obstacles = scene["obstacles"].as_array().unwrap();
    assert_eq!(obstacles.len(), n + 1);
    let wall = obstacles.iter().find(|o| o["id"] == "wall").unwrap();
    // Godot [5, -6, -17] is user (5, 17, -6); a 2 x 6 m box yawed 90°
    // spans 6 m east-west.
    assert_eq!(v3(&wall["center"]), [5.0, 17.0, -6.0]);
    let xs: Vec<f64> = wall["polygon"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_f64().unwrap())
        .collect();
    let span =
        xs.iter().copied().fold(f64::MIN, f64::max) - xs.iter().copied().fold(f64::MAX, f64::min);
    assert!((span - 6.0).abs() < 1e-6, "{span}");
    assert_eq!(
        s.scene_revision(),
        s.scene_revision(),
        "reading changes nothing"
    );
    // A cylinder lying on its side (10 m long, 1 m radius): a 10 x 2 m
    // outline and 2 m of height; standing, a circle.
    ok(
        &mut s,
        "spawn_obstacle",
        json!({"id": "log", "shape": "cylinder", "position": [-10.0, -6.0, -17.0], "radius": 1.0, "height": 10.0, "rotation": [90.0, 0.0, 0.0]}),
    );
    ok(
        &mut s,
        "spawn_obstacle",
        json!({"id": "post", "shape": "cylinder", "position": [-10.0, -6.0, -5.0], "radius": 1.0, "height": 4.0, "rotation": [0.0, 45.0, 0.0]}),
    );
    let scene = wire(&s.view_scene());
    let find = |id: &str| {
        scene["obstacles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["id"] == id)
            .unwrap()
            .clone()
    };
    let log = find("log");
    let z = [log["z"][0].as_f64().unwrap(), log["z"][1].as_f64().unwrap()];
    assert!(
        (z[1] - z[0] - 2.0).abs() < 1e-6,
        "lying down it is 2 m tall: {z:?}"
    );
    let pts: Vec<[f64; 2]> = log["polygon"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()])
        .collect();
    let ext = |k: usize| {
        pts.iter().map(|p| p[k]).fold(f64::MIN, f64::max)
            - pts.iter().map(|p| p[k]).fold(f64::MAX, f64::min)
    };
    assert!(
        (ext(0).max(ext(1)) - 10.0).abs() < 1e-6 && (ext(0).min(ext(1)) - 2.0).abs() < 1e-6,
        "{pts:?}"
    );
    let post = find("post");
    assert_eq!(
        post["radius"].as_f64(),
        Some(1.0),
        "a standing cylinder, yawed, is still a circle"
    );
    assert!(post.get("polygon").is_none());
}

#[test]
fn a_frame_has_every_agent_the_clock_and_the_overlays_in_the_user_frame() {
    let mut s = sim("Static_Map");
    let p = v3(&ok(&mut s, "get_state", json!({}))["position"]);
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "buddy", "location": [p[0] + 6.0, p[2], -p[1]], "size_m": 1.0}),
    );
    ok(
        &mut s,
        "set_nav_path",
        json!({"path": [[1.0, -2.0], [3.0, 4.0, -5.0]]}),
    );
    ok(
        &mut s,
        "set_waypoint",
        json!({"world_x": 7.0, "world_z": -8.0, "depth": 6.0}),
    );
    steps(&mut s, 3, json!({"force": [40.0, 0.0, 0.0]}));
    let f = wire(&s.view_frame().expect("a recorded frame"));
    let o = wire(&s.view_overlays());
    assert_eq!(f["type"], "frame");
    assert!(
        (f["t"].as_f64().unwrap() - s.sim_time()).abs() < 1e-9,
        "the latest frame"
    );
    let agents = f["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 2);
    let (main, buddy) = (&agents[0], &agents[1]);
    assert_eq!(main["main"], true);
    assert_eq!(main["kind"], "vehicle");
    assert_eq!(buddy["kind"], "proxy");
    assert!(
        main["length"].as_f64().unwrap() > main["width"].as_f64().unwrap(),
        "a hull is longer than wide"
    );
    assert!(
        main["seabed_z"].as_f64().unwrap() < main["p"][2].as_f64().unwrap(),
        "the seabed is below"
    );
    assert_eq!(
        main["command"]["action"], "set_force_world",
        "step applies a world force"
    );
    // Planar [x, z] → user (x, -z); spatial Godot [x, y, z] → (x, -z, y).
    assert_eq!(
        o["overlays"]["nav_path"],
        json!([[1.0, 2.0], [3.0, 5.0, 4.0]])
    );
    assert_eq!(o["overlays"]["waypoint"], json!([7.0, 8.0, -6.0]));
    assert_eq!(f["paused"], true);
    assert_eq!(f["achieved_time_scale"], json!(null), "none while paused");
    assert_eq!(
        s.view_frame().map(|f| wire(&f)),
        Some(f),
        "reading twice gives the same frame"
    );
    // Running, the page is told the scale the clock kept up, as get_state.
    ok(&mut s, "resume", json!({}));
    let state = ok(&mut s, "get_state", json!({}));
    let running = wire(&s.view_frame().unwrap());
    assert_eq!(running["achieved_time_scale"], state["achieved_time_scale"]);
    assert!(running["achieved_time_scale"].is_number(), "{running}");
    let rev = s.overlays_revision();
    ok(&mut s, "clear_nav", json!({}));
    assert_ne!(
        s.overlays_revision(),
        rev,
        "a nav request is a new overlay revision"
    );
}

/// Numbers within `tol`, everything else equal (a recorded series keeps
/// millimetres; the live reading more).
fn close(a: &serde_json::Value, b: &serde_json::Value, tol: f64, at: &str) {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            // Points are whole centimetres made from millimetres.
            let tol = if at.contains("xyz_cm") { 1.0 } else { tol };
            assert!((x - y).abs() <= tol, "{at}: {x} vs {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                close(x, y, tol, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}: fields"
            );
            for (k, v) in x {
                close(v, &y[k], tol, &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

#[test]
fn a_replay_shows_each_sensor_as_the_live_run_did() {
    use oceansim_sim::panels::{panel_message, PanelSensor, RecordedPanels};
    let root = tempfile::tempdir().unwrap();
    let mut s = crate::export::sim_keeping(root.path(), 10_000);
    // Close to an obstacle, so the sonars and lidars have echoes.
    ok(&mut s, "set_force", json!({"force": [0.0, 0.0, 60.0]}));
    steps(&mut s, 20, json!({}));
    let keys: Vec<String> = s
        .view_panel_sensors()
        .iter()
        .map(PanelSensor::key)
        .collect();
    s.view_demand_sensors(&keys);
    let live: Vec<(String, f64, serde_json::Value)> = s
        .view_latest_samples(&keys)
        .iter()
        .map(|(p, sample)| {
            let m = serde_json::from_str(&panel_message(p, sample)).unwrap();
            (p.key(), sample.time, m)
        })
        .collect();
    assert_eq!(live.len(), 10);
    ok(
        &mut s,
        "export_dataset",
        json!({"export_dir": "runs/panels"}),
    );
    let run = oceansim_dataset::RunReplay::open(root.path().join("runs/panels")).unwrap();
    let recorded = RecordedPanels::open(&run);
    assert_eq!(
        recorded
            .panels()
            .iter()
            .map(PanelSensor::key)
            .collect::<Vec<_>>(),
        keys,
        "every sensor's series is in the run, with its frame"
    );
    for (p, q) in recorded.panels().iter().zip(s.view_panel_sensors()) {
        for (a, b) in p.frame.translation_m.iter().zip(q.frame.translation_m) {
            assert!((a - b).abs() < 1e-3, "{}: mount", p.key());
        }
    }
    for (key, t, msg) in &live {
        let (seq, text) = recorded
            .at(key, *t)
            .unwrap_or_else(|| panic!("{key} at {t}"));
        assert_eq!(Some(seq), msg["seq"].as_u64(), "{key}");
        let replayed: serde_json::Value = serde_json::from_str(&text).unwrap();
        // The series keeps millimetres (and its ranges 0.1 mm more).
        close(&replayed, msg, 2e-3, key);
    }
    // Before the first sample, the first; an unknown key, nothing.
    assert!(recorded.at("auv/main/imu", -5.0).is_some());
    assert!(recorded.at("auv/main/nothing", 1.0).is_none());
}

#[test]
fn a_forged_run_shows_nothing_it_should_not() {
    use oceansim_sim::panels::RecordedPanels;
    let root = tempfile::tempdir().unwrap();
    let mut s = crate::export::sim_keeping(root.path(), 10_000);
    steps(&mut s, 30, json!({}));
    ok(
        &mut s,
        "export_dataset",
        json!({"export_dir": "runs/forged"}),
    );
    let dir = root.path().join("runs/forged");
    let sensors = dir.join("sensors/auv_main");
    // An image path that climbs out of the run, a line that is not JSON,
    // a series file that is gone.
    let cam = sensors.join("camera.jsonl");
    let text = std::fs::read_to_string(&cam).unwrap();
    let forged = text.replacen("\"camera/000000_rgb.png\"", "\"../../metadata.json\"", 1);
    assert_ne!(forged, text);
    std::fs::write(&cam, format!("{forged}{{not json\n")).unwrap();
    std::fs::remove_file(sensors.join("imu.jsonl")).unwrap();
    // An image that is a link to a file outside the sensor's directory.
    let depth = sensors.join("camera/000000_depth.png");
    std::fs::remove_file(&depth).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("metadata.json"), &depth).unwrap();
    let run = oceansim_dataset::RunReplay::open(&dir).unwrap();
    let recorded = RecordedPanels::open(&run);
    let keys: Vec<String> = recorded.panels().iter().map(|p| p.key()).collect();
    assert!(!keys.contains(&"auv/main/imu".to_owned()), "{keys:?}");
    let (_, msg) = recorded.at("auv/main/camera", 0.0).unwrap();
    let v: serde_json::Value = serde_json::from_str(&msg).unwrap();
    assert_eq!(
        v["data"]["rgb_png"], "",
        "nothing outside the sensor's directory is read"
    );
    assert_eq!(v["data"]["depth_png"], "", "links are not followed");
    // The next sample's images are whole.
    let (_, msg) = recorded.at("auv/main/camera", 0.2).unwrap();
    let v: serde_json::Value = serde_json::from_str(&msg).unwrap();
    assert!(
        !v["data"]["rgb_png"].as_str().unwrap().is_empty(),
        "{}",
        v["seq"]
    );
    // Past the garbage line, the last good sample.
    assert!(recorded.at("auv/main/camera", 1e9).is_some());
}
