//! # oceansim-viewer
//!
//! A live view of oceansim-rs runs in the browser, served by the program
//! itself: one page (HTML, JavaScript and CSS embedded in the binary, no
//! build step) that draws what a [`Viewer`] publishes over a WebSocket.
//! Three kinds of run use the same page ([`Mode`]):
//!
//! * **live**: the simulator server publishes its scene and, at the log
//!   cadence, a frame of every agent (`oceansim serve --viewer`); the page's
//!   pause, resume and time-scale controls send protocol requests, answered
//!   like any client's;
//! * **swarm**: an ECS [`oceansim_ecs::Engine`] streams its entities through
//!   [`Viewer::engine_sink`] (the swarm examples with `--viewer`);
//! * **replay**: a recorded run directory, whole, with a time slider
//!   (`oceansim replay RUN_DIR --viewer`, [`replay::replay_message`]).
//!
//! ## Sensor panels
//!
//! A page opens panels by sending `{"type":"panels","sensors":[KEY..]}`
//! (the keys of the scene's `sensors` list); it is then sent a `sensor`
//! message whenever a sensor it shows has a new sample. Live, the
//! publisher reads [`Viewer::sensor_demand`] (the keys some page shows)
//! and publishes only those ([`Viewer::publish_sensors`]), so a sensor no
//! page shows costs nothing. In a replay the page also sends
//! `{"type":"seek","t":T}` and is sent each shown sensor's sample at or
//! before `T` from a [`SensorSource`].
//!
//! ## Conventions
//!
//! Every position is in the user frame: x east, y north, z up, metres.
//! Headings are compass degrees (0 = north, clockwise). Times are simulated
//! seconds. Messages are JSON text frames; their schema is in
//! `docs/viewer.md`.
//!
//! ## Never slowing the run
//!
//! Publishing stores the newest message in a `tokio::sync::watch` slot and
//! returns: it never waits for a browser. Each page's connection sends the
//! newest message when its socket is ready, so a slow or stuck browser
//! skips frames while the run goes on. The server runs on its own thread.
//! Publishers throttle to [`DEFAULT_MAX_FPS`] of wall time, since a page
//! draws no faster.
//!
//! ## Bounds
//!
//! Whatever a client sends, the viewer's sockets and buffers are bounded:
//! at most [`MAX_CONNECTIONS`] sockets are open (pages included; more are
//! closed as soon as accepted, and counted), a request's headers must be in
//! within [`HEADER_TIMEOUT`] of the connection opening or going idle
//! (which also closes idle keep-alive connections) and within
//! [`MAX_REQUEST_HEAD_BYTES`], a socket whose peer takes none of the bytes
//! waiting for it for [`PAGE_SEND_TIMEOUT`] is closed, and a page's unsent
//! output (its pongs included) is at most [`MAX_PAGE_UNSENT_BYTES`]. A
//! failed accept (the process out of file descriptors) is retried after a
//! pause growing to a second and logged at most once a second
//! ([`oceansim_log::AcceptErrors`]).
//!
//! ## Example
//!
//! ```
//! use oceansim_viewer::{Mode, Viewer, ViewerConfig};
//! let viewer = Viewer::start(ViewerConfig::new("127.0.0.1:0".parse()?, Mode::Swarm))?;
//! viewer.publish_scene(r#"{"type":"scene","title":"demo","bounds":[-10,10,-10,10],"obstacles":[]}"#);
//! viewer.publish_frame(r#"{"type":"frame","t":0.0,"points":{"x":[1.0],"y":[2.0]}}"#);
//! println!("open {}", viewer.url());
//! viewer.shutdown();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod http;
mod limits;
pub mod replay;
mod server;
mod shared;
mod sink;

