//! Numbers stay finite: every input that used to turn the state into NaN
//! or null saturates at the vehicle's documented limits (and says so), and
//! a step whose dynamics would still diverge is refused with the world as
//! it was.

use crate::common;

use common::*;
use serde_json::json;

fn assert_finite_world(s: &mut oceansim_sim::Simulation) {
    let st = ok(s, "get_state", json!({}));
    for k in [
        "position",
        "velocity",
        "depth",
        "speed",
        "body_velocity",
        "orientation",
        "control",
    ] {
        assert!(!st[k].is_null() && all_finite(&st[k]), "{k}: {}", st[k]);
    }
    let agents = ok(s, "get_agents", json!({}));
    assert!(all_finite(&agents), "{agents}");
}

#[test]
fn eleven_steps_of_a_hundred_kilonewtons_stay_finite() {
    let mut s = sim("Static_Map");
    let mut last = json!(null);
    for _ in 0..11 {
        last = ok(&mut s, "step", json!({"force": [0, 1e5, 0]}));
    }
    assert!(all_finite(&last), "{last}");
    assert_eq!(last["control"]["command_saturated"], true);
    let applied = last["control"]["last_command"]["data"]["force"][1]
        .as_f64()
        .unwrap();
    assert!(
        (applied - 299.0).abs() < 1e-9,
        "clipped to the torpedo's 299 N: {applied}"
    );
    assert_finite_world(&mut s);
}

#[test]
fn a_thousand_metres_per_second_of_body_velocity_is_clipped() {
    let mut s = sim("Static_Map");
    let ack = ok(
        &mut s,
        "set_body_velocity",
        json!({"velocity": [1000, 0, 0, 0, 0, 0]}),
    );
    assert_eq!(ack["saturated"], true);
    assert_eq!(ack["velocity"][0], 5.0);
    assert_eq!(ack["requested"][0], 1000.0);
    steps(&mut s, 50, json!({}));
    assert_finite_world(&mut s);
}

#[test]
fn a_current_of_a_thousand_metres_per_second_is_clipped() {
    let mut s = sim("Static_Map");
    let ack = ok(&mut s, "set_current", json!({"velocity": [1000, 0, 0]}));
    assert_eq!(ack["saturated"], true);
    assert!((ack["current"][0].as_f64().unwrap() - oceansim_sim::MAX_CURRENT_M_S).abs() < 1e-12);
    steps(&mut s, 50, json!({}));
    assert_finite_world(&mut s);
    // A spawned BlueROV2 (light, large sway damping) in the same current.
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "rov", "agent_type": "rov", "profile": "bluerov2_heavy", "location": [-8.0, -6.0, -10.0]}),
    );
    ok(
        &mut s,
        "set_body_wrench",
        json!({"agent_id": "rov", "wrench": [1e9, -1e9, 1e9, 1e9, -1e9, 1e9]}),
    );
    steps(&mut s, 50, json!({}));
    assert_finite_world(&mut s);
}

#[test]
fn huge_wrenches_and_pid_gains_saturate() {
    let mut s = sim("Static_Map");
    let ack = ok(
        &mut s,
        "set_body_wrench",
        json!({"wrench": [1e12, 0, 0, 0, 0, 1e12]}),
    );
    assert_eq!(ack["saturated"], true);
    steps(&mut s, 30, json!({}));
    assert_finite_world(&mut s);
    ok(
        &mut s,
        "set_waypoint",
        json!({"world_x": 15.0, "world_z": -15.0, "depth": 10.0, "control_scheme": "waypoint_pid", "controller": {"kp": 1e12, "kd": 1e12, "max_force_n": 1e15}}),
    );
    steps(&mut s, 30, json!({}));
    assert_finite_world(&mut s);
    let st = ok(&mut s, "get_state", json!({}));
    let w = &st["control"]["body_wrench"];
    for k in 0..3 {
        assert!(w[k].as_f64().unwrap().abs() <= 299.0 + 1e-9, "{w}");
    }
}

/// A vehicle no integrator step can follow: a 10 g hull with tonnes of
/// quadratic damping, put in a current. Its step is refused and it keeps
/// its last finite state.
#[test]
fn a_step_that_would_diverge_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut p: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../assets/vehicle_profiles/oceansim_torpedo_auv.json"
    ))
    .unwrap();
    p["name"] = "stiff".into();
    p["mass_kg"] = 0.01.into();
    p["weight_n"] = 0.0981.into();
    p["buoyancy_n"] = 0.0981.into();
    p["inertia_kg_m2"] = json!([[1e-4, 0.0, 0.0], [0.0, 1e-4, 0.0], [0.0, 0.0, 1e-4]]);
    p["added_mass"] = json!([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    p["quadratic_damping"] = json!([1e6, 1e6, 1e6, 1e3, 1e3, 1e3]);
    let path = dir.path().join("stiff.json");
    std::fs::write(&path, p.to_string()).unwrap();
    let mut s = oceansim_sim::Simulation::new(oceansim_sim::SimConfig {
        paused: true,
        profile: Some(path.display().to_string()),
        ..oceansim_sim::SimConfig::default()
    })
    .unwrap();
    ok(&mut s, "set_current", json!({"velocity": [0, 2, 0]}));
    let before = ok(&mut s, "get_state", json!({}));
    let r = call(&mut s, "step", json!({"force": [0, 0.05, 0]}));
    assert_eq!(r["error_code"], "invalid_message", "{r}");
    assert!(r["message"].as_str().unwrap().contains("refused"), "{r}");
    let after = ok(&mut s, "get_state", json!({}));
    assert!(all_finite(&after), "{after}");
    assert_eq!(
        after, before,
        "nothing changed: not the clock, not the command"
    );
    // Run by the clock instead, each diverging tick is not taken.
    s.tick(5);
    let st = ok(&mut s, "get_state", json!({}));
    assert!(all_finite(&st), "{st}");
    assert_eq!(st["position"], before["position"]);
}

#[test]
fn a_render_bound_past_its_limit_is_a_clear_error() {
    let config = |n: usize| oceansim_sim::SimConfig {
        paused: true,
        renders_in_flight: n,
        ..oceansim_sim::SimConfig::default()
    };
    let Err(e) = oceansim_sim::Simulation::new(config(usize::MAX)) else {
        panic!("a bound past the limit was taken");
    };
    let e = e.to_string();
    assert!(e.contains("renders in flight"), "{e}");
    for n in [0, oceansim_sim::MAX_RENDERS_IN_FLIGHT_LIMIT] {
        assert!(oceansim_sim::Simulation::new(config(n)).is_ok(), "{n}");
    }
}
