//! The envelope's header read off a reply line without parsing its data.
//!
//! A reply line is routed by its `request_id` and judged by its `type`,
//! `status` and `action`; its `data` (kilobytes of sensor payloads) is for
//! the caller. [`peek`] walks the top-level object key by key, reads the
//! header's values and skips any other value, and stops as soon as it has
//! all four: the server writes them before `data`, so `data` is never
//! scanned (written in another order, it is skipped, still without being
//! built). The line is not validated past what was read: whoever parses
//! `data` does that.

use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The header fields of a reply envelope (borrowed from its line where no
/// escape had to be decoded).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Header<'a> {
    /// `type`: `state`, `response` or `error`.
    pub kind: Option<Cow<'a, str>>,
    /// `request_id` when it is a string (this client's ids are).
    pub request_id: Option<Cow<'a, str>>,
    /// Whether a `request_id` key holds anything but `null`.
    pub has_request_id: bool,
    /// The `request_id` value's JSON text, as written.
    pub request_id_raw: Option<&'a str>,
    /// `action`.
    pub action: Option<Cow<'a, str>>,
    /// `status`: `ok` or `error`.
    pub status: Option<Cow<'a, str>>,
}

impl Header<'_> {
    /// An `ok` envelope.
    pub fn is_ok(&self) -> bool {
        self.status.as_deref() == Some("ok")
    }
}

/// Reads the header of the JSON object in `line`; `None` when the line is
/// not an object (or is malformed before the header is complete).
pub(crate) fn peek(line: &str) -> Option<Header<'_>> {
    let b = line.as_bytes();
    let mut at = skip_ws(b, 0);
    if b.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    let mut h = Header::default();
    let mut seen = 0u8;
    loop {
        at = skip_ws(b, at);
        match b.get(at)? {
            b'}' => return Some(h),
            b',' => {
                at += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let (key, after) = value::<Cow<'_, str>>(line, at)?;
        at = skip_ws(b, after);
        if b.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(b, at + 1);
        let slot = match key.as_ref() {
            "type" => Some((&mut h.kind, 1)),
            "action" => Some((&mut h.action, 2)),
            "status" => Some((&mut h.status, 4)),
            _ => None,
        };
        if let Some((slot, bit)) = slot {
            let (v, after) = value::<Option<Cow<'_, str>>>(line, at)?;
            *slot = v;
            seen |= bit;
            at = after;
        } else if key == "request_id" {
            let (raw, after) = value::<&RawValue>(line, at)?;
            h.has_request_id = raw.get() != "null";
            h.request_id_raw = Some(raw.get());
            h.request_id = serde_json::from_str::<Cow<'_, str>>(raw.get()).ok();
            seen |= 8;
            at = after;
        } else {
            at = value::<IgnoredAny>(line, at)?.1;
        }
        if seen == 15 {
            return Some(h);
        }
    }
}

/// Parses one JSON value of type `T` starting at byte `at` of `line`;
/// returns it and the offset just past it.
fn value<'a, T: serde::Deserialize<'a>>(line: &'a str, at: usize) -> Option<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_str(line.get(at..)?).into_iter::<T>();
    let v = stream.next()?.ok()?;
    Some((v, at + stream.byte_offset()))
}

fn skip_ws(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_header_before_data_and_stops() {
        // The data is not even valid JSON: it is never reached.
        let line = r#"{"type":"state","protocol_version":2,"request_id":"c7","action":"step","status":"ok","success":true,"sim_time":0.1,"data":{"x":[1,2,"#;
        let h = peek(line).expect("a header");
        assert_eq!(h.kind.as_deref(), Some("state"));
        assert_eq!(h.request_id.as_deref(), Some("c7"));
        assert_eq!(h.action.as_deref(), Some("step"));
        assert!(h.is_ok() && h.has_request_id);
    }

    #[test]
    fn skips_values_written_before_the_header_and_decodes_escapes() {
        let line = r#" { "data" : {"a":[1,{"b":"}"}],"c":"\"}"} , "status":"error","action":"st\u0065p","request_id":null,"type":"error","message":"no"}"#;
        let h = peek(line).expect("a header");
        assert_eq!(h.action.as_deref(), Some("step"));
        assert_eq!(h.kind.as_deref(), Some("error"));
        assert!(!h.is_ok());
        assert!(!h.has_request_id && h.request_id.is_none());
    }

    #[test]
    fn numeric_ids_are_present_but_not_strings_and_garbage_is_none() {
        let h = peek(r#"{"request_id":12,"type":"response"}"#).expect("a header");
        assert!(h.has_request_id && h.request_id.is_none());
        assert_eq!(h.status, None);
        for bad in ["", "[]", "{", r#"{"type" "x"}"#, r#"{"type":}"#, "nonsense"] {
            assert!(peek(bad).is_none(), "{bad:?}");
        }
    }
}
