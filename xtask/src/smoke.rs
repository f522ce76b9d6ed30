//! The release smoke checks.

use oceansim_protocol::{Data, ErrorCode, Reply, Request, ResponseType};
use serde_json::json;

/// A check's one-line result: what it saw, or why it failed.
type Check = Result<String, String>;

/// A named check.
type Named = (&'static str, fn() -> Check);

fn protocol() -> Check {
    let line = r#"{"type":"batch","protocol_version":2,"request_id":"smoke","requests":[
        {"type":"command","action":"get_state"},
        {"type":"command","action":"set_force","data":{"force":[0,100,0]}},
        {"type":"command","action":"set_force","data":{"force":[0,100]}}]}"#
        .replace('\n', "");
    let req = Request::decode(&line).map_err(|e| e.to_string())?;
    let reply = req.respond(|r| {
        // Documented json! case: an empty reply of any shape, for the codec check.
        let data = Data::typed(json!({}));
        Reply::ok(
            ResponseType::Response,
            r.request_id,
            r.action.name(),
            Some(0.0),
            data,
        )
    });
    let v = reply.to_value();
    let codes: Vec<_> = v["data"]["responses"]
        .as_array()
        .ok_or("batch reply has no responses")?
        .iter()
        .map(|r| r["error_code"].as_str().unwrap_or("-").to_owned())
        .collect();
    if codes != ["-", "-", ErrorCode::InvalidActionShape.as_str()] {
        return Err(format!("unexpected batch answers {codes:?}"));
    }
    Ok(format!("3 children answered: {codes:?}"))
}

fn agents() -> Check {
    use oceansim_agents::{action_request, check_scenario_agents, list_control_schemes};
    let table = list_control_schemes();
    if table.len() != 9 {
        return Err(format!("expected 9 control schemes, got {}", table.len()));
    }
    for c in &table {
        let space = &c.action_space;
        if let Ok(req) = action_request("auv/main", space, &space.zero()) {
            let line = oceansim_protocol::Request::Single(req).to_line();
            oceansim_protocol::Request::decode(line.trim_end()).map_err(|e| e.to_string())?;
        }
    }
    // Documented json! case: agent definitions as a user writes them.
    let agents = json!([
        {"agent_name": "auv/main", "is_main_agent": true, "control_scheme": "force_3d"},
        {"agent_name": "target_01", "location": [4.0, -7.0, 6.0], "control_scheme": "external_velocity"}
    ]);
    check_scenario_agents(&agents).map_err(|e| e.to_string())?;
    Ok("9 schemes dispatch and decode; scenario agents valid".into())
}

fn vehicles() -> Check {
    use oceansim_vehicles::VehicleProfile;
    let mut profiles = Vec::new();
    for name in VehicleProfile::builtin_names() {
        let p = VehicleProfile::builtin(name).map_err(|e| e.to_string())?;
        profiles.push(format!(
            "{name} {} kg, {} thrusters",
            p.mass_kg,
            p.thrusters.len()
        ));
    }
    Ok(profiles.join("; "))
}

fn surge() -> Check {
    use nalgebra::Vector3;
    use oceansim_vehicles::{ThrusterBank, VehicleModel, VehicleProfile, VehicleState};
    let p = VehicleProfile::default_profile();
    let w = p.weight();
    let model = VehicleModel::from_profile(&p).with_restoring(w, w);
    let mut bank = ThrusterBank::from_profile(&p);
    bank.set_commands(&[1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
        .map_err(|e| e.to_string())?;
    let mut s = VehicleState::default();
    let started = std::time::Instant::now();
    let steps = 6_000;
    for _ in 0..steps {
        let tau = bank.step(0.01);
        s = model.rk4_step(&s, &tau, &Vector3::zeros(), 0.01);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let (d1, d2) = (p.linear_damping[0], p.quadratic_damping[0]);
    let x = 12.0;
    let u_star = (-d1 + (d1 * d1 + 4.0 * d2 * x).sqrt()) / (2.0 * d2);
    let rel = (s.nu[0] - u_star).abs() / u_star;
    if rel > 1e-3 {
        return Err(format!("surge {} m/s vs analytic {u_star} m/s", s.nu[0]));
    }
    Ok(format!(
        "u = {:.4} m/s (analytic {u_star:.4}), 60 s simulated at {:.0}x real time",
        s.nu[0],
        60.0 / elapsed.max(1e-9)
    ))
}

fn server() -> Check {
    use std::io::{BufRead, BufReader, Write};
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    // The simulation is single-threaded: build and serve it on one thread.
    let handle = std::thread::spawn(move || -> Result<(), String> {
        let sim = oceansim_sim::Simulation::new(oceansim_sim::SimConfig {
            paused: true,
            export_root: std::env::temp_dir().join("oceansim-smoke-exports"),
            ..oceansim_sim::SimConfig::default()
        })
        .map_err(|e| e.to_string())?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let _ = addr_tx.send(listener.local_addr().map_err(|e| e.to_string())?);
        let shutdown = async move {
            while stop_rx.try_recv().is_err() {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        };
        oceansim_server::run_blocking(
            listener,
            sim,
            oceansim_server::ServerConfig::default(),
            shutdown,
        )
        .map_err(|e| e.to_string())
    });
    let addr = addr_rx.recv().map_err(|_| "the server did not start")?;
    let stream = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    let mut w = stream.try_clone().map_err(|e| e.to_string())?;
    let mut r = BufReader::new(stream);
    let mut last = serde_json::Value::Null;
    for i in 0..20 {
        // Documented json! case: the wire line a user's script writes.
        let line = json!({"type": "command", "request_id": i, "action": "step", "data": {"force": [0, 40, 0]}}).to_string() + "\n";
        w.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
        let mut reply = String::new();
        r.read_line(&mut reply).map_err(|e| e.to_string())?;
        last = serde_json::from_str(&reply).map_err(|e| e.to_string())?;
    }
    let _ = stop_tx.send(());
    handle.join().map_err(|_| "server thread panicked")??;
    let t = last["sim_time"].as_f64().unwrap_or(0.0);
    let y = last["data"]["position"][1].as_f64().unwrap_or(0.0);
    if (t - 2.0).abs() > 1e-9 || y <= 17.0 {
        return Err(format!("server round trip: t = {t}, y = {y}"));
    }
    let sensors = last["data"]["sensors"].as_object().map_or(0, |m| m.len());
    Ok(format!(
        "20 steps over TCP: t = {t} s, north {:.2} m, {sensors} sensors",
        y - 17.0
    ))
}

/// Runs every check and prints a pass/fail table; fails if any failed.
pub fn run() -> Result<(), String> {
    let checks: [Named; 6] = [
        ("protocol batch", protocol),
        ("agent contracts", agents),
        ("vehicle profiles", vehicles),
        ("surge to steady state", surge),
        ("server step round trip", server),
        ("agent runtime (client)", crate::runtime::agent_runtime),
    ];
    println!("{:<6} {:<24} detail", "result", "check");
    println!("{}", "-".repeat(100));
    let mut failed = Vec::new();
    for (name, check) in checks {
        match check() {
            Ok(detail) => println!("{:<6} {name:<24} {detail}", "pass"),
            Err(e) => {
                println!("{:<6} {name:<24} {e}", "FAIL");
                failed.push(name);
            }
        }
    }
    if failed.is_empty() {
        println!("all {} smoke checks passed", checks.len());
        Ok(())
    } else {
        Err(format!(
            "{} of {} failed: {}",
            failed.len(),
            checks.len(),
            failed.join(", ")
        ))
    }
}
