//! What a connection is opened with and what its replies are: the
//! defaults, the retry options, the reply envelope.

use serde_json::Value;
use std::time::Duration;

/// Default host and port of the simulator.
pub const DEFAULT_ADDR: &str = "127.0.0.1:9876";
/// Default per-request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Timeout of `export_dataset` and `save_snapshot_json`, which write files
/// and can take longer than control commands.
pub const EXPORT_TIMEOUT: Duration = Duration::from_secs(60);
/// Longest reply line read (a large occupancy grid is tens of MiB).
pub const MAX_REPLY_BYTES: usize = 256 << 20;

/// How [`OceanSimClient::connect_with`](super::OceanSimClient::connect_with) retries a refused connection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConnectOptions {
    /// Attempts after the first one (the SDK's `max_retries`, default 10).
    pub retries: u32,
    /// Wait between attempts (default 1 s).
    pub interval: Duration,
    /// Default timeout of each request (default 5 s).
    pub timeout: Duration,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            retries: 10,
            interval: Duration::from_secs(1),
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl ConnectOptions {
    /// One attempt, no retry.
    pub fn once() -> Self {
        ConnectOptions {
            retries: 0,
            ..Default::default()
        }
    }
}

/// A reply envelope (`state`, `response`, or, inside a batch, `error`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply(pub Value);

impl Reply {
    /// The reply's `data` object (`Null` when absent).
    pub fn data(&self) -> &Value {
        self.0.get("data").unwrap_or(&Value::Null)
    }
    /// Takes the `data` object out.
    pub fn into_data(mut self) -> Value {
        self.0
            .get_mut("data")
            .map(Value::take)
            .unwrap_or(Value::Null)
    }
    /// The reply's `type` (`state`, `response`, `error`).
    pub fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("")
    }
    /// The action the reply answers.
    pub fn action(&self) -> &str {
        self.0.get("action").and_then(Value::as_str).unwrap_or("")
    }
    /// Simulation time of the reply (s), when it carries one.
    pub fn sim_time(&self) -> Option<f64> {
        self.0.get("sim_time").and_then(Value::as_f64)
    }
    /// The whole envelope.
    pub fn envelope(&self) -> &Value {
        &self.0
    }
}
