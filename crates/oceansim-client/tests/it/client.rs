//! The client against the real server on 127.0.0.1:0, and against fake
//! servers that misbehave (never answer, answer the wrong thing).

use oceansim_client::{
    AgentDefinition, AgentFactory, Auv, ClientError, ConnectOptions, ControlScheme, OceanSimClient,
};
use oceansim_server::{spawn, ServerHandle};
use oceansim_sim::SimConfig;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn server() -> (ServerHandle, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    let config = SimConfig {
        paused: true,
        deterministic: true,
        export_root: root.path().to_owned(),
        // The client's requests and replies, not a dataset: imaging
        // sensors render when a request asks for them, not every tick.
        record_sensor_data: false,
        ..SimConfig::default()
    };
    (
        spawn("127.0.0.1:0", config, Default::default()).unwrap(),
        root,
    )
}

fn quick() -> ConnectOptions {
    ConnectOptions {
        retries: 0,
        interval: Duration::from_millis(10),
        timeout: Duration::from_secs(20),
    }
}

async fn connect(server: &ServerHandle) -> OceanSimClient {
    OceanSimClient::connect_with(&server.addr().to_string(), quick())
        .await
        .unwrap()
}

/// A line-forwarding proxy in front of the server that counts the lines
/// clients send through it.
fn counting_proxy(target: std::net::SocketAddr) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(client) = conn else { return };
            let upstream = std::net::TcpStream::connect(target).unwrap();
            let mut to_client = client.try_clone().unwrap();
            let mut from_upstream = upstream.try_clone().unwrap();
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from_upstream, &mut to_client);
            });
            let seen = Arc::clone(&seen);
            std::thread::spawn(move || {
                let mut up = upstream;
                for line in BufReader::new(client).lines() {
                    let Ok(line) = line else { return };
                    seen.fetch_add(1, Ordering::SeqCst);
                    if writeln!(up, "{line}").is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, count)
}

#[tokio::test]
async fn every_control_scheme_acts_through_its_protocol_action() {
    let (server, _root) = server();
    let client = connect(&server).await;
    let main_schemes = [
        (
            ControlScheme::Force3d,
            vec![0.0, 50.0, 0.0],
            "set_force_world",
        ),
        (
            ControlScheme::BodyForce3d,
            vec![0.0, 50.0, 0.0],
            "set_force_body",
        ),
        (
            ControlScheme::Thrusters,
            vec![0.3, 0.3, 0.0, 0.0, 0.0, 0.0],
            "set_thrusters",
        ),
        (
            ControlScheme::WaypointPid,
            vec![5.0, -30.0, 7.0],
            "set_waypoint",
        ),
        (
            ControlScheme::BodyWrench6dof,
            vec![20.0, 0.0, 0.0, 0.0, 0.0, 1.0],
            "set_body_wrench",
        ),
        (
            ControlScheme::BodyVelocity6dof,
            vec![0.5, 0.0, 0.0, 0.0, 0.0, 0.0],
            "set_body_velocity",
        ),
    ];
    for (scheme, action, wire) in main_schemes {
        let def = AgentDefinition::new("auv/main").with_control_scheme(scheme);
        let agent = AgentFactory::build_agent(&client, def, true).await.unwrap();
        assert_eq!(agent.control_scheme(), scheme);
        let reply = agent.act(&action).await.unwrap();
        assert_eq!(reply.action(), wire, "{scheme}");
        let state = agent.agent_state().await.unwrap();
        assert_eq!(state["last_command"]["action"], wire, "{scheme}: {state}");
        agent.clear_action().await.unwrap();
    }

    // A proxy is spawned by the factory and driven by velocity.
    let proxy = AgentDefinition::from_json(&json!({
        "agent_name": "target_01", "agent_type": "proxy_auv", "is_main_agent": false,
        "location": [4.0, -7.0, -15.0], "control_scheme": "external_velocity",
    }))
    .unwrap();
    let target = AgentFactory::build_agent(&client, proxy, true)
        .await
        .unwrap();
    target.act(&[0.5, 0.0, 0.0]).await.unwrap();
    client
        .send_command("step", Some(json!({})), None)
        .await
        .unwrap();
    let record = target.agent_state().await.unwrap();
    assert!(record["position"][0].as_f64().unwrap() > 4.0, "{record}");
    let moved = target.teleport([6.0, -7.0, -15.0], None).await.unwrap();
    assert_eq!(moved["position_godot"][0], 6.0);
    assert_eq!(target.agent_state_dict()["agent_name"], "target_01");

    // The reserved scheme never reaches the socket.
    let reserved =
        AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::CustomDynamics6dof);
    let err = AgentFactory::build_agent(&client, reserved, true)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported_control_scheme");
    // A proxy does not take body wrenches: refused when binding.
    let wrong = AgentDefinition::from_json(&json!({
        "agent_name": "target_01", "is_main_agent": false, "control_scheme": "body_wrench_6dof",
    }))
    .unwrap();
    let err = AgentFactory::build_agent(&client, wrong, false)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported_control_scheme");
}

