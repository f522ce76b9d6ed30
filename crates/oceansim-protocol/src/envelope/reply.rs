//! The reply a peer writes: the envelope's fields and its data, typed,
//! and the one encoder that writes them ([`Reply::write_json`]).
//!
//! A reply's bytes are written once, straight into the output: the
//! envelope's fields in wire order, then its data serialised in place (a
//! batch's children by the same encoder, inside the same output). The one
//! place text rendered before the reply is copied into it is
//! [`Rendered::write`]: a state the answering side keeps rendered and
//! shares between readers (a simulator's full state, once per revision),
//! or a typed state whose `sensors` map is made of payloads each rendered
//! once per sample. Nothing is parsed again: the text is copied as it is.

use super::*;
use std::borrow::Cow;
use std::io::Write;

/// A typed reply's data, serialised by the encoder into the output.
///
/// Implemented for every `Serialize + Send` value, so a handler hands its
/// typed reply over and the encoder serialises it where it goes.
pub trait Encode: Send {
    /// Appends the value's JSON text to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// How many bytes [`Encode::encode`] appends (counted, not kept).
    fn encoded_len(&self) -> usize;
}

impl<T: Serialize + Send> Encode for T {
    fn encode(&self, out: &mut Vec<u8>) {
        let at = out.len();
        // Reply types are plain data (numbers, strings, maps with string
        // keys); should one fail, the output stays valid JSON.
        if serde_json::to_writer(&mut *out, self).is_err() {
            out.truncate(at);
            out.extend_from_slice(b"{}");
        }
    }

    fn encoded_len(&self) -> usize {
        let mut n = Count(0);
        match serde_json::to_writer(&mut n, self) {
            Ok(()) => n.0,
            Err(_) => 2,
        }
    }
}

/// A writer that keeps only the number of bytes written.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The `data` of a successful reply.
pub enum Data {
    /// A typed reply (see [`crate::reply`]), serialised by the encoder.
    Typed(Box<dyn Encode>),
    /// A state reply made of JSON rendered before it (see [`Rendered`]).
    Rendered(Rendered),
}

impl Data {
    /// A typed reply's data.
    pub fn typed<T: Serialize + Send + 'static>(data: T) -> Data {
        Data::Typed(Box::new(data))
    }

    /// The number of bytes the data takes on the wire (a typed reply is
    /// counted by serialising it into nothing).
    pub fn len(&self) -> usize {
        match self {
            Data::Typed(d) => d.encoded_len(),
            Data::Rendered(r) => r.len(),
        }
    }

    /// Whether the data takes no bytes (never, for valid JSON).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Data::Typed(d) => d.encode(out),
            Data::Rendered(r) => r.write(out),
        }
    }
}

impl fmt::Debug for Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Data::Typed(_) => f.write_str("Typed(..)"),
            Data::Rendered(r) => f.debug_tuple("Rendered").field(r).finish(),
        }
    }
}

/// Sensor payloads by name, in order, each JSON rendered once per sample
/// (shared, so every reply and export of a sample copies one text).
pub type RenderedPayloads = Vec<(String, Arc<str>)>;

/// JSON rendered before the reply: the one kind of data a reply copies as
/// text. Each text must be one valid JSON value; it is not parsed again.
pub enum Rendered {
    /// A whole state kept rendered and shared between readers (a
    /// simulator's full state, rendered once per revision).
    Whole(Arc<str>),
    /// A typed state whose last field is `sensors`, serialised with
    /// `sensors: null`; the encoder writes the payloads as that field's
    /// map in its place.
    WithSensors {
        /// The state, its `sensors` field last and `()`.
        head: Box<dyn Encode>,
        /// The `sensors` map's entries.
        sensors: RenderedPayloads,
    },
}

impl Rendered {
    /// A typed state `head` (its last field `sensors: ()`) with its
    /// sensors' rendered payloads.
    pub fn with_sensors<T: Serialize + Send + 'static>(head: T, sensors: RenderedPayloads) -> Self {
        Rendered::WithSensors {
            head: Box::new(head),
            sensors,
        }
    }

    /// Writes the JSON into `out`: the one place text rendered before a
    /// reply is copied into it.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Rendered::Whole(t) => out.extend_from_slice(t.as_bytes()),
            Rendered::WithSensors { head, sensors } => {
                head.encode(out);
                // The head ends in `"sensors":null}`: the map takes the
                // `null`'s place. A head of another shape is written as
                // it is (a bug of the caller's, caught by tests).
                if !out.ends_with(b"null}") {
                    debug_assert!(false, "a state head must end with `sensors: null`");
                    return;
                }
                out.truncate(out.len() - b"null}".len());
                out.push(b'{');
                for (i, (name, payload)) in sensors.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    put(out, name.as_str());
                    out.push(b':');
                    out.extend_from_slice(payload.as_bytes());
                }
                out.extend_from_slice(b"}}");
            }
        }
    }

    /// The bytes [`Rendered::write`] appends.
    pub fn len(&self) -> usize {
        match self {
            Rendered::Whole(t) => t.len(),
            Rendered::WithSensors { head, sensors } => {
                let map: usize = sensors
                    .iter()
                    .map(|(name, payload)| {
                        let mut key = Vec::with_capacity(name.len() + 2);
                        put(&mut key, name.as_str());
                        key.len() + 1 + payload.len()
                    })
                    .sum();
                let commas = sensors.len().saturating_sub(1);
                // `null` becomes `{` + entries + `}`.
                (head.encoded_len() + 2 + map + commas).saturating_sub(4)
            }
        }
    }

    /// Whether it writes nothing (never, for valid JSON).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rendered text, kept to be shared (a whole state copies its
    /// text; a typed one is written once).
    pub fn into_text(self) -> Arc<str> {
        match self {
            Rendered::Whole(t) => t,
            other => {
                let mut out = Vec::with_capacity(other.len());
                other.write(&mut out);
                // Serialised JSON and UTF-8 payloads: valid UTF-8.
                String::from_utf8(out)
                    .unwrap_or_else(|_| "{}".into())
                    .into()
            }
        }
    }
}

