//! The acoustic channel over the protocol: one shared medium (messages
//! queue at its bandwidth), range checked again on arrival, and inboxes
//! that are read and cleared.

use crate::common;

use common::*;
use oceansim_sim::SOUND_SPEED_M_S;
use serde_json::json;

/// A paused Static_Map with a proxy `buddy` `dx` m east of the main AUV.
fn with_buddy(dx: f64) -> (oceansim_sim::Simulation, f64) {
    let mut s = sim("Static_Map");
    let main = v3(&agent(&mut s, "auv/main")["position"]);
    // spawn_agent takes Godot coordinates: [x, y up, z south].
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "buddy", "location": [main[0] + dx, main[2], -main[1]]}),
    );
    let b = v3(&agent(&mut s, "buddy")["position"]);
    let d = ((b[0] - main[0]).powi(2) + (b[1] - main[1]).powi(2) + (b[2] - main[2]).powi(2)).sqrt();
    (s, d)
}

#[test]
fn messages_sent_together_queue_behind_each_other_at_the_bandwidth() {
    let (mut s, d) = with_buddy(6.0);
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"latency_s": 0.1, "bandwidth_bps": 100.0, "range_m": 500.0, "packet_drop_rate": 0.0}),
    );
    // "\"abc\"" is 5 bytes = 40 bits = 0.4 s of air time at 100 bit/s.
    let send = |s: &mut oceansim_sim::Simulation| {
        ok(
            s,
            "send_acoustic_message",
            json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": "abc"}),
        )["deliver_at"]
            .as_f64()
            .unwrap()
    };
    let (a, b) = (send(&mut s), send(&mut s));
    let want_a = 0.4 + 0.1 + d / SOUND_SPEED_M_S;
    assert!((a - want_a).abs() < 1e-9, "first: {a} vs {want_a}");
    assert!(
        (b - a - 0.4).abs() < 1e-9,
        "second waits for the first: {a} {b}"
    );
    // Both arrive, in order, once their time has come.
    steps(&mut s, 60, json!({}));
    let inbox = ok(&mut s, "read_acoustic_inbox", json!({"agent_id": "buddy"}));
    let times: Vec<f64> = inbox["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["delivered_at"].as_f64().unwrap())
        .collect();
    assert_eq!(times.len(), 2);
    assert!((times[0] - a).abs() < 1e-12 && (times[1] - b).abs() < 1e-12);
}

#[test]
fn a_receiver_that_moves_out_of_range_before_arrival_loses_the_message() {
    for move_away in [false, true] {
        let (mut s, _) = with_buddy(6.0);
        ok(
            &mut s,
            "configure_acoustic_comm",
            json!({"latency_s": 2.0, "bandwidth_bps": 1e6, "range_m": 12.0, "packet_drop_rate": 0.0}),
        );
        let r = ok(
            &mut s,
            "send_acoustic_message",
            json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": "hi"}),
        );
        assert_eq!(r["queued"], true);
        if move_away {
            let main = v3(&agent(&mut s, "auv/main")["position"]);
            ok(
                &mut s,
                "move_agent",
                json!({"id": "buddy", "position": [main[0] - 14.0, main[2], -main[1]]}),
            );
        }
        steps(&mut s, 150, json!({}));
        let inbox = ok(&mut s, "read_acoustic_inbox", json!({"agent_id": "buddy"}));
        let got = inbox["messages"].as_array().unwrap().len();
        assert_eq!(got, usize::from(!move_away), "moved away: {move_away}");
        let stats = &ok(&mut s, "get_agents", json!({}))["acoustic"]["stats"];
        assert_eq!(stats["dropped"], u64::from(move_away));
        assert_eq!(
            ok(&mut s, "get_agents", json!({}))["acoustic"]["pending"],
            0
        );
    }
}

#[test]
fn an_inbox_is_read_once_peeked_any_number_of_times_and_unknown_agents_are_errors() {
    let (mut s, _) = with_buddy(6.0);
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"latency_s": 0.0, "bandwidth_bps": 1e6, "packet_drop_rate": 0.0}),
    );
    for k in 0..3 {
        ok(
            &mut s,
            "send_acoustic_message",
            json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": {"k": k}}),
        );
    }
    steps(&mut s, 5, json!({}));
    let len = |v: &serde_json::Value| v["messages"].as_array().unwrap().len();
    let peek = ok(
        &mut s,
        "read_acoustic_inbox",
        json!({"agent_id": "buddy", "clear": false}),
    );
    assert_eq!((len(&peek), &peek["cleared"]), (3, &json!(false)));
    let peek = ok(
        &mut s,
        "read_acoustic_inbox",
        json!({"agent_id": "buddy", "clear": false}),
    );
    assert_eq!(len(&peek), 3);
    let read = ok(&mut s, "read_acoustic_inbox", json!({"agent_id": "buddy"}));
    assert_eq!((len(&read), &read["cleared"]), (3, &json!(true)));
    assert_eq!(read["messages"][0]["payload"]["k"], 0);
    assert_eq!(read["messages"][2]["payload"]["k"], 2);
    assert_eq!(
        len(&ok(
            &mut s,
            "read_acoustic_inbox",
            json!({"agent_id": "buddy"})
        )),
        0
    );
    assert_eq!(
        code(&mut s, "read_acoustic_inbox", json!({"agent_id": "ghost"})),
        "unknown_agent"
    );
    assert_eq!(
        code(&mut s, "read_acoustic_inbox", json!({})),
        "invalid_message"
    );
    assert_eq!(
        code(
            &mut s,
            "configure_acoustic_comm",
            json!({"bandwidth_bps": 1e-9})
        ),
        "invalid_message"
    );
}