#[tokio::test]
async fn invalid_actions_never_reach_the_socket() {
    let (server, _root) = server();
    let (proxy_addr, lines) = counting_proxy(server.addr());
    let client = OceanSimClient::connect_with(&proxy_addr, quick())
        .await
        .unwrap();
    let def = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::Thrusters);
    let agent = AgentFactory::build_agent(&client, def, true).await.unwrap();
    let sent = lines.load(Ordering::SeqCst);
    // Out of the simulator's [-1, 1] thruster bounds.
    let err = agent
        .act(&[1.5, 0.0, 0.0, 0.0, 0.0, 0.0])
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Action(_)), "{err}");
    assert!(err.to_string().contains("thruster_0"), "{err}");
    // Wrong length, and not finite.
    let err = agent.act(&[0.1, 0.2]).await.unwrap_err();
    assert_eq!(err.code(), "invalid_action_shape");
    let err = agent
        .act(&[f64::NAN, 0.0, 0.0, 0.0, 0.0, 0.0])
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_action_shape");
    // Experiment bounds narrow the simulator's.
    let tight = agent
        .clone()
        .with_bounds(vec![Some(-0.2); 6], vec![Some(0.2); 6])
        .unwrap();
    assert!(tight.act(&[0.5, 0.0, 0.0, 0.0, 0.0, 0.0]).await.is_err());
    assert_eq!(
        lines.load(Ordering::SeqCst),
        sent,
        "a rejected action was sent"
    );
    // A valid one goes through, as one line.
    tight.act(&[0.2, 0.0, 0.0, 0.0, 0.0, 0.0]).await.unwrap();
    assert_eq!(lines.load(Ordering::SeqCst), sent + 1);
    let state = client.request_state().await.unwrap();
    assert_eq!(state["control"]["last_command"]["action"], "set_thrusters");
}

#[tokio::test]
async fn a_hundred_requests_in_flight_get_their_own_replies() {
    let (server, _root) = server();
    let client = connect(&server).await;
    let mut tasks = Vec::new();
    for i in 0..100 {
        let c = client.clone();
        tasks.push(tokio::spawn(async move {
            if i % 3 == 0 {
                let r = c.send_command("get_state", None, None).await.unwrap();
                (i, r.kind().to_owned(), r.action().to_owned())
            } else {
                // Each error names the agent asked for: a reply delivered to
                // the wrong request would name another.
                let id = format!("ghost-{i}");
                let err = c
                    .send_command("read_acoustic_inbox", Some(json!({"agent_id": id})), None)
                    .await
                    .unwrap_err();
                let ClientError::Protocol { code, message, .. } = err else {
                    panic!("{err}")
                };
                assert_eq!(code, "unknown_agent");
                assert!(message.contains(&format!("`ghost-{i}`")), "{i}: {message}");
                (i, "error".to_owned(), "read_acoustic_inbox".to_owned())
            }
        }));
    }
    let mut done = 0;
    for t in tasks {
        let (i, kind, action) = t.await.unwrap();
        if i % 3 == 0 {
            assert_eq!((kind.as_str(), action.as_str()), ("state", "get_state"));
        }
        done += 1;
    }
    assert_eq!(done, 100);
    assert!(
        client.get_latest_state().is_some(),
        "get_state replies are cached"
    );
}

