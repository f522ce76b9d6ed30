//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

/// One problem in a vehicle profile, with the JSON path of the offending
/// value (e.g. `thrusters[2].direction`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON path of the value.
    pub path: String,
    /// What was expected and what came.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

fn join(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(Problem::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Errors of the vehicle crate.
#[derive(Debug, thiserror::Error)]
pub enum VehicleError {
    /// The profile is not valid JSON of the profile schema.
    #[error("vehicle profile does not parse: {0}")]
    Parse(Problem),
    /// The profile parses but its values are inconsistent; every problem is
    /// listed.
    #[error("invalid vehicle profile: {}", join(.0))]
    Invalid(Vec<Problem>),
    /// No shipped profile has this name.
    #[error("unknown vehicle profile `{name}`; shipped profiles: {known}")]
    UnknownProfile {
        /// The requested name.
        name: String,
        /// The shipped names, comma separated.
        known: String,
    },
    /// Reading a profile file failed.
    #[error("cannot read vehicle profile {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A thruster command vector of the wrong length or with non-finite
    /// values.
    #[error("thruster command: expected {expected} finite values, got {got}")]
    ThrusterCommand {
        /// Thrusters of the vehicle.
        expected: usize,
        /// What came (length, or index of a non-finite value).
        got: String,
    },
}

impl VehicleError {
    /// A stable machine-readable code for this error.
    pub fn code(&self) -> &'static str {
        match self {
            VehicleError::Parse(_) => "profile_parse",
            VehicleError::Invalid(_) => "profile_invalid",
            VehicleError::UnknownProfile { .. } => "unknown_profile",
            VehicleError::Io { .. } => "profile_io",
            VehicleError::ThrusterCommand { .. } => "invalid_action_shape",
        }
    }

    /// The problems of a parse or validation error, empty otherwise.
    pub fn problems(&self) -> Vec<Problem> {
        match self {
            VehicleError::Parse(p) => vec![p.clone()],
            VehicleError::Invalid(p) => p.clone(),
            _ => Vec::new(),
        }
    }
}

/// Result with the vehicle crate's error.
pub type Result<T, E = VehicleError> = std::result::Result<T, E>;
