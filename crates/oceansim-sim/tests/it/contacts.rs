//! Contacts and bounds: nothing passes through the seabed, a static
//! obstacle of any shape, another agent, the map's edge or the surface.
//! Each case drives an agent into the boundary for long enough to have
//! gone far through it, then checks it rests against it, reports the
//! contact and is not moving into it.

use crate::common;

use common::*;
use serde_json::{json, Value};

const PROXY_R: f64 = 0.5;

fn contacts_of(s: &mut oceansim_sim::Simulation, id: &str) -> Vec<Value> {
    let a = agent(s, id);
    let n = a["contacts"].as_u64().unwrap() as usize;
    if id == "auv/main" {
        let c = ok(s, "get_state", json!({}))["contacts"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(c.len(), n, "get_agents counts what the state lists");
        c
    } else {
        vec![Value::Null; n]
    }
}

fn proxy(s: &mut oceansim_sim::Simulation, id: &str, godot: [f64; 3], vel: [f64; 3]) {
    ok(
        s,
        "spawn_agent",
        json!({"agent_name": id, "location": godot, "size_m": PROXY_R}),
    );
    ok(s, "set_agent_velocity", json!({"id": id, "velocity": vel}));
}

#[test]
fn a_proxy_driven_down_rests_on_the_seabed() {
    let mut s = sim("Static_Map");
    // Godot velocity Y = -1: straight down at 1 m/s for 30 s, from 6 m deep
    // over a 17-23 m deep seabed (it used to reach 36 m).
    proxy(&mut s, "diver", [5.0, -6.0, 0.0], [0.0, -1.0, 0.0]);
    steps(&mut s, 300, json!({}));
    let a = agent(&mut s, "diver");
    let p = v3(&a["position"]);
    let map = ok(
        &mut s,
        "get_terrain_grid",
        json!({"cell_size": 1.0, "auv_y": p[2] - 0.6}),
    );
    assert!(map["counts"]["terrain"].as_u64().unwrap() > 0);
    let deepest = ok(&mut s, "get_map_info", json!({}))["terrain"]["max_depth_m"]
        .as_f64()
        .unwrap();
    assert!(-p[2] < deepest, "above the deepest seabed: {p:?}");
    assert!(-p[2] > 14.0, "it did go down to the seabed: {p:?}");
    // Frictionless: on a slope it may slide, but it no longer sinks.
    assert!(
        a["velocity"][2].as_f64().unwrap().abs() < 1e-3,
        "no longer sinking: {a}"
    );
    assert!(a["speed"].as_f64().unwrap() < 0.01, "{a}");
    assert_eq!(contacts_of(&mut s, "diver").len(), 1);
}

#[test]
fn the_main_auv_pushed_down_stays_above_the_seabed() {
    // The BlueROV2's vertical thrusters can press it onto the seabed (the
    // torpedo's 10 N barely beat its 7 N of buoyancy).
    let mut s = oceansim_sim::Simulation::new(oceansim_sim::SimConfig {
        scenario: "Static_Map".into(),
        profile: Some("bluerov2_heavy".into()),
        paused: true,
        deterministic: true,
        record_sensor_data: false,
        ..oceansim_sim::SimConfig::default()
    })
    .unwrap();
    steps(&mut s, 300, json!({"force": [0, 0, -200]}));
    let st = ok(&mut s, "get_state", json!({}));
    let alt = st["altitude"].as_f64().unwrap();
    // Contact sphere of radius 0.29 m, resting on relief that may slope.
    assert!(
        alt > 0.0 && alt < 0.76,
        "resting on the seabed: altitude {alt}"
    );
    assert_eq!(st["contact"], "terrain");
    assert_eq!(st["contacts"][0]["id"], "seabed");
    // Frictionless on sloping relief: it may creep along and down the
    // slope (at most the slope's share of its speed), not sink through.
    let v = &st["velocity"];
    let horizontal = v[0].as_f64().unwrap().hypot(v[1].as_f64().unwrap());
    assert!(
        v[2].as_f64().unwrap() > -0.5 * horizontal - 1e-2,
        "{}",
        st["velocity"]
    );
}

/// A proxy driven east at 1 m/s into an obstacle centred 6 m east of it
/// (10 m north of the main AUV), for 20 s: it must stop outside the
/// obstacle and report it.
fn drive_into(obstacle: Value, expect_stop_x: f64) {
    let mut s = sim("PaleMap");
    ok(&mut s, "spawn_obstacle", obstacle.clone());
    proxy(&mut s, "probe", [-6.0, -8.0, -10.0], [1.0, 0.0, 0.0]);
    steps(&mut s, 200, json!({}));
    let a = agent(&mut s, "probe");
    let p = v3(&a["position"]);
    assert!(
        (p[0] - expect_stop_x).abs() < 0.02,
        "{obstacle}: stopped at x = {} (expected {expect_stop_x})",
        p[0]
    );
    assert!(a["velocity"][0].as_f64().unwrap().abs() < 1e-9);
    assert_eq!(a["contacts"], 1);
    assert_eq!(contacts_of(&mut s, "probe").len(), 1);
}

#[test]
fn proxies_stop_at_a_sphere_a_box_and_a_cylinder() {
    // Centres at Godot [0, -8, -10] (user (0, 10, -8)), 1 m in x-radius.
    drive_into(
        json!({"id": "ball", "shape": "sphere", "position": [0.0, -8.0, -10.0], "radius": 1.0}),
        -1.0 - PROXY_R,
    );
    drive_into(
        json!({"id": "crate", "shape": "box", "position": [0.0, -8.0, -10.0], "size": [2.0, 2.0, 2.0]}),
        -1.0 - PROXY_R,
    );
    drive_into(
        json!({"id": "post", "shape": "cylinder", "position": [0.0, -8.0, -10.0], "radius": 1.0, "height": 6.0}),
        -1.0 - PROXY_R,
    );
    // A box turned 90° about Godot Y presents its 3 m half length.
    drive_into(
        json!({"id": "beam", "shape": "box", "position": [0.0, -8.0, -10.0], "size": [1.0, 1.0, 6.0], "rotation": [0.0, 90.0, 0.0]}),
        -3.0 - PROXY_R,
    );
}

#[test]
fn the_main_auv_stops_at_a_wall_and_reports_it() {
    let mut s = sim("Static_Map");
    // A 1 m thick wall across user y = 9.5..10.5, 10 m north of the AUV,
    // clear of Static_Map's pillar at x = 0.
    // It reaches the seabed, so the AUV cannot dive under it.
    ok(
        &mut s,
        "spawn_obstacle",
        json!({"id": "wall", "shape": "box", "position": [10.0, -6.0, -10.0], "size": [10.0, 40.0, 1.0]}),
    );
    ok(
        &mut s,
        "move_agent",
        json!({"id": "auv/main", "position": [10.0, -6.0, 0.0]}),
    );
    steps(&mut s, 200, json!({"force": [0, 299, 0]}));
    let st = ok(&mut s, "get_state", json!({}));
    let y = st["position"][1].as_f64().unwrap();
    // Wall face at y = 9.5; the hull's nose is 0.665 m ahead of its centre.
    assert!(y < 9.5 - 0.6 && y > 8.0, "stopped before the wall: y = {y}");
    let c = &st["contacts"][0];
    assert_eq!(c["id"], "wall");
    assert_eq!(c["class"], "static_obstacle");
    assert!((v3(&c["normal_user"])[1] + 1.0).abs() < 1e-9);
}

#[test]
fn two_proxies_on_a_collision_course_do_not_pass_through_each_other() {
    let mut s = sim("PaleMap");
    proxy(&mut s, "left", [-5.0, -8.0, 0.0], [1.0, 0.0, 0.0]);
    proxy(&mut s, "right", [5.0, -8.0, 0.0], [-1.0, 0.0, 0.0]);
    steps(&mut s, 100, json!({}));
    let (l, r) = (
        v3(&agent(&mut s, "left")["position"]),
        v3(&agent(&mut s, "right")["position"]),
    );
    let gap = r[0] - l[0];
    assert!(
        (gap - 2.0 * PROXY_R).abs() < 0.02,
        "touching, not overlapping: {l:?} {r:?}"
    );
    assert_eq!(agent(&mut s, "left")["contacts"], 1);
    assert_eq!(agent(&mut s, "right")["contacts"], 1);
}

#[test]
fn the_map_edge_holds_the_main_auv_that_used_to_leave_the_map() {
    // Driven north at full force for 60 s it reached y = 227 m on a 40 m map.
    let mut s = sim("Static_Map");
    ok(
        &mut s,
        "move_agent",
        json!({"id": "auv/main", "position": [10.0, -6.0, 0.0]}),
    );
    steps(&mut s, 600, json!({"force": [0, 1e5, 0]}));
    let st = ok(&mut s, "get_state", json!({}));
    let y = st["position"][1].as_f64().unwrap();
    assert!(
        y <= 20.0 - 0.6 && y > 18.5,
        "held inside the 20 m edge: {y}"
    );
    assert!(
        st["contacts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["class"] == "map_edge"),
        "{}",
        st["contacts"]
    );
    assert_eq!(st["control"]["command_saturated"], true);
}

#[test]
fn a_proxy_driven_up_stops_at_the_surface() {
    let mut s = sim("PaleMap");
    proxy(&mut s, "buoy", [0.0, -3.0, 0.0], [0.0, 2.0, 0.0]);
    steps(&mut s, 50, json!({}));
    let a = agent(&mut s, "buoy");
    let z = v3(&a["position"])[2];
    assert!(z.abs() < 1e-9, "at the surface: {z}");
    assert_eq!(a["contacts"], 1);
}

#[test]
fn a_crowd_converging_on_one_point_does_not_overlap() {
    let mut s = sim("PaleMap");
    // Eight proxies on a 6 m ring, each driven toward the centre.
    let n = 8;
    for k in 0..n {
        let a = std::f64::consts::TAU * k as f64 / n as f64;
        let (x, z) = (6.0 * a.cos(), -10.0 + 6.0 * a.sin());
        proxy(
            &mut s,
            &format!("p{k}"),
            [x, -8.0, z],
            [-a.cos(), 0.0, -a.sin()],
        );
    }
    steps(&mut s, 100, json!({}));
    let ps: Vec<[f64; 3]> = (0..n)
        .map(|k| v3(&agent(&mut s, &format!("p{k}"))["position"]))
        .collect();
    for i in 0..n {
        for j in i + 1..n {
            let d = ((ps[i][0] - ps[j][0]).powi(2)
                + (ps[i][1] - ps[j][1]).powi(2)
                + (ps[i][2] - ps[j][2]).powi(2))
            .sqrt();
            assert!(d > 2.0 * PROXY_R - 0.05, "p{i} and p{j} overlap: {d}");
        }
    }
}
