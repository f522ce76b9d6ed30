//! The bridge's one error type.

/// What can go wrong starting or running the bridge.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The configuration is not usable (a bad endpoint, domain id,
    /// namespace or node name); nothing was opened.
    #[error("bridge_config: {0}")]
    Config(String),
    /// Zenoh refused: the endpoint is taken, the router is unreachable, a
    /// declaration failed.
    #[error("bridge_zenoh: {0}")]
    Zenoh(String),
    /// The DDS participant could not be made: no free participant id or
    /// port on the domain, a topic, reader or writer refused.
    #[error("bridge_dds: {0}")]
    Dds(String),
    /// A message that arrived on a subscribed topic is not what the topic
    /// carries (truncated or oversized CDR, non-finite values, a wrong
    /// frame); it is counted and dropped.
    #[error("bridge_bad_message: {0}")]
    BadMessage(String),
}

impl BridgeError {
    /// The stable machine-readable code (`bridge_config`, `bridge_zenoh`,
    /// `bridge_dds`, `bridge_bad_message`).
    pub fn code(&self) -> &'static str {
        match self {
            BridgeError::Config(_) => "bridge_config",
            BridgeError::Zenoh(_) => "bridge_zenoh",
            BridgeError::Dds(_) => "bridge_dds",
            BridgeError::BadMessage(_) => "bridge_bad_message",
        }
    }
}

/// The bridge's results.
pub type Result<T> = std::result::Result<T, BridgeError>;