#[tokio::test]
async fn protocol_errors_carry_the_servers_code() {
    let (server, _root) = server();
    let client = connect(&server).await;
    let err = client
        .send_command("set_force", Some(json!({"force": [1.0]})), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_action_shape");
    let err = client.send_command("fly", None, None).await.unwrap_err();
    assert_eq!(err.code(), "unknown_action");
    let err = client
        .send_command("remove_agent", Some(json!({"id": "nobody"})), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unknown_agent");
    let ClientError::Protocol {
        reply: Some(reply), ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(reply["type"], "error");
    // The connection survives errors.
    assert!(client.request_state().await.is_ok());
}

#[tokio::test]
async fn batches_give_children_ids_and_keep_their_order() {
    let (server, _root) = server();
    let client = connect(&server).await;
    let replies = client
        .send_batch(
            vec![
                json!({"type": "command", "action": "get_sensors"}),
                json!({"type": "command", "action": "set_force", "request_id": "mine-7",
                       "data": {"force": [0, 80, 0]}}),
                json!({"type": "command", "action": "remove_agent", "request_id": 42,
                       "data": {"id": "nobody"}}),
                json!({"type": "sim_control", "action": "set_time_scale", "data": {"time_scale": 2.0}}),
            ],
            None,
        )
        .await
        .unwrap();
    let actions: Vec<&str> = replies.iter().map(|r| r.action()).collect();
    assert_eq!(
        actions,
        ["get_sensors", "set_force", "remove_agent", "set_time_scale"]
    );
    assert_eq!(replies[2].kind(), "error");
    let ids: Vec<&Value> = replies
        .iter()
        .map(|r| &r.envelope()["request_id"])
        .collect();
    assert!(ids[0].is_string() && ids[3].is_string(), "{ids:?}");
    assert_eq!(ids[1], "mine-7", "a caller's id is kept");
    assert_eq!(ids[2], 42, "a caller's numeric id too, on an error reply");
    let state = client.request_state().await.unwrap();
    assert_eq!(state["time_scale"], 2.0);
    assert_eq!(state["control"]["last_command"]["action"], "set_force");
}

/// A server that accepts and reads but never answers.
fn silent_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            std::thread::spawn(move || for _ in BufReader::new(conn).lines() {});
        }
    });
    addr
}

/// A server that answers every request with `answer(request)`.
fn scripted_server(answer: fn(&Value) -> Value) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            std::thread::spawn(move || {
                let mut out = conn.try_clone().unwrap();
                for line in BufReader::new(conn).lines() {
                    let Ok(line) = line else { return };
                    let request: Value = serde_json::from_str(&line).unwrap();
                    let _ = writeln!(out, "{}", answer(&request));
                }
            });
        }
    });
    addr
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let addr = silent_server();
    let options = ConnectOptions {
        timeout: Duration::from_millis(200),
        ..quick()
    };
    let client = OceanSimClient::connect_with(&addr, options).await.unwrap();
    let err = client.request_state().await.unwrap_err();
    assert_eq!(err.code(), "timeout");
    assert!(
        matches!(err, ClientError::Timeout { timeout, .. } if timeout == Duration::from_millis(200))
    );
    // A per-request timeout overrides the default.
    let err = client
        .send_command("get_map_info", None, Some(Duration::from_millis(50)))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::Timeout { timeout, .. } if timeout == Duration::from_millis(50))
    );
}

#[tokio::test]
async fn a_refused_connection_retries_then_fails() {
    // A port nobody listens on: bind, read the port, close.
    let addr = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let options = ConnectOptions {
        retries: 2,
        interval: Duration::from_millis(20),
        timeout: Duration::from_secs(1),
    };
    let err = OceanSimClient::connect_with(&addr, options)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "connection_error");
    assert!(err.to_string().contains("after 3 attempts"), "{err}");
}

#[tokio::test]
async fn mismatched_and_empty_replies_are_protocol_errors() {
    let wrong_action = scripted_server(
        |r| json!({"type": "response", "request_id": r["request_id"], "action": "get_map_info", "status": "ok", "data": {}}),
    );
    let client = OceanSimClient::connect_with(&wrong_action, quick())
        .await
        .unwrap();
    let err = client.request_state().await.unwrap_err();
    assert_eq!(err.code(), "mismatched_reply");

    let empty = scripted_server(|r| json!({"request_id": r["request_id"]}));
    let client = OceanSimClient::connect_with(&empty, quick()).await.unwrap();
    let err = client
        .send_command("get_state", None, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "empty_reply");

    let no_state = scripted_server(
        |r| json!({"type": "state", "request_id": r["request_id"], "action": "get_state", "status": "ok", "data": {}}),
    );
    let client = OceanSimClient::connect_with(&no_state, quick())
        .await
        .unwrap();
    assert_eq!(
        client.request_state().await.unwrap_err().code(),
        "empty_reply"
    );
}

