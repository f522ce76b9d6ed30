//! The protocol's error type and its stable, machine-readable codes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Stable error codes of protocol v2, as written in the `error_code` field.
///
/// The string forms (`unknown_type`, ...) are part of the wire contract and
/// never change; clients match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request `type` is not supported.
    UnknownType,
    /// The request action is not recognized for its type.
    UnknownAction,
    /// The request is malformed or the action payload failed validation.
    InvalidMessage,
    /// A vector action has the wrong length or contains non-numeric values.
    InvalidActionShape,
    /// The requested runtime agent ID is not registered.
    UnknownAgent,
    /// The agent exists but does not support the requested control path.
    UnsupportedControlScheme,
    /// Runtime placement failed.
    SpawnFailed,
    /// The target pose is blocked.
    BlockedPose,
    /// The batch request contains too many child requests.
    BatchLimit,
}

impl ErrorCode {
    /// Every code, in the order of the protocol's error table.
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::UnknownType,
        ErrorCode::UnknownAction,
        ErrorCode::InvalidMessage,
        ErrorCode::InvalidActionShape,
        ErrorCode::UnknownAgent,
        ErrorCode::UnsupportedControlScheme,
        ErrorCode::SpawnFailed,
        ErrorCode::BlockedPose,
        ErrorCode::BatchLimit,
    ];

    /// The wire form of the code, e.g. `"invalid_action_shape"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownType => "unknown_type",
            ErrorCode::UnknownAction => "unknown_action",
            ErrorCode::InvalidMessage => "invalid_message",
            ErrorCode::InvalidActionShape => "invalid_action_shape",
            ErrorCode::UnknownAgent => "unknown_agent",
            ErrorCode::UnsupportedControlScheme => "unsupported_control_scheme",
            ErrorCode::SpawnFailed => "spawn_failed",
            ErrorCode::BlockedPose => "blocked_pose",
            ErrorCode::BatchLimit => "batch_limit",
        }
    }

    /// Parses the wire form of a code.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that can go wrong with a request, each variant tied to one
/// [`ErrorCode`]. Messages say what was expected and what came.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// `type` names no request type of protocol v2.
    #[error("unknown request type `{found}` (expected command, sim_control or batch)")]
    UnknownType {
        /// The type as sent.
        found: String,
    },
    /// `action` is not an action of the request's type.
    #[error("{0}")]
    UnknownAction(String),
    /// The line is not a valid request, or a payload failed validation.
    #[error("{0}")]
    InvalidMessage(String),
    /// A vector has the wrong length or non-numeric / non-finite entries.
    #[error("{0}")]
    InvalidActionShape(String),
    /// No runtime agent has this id.
    #[error("unknown agent `{0}`")]
    UnknownAgent(String),
    /// The agent exists but cannot be driven this way.
    #[error("{0}")]
    UnsupportedControlScheme(String),
    /// Spawning an agent or obstacle failed.
    #[error("{0}")]
    SpawnFailed(String),
    /// The requested pose is occupied or outside the map.
    #[error("{0}")]
    BlockedPose(String),
    /// A batch held more children than [`crate::MAX_BATCH_REQUESTS`].
    #[error("batch holds {count} requests; the limit is {limit}")]
    BatchLimit {
        /// Children in the rejected batch.
        count: usize,
        /// The limit in force.
        limit: usize,
    },
}

