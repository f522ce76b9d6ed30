//! The real server on 127.0.0.1:0, driven over TCP with raw JSON lines: every
//! action's envelope, the error codes, batches, concurrency and limits
//! (`world.rs` holds what the world does).

use crate::common;

use common::{v3, Client, TestServer};
use oceansim_protocol::ActionName;
use oceansim_server::ServerConfig;
use oceansim_sim::SimConfig;
use serde_json::{json, Value};

fn sample_data(action: ActionName) -> Value {
    use ActionName as A;
    match action {
        A::Step => json!({"force": [0, 10, 0]}),
        A::SetForce | A::SetForceWorld | A::SetForceBody => json!({"force": [0, 10, 0]}),
        A::SetBodyWrench => json!({"wrench": [5, 0, 0, 0, 0, 0]}),
        A::SetBodyVelocity => json!({"velocity": [0.5, 0, 0, 0, 0, 0]}),
        A::SetThrust | A::SetThrusters => {
            json!({"thrusters": {"thruster_0": 0.5, "thruster_1": 0.5}})
        }
        A::SetFins => json!({"fins": [0.1, -0.1, 1000.0]}),
        A::SetTimeScale => json!({"time_scale": 2.0}),
        A::SetScenario => json!({"scenario": "Static_Map", "seed": 0}),
        A::GetTerrainGrid => json!({"cell_size": 1.0}),
        A::SpawnObstacle => {
            json!({"id": "box_test", "shape": "box", "position": [8.0, -10.0, 8.0], "size": [1, 1, 1]})
        }
        A::RemoveObstacle => json!({"id": "box_test"}),
        A::SpawnAgent => json!({"agent_name": "target_x", "location": [4.0, -7.0, 6.0]}),
        A::MoveAgent => json!({"id": "target_x", "position": [5.0, -7.0, 6.0]}),
        A::SetAgentVelocity => json!({"id": "target_x", "velocity": [0.1, 0, 0]}),
        A::RemoveAgent => json!({"id": "target_x"}),
        A::SetNavPath => json!({"path": [[0, 0], [1, 2, 3]]}),
        A::SetPredTrajectory => json!({"points": [[0, 0], [1, -1]]}),
        A::SetWaypoints => json!({"waypoints": [[0, 0], [5, -5, 2]]}),
        A::SetWaypoint => json!({"world_x": 1.0, "world_z": -20.0}),
        A::SetCurrent => json!({"velocity": [0.1, 0, 0]}),
        A::SendAcousticMessage => {
            json!({"sender_id": "auv/main", "receiver_id": "auv/main", "payload": "ping"})
        }
        A::ConfigureAcousticComm => json!({"latency_s": 0.1}),
        A::ReadAcousticInbox => json!({"agent_id": "auv/main"}),
        A::ExportDataset => json!({"export_dir": "runs/all_actions"}),
        A::SaveSnapshotJson => json!({"path": "snap.json"}),
        A::LoadSnapshot => json!({"path": "snap.json"}),
        _ => json!({}),
    }
}

#[test]
fn every_action_answers_with_its_documented_envelope() {
    let server = TestServer::paused();
    let mut c = server.client();
    // Order matters for the agent and obstacle actions: spawn before use.
    let order = [
        ActionName::GetState,
        ActionName::GetSensors,
        ActionName::Step,
        ActionName::SetForce,
        ActionName::SetForceWorld,
        ActionName::SetForceBody,
        ActionName::SetBodyWrench,
        ActionName::SetBodyVelocity,
        ActionName::SetThrust,
        ActionName::SetThrusters,
        ActionName::SetFins,
        ActionName::SetScenario,
        ActionName::GenerateMap,
        ActionName::GetMapInfo,
        ActionName::GetTerrainGrid,
        ActionName::SpawnObstacle,
        ActionName::RemoveObstacle,
        ActionName::SpawnAgent,
        ActionName::MoveAgent,
        ActionName::GetAgents,
        ActionName::SetAgentVelocity,
        ActionName::RemoveAgent,
        ActionName::ClearAgents,
        ActionName::SetNavPath,
        ActionName::SetWaypoint,
        ActionName::SetPredTrajectory,
        ActionName::SetWaypoints,
        ActionName::ClearNav,
        ActionName::SetCurrent,
        ActionName::SendAcousticMessage,
        ActionName::ConfigureAcousticComm,
        ActionName::ReadAcousticInbox,
        ActionName::ExportDataset,
        ActionName::SaveSnapshotJson,
        ActionName::LoadSnapshot,
        ActionName::Reset,
        ActionName::Pause,
        ActionName::Resume,
        ActionName::SetTimeScale,
    ];
    assert_eq!(
        order.len(),
        ActionName::ALL.len(),
        "every action is exercised"
    );
    for a in order {
        let data = sample_data(a);
        if a == ActionName::SetFins {
            // The default torpedo has no control surfaces: refused with the
            // stable code (the fin physics is the simulator's, for finned
            // profiles such as REMUS 100).
            assert_eq!(c.code(a.as_str(), data), "unsupported_control_scheme");
            continue;
        }
        let r = match a.request_type() {
            oceansim_protocol::RequestType::SimControl => c.sim(a.as_str(), data.clone()),
            _ => c.cmd(a.as_str(), data.clone()),
        };
        assert_eq!(r["success"], true, "{a}: {r}");
        assert_eq!(r["status"], "ok");
        assert_eq!(r["protocol_version"], 2);
        assert_eq!(r["action"], a.as_str());
        assert!(r["sim_time"].is_number(), "{a}: sim_time");
        let want = if matches!(
            a,
            ActionName::GetState | ActionName::GetSensors | ActionName::Step
        ) {
            "state"
        } else {
            "response"
        };
        assert_eq!(r["type"], want, "{a}");
    }
}

