//! Request and response envelopes, request decoding and the batch rules.

use crate::action::{Action, ActionName};
use crate::error::{ErrorCode, ProtocolError};
use crate::ids::{peek_ids, RawIds};
pub use crate::ids::{NumberLiteral, RequestId};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// The protocol version this crate speaks; every response carries it.
pub const PROTOCOL_VERSION: u64 = 2;
/// Most children one batch may hold; one more is a `batch_limit` error.
pub const MAX_BATCH_REQUESTS: usize = 64;

/// The `type` of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestType {
    /// An action on the world.
    Command,
    /// Global clock control: `reset`, `pause`, `resume`, `set_time_scale`.
    SimControl,
    /// Up to [`MAX_BATCH_REQUESTS`] commands or sim-controls in one line.
    Batch,
}

impl RequestType {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            RequestType::Command => "command",
            RequestType::SimControl => "sim_control",
            RequestType::Batch => "batch",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "command" => Some(RequestType::Command),
            "sim_control" => Some(RequestType::SimControl),
            "batch" => Some(RequestType::Batch),
            _ => None,
        }
    }
}

/// A single `command` or `sim_control` request. Its type follows from the
/// action (each action belongs to exactly one type).
#[derive(Debug, Clone, PartialEq)]
pub struct SingleRequest {
    /// Correlation id, echoed in the response.
    pub request_id: Option<RequestId>,
    /// The action and its payload.
    pub action: Action,
}

impl SingleRequest {
    /// A request without an id.
    pub fn new(action: Action) -> Self {
        SingleRequest {
            request_id: None,
            action,
        }
    }

    /// Sets the correlation id.
    pub fn with_id(mut self, id: impl Into<RequestId>) -> Self {
        self.request_id = Some(id.into());
        self
    }

    /// The request as a JSON object.
    pub fn to_value(&self) -> Value {
        let mut m = Map::with_capacity(5);
        m.insert("type".into(), self.action.request_type().as_str().into());
        m.insert("protocol_version".into(), PROTOCOL_VERSION.into());
        if let Some(id) = &self.request_id {
            m.insert("request_id".into(), id_value(id));
        }
        m.insert("action".into(), self.action.name().as_str().into());
        m.insert("data".into(), self.action.data());
        Value::Object(m)
    }
}

/// One child of a batch: decoded, or rejected with the error it will be
/// answered with (other children still run).
#[derive(Debug, Clone, PartialEq)]
pub enum BatchChild {
    /// A valid child.
    Valid(SingleRequest),
    /// An invalid child, with the JSON it arrived as.
    Invalid {
        /// The child as received.
        raw: Value,
        /// Why it was rejected.
        rejection: Rejected,
    },
}

/// A `batch` request.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRequest {
    /// Correlation id of the whole batch.
    pub request_id: Option<RequestId>,
    /// Children, answered in order.
    pub requests: Vec<BatchChild>,
}

/// A decoded request line.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// A `command` or `sim_control` request.
    Single(SingleRequest),
    /// A `batch` of them.
    Batch(BatchRequest),
}

/// A request that could not be decoded, with whatever correlation data could
/// be read so the error reply can still be matched by the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// Why.
    pub error: ProtocolError,
    /// The `request_id`, if it was readable.
    pub request_id: Option<RequestId>,
    /// The `action`, as sent, if it was a string.
    pub action: Option<String>,
}

impl Rejected {
    fn bare(error: ProtocolError) -> Self {
        Rejected {
            error,
            request_id: None,
            action: None,
        }
    }

    /// The error reply answering this rejection.
    pub fn to_reply(&self, sim_time: Option<f64>) -> Reply {
        Reply::error(
            self.request_id.clone(),
            self.action.clone().map(std::borrow::Cow::Owned),
            sim_time,
            &self.error,
        )
    }

    /// The error envelope answering this rejection.
    pub fn to_response(&self, sim_time: Option<f64>) -> Response {
        Response::error(
            self.request_id.clone(),
            self.action.clone(),
            sim_time,
            &self.error,
        )
    }
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.error.code(), self.error)
    }
}

