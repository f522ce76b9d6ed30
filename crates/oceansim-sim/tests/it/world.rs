//! The simulation as one world: the schedule, entities that come and go,
//! dynamic vehicles beside the main AUV, commands as data, determinism.

use crate::common;

use common::*;
use oceansim_sim::{SCHEDULE, TICK};
use serde_json::json;

#[test]
fn the_tick_is_one_schedule_in_the_declared_order() {
    let mut s = sim("Static_Map");
    let mut order = s.schedule();
    assert_eq!(order.pop().as_deref(), Some("integrate"));
    assert_eq!(order, SCHEDULE);
    let declared: Vec<&str> = TICK.iter().map(|t| t.name).collect();
    assert_eq!(declared, SCHEDULE, "SCHEDULE is TICK's names");
    // describe() prints the same order, each system with what it does,
    // and the dataflow from a command to the integrator.
    let d = s.describe();
    let listed: Vec<&str> = tick_lines(&d)
        .iter()
        .take(SCHEDULE.len())
        .map(|l| l.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(listed, SCHEDULE, "{d}");
    for (line, stage) in tick_lines(&d).iter().zip(TICK) {
        assert!(line.ends_with(&format!(": {}", stage.does)), "{line}");
    }
    for flow in [
        "command_in       written by [apply_commands, idle_faulted]",
        "command          written by [apply_commands]; read by [vehicle_control, fossen_dynamics]",
        "tau_control      written by [vehicle_control]; read by [fossen_dynamics]",
        "actuators        written by [fossen_dynamics]",
        "tau              written by [fossen_dynamics]",
        "clock            written by [advance_clock]",
    ] {
        assert!(d.contains(flow), "missing `{flow}` in\n{d}");
    }
    assert!(s.world().check().is_empty(), "{:?}", s.world().check());
}

/// The schedule's lines of `describe()`.
fn tick_lines(described: &str) -> Vec<&str> {
    described
        .lines()
        .skip_while(|l| !l.starts_with("Systems (schedule order):"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect()
}

#[test]
fn the_docs_show_the_tick_as_describe_prints_it() {
    // docs/architecture.md's table of the tick is describe()'s schedule,
    // written by OCEANSIM_DOCS_RECORD=1 (cargo test -p oceansim-sim --test
    // it -- the_docs_show) and compared here, so it cannot drift.
    let mut s = sim("Static_Map");
    let _ = s.schedule();
    let described = s.describe();
    let table = tick_lines(&described).join("\n");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/architecture.md");
    let doc = std::fs::read_to_string(&path).expect("docs/architecture.md");
    let (begin, end) = (
        "<!-- tick: begin -->\n```text\n",
        "\n```\n<!-- tick: end -->",
    );
    let (Some(a), Some(b)) = (doc.find(begin), doc.find(end)) else {
        panic!("docs/architecture.md has no tick table between `{begin}` and `{end}`");
    };
    let shown = &doc[a + begin.len()..b];
    if std::env::var_os("OCEANSIM_DOCS_RECORD").is_some() && shown != table {
        let written = format!("{}{table}{}", &doc[..a + begin.len()], &doc[b..]);
        std::fs::write(&path, written).expect("docs/architecture.md written");
        return;
    }
    assert_eq!(
        shown, table,
        "docs/architecture.md's tick table; rewrite it with OCEANSIM_DOCS_RECORD=1"
    );
}

#[test]
fn agents_are_entities_with_ids_that_are_never_reused() {
    let mut s = sim("Static_Map");
    assert_eq!(s.main_entity().id(), 0, "the main AUV is the first entity");
    let a = ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "a", "location": [3.0, -5.0, 0.0]}),
    );
    let b = ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "b", "location": [-3.0, -5.0, 0.0]}),
    );
    assert_eq!(
        (a["kind"].as_str(), b["kind"].as_str()),
        (Some("proxy"), Some("proxy"))
    );
    let (ea, eb) = (a["entity"].as_u64().unwrap(), b["entity"].as_u64().unwrap());
    assert!(eb > ea);
    ok(&mut s, "remove_agent", json!({"id": "a"}));
    let c = ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "a", "location": [3.0, -5.0, 0.0]}),
    );
    let ec = c["entity"].as_u64().unwrap();
    assert!(ec > eb, "a new entity, not the removed one's id: {ec}");
    assert_eq!(
        s.entity_of("b").unwrap().id(),
        eb,
        "b kept its id when a's row went"
    );
    assert_eq!(s.world().len(), 3);
    ok(&mut s, "clear_agents", json!({}));
    assert_eq!(s.world().len(), 1);
    assert_eq!(agent(&mut s, "auv/main")["id"], "auv/main");
}