pub use limits::{
    DEFAULT_ADDR, DEFAULT_MAX_FPS, HEADER_TIMEOUT, MAX_CONNECTIONS, MAX_FPS_RANGE, MAX_PAGES,
    MAX_PAGE_MESSAGE_BYTES, MAX_PAGE_UNSENT_BYTES, MAX_PANELS_PER_PAGE, MAX_PENDING_REQUESTS,
    MAX_REQUEST_HEAD_BYTES, MAX_SENSOR_KEY_BYTES, PAGE_ACTIONS, PAGE_SEND_TIMEOUT,
};
pub(crate) use shared::Shared;
pub use shared::{Mode, PageRequest, SensorBundle, SensorSource};

pub use sink::{LinkFn, SwarmView, MAX_FRAME_LINKS};

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use tokio::sync::{mpsc, watch};

/// Viewer settings.
#[derive(Debug, Clone)]
pub struct ViewerConfig {
    /// Address to serve on (`127.0.0.1:0` picks a free port).
    pub addr: SocketAddr,
    /// What the page shows.
    pub mode: Mode,
    /// The page's title.
    pub title: String,
    /// Most frames a second publishers send (wall time, clamped to 1–120).
    pub max_fps: f64,
}

impl ViewerConfig {
    /// A viewer of `mode` on `addr`, titled "oceansim", at
    /// [`DEFAULT_MAX_FPS`].
    pub fn new(addr: SocketAddr, mode: Mode) -> Self {
        ViewerConfig {
            addr,
            mode,
            title: "oceansim".into(),
            max_fps: DEFAULT_MAX_FPS,
        }
    }

    /// Sets the most frames a second.
    pub fn max_fps(mut self, fps: f64) -> Self {
        self.max_fps = fps;
        self
    }

    /// Sets the page title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }
}

/// Why the viewer could not start.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// The address could not be bound.
    #[error("cannot serve the viewer on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Starting its thread or runtime failed.
    #[error("cannot start the viewer: {0}")]
    Io(#[from] std::io::Error),
}

impl ViewerError {
    /// Stable machine-readable code: `viewer_bind` or `viewer_io`.
    pub fn code(&self) -> &'static str {
        match self {
            ViewerError::Bind { .. } => "viewer_bind",
            ViewerError::Io(_) => "viewer_io",
        }
    }
}

