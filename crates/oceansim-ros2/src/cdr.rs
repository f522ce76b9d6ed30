//! Plain CDR (XCDR1), the wire format of ROS 2's rmw layers and of rosbag2's
//! `cdr` serialization format.
//!
//! A payload is a 4-byte encapsulation header, then the fields in order.
//! Every primitive is aligned to its own size (1, 2, 4 or 8), counted from
//! the first byte after the header. A `string` is a `u32` length that
//! includes the terminating NUL, the bytes, then the NUL; an unbounded
//! sequence is a `u32` count then its elements; a fixed array is its elements
//! alone; a `bool` is one byte.

use crate::error::{Result, Ros2Error};

/// The encapsulation header this crate writes: plain CDR, little endian
/// (`CDR_LE`), no options.
pub const CDR_LE_HEADER: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// Bytes of the encapsulation header.
const HEADER_LEN: usize = 4;

macro_rules! write_primitive {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, value: $ty) {
            self.align(std::mem::size_of::<$ty>());
            self.buf.extend_from_slice(&value.to_le_bytes());
        }
    )*};
}

/// Writes a little-endian CDR payload, header included.
///
/// ```
/// use oceansim_ros2::CdrWriter;
///
/// let mut w = CdrWriter::new();
/// w.write_u8(7);
/// w.write_f64(1.0); // aligned to 8 after the header: 7 bytes of padding
/// assert_eq!(w.position(), 16);
/// assert_eq!(&w.as_bytes()[..5], &[0x00, 0x01, 0x00, 0x00, 7]);
/// ```
#[derive(Debug, Clone)]
pub struct CdrWriter {
    buf: Vec<u8>,
}

impl Default for CdrWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl CdrWriter {
    /// A writer holding only the encapsulation header.
    pub fn new() -> Self {
        Self::with_capacity(64)
    }

    /// A writer with room for `capacity` bytes of data after the header.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut buf = Vec::with_capacity(HEADER_LEN + capacity);
        buf.extend_from_slice(&CDR_LE_HEADER);
        CdrWriter { buf }
    }

    /// Bytes written after the header (the offset alignment is counted from).
    pub fn position(&self) -> usize {
        self.buf.len() - HEADER_LEN
    }

    /// The payload so far, header included.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The finished payload, header included.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Zero padding up to the next multiple of `size` (a power of two).
    pub fn align(&mut self, size: usize) {
        let pad = padding(self.position(), size);
        self.buf.resize(self.buf.len() + pad, 0);
    }

    write_primitive! {
        /// An `uint8` (also `byte` and `char`).
        write_u8: u8;
        /// An `int8`.
        write_i8: i8;
        /// An `uint16`.
        write_u16: u16;
        /// An `int16`.
        write_i16: i16;
        /// An `uint32`.
        write_u32: u32;
        /// An `int32`.
        write_i32: i32;
        /// An `uint64`.
        write_u64: u64;
        /// An `int64`.
        write_i64: i64;
        /// A `float32`.
        write_f32: f32;
        /// A `float64`.
        write_f64: f64;
    }

    /// A `bool`: one byte, 0 or 1.
    pub fn write_bool(&mut self, value: bool) {
        self.buf.push(u8::from(value));
    }

    /// A `string`: length with the NUL, bytes, NUL.
    ///
    /// # Panics
    ///
    /// If the string is 4 GiB or longer (CDR lengths are `u32`).
    pub fn write_string(&mut self, value: &str) {
        self.write_len(value.len() + 1);
        self.buf.extend_from_slice(value.as_bytes());
        self.buf.push(0);
    }

    /// A sequence's element count.
    ///
    /// # Panics
    ///
    /// If `count` does not fit in a `u32`.
    pub fn write_len(&mut self, count: usize) {
        let count = u32::try_from(count).expect("CDR lengths are u32: sequence or string too long");
        self.write_u32(count);
    }

    /// Raw octets, unaligned (the elements of a `uint8[]`).
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }
}

/// Bytes of padding that align `offset` to `size` (a power of two).
fn padding(offset: usize, size: usize) -> usize {
    offset.wrapping_neg() & (size - 1)
}

