//! The simulator's real replies are the protocol crate's typed structs:
//! each decodes from its wire line into its type.

use crate::common;

use oceansim_agents::AgentRuntimeState;
use oceansim_protocol::reply::*;
use oceansim_protocol::{Request, Response};
use serde::de::DeserializeOwned;
use serde_json::json;

fn typed<T: DeserializeOwned>(
    s: &mut oceansim_sim::Simulation,
    action: &str,
    data: serde_json::Value,
) -> T {
    let kind = if matches!(action, "reset" | "pause" | "resume" | "set_time_scale") {
        "sim_control"
    } else {
        "command"
    };
    let line = json!({"type": kind, "action": action, "data": data}).to_string();
    let Ok(Request::Single(r)) = Request::decode(&line) else {
        panic!("{line}")
    };
    let wire = s.handle(r).to_line();
    let resp = Response::from_line(&wire).expect("an envelope");
    assert!(resp.success, "{wire}");
    resp.data_as::<T>()
        .unwrap_or_else(|e| panic!("{action}: {e}\n{wire}"))
}

#[test]
fn every_reply_decodes_into_its_type() {
    let mut s = common::sim("Dynamic_Map");
    let st: StateData = typed(&mut s, "get_state", json!({}));
    assert_eq!(st.sensors.len(), 10);
    for (name, p) in &st.sensors {
        let p: SensorPayload =
            serde_json::from_value(p.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.schema_name, SENSOR_SCHEMA_NAME);
        assert_eq!(p.sensor_frame_id, format!("auv/main/{name}"));
    }
    let c: CompactState = typed(
        &mut s,
        "step",
        json!({"force": [0, 10, 0], "detail": "compact"}),
    );
    assert!((c.sim_time - 0.1).abs() < 1e-12);
    let _: SensorsData = typed(&mut s, "get_sensors", json!({"sensors": ["imu"]}));
    let a: AgentsData<AgentRuntimeState> = typed(&mut s, "get_agents", json!({}));
    assert_eq!(a.count, 4);
    let m: MapInfo = typed(&mut s, "get_map_info", json!({}));
    assert_eq!(m.scenario, "Dynamic_Map");
    let _: TerrainGrid = typed(&mut s, "get_terrain_grid", json!({"cell_size": 2.0}));
    let f: MotionAck = typed(&mut s, "set_force_body", json!({"force": [0, 10, 0]}));
    assert_eq!(f.frame, Some(Frame::OceansimBody));
    let _: MotionAck = typed(
        &mut s,
        "set_thrusters",
        json!({"thrusters": [0.1, 0.1, 0.0, 0.0, 0.0, 0.0]}),
    );
    let _: AgentVelocityAck = typed(
        &mut s,
        "set_agent_velocity",
        json!({"id": "target_01", "velocity": [0.1, 0, 0]}),
    );
    let _: CurrentAck = typed(&mut s, "set_current", json!({"velocity": [0.1, 0, 0]}));
    let _: ObstacleSpawned = typed(
        &mut s,
        "spawn_obstacle",
        json!({"id": "b", "shape": "sphere", "position": [5, -15, 5], "radius": 1}),
    );
    let _: Removed<String> = typed(&mut s, "remove_obstacle", json!({"id": "b"}));
    let p: AgentPlaced = typed(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "x", "location": [-5.0, -3.0, 5.0]}),
    );
    assert_eq!(p.kind, "proxy");
    let _: AgentPlaced = typed(
        &mut s,
        "move_agent",
        json!({"id": "x", "position": [-5.0, -4.0, 5.0]}),
    );
    let _: Removed<String> = typed(&mut s, "remove_agent", json!({"id": "x"}));
    let _: WaypointAck = typed(
        &mut s,
        "set_waypoint",
        json!({"world_x": 1.0, "world_z": -10.0}),
    );
    let _: OverlayAck = typed(&mut s, "set_nav_path", json!({"path": [[0, 0]]}));
    let _: NavCleared = typed(&mut s, "clear_nav", json!({}));
    let _: SendOutcome = typed(
        &mut s,
        "send_acoustic_message",
        json!({"sender_id": "auv/main", "receiver_id": "target_01", "payload": 1}),
    );
    let _: ChannelConfig = typed(&mut s, "configure_acoustic_comm", json!({"latency_s": 0.1}));
    let _: ClockData = typed(&mut s, "pause", json!({}));
    let _: Removed<usize> = typed(&mut s, "clear_agents", json!({}));
    let _: MapInfo = typed(&mut s, "generate_map", json!({"seed": 3}));
}

/// The wire line of `line`'s reply.
fn wire(s: &mut oceansim_sim::Simulation, line: &str) -> String {
    let Ok(Request::Single(r)) = Request::decode(line) else {
        panic!("{line}")
    };
    s.handle(r).to_line()
}

#[test]
fn every_reader_of_a_revision_gets_the_same_state_bytes() {
    // The first reader of a revision has the state written into its
    // reply; the second renders it as text, kept for the third. All
    // three lines are the same bytes, and a step makes a new revision.
    let mut s = common::sim("Dynamic_Map");
    let get = r#"{"type":"command","request_id":1,"action":"get_state"}"#;
    let step = r#"{"type":"command","request_id":1,"action":"step","data":{"force":[0,10,0]}}"#;
    for _ in 0..2 {
        let stepped = wire(&mut s, step);
        let first = wire(&mut s, get);
        let (second, third) = (wire(&mut s, get), wire(&mut s, get));
        assert_eq!(first, second);
        assert_eq!(second, third);
        let data = |l: &str| Response::from_line(l).unwrap().data;
        assert_eq!(
            data(&stepped),
            data(&first),
            "a step replies with its state"
        );
        assert!(data(&first)["sensors"].as_object().unwrap().len() >= 10);
    }
}
