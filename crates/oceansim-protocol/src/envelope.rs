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
    /// with their error, and wraps the answers as `data.responses` with
    /// `data.count`. A failing child never stops the others.
    pub fn respond(self, mut handle: impl FnMut(SingleRequest) -> Response) -> Response {
        match self {
            Request::Single(r) => handle(r),
            Request::Batch(b) => {
                let mut sim_time = None;
                let responses: Vec<Response> = b
                    .requests
                    .into_iter()
                    .map(|c| {
                        let r = match c {
                            BatchChild::Valid(r) => handle(r),
                            BatchChild::Invalid { rejection, .. } => {
                                rejection.to_response(sim_time)
                            }
                        };
                        sim_time = r.sim_time.or(sim_time);
                        r
                    })
                    .collect();
                Response::batch(b.request_id, responses, sim_time)
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

/// The `type` of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseType {
    /// AUV state (`get_state`, `get_sensors`, `step`).
    State,
    /// Generic success.
    Response,
    /// Failure; `error_code` and `message` say why.
    Error,
}

/// `status` of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Success (`success: true`).
    Ok,
    /// Failure (`success: false`).
    Error,
}

/// A response envelope. Serialises with `protocol_version: 2` and both
/// `status` and `success`, so clients may test either.
///
/// `data` may instead be pre-rendered JSON text (`data_raw`, see
/// [`Response::state_raw`]): a producer that caches serialised payloads
/// (sensor frames, say) then pays nothing to re-send them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Response {
    /// `state`, `response` or `error`.
    #[serde(rename = "type")]
    pub kind: ResponseType,
    /// Always [`PROTOCOL_VERSION`].
    pub protocol_version: u64,
    /// Echo of the request's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Echo of the request's action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// `ok` or `error`.
    pub status: Status,
    /// `true` iff `status` is `ok`.
    pub success: bool,
    /// Simulation time (s) when the response was produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim_time: Option<f64>,
    /// Action result (`{}` for errors).
    #[serde(default)]
    pub data: Value,
    /// Stable error code, on errors only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<ErrorCode>,
    /// Human-readable error message, on errors only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Pre-rendered JSON of `data` (which is then `null`); must be valid
    /// JSON. Shared, so one rendered state can answer many readers.
    #[serde(skip)]
    pub data_raw: Option<Arc<str>>,
}

/// The wire layout of a response (field order as documented).
#[derive(Serialize)]
struct Wire<'a> {
    #[serde(rename = "type")]
    kind: ResponseType,
    protocol_version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<&'a RequestId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<&'a str>,
    status: Status,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    sim_time: Option<f64>,
    data: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<ErrorCode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

/// The fields of [`Wire`] before `data`.
#[derive(Serialize)]
struct WireHead<'a> {
    #[serde(rename = "type")]
    kind: ResponseType,
    protocol_version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<&'a RequestId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<&'a str>,
    status: Status,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    sim_time: Option<f64>,
}

/// The fields of [`Wire`] after `data`.
#[derive(Serialize)]
struct WireTail<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<ErrorCode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

impl Response {
    fn wire<'a>(&'a self, data: &'a Value) -> Wire<'a> {
        Wire {
            kind: self.kind,
            protocol_version: self.protocol_version,
            request_id: self.request_id.as_ref(),
            action: self.action.as_deref(),
            status: self.status,
            success: self.success,
            sim_time: self.sim_time,
            data,
            error_code: self.error_code,
            message: self.message.as_deref(),
        }
    }

