//! Envelopes on the client's side: the request objects it builds and the
//! checks a reply passes before it is handed to the caller.

use super::options::{ConnectOptions, Reply, EXPORT_TIMEOUT};
use crate::error::{ClientError, Result};
use oceansim_protocol::DEFAULT_MAX_LINE_BYTES;
use serde::Serialize;
use serde_json::{Map, Value};
use std::time::Duration;

/// A request object a caller gave by name with untyped data (the raw
/// `send_command`/`send_sim_control`, for data the protocol's typed
/// actions do not describe, such as a hostile test's); its id and
/// version are set when it is sent.
#[derive(Serialize)]
struct Untyped<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    action: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

/// A batch of request objects.
#[derive(Serialize)]
struct Batch<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    requests: &'a [Value],
}

/// `message` as a JSON object (plain data: serialising it cannot fail).
fn value<T: Serialize>(message: &T) -> Value {
    serde_json::to_value(message).unwrap_or(Value::Null)
}

pub(super) fn command(action: &str, data: Option<Value>) -> Value {
    value(&Untyped {
        kind: "command",
        action,
        data,
    })
}

pub(super) fn sim_control(action: &str, params: Option<Value>) -> Result<Value> {
    let data = match params {
        Some(Value::Object(p)) => Some(Value::Object(p)),
        Some(other) => {
            return Err(ClientError::InvalidArgument(format!(
                "sim_control parameters must be an object, got {other}"
            )))
        }
        None => None,
    };
    Ok(value(&Untyped {
        kind: "sim_control",
        action,
        data,
    }))
}

/// The batch of `requests`.
pub(super) fn batch(requests: &[Value]) -> Value {
    value(&Batch {
        kind: "batch",
        requests,
    })
}

/// The responses of a batch reply's `data`, one per child in order, each
/// answering its child's request id.
pub(super) fn check_batch<'a>(children: &[Value], data: &'a Value) -> Result<&'a [Value]> {
    let responses = data
        .get("responses")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ClientError::protocol(
                "empty_reply",
                "the batch reply has no `responses`",
                "batch",
                Some(data.clone()),
            )
        })?;
    if responses.len() != children.len() {
        return Err(ClientError::protocol(
            "mismatched_reply",
            format!(
                "{} requests but {} responses",
                children.len(),
                responses.len()
            ),
            "batch",
            Some(data.clone()),
        ));
    }
    for (child, resp) in children.iter().zip(responses) {
        let sent = child.get("request_id");
        if resp.get("request_id") != sent {
            return Err(ClientError::protocol(
                "mismatched_reply",
                format!(
                    "a batch response has request id {:?}, expected {sent:?}",
                    resp.get("request_id")
                ),
                "batch",
                Some(resp.clone()),
            ));
        }
    }
    Ok(responses)
}

pub(super) fn check_options(options: &ConnectOptions) -> Result<()> {
    if options.timeout > Duration::ZERO {
        Ok(())
    } else {
        Err(ClientError::InvalidArgument(
            "the request timeout must be positive".into(),
        ))
    }
}

/// A request's wire line, newline-terminated.
pub(super) fn line_of(msg: &Value) -> Result<String> {
    let mut line = msg.to_string();
    line.push('\n');
    check_length(line)
}

/// Refuses a line the server would drop with an error it cannot address
/// to a request id, with the reason.
pub(super) fn check_length(line: String) -> Result<String> {
    if line.len() > DEFAULT_MAX_LINE_BYTES + 1 {
        return Err(ClientError::InvalidArgument(format!(
            "the request is {} bytes, over the protocol's {DEFAULT_MAX_LINE_BYTES}-byte line limit",
            line.len() - 1
        )));
    }
    Ok(line)
}

pub(super) fn parse_reply(line: &str, action: &str) -> Result<Value> {
    serde_json::from_str(line).map_err(|e| {
        ClientError::protocol(
            "empty_reply",
            format!("the reply is not JSON: {e}"),
            action,
            None,
        )
    })
}

pub(super) fn request_action(obj: &Map<String, Value>) -> String {
    match obj.get("type").and_then(Value::as_str) {
        Some("batch") => "batch".to_owned(),
        _ => obj
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    }
}

pub(super) fn writes_files(action: &str) -> bool {
    matches!(action, "export_dataset" | "save_snapshot_json")
}

pub(super) fn default_timeout(action: &str, obj: &Map<String, Value>, base: Duration) -> Duration {
    let slow = writes_files(action)
        || obj
            .get("requests")
            .and_then(Value::as_array)
            .is_some_and(|rs| {
                rs.iter()
                    .any(|r| writes_files(r.get("action").and_then(Value::as_str).unwrap_or("")))
            });
    if slow {
        base.max(EXPORT_TIMEOUT)
    } else {
        base
    }
}

/// A full state (not a compact one, not `get_sensors`): what
/// [`OceanSimClient::get_latest_state`] keeps.
pub(super) fn is_full_state(data: &Value) -> bool {
    data.get("position").is_some() && data.get("orientation").is_some()
}

pub(super) fn is_ok(reply: &Value) -> bool {
    reply.get("status").and_then(Value::as_str) == Some("ok")
}

pub(super) fn check_reply(reply: Value, action: &str) -> Result<Reply> {
    let Some(obj) = reply.as_object() else {
        return Err(ClientError::protocol(
            "empty_reply",
            "the reply is not a JSON object",
            action,
            Some(reply),
        ));
    };
    if obj.is_empty() || !obj.contains_key("status") {
        return Err(ClientError::protocol(
            "empty_reply",
            "the reply has no `status`",
            action,
            Some(reply),
        ));
    }
    if !is_ok(&reply) {
        let code = obj
            .get("error_code")
            .and_then(Value::as_str)
            .unwrap_or("unknown_error")
            .to_owned();
        let message = obj
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("the simulator reported an error without a message")
            .to_owned();
        return Err(ClientError::Protocol {
            code,
            message,
            action: action.to_owned(),
            reply: Some(reply),
        });
    }
    let answered = obj.get("action").and_then(Value::as_str).unwrap_or("");
    if answered != action {
        return Err(ClientError::protocol(
            "mismatched_reply",
            format!("asked `{action}`, the reply answers `{answered}`"),
            action,
            Some(reply),
        ));
    }
    Ok(Reply(reply))
}