#[test]
fn a_spawned_vehicle_is_driven_by_its_own_body_wrench() {
    let mut s = sim("Static_Map");
    // A BlueROV2 Heavy 8 m east of the main AUV, both 6 m deep, facing north.
    let r = ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "rov", "agent_type": "rov", "profile": "bluerov2_heavy", "location": [8.0, -6.0, -10.0]}),
    );
    assert_eq!(r["kind"], "vehicle");
    let rec = agent(&mut s, "rov");
    assert_eq!(rec["profile"], "bluerov2_heavy");
    assert_eq!(rec["proxy_auv"], false);
    assert_eq!(rec["mode"], "dynamics");
    assert_eq!(
        rec["available_action_spaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["scheme"] == "thrusters")
            .unwrap()["fields"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
    let main0 = v3(&agent(&mut s, "auv/main")["position"]);
    let rov0 = v3(&rec["position"]);
    // Surge for the ROV only.
    let ack = ok(
        &mut s,
        "set_body_wrench",
        json!({"wrench": [40, 0, 0, 0, 0, 0], "agent_id": "rov"}),
    );
    assert_eq!(ack["agent_id"], "rov");
    assert_eq!(ack["frame"], "fossen_body");
    steps(&mut s, 30, json!({}));
    let rov = agent(&mut s, "rov");
    let p = v3(&rov["position"]);
    assert!(
        p[1] - rov0[1] > 1.0,
        "the ROV surged north: {rov0:?} -> {p:?}"
    );
    assert!((p[0] - rov0[0]).abs() < 0.05);
    assert_eq!(rov["last_command"]["action"], "set_body_wrench");
    // The main AUV was not commanded and barely moved (buoyancy only).
    let m = v3(&agent(&mut s, "auv/main")["position"]);
    assert!((m[1] - main0[1]).abs() < 0.05, "{main0:?} -> {m:?}");
    // A proxy cannot take a wrench; an unknown agent is unknown.
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "p", "location": [-8.0, -6.0, -10.0]}),
    );
    assert_eq!(
        code(
            &mut s,
            "set_body_wrench",
            json!({"wrench": [1, 0, 0, 0, 0, 0], "agent_id": "p"})
        ),
        "unsupported_control_scheme"
    );
    assert_eq!(
        code(
            &mut s,
            "set_force",
            json!({"force": [1, 0, 0], "agent_id": "ghost"})
        ),
        "unknown_agent"
    );
    // Each vehicle keeps its own model: different masses, different responses.
    assert_eq!(
        code(
            &mut s,
            "spawn_agent",
            json!({"agent_name": "x", "profile": "submarine", "agent_type": "auv", "location": [0.0, -6.0, 5.0]})
        ),
        "spawn_failed"
    );
}

#[test]
fn commands_are_written_now_and_applied_at_the_next_tick() {
    let mut s = sim("Static_Map");
    // 10 N ahead: within what the two stern thrusters give (12 N).
    ok(&mut s, "set_force", json!({"force": [0, 10, 0]}));
    let st = ok(&mut s, "get_state", json!({}));
    assert_eq!(
        st["control"]["body_wrench"][0], 0.0,
        "not applied before a tick"
    );
    assert_eq!(st["control"]["last_command"]["action"], "set_force");
    s.tick(1);
    let st = ok(&mut s, "get_state", json!({}));
    assert!((st["control"]["body_wrench"][0].as_f64().unwrap() - 10.0).abs() < 1e-9);
}

#[test]
fn chunked_ticking_is_bit_identical_to_tick_by_tick() {
    let run = |chunk: u64| {
        let mut s = sim("Dynamic_Map");
        ok(&mut s, "set_force", json!({"force": [10.0, 40.0, 30.0]}));
        // 30 s: the AUV rises to the surface, so contacts are exercised.
        for _ in 0..(3000 / chunk) {
            s.tick(chunk);
        }
        ok(&mut s, "get_agents", json!({})).to_string()
            + &ok(&mut s, "get_state", json!({})).to_string()
    };
    let (a, b) = (run(10), run(1));
    assert!(a.contains("\"surface\""), "the run reached the surface");
    assert_eq!(a, b);
}

#[test]
fn sensors_sample_at_their_own_rates_whether_or_not_anyone_asks() {
    let mut s = sim("Static_Map");
    s.tick(300);
    let seq = |s: &oceansim_sim::Simulation, name: &str| {
        s.sensor_samples("auv/main", name)
            .last()
            .map(|x| x.sequence)
    };
    assert_eq!(seq(&s, "imu"), Some(300), "100 Hz for 3 s");
    assert_eq!(seq(&s, "depth"), Some(60), "20 Hz");
    assert_eq!(seq(&s, "lidar_2d"), Some(30), "10 Hz");
    assert_eq!(seq(&s, "lidar_3d"), Some(15), "5 Hz");
    // Cameras and sonars render only on demand: nobody asked, so they
    // have no samples at all.
    for name in [
        "camera",
        "rgbd_dense_cloud",
        "imaging_sonar",
        "multibeam_sonar",
        "side_scan_sonar",
    ] {
        assert_eq!(seq(&s, name), None, "{name}");
    }
    let imu = s.sensor_samples("auv/main", "imu");
    assert_eq!(imu.len(), oceansim_sim::SENSOR_BUFFER, "a short buffer");
    assert!((imu.last().unwrap().time - 3.0).abs() < 1e-12);
    let st = ok(&mut s, "get_state", json!({}));
    assert_eq!(st["sensors"]["imu"]["sequence"], 300);
}