#[tokio::test]
async fn a_closed_connection_fails_waiters_and_later_calls() {
    let (server, _root) = server();
    let client = connect(&server).await;
    assert!(client.is_connected());
    server.shutdown().unwrap();
    let err = client.request_state().await.unwrap_err();
    assert_eq!(err.code(), "connection_error", "{err}");
    assert!(!client.is_connected());
}

#[tokio::test]
async fn the_auv_holds_depth_and_heading_and_reaches_a_waypoint() {
    let (server, _root) = server();
    let auv = Auv::connect_with(&server.addr().to_string(), quick())
        .await
        .unwrap();
    let client = auv.client().clone();
    let advance = || client.send_command("step", Some(json!({})), None);

    let start = auv.get_state().await.unwrap();
    assert!((start.depth() + start.z()).abs() < 1e-9);
    assert_eq!(
        start.position_godot_xyz(),
        [start.x(), start.z(), -start.y()]
    );
    assert_eq!(start.position_ros_ned(), [start.y(), start.x(), -start.z()]);

    // 60 s of PD depth hold, 2 m deeper.
    let target = start.depth() + 2.0;
    let mut last = None;
    for _ in 0..600 {
        last = Some(
            auv.hold_depth_step(oceansim_client::DepthHold::new(target))
                .await
                .unwrap(),
        );
        advance().await.unwrap();
    }
    let last = last.unwrap();
    let control = &last.envelope()["control"];
    assert_eq!(control["mode"], "depth_pd");
    let depth = auv.get_state().await.unwrap().depth();
    assert!((depth - target).abs() < 0.25, "depth {depth} vs {target}");

    // Turn to 90° (east).
    for _ in 0..600 {
        auv.hold_heading_step(oceansim_client::HeadingHold::new(90.0))
            .await
            .unwrap();
        advance().await.unwrap();
    }
    let heading = auv.get_state().await.unwrap().heading();
    assert!((heading - 90.0).abs() < 3.0, "heading {heading}");

    // Waypoint 8 m east of the AUV on the map plane.
    let s = auv.get_state().await.unwrap();
    let wp = oceansim_client::WaypointStep {
        nav_depth: Some(s.depth()),
        ..oceansim_client::WaypointStep::new(s.x() + 8.0, -s.y())
    };
    let mut arrived = false;
    for _ in 0..1500 {
        let (done, reply) = auv.track_waypoint_step(wp).await.unwrap();
        assert_eq!(reply.envelope()["control"]["mode"], "waypoint_pid");
        if done {
            arrived = true;
            break;
        }
        advance().await.unwrap();
    }
    let end = auv.get_state().await.unwrap();
    assert!(arrived, "never arrived; at {:?}", end.position());
    assert!((end.x() - (s.x() + 8.0)).hypot(end.y() - s.y()) <= 1.0);
}

#[tokio::test]
async fn the_gym_step_returns_observation_reward_and_done() {
    let (server, _root) = server();
    let auv = Auv::connect_with(&server.addr().to_string(), quick())
        .await
        .unwrap()
        .with_reward(|prev, now, _| prev.map_or(0.0, |p| now.y() - p.y()))
        .with_done(|s| s.sim_time() >= 1.0);
    let mut rewards = Vec::new();
    let mut done = false;
    let mut steps = 0;
    while !done {
        let r = auv.step(&[0.0, 150.0, 0.0]).await.unwrap();
        rewards.push(r.reward);
        done = r.done;
        steps += 1;
        assert!(r.info["sim_time"].as_f64().is_some());
    }
    assert_eq!(steps, 10, "0.1 s per step, done at 1 s");
    assert_eq!(rewards[0], 0.0);
    assert!(rewards[1..].iter().all(|r| *r > 0.0), "{rewards:?}");
    let err = auv.step(&[1.0, 2.0]).await.unwrap_err();
    assert_eq!(err.code(), "invalid_action_shape");
}

