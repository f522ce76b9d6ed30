//! The crate's error type.

use oceansim_protocol::ProtocolError;

/// An export's error that is neither a client's (those are
/// [`ProtocolError`]s) nor a bare disk failure ([`std::io::Error`]).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading the record or writing a file failed (code `io`).
    #[error("{path}: {source}")]
    Io {
        /// What was being read or written.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// An image whose pixels do not fill its size (code `image`).
    #[error(transparent)]
    Image(#[from] oceansim_sensors::SensorError),
}

impl ExportError {
    /// A stable machine-readable code (the protocol's).
    pub fn code(&self) -> &'static str {
        match self {
            ExportError::Io { .. } => "io",
            ExportError::Image(e) => e.code(),
        }
    }
}

impl From<ExportError> for ProtocolError {
    fn from(e: ExportError) -> Self {
        ProtocolError::InvalidMessage(e.to_string())
    }
}

/// Result with the export error.
pub type Result<T, E = ExportError> = std::result::Result<T, E>;