/// A running viewer: publish to it from any thread. Dropping it stops the
/// server (open pages see the connection close).
#[derive(Debug)]
pub struct Viewer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    scene: watch::Sender<Option<Arc<str>>>,
    overlays: watch::Sender<Option<Arc<str>>>,
    frame: watch::Sender<Option<Arc<str>>>,
    sensors: watch::Sender<Arc<SensorBundle>>,
    requests: Option<mpsc::Receiver<PageRequest>>,
    stop: Option<watch::Sender<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl Viewer {
    /// Binds `config.addr` and serves the page on a thread of its own.
    pub fn start(config: ViewerConfig) -> Result<Viewer, ViewerError> {
        let listener =
            std::net::TcpListener::bind(config.addr).map_err(|source| ViewerError::Bind {
                addr: config.addr,
                source,
            })?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (scene_tx, scene_rx) = watch::channel(None);
        let (overlays_tx, overlays_rx) = watch::channel(None);
        let (frame_tx, frame_rx) = watch::channel(None);
        let (sensors_tx, sensors_rx) = watch::channel(Arc::new(SensorBundle::new()));
        let (req_tx, req_rx) = mpsc::channel(MAX_PENDING_REQUESTS);
        let (stop_tx, stop_rx) = watch::channel(false);
        let shared = Arc::new(Shared {
            mode: config.mode,
            title: config.title,
            scene: scene_rx,
            overlays: overlays_rx,
            frame: frame_rx,
            sensors: sensors_rx,
            demand: Default::default(),
            sensor_source: std::sync::OnceLock::new(),
            sensor_messages_sent: AtomicU64::new(0),
            sensor_epoch: AtomicU64::new(0),
            requests: (config.mode == Mode::Live).then_some(req_tx),
            controls: AtomicBool::new(false),
            clients: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            frames_sent: AtomicU64::new(0),
            max_fps: if config.max_fps.is_finite() {
                config
                    .max_fps
                    .clamp(*MAX_FPS_RANGE.start(), *MAX_FPS_RANGE.end())
            } else {
                DEFAULT_MAX_FPS
            },
        });
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let served = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("oceansim-viewer-{}", addr.port()))
            .spawn(move || {
                rt.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => server::serve(l, served, stop_rx).await,
                        Err(e) => tracing::error!("viewer: {e}"),
                    }
                });
            })?;
        Ok(Viewer {
            addr,
            shared,
            scene: scene_tx,
            overlays: overlays_tx,
            frame: frame_tx,
            sensors: sensors_tx,
            requests: Some(req_rx),
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// The bound address (the real port when bound to port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address, `http://host:port/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Replaces the scene (a `scene` or `replay` message); pages redraw it.
    pub fn publish_scene(&self, json: impl Into<Arc<str>>) {
        self.scene.send_replace(Some(json.into()));
    }

    /// Replaces the navigation overlays (an `overlays` message); pages keep
    /// them until the next, and late pages are sent them too.
    pub fn publish_overlays(&self, json: impl Into<Arc<str>>) {
        self.overlays.send_replace(Some(json.into()));
    }

    /// Replaces the newest frame; each page is sent it when its socket is
    /// ready (frames in between are skipped for that page).
    pub fn publish_frame(&self, json: impl Into<Arc<str>>) {
        self.frame.send_replace(Some(json.into()));
    }

    /// The sensor keys some page shows a panel of now, sorted.
    pub fn sensor_demand(&self) -> Vec<String> {
        self.shared
            .demand
            .lock()
            .map(|d| d.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Publishes new samples: `(key, sequence, sensor message)`. Pages
    /// that show `key` are sent its newest message when their socket is
    /// ready (a slow page skips samples, as it skips frames).
    pub fn publish_sensors(&self, updates: impl IntoIterator<Item = (String, u64, Arc<str>)>) {
        let mut updates = updates.into_iter().peekable();
        if updates.peek().is_none() {
            return;
        }
        self.sensors.send_modify(|bundle| {
            let b = Arc::make_mut(bundle);
            for (key, seq, msg) in updates {
                b.insert(key, (seq, msg));
            }
        });
    }

    /// Forgets every published sample (a new scene: sequence numbers start
    /// again).
    pub fn clear_sensors(&self) {
        self.shared.sensor_epoch.fetch_add(1, Ordering::Relaxed);
        self.sensors.send_replace(Arc::new(SensorBundle::new()));
    }

    /// Serves a replay's panels from `source` (once; later calls are
    /// ignored).
    pub fn serve_sensors_from(&self, source: Arc<dyn SensorSource>) {
        let _ = self.shared.sensor_source.set(source);
    }

    /// `sensor` messages sent to pages so far (over all pages).
    pub fn sensor_messages_sent(&self) -> u64 {
        self.shared.sensor_messages_sent.load(Ordering::Relaxed)
    }

    /// Most frames a second publishers should send.
    pub fn max_fps(&self) -> f64 {
        self.shared.max_fps
    }

    /// Pages connected now.
    pub fn clients(&self) -> usize {
        self.shared.clients.load(Ordering::Relaxed)
    }

    /// Sockets open now (HTTP connections and pages).
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::Relaxed)
    }

    /// Connections closed as soon as accepted because
    /// [`MAX_CONNECTIONS`] sockets were open, so far.
    pub fn refused_connections(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// Frames sent to pages so far (over all pages).
    pub fn frames_sent(&self) -> u64 {
        self.shared.frames_sent.load(Ordering::Relaxed)
    }

    /// The requests pages send (live mode only; `None` after the first
    /// call, or in other modes). Until it is taken, or after its receiver
    /// is dropped, pages are told their controls are off.
    pub fn take_requests(&mut self) -> Option<mpsc::Receiver<PageRequest>> {
        if self.shared.mode != Mode::Live {
            return None;
        }
        let rx = self.requests.take();
        if rx.is_some() {
            self.shared.controls.store(true, Ordering::Relaxed);
        }
        rx
    }

    /// Stops the server and waits for its thread.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}