macro_rules! read_primitive {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self) -> Result<$ty> {
            const N: usize = std::mem::size_of::<$ty>();
            let bytes: [u8; N] = self
                .take_aligned(N, stringify!($ty))?
                .try_into()
                .expect("take_aligned returns exactly N bytes");
            Ok(if self.big_endian {
                <$ty>::from_be_bytes(bytes)
            } else {
                <$ty>::from_le_bytes(bytes)
            })
        }
    )*};
}

/// Reads a CDR payload; every read checks the bytes left first, so
/// truncated or garbage input gives an error, never a panic.
///
/// ```
/// use oceansim_ros2::CdrReader;
///
/// let payload = [0x00, 0x01, 0x00, 0x00, 3, 0, 0, 0, b'h', b'i', 0];
/// let mut r = CdrReader::new(&payload)?;
/// assert_eq!(r.read_string()?, "hi");
/// assert!(r.read_u32().is_err()); // nothing left
/// # Ok::<(), oceansim_ros2::Ros2Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CdrReader<'a> {
    data: &'a [u8],
    pos: usize,
    big_endian: bool,
}

impl<'a> CdrReader<'a> {
    /// A reader over a whole payload: checks the encapsulation header (plain
    /// CDR, either endianness; the options bytes are ignored) and starts
    /// after it.
    pub fn new(payload: &'a [u8]) -> Result<Self> {
        let Some((header, data)) = payload.split_first_chunk::<HEADER_LEN>() else {
            return Err(Ros2Error::Truncated {
                what: "encapsulation header",
                needed: HEADER_LEN,
                remaining: payload.len(),
                offset: 0,
            });
        };
        let big_endian = match [header[0], header[1]] {
            [0x00, 0x01] => false,
            [0x00, 0x00] => true,
            found => return Err(Ros2Error::Encapsulation { found }),
        };
        Ok(Self::from_body(data, big_endian))
    }

    /// A reader over the data after an encapsulation header.
    pub fn from_body(data: &'a [u8], big_endian: bool) -> Self {
        CdrReader {
            data,
            pos: 0,
            big_endian,
        }
    }

    /// Bytes read so far, after the header.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Whether the payload is big endian.
    pub fn is_big_endian(&self) -> bool {
        self.big_endian
    }

    /// Succeeds if at most alignment padding (3 bytes) is left.
    pub fn finish(&self) -> Result<()> {
        match self.remaining() {
            0..=3 => Ok(()),
            count => Err(Ros2Error::TrailingBytes { count }),
        }
    }

    /// Skips the padding before a value of `size` bytes, then takes it.
    fn take_aligned(&mut self, size: usize, what: &'static str) -> Result<&'a [u8]> {
        let pad = padding(self.pos, size);
        let remaining = self.remaining();
        if pad + size > remaining {
            return Err(Ros2Error::Truncated {
                what,
                needed: pad + size,
                remaining,
                offset: self.pos,
            });
        }
        let start = self.pos + pad;
        self.pos = start + size;
        Ok(&self.data[start..self.pos])
    }

    read_primitive! {
        /// An `uint8` (also `byte` and `char`).
        read_u8: u8;
        /// An `int8`.
        read_i8: i8;
        /// An `uint16`.
        read_u16: u16;
        /// An `int16`.
        read_i16: i16;
        /// An `uint32`.
        read_u32: u32;
        /// An `int32`.
        read_i32: i32;
        /// An `uint64`.
        read_u64: u64;
        /// An `int64`.
        read_i64: i64;
        /// A `float32`.
        read_f32: f32;
        /// A `float64`.
        read_f64: f64;
    }

    /// A `bool`: 0 or 1, anything else is an error (as Fast-CDR does).
    pub fn read_bool(&mut self) -> Result<bool> {
        let offset = self.pos;
        match self.read_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(Ros2Error::InvalidBool { offset, value }),
        }
    }

    /// A `string`. A length of 0 (no NUL) reads as empty, as Fast-CDR
    /// accepts it.
    pub fn read_string(&mut self) -> Result<String> {
        let offset = self.pos;
        let len = self.read_u32()?;
        if len == 0 {
            return Ok(String::new());
        }
        let bytes = self.read_counted(len, 1, "string", offset)?;
        let Some((&0, text)) = bytes.split_last() else {
            return Err(Ros2Error::InvalidString {
                offset,
                reason: "no terminating NUL",
            });
        };
        String::from_utf8(text.to_vec()).map_err(|_| Ros2Error::InvalidString {
            offset,
            reason: "not UTF-8",
        })
    }

