//! The real server on 127.0.0.1:0 moving its world: forces, proxies,
//! time control, controllers, obstacles, acoustics and exports, driven over
//! TCP with raw JSON lines (`server.rs` holds the envelopes and limits).

use crate::common;

use common::{v3, Client, TestServer};
use oceansim_sim::SimConfig;
use serde_json::{json, Value};

#[test]
fn surge_moves_forward_in_the_user_frame_by_world_force_and_by_body_wrench() {
    let server = TestServer::paused();
    let mut c = server.client();
    // Facing north (heading 0): set_force +y (forward) and set_body_wrench +u both go north.
    let p0 = v3(&c.state()["position"]);
    let r = c.ok("set_force", json!({"force": [0, 40, 0]}));
    assert_eq!(r["data"]["frame"], "oceansim_world");
    let s = c.step_n(50, json!({}));
    let p = v3(&s["position"]);
    assert!(
        p[1] - p0[1] > 2.0 && (p[0] - p0[0]).abs() < 0.05,
        "world force +y: {p0:?} -> {p:?}"
    );
    c.sim("reset", json!({}));
    let r = c.ok("set_body_wrench", json!({"wrench": [40, 0, 0, 0, 0, 0]}));
    assert_eq!(r["data"]["frame"], "fossen_body");
    let s = c.step_n(50, json!({}));
    let p = v3(&s["position"]);
    assert!(
        p[1] - p0[1] > 2.0 && (p[0] - p0[0]).abs() < 0.05,
        "body wrench +u: {p0:?} -> {p:?}"
    );
    // Turned to face east (Godot yaw -90), the body wrench goes east while the
    // world force still goes north.
    c.sim("reset", json!({}));
    c.ok(
        "move_agent",
        json!({"id": "auv/main", "position": [0.0, -6.0, -17.0], "rotation": [0.0, -90.0, 0.0]}),
    );
    assert!((c.state()["heading_deg"].as_f64().unwrap() - 90.0).abs() < 1e-9);
    c.ok("set_body_wrench", json!({"wrench": [40, 0, 0, 0, 0, 0]}));
    let p = v3(&c.step_n(50, json!({}))["position"]);
    assert!(
        p[0] > 2.0 && (p[1] - 17.0).abs() < 0.05,
        "body surge facing east: {p:?}"
    );
    c.sim("reset", json!({}));
    c.ok(
        "move_agent",
        json!({"id": "auv/main", "position": [0.0, -6.0, -17.0], "rotation": [0.0, -90.0, 0.0]}),
    );
    c.ok("set_force_world", json!({"force": [0, 40, 0]}));
    let p = v3(&c.step_n(50, json!({}))["position"]);
    // North is now sideways: the lateral thrusters give 8 N of the 40, and
    // it drifts a little as it yaws; a body-frame mistake would drive it
    // east on its 12 N stern pair instead.
    assert!(
        p[1] - 17.0 > 0.5 && p[0].abs() < 0.5 * (p[1] - 17.0),
        "world +y is north whatever the heading: {p:?}"
    );
    // set_force_body +y is the body's forward too.
    c.sim("reset", json!({}));
    let r = c.ok("set_force_body", json!({"force": [0, 40, 0]}));
    assert_eq!(r["data"]["frame"], "oceansim_body");
    let p = v3(&c.step_n(50, json!({}))["position"]);
    assert!(p[1] - p0[1] > 2.0, "body force +y (forward): {p:?}");
    // step with a force behaves like set_force.
    c.sim("reset", json!({}));
    // East is the north-facing torpedo's starboard: its lateral thrusters.
    let p = v3(&c.step_n(50, json!({"force": [40, 0, 0]}))["position"]);
    assert!(p[0] > 0.5, "step force +x goes east: {p:?}");
}

