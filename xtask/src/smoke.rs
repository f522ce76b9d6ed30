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

/// Runs every check, stopping at the first failure.
pub fn run() -> Check {
    protocol()?;
    println!("all smoke checks passed");
    Ok(())
}
