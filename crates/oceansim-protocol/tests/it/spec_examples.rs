//! Every JSON example of the protocol spec (`tcp-protocol.txt`,
//! `api-client.rst`, `guide-scenarios.rst`) decodes to what it says.

use oceansim_protocol::payload::*;
use oceansim_protocol::{Action, BatchChild, Request, SingleRequest};
use serde_json::json;

fn single(line: &str) -> SingleRequest {
    match Request::decode(line) {
        Ok(Request::Single(r)) => r,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn wire_format_example() {
    let r = single(
        r#"{
      "type": "command",
      "protocol_version": 2,
      "request_id": "run-001",
      "action": "get_state"
    }"#
        .replace('\n', " ")
        .as_str(),
    );
    assert_eq!(r.request_id, Some("run-001".into()));
    assert_eq!(r.action, Action::GetState(GetState::default()));
}

#[test]
fn batch_example() {
    let line = r#"{"type": "batch", "protocol_version": 2, "request_id": "batch-001",
      "requests": [
        {"type": "command", "action": "get_state"},
        {"type": "command", "action": "set_force", "data": {"force": [0, 100, 0]}}
      ]}"#
    .replace('\n', " ");
    let Ok(Request::Batch(b)) = Request::decode(&line) else {
        panic!("batch example must decode")
    };
    assert_eq!(b.request_id, Some("batch-001".into()));
    let actions: Vec<_> = b
        .requests
        .iter()
        .map(|c| match c {
            BatchChild::Valid(r) => r.action.clone(),
            BatchChild::Invalid { rejection, .. } => panic!("{rejection}"),
        })
        .collect();
    assert_eq!(
        actions,
        vec![
            Action::GetState(GetState::default()),
            Action::SetForce(Force {
                force: Vector([0.0, 100.0, 0.0]),
                agent_id: None,
            })
        ]
    );
}

#[test]
fn client_batch_example() {
    let line = json!({"type": "batch", "requests": [
        {"type": "command", "action": "get_sensors"},
        {"type": "command", "action": "set_force", "data": {"force": [0, 80, 0]}},
    ]})
    .to_string();
    let Ok(Request::Batch(b)) = Request::decode(&line) else {
        panic!()
    };
    assert!(b.requests.iter().all(|c| matches!(c, BatchChild::Valid(_))));
}

