//! The client's error type.

use crate::cloud::CloudError;
use crate::schema::SensorSchemaError;
use oceansim_agents::AgentError;
use std::time::Duration;

/// Result alias of this crate.
pub type Result<T, E = ClientError> = std::result::Result<T, E>;

/// Everything a client call can fail with. [`ClientError::code`] is a
/// stable machine-readable code; for [`ClientError::Protocol`] it is the
/// server's own `error_code`.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No connection: refused after every retry, closed by the server, or
    /// never opened.
    #[error("not connected to the simulator at {addr}: {reason}")]
    Connection {
        /// The address the client was given.
        addr: String,
        /// What happened.
        reason: String,
    },
    /// No reply within the request's timeout.
    #[error("`{action}` got no reply within {timeout:?}")]
    Timeout {
        /// The action that was waited for.
        action: String,
        /// The timeout that ran out.
        timeout: Duration,
    },
    /// The simulator answered with an error envelope, or with a reply that
    /// is empty or does not match the request.
    #[error("`{action}` failed: {code}: {message}")]
    Protocol {
        /// The server's `error_code` (`invalid_message`, `unknown_agent`, ...)
        /// or this client's `empty_reply` / `mismatched_reply`.
        code: String,
        /// The server's message.
        message: String,
        /// The request's action.
        action: String,
        /// The full reply, when there was one.
        reply: Option<serde_json::Value>,
    },
    /// An action rejected before any byte was sent (wrong shape, out of
    /// bounds, unsupported control scheme).
    #[error(transparent)]
    Action(#[from] AgentError),
    /// A sensor payload that does not follow the sensor schema.
    #[error(transparent)]
    Schema(#[from] SensorSchemaError),
    /// A point cloud that cannot be read.
    #[error(transparent)]
    Cloud(#[from] CloudError),
    /// A caller's argument this client refuses before sending (a non-finite
    /// gain, a bad option).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl ClientError {
    /// Stable machine-readable code: `connection_error`, `timeout`, the
    /// server's `error_code` for protocol errors, `empty_reply`,
    /// `mismatched_reply`, the agent layer's code for rejected actions
    /// (`invalid_action_shape`, ...), the schema's and cloud helpers' codes,
    /// `invalid_argument`.
    pub fn code(&self) -> &str {
        match self {
            ClientError::Connection { .. } => "connection_error",
            ClientError::Timeout { .. } => "timeout",
            ClientError::Protocol { code, .. } => code,
            ClientError::Action(e) => e.code().as_str(),
            ClientError::Schema(e) => e.code(),
            ClientError::Cloud(e) => e.code(),
            ClientError::InvalidArgument(_) => "invalid_argument",
        }
    }

    pub(crate) fn protocol(
        code: &str,
        message: impl Into<String>,
        action: &str,
        reply: Option<serde_json::Value>,
    ) -> ClientError {
        ClientError::Protocol {
            code: code.to_owned(),
            message: message.into(),
            action: action.to_owned(),
            reply,
        }
    }
}
