//! Response envelopes as a client reads them: state, response and error
//! replies (written, by a client or a test, with the encoder of
//! [`super::reply`]).

use super::reply::{write_envelope, Head, Payload};
use super::*;

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

/// A response envelope as a client reads it back. Written with
/// `protocol_version: 2` and both `status` and `success`, so clients may
/// test either. The answering side builds a [`Reply`] instead.
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
}

impl Response {
    /// Writes the response as JSON (no newline) into `out`, with the one
    /// encoder replies are written by ([`Reply::write_json`]).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let head = Head {
            kind: self.kind,
            protocol_version: self.protocol_version,
            request_id: self.request_id.as_ref(),
            action: self.action.as_deref(),
            status: self.status,
            success: self.success,
            sim_time: self.sim_time,
        };
        let data = Payload::Value(&self.data);
        write_envelope(out, &head, data, self.error_code, self.message.as_deref());
    }

    /// Writes the response as JSON (no newline) to `out`.
    pub fn write_to<W: std::io::Write>(&self, out: &mut W) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(256);
        self.write_json(&mut buf);
        out.write_all(&buf)
    }

    /// The `data` as a typed reply (see [`crate::reply`]).
    pub fn data_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, ProtocolError> {
        T::deserialize(&self.data)
            .map_err(|e| ProtocolError::invalid(format!("unexpected reply data: {e}")))
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
        }
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
