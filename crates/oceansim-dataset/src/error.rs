//! The crate's error, with stable codes.

use std::path::Path;

/// What went wrong reading a run.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file is not what the run layout says.
    #[error("{file}:{line}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// Line (1-based; 0 when unknown).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The files disagree with each other.
    #[error("inconsistent run: {0}")]
    Inconsistent(String),
}

impl DatasetError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        DatasetError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            DatasetError::Io { .. } => "dataset_io",
            DatasetError::Parse { .. } => "dataset_parse",
            DatasetError::Inconsistent(_) => "dataset_inconsistent",
        }
    }
}
