//! Correlation ids, echoed exactly as sent.
//!
//! A parsed JSON number keeps integers that fit 64 bits exactly but turns
//! every other number into a binary64: `1.50` would come back as `1.5`,
//! `18446744073709551617` as `1.8446744073709552e19`, and `1e400` would not
//! parse at all. Such ids are read again from the request's text and kept
//! as the literal the client wrote.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Number;
use std::fmt;

/// A client-chosen correlation id, a string or a number, echoed back as sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A number that a 64-bit integer holds exactly.
    Number(Number),
    /// A string id.
    String(String),
    /// Any other number, as the literal text it arrived as (`1.50`,
    /// integers past 64 bits, `1e400`).
    #[serde(skip_deserializing)]
    Literal(NumberLiteral),
}

/// The text of a JSON number, written back verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NumberLiteral(String);

impl NumberLiteral {
    /// The literal, as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Serialize for NumberLiteral {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Only ever built from a JSON number token, so this is valid JSON.
        let raw = RawValue::from_string(self.0.clone()).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}
impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}
impl From<u64> for RequestId {
    fn from(n: u64) -> Self {
        RequestId::Number(n.into())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(s),
            RequestId::Literal(l) => f.write_str(&l.0),
        }
    }
}

impl RequestId {
    /// Whether a parsed id may differ from what was sent (a number that
    /// is not a 64-bit integer).
    pub(crate) fn is_inexact(&self) -> bool {
        matches!(self, RequestId::Number(n) if !(n.is_u64() || n.is_i64()))
    }

    /// The id from its raw JSON text: a string, or a number kept exactly
    /// (what a request carried, or what serialising an id wrote). Anything
    /// else is not an id.
    pub fn from_raw(raw: &RawValue) -> Option<RequestId> {
        let text = raw.get();
        match text.as_bytes().first()? {
            b'"' => serde_json::from_str(text).ok().map(RequestId::String),
            b'-' | b'0'..=b'9' => Some(match serde_json::from_str::<Number>(text) {
                Ok(n) if n.is_u64() || n.is_i64() => RequestId::Number(n),
                _ => RequestId::Literal(NumberLiteral(text.to_owned())),
            }),
            _ => None,
        }
    }
}

/// The raw ids of a request line: its own and each batch child's, with
/// the byte ranges of the literal ones in the line.
#[derive(Debug, Default)]
pub(crate) struct RawIds {
    pub top: Option<RequestId>,
    pub children: Vec<Option<RequestId>>,
    pub literal_spans: Vec<std::ops::Range<usize>>,
}

impl RawIds {
    /// The line with every literal id replaced by `0`, so that a number
    /// no binary64 holds (1e400) does not fail the whole parse.
    pub fn neutralised(&self, line: &str) -> Option<String> {
        if self.literal_spans.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(line.len());
        let mut at = 0;
        for span in &self.literal_spans {
            out.push_str(line.get(at..span.start)?);
            out.push('0');
            at = span.end;
        }
        out.push_str(line.get(at..)?);
        Some(out)
    }
}

/// `raw`'s byte range within `line` (it borrows from it).
fn span_in(line: &str, raw: &RawValue) -> Option<std::ops::Range<usize>> {
    let start = (raw.get().as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start + raw.get().len();
    (end <= line.len()).then_some(start..end)
}

#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(borrow, default)]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    requests: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PeekChild<'a> {
    #[serde(borrow, default)]
    request_id: Option<&'a RawValue>,
}

/// Reads the ids of `line` without interpreting numbers. `None` when the
/// line is not a JSON object this lenient reading accepts.
pub(crate) fn peek_ids(line: &str) -> Option<RawIds> {
    // serde also reads a struct from an array: only objects have ids.
    if !line.trim_start().starts_with('{') {
        return None;
    }
    let peek: Peek<'_> = serde_json::from_str(line).ok()?;
    let mut spans = Vec::new();
    let mut read = |raw: Option<&RawValue>| {
        let id = raw.and_then(RequestId::from_raw);
        if let (Some(RequestId::Literal(_)), Some(raw)) = (&id, raw) {
            spans.extend(span_in(line, raw));
        }
        id
    };
    let top = read(peek.request_id);
    let kids: Vec<&RawValue> = peek
        .requests
        .and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or_default();
    let children = kids
        .into_iter()
        .map(|k| {
            read(
                serde_json::from_str::<PeekChild<'_>>(k.get())
                    .ok()
                    .and_then(|c| c.request_id),
            )
        })
        .collect();
    Some(RawIds {
        top,
        children,
        literal_spans: spans,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_survive() {
        let ids = peek_ids(
            r#"{"request_id": 1.50, "type": "batch", "requests": [{"request_id": 18446744073709551617}, 3, {"request_id": "x"}, {"request_id": 1e400}]}"#,
        )
        .unwrap();
        assert_eq!(ids.top.unwrap().to_string(), "1.50");
        let kids: Vec<String> = ids
            .children
            .iter()
            .map(|c| c.as_ref().map_or("-".into(), |i| i.to_string()))
            .collect();
        assert_eq!(kids, ["18446744073709551617", "-", "x", "1e400"]);
        let id = RequestId::from_raw(&RawValue::from_string("-0.0".into()).unwrap()).unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), "-0.0");
        let id = RequestId::from_raw(&RawValue::from_string("42".into()).unwrap()).unwrap();
        assert_eq!(id, RequestId::Number(42u64.into()));
        assert!(RequestId::from_raw(&RawValue::from_string("true".into()).unwrap()).is_none());
        assert!(peek_ids("[1]").is_none());
    }
}