#[test]
fn an_external_velocity_proxy_moves_by_v_times_t() {
    let server = TestServer::paused();
    let mut c = server.client();
    c.ok("spawn_agent", json!({"agent_name": "target_01", "agent_type": "proxy_auv", "is_main_agent": false, "location": [4.0, -7.0, 6.0], "control_scheme": "external_velocity", "metadata": {"role": "moving_target"}}));
    // Godot velocity [0.2, 0, -0.1] is user [0.2, 0.1, 0].
    let r = c.ok(
        "set_agent_velocity",
        json!({"id": "target_01", "velocity": [0.2, 0.0, -0.1]}),
    );
    assert_eq!(r["data"]["frame"], "godot_world");
    c.step_n(30, json!({}));
    let agents = c.ok("get_agents", json!({}))["data"]["agents"].clone();
    let t = agents
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "target_01")
        .unwrap();
    let p = v3(&t["position"]);
    let expected = [4.0 + 0.2 * 3.0, -6.0 + 0.1 * 3.0, -7.0];
    for k in 0..3 {
        assert!((p[k] - expected[k]).abs() < 1e-9, "{p:?} vs {expected:?}");
    }
    assert_eq!(t["mode"], "external_velocity");
    assert_eq!(t["proxy_auv"], true);
    assert!((t["speed"].as_f64().unwrap() - (0.05f64).sqrt()).abs() < 1e-9);
}

#[test]
fn get_agents_returns_every_documented_field_for_every_agent() {
    let server = TestServer::start(SimConfig {
        scenario: "Dynamic_Map".into(),
        paused: true,
        ..SimConfig::default()
    });
    let mut c = server.client();
    let d = c.ok("get_agents", json!({}))["data"].clone();
    let agents = d["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 4);
    for a in agents {
        for f in oceansim_agents::RUNTIME_FIELDS {
            let present = f.split('.').try_fold(a, |cur, part| cur.get(part));
            assert!(present.is_some(), "{} lacks {f}", a["id"]);
        }
        assert!(a["pose"]["position"].is_array() && a["pose"]["rotation_rpy"].is_array());
    }
    let main = &agents[0];
    assert_eq!(main["id"], "auv/main");
    assert_eq!(main["proxy_auv"], false);
    assert!(main["pose"]["rotation_quat_xyzw"].is_array());
    assert_eq!(main["action_space"]["fields"], json!(["fx", "fy", "fz"]));
    let thr = main["available_action_spaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scheme"] == "thrusters")
        .unwrap();
    assert_eq!(thr["fields"].as_array().unwrap().len(), 6);
    assert_eq!(thr["high"], json!([1.0, 1.0, 1.0, 1.0, 1.0, 1.0]));
    // Patrolling proxies move on their own; depth limits hold.
    let before: Vec<[f64; 3]> = agents[2..].iter().map(|a| v3(&a["position"])).collect();
    c.step_n(50, json!({}));
    let after = c.ok("get_agents", json!({}))["data"]["agents"].clone();
    for (k, a) in after.as_array().unwrap()[2..].iter().enumerate() {
        assert_eq!(a["mode"], "patrol");
        let p = v3(&a["position"]);
        assert!(
            (p[0] - before[k][0]).hypot(p[1] - before[k][1]) > 0.5,
            "{} patrols",
            a["id"]
        );
        let depth = -p[2];
        let (lo, hi) = (
            a["depth_min"].as_f64().unwrap(),
            a["depth_max"].as_f64().unwrap(),
        );
        assert!(
            depth >= lo - 1e-9 && depth <= hi + 1e-9,
            "{depth} within [{lo}, {hi}]"
        );
    }
}

#[test]
fn paused_step_is_deterministic_to_the_byte() {
    // `--deterministic`: sensor wall-clock stamps are the simulated time.
    let server = TestServer::start(SimConfig {
        scenario: "Dynamic_Map".into(),
        paused: true,
        deterministic: true,
        ..SimConfig::default()
    });
    let mut c = server.client();
    let run = |c: &mut Client| -> Vec<String> {
        c.sim("reset", json!({}));
        let mut out = Vec::new();
        for i in 0..15 {
            let data = if i % 3 == 0 {
                json!({"force": [10.0, 30.0, -5.0]})
            } else {
                json!({"thrusters": [0.5, 0.4, 0.1, 0.0, -0.2, 0.3]})
            };
            c.send_raw(
                format!(
                    "{}\n",
                    json!({"type": "command", "request_id": i, "action": "step", "data": data})
                )
                .as_bytes(),
            );
            out.push(c.recv_line());
        }
        c.send_raw(b"{\"type\":\"command\",\"action\":\"get_agents\"}\n");
        out.push(c.recv_line());
        out
    };
    let a = run(&mut c);
    let b = run(&mut c);
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y);
    }
    // And a fresh server gives the same bytes too.
    let other = TestServer::start(SimConfig {
        scenario: "Dynamic_Map".into(),
        paused: true,
        deterministic: true,
        ..SimConfig::default()
    });
    let mut c2 = other.client();
    assert_eq!(run(&mut c2), a);
}