#[test]
fn get_state_has_the_documented_fields_and_sensors() {
    let server = TestServer::paused();
    let mut c = server.client();
    let s = c.state();
    for k in [
        "position",
        "velocity",
        "depth",
        "speed",
        "heading_deg",
        "sim_time",
        "sensors",
        "orientation",
        "body_velocity",
    ] {
        assert!(s.get(k).is_some(), "missing {k} in {s}");
    }
    // Static_Map starts at Godot [0, -6, -17]: user [0, 17, -6], 6 m deep, facing north.
    let p = v3(&s["position"]);
    assert!(
        (p[0]).abs() < 1e-9 && (p[1] - 17.0).abs() < 1e-9 && (p[2] + 6.0).abs() < 1e-9,
        "{p:?}"
    );
    assert!((s["depth"].as_f64().unwrap() - 6.0).abs() < 1e-9);
    assert!(s["heading_deg"].as_f64().unwrap().abs() < 1e-9);
    let sensors = s["sensors"].as_object().unwrap();
    assert_eq!(
        sensors.len(),
        10,
        "{:?}",
        sensors.keys().collect::<Vec<_>>()
    );
    for (name, p) in sensors {
        for k in [
            "enabled",
            "status",
            "schema_name",
            "schema_version",
            "sensor_type",
            "sim_time",
            "timestamp_sim",
            "timestamp_wall",
            "timestamp",
            "sequence",
            "frame_id",
            "sensor_frame_id",
            "parent_frame_id",
            "noise_seed",
            "extrinsic_xyz_rpy",
            "extrinsic_quat_xyzw",
            "covariance",
        ] {
            assert!(p.get(k).is_some(), "{name} lacks {k}");
        }
        assert_eq!(p["schema_name"], "oceansim_sensor_payload");
        assert_eq!(p["schema_version"], 2);
    }
    let depth = sensors["depth"]["depth_m"].as_f64().unwrap();
    assert!(
        (depth - 6.05).abs() < 0.1,
        "depth sensor reads about 6 m: {depth}"
    );
    let dvl = &sensors["dvl"];
    assert_eq!(dvl["bottom_lock"], true);
    let alt = dvl["altitude_m"].as_f64().unwrap();
    assert!(
        alt > 8.0 && alt < 20.0,
        "seabed 20 ± 3 m deep under a 6 m deep AUV: {alt}"
    );
    // get_sensors can filter; unknown names are an error.
    let r = c.ok("get_sensors", json!({"sensors": ["imu"]}));
    assert_eq!(r["type"], "state");
    assert_eq!(r["data"]["sensors"].as_object().unwrap().len(), 1);
    assert_eq!(
        c.code("get_sensors", json!({"sensors": ["x_ray"]})),
        "invalid_message"
    );
}

