//! # oceansim-server
//!
//! The headless OceanSim-compatible server: newline-delimited JSON over TCP,
//! protocol v2 ([`oceansim_protocol`]), in front of an
//! [`oceansim_sim::Simulation`].
//!
//! ## Architecture
//!
//! The world is one single-threaded [`Simulation`], so the server runs on
//! one thread too: a current-thread tokio runtime with a `LocalSet`, where
//! every connection is a local task and a clock task advances the real-time
//! clock (`time_scale` × wall time, unless paused). No request crosses a
//! thread. Connections frame lines ([`oceansim_protocol::NdjsonCodec`], 1 MiB
//! cap), decode them and answer each against the shared world, in order; a
//! batch is answered in one go, so its children see one consistent world.
//! Malformed input costs one error line, never the connection; a client that
//! disconnects mid-request harms nothing.
//!
//! ## Example
//!
//! ```no_run
//! use oceansim_server::{run_blocking, ServerConfig};
//! use oceansim_sim::{SimConfig, Simulation};
//!
//! let sim = Simulation::new(SimConfig::default()).expect("scenario loads");
//! let listener = std::net::TcpListener::bind("127.0.0.1:9876").unwrap();
//! run_blocking(listener, sim, ServerConfig::default(), async {
//!     let _ = tokio::signal::ctrl_c().await;
//! })
//! .unwrap();
//! ```
#![warn(missing_docs)]

use futures::{SinkExt, StreamExt};
use oceansim_protocol::{NdjsonCodec, ProtocolError, Request, Response, DEFAULT_MAX_LINE_BYTES};
use oceansim_sim::{Session, Simulation};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{FramedRead, FramedWrite};

/// Server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Most simultaneous connections; more are answered with an error and
    /// closed.
    pub max_connections: usize,
    /// Longest accepted line (bytes).
    pub max_line_bytes: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: 64,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// How often the clock task advances the real-time clock.
const CLOCK_PERIOD: Duration = Duration::from_millis(2);

/// The world with the wall time of its last clock advance.
struct World {
    sim: RefCell<Simulation>,
    last: Cell<Instant>,
}

impl World {
    /// Advances the clock to now, then answers `request` for the client
    /// whose view is `session`.
    fn answer(&self, session: &mut Session, request: Request) -> Response {
        let mut sim = self.sim.borrow_mut();
        self.advance(&mut sim);
        request.respond(|single| sim.handle_in(session, single))
    }

    fn advance(&self, sim: &mut Simulation) {
        let now = Instant::now();
        sim.advance_realtime((now - self.last.get()).as_secs_f64());
        self.last.set(now);
    }
}

/// Whether an address is loopback (the safe default).
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

/// Builds a current-thread runtime and serves `listener` until `shutdown`
/// completes. The simulation lives on the calling thread.
pub fn run_blocking(
    listener: std::net::TcpListener,
    sim: Simulation,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = TcpListener::from_std(listener)?;
        run(listener, sim, config, shutdown).await
    })
}

/// Serves connections from `listener` until `shutdown` completes, then
/// stops accepting and lets open connections finish their current request.
///
/// The returned future is not `Send` (the world is single-threaded): drive
/// it with `block_on`, as [`run_blocking`] does.
pub async fn run(
    listener: TcpListener,
    sim: Simulation,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let local = tokio::task::LocalSet::new();
    local
        .run_until(serve(listener, sim, config, shutdown))
        .await
}

async fn serve(
    listener: TcpListener,
    sim: Simulation,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let world = Rc::new(World {
        sim: RefCell::new(sim),
        last: Cell::new(Instant::now()),
    });
    let open = Rc::new(Cell::new(0usize));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let clock = {
        let world = world.clone();
        let mut stop = stop_rx.clone();
        tokio::task::spawn_local(async move {
            let mut tick = tokio::time::interval(CLOCK_PERIOD);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    _ = tick.tick() => {
                        if let Ok(mut sim) = world.sim.try_borrow_mut() {
                            world.advance(&mut sim);
                        }
                    }
                    _ = stop.changed() => return,
                }
            }
        })
    };
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        tracing::warn!("accept failed: {e}");
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                if open.get() >= config.max_connections.max(1) {
                    tracing::warn!(%peer, "refusing connection: {} connections open", config.max_connections);
                    tokio::task::spawn_local(refuse(stream, config.max_connections));
                    continue;
                }
                open.set(open.get() + 1);
                let (world, open, stop, max_line) = (world.clone(), open.clone(), stop_rx.clone(), config.max_line_bytes);
                tokio::task::spawn_local(async move {
                    tracing::debug!(%peer, "client connected");
                    serve_connection(stream, &world, max_line, stop).await;
                    tracing::debug!(%peer, "client disconnected");
                    open.set(open.get() - 1);
                });
            }
        }
    }
    let _ = stop_tx.send(true);
    let _ = clock.await;
    // Let connections finish their current request (bounded).
    let deadline = Instant::now() + Duration::from_secs(2);
    while open.get() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    Ok(())
}

async fn refuse(stream: TcpStream, max: usize) {
    let mut out = FramedWrite::new(stream, NdjsonCodec::new());
    let resp = Response::error(
        None,
        None,
        None,
        &ProtocolError::InvalidMessage(format!("server busy: at most {max} connections")),
    );
    let _ = out.send(resp).await;
}

async fn serve_connection(
    stream: TcpStream,
    world: &World,
    max_line: usize,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let (rd, wr) = stream.into_split();
    let mut lines = FramedRead::new(rd, NdjsonCodec::with_max_line_bytes(max_line));
    let mut out = FramedWrite::new(wr, NdjsonCodec::new());
    let mut session = Session::new();
    loop {
        let item = tokio::select! {
            item = lines.next() => item,
            _ = stop.changed() => None,
        };
        let Some(item) = item else { return };
        let resp = match item {
            Err(e) => {
                tracing::debug!("read error: {e}");
                return;
            }
            Ok(Err(frame_error)) => Response::error(None, None, None, &frame_error),
            Ok(Ok(line)) => match Request::decode(&line) {
                Ok(req) => world.answer(&mut session, req),
                Err(rejected) => rejected.to_response(None),
            },
        };
        if out.send(resp).await.is_err() {
            return;
        }
    }
}
