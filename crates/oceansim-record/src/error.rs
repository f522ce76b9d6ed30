//! The crate's error type.

use oceansim_protocol::ProtocolError;

/// What the export root's file system refuses or fails at. Each answers a
/// client as the protocol's `invalid_message` (see [`RecordError::code`]),
/// with the same text.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// A path or name the root refuses: outside it, through a link, not a
    /// plain name, inside an exported run or the spill.
    #[error("{0}")]
    Refused(String),
    /// Writing (or renaming) under the root failed: the disk, its budget.
    #[error("cannot write {path}: {source}")]
    Write {
        /// What was being written.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

impl RecordError {
    /// The protocol's stable code a client is answered with.
    pub fn code(&self) -> &'static str {
        match self {
            RecordError::Refused(_) | RecordError::Write { .. } => "invalid_message",
        }
    }
}

impl From<RecordError> for ProtocolError {
    fn from(e: RecordError) -> Self {
        ProtocolError::InvalidMessage(e.to_string())
    }
}