impl ProtocolError {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            ProtocolError::UnknownType { .. } => ErrorCode::UnknownType,
            ProtocolError::UnknownAction(_) => ErrorCode::UnknownAction,
            ProtocolError::InvalidMessage(_) => ErrorCode::InvalidMessage,
            ProtocolError::InvalidActionShape(_) => ErrorCode::InvalidActionShape,
            ProtocolError::UnknownAgent(_) => ErrorCode::UnknownAgent,
            ProtocolError::UnsupportedControlScheme(_) => ErrorCode::UnsupportedControlScheme,
            ProtocolError::SpawnFailed(_) => ErrorCode::SpawnFailed,
            ProtocolError::BlockedPose(_) => ErrorCode::BlockedPose,
            ProtocolError::BatchLimit { .. } => ErrorCode::BatchLimit,
        }
    }

    /// Builds an error of the given code with a free-form message.
    ///
    /// For [`ErrorCode::UnknownType`] and [`ErrorCode::BatchLimit`], whose
    /// variants hold structured fields, the message is kept as the found type
    /// and the limit is reported as unknown (0).
    pub fn with_code(code: ErrorCode, message: impl Into<String>) -> Self {
        let message = message.into();
        match code {
            ErrorCode::UnknownType => ProtocolError::UnknownType { found: message },
            ErrorCode::UnknownAction => ProtocolError::UnknownAction(message),
            ErrorCode::InvalidMessage => ProtocolError::InvalidMessage(message),
            ErrorCode::InvalidActionShape => ProtocolError::InvalidActionShape(message),
            ErrorCode::UnknownAgent => ProtocolError::UnknownAgent(message),
            ErrorCode::UnsupportedControlScheme => ProtocolError::UnsupportedControlScheme(message),
            ErrorCode::SpawnFailed => ProtocolError::SpawnFailed(message),
            ErrorCode::BlockedPose => ProtocolError::BlockedPose(message),
            ErrorCode::BatchLimit => ProtocolError::BatchLimit { count: 0, limit: 0 },
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        ProtocolError::InvalidMessage(message.into())
    }

    pub(crate) fn shape(message: impl Into<String>) -> Self {
        ProtocolError::InvalidActionShape(message.into())
    }
}

/// Result with the protocol's error.
pub type Result<T, E = ProtocolError> = std::result::Result<T, E>;

/// A number as an error message prints it: like `{}` for magnitudes in
/// [1e-4, 1e16) (`0.5`, `1000`), with an exponent beyond them
/// (`1.7976931348623157e308`, not the 309 digits `{}` writes), shortest
/// round-trip digits either way. A precision applies to both forms
/// (`{:.2}` gives `12.35` or `1.80e308`).
///
/// ```
/// use oceansim_protocol::Num;
/// assert_eq!(Num(f64::MAX).to_string(), "1.7976931348623157e308");
/// assert_eq!(format!("{:.2}", Num(-1e200)), "-1.00e200");
/// assert_eq!(Num(0.25).to_string(), "0.25");
/// assert_eq!(Num(1e-7).to_string(), "1e-7");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let a = x.abs();
        let plain = a == 0.0 || !a.is_finite() || (1e-4..1e16).contains(&a);
        match (plain, f.precision()) {
            (true, Some(p)) => write!(f, "{x:.p$}"),
            (true, None) => write!(f, "{x}"),
            (false, Some(p)) => write!(f, "{x:.p$e}"),
            (false, None) => write!(f, "{x:e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_wire_form() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
        }
        assert_eq!(ErrorCode::parse("nope"), None);
    }

    #[test]
    fn numbers_print_short_at_every_magnitude() {
        for (x, want) in [
            (f64::MAX, "1.7976931348623157e308"),
            (-f64::MAX, "-1.7976931348623157e308"),
            (1e155, "1e155"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (f64::from_bits(1), "5e-324"),
            (1e16, "1e16"),
            (9.5e15, "9500000000000000"),
            (1e-4, "0.0001"),
            (0.1, "0.1"),
            (5.0, "5"),
            (-0.0, "-0"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(Num(x).to_string(), want);
        }
        assert_eq!(format!("{:.2}", Num(f64::MAX)), "1.80e308");
        assert_eq!(format!("{:.2}", Num(-17.004)), "-17.00");
        for e in -330..=308 {
            let s = Num(1.2345678901234567 * 10f64.powi(e)).to_string();
            assert!(s.len() <= 24, "{s}");
        }
    }

    #[test]
    fn every_code_has_a_variant_that_reports_it() {
        for code in ErrorCode::ALL {
            assert_eq!(ProtocolError::with_code(code, "x").code(), code);
        }
    }
}
