//! Fossen's REMUS 100 over TCP: `oceansim serve --profile remus100`, driven
//! by `set_fins` and `step`, reaches the speeds and turning circles of his
//! model (Fossen's own code: 2.554 m/s at 1525 rpm; 0.063 rad/s and an
//! 80.7 m circle at 5° of rudder; 36.9 m at 15°) within 3 %, and turns
//! port and starboard alike.

use crate::support::attack::{Conn, Server};
use serde_json::{json, Value};

const D2R: f64 = std::f64::consts::PI / 180.0;

/// Open water 1 km square, 150 m deep, nothing in it; the vehicle starts
/// 50 m down, 450 m south of the centre, heading north: room for 200 s at
/// full speed and for the circles.
fn open_water(dir: &std::path::Path) -> String {
    let scenario = json!({
        "schema_version": 1,
        "id": "remus_open_water",
        "display_name": "Open water",
        "description": "Flat seabed at 150 m, no obstacles.",
        "generator": "pale_plain",
        "map_size_m": [1000.0, 1000.0],
        "seeds": [0],
        "tags": ["test"],
        "recommended_profile": "remus100",
        "terrain": {"floor_depth_m": 150.0, "relief_m": 0.5, "feature_scale_m": 50.0},
        "procedural_obstacles": {"count": 0, "radius_range_m": [1.0, 2.0], "keep_clear_radius_m": 5.0},
        "agents": [{
            "schema_version": 1, "agent_name": "auv/main", "agent_type": "main_auv",
            "is_main_agent": true, "profile": "remus100", "location": [0.0, -50.0, 450.0],
            "rotation": [0.0, 0.0, 0.0], "control_scheme": "fins",
            "sensors": ["depth", "imu", "dvl"], "metadata": {}
        }],
        "obstacles": []
    });
    let path = dir.join("open_water.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

/// `seconds` one-second steps under `fins`; the compact states.
fn run(c: &mut Conn, fins: [f64; 3], seconds: usize) -> Vec<Value> {
    let ack = c.cmd("set_fins", json!({"fins": fins}));
    assert_eq!(ack["status"], "ok", "{ack}");
    (0..seconds)
        .map(|_| {
            let r = c.cmd("step", json!({"detail": "compact"}));
            assert_eq!(r["status"], "ok", "{r}");
            assert_eq!(r["data"]["contacts"], 0, "open water all the way: {r}");
            r["data"].clone()
        })
        .collect()
}

/// (surge speed m/s, yaw rate rad/s, circle diameter m) at the end of a
/// run, the diameter from the extents of the last `lap_s` seconds.
fn steady(states: &[Value], lap_s: usize) -> (f64, f64, f64) {
    let last = states.last().unwrap();
    let nu = |k: usize| last["body_velocity"][k].as_f64().unwrap();
    let tail = &states[states.len() - lap_s..];
    let extent = |k: usize| {
        let v: Vec<f64> = tail
            .iter()
            .map(|s| s["position"][k].as_f64().unwrap())
            .collect();
        v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min)
    };
    (nu(0), nu(5), (extent(0) + extent(1)) / 2.0)
}

fn within(x: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (x - want).abs() <= rel * want.abs(),
        "{what}: {x} vs {want} (±{}%)",
        rel * 100.0
    );
}

#[test]
fn remus100_over_tcp_reaches_fossens_speeds_and_turning_circles() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = open_water(dir.path());
    let server = Server::start_with(&[
        "--scenario",
        &scenario,
        "--profile",
        "remus100",
        "--step-period",
        "1.0",
    ]);
    let mut c = server.conn();
    let agents = c.cmd("get_agents", json!({}));
    let main = &agents["data"]["agents"][0];
    assert_eq!(main["profile"], "remus100", "{main}");
    let fins = main["available_action_spaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scheme"] == "fins")
        .unwrap_or_else(|| panic!("a fins space in {main}"))
        .clone();
    assert_eq!(fins["high"][2], 1525.0, "{fins}");
    // Thrusters it has none: refused with the stable code.
    let t = c.cmd("set_thrusters", json!({"thrusters": [0.5]}));
    assert_eq!(t["error_code"], "unsupported_control_scheme", "{t}");
    // Clipping is reported: 40° of rudder is 15°.
    let ack = c.cmd("set_fins", json!({"fins": [40.0 * D2R, 0.0, 2000.0]}));
    assert_eq!(ack["data"]["saturated"], true, "{ack}");
    assert!((ack["data"]["fins"][0].as_f64().unwrap() - 15.0 * D2R).abs() < 1e-12);
    assert_eq!(ack["data"]["fins"][2], 1525.0);
    c.cmd("reset", json!({}));

    // Straight ahead at full rpm.
    let straight = run(&mut c, [0.0, 0.0, 1525.0], 200);
    let (u, _, _) = steady(&straight, 10);
    within(u, 2.5536, 0.03, "surge at 1525 rpm");
    within(u, 2.55, 0.03, "the nominal 2.55 m/s");
    let state = c.cmd("get_state", json!({}));
    let rpm = state["data"]["control"]["propeller_rpm"][0]
        .as_f64()
        .unwrap();
    assert!(
        (rpm - 1525.0).abs() < 1e-6,
        "the shaft is at speed: {state}"
    );

    // 5° of rudder, each way, then 15°.
    let mut circles = Vec::new();
    for (deg, lap) in [(5.0, 100), (-5.0, 100), (15.0, 47)] {
        c.cmd("reset", json!({}));
        let states = run(&mut c, [deg * D2R, 0.0, 1525.0], 320);
        circles.push(steady(&states, lap));
    }
    let (_, r5, d5) = circles[0];
    let (_, r5p, d5p) = circles[1];
    let (_, _, d15) = circles[2];
    within(r5, 0.063, 0.03, "yaw rate at 5°");
    within(d5, 80.727, 0.03, "circle at 5°");
    within(d5, 81.0, 0.03, "the nominal 81 m");
    within(d15, 36.923, 0.03, "circle at 15°");
    within(d15, 37.0, 0.03, "the nominal 37 m");
    assert!(
        r5 > 0.0 && r5p < 0.0,
        "positive rudder turns to starboard: {r5} {r5p}"
    );
    within(-r5p, r5, 0.01, "port and starboard yaw rates");
    within(d5p, d5, 0.01, "port and starboard circles");
}
