//! What the viewer's connections share with its handle: the newest
//! message of each kind, the page's requests, the counters.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot, watch};

/// The newest message of each sensor published, by key: its sample's
/// sequence number and the `sensor` message.
pub type SensorBundle = std::collections::BTreeMap<String, (u64, Arc<str>)>;

/// Where a replay's panels get their samples: the `sensor` message of
/// sensor `key`'s latest sample at or before `t` (s), with its sequence
/// number.
pub trait SensorSource: Send + Sync {
    /// The sample of `key` a page at time `t` shows, if any.
    fn at(&self, key: &str, t: f64) -> Option<(u64, Arc<str>)>;

    /// The sequence number [`SensorSource::at`] would answer, cheaply if
    /// the source can (a page already shown that sample is sent nothing).
    fn sequence_at(&self, key: &str, t: f64) -> Option<u64> {
        self.at(key, t).map(|(seq, _)| seq)
    }
}

/// What the page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The simulator, live; the page can pause it and set its time scale.
    Live,
    /// An ECS engine's entities, live.
    Swarm,
    /// A recorded run, with a time slider.
    Replay,
}

impl Mode {
    /// Its name in the page's `hello` message.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Live => "live",
            Mode::Swarm => "swarm",
            Mode::Replay => "replay",
        }
    }
}

/// A protocol request a page sent (the page's pause, resume and
/// time-scale controls), for the simulation to answer.
#[derive(Debug)]
pub struct PageRequest {
    /// The request, one line of protocol v2 JSON.
    pub line: String,
    /// Where the response line goes.
    pub reply: oneshot::Sender<String>,
}

/// What the connections read: the newest message of each kind.
pub(crate) struct Shared {
    pub(crate) mode: Mode,
    pub(crate) title: String,
    pub(crate) scene: watch::Receiver<Option<Arc<str>>>,
    pub(crate) overlays: watch::Receiver<Option<Arc<str>>>,
    pub(crate) frame: watch::Receiver<Option<Arc<str>>>,
    pub(crate) sensors: watch::Receiver<Arc<SensorBundle>>,
    /// Per sensor key, how many pages show it.
    pub(crate) demand: std::sync::Mutex<std::collections::BTreeMap<String, usize>>,
    /// A replay's samples, once set.
    pub(crate) sensor_source: std::sync::OnceLock<Arc<dyn SensorSource>>,
    pub(crate) sensor_messages_sent: AtomicU64,
    /// Bumped by [`Viewer::clear_sensors`](crate::Viewer::clear_sensors): pages forget what they were sent.
    pub(crate) sensor_epoch: AtomicU64,
    pub(crate) requests: Option<mpsc::Sender<PageRequest>>,
    /// Whether someone answers the requests (set when they are taken).
    pub(crate) controls: AtomicBool,
    pub(crate) clients: AtomicUsize,
    /// Sockets open ([`MAX_CONNECTIONS`](crate::MAX_CONNECTIONS) at most).
    pub(crate) connections: AtomicUsize,
    /// Connections closed at once because [`MAX_CONNECTIONS`](crate::MAX_CONNECTIONS) were open.
    pub(crate) refused: AtomicU64,
    pub(crate) frames_sent: AtomicU64,
    pub(crate) max_fps: f64,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("mode", &self.mode)
            .field("title", &self.title)
            .field("clients", &self.clients)
            .finish_non_exhaustive()
    }
}