    /// A sequence's element count, checked against the bytes left: each
    /// element takes at least `min_element_size` bytes (at least 1).
    pub fn read_len(&mut self, min_element_size: usize) -> Result<usize> {
        let offset = self.pos;
        let count = self.read_u32()?;
        let needed = (count as usize).saturating_mul(min_element_size.max(1));
        let remaining = self.remaining();
        if needed > remaining {
            return Err(Ros2Error::Length {
                what: "sequence",
                count,
                needed,
                remaining,
                offset,
            });
        }
        Ok(count as usize)
    }

    /// `n` raw octets, unaligned (the elements of a `uint8[]`).
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let remaining = self.remaining();
        if n > remaining {
            return Err(Ros2Error::Truncated {
                what: "octets",
                needed: n,
                remaining,
                offset: self.pos,
            });
        }
        let start = self.pos;
        self.pos += n;
        Ok(&self.data[start..self.pos])
    }

    /// `count` elements of `size` bytes after a length read at `offset`.
    fn read_counted(
        &mut self,
        count: u32,
        size: usize,
        what: &'static str,
        offset: usize,
    ) -> Result<&'a [u8]> {
        let needed = (count as usize).saturating_mul(size);
        let remaining = self.remaining();
        if needed > remaining {
            return Err(Ros2Error::Length {
                what,
                count,
                needed,
                remaining,
                offset,
            });
        }
        let start = self.pos;
        self.pos += needed;
        Ok(&self.data[start..self.pos])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(w: &CdrWriter) -> &[u8] {
        &w.as_bytes()[HEADER_LEN..]
    }

    #[test]
    fn header_is_cdr_le() {
        assert_eq!(CdrWriter::new().into_bytes(), vec![0x00, 0x01, 0x00, 0x00]);
    }

    #[test]
    fn alignment_counts_from_after_the_header() {
        // u8 at 0, then f64 at 8 (7 bytes of padding), i.e. byte 12 of the
        // buffer: counting from the buffer start would give 8 (3 bytes).
        let mut w = CdrWriter::new();
        w.write_u8(0xAA);
        w.write_f64(1.5);
        let mut expected = vec![0xAA, 0, 0, 0, 0, 0, 0, 0];
        expected.extend_from_slice(&1.5f64.to_le_bytes());
        assert_eq!(body(&w), &expected[..]);
    }

    #[test]
    fn each_primitive_aligns_to_its_size() {
        let mut w = CdrWriter::new();
        w.write_u8(1); // 0
        w.write_u16(0x0302); // 2..4
        w.write_u8(4); // 4
        w.write_u32(0x0807_0605); // 8..12
        w.write_bool(true); // 12
        w.write_i16(-2); // 14..16
        w.write_u64(0x1111_2222_3333_4444); // 16..24
        #[rustfmt::skip]
        let expected = [
            1, 0, 2, 3, 4, 0, 0, 0,
            5, 6, 7, 8, 1, 0, 0xFE, 0xFF,
            0x44, 0x44, 0x33, 0x33, 0x22, 0x22, 0x11, 0x11,
        ];
        assert_eq!(body(&w), &expected);
    }

    #[test]
    fn string_layout() {
        let mut w = CdrWriter::new();
        w.write_string("hi"); // 0..4 length 3, 4..7 "hi\0"
        w.write_f64(2.0); // 7 → padded to 8
        w.write_string(""); // 16..20 length 1, 20 NUL
        let mut expected = vec![3, 0, 0, 0, b'h', b'i', 0, 0];
        expected.extend_from_slice(&2.0f64.to_le_bytes());
        expected.extend_from_slice(&[1, 0, 0, 0, 0]);
        assert_eq!(body(&w), &expected[..]);
    }

    #[test]
    fn sequence_layout() {
        let mut w = CdrWriter::new();
        w.write_len(2); // 0..4
        w.write_f64(1.0); // 8..16, after 4 bytes of padding
        w.write_f64(-1.0); // 16..24
        let mut expected = vec![2, 0, 0, 0, 0, 0, 0, 0];
        expected.extend_from_slice(&1.0f64.to_le_bytes());
        expected.extend_from_slice(&(-1.0f64).to_le_bytes());
        assert_eq!(body(&w), &expected[..]);
    }

    #[test]
    fn reads_what_was_written() {
        let mut w = CdrWriter::new();
        w.write_i8(-3);
        w.write_f32(0.25);
        w.write_string("frame");
        w.write_i64(-7);
        w.write_bool(false);
        w.write_len(3);
        w.write_bytes(&[9, 8, 7]);
        w.write_f64(f64::MAX);
        let bytes = w.into_bytes();
        let mut r = CdrReader::new(&bytes).unwrap();
        assert_eq!(r.read_i8().unwrap(), -3);
        assert_eq!(r.read_f32().unwrap(), 0.25);
        assert_eq!(r.read_string().unwrap(), "frame");
        assert_eq!(r.read_i64().unwrap(), -7);
        assert!(!r.read_bool().unwrap());
        let n = r.read_len(1).unwrap();
        assert_eq!(r.read_bytes(n).unwrap(), &[9, 8, 7]);
        assert_eq!(r.read_f64().unwrap(), f64::MAX);
        assert_eq!(r.remaining(), 0);
        r.finish().unwrap();
    }

    #[test]
    fn reads_big_endian() {
        let payload = [0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 0, 5];
        let mut r = CdrReader::new(&payload).unwrap();
        assert!(r.is_big_endian());
        assert_eq!(r.read_u16().unwrap(), 0x0102);
        assert_eq!(r.read_u64().unwrap_err().code(), "ros2_cdr_truncated");
        let mut r = CdrReader::new(&payload).unwrap();
        r.read_u16().unwrap();
        assert_eq!(r.read_u32().unwrap(), 5); // at 4, after 2 bytes of padding
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn errors_on_bad_input() {
        let err = CdrReader::new(&[0x00, 0x01]).unwrap_err();
        assert_eq!(err.code(), "ros2_cdr_truncated");
        let err = CdrReader::new(&[0x00, 0x03, 0, 0]).unwrap_err();
        assert_eq!(err, Ros2Error::Encapsulation { found: [0, 3] });

        // u32 with two bytes left.
        let mut r = CdrReader::new(&[0, 1, 0, 0, 1, 2]).unwrap();
        let err = r.read_u32().unwrap_err();
        assert_eq!(
            err,
            Ros2Error::Truncated {
                what: "u32",
                needed: 4,
                remaining: 2,
                offset: 0
            }
        );

        // A string claiming 4 GiB.
        let mut r = CdrReader::new(&[0, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, b'a', 0]).unwrap();
        assert_eq!(r.read_string().unwrap_err().code(), "ros2_cdr_length");
        // No NUL, and not UTF-8.
        let mut r = CdrReader::new(&[0, 1, 0, 0, 2, 0, 0, 0, b'a', b'b']).unwrap();
        assert_eq!(
            r.read_string().unwrap_err().code(),
            "ros2_cdr_invalid_string"
        );
        let mut r = CdrReader::new(&[0, 1, 0, 0, 2, 0, 0, 0, 0xFF, 0]).unwrap();
        assert_eq!(
            r.read_string().unwrap_err().code(),
            "ros2_cdr_invalid_string"
        );

        // A sequence of f64 longer than the payload.
        let mut r = CdrReader::new(&[0, 1, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(r.read_len(8).unwrap_err().code(), "ros2_cdr_length");

        let mut r = CdrReader::new(&[0, 1, 0, 0, 2]).unwrap();
        assert_eq!(
            r.read_bool().unwrap_err(),
            Ros2Error::InvalidBool {
                offset: 0,
                value: 2
            }
        );

        let r = CdrReader::new(&[0, 1, 0, 0, 1, 2, 3, 4]).unwrap();
        assert_eq!(r.finish().unwrap_err().code(), "ros2_cdr_trailing_bytes");
    }

    #[test]
    fn empty_string_with_zero_length_reads_as_empty() {
        let mut r = CdrReader::new(&[0, 1, 0, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(r.read_string().unwrap(), "");
    }

    #[test]
    fn options_bytes_are_ignored() {
        // Fast-DDS may put the padding count in the options bytes.
        let mut r = CdrReader::new(&[0, 1, 0, 3, 7, 0, 0, 0]).unwrap();
        assert_eq!(r.read_u8().unwrap(), 7);
        r.finish().unwrap();
    }
}