#[test]
fn asking_for_an_imaging_sensor_renders_it_at_its_rate_for_one_period() {
    let mut s = sim("Static_Map");
    s.tick(100);
    let seq = |s: &oceansim_sim::Simulation, name: &str| {
        s.sensor_samples("auv/main", name)
            .last()
            .map(|x| (x.sequence, x.time))
    };
    assert_eq!(seq(&s, "camera"), None);
    // State replies do not count as asking: they show a stub envelope.
    let st = ok(&mut s, "get_state", json!({}));
    assert_eq!(st["sensors"]["camera"]["status"], "on_demand");
    assert!(st["sensors"]["camera"].get("rgb_png_base64").is_none());
    assert!(st.to_string().len() < 16_000, "no images in the state");
    s.tick(100);
    assert_eq!(seq(&s, "camera"), None);
    // get_sensors naming it takes a sample now...
    let r = ok(&mut s, "get_sensors", json!({"sensors": ["camera"]}));
    assert_eq!(r["sensors"]["camera"]["sequence"], 0);
    assert_eq!(r["sensors"]["camera"]["status"], "ok");
    assert!((r["sensors"]["camera"]["sim_time"].as_f64().unwrap() - 2.0).abs() < 1e-9);
    assert_eq!(seq(&s, "imaging_sonar"), None, "not asked for: idle");
    // ...and at 5 Hz for the next period (one more sample at 2.2 s), then
    // stops.
    s.tick(100);
    assert_eq!(seq(&s, "camera").map(|x| x.0), Some(1));
    assert!((seq(&s, "camera").unwrap().1 - 2.2).abs() < 1e-9);
    // Asked again within a period of its last sample: that sample, not a
    // new one. A client polling every tick pays for 5 frames a second.
    let mut frames = std::collections::BTreeSet::new();
    for _ in 0..100 {
        let r = ok(&mut s, "get_sensors", json!({"sensors": ["camera"]}));
        frames.insert(r["sensors"]["camera"]["sequence"].as_u64().unwrap());
        s.tick(1);
    }
    assert_eq!(frames.len(), 5, "{frames:?}");
    // The state reply shows the latest frame taken (the loop's last tick
    // was still within the period its last request opened).
    let st = ok(&mut s, "get_state", json!({}));
    assert_eq!(
        st["sensors"]["camera"]["sequence"].as_u64(),
        seq(&s, "camera").map(|x| x.0)
    );
    assert!(seq(&s, "camera").unwrap().0 >= *frames.last().unwrap());
}

#[test]
fn compact_replies_carry_only_sensors_that_changed() {
    let mut s = sim("Static_Map");
    let first = ok(&mut s, "get_state", json!({"detail": "compact"}));
    assert_eq!(first["sensors"].as_object().unwrap().len(), 10, "all new");
    for k in [
        "position",
        "velocity",
        "depth",
        "speed",
        "heading_deg",
        "quaternion_xyzw",
        "body_velocity",
    ] {
        assert!(first.get(k).is_some(), "{k}");
    }
    let again = ok(&mut s, "get_state", json!({"detail": "compact"}));
    assert!(
        again["sensors"].as_object().unwrap().is_empty(),
        "nothing changed: {again}"
    );
    // One step of 0.1 s: the IMU (100 Hz), depth (20 Hz), DVL and lidar
    // (10 Hz) sampled; the 5 Hz sensors did not.
    let step = ok(&mut s, "step", json!({"detail": "compact"}));
    let mut names: Vec<&str> = step["sensors"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort();
    assert_eq!(names, ["depth", "dvl", "imu", "lidar_2d"]);
    // The default reply is unchanged by compact requests.
    let full = ok(&mut s, "get_state", json!({}));
    assert_eq!(full["sensors"].as_object().unwrap().len(), 10);
}

#[test]
fn timestamp_wall_is_the_wall_clock_unless_the_run_is_deterministic() {
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    let wall = |deterministic: bool| {
        let mut s = oceansim_sim::Simulation::new(oceansim_sim::SimConfig {
            scenario: "Static_Map".into(),
            paused: true,
            deterministic,
            export_root: std::env::temp_dir().join("oceansim-sim-tests"),
            ..oceansim_sim::SimConfig::default()
        })
        .unwrap();
        let before = now();
        s.tick(50);
        let imu = ok(&mut s, "get_state", json!({}))["sensors"]["imu"].clone();
        let (sim_t, wall_t) = (
            imu["timestamp_sim"].as_f64().unwrap(),
            imu["timestamp_wall"].as_f64().unwrap(),
        );
        (sim_t, wall_t, before, now())
    };
    let (sim_t, wall_t, before, after) = wall(false);
    assert!((sim_t - 0.5).abs() < 1e-9);
    assert!(
        wall_t >= before - 1e-3 && wall_t <= after + 1e-3,
        "{before} <= {wall_t} <= {after}"
    );
    let (sim_t, wall_t, ..) = wall(true);
    assert_eq!(wall_t, sim_t);
}
