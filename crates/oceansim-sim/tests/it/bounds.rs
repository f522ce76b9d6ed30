//! What a client controls is bounded, with a clear error that changes
//! nothing: obstacles, agents, acoustic messages in flight and inboxes.

use crate::common;

use common::*;
use oceansim_sim::{MAX_INBOX, MAX_IN_FLIGHT, MAX_OBSTACLES};
use serde_json::json;

#[test]
fn the_obstacle_limit_is_a_clear_error_that_changes_nothing() {
    let mut s = sim("Static_Map");
    let auv = v3(&ok(&mut s, "get_state", json!({}))["position"]);
    let mut n = ok(&mut s, "get_map_info", json!({}))["obstacles"]
        .as_array()
        .unwrap()
        .len();
    let mut i = 0;
    while n < MAX_OBSTACLES {
        // A lattice of small spheres beside the AUV, clear of its hull (Godot).
        let p = [
            auv[0] + 3.0 + (i % 20) as f64 * 0.5,
            auv[2] + (i / 400) as f64 * 0.5,
            -(auv[1] - ((i / 20) % 20) as f64 * 0.5),
        ];
        n = ok(
            &mut s,
            "spawn_obstacle",
            json!({"shape": "sphere", "position": p, "radius": 0.1}),
        )["count"]
            .as_u64()
            .unwrap() as usize;
        i += 1;
    }
    let r = call(
        &mut s,
        "spawn_obstacle",
        json!({"shape": "sphere", "position": [auv[0] - 3.0, auv[2], -auv[1]], "radius": 0.1}),
    );
    assert_eq!(r["error_code"], "spawn_failed");
    assert!(r["message"].as_str().unwrap().contains("limit"), "{r}");
    assert_eq!(
        ok(&mut s, "get_map_info", json!({}))["obstacles"]
            .as_array()
            .unwrap()
            .len(),
        MAX_OBSTACLES
    );
}

#[test]
fn messages_in_flight_are_entities_and_the_queue_is_bounded() {
    let mut s = sim("Static_Map");
    let send = |s: &mut oceansim_sim::Simulation, k: usize| {
        call(
            s,
            "send_acoustic_message",
            json!({"sender_id": "auv/main", "receiver_id": "auv/main", "payload": k}),
        )
    };
    // Slow link: everything stays in flight until the queue is full.
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"latency_s": 1000.0, "packet_drop_rate": 0.0}),
    );
    for k in 0..MAX_IN_FLIGHT {
        assert_eq!(send(&mut s, k)["data"]["queued"], true);
    }
    assert_eq!(
        s.world().len(),
        1 + MAX_IN_FLIGHT,
        "one entity per message in flight"
    );
    let r = send(&mut s, 0);
    assert_eq!(r["error_code"], "invalid_message");
    assert!(r["message"].as_str().unwrap().contains("queue full"), "{r}");
    assert_eq!(
        ok(&mut s, "get_agents", json!({}))["acoustic"]["pending"],
        MAX_IN_FLIGHT
    );
    assert_eq!(s.world().len(), 1 + MAX_IN_FLIGHT);
}

#[test]
fn a_full_inbox_keeps_the_newest_messages_and_counts_the_rest() {
    let mut s = sim("Static_Map");
    ok(
        &mut s,
        "configure_acoustic_comm",
        // A fast channel: 300 short messages clear it within the ticks.
        json!({"latency_s": 0.0, "packet_drop_rate": 0.0, "bandwidth_bps": 1e6}),
    );
    let n = MAX_INBOX + 44;
    for k in 0..n {
        call(
            &mut s,
            "send_acoustic_message",
            json!({"sender_id": "auv/main", "receiver_id": "auv/main", "payload": k}),
        );
    }
    s.tick(10);
    assert_eq!(s.world().len(), 1, "delivered messages are despawned");
    let st = ok(&mut s, "get_state", json!({}));
    let inbox = st["acoustic"]["inbox"].as_array().unwrap();
    assert_eq!(inbox.len(), MAX_INBOX);
    assert_eq!(inbox[0]["payload"], 44);
    assert_eq!(inbox.last().unwrap()["payload"], n - 1);
    let stats = &ok(&mut s, "get_agents", json!({}))["acoustic"]["stats"];
    assert_eq!(
        (
            stats["sent"].as_u64(),
            stats["delivered"].as_u64(),
            stats["inbox_overflow"].as_u64()
        ),
        (Some(n as u64), Some(n as u64), Some(44))
    );
}

#[test]
fn messages_arrive_in_order_of_arrival_time() {
    let mut s = sim("Dynamic_Map");
    // target_01 is 23 m from the AUV, patrol_02 12 m: the later message
    // arrives first (sound travels 1500 m/s).
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"latency_s": 0.05, "bandwidth_bps": 1e6, "packet_drop_rate": 0.0}),
    );
    let far = ok(
        &mut s,
        "send_acoustic_message",
        json!({"sender_id": "target_01", "receiver_id": "auv/main", "payload": "far"}),
    );
    let near = ok(
        &mut s,
        "send_acoustic_message",
        json!({"sender_id": "patrol_02", "receiver_id": "auv/main", "payload": "near"}),
    );
    assert!(near["deliver_at"].as_f64() < far["deliver_at"].as_f64());
    s.tick(20);
    let inbox = ok(&mut s, "get_state", json!({}))["acoustic"]["inbox"].clone();
    assert_eq!(inbox[0]["payload"], "near");
    assert_eq!(inbox[1]["payload"], "far");
}

#[test]
fn rejected_spawns_leave_the_world_unchanged() {
    let mut s = sim("Static_Map");
    let before = ok(&mut s, "get_agents", json!({})).to_string();
    for (data, want) in [
        (
            json!({"agent_name": "deep", "location": [3.0, -50.0, 0.0]}),
            "blocked_pose",
        ),
        (
            json!({"agent_name": "far", "location": [300.0, -5.0, 0.0]}),
            "blocked_pose",
        ),
        (
            json!({"agent_name": "f", "location": [3.0, -5.0, 0.0], "control_scheme": "force_3d"}),
            "unsupported_control_scheme",
        ),
        (
            json!({"agent_name": "v", "agent_type": "auv", "profile": "/etc/passwd.json", "location": [3.0, -5.0, 0.0]}),
            "spawn_failed",
        ),
        (
            json!({"agent_name": "auv/main", "location": [3.0, -5.0, 0.0]}),
            "spawn_failed",
        ),
    ] {
        assert_eq!(code(&mut s, "spawn_agent", data.clone()), want, "{data}");
    }
    assert_eq!(ok(&mut s, "get_agents", json!({})).to_string(), before);
    assert_eq!(s.world().len(), 1);
}