impl std::error::Error for Rejected {}

/// The id as a JSON value; a literal becomes the nearest binary64 (a
/// `Value` cannot hold its text), or a string if it has none (1e400).
fn id_value(id: &RequestId) -> Value {
    match id {
        RequestId::Number(n) => Value::Number(n.clone()),
        RequestId::String(s) => Value::String(s.clone()),
        RequestId::Literal(l) => serde_json::from_str(l.as_str())
            .unwrap_or_else(|_| Value::String(l.as_str().to_owned())),
    }
}

/// Envelope keys that are not payload parameters.
const ENVELOPE_KEYS: [&str; 5] = ["type", "protocol_version", "request_id", "action", "data"];

impl Request {
    /// Decodes one request line (without its newline).
    ///
    /// Never panics: every malformed input becomes a [`Rejected`] carrying
    /// the protocol error to answer with.
    pub fn decode(line: &str) -> Result<Request, Rejected> {
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return Self::decode_after_error(line, e),
        };
        let mut decoded = Request::from_value(value);
        if needs_exact_ids(&decoded) {
            if let Some(ids) = peek_ids(line) {
                restore_ids(&mut decoded, ids, false);
            }
        }
        decoded
    }

    /// A line that did not parse: if only its ids were beyond a binary64
    /// (1e400), decode it with them set aside; otherwise reject it, with
    /// its id if that can be read.
    fn decode_after_error(line: &str, e: serde_json::Error) -> Result<Request, Rejected> {
        let ids = peek_ids(line);
        let retry = ids.as_ref().and_then(|ids| ids.neutralised(line));
        if let (Some(ids), Some(Ok(value))) =
            (ids, retry.map(|l| serde_json::from_str::<Value>(&l)))
        {
            let mut decoded = Request::from_value(value);
            restore_ids(&mut decoded, ids, true);
            return decoded;
        }
        let mut rej = Rejected::bare(ProtocolError::invalid(format!("not valid JSON: {e}")));
        rej.request_id = peek_ids(line).and_then(|ids| ids.top);
        Err(rej)
    }

    /// Decodes a request from parsed JSON.
    pub fn from_value(value: Value) -> Result<Request, Rejected> {
        let Value::Object(mut map) = value else {
            return Err(Rejected::bare(ProtocolError::invalid(
                "a request must be a JSON object",
            )));
        };
        let mut rej = Rejected::bare(ProtocolError::invalid(""));
        let request_id = take_request_id(&mut map).map_err(|e| Rejected {
            error: e,
            ..rej.clone()
        })?;
        rej.request_id = request_id.clone();
        if let Some(Value::String(a)) = map.get("action") {
            rej.action = Some(a.clone());
        }
        let fail = |e: ProtocolError| Rejected {
            error: e,
            ..rej.clone()
        };
        check_version(&map).map_err(fail)?;
        let kind = match map.get("type") {
            None => return Err(fail(ProtocolError::invalid("missing field `type`"))),
            Some(Value::String(t)) => match RequestType::parse(t) {
                Some(k) => k,
                None => return Err(fail(ProtocolError::UnknownType { found: t.clone() })),
            },
            Some(other) => {
                return Err(fail(ProtocolError::invalid(format!(
                    "`type` must be a string, got {other}"
                ))))
            }
        };
        if kind == RequestType::Batch {
            let requests = decode_batch_children(&mut map).map_err(fail)?;
            return Ok(Request::Batch(BatchRequest {
                request_id,
                requests,
            }));
        }
        decode_single(kind, map, request_id)
            .map(Request::Single)
            .map_err(fail)
    }

    /// The request as a JSON object (the inverse of [`Request::from_value`]).
    pub fn to_value(&self) -> Value {
        match self {
            Request::Single(r) => r.to_value(),
            Request::Batch(b) => {
                let mut m = Map::with_capacity(4);
                m.insert("type".into(), "batch".into());
                m.insert("protocol_version".into(), PROTOCOL_VERSION.into());
                if let Some(id) = &b.request_id {
                    m.insert("request_id".into(), id_value(id));
                }
                let children = b
                    .requests
                    .iter()
                    .map(|c| match c {
                        BatchChild::Valid(r) => r.to_value(),
                        BatchChild::Invalid { raw, .. } => raw.clone(),
                    })
                    .collect();
                m.insert("requests".into(), Value::Array(children));
                Value::Object(m)
            }
        }
    }

    /// The request as one wire line, newline included.
    pub fn to_line(&self) -> String {
        let mut s = self.to_value().to_string();
        s.push('\n');
        s
    }

    /// The correlation id of the request (the batch's own, for a batch).
    pub fn request_id(&self) -> Option<&RequestId> {
        match self {
            Request::Single(r) => r.request_id.as_ref(),
            Request::Batch(b) => b.request_id.as_ref(),
        }
    }

    /// Answers the request: a single request is passed to `handle`; a batch
    /// passes each valid child to `handle` in order, answers invalid children
    /// with their error (at the latest `sim_time` seen), and answers with
    /// its children as `data.responses`, with `data.count`. A failing child
    /// never stops the others. The reply is written by [`Reply::write_json`].
    pub fn respond(self, mut handle: impl FnMut(SingleRequest) -> Reply) -> Reply {
        match self {
            Request::Single(r) => handle(r),
            Request::Batch(b) => {
                let mut sim_time = None;
                let children = b
                    .requests
                    .into_iter()
                    .map(|c| {
                        let r = match c {
                            BatchChild::Valid(r) => handle(r),
                            BatchChild::Invalid { rejection, .. } => rejection.to_reply(sim_time),
                        };
                        sim_time = r.sim_time.or(sim_time);
                        r
                    })
                    .collect();
                Reply::batch(b.request_id, children, sim_time)
            }
        }
    }
}

