//! Fleets over the protocol: many dynamic vehicles of mixed profiles, each
//! commanded by `agent_id`, stepped in lockstep, reported by `get_agents`;
//! the agent limit holds.

use crate::common;

use common::{v3, Client, TestServer};
use oceansim_sim::MAX_AGENTS;
use serde_json::{json, Value};

/// Spawns dynamic vehicles `v0`, `v1`, ... (torpedo and BlueROV2 in turn)
/// at free spots of a grid around the main AUV (at its depth, facing
/// north), southern rows first, until `want` exist or the server refuses;
/// returns how many were spawned and the error that stopped it.
fn spawn_vehicles(c: &mut Client, want: usize, spacing: f64) -> (usize, Option<String>) {
    let main = v3(&c.ok("get_agents", json!({}))["data"]["agents"][0]["position"]);
    let mut made = 0;
    let mut cells: Vec<(i32, i32)> = (-8..=8)
        .flat_map(|x| (-8..=8).map(move |y| (x, y)))
        .filter(|&c| c != (0, 0))
        .collect();
    cells.sort_by_key(|&(x, y)| (y, x.abs(), x));
    {
        for (gx, gy) in cells {
            if made == want {
                return (made, None);
            }
            let (x, y) = (main[0] + gx as f64 * spacing, main[1] + gy as f64 * spacing);
            let profile = if made % 2 == 0 {
                "oceansim_torpedo_auv"
            } else {
                "bluerov2_heavy"
            };
            let r = c.cmd(
                "spawn_agent",
                // Godot coordinates: [x, y up, z south].
                json!({"agent_name": format!("v{made}"), "agent_type": "auv", "profile": profile,
                       "location": [x, main[2], -y]}),
            );
            match r["error_code"].as_str() {
                None => made += 1,
                Some("blocked_pose") => continue,
                Some(other) => return (made, Some(format!("{other}: {}", r["message"]))),
            }
        }
    }
    (made, None)
}

fn record<'a>(agents: &'a Value, id: &str) -> &'a Value {
    agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent_name"] == id)
        .unwrap_or_else(|| panic!("{id} in get_agents"))
}

#[test]
fn ten_vehicles_each_move_as_their_own_command_says() {
    let server = TestServer::paused();
    let mut c = server.client();
    assert_eq!(spawn_vehicles(&mut c, 10, 8.0), (10, None));
    let before = c.ok("get_agents", json!({}))["data"].clone();
    // Vehicle i: torpedo (even) or BlueROV2 (odd); surge (north) when
    // (i / 2) is even, sway to starboard (east) otherwise; force grows with i.
    let force = |i: usize| 10.0 + 3.0 * i as f64;
    let surges = |i: usize| (i / 2).is_multiple_of(2);
    for i in 0..10 {
        let f = force(i);
        let wrench = if surges(i) {
            [f, 0.0, 0.0, 0.0, 0.0, 0.0]
        } else {
            [0.0, f, 0.0, 0.0, 0.0, 0.0]
        };
        let ack = c.ok(
            "set_body_wrench",
            json!({"wrench": wrench, "agent_id": format!("v{i}")}),
        )["data"]
            .clone();
        assert_eq!(ack["agent_id"], format!("v{i}"));
    }
    // Lockstep: one `step` advances every vehicle.
    let t0 = c.state()["sim_time"].as_f64().unwrap();
    c.step_n(60, json!({}));
    let t1 = c.state()["sim_time"].as_f64().unwrap();
    assert!(t1 > t0);
    let after = c.ok("get_agents", json!({}))["data"].clone();
    let mut moved = Vec::new();
    for i in 0..10 {
        let id = format!("v{i}");
        let (a, b) = (record(&before, &id), record(&after, &id));
        assert_eq!(b["mode"], "dynamics");
        assert_eq!(b["proxy_auv"], false);
        assert_eq!(
            b["profile"],
            if i % 2 == 0 {
                "oceansim_torpedo_auv"
            } else {
                "bluerov2_heavy"
            }
        );
        assert_eq!(
            b["last_command"]["action"], "set_body_wrench",
            "{id}: {}",
            b["last_command"]
        );
        let (p0, p1) = (v3(&a["position"]), v3(&b["position"]));
        let (east, north) = (p1[0] - p0[0], p1[1] - p0[1]);
        let (along, across) = if surges(i) {
            (north, east)
        } else {
            (east, north)
        };
        assert!(
            along > 0.2,
            "{id} moved {along} m along its command ({p0:?} -> {p1:?})"
        );
        assert!(
            across.abs() < 0.15 * along,
            "{id} drifted {across} m across it"
        );
        moved.push(along);
    }
    // The same vehicle and direction under a larger force goes further.
    for group in [[0, 4, 8].as_slice(), &[1, 5, 9], &[2, 6], &[3, 7]] {
        for w in group.windows(2) {
            assert!(
                moved[w[1]] > moved[w[0]],
                "v{} {} vs v{} {}",
                w[1],
                moved[w[1]],
                w[0],
                moved[w[0]]
            );
        }
    }
}

#[test]
fn dynamic_vehicles_spawn_up_to_the_documented_limit_and_then_a_clear_error() {
    let server = TestServer::paused();
    let mut c = server.client();
    // The default scenario's own agents count against the limit too.
    let existing = c.ok("get_agents", json!({}))["data"]["count"]
        .as_u64()
        .unwrap() as usize;
    let (made, err) = spawn_vehicles(&mut c, MAX_AGENTS + 5, 3.5);
    let err = err.expect("the limit is reached");
    // The message says what the limit counts (it once said "agent limit
    // reached (64)" after 64 agents besides the main AUV).
    assert!(
        err.starts_with("spawn_failed")
            && err.contains(&format!("{MAX_AGENTS} agents besides the main AUV")),
        "{err}"
    );
    assert_eq!(
        existing - 1 + made,
        MAX_AGENTS,
        "{MAX_AGENTS} agents besides the main AUV"
    );
    let before = c.ok("get_agents", json!({}))["data"]["count"].clone();
    c.step_n(3, json!({}));
    let agents = c.ok("get_agents", json!({}))["data"].clone();
    assert_eq!(agents["count"], before, "the refused spawn changed nothing");
    assert!(agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["position"][0].as_f64().unwrap().is_finite()));
}