#[test]
fn every_error_code_is_produced_and_the_connection_survives() {
    let server = TestServer::paused();
    let mut c = server.client();
    let code = |r: Value| r["error_code"].as_str().unwrap_or("none").to_owned();
    assert_eq!(
        code(c.request(json!({"type": "teleport", "action": "x"}))),
        "unknown_type"
    );
    assert_eq!(
        code(c.request(json!({"type": "command", "action": "fly"}))),
        "unknown_action"
    );
    assert_eq!(
        code(c.request(json!({"type": "command", "action": "pause"}))),
        "unknown_action"
    );
    c.send_raw(b"this is not json\n");
    assert_eq!(code(c.recv()), "invalid_message");
    c.send_raw(b"{\"type\":\"command\",\"action\":\"get_state\",\"x\":\"\xff\"}\n");
    assert_eq!(code(c.recv()), "invalid_message");
    assert_eq!(
        c.code("set_force", json!({"force": [1, 2]})),
        "invalid_action_shape"
    );
    assert_eq!(
        c.code("set_force", json!({"force": ["a", 2, 3]})),
        "invalid_action_shape"
    );
    assert_eq!(
        c.code("set_thrusters", json!({"thrusters": {"thruster_9": 1.0}})),
        "invalid_action_shape"
    );
    assert_eq!(
        c.code("set_thrusters", json!({"thrusters": [1.0, 1.0]})),
        "invalid_action_shape"
    );
    assert_eq!(
        c.code("set_fins", json!({"fins": [0.1, "x"]})),
        "invalid_action_shape"
    );
    assert_eq!(
        c.code("step", json!({"force": [0, 0, 0], "fins": [0.1]})),
        "invalid_message"
    );
    assert_eq!(
        c.code("set_fins", json!({"fins": [0.1], "agent_id": "ghost"})),
        "unknown_agent"
    );
    assert_eq!(
        c.code(
            "set_agent_velocity",
            json!({"id": "ghost", "velocity": [0, 0, 0]})
        ),
        "unknown_agent"
    );
    assert_eq!(
        c.code("move_agent", json!({"id": "ghost", "position": [0, -5, 0]})),
        "unknown_agent"
    );
    assert_eq!(
        c.code(
            "set_agent_velocity",
            json!({"id": "auv/main", "velocity": [0, 0, 0]})
        ),
        "unsupported_control_scheme"
    );
    assert_eq!(
        c.code(
            "spawn_agent",
            json!({"agent_name": "f", "location": [3, -5, 0], "control_scheme": "force_3d"})
        ),
        "unsupported_control_scheme"
    );
    c.ok(
        "spawn_agent",
        json!({"agent_name": "t1", "location": [3.0, -5.0, 0.0]}),
    );
    assert_eq!(
        c.code(
            "spawn_agent",
            json!({"agent_name": "t1", "location": [-3.0, -5.0, 0.0]})
        ),
        "spawn_failed"
    );
    assert_eq!(
        c.code(
            "spawn_agent",
            json!({"agent_name": "deep", "location": [3.0, -50.0, 0.0]})
        ),
        "blocked_pose"
    );
    assert_eq!(
        c.code(
            "spawn_agent",
            json!({"agent_name": "far", "location": [300.0, -5.0, 0.0]})
        ),
        "blocked_pose"
    );
    // pillar_north stands at Godot [0, -12, -8] (user [0, 8, -12]), 16 m tall.
    assert_eq!(
        c.code(
            "spawn_agent",
            json!({"agent_name": "in_pillar", "location": [0.0, -8.0, -8.0]})
        ),
        "blocked_pose"
    );
    let batch: Vec<Value> = (0..65)
        .map(|_| json!({"type": "command", "action": "get_state"}))
        .collect();
    let r = c.request(json!({"type": "batch", "request_id": "too-big", "requests": batch}));
    assert_eq!(code(r.clone()), "batch_limit");
    assert_eq!(r["request_id"], "too-big");
    // Still serving.
    assert_eq!(c.state()["scenario"], "Static_Map");
}

#[test]
fn rejected_requests_leave_the_world_unchanged() {
    let server = TestServer::paused();
    let mut c = server.client();
    c.ok("set_force", json!({"force": [0, 30, 0]}));
    let before = c.ok("get_agents", json!({}))["data"].clone();
    for (a, d) in [
        ("set_force", json!({"force": [1, 2]})),
        (
            "spawn_agent",
            json!({"agent_name": "deep", "location": [3.0, -50.0, 0.0]}),
        ),
        ("set_thrusters", json!({"thrusters": {"bogus": 1}})),
        (
            "move_agent",
            json!({"id": "auv/main", "position": [0, 10, 0]}),
        ),
        ("export_dataset", json!({"export_dir": "../escape"})),
        ("set_scenario", json!({"scenario": "Atlantis"})),
        ("get_terrain_grid", json!({"cell_size": 0.001})),
    ] {
        let r = c.cmd(a, d);
        assert_eq!(r["success"], false, "{a}: {r}");
    }
    assert_eq!(c.ok("get_agents", json!({}))["data"], before);
}

