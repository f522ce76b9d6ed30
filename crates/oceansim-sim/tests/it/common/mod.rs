//! Helpers shared by the simulation tests: requests go through the same
//! decoder and dispatch as over TCP, without a socket.
#![allow(dead_code)]

use oceansim_protocol::Request;
use oceansim_sim::{SimConfig, Simulation};
use serde_json::{json, Value};

/// A paused, deterministic simulation of `scenario` (sensor wall-clock
/// stamps are the simulated time, so replies compare byte for byte). It
/// keeps no sensor data, so imaging sensors render only when asked: most
/// tests here drive the world, not a dataset, and rendering every camera
/// frame would only slow them (the export tests turn it on).
pub fn sim(scenario: &str) -> Simulation {
    Simulation::new(SimConfig {
        scenario: scenario.into(),
        paused: true,
        deterministic: true,
        record_sensor_data: false,
        export_root: std::env::temp_dir().join("oceansim-sim-tests"),
        ..SimConfig::default()
    })
    .expect("scenario loads")
}

/// Sends a request line and returns the whole reply as JSON.
pub fn request(s: &mut Simulation, line: &Value) -> Value {
    match Request::decode(&line.to_string()) {
        Ok(Request::Single(r)) => s.handle(r).to_value(),
        Ok(other) => panic!("not a single request: {other:?}"),
        Err(e) => e.to_response(None).to_value(),
    }
}

/// Sends `action` with `data` (as a command or sim_control).
pub fn call(s: &mut Simulation, action: &str, data: Value) -> Value {
    let kind = if matches!(action, "reset" | "pause" | "resume" | "set_time_scale") {
        "sim_control"
    } else {
        "command"
    };
    request(s, &json!({"type": kind, "action": action, "data": data}))
}

/// `call` that must succeed; returns `data`.
pub fn ok(s: &mut Simulation, action: &str, data: Value) -> Value {
    let r = call(s, action, data);
    assert_eq!(r["success"], true, "{action}: {r}");
    r["data"].clone()
}

/// The error code of a call that must fail.
pub fn code(s: &mut Simulation, action: &str, data: Value) -> String {
    let r = call(s, action, data);
    assert_eq!(r["success"], false, "{action} should fail: {r}");
    r["error_code"].as_str().unwrap_or_default().to_owned()
}

/// `n` steps with `data`; returns the last state.
pub fn steps(s: &mut Simulation, n: usize, data: Value) -> Value {
    let mut last = Value::Null;
    for _ in 0..n {
        last = ok(s, "step", data.clone());
    }
    last
}

/// The runtime record of agent `id`.
pub fn agent(s: &mut Simulation, id: &str) -> Value {
    ok(s, "get_agents", json!({}))["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no agent {id}"))
}

/// A 3-vector from JSON.
pub fn v3(v: &Value) -> [f64; 3] {
    let a = v.as_array().expect("an array");
    [0, 1, 2].map(|i| a[i].as_f64().expect("a number"))
}

/// Whether every number in `v` is finite (and none is null).
pub fn all_finite(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(f64::is_finite),
        Value::Array(a) => a.iter().all(all_finite),
        Value::Object(m) => m.values().all(all_finite),
        _ => true,
    }
}
