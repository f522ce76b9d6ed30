//! The server's settings.

use oceansim_protocol::DEFAULT_MAX_LINE_BYTES;
use std::time::Duration;

/// Server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Most simultaneous connections; more are answered with an error and
    /// closed (0 is taken as 1; the binary refuses it).
    pub max_connections: usize,
    /// Longest accepted line (bytes).
    pub max_line_bytes: usize,
    /// How long a client may accept none of a reply's bytes before it is
    /// disconnected.
    pub write_stall: Duration,
    /// Reply bytes that may wait for slow readers, over all connections.
    pub max_unsent_bytes: usize,
    /// How long a line may take from its first byte to its newline; a
    /// client past it is sent an `invalid_message` saying so and
    /// disconnected (a half-sent line must not hold a slot forever).
    pub partial_line_timeout: Duration,
    /// How long a connection may wait between requests (from its last
    /// reply to the first byte of its next line) before it is told so and
    /// disconnected; `None` (the default) keeps idle controllers connected.
    pub idle_timeout: Option<Duration>,
    /// How long, once shutdown begins, requests being answered get to
    /// finish and write their replies.
    pub shutdown_grace: Duration,
    /// How long, once shutdown begins, an export still running may go on
    /// before it is cancelled: it stops at its next frame, removes what it
    /// wrote and answers `invalid_message` saying it was cancelled (a long
    /// recording's export can take minutes; a stopping server answers
    /// within seconds). Within [`ServerConfig::shutdown_grace`].
    pub export_grace: Duration,
    /// How long a connection keeps the server thread awake after writing a
    /// reply, waiting for the next line, before it lets the thread sleep
    /// (`Duration::ZERO`: never). A lockstep client that answers within it
    /// finds the server awake and its caches warm: a sleeping thread's
    /// wake-up is most of a round trip's cost beyond the work. The wait
    /// yields to every other task, and a connection whose client did not
    /// answer in time stops waiting for its next 2–1,024 replies (doubling
    /// with each miss), so a slow client costs at most one spin in many.
    pub spin: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: 64,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            write_stall: Duration::from_secs(10),
            max_unsent_bytes: 96 << 20,
            partial_line_timeout: Duration::from_secs(30),
            idle_timeout: None,
            shutdown_grace: Duration::from_secs(60),
            export_grace: Duration::from_secs(2),
            spin: DEFAULT_SPIN,
        }
    }
}

/// [`ServerConfig::spin`]'s default: longer than a compiled controller's
/// turnaround and Python's for a default step (`json.loads` of 9 KB).
pub const DEFAULT_SPIN: Duration = Duration::from_micros(200);