#[test]
fn batches_of_64_answer_in_order_and_65_is_refused() {
    let server = TestServer::paused();
    let mut c = server.client();
    let reqs: Vec<Value> = (0..64)
        .map(|i| if i % 2 == 0 { json!({"type": "command", "request_id": i, "action": "get_state"}) } else { json!({"type": "command", "request_id": i, "action": "step", "data": {"force": [0, 5, 0]}}) })
        .collect();
    let r = c.request(
        json!({"type": "batch", "protocol_version": 2, "request_id": "b64", "requests": reqs}),
    );
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["request_id"], "b64");
    assert_eq!(r["data"]["count"], 64);
    let rs = r["data"]["responses"].as_array().unwrap();
    assert!(rs
        .iter()
        .enumerate()
        .all(|(i, x)| x["request_id"] == i && x["success"] == true));
    // 32 steps of 0.1 s ran in order.
    assert!((rs[63]["sim_time"].as_f64().unwrap() - 3.2).abs() < 1e-9);
    // A failing child does not stop the others.
    let r = c.request(json!({"type": "batch", "requests": [
        {"type": "command", "action": "get_state", "request_id": "a"},
        {"type": "command", "action": "set_force", "data": {"force": [1]}, "request_id": "b"},
        {"type": "batch", "requests": [], "request_id": "c"},
        {"type": "sim_control", "action": "pause", "request_id": "d"}]}));
    let rs = r["data"]["responses"].as_array().unwrap();
    let codes: Vec<&str> = rs
        .iter()
        .map(|x| x["error_code"].as_str().unwrap_or("ok"))
        .collect();
    assert_eq!(
        codes,
        ["ok", "invalid_action_shape", "invalid_message", "ok"]
    );
    let reqs: Vec<Value> = (0..65)
        .map(|_| json!({"type": "command", "action": "get_state"}))
        .collect();
    let r = c.request(json!({"type": "batch", "requests": reqs}));
    assert_eq!(r["error_code"], "batch_limit");
}

#[test]
fn fifty_concurrent_clients_are_each_answered_in_order() {
    let server = TestServer::paused();
    let addr = server.addr;
    let handles: Vec<_> = (0..50)
        .map(|k| {
            std::thread::spawn(move || {
                let mut c = Client::connect(addr);
                for i in 0..20 {
                    let id = format!("c{k}-{i}");
                    let action = if i % 5 == 0 { "step" } else { "get_state" };
                    let r = c.request(
                        json!({"type": "command", "request_id": id, "action": action, "data": {}}),
                    );
                    assert_eq!(r["request_id"], id.as_str());
                    assert_eq!(r["success"], true);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    // 50 clients x 4 steps of 0.1 s, all applied to one shared world.
    let t = server.client().state()["sim_time"].as_f64().unwrap();
    assert!((t - 20.0).abs() < 1e-6, "{t}");
}

#[test]
fn overlong_lines_disconnects_and_connection_limits() {
    let server = TestServer::start_with(
        SimConfig {
            paused: true,
            ..SimConfig::default()
        },
        ServerConfig {
            max_connections: 2,
            max_line_bytes: 4096,
            ..ServerConfig::default()
        },
    );
    let mut c = server.client();
    let long = format!(
        "{{\"type\":\"command\",\"action\":\"get_state\",\"pad\":\"{}\"}}\n",
        "x".repeat(10_000)
    );
    c.send_raw(long.as_bytes());
    assert_eq!(c.recv()["error_code"], "invalid_message");
    assert_eq!(
        c.state()["scenario"],
        "Static_Map",
        "resynchronised after the long line"
    );
    // A client that sends a request and vanishes harms nothing.
    {
        let mut gone = server.client();
        gone.send_raw(b"{\"type\":\"command\",\"action\":\"step\"}\n");
    }
    // ... and so does one that vanishes halfway through a line.
    {
        let mut gone = server.client();
        gone.send_raw(b"{\"type\":\"command\",\"action\":\"set_force\",\"data\":{\"y\":");
    }
    assert_eq!(c.state()["scenario"], "Static_Map");
    // Past the connection limit: one clear error line, then closed.
    let _second = server.client();
    let mut third = server.client();
    let r = third.recv();
    assert_eq!(r["error_code"], "invalid_message");
    assert!(r["message"]
        .as_str()
        .unwrap()
        .contains("at most 2 connections"));
}

#[test]
fn agent_limit_is_enforced_with_a_clear_error() {
    let server = TestServer::paused();
    let mut c = server.client();
    for i in 0..oceansim_sim::MAX_AGENTS {
        let x = -15.0 + (i % 8) as f64 * 4.0;
        let z = -15.0 + (i / 8) as f64 * 4.0;
        c.ok(
            "spawn_agent",
            json!({"agent_name": format!("a{i}"), "location": [x, -3.0, z], "size_m": 0.3}),
        );
    }
    let r = c.cmd(
        "spawn_agent",
        json!({"agent_name": "one_too_many", "location": [0.5, -2.0, 0.5], "size_m": 0.3}),
    );
    assert_eq!(r["error_code"], "spawn_failed");
    assert!(r["message"].as_str().unwrap().contains("limit"));
    assert_eq!(
        c.ok("clear_agents", json!({}))["data"]["removed"],
        oceansim_sim::MAX_AGENTS
    );
}
