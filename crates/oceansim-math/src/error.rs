//! The crate's error type.

/// Errors of the math crate, each with a stable [`code`](MathError::code).
#[derive(Debug, thiserror::Error)]
pub enum MathError {
    /// An array of the wrong shape.
    #[error("{name}: expected shape {expected}, got {got}")]
    Shape {
        /// The argument.
        name: String,
        /// What was expected, e.g. `(N, 2)`.
        expected: String,
        /// What came.
        got: String,
    },
    /// An edge names a node outside 0..N.
    #[error("edge ({tail}, {head}) names a node outside 0..{n}")]
    EdgeOutOfRange {
        /// Tail node.
        tail: usize,
        /// Head node.
        head: usize,
        /// Number of nodes.
        n: usize,
    },
    /// Too few or degenerate point pairs for a rigid fit.
    #[error("rigid_transform: {0}")]
    Degenerate(String),
    /// A bad parameter.
    #[error("{0}")]
    Invalid(String),
    /// A flight-log problem.
    #[error("flight log: {0}")]
    Log(String),
    /// Reading a file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl MathError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            MathError::Shape { .. } => "shape_mismatch",
            MathError::EdgeOutOfRange { .. } => "edge_out_of_range",
            MathError::Degenerate(_) => "degenerate_points",
            MathError::Invalid(_) => "invalid_argument",
            MathError::Log(_) => "flight_log",
            MathError::Io { .. } => "io",
        }
    }
}

/// Result with the math error.
pub type Result<T, E = MathError> = std::result::Result<T, E>;