impl fmt::Debug for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rendered::Whole(t) => f.debug_tuple("Whole").field(&t.len()).finish(),
            Rendered::WithSensors { sensors, .. } => {
                let names: Vec<&str> = sensors.iter().map(|(n, _)| n.as_str()).collect();
                f.debug_struct("WithSensors")
                    .field("sensors", &names)
                    .finish()
            }
        }
    }
}

impl From<Arc<str>> for Rendered {
    fn from(text: Arc<str>) -> Self {
        Rendered::Whole(text)
    }
}

/// What a reply says after its envelope's head.
#[derive(Debug)]
pub enum ReplyBody {
    /// Success: `state` or `response`, with its data.
    Ok {
        /// `state` or `response`.
        kind: ResponseType,
        /// The data.
        data: Data,
    },
    /// Failure: `type: "error"`, `data: {}`, a code and a message.
    Error {
        /// The stable code.
        code: ErrorCode,
        /// What was expected and what came.
        message: String,
    },
    /// A batch's answer: `data: {count, responses}`, the children in
    /// order.
    Batch(Vec<Reply>),
}

/// A reply to one request line (or one child of a batch), as the
/// answering side builds it; [`Reply::write_json`] writes its bytes.
/// A client reads the line back as a [`Response`].
#[derive(Debug)]
pub struct Reply {
    /// Echo of the request's id.
    pub request_id: Option<RequestId>,
    /// Echo of the request's action (`batch` for a batch).
    pub action: Option<Cow<'static, str>>,
    /// Simulation time (s) when the reply was produced.
    pub sim_time: Option<f64>,
    /// Success with data, an error, or a batch's children.
    pub body: ReplyBody,
}

impl Reply {
    /// A successful reply of `kind` to `action`.
    pub fn ok(
        kind: ResponseType,
        request_id: Option<RequestId>,
        action: ActionName,
        sim_time: Option<f64>,
        data: Data,
    ) -> Self {
        Reply {
            request_id,
            action: Some(Cow::Borrowed(action.as_str())),
            sim_time,
            body: ReplyBody::Ok { kind, data },
        }
    }

    /// An error reply.
    pub fn error(
        request_id: Option<RequestId>,
        action: Option<Cow<'static, str>>,
        sim_time: Option<f64>,
        error: &ProtocolError,
    ) -> Self {
        Reply {
            request_id,
            action,
            sim_time,
            body: ReplyBody::Error {
                code: error.code(),
                message: error.to_string(),
            },
        }
    }

    /// The answer to a batch, its children in order.
    pub fn batch(
        request_id: Option<RequestId>,
        children: Vec<Reply>,
        sim_time: Option<f64>,
    ) -> Self {
        Reply {
            request_id,
            action: Some(Cow::Borrowed("batch")),
            sim_time,
            body: ReplyBody::Batch(children),
        }
    }

    /// Whether the reply reports success.
    pub fn is_ok(&self) -> bool {
        !matches!(self.body, ReplyBody::Error { .. })
    }

