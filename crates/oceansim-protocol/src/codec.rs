//! Newline-delimited JSON framing for `tokio_util::codec`.
//!
//! [`NdjsonCodec`] splits a byte stream into lines of at most
//! `max_line_bytes` (default [`DEFAULT_MAX_LINE_BYTES`], 1 MiB). It never
//! fails the stream for bad input: an over-long line or invalid UTF-8 is
//! yielded as an `Err(ProtocolError::InvalidMessage)` item, so the server can
//! answer it and carry on. An over-long line is reported as soon as it
//! exceeds the limit, then discarded up to its newline (resynchronisation),
//! without buffering it. CR before LF, blank lines and surrounding
//! whitespace are tolerated.

use crate::envelope::{Reply, Request, Response};
use crate::error::ProtocolError;
use bytes::{Buf, BufMut, BytesMut};
use std::io;
use tokio_util::codec::{Decoder, Encoder};

/// Default maximum line length (1 MiB), newline excluded.
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// One framed line, or the reason it could not be framed.
pub type LineItem = Result<String, ProtocolError>;

/// NDJSON line codec with a length cap and resynchronisation.
#[derive(Debug, Clone)]
pub struct NdjsonCodec {
    max_line_bytes: usize,
    /// Bytes of the buffer already searched for a newline.
    scanned: usize,
    /// Inside an over-long line: drop bytes until the next newline.
    discarding: bool,
}

impl Default for NdjsonCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl NdjsonCodec {
    /// A codec with the default 1 MiB line cap.
    pub fn new() -> Self {
        Self::with_max_line_bytes(DEFAULT_MAX_LINE_BYTES)
    }

    /// A codec with a custom line cap (bytes, newline excluded; at least 1).
    pub fn with_max_line_bytes(max_line_bytes: usize) -> Self {
        NdjsonCodec {
            max_line_bytes: max_line_bytes.max(1),
            scanned: 0,
            discarding: false,
        }
    }

