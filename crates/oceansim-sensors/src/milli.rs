//! JSON text for sensor payloads, numbers in thousandths.
//!
//! Sensor readings are rounded to thousandths (1 mm, 1 mm/s, ...), and most
//! of a payload's bytes are such numbers. [`MilliFormatter`] writes a value
//! that is exactly the double nearest k/1000 from the integer k (a few
//! nanoseconds) instead of the general shortest-representation algorithm;
//! the text is the same as serde_json's (a property test holds them equal).

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io;

/// serde_json's compact formatting with a fast path for thousandths.
#[derive(Debug, Clone, Copy, Default)]
pub struct MilliFormatter;

/// `y` rounded half away from zero, for |y| < 2^52: a truncating
/// conversion instead of a call to libm's `round` (callers that need the
/// exact value check it).
#[inline]
pub fn round_i64(y: f64) -> i64 {
    if y >= 0.0 {
        (y + 0.5) as i64
    } else {
        (y - 0.5) as i64
    }
}

/// Largest |k| for the fast path: below it, distinct thousandths are
/// distinct doubles, so k/1000's shortest representation is its decimal.
const FAST_LIMIT: f64 = 1e12;

/// Writes exact thousandths `x` into `buf` (returns the length), or `None`
/// when `x` is not one (or is zero, whose sign serde_json keeps).
fn thousandths(x: f64, buf: &mut [u8; 40]) -> Option<usize> {
    let y = x * 1000.0;
    if x == 0.0 || !y.is_finite() || y.abs() >= FAST_LIMIT {
        return None;
    }
    let k = round_i64(y);
    if k as f64 / 1000.0 != x {
        return None;
    }
    let mut n = 0;
    if k < 0 {
        buf[0] = b'-';
        n = 1;
    }
    let k = k.unsigned_abs();
    let mut ib = itoa::Buffer::new();
    let int = ib.format(k / 1000).as_bytes();
    buf[n..n + int.len()].copy_from_slice(int);
    n += int.len();
    buf[n] = b'.';
    n += 1;
    let frac = k % 1000;
    let digits = [
        b'0' + (frac / 100) as u8,
        b'0' + (frac / 10 % 10) as u8,
        b'0' + (frac % 10) as u8,
    ];
    let keep = if digits[2] != b'0' {
        3
    } else if digits[1] != b'0' {
        2
    } else {
        1
    };
    buf[n..n + keep].copy_from_slice(&digits[..keep]);
    Some(n + keep)
}

/// Writes `x` as serde_json does; exact thousandths take the fast path.
pub fn write_f64<W: ?Sized + io::Write>(w: &mut W, x: f64) -> io::Result<()> {
    let mut buf = [0u8; 40];
    match thousandths(x, &mut buf) {
        Some(n) => w.write_all(&buf[..n]),
        None => w.write_all(zmij::Buffer::new().format_finite(x).as_bytes()),
    }
}

impl Formatter for MilliFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, x: f64) -> io::Result<()> {
        write_f64(w, x)
    }
}

/// A byte buffer for serde_json that appends short pieces (a comma, a
/// digit run) byte by byte rather than through a `memcpy` call: most of a
/// payload is such pieces.
struct Out<'a>(&'a mut Vec<u8>);

impl io::Write for Out<'_> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if buf.len() <= 8 {
            for &b in buf {
                self.0.push(b);
            }
        } else {
            self.0.extend_from_slice(buf);
        }
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Appends `value` as JSON to `out`, numbers through [`MilliFormatter`].
pub fn write_milli<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let at = out.len();
    let mut ser = serde_json::Serializer::with_formatter(Out(out), MilliFormatter);
    // Readings are plain data: numbers, strings, arrays, maps with string
    // keys; should one ever fail, it is written as null.
    if value.serialize(&mut ser).is_err() {
        out.truncate(at);
        out.extend_from_slice(b"null");
    }
}

/// `value` as JSON text, numbers through [`MilliFormatter`].
pub fn to_string_milli<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(1024);
    write_milli(&mut out, value);
    String::from_utf8(out).unwrap_or_else(|_| "null".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn serde_text(x: f64) -> String {
        serde_json::to_string(&x).unwrap()
    }

    fn fast_text(x: f64) -> String {
        let mut v = Vec::new();
        write_f64(&mut v, x).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn thousandths_read_as_serde_writes_them() {
        for x in [
            0.0,
            -0.0,
            5.0,
            1.5,
            -0.25,
            0.001,
            -0.001,
            12.345,
            1e9 + 0.5,
            1e-7,
            123.4567,
            1e300,
        ] {
            assert_eq!(fast_text(x), serde_text(x), "{x}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]
        #[test]
        fn any_rounded_value_formats_identically(k in -2_000_000_000_000i64..2_000_000_000_000, raw in proptest::num::f64::NORMAL) {
            let x = k as f64 / 1000.0;
            prop_assert_eq!(fast_text(x), serde_text(x));
            prop_assert_eq!(fast_text(raw), serde_text(raw));
        }
    }
}
