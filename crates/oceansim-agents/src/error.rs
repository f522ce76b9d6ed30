//! The crate's error type; every variant maps to a protocol error code.

use oceansim_protocol::{ErrorCode, Num, ProtocolError};
use std::fmt;

/// One problem found while validating a definition or scenario, with the
/// JSON path of the offending value (e.g. `agents[1].location`).
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

/// Errors of the agent layer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AgentError {
    /// A control-scheme name that is neither canonical nor an alias.
    #[error("unknown control scheme `{name}`; valid schemes: {valid}")]
    UnknownControlScheme {
        /// The name as given.
        name: String,
        /// The canonical names, comma separated.
        valid: String,
    },
    /// An action vector of the wrong length or with non-finite entries.
    #[error("invalid action shape for {scheme}: {message}")]
    ActionShape {
        /// Scheme whose action space rejected the vector.
        scheme: String,
        /// What was expected and what came.
        message: String,
    },
    /// An action value outside its field's bounds.
    #[error("{field} = {} is {side} bound {}", Num(*.value), Num(*.bound))]
    OutOfBounds {
        /// Field name, e.g. `thruster_2`.
        field: String,
        /// The offending value.
        value: f64,
        /// `below the low` or `above the high`.
        side: &'static str,
        /// The bound it violates.
        bound: f64,
    },
    /// A scheme with no protocol mapping (e.g. `custom_dynamics_6dof`).
    #[error("control scheme {scheme} is {reason}")]
    Unsupported {
        /// The scheme.
        scheme: String,
        /// Why it cannot be dispatched.
        reason: String,
    },
    /// An agent definition or scenario `agents` array with problems; every
    /// problem is listed.
    #[error("invalid agent definition: {}", join(.0))]
    Invalid(Vec<Problem>),
}

impl AgentError {
    /// The protocol error code this error is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            AgentError::UnknownControlScheme { .. } => ErrorCode::InvalidMessage,
            AgentError::ActionShape { .. } => ErrorCode::InvalidActionShape,
            AgentError::OutOfBounds { .. } => ErrorCode::InvalidMessage,
            AgentError::Unsupported { .. } => ErrorCode::UnsupportedControlScheme,
            AgentError::Invalid(_) => ErrorCode::InvalidMessage,
        }
    }

    /// The problems of an [`AgentError::Invalid`], empty otherwise.
    pub fn problems(&self) -> &[Problem] {
        match self {
            AgentError::Invalid(p) => p,
            _ => &[],
        }
    }
}

impl From<AgentError> for ProtocolError {
    fn from(e: AgentError) -> Self {
        ProtocolError::with_code(e.code(), e.to_string())
    }
}

/// Result with the agent layer's error.
pub type Result<T, E = AgentError> = std::result::Result<T, E>;