/// Whether any id of the decoded request is a number that parsing may have
/// changed (the rare case: then the line is read again for the literals).
fn needs_exact_ids(decoded: &Result<Request, Rejected>) -> bool {
    let inexact = |id: &Option<RequestId>| id.as_ref().is_some_and(RequestId::is_inexact);
    match decoded {
        Err(rej) => inexact(&rej.request_id),
        Ok(Request::Single(r)) => inexact(&r.request_id),
        Ok(Request::Batch(b)) => {
            inexact(&b.request_id)
                || b.requests.iter().any(|c| match c {
                    BatchChild::Valid(r) => inexact(&r.request_id),
                    BatchChild::Invalid { rejection, .. } => inexact(&rejection.request_id),
                })
        }
    }
}

/// Replaces inexact numeric ids by the literals read from the line (and,
/// with `all_literals`, every id that was a literal: it was parsed as a
/// stand-in).
fn restore_ids(decoded: &mut Result<Request, Rejected>, ids: RawIds, all_literals: bool) {
    let fix = |slot: &mut Option<RequestId>, raw: Option<RequestId>| {
        let literal = matches!(raw, Some(RequestId::Literal(_)));
        if slot.as_ref().is_some_and(RequestId::is_inexact) || (all_literals && literal) {
            if let Some(raw) = raw {
                *slot = Some(raw);
            }
        }
    };
    match decoded {
        Err(rej) => fix(&mut rej.request_id, ids.top),
        Ok(Request::Single(r)) => fix(&mut r.request_id, ids.top),
        Ok(Request::Batch(b)) => {
            fix(&mut b.request_id, ids.top);
            let kids = ids.children.into_iter().chain(std::iter::repeat(None));
            for (child, raw) in b.requests.iter_mut().zip(kids) {
                match child {
                    BatchChild::Valid(r) => fix(&mut r.request_id, raw),
                    BatchChild::Invalid { rejection, .. } => fix(&mut rejection.request_id, raw),
                }
            }
        }
    }
}

