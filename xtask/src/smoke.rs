//! The release smoke checks.

use oceansim_protocol::{ErrorCode, Request, Response};
use serde_json::json;

type Check = Result<(), String>;

fn ok(name: &str, detail: impl std::fmt::Display) {
    println!("ok   {name:<28} {detail}");
}

fn protocol() -> Check {
    let line = r#"{"type":"batch","protocol_version":2,"request_id":"smoke","requests":[
        {"type":"command","action":"get_state"},
        {"type":"command","action":"set_force","data":{"force":[0,100,0]}},
        {"type":"command","action":"set_force","data":{"force":[0,100]}}]}"#
        .replace('\n', "");
    let req = Request::decode(&line).map_err(|e| e.to_string())?;
    let reply = req.respond(|r| Response::ok(r.request_id, r.action.name(), Some(0.0), json!({})));
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
    ok("protocol batch", format!("3 children answered: {codes:?}"));
    Ok(())
}

fn agents() -> Check {
    use oceansim_agents::{action_request, check_scenario_agents, list_control_schemes};
    let table = list_control_schemes();
    if table.len() != 8 {
        return Err(format!("expected 8 control schemes, got {}", table.len()));
    }
    for c in &table {
        let space = &c.action_space;
        if let Ok(req) = action_request("auv/main", space, &space.zero()) {
            let line = oceansim_protocol::Request::Single(req).to_line();
            oceansim_protocol::Request::decode(line.trim_end()).map_err(|e| e.to_string())?;
        }
    }
    let agents = json!([
        {"agent_name": "auv/main", "is_main_agent": true, "control_scheme": "force_3d"},
        {"agent_name": "target_01", "location": [4.0, -7.0, 6.0], "control_scheme": "external_velocity"}
    ]);
    check_scenario_agents(&agents).map_err(|e| e.to_string())?;
    ok(
        "agent contracts",
        "8 schemes dispatch and decode; scenario agents valid",
    );
    Ok(())
}

fn vehicles() -> Check {
    use nalgebra::Vector3;
    use oceansim_vehicles::{ThrusterBank, VehicleModel, VehicleProfile, VehicleState};
    for name in VehicleProfile::builtin_names() {
        let p = VehicleProfile::builtin(name).map_err(|e| e.to_string())?;
        ok(
            "vehicle profile",
            format!("{name}: {} kg, {} thrusters", p.mass_kg, p.thrusters.len()),
        );
    }
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
    ok(
        "surge to steady state",
        format!(
            "u = {:.4} m/s (analytic {u_star:.4}), 60 s simulated at {:.0}x real time",
            s.nu[0],
            60.0 / elapsed.max(1e-9)
        ),
    );
    Ok(())
}

/// Runs every check, stopping at the first failure.
pub fn run() -> Check {
    protocol()?;
    agents()?;
    vehicles()?;
    println!("all smoke checks passed");
    Ok(())
}