    /// The error's code, on errors only.
    pub fn error_code(&self) -> Option<ErrorCode> {
        match &self.body {
            ReplyBody::Error { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The error's message, on errors only.
    pub fn message(&self) -> Option<&str> {
        match &self.body {
            ReplyBody::Error { message, .. } => Some(message),
            _ => None,
        }
    }

    /// Writes the reply as JSON (no newline) into `out`: the one encoder
    /// of a reply's bytes.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let (kind, data, code, message) = match &self.body {
            ReplyBody::Ok { kind, data } => (*kind, Payload::Data(data), None, None),
            ReplyBody::Batch(children) => {
                (ResponseType::Response, Payload::Batch(children), None, None)
            }
            ReplyBody::Error { code, message } => (
                ResponseType::Error,
                Payload::EmptyObject,
                Some(*code),
                Some(message.as_str()),
            ),
        };
        let ok = kind != ResponseType::Error;
        let head = Head {
            kind,
            protocol_version: PROTOCOL_VERSION,
            request_id: self.request_id.as_ref(),
            action: self.action.as_deref(),
            status: if ok { Status::Ok } else { Status::Error },
            success: ok,
            sim_time: self.sim_time,
        };
        write_envelope(out, &head, data, code, message);
    }

    /// The reply as one wire line, newline included.
    pub fn to_line(&self) -> String {
        let mut buf = Vec::new();
        self.write_json(&mut buf);
        buf.push(b'\n');
        String::from_utf8(buf).unwrap_or_else(|_| "{}\n".into())
    }

    /// The reply as a JSON value (read back from its bytes).
    pub fn to_value(&self) -> Value {
        let mut buf = Vec::new();
        self.write_json(&mut buf);
        serde_json::from_slice(&buf).unwrap_or(Value::Null)
    }
}

/// The envelope's fields before `data`.
pub(super) struct Head<'a> {
    pub kind: ResponseType,
    pub protocol_version: u64,
    pub request_id: Option<&'a RequestId>,
    pub action: Option<&'a str>,
    pub status: Status,
    pub success: bool,
    pub sim_time: Option<f64>,
}

/// What `data` holds, as the encoder writes it.
pub(super) enum Payload<'a> {
    Data(&'a Data),
    Value(&'a Value),
    Batch(&'a [Reply]),
    EmptyObject,
}

/// Writes one envelope, fields in wire order: `type`, `protocol_version`,
/// `request_id`, `action`, `status`, `success`, `sim_time`, `data`,
/// `error_code`, `message` (absent optional fields left out).
pub(super) fn write_envelope(
    out: &mut Vec<u8>,
    head: &Head<'_>,
    data: Payload<'_>,
    error_code: Option<ErrorCode>,
    message: Option<&str>,
) {
    out.extend_from_slice(b"{\"type\":");
    put(out, &head.kind);
    out.extend_from_slice(b",\"protocol_version\":");
    put(out, &head.protocol_version);
    if let Some(id) = head.request_id {
        out.extend_from_slice(b",\"request_id\":");
        put(out, id);
    }
    if let Some(action) = head.action {
        out.extend_from_slice(b",\"action\":");
        put(out, action);
    }
    out.extend_from_slice(b",\"status\":");
    put(out, &head.status);
    out.extend_from_slice(b",\"success\":");
    put(out, &head.success);
    if let Some(t) = head.sim_time {
        out.extend_from_slice(b",\"sim_time\":");
        put(out, &t);
    }
    out.extend_from_slice(b",\"data\":");
    match data {
        Payload::Data(d) => d.write(out),
        Payload::Value(v) => put(out, v),
        Payload::EmptyObject => out.extend_from_slice(b"{}"),
        Payload::Batch(children) => {
            // Writing to a Vec cannot fail.
            let _ = write!(out, "{{\"count\":{},\"responses\":[", children.len());
            for (i, c) in children.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                c.write_json(out);
            }
            out.extend_from_slice(b"]}");
        }
    }
    if let Some(code) = error_code {
        out.extend_from_slice(b",\"error_code\":");
        put(out, &code);
    }
    if let Some(message) = message {
        out.extend_from_slice(b",\"message\":");
        put(out, message);
    }
    out.push(b'}');
}

/// Writes one envelope field's value.
fn put<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    // Ids, names, codes and numbers: serialising them into a Vec cannot
    // fail.
    let _ = serde_json::to_writer(&mut *out, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::MotionAck;

    #[test]
    fn one_encoder_writes_what_the_response_reads_back() {
        let ok = Reply::ok(
            ResponseType::Response,
            Some(RequestId::from(7u64)),
            ActionName::SetForce,
            Some(1.5),
            Data::typed(MotionAck::default()),
        );
        let err = Reply::error(
            Some("x".into()),
            Some("get_state".into()),
            None,
            &ProtocolError::invalid("no"),
        );
        let state = Reply::ok(
            ResponseType::State,
            None,
            ActionName::GetState,
            Some(0.0),
            Data::Rendered(Rendered::Whole("{\"a\":1}".into())),
        );
        let batch = Reply::batch(Some("b".into()), vec![ok, err, state], Some(1.5));
        let line = batch.to_line();
        let back = Response::from_line(&line).unwrap();
        assert_eq!(back.data["count"], 3);
        let kids = back.data["responses"].as_array().unwrap();
        assert_eq!(kids[0]["request_id"], 7);
        assert_eq!(kids[1]["error_code"], "invalid_message");
        assert_eq!(kids[1]["data"], serde_json::json!({}));
        assert_eq!(kids[2]["data"]["a"], 1);
        assert_eq!(Data::typed(MotionAck::default()).len(), {
            let mut v = Vec::new();
            MotionAck::default().encode(&mut v);
            v.len()
        });
    }
}