#[test]
fn an_inbox_holds_at_most_its_byte_budget_newest_first() {
    let (mut s, _) = with_buddy(6.0);
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"latency_s": 0.0, "bandwidth_bps": 1e12, "packet_drop_rate": 0.0}),
    );
    // Six ~0.9 MB payloads: 5.4 MB > the 4 MiB budget.
    for k in 0..6 {
        let body = format!("{k}{}", "x".repeat(900_000));
        ok(
            &mut s,
            "send_acoustic_message",
            json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": body}),
        );
    }
    steps(&mut s, 3, json!({}));
    let read = ok(&mut s, "read_acoustic_inbox", json!({"agent_id": "buddy"}));
    let msgs = read["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 4, "4 x 0.9 MB fit in 4 MiB");
    assert!(msgs[0]["payload"].as_str().unwrap().starts_with('2'));
    let stats = &ok(&mut s, "get_agents", json!({}))["acoustic"]["stats"];
    assert_eq!(stats["inbox_overflow"], 2);
}

#[test]
fn a_sender_that_moves_away_after_transmitting_still_gets_its_message_through() {
    let (mut s, _) = with_buddy(6.0);
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"latency_s": 2.0, "bandwidth_bps": 1e6, "range_m": 12.0, "packet_drop_rate": 0.0}),
    );
    ok(
        &mut s,
        "send_acoustic_message",
        json!({"sender_id": "buddy", "receiver_id": "auv/main", "payload": "bye"}),
    );
    // The sender leaves 20 m away; the sound is already in the water.
    let main = v3(&agent(&mut s, "auv/main")["position"]);
    ok(
        &mut s,
        "move_agent",
        json!({"id": "buddy", "position": [main[0] - 14.0, main[2], -main[1]]}),
    );
    steps(&mut s, 150, json!({}));
    let inbox = ok(
        &mut s,
        "read_acoustic_inbox",
        json!({"agent_id": "auv/main"}),
    );
    assert_eq!(inbox["messages"][0]["payload"], "bye", "{inbox}");
}

#[test]
fn a_message_longer_than_the_air_time_cap_is_refused_and_changes_nothing() {
    let (mut s, _) = with_buddy(6.0);
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"bandwidth_bps": 1.0}),
    );
    let before = ok(&mut s, "get_agents", json!({}))["acoustic"].clone();
    // 1,002 bytes = 8,016 bits = 8,016 s at 1 bit/s > 600 s.
    let long = "x".repeat(1000);
    assert_eq!(
        code(
            &mut s,
            "send_acoustic_message",
            json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": long})
        ),
        "invalid_message"
    );
    assert_eq!(ok(&mut s, "get_agents", json!({}))["acoustic"], before);
    // A short one still goes: 5 bytes = 40 s of air time.
    let r = ok(
        &mut s,
        "send_acoustic_message",
        json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": "abc"}),
    );
    assert_eq!(r["queued"], true);
}

#[test]
fn a_removed_agents_inbox_goes_with_it() {
    let (mut s, _) = with_buddy(6.0);
    ok(
        &mut s,
        "configure_acoustic_comm",
        json!({"latency_s": 0.0, "bandwidth_bps": 1e6, "packet_drop_rate": 0.0}),
    );
    ok(
        &mut s,
        "send_acoustic_message",
        json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": "for the first buddy"}),
    );
    steps(&mut s, 3, json!({}));
    let peek = ok(
        &mut s,
        "read_acoustic_inbox",
        json!({"agent_id": "buddy", "clear": false}),
    );
    assert_eq!(peek["messages"].as_array().unwrap().len(), 1);
    let location = {
        let b = v3(&agent(&mut s, "buddy")["position"]);
        [b[0], b[2], -b[1]]
    };
    ok(&mut s, "remove_agent", json!({"id": "buddy"}));
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "buddy", "location": location}),
    );
    let read = ok(&mut s, "read_acoustic_inbox", json!({"agent_id": "buddy"}));
    assert_eq!(read["messages"], json!([]), "{read}");
    // clear_agents too.
    ok(
        &mut s,
        "send_acoustic_message",
        json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": 2}),
    );
    steps(&mut s, 3, json!({}));
    ok(&mut s, "clear_agents", json!({}));
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "buddy", "location": location}),
    );
    let read = ok(&mut s, "read_acoustic_inbox", json!({"agent_id": "buddy"}));
    assert_eq!(read["messages"], json!([]), "{read}");
}