#[test]
fn time_control_pause_resume_scale_and_reset() {
    let server = TestServer::start(SimConfig {
        time_scale: 200.0,
        // The clock, not a dataset: a debug build rendering every imaging
        // sensor could not follow 200x.
        record_sensor_data: false,
        ..SimConfig::default()
    });
    let mut c = server.client();
    // Running at 200x: the clock advances by itself.
    let t0 = c.state()["sim_time"].as_f64().unwrap();
    let mut t = t0;
    for _ in 0..2000 {
        t = c.state()["sim_time"].as_f64().unwrap();
        if t > t0 + 1.0 {
            break;
        }
    }
    assert!(t > t0 + 1.0, "clock runs: {t0} -> {t}");
    let r = c.sim("pause", json!({}));
    assert_eq!(r["data"]["paused"], true);
    let a = c.state()["sim_time"].as_f64().unwrap();
    let b = c.state()["sim_time"].as_f64().unwrap();
    assert_eq!(a, b, "paused clock stands still");
    // step still advances exactly one control period while paused.
    let s = c.ok("step", json!({}));
    assert!((s["sim_time"].as_f64().unwrap() - (b + 0.1)).abs() < 1e-9);
    // Top-level sim_control parameters, as the Python client sends them.
    let r = c.request(json!({"type": "sim_control", "action": "set_time_scale", "time_scale": 5}));
    assert_eq!(r["data"]["time_scale"], 5.0);
    let r = c.sim("set_time_scale", json!({"time_scale": 0}));
    assert_eq!(r["error_code"], "invalid_message");
    let r = c.sim("reset", json!({}));
    assert_eq!(r["data"]["sim_time"], 0.0);
    assert_eq!(r["data"]["paused"], true, "reset keeps the clock paused");
    let r = c.sim("resume", json!({}));
    assert_eq!(r["data"]["paused"], false);
}

#[test]
fn waypoint_pid_drives_the_auv_and_reports_its_state() {
    let server = TestServer::paused();
    let mut c = server.client();
    // Target 4 m east and 2 m deeper: Godot world_x = 4, world_z = -17 (y = 17).
    c.ok(
        "set_waypoint",
        json!({"world_x": 4.0, "world_z": -17.0, "depth": 8.0, "control_scheme": "waypoint_pid"}),
    );
    // Sideways and down on the torpedo's 8 N lateral and 10 N vertical
    // thrusters: a minute.
    c.step_n(600, json!({}));
    let s = c.state();
    let p = v3(&s["position"]);
    let err = ((p[0] - 4.0).powi(2) + (p[1] - 17.0).powi(2) + (p[2] + 8.0).powi(2)).sqrt();
    assert!(err < 0.5, "within 0.5 m after 60 s: {p:?} ({err})");
    let main = c.ok("get_agents", json!({}))["data"]["agents"][0].clone();
    let cs = &main["controller_state"];
    assert_eq!(cs["mode"], "waypoint_pid");
    assert_eq!(cs["target"], json!([4.0, -17.0, 8.0]));
    for k in ["error", "integral", "saturation", "output"] {
        assert_eq!(cs[k].as_array().unwrap().len(), 3, "{k}");
    }
    assert_eq!(main["control_scheme"], "waypoint_pid");
    // Waypoint PID is for the main AUV only.
    c.ok(
        "spawn_agent",
        json!({"agent_name": "p", "location": [3.0, -5.0, 0.0]}),
    );
    assert_eq!(
        c.code(
            "set_waypoint",
            json!({"world_x": 0, "world_z": 0, "agent_id": "p", "control_scheme": "waypoint_pid"})
        ),
        "unsupported_control_scheme"
    );
    assert_eq!(
        c.code(
            "set_waypoint",
            json!({"world_x": 0, "world_z": 0, "agent_id": "nobody"})
        ),
        "unknown_agent"
    );
}