    /// Writes the response as JSON (no newline) into `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        // Writing to a Vec cannot fail.
        let _ = self.write_to(out);
    }

    /// Writes the response as JSON (no newline) to `out`. Pre-rendered
    /// data is copied once, straight after the envelope's head.
    pub fn write_to<W: std::io::Write>(&self, out: &mut W) -> std::io::Result<()> {
        let Some(raw) = &self.data_raw else {
            return serde_json::to_writer(&mut *out, &self.wire(&self.data))
                .map_err(std::io::Error::from);
        };
        let head = serde_json::to_vec(&WireHead {
            kind: self.kind,
            protocol_version: self.protocol_version,
            request_id: self.request_id.as_ref(),
            action: self.action.as_deref(),
            status: self.status,
            success: self.success,
            sim_time: self.sim_time,
        })?;
        // `head` is an object: drop its closing brace and continue it.
        out.write_all(&head[..head.len() - 1])?;
        out.write_all(b",\"data\":")?;
        out.write_all(raw.as_bytes())?;
        let tail = serde_json::to_vec(&WireTail {
            error_code: self.error_code,
            message: self.message.as_deref(),
        })?;
        if tail.len() > 2 {
            out.write_all(b",")?;
            out.write_all(&tail[1..])?;
        } else {
            out.write_all(b"}")?;
        }
        Ok(())
    }

    /// A `state` response whose data is pre-rendered JSON.
    pub fn state_raw(
        request_id: Option<RequestId>,
        action: ActionName,
        sim_time: f64,
        data_json: impl Into<Arc<str>>,
    ) -> Self {
        let mut r = Self::success(
            ResponseType::State,
            request_id,
            Some(action.as_str().into()),
            Some(sim_time),
            Value::Null,
        );
        r.data_raw = Some(data_json.into());
        r
    }

    /// A successful response of `kind` whose data is a typed reply (see
    /// [`crate::reply`]), serialised once.
    pub fn typed<T: Serialize + ?Sized>(
        kind: ResponseType,
        request_id: Option<RequestId>,
        action: ActionName,
        sim_time: Option<f64>,
        data: &T,
    ) -> Self {
        let mut r = Self::success(
            kind,
            request_id,
            Some(action.as_str().into()),
            sim_time,
            Value::Null,
        );
        // Reply types are plain data (numbers, strings, maps with string
        // keys); serialising them cannot fail.
        let text = serde_json::to_string(data).unwrap_or_else(|_| "{}".into());
        r.data_raw = Some(text.into());
        r
    }

    /// The `data` as a typed reply (client side): from the pre-rendered
    /// text when there is one, else from the JSON value.
    pub fn data_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, ProtocolError> {
        let parsed = match &self.data_raw {
            Some(raw) => serde_json::from_str(raw),
            None => serde_json::from_value(self.data.clone()),
        };
        parsed.map_err(|e| ProtocolError::invalid(format!("unexpected reply data: {e}")))
    }

    fn success(
        kind: ResponseType,
        request_id: Option<RequestId>,
        action: Option<String>,
        sim_time: Option<f64>,
        data: Value,
    ) -> Self {
        Response {
            kind,
            protocol_version: PROTOCOL_VERSION,
            request_id,
            action,
            status: Status::Ok,
            success: true,
            sim_time,
            data,
            error_code: None,
            message: None,
            data_raw: None,
        }
    }

    /// A `state` response.
    pub fn state(
        request_id: Option<RequestId>,
        action: ActionName,
        sim_time: f64,
        data: Value,
    ) -> Self {
        Self::success(
            ResponseType::State,
            request_id,
            Some(action.as_str().into()),
            Some(sim_time),
            data,
        )
    }

    /// A generic `response`.
    pub fn ok(
        request_id: Option<RequestId>,
        action: ActionName,
        sim_time: Option<f64>,
        data: Value,
    ) -> Self {
        Self::success(
            ResponseType::Response,
            request_id,
            Some(action.as_str().into()),
            sim_time,
            data,
        )
    }

    /// An `error` response.
    pub fn error(
        request_id: Option<RequestId>,
        action: Option<String>,
        sim_time: Option<f64>,
        error: &ProtocolError,
    ) -> Self {
        Response {
            kind: ResponseType::Error,
            protocol_version: PROTOCOL_VERSION,
            request_id,
            action,
            status: Status::Error,
            success: false,
            sim_time,
            data: Value::Object(Map::new()),
            error_code: Some(error.code()),
            message: Some(error.to_string()),
            data_raw: None,
        }
    }

    /// The answer to a batch: `data: {count, responses}` (children spliced
    /// as rendered, so pre-rendered payloads are not re-parsed).
    pub fn batch(
        request_id: Option<RequestId>,
        responses: Vec<Response>,
        sim_time: Option<f64>,
    ) -> Self {
        let mut data = Vec::with_capacity(64 + responses.len() * 256);
        data.extend_from_slice(
            format!("{{\"count\":{},\"responses\":[", responses.len()).as_bytes(),
        );
        for (i, r) in responses.iter().enumerate() {
            if i > 0 {
                data.push(b',');
            }
            r.write_json(&mut data);
        }
        data.extend_from_slice(b"]}");
        let mut resp = Self::success(
            ResponseType::Response,
            request_id,
            Some("batch".into()),
            sim_time,
            Value::Null,
        );
        resp.data_raw = Some(
            String::from_utf8(data)
                .unwrap_or_else(|_| "{}".into())
                .into(),
        );
        resp
    }

    /// Whether the response reports success.
    pub fn is_ok(&self) -> bool {
        self.success
    }

    /// The response as a JSON value.
    pub fn to_value(&self) -> Value {
        let mut buf = Vec::new();
        self.write_json(&mut buf);
        serde_json::from_slice(&buf).unwrap_or(Value::Null)
    }

    /// The response as one wire line, newline included.
    pub fn to_line(&self) -> String {
        let mut buf = Vec::new();
        self.write_json(&mut buf);
        buf.push(b'\n');
        String::from_utf8(buf).unwrap_or_else(|_| "{}\n".into())
    }

    /// Parses a response line (client side).
    pub fn from_line(line: &str) -> Result<Self, ProtocolError> {
        serde_json::from_str(line.trim_end())
            .map_err(|e| ProtocolError::invalid(format!("not a response envelope: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::*;
    use serde_json::json;

    fn code_of(line: &str) -> ErrorCode {
        Request::decode(line).unwrap_err().error.code()
    }

    #[test]
    fn decodes_the_spec_wire_example() {
        let r = Request::decode(
            r#"{"type":"command","protocol_version":2,"request_id":"run-001","action":"get_state"}"#,
        )
        .unwrap();
        assert_eq!(
            r,
            Request::Single(
                SingleRequest::new(Action::GetState(GetState::default())).with_id("run-001")
            )
        );
    }

    #[test]
    fn sim_control_parameters_may_sit_at_top_level() {
        let r =
            Request::decode(r#"{"type":"sim_control","action":"set_time_scale","time_scale":2}"#)
                .unwrap();
        assert_eq!(
            r,
            Request::Single(SingleRequest::new(Action::SetTimeScale(SetTimeScale {
                time_scale: 2.0
            })))
        );
        // data wins over the top level.
        let r = Request::decode(
            r#"{"type":"sim_control","action":"set_time_scale","time_scale":2,"data":{"time_scale":3}}"#,
        )
        .unwrap();
        let Request::Single(SingleRequest {
            action: Action::SetTimeScale(s),
            ..
        }) = r
        else {
            panic!()
        };
        assert_eq!(s.time_scale, 3.0);
    }

    #[test]
    fn error_codes_for_bad_envelopes() {
        assert_eq!(code_of("not json"), ErrorCode::InvalidMessage);
        assert_eq!(code_of("[1,2]"), ErrorCode::InvalidMessage);
        assert_eq!(
            code_of(r#"{"action":"get_state"}"#),
            ErrorCode::InvalidMessage
        );
        assert_eq!(
            code_of(r#"{"type":"telepathy","action":"x"}"#),
            ErrorCode::UnknownType
        );
        assert_eq!(
            code_of(r#"{"type":"command","action":"fly"}"#),
            ErrorCode::UnknownAction
        );
        assert_eq!(
            code_of(r#"{"type":"command","action":"pause"}"#),
            ErrorCode::UnknownAction
        );
        assert_eq!(
            code_of(r#"{"type":"sim_control","action":"get_state"}"#),
            ErrorCode::UnknownAction
        );
        assert_eq!(code_of(r#"{"type":"command"}"#), ErrorCode::InvalidMessage);
        assert_eq!(
            code_of(r#"{"type":"command","action":"get_state","protocol_version":1}"#),
            ErrorCode::InvalidMessage
        );
        assert_eq!(
            code_of(r#"{"type":"command","action":"set_force","data":[1,2,3]}"#),
            ErrorCode::InvalidMessage
        );
        assert_eq!(
            code_of(r#"{"type":"command","action":"set_force","data":{"force":[1,2]}}"#),
            ErrorCode::InvalidActionShape
        );
        assert_eq!(
            code_of(r#"{"type":"command","action":"get_state","request_id":[1]}"#),
            ErrorCode::InvalidMessage
        );
    }

    #[test]
    fn rejections_keep_request_id_and_action() {
        let rej = Request::decode(
            r#"{"type":"command","request_id":41,"action":"set_force","data":{"force":"x"}}"#,
        )
        .unwrap_err();
        assert_eq!(rej.request_id, Some(RequestId::from(41)));
        assert_eq!(rej.action.as_deref(), Some("set_force"));
        let resp = rej.to_response(Some(1.5)).to_value();
        assert_eq!(resp["request_id"], json!(41));
        assert_eq!(resp["error_code"], "invalid_action_shape");
        assert_eq!(resp["status"], "error");
        assert_eq!(resp["success"], false);
        assert_eq!(resp["protocol_version"], 2);
    }

    #[test]
    fn request_ids_are_echoed_exactly() {
        for id in [r#""abc""#, "7", "-3", "18446744073709551615", "1.5"] {
            let line = format!(r#"{{"type":"command","action":"get_state","request_id":{id}}}"#);
            let r = Request::decode(&line).unwrap();
            let resp = Response::ok(
                r.request_id().cloned(),
                ActionName::GetState,
                None,
                json!({}),
            );
            let echoed = resp.to_value()["request_id"].to_string();
            assert_eq!(echoed, id);
        }
    }

    fn batch_of(n: usize) -> String {
        let child = r#"{"type":"command","action":"get_state"}"#;
        format!(
            r#"{{"type":"batch","request_id":"b","requests":[{}]}}"#,
            vec![child; n].join(",")
        )
    }

    #[test]
    fn batch_limit_is_64() {
        let Request::Batch(b) = Request::decode(&batch_of(64)).unwrap() else {
            panic!()
        };
        assert_eq!(b.requests.len(), 64);
        let rej = Request::decode(&batch_of(65)).unwrap_err();
        assert_eq!(rej.error.code(), ErrorCode::BatchLimit);
        assert_eq!(rej.request_id, Some(RequestId::from("b")));
    }

    #[test]
    fn batch_children_fail_independently_and_in_order() {
        let line = r#"{"type":"batch","request_id":9,"requests":[
            {"type":"command","action":"get_state","request_id":"a"},
            {"type":"command","action":"nope","request_id":"b"},
            {"type":"batch","requests":[],"request_id":"c"},
            {"type":"sim_control","action":"pause","request_id":"d"}
        ]}"#;
        let req = Request::decode(line).unwrap();
        let mut seen = vec![];
        let resp = req.respond(|r| {
            seen.push(r.action.name());
            Response::ok(r.request_id, r.action.name(), Some(0.0), json!({}))
        });
        assert_eq!(seen, [ActionName::GetState, ActionName::Pause]);
        let v = resp.to_value();
        assert_eq!(v["request_id"], 9);
        assert_eq!(v["data"]["count"], 4);
        let rs = v["data"]["responses"].as_array().unwrap();
        let ids: Vec<_> = rs.iter().map(|r| r["request_id"].clone()).collect();
        assert_eq!(ids, [json!("a"), json!("b"), json!("c"), json!("d")]);
        assert_eq!(rs[1]["error_code"], "unknown_action");
        assert_eq!(rs[2]["error_code"], "invalid_message");
        assert!(rs[2]["message"].as_str().unwrap().contains("nested"));
        assert_eq!(rs[3]["success"], true);
    }

    #[test]
    fn responses_carry_status_and_success() {
        let ok = Response::state(
            Some("x".into()),
            ActionName::GetState,
            2.5,
            json!({"depth": 1}),
        );
        let v = ok.to_value();
        assert_eq!(v["type"], "state");
        assert_eq!(v["status"], "ok");
        assert_eq!(v["success"], true);
        assert_eq!(v["sim_time"], 2.5);
        assert!(v.get("error_code").is_none());
        let back = Response::from_line(&ok.to_line()).unwrap();
        assert_eq!(back, ok);
    }

    #[test]
    fn raw_data_is_spliced_verbatim() {
        let raw = Response::state_raw(
            Some("k".into()),
            ActionName::GetState,
            1.5,
            r#"{"sensors":{"a":[1,2]},"x":"\"data\":null"}"#,
        );
        let v = raw.to_value();
        assert_eq!(v["data"]["sensors"]["a"], json!([1, 2]));
        assert_eq!(v["data"]["x"], "\"data\":null");
        assert_eq!(v["request_id"], "k");
        assert_eq!(v["type"], "state");
        let plain = Response::state(
            Some("k".into()),
            ActionName::GetState,
            1.5,
            v["data"].clone(),
        );
        assert_eq!(Response::from_line(&raw.to_line()).unwrap(), plain);
    }
}
