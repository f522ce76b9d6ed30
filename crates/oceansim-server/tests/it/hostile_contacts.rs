//! Issue #26 item 14 through the real binary: a proxy with `size_m` 0.05
//! driven by `set_agent_velocity` at the 20 m/s limit into a 0.2 m box
//! wall spanning the default map (Static_Map, 40 m) and its water column
//! used to end on the far side, at y = -19.95 against the map's edge: at
//! 0.2 m per tick its contact was tested only at each tick's end, where
//! the wall's far face was sometimes the nearer. Motion is now swept
//! across the tick, so it stops against the near face. The simulation
//! crate's `sweep` suite covers the other cases (larger ticks, turned
//! walls, the AUV, agents, seabed and map edge).

use crate::support::attack::{Conn, Server};
use serde_json::{json, Value};

fn ok(c: &mut Conn, action: &str, data: Value) -> Value {
    let r = c.cmd(action, data);
    assert_eq!(r["status"], "ok", "{action}: {r}");
    r["data"].clone()
}

/// The proxy rests against the wall's near face (11.3), not past it.
fn check_against_the_wall(c: &mut Conn) {
    let agents = ok(c, "get_agents", json!({}));
    let dart = agents["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["id"] == "dart"))
        .cloned()
        .unwrap_or_else(|| panic!("no dart in {agents}"));
    let y = dart["position"][1].as_f64().unwrap();
    assert!(
        (y - (11.3 + 0.05)).abs() < 1e-6,
        "the proxy is at y = {y}, not against the wall's near face (11.3)"
    );
    assert_eq!(dart["contacts"], 1, "{dart}");
}

#[test]
fn a_small_fast_proxy_stops_at_a_thin_wall_it_used_to_pass() {
    let server = Server::start();
    let mut c = server.conn();
    // Godot X east, Y up, Z south: the wall's mid-plane at user y 11.2,
    // faces at 11.1 and 11.3, from 35 m deep to 5 m above the surface.
    ok(
        &mut c,
        "spawn_obstacle",
        json!({"id": "wall", "shape": "box", "position": [0.0, -15.0, -11.2], "size": [40.0, 40.0, 0.2]}),
    );
    ok(
        &mut c,
        "spawn_agent",
        json!({"agent_name": "dart", "location": [5.0, -5.0, -15.0], "size_m": 0.05}),
    );
    ok(
        &mut c,
        "set_agent_velocity",
        json!({"id": "dart", "velocity": [0.0, 0.0, 20.0]}),
    );
    let watch = server.watch();
    // 3 s reach the far edge of the map; the rest hold the proxy pushed
    // into the wall at full speed, and give the watcher time to ask.
    let started = std::time::Instant::now();
    let mut n = 0;
    while n < 300 || started.elapsed() < std::time::Duration::from_millis(300) {
        ok(&mut c, "step", json!({}));
        n += 1;
        if n == 30 || n % 100 == 0 {
            check_against_the_wall(&mut c);
        }
    }
    watch.finish();
    check_against_the_wall(&mut c);
    server.assert_alive();
}
