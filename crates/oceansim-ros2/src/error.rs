//! The crate's error, with stable codes.

/// What went wrong decoding a CDR payload.
///
/// Offsets count bytes from the start of the data after the 4-byte
/// encapsulation header, the origin CDR alignment is measured from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Ros2Error {
    /// The payload ended before a value did.
    #[error("truncated CDR at offset {offset}: {what} needs {needed} bytes, {remaining} remain")]
    Truncated {
        /// What was being read (`"u32"`, `"octets"`, …).
        what: &'static str,
        /// Bytes the value needs (with its alignment padding).
        needed: usize,
        /// Bytes left in the payload.
        remaining: usize,
        /// Where the value starts.
        offset: usize,
    },
    /// The encapsulation header is not plain CDR (XCDR1, either endianness).
    #[error(
        "unsupported CDR encapsulation {found:02x?}: expected 00 01 (CDR_LE) or 00 00 (CDR_BE)"
    )]
    Encapsulation {
        /// The header's first two bytes.
        found: [u8; 2],
    },
    /// A sequence or string length that the remaining bytes cannot hold.
    #[error("CDR {what} length {count} at offset {offset} needs at least {needed} bytes, {remaining} remain")]
    Length {
        /// `"string"` or `"sequence"`.
        what: &'static str,
        /// The length read.
        count: u32,
        /// The fewest bytes that many elements take.
        needed: usize,
        /// Bytes left after the length.
        remaining: usize,
        /// Where the length starts.
        offset: usize,
    },
    /// A `bool` byte other than 0 or 1.
    #[error("invalid CDR bool at offset {offset}: expected 0 or 1, found {value}")]
    InvalidBool {
        /// The byte's offset.
        offset: usize,
        /// The byte.
        value: u8,
    },
    /// A string without its terminating NUL, or not UTF-8.
    #[error("invalid CDR string at offset {offset}: {reason}")]
    InvalidString {
        /// Where the string's length starts.
        offset: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// Bytes left after the message, more than alignment padding explains.
    #[error("{count} bytes left after the message (at most 3 bytes of padding expected)")]
    TrailingBytes {
        /// How many.
        count: usize,
    },
}

impl Ros2Error {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Ros2Error::Truncated { .. } => "ros2_cdr_truncated",
            Ros2Error::Encapsulation { .. } => "ros2_cdr_encapsulation",
            Ros2Error::Length { .. } => "ros2_cdr_length",
            Ros2Error::InvalidBool { .. } => "ros2_cdr_invalid_bool",
            Ros2Error::InvalidString { .. } => "ros2_cdr_invalid_string",
            Ros2Error::TrailingBytes { .. } => "ros2_cdr_trailing_bytes",
        }
    }
}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Ros2Error>;