fn take_request_id(map: &mut Map<String, Value>) -> Result<Option<RequestId>, ProtocolError> {
    match map.remove("request_id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(RequestId::String(s))),
        Some(Value::Number(n)) => Ok(Some(RequestId::Number(n))),
        Some(other) => Err(ProtocolError::invalid(format!(
            "`request_id` must be a string or a number, got {other}"
        ))),
    }
}

fn check_version(map: &Map<String, Value>) -> Result<(), ProtocolError> {
    match map.get("protocol_version") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Number(n)) if n.as_u64() == Some(PROTOCOL_VERSION) => Ok(()),
        Some(other) => Err(ProtocolError::invalid(format!(
            "unsupported protocol_version {other}; this peer speaks {PROTOCOL_VERSION}"
        ))),
    }
}

fn decode_batch_children(map: &mut Map<String, Value>) -> Result<Vec<BatchChild>, ProtocolError> {
    let children = match map.remove("requests") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ProtocolError::invalid(format!(
                "`requests` must be an array, got {other}"
            )))
        }
        None => return Err(ProtocolError::invalid("a batch needs a `requests` array")),
    };
    if children.len() > MAX_BATCH_REQUESTS {
        return Err(ProtocolError::BatchLimit {
            count: children.len(),
            limit: MAX_BATCH_REQUESTS,
        });
    }
    Ok(children
        .into_iter()
        .map(|raw| match decode_child(raw.clone()) {
            Ok(r) => BatchChild::Valid(r),
            Err(rejection) => BatchChild::Invalid { raw, rejection },
        })
        .collect())
}

fn decode_child(raw: Value) -> Result<SingleRequest, Rejected> {
    if raw.get("type").and_then(Value::as_str) == Some("batch") {
        let request_id = match raw.get("request_id") {
            Some(Value::String(s)) => Some(RequestId::String(s.clone())),
            Some(Value::Number(n)) => Some(RequestId::Number(n.clone())),
            _ => None,
        };
        return Err(Rejected {
            error: ProtocolError::invalid("nested batch requests are not allowed"),
            request_id,
            action: None,
        });
    }
    match Request::from_value(raw)? {
        Request::Single(r) => Ok(r),
        // Unreachable: batches were filtered above, but stay total.
        Request::Batch(_) => Err(Rejected::bare(ProtocolError::invalid(
            "nested batch requests are not allowed",
        ))),
    }
}

fn decode_single(
    kind: RequestType,
    mut map: Map<String, Value>,
    request_id: Option<RequestId>,
) -> Result<SingleRequest, ProtocolError> {
    let action = match map.get("action") {
        Some(Value::String(a)) => a.as_str(),
        Some(other) => {
            return Err(ProtocolError::invalid(format!(
                "`action` must be a string, got {other}"
            )))
        }
        None => return Err(ProtocolError::invalid("missing field `action`")),
    };
    let name = match ActionName::parse(action) {
        Some(n) if n.request_type() == kind => n,
        Some(n) => {
            return Err(ProtocolError::UnknownAction(format!(
                "`{action}` is a {} action, not a {} action",
                n.request_type().as_str(),
                kind.as_str()
            )))
        }
        None => {
            return Err(ProtocolError::UnknownAction(format!(
                "unknown {} action `{action}`",
                kind.as_str()
            )))
        }
    };
    let mut data = match map.remove("data") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(d)) => d,
        Some(other) => {
            return Err(ProtocolError::invalid(format!(
                "`data` must be an object, got {other}"
            )))
        }
    };
    if kind == RequestType::SimControl {
        // The Python client sends sim_control parameters at the top level
        // (`{"action": "set_time_scale", "time_scale": 2}`); `data` wins.
        for (k, v) in map {
            if !ENVELOPE_KEYS.contains(&k.as_str()) {
                data.entry(k).or_insert(v);
            }
        }
    }
    let action = Action::from_data(name, Value::Object(data))?;
    Ok(SingleRequest { request_id, action })
}

mod reply;
mod response;
pub use reply::{Data, Encode, Rendered, RenderedPayloads, Reply, ReplyBody};
pub use response::*;
#[cfg(test)]
mod tests;