    /// The line cap in bytes.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    fn too_long(&self) -> ProtocolError {
        ProtocolError::InvalidMessage(format!(
            "line exceeds the maximum length of {} bytes",
            self.max_line_bytes
        ))
    }

    /// Turns a complete line (newline removed) into an item, or `None` for a
    /// blank line.
    fn finish_line(&self, line: &[u8]) -> Option<LineItem> {
        if line.len() > self.max_line_bytes {
            return Some(Err(self.too_long()));
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            return None;
        }
        Some(match std::str::from_utf8(trimmed) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(ProtocolError::InvalidMessage(format!(
                "line is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ))),
        })
    }
}

impl Decoder for NdjsonCodec {
    type Item = LineItem;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<LineItem>> {
        loop {
            let newline = buf[self.scanned..]
                .iter()
                .position(|b| *b == b'\n')
                .map(|i| i + self.scanned);
            match (self.discarding, newline) {
                (true, Some(i)) => {
                    buf.advance(i + 1);
                    self.scanned = 0;
                    self.discarding = false;
                }
                (true, None) => {
                    buf.clear();
                    self.scanned = 0;
                    return Ok(None);
                }
                (false, Some(i)) => {
                    let line = buf.split_to(i + 1);
                    self.scanned = 0;
                    if let Some(item) = self.finish_line(&line[..i]) {
                        return Ok(Some(item));
                    }
                }
                (false, None) if buf.len() > self.max_line_bytes => {
                    buf.clear();
                    self.scanned = 0;
                    self.discarding = true;
                    return Ok(Some(Err(self.too_long())));
                }
                (false, None) => {
                    self.scanned = buf.len();
                    return Ok(None);
                }
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<LineItem>> {
        if let Some(item) = self.decode(buf)? {
            return Ok(Some(item));
        }
        // A last line without its newline still counts.
        self.scanned = 0;
        if self.discarding {
            self.discarding = false;
            buf.clear();
            return Ok(None);
        }
        if buf.is_empty() {
            return Ok(None);
        }
        let line = buf.split_to(buf.len());
        Ok(self.finish_line(&line))
    }
}

fn put_line(buf: &mut BytesMut, json: &[u8]) {
    buf.reserve(json.len() + 1);
    buf.put_slice(json);
    buf.put_u8(b'\n');
}

impl Encoder<&Reply> for NdjsonCodec {
    type Error = io::Error;

    /// Writes the reply with its one encoder ([`Reply::write_json`]).
    fn encode(&mut self, item: &Reply, buf: &mut BytesMut) -> io::Result<()> {
        let mut json = Vec::with_capacity(512);
        item.write_json(&mut json);
        put_line(buf, &json);
        Ok(())
    }
}

impl Encoder<Reply> for NdjsonCodec {
    type Error = io::Error;

    fn encode(&mut self, item: Reply, buf: &mut BytesMut) -> io::Result<()> {
        Encoder::<&Reply>::encode(self, &item, buf)
    }
}

impl Encoder<&Response> for NdjsonCodec {
    type Error = io::Error;

    fn encode(&mut self, item: &Response, buf: &mut BytesMut) -> io::Result<()> {
        let mut json = Vec::with_capacity(512);
        item.write_json(&mut json);
        put_line(buf, &json);
        Ok(())
    }
}

impl Encoder<Response> for NdjsonCodec {
    type Error = io::Error;

    fn encode(&mut self, item: Response, buf: &mut BytesMut) -> io::Result<()> {
        Encoder::<&Response>::encode(self, &item, buf)
    }
}

impl Encoder<&Request> for NdjsonCodec {
    type Error = io::Error;

    fn encode(&mut self, item: &Request, buf: &mut BytesMut) -> io::Result<()> {
        let json = serde_json::to_vec(&item.to_value()).map_err(io::Error::other)?;
        put_line(buf, &json);
        Ok(())
    }
}

impl Encoder<&str> for NdjsonCodec {
    type Error = io::Error;

    /// Writes a pre-serialised JSON line; a trailing newline is added.
    fn encode(&mut self, item: &str, buf: &mut BytesMut) -> io::Result<()> {
        put_line(buf, item.trim_end_matches('\n').as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(codec: &mut NdjsonCodec, buf: &mut BytesMut) -> Vec<LineItem> {
        let mut out = vec![];
        while let Some(item) = codec.decode(buf).unwrap() {
            out.push(item);
        }
        out
    }

    #[test]
    fn splits_lines_and_tolerates_crlf_blank_and_whitespace() {
        let mut c = NdjsonCodec::new();
        let mut buf = BytesMut::from(&b"{\"a\":1}\r\n\n   \n  {\"b\":2}  \t\n{\"c\""[..]);
        let items = drain(&mut c, &mut buf);
        assert_eq!(items, vec![Ok("{\"a\":1}".into()), Ok("{\"b\":2}".into())]);
        buf.extend_from_slice(b":3}\n");
        assert_eq!(drain(&mut c, &mut buf), vec![Ok("{\"c\":3}".into())]);
    }

    #[test]
    fn over_long_line_is_reported_once_then_resynchronises() {
        let mut c = NdjsonCodec::with_max_line_bytes(8);
        let mut buf = BytesMut::from(&b"0123456789abc"[..]);
        let items = drain(&mut c, &mut buf);
        assert_eq!(items.len(), 1);
        assert_eq!(
            items[0].as_ref().unwrap_err().code(),
            crate::ErrorCode::InvalidMessage
        );
        assert!(buf.is_empty(), "the long line is not buffered");
        buf.extend_from_slice(b"defghij\n{\"ok\":1}\n");
        assert_eq!(drain(&mut c, &mut buf), vec![Ok("{\"ok\":1}".into())]);
    }

    #[test]
    fn over_long_line_arriving_whole_is_rejected() {
        let mut c = NdjsonCodec::with_max_line_bytes(4);
        let mut buf = BytesMut::from(&b"123456\nabc\n"[..]);
        let items = drain(&mut c, &mut buf);
        assert!(items[0].is_err());
        assert_eq!(items[1], Ok("abc".into()));
    }

    #[test]
    fn invalid_utf8_is_an_error_item() {
        let mut c = NdjsonCodec::new();
        let mut buf = BytesMut::from(&b"{\"a\":\"\xff\"}\n{}\n"[..]);
        let items = drain(&mut c, &mut buf);
        assert!(items[0].as_ref().unwrap_err().to_string().contains("UTF-8"));
        assert_eq!(items[1], Ok("{}".into()));
    }

    #[test]
    fn last_line_without_newline_is_decoded_at_eof() {
        let mut c = NdjsonCodec::new();
        let mut buf = BytesMut::from(&b"{\"a\":1}"[..]);
        assert_eq!(c.decode(&mut buf).unwrap(), None);
        assert_eq!(
            c.decode_eof(&mut buf).unwrap(),
            Some(Ok("{\"a\":1}".into()))
        );
        assert_eq!(c.decode_eof(&mut buf).unwrap(), None);
    }
}