#[test]
fn command_detail_payloads() {
    let cases = [
        (
            json!({"type":"command","action":"step","data":{"force":[1,2,3]}}),
            "step",
        ),
        (
            json!({"type":"command","action":"step","data":{"thrusters":{"thruster_0":0.2}}}),
            "step",
        ),
        (
            json!({"type":"command","action":"step","data":{"fins":[0.1,-0.05,1200]}}),
            "step",
        ),
        (
            json!({"type":"command","action":"set_fins","data":{"fins":[0.1,-0.05,1200]}}),
            "set_fins",
        ),
        (
            json!({"type":"command","action":"set_fins","data":{"fins":{"rudder":0.2},"agent_id":"remus"}}),
            "set_fins",
        ),
        (
            json!({"type":"command","action":"set_force_world","data":{"force":[0,100,0]}}),
            "set_force_world",
        ),
        (
            json!({"type":"command","action":"set_force_body","data":{"force":[100,0,0]}}),
            "set_force_body",
        ),
        (
            json!({"type":"command","action":"set_body_wrench","data":{"wrench":[1,0,0,0,0,0.5]}}),
            "set_body_wrench",
        ),
        (
            json!({"type":"command","action":"set_body_velocity","data":{"velocity":[1,0,0,0,0,0]}}),
            "set_body_velocity",
        ),
        (
            json!({"type":"command","action":"set_scenario","data":{"scenario":"NarrowMap","seed":0}}),
            "set_scenario",
        ),
        (
            json!({"type":"command","action":"get_terrain_grid","data":{
                "cell_size": 0.5, "auv_y": -6.0, "include_static_obstacles": true,
                "include_dynamic_agents": false, "inflation_radius": 0.3}}),
            "get_terrain_grid",
        ),
        (
            json!({"type":"command","action":"export_dataset","data":{
                "export_dir": "runs/a", "render_image": true, "pack_dataset": false}}),
            "export_dataset",
        ),
        (
            json!({"type":"command","action":"generate_map","data":{}}),
            "generate_map",
        ),
        (
            json!({"type":"command","action":"get_map_info","data":{}}),
            "get_map_info",
        ),
        (json!({"type":"sim_control","action":"reset"}), "reset"),
        (json!({"type":"sim_control","action":"pause"}), "pause"),
        (json!({"type":"sim_control","action":"resume"}), "resume"),
        (
            json!({"type":"sim_control","action":"set_time_scale","time_scale":2}),
            "set_time_scale",
        ),
        (
            json!({"type":"command","action":"spawn_agent","data":{
                "agent_name": "target_01", "agent_type": "proxy_auv", "is_main_agent": false,
                "location": [4.0, -7.0, 6.0], "control_scheme": "external_velocity",
                "metadata": {"role": "moving_target"}}}),
            "spawn_agent",
        ),
        (
            json!({"type":"command","action":"set_agent_velocity","data":{
                "id": "target_01", "velocity": [0.2, 0.0, -0.1]}}),
            "set_agent_velocity",
        ),
        (
            json!({"type":"command","action":"send_acoustic_message","data":{
                "sender_id": "auv/main", "receiver_id": "target_01", "payload": "hello"}}),
            "send_acoustic_message",
        ),
        (
            json!({"type":"command","action":"set_waypoint","data":{"world_x": 3.0, "world_z": -4.0}}),
            "set_waypoint",
        ),
    ];
    for (req, name) in cases {
        let r = single(&req.to_string());
        assert_eq!(r.action.name().as_str(), name, "{req}");
    }
}

/// "Responses preserve `request_id`": every JSON number and string comes
/// back as the same text, including numbers a binary64 cannot hold.
#[test]
fn request_ids_come_back_exactly_as_sent() {
    let echo = |line: &str| -> String {
        let resp = match Request::decode(line) {
            Ok(req) => req.respond(|r| {
                let data = oceansim_protocol::Data::typed(json!({}));
                let kind = oceansim_protocol::ResponseType::Response;
                oceansim_protocol::Reply::ok(kind, r.request_id, r.action.name(), Some(0.0), data)
            }),
            Err(rej) => rej.to_reply(None),
        };
        let mut out = Vec::new();
        resp.write_json(&mut out);
        String::from_utf8(out).unwrap()
    };
    for id in [
        "18446744073709551617",
        "1.50",
        "-0.0",
        "1e400",
        "123456789012345678901234567890.000",
        "7",
        "-9223372036854775808",
        "\"a\\\"b\"",
    ] {
        let out = echo(&format!(
            r#"{{"type":"command","request_id":{id},"action":"get_state"}}"#
        ));
        assert!(
            out.contains(&format!("\"request_id\":{id},")),
            "{id}: {out}"
        );
        // In a batch, for the batch and for each child.
        let out = echo(&format!(
            r#"{{"type":"batch","request_id":{id},"requests":[{{"type":"command","request_id":{id},"action":"get_state"}},{{"type":"command","request_id":{id},"action":"nope"}}]}}"#
        ));
        assert_eq!(
            out.matches(&format!("\"request_id\":{id},")).count(),
            3,
            "{id}: {out}"
        );
    }
    // A line that is not valid JSON elsewhere still gets its id back.
    let out = echo(
        r#"{"type":"command","request_id":2.50,"action":"set_force","data":{"force":[1e400,0,0]}}"#,
    );
    assert!(
        out.contains("\"request_id\":2.50,") && out.contains("invalid_message"),
        "{out}"
    );
}