#[tokio::test]
async fn sensors_validate_against_the_schema_and_clouds_read() {
    let (server, _root) = server();
    let auv = Auv::connect_with(&server.addr().to_string(), quick())
        .await
        .unwrap();
    let sensors = auv.get_sensors(true).await.unwrap();
    for name in ["depth", "imu", "dvl", "lidar_3d", "multibeam_sonar"] {
        assert!(sensors.contains_key(name), "{name}");
    }
    let cloud = auv.get_point_cloud_3d().await.unwrap();
    let local = oceansim_client::xyz_from_cloud(&cloud, false).unwrap();
    let world = oceansim_client::xyz_from_cloud(&cloud, true).unwrap();
    assert_eq!(local.len(), world.len());
    assert_eq!(local.len() as u64, cloud["point_count"].as_u64().unwrap());
    assert!(auv.get_dvl().await.unwrap()["altitude_m"]
        .as_f64()
        .is_some());
}

#[test]
fn the_blocking_wrappers_drive_the_same_server() {
    let (server, _root) = server();
    let addr = server.addr().to_string();
    let auv = oceansim_client::blocking::Auv::connect_with(&addr, quick()).unwrap();
    auv.surge(120.0).unwrap();
    auv.client()
        .send_command("step", Some(json!({})), None)
        .unwrap();
    let s = auv.get_state().unwrap();
    assert!(s.velocity()[1] > 0.0);
    let def = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::BodyWrench6dof);
    let agent = oceansim_client::blocking::AgentFactory::build_agent(&auv, def, true).unwrap();
    agent.act(&[10.0, 0.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
    assert_eq!(
        agent.agent_state().unwrap()["last_command"]["action"],
        "set_body_wrench"
    );
    auv.set_pose([0.0, 17.0, -6.0], None, Some(45.0)).unwrap();
    let s = auv.get_state().unwrap();
    assert!((s.heading() - 45.0).abs() < 1e-6, "{}", s.heading());
    assert_eq!(s.speed(), 0.0);
}

#[tokio::test]
async fn a_fire_and_forget_reply_is_never_taken_for_another() {
    let (server, _root) = server();
    let client = connect(&server).await;
    for _ in 0..20 {
        client
            .send(&json!({"type": "command", "action": "set_force", "data": {"force": [0, 10, 0]}}))
            .unwrap();
        let state = client.request_state().await.unwrap();
        assert!(state.get("position").is_some());
    }
    // Over the server's 1 MiB line limit: refused here, with the reason.
    let path: Vec<[f64; 2]> = (0..100_000).map(|i| [i as f64 * 1e-3, 1.0 / 3.0]).collect();
    let err = client
        .send_command("set_nav_path", Some(json!({ "path": path })), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    assert!(err.to_string().contains("line limit"), "{err}");
    assert!(client.request_state().await.is_ok());
}

#[test]
fn a_blocking_send_goes_out_without_another_call() {
    let (server, _root) = server();
    let addr = server.addr().to_string();
    let sender = oceansim_client::blocking::OceanSimClient::connect_with(&addr, quick()).unwrap();
    let watcher = oceansim_client::blocking::OceanSimClient::connect_with(&addr, quick()).unwrap();
    sender
        .send(
            &json!({"type": "command", "action": "set_force_world", "data": {"force": [0, 30, 0]}}),
        )
        .unwrap();
    // The sender makes no further call; the watcher must see the command.
    let mut seen = false;
    for _ in 0..200 {
        let state = watcher.request_state().unwrap();
        if state["control"]["last_command"]["action"] == "set_force_world" {
            seen = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(seen, "the blocking send never reached the server");
    sender.disconnect();
    assert_eq!(
        sender.request_state().unwrap_err().code(),
        "connection_error"
    );
    assert!(
        watcher.request_state().is_ok(),
        "the other connection is unaffected"
    );
}

#[tokio::test]
async fn disconnect_fails_requests_in_flight_and_later() {
    let addr = silent_server();
    let client = OceanSimClient::connect_with(&addr, quick()).await.unwrap();
    let waiting = {
        let c = client.clone();
        tokio::spawn(async move { c.request_state().await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.disconnect();
    assert!(!client.is_connected());
    let err = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("the waiter is woken")
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "connection_error", "{err}");
    assert_eq!(
        client.request_state().await.unwrap_err().code(),
        "connection_error"
    );
}

#[tokio::test]
async fn episode_memory_resets_and_the_waypoint_integral_accumulates() {
    let (server, _root) = server();
    let auv = Auv::connect_with(&server.addr().to_string(), quick())
        .await
        .unwrap()
        .with_reward(|prev, now, _| prev.map_or(0.0, |p| now.y() - p.y()));
    auv.step(&[0.0, 100.0, 0.0]).await.unwrap();
    assert!(auv.step(&[0.0, 100.0, 0.0]).await.unwrap().reward > 0.0);
    // A teleport starts a new episode: no reward from the jump.
    auv.set_pose([0.0, 10.0, -6.0], None, Some(0.0))
        .await
        .unwrap();
    assert_eq!(auv.step(&[0.0, 0.0, 0.0]).await.unwrap().reward, 0.0);

    // Without nav_depth the tracker still integrates between calls.
    let wp = oceansim_client::WaypointStep::new(10.0, -10.0);
    let (_, first) = auv.track_waypoint_step(wp).await.unwrap();
    assert_eq!(first.envelope()["control"]["dt"], 0.0);
    auv.client()
        .send_command("step", Some(json!({})), None)
        .await
        .unwrap();
    let (_, second) = auv.track_waypoint_step(wp).await.unwrap();
    let control = &second.envelope()["control"];
    assert!(
        (control["dt"].as_f64().unwrap() - 0.1).abs() < 1e-9,
        "{control}"
    );
    assert!(control["integral"][0].as_f64().unwrap() > 0.0, "{control}");
}

#[tokio::test]
async fn clear_action_stops_even_when_bounds_exclude_zero() {
    let (server, _root) = server();
    let client = connect(&server).await;
    let def = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::Thrusters);
    let agent = AgentFactory::build_agent(&client, def, true)
        .await
        .unwrap()
        .with_bounds(vec![Some(0.1); 6], vec![Some(0.5); 6])
        .unwrap();
    assert!(
        agent.act(&[0.0; 6]).await.is_err(),
        "zero is out of these bounds"
    );
    agent.act(&[0.2; 6]).await.unwrap();
    agent.clear_action().await.unwrap();
    let state = client.request_state().await.unwrap();
    let last = &state["control"]["last_command"];
    assert_eq!(last["action"], "set_thrusters", "{last}");
}

/// `set_fins` lines the fins fake server has seen.
static FIN_LINES: AtomicUsize = AtomicUsize::new(0);

/// A REMUS 100-like fake: `get_agents` reports the main AUV with the `fins`
/// space a finned profile gives (rudder and stern plane ±30°, propeller
/// 0..1525 rpm), and `set_fins` answers with the motion ack the simulator
/// will send (applied values, nothing clipped). Until the simulator models
/// fins, this stands in for it.
fn fins_answer(r: &Value) -> Value {
    let deg30 = 30f64.to_radians();
    let names = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let space = oceansim_client::ActionSpace::for_fins(
        &names(&["rudder", "stern_plane"]),
        &names(&["propeller"]),
        &[-deg30, -deg30, 0.0],
        &[deg30, deg30, 1525.0],
    )
    .unwrap();
    let action = r["action"].as_str().unwrap_or_default();
    let data = match action {
        "get_agents" => json!({"agents": [{
            "id": "auv/main", "agent_name": "auv/main", "profile": "remus100",
            "control_scheme": "fins", "action_space": space,
            "available_action_spaces": [space],
        }]}),
        "set_fins" => {
            FIN_LINES.fetch_add(1, Ordering::SeqCst);
            let ack = oceansim_protocol::reply::MotionAck {
                agent_id: "auv/main".into(),
                fins: serde_json::from_value(r["data"]["fins"].clone()).ok(),
                frame: Some(oceansim_protocol::Frame::Actuator),
                ..Default::default()
            };
            serde_json::to_value(ack).unwrap()
        }
        _ => {
            return json!({"type": "error", "request_id": r["request_id"], "action": action,
                          "status": "error", "success": false,
                          "error_code": "unknown_action", "message": "not faked"})
        }
    };
    json!({"type": "response", "protocol_version": 2, "request_id": r["request_id"],
           "action": action, "status": "ok", "success": true, "sim_time": 0.0, "data": data})
}

#[tokio::test]
async fn a_fins_agent_acts_in_the_space_the_server_reports() {
    let addr = scripted_server(fins_answer);
    let client = OceanSimClient::connect_with(&addr, quick()).await.unwrap();
    let def = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::Fins);
    let agent = AgentFactory::build_agent(&client, def, true).await.unwrap();
    assert_eq!(agent.control_scheme(), ControlScheme::Fins);
    let space = agent.action_space();
    assert_eq!(space.fields, ["rudder", "stern_plane", "propeller"]);
    assert_eq!(space.units, ["rad", "rad", "rpm"]);

    let reply = agent.act(&[0.1, -0.2, 1200.0]).await.unwrap();
    assert_eq!(reply.action(), "set_fins");
    let ack: oceansim_protocol::reply::MotionAck =
        serde_json::from_value(reply.data().clone()).unwrap();
    assert_eq!(ack.fins, Some(vec![0.1, -0.2, 1200.0]));
    assert!(!ack.saturated);
    let sent = FIN_LINES.load(Ordering::SeqCst);
    assert_eq!(sent, 1);

    // Outside the profile's limits, the wrong length, not finite: refused
    // before anything is sent.
    let err = agent.act(&[0.6, 0.0, 100.0]).await.unwrap_err();
    assert!(err.to_string().contains("rudder"), "{err}");
    let err = agent.act(&[0.0, 0.0, 2000.0]).await.unwrap_err();
    assert!(err.to_string().contains("propeller"), "{err}");
    let err = agent.act(&[0.0, 0.0]).await.unwrap_err();
    assert_eq!(err.code(), "invalid_action_shape");
    let err = agent.act(&[f64::NAN, 0.0, 0.0]).await.unwrap_err();
    assert_eq!(err.code(), "invalid_action_shape");
    let tight = agent
        .clone()
        .with_bounds(vec![None, None, Some(100.0)], vec![None, None, Some(500.0)])
        .unwrap();
    assert!(tight.act(&[0.0, 0.0, 1000.0]).await.is_err());
    assert_eq!(
        FIN_LINES.load(Ordering::SeqCst),
        sent,
        "a rejected action was sent"
    );

    // Clearing centres the fins and stops the propeller, whatever the
    // experiment bounds.
    let cleared = tight.clear_action().await.unwrap();
    assert_eq!(cleared.data()["fins"], json!([0.0, 0.0, 0.0]));

    // The AUV call, async and blocking.
    let auv = Auv::from_client(client.clone());
    let reply = auv.set_fins(&[0.05, 0.0, 800.0]).await.unwrap();
    assert_eq!(reply.data()["fins"], json!([0.05, 0.0, 800.0]));
    for bad in [&[][..], &[f64::INFINITY, 0.0, 0.0][..], &[0.0; 17][..]] {
        let err = auv.set_fins(bad).await.unwrap_err();
        assert!(matches!(err, ClientError::InvalidArgument(_)), "{err}");
    }
    assert_eq!(FIN_LINES.load(Ordering::SeqCst), sent + 2);
    let addr2 = addr.clone();
    let blocking = std::thread::spawn(move || {
        let auv = oceansim_client::blocking::Auv::connect_with(&addr2, quick()).unwrap();
        auv.set_fins(&[0.0, 0.1, 300.0]).unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(blocking.data()["fins"], json!([0.0, 0.1, 300.0]));
}

#[tokio::test]
async fn the_default_torpedo_has_no_fins() {
    // The default profile has no control surfaces: the scheme is not among
    // its spaces and a `set_fins` is refused with the stable code. Holds
    // once the simulator models fins too (for finned profiles only).
    let (server, _root) = server();
    let client = connect(&server).await;
    let def = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::Fins);
    let err = AgentFactory::build_agent(&client, def, true)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported_control_scheme");
    let auv = Auv::from_client(client);
    let err = auv.set_fins(&[0.1, 0.0, 500.0]).await.unwrap_err();
    assert_eq!(err.code(), "unsupported_control_scheme");
}