#[test]
fn thrusters_and_body_velocity_control() {
    let server = TestServer::paused();
    let mut c = server.client();
    // 35 m of open water ahead: start at the south edge, facing north.
    c.ok(
        "move_agent",
        json!({"id": "auv/main", "position": [0.0, -6.0, 15.0]}),
    );
    c.ok(
        "set_thrusters",
        json!({"thrusters": {"thruster_0": 1.0, "stern_starboard": 1.0}}),
    );
    let s = c.step_n(100, json!({}));
    let u = s["body_velocity"][0].as_f64().unwrap();
    assert!(u > 1.5, "two stern thrusters at full: u = {u}");
    assert_eq!(s["control"]["thruster_outputs"][0], 1.0);
    c.sim("reset", json!({}));
    c.ok(
        "move_agent",
        json!({"id": "auv/main", "position": [0.0, -6.0, 12.0]}),
    );
    c.ok(
        "set_body_velocity",
        json!({"velocity": [0.8, 0, 0, 0, 0, 0.1]}),
    );
    let s = c.step_n(60, json!({}));
    let nu = s["body_velocity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect::<Vec<_>>();
    assert!(
        (nu[0] - 0.8).abs() < 0.01 && (nu[5] - 0.1).abs() < 0.01,
        "tracks the body velocity target: {nu:?}"
    );
}

#[test]
fn obstacles_grid_and_map_info() {
    let server = TestServer::paused();
    let mut c = server.client();
    let info = c.ok("get_map_info", json!({}))["data"].clone();
    assert_eq!(info["scenario"], "Static_Map");
    assert_eq!(info["map_size_m"], json!([40.0, 40.0]));
    assert!(info["path_points"].as_array().unwrap().len() >= 4);
    let n0 = info["obstacles"].as_array().unwrap().len();
    assert_eq!(n0, 3 + 8, "3 declared + 8 procedural");
    // A wall east of the AUV at its depth, and a proxy west of it.
    c.ok("spawn_obstacle", json!({"id": "wall", "shape": "box", "position": [5.0, -6.0, -17.0], "size": [1.0, 2.0, 6.0]}));
    c.ok(
        "spawn_agent",
        json!({"agent_name": "buoy", "location": [-5.0, -6.0, -17.0], "size_m": 1.0}),
    );
    let g = c.ok(
        "get_terrain_grid",
        json!({"cell_size": 0.5, "inflation_radius": 0.0}),
    )["data"]
        .clone();
    assert_eq!(g["width"], 80);
    let class = |x: f64, y: f64| {
        let (i, j) = (((x + 20.0) / 0.5) as usize, ((y + 20.0) / 0.5) as usize);
        g["class_grid"][j][i].as_u64().unwrap()
    };
    assert_eq!(class(5.0, 17.0), 2, "static obstacle");
    assert_eq!(class(-5.0, 17.0), 3, "dynamic agent");
    assert_eq!(class(0.0, 17.0), 0, "the AUV's own cell is free");
    let no_dyn = c.ok(
        "get_terrain_grid",
        json!({"cell_size": 0.5, "include_dynamic_agents": false}),
    )["data"]
        .clone();
    assert_eq!(no_dyn["counts"]["dynamic_agent"], 0);
    let deep = c.ok(
        "get_terrain_grid",
        json!({"cell_size": 1.0, "auv_y": -30.0}),
    )["data"]
        .clone();
    assert_eq!(deep["counts"]["free"], 0, "30 m deep is all seabed");
    assert_eq!(
        c.code(
            "spawn_obstacle",
            json!({"id": "wall", "shape": "sphere", "position": [0, -5, 5], "radius": 1})
        ),
        "spawn_failed"
    );
    assert_eq!(
        c.code(
            "spawn_obstacle",
            json!({"shape": "sphere", "position": [0, -6, -17], "radius": 1})
        ),
        "blocked_pose"
    );
    c.ok("remove_obstacle", json!({"id": "wall"}));
    assert_eq!(
        c.code("remove_obstacle", json!({"id": "wall"})),
        "invalid_message"
    );
    // Godot rotation orients obstacles: an 8 m beam yawed 90° lies east-west.
    let beam = c.ok(
        "spawn_obstacle",
        json!({"id": "beam", "shape": "box", "position": [10.0, -6.0, -17.0], "size": [1.0, 1.0, 8.0], "rotation": [0.0, 90.0, 0.0]}),
    )["data"]["obstacle"]
        .clone();
    assert_eq!(beam["rotation_godot_deg"], json!([0.0, 90.0, 0.0]));
    assert_eq!(
        c.code(
            "spawn_agent",
            json!({"agent_name": "on_beam", "location": [13.0, -6.0, -17.0], "size_m": 0.3})
        ),
        "blocked_pose"
    );
    c.ok(
        "spawn_agent",
        json!({"agent_name": "beside_beam", "location": [10.0, -6.0, -14.0], "size_m": 0.3}),
    );
    c.ok("remove_agent", json!({"agent_name": "beside_beam"}));
    c.ok("remove_obstacle", json!({"id": "beam"}));
    // Seeds change procedural terrain; scenarios switch.
    let a = c.ok("generate_map", json!({"seed": 1}))["data"]["obstacles"].clone();
    let b = c.ok("generate_map", json!({"seed": 2}))["data"]["obstacles"].clone();
    assert_ne!(a, b);
    assert_eq!(
        c.ok("generate_map", json!({"seed": 1}))["data"]["obstacles"],
        a
    );
    let n = c.ok("set_scenario", json!({"scenario": "NarrowMap", "seed": 0}))["data"].clone();
    assert_eq!(n["scenario"], "NarrowMap");
    assert_eq!(c.state()["scenario"], "NarrowMap");
    assert_eq!(
        c.code("set_scenario", json!({"scenario": "Atlantis"})),
        "invalid_message"
    );
}

#[test]
fn acoustic_messages_obey_latency_range_and_drops() {
    let server = TestServer::paused();
    let mut c = server.client();
    c.ok(
        "spawn_agent",
        json!({"agent_name": "buddy", "location": [3.0, -6.0, -17.0]}),
    );
    let cfg = c.ok("configure_acoustic_comm", json!({"latency_s": 0.5, "bandwidth_bps": 1000, "range_m": 50, "packet_drop_rate": 0.0, "seed": 3}))["data"].clone();
    assert_eq!(cfg["latency_s"], 0.5);
    let r = c.ok(
        "send_acoustic_message",
        json!({"sender_id": "buddy", "receiver_id": "auv/main", "payload": {"cmd": "hello"}}),
    )["data"]
        .clone();
    assert_eq!(r["queued"], true);
    let at = r["deliver_at"].as_f64().unwrap();
    assert!(at > 0.5 && at < 1.0, "{at}");
    assert_eq!(c.state()["acoustic"]["inbox"].as_array().unwrap().len(), 0);
    c.step_n(10, json!({}));
    let inbox = c.state()["acoustic"]["inbox"].clone();
    assert_eq!(inbox[0]["payload"]["cmd"], "hello");
    assert_eq!(inbox[0]["sender_id"], "buddy");
    c.ok("configure_acoustic_comm", json!({"range_m": 1.0}));
    let r = c.ok(
        "send_acoustic_message",
        json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": "x"}),
    )["data"]
        .clone();
    assert_eq!(r["dropped_reason"], "out_of_range");
    c.ok(
        "configure_acoustic_comm",
        json!({"range_m": 50.0, "packet_drop_rate": 1.0}),
    );
    let r = c.ok(
        "send_acoustic_message",
        json!({"sender_id": "auv/main", "receiver_id": "buddy", "payload": "x"}),
    )["data"]
        .clone();
    assert_eq!(r["dropped_reason"], "packet_drop");
    assert_eq!(
        c.code(
            "send_acoustic_message",
            json!({"sender_id": "ghost", "receiver_id": "buddy", "payload": 1})
        ),
        "unknown_agent"
    );
    assert_eq!(
        c.code("configure_acoustic_comm", json!({"packet_drop_rate": 2.0})),
        "invalid_message"
    );
}

#[test]
fn exports_write_real_files_inside_the_export_root_only() {
    let server = TestServer::paused();
    let mut c = server.client();
    c.ok("set_force", json!({"force": [0, 30, 0]}));
    c.step_n(20, json!({}));
    let r = c.ok(
        "export_dataset",
        json!({"export_dir": "runs/demo", "render_image": true, "pack_dataset": true}),
    )["data"]
        .clone();
    let dir = server.export_root.path().join("runs/demo");
    for f in [
        "metadata.json",
        "trajectory.csv",
        "agent_timeline.jsonl",
        "snapshot.json",
        "trajectory.svg",
    ] {
        assert!(dir.join(f).is_file(), "{f} written: {r}");
    }
    assert!(server.export_root.path().join("runs/demo.zip").is_file());
    let csv = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 21,
        "header + a sample per step (and t = 0)"
    );
    let row: Value = serde_json::from_str(
        std::fs::read_to_string(dir.join("agent_timeline.jsonl"))
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    for k in ["state", "command", "sensor_sequences", "frame_trace"] {
        assert!(row.get(k).is_some(), "{k}");
    }
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(
        meta["dynamics"]["thruster_allocation_matrix"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
    let snap = c.ok("save_snapshot_json", json!({"path": "snaps/a"}))["data"].clone();
    let path = server.export_root.path().join("snaps/a.json");
    assert!(path.is_file(), "{snap}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(v["scenario"], "Static_Map");
    for bad in ["../out", "/tmp/x", "a/../../b"] {
        assert_eq!(
            c.code("export_dataset", json!({"export_dir": bad})),
            "invalid_message",
            "{bad}"
        );
        assert_eq!(
            c.code("save_snapshot_json", json!({"path": bad})),
            "invalid_message",
            "{bad}"
        );
    }
}

/// The simulation runs ahead of the recording's renders; an export waits
/// for every frame recorded before it to be rendered, but not holding the
/// world: another client is served meanwhile and watches the renders still
/// waiting fall; the export then holds every sample.
#[test]
fn an_export_waits_for_the_renders_while_the_world_serves_others() {
    // Seconds of both cores rendering: not beside the timing-sensitive
    // tests.
    let _host = crate::support::host();
    let server = TestServer::start(SimConfig {
        paused: true,
        record_sensor_data: true,
        ..SimConfig::default()
    });
    let (mut a, mut b) = (server.client(), server.client());
    a.step_n(300, json!({"force": [0, 20, 0], "detail": "compact"}));
    let waiting = |b: &mut Client| {
        b.state()["recording"]["renders_in_flight"]
            .as_u64()
            .unwrap()
    };
    assert!(waiting(&mut b) > 0, "the renders lag behind 300 steps");
    a.send_raw(b"{\"type\":\"command\",\"action\":\"export_dataset\",\"data\":{\"export_dir\":\"runs/lag\"}}\n");
    // Until the export answers, `b` is answered, and sees the backlog fall.
    let mut seen: Vec<u64> = Vec::new();
    let exported = std::thread::scope(|s| {
        let reply = s.spawn(move || a.recv());
        while !reply.is_finished() {
            let now = waiting(&mut b);
            if seen.last() != Some(&now) {
                seen.push(now);
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        reply.join().unwrap()
    });
    assert_eq!(exported["success"], true, "{exported}");
    let positive: Vec<u64> = seen.iter().copied().filter(|&n| n > 0).collect();
    assert!(
        positive.len() >= 3 && positive.windows(2).all(|w| w[1] < w[0]),
        "served while the export waited for renders: {seen:?}"
    );
    // 30 s of the camera at 5 Hz, every sample in the export.
    let dir = server.export_root.path().join("runs/lag");
    let pngs = walk(&dir)
        .into_iter()
        .filter(|p| {
            p.to_string_lossy().contains("camera") && p.extension().is_some_and(|e| e == "png")
        })
        .count();
    assert!(pngs >= 150, "{pngs} camera images");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
