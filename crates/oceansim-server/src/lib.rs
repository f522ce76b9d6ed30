//! # oceansim-server
//!
//! The headless OceanSim-compatible server: newline-delimited JSON over TCP,
//! protocol v2 ([`oceansim_protocol`]), in front of an
//! [`oceansim_sim::Simulation`].
//!
//! ## Architecture
//!
//! One thread owns the simulation (the *actor*): it serves requests from a
//! queue in arrival order and, between requests, advances the real-time
//! clock (`time_scale` × wall time, unless paused). Every connection is a
//! tokio task that frames lines ([`oceansim_protocol::NdjsonCodec`], 1 MiB
//! cap), decodes them, sends each request to the actor and writes the answer
//! back in order. A batch goes to the actor as one job, so its children see
//! one consistent world. Malformed input costs one error line, never the
//! connection; a client that disconnects mid-request harms nothing.
//!
//! ## Example
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use oceansim_server::{run, ServerConfig, SimHandle};
//! use oceansim_sim::SimConfig;
//!
//! let sim = SimHandle::spawn(SimConfig::default()).expect("scenario loads");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9876").await?;
//! run(listener, sim, ServerConfig::default(), async { let _ = tokio::signal::ctrl_c().await; }).await
//! # }
//! ```
#![warn(missing_docs)]

use futures::{SinkExt, StreamExt};
use oceansim_protocol::{NdjsonCodec, ProtocolError, Request, Response, DEFAULT_MAX_LINE_BYTES};
use oceansim_sim::{SimConfig, SimError, Simulation};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Semaphore};
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

enum Job {
    Request(Request, oneshot::Sender<Response>),
    Shutdown,
}

/// A handle on the simulation actor thread. Cloning shares the actor.
#[derive(Debug, Clone)]
pub struct SimHandle {
    tx: mpsc::Sender<Job>,
    thread: Arc<std::sync::Mutex<Option<std::thread::JoinHandle<()>>>>,
}

/// How often the actor advances the real-time clock when idle.
const CLOCK_PERIOD: Duration = Duration::from_millis(2);

impl SimHandle {
    /// Starts the actor with a new simulation of `config` (built on the
    /// actor thread); returns the load error if the scenario or profile is
    /// invalid.
    pub fn spawn(config: SimConfig) -> Result<Self, SimError> {
        let (tx, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), SimError>>();
        let thread = std::thread::Builder::new()
            .name("oceansim-sim".into())
            .spawn(move || {
                let mut sim = match Simulation::new(config) {
                    Ok(s) => {
                        let _ = ready_tx.send(Ok(()));
                        s
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                actor_loop(&mut sim, &rx);
            })
            .map_err(|e| SimError::Config(format!("cannot start the simulation thread: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(SimHandle {
                tx,
                thread: Arc::new(std::sync::Mutex::new(Some(thread))),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(SimError::Config(
                "the simulation thread stopped while loading".into(),
            )),
        }
    }

    /// Answers one decoded request (a batch is answered as a whole).
    pub async fn call(&self, request: Request) -> Response {
        let (tx, rx) = oneshot::channel();
        let id = request.request_id().cloned();
        if self.tx.send(Job::Request(request, tx)).is_err() {
            return Response::error(
                id,
                None,
                None,
                &ProtocolError::InvalidMessage("the simulation has stopped".into()),
            );
        }
        rx.await.unwrap_or_else(|_| {
            Response::error(
                None,
                None,
                None,
                &ProtocolError::InvalidMessage("the simulation has stopped".into()),
            )
        })
    }

    /// Stops the actor and waits for it.
    pub fn shutdown(&self) {
        let _ = self.tx.send(Job::Shutdown);
        if let Ok(mut guard) = self.thread.lock() {
            if let Some(t) = guard.take() {
                let _ = t.join();
            }
        }
    }
}

fn actor_loop(sim: &mut Simulation, rx: &mpsc::Receiver<Job>) {
    let mut last = Instant::now();
    loop {
        let job = rx.recv_timeout(CLOCK_PERIOD);
        let now = Instant::now();
        // The clock advances by the wall time since the last advance, also
        // between back-to-back requests.
        sim.advance_realtime((now - last).as_secs_f64());
        last = now;
        match job {
            Ok(Job::Request(req, reply)) => {
                let resp = req.respond(|single| sim.handle(single));
                // A client that went away just drops its answer.
                let _ = reply.send(resp);
            }
            Ok(Job::Shutdown) | Err(mpsc::RecvTimeoutError::Disconnected) => return,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Whether an address is loopback (the safe default).
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

/// Serves connections from `listener` until `shutdown` completes, then
/// stops accepting, lets open connections finish their current request and
/// stops the simulation.
pub async fn run(
    listener: TcpListener,
    sim: SimHandle,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
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
                match permits.clone().try_acquire_owned() {
                    Ok(permit) => {
                        let sim = sim.clone();
                        let stop = stop_rx.clone();
                        let max_line = config.max_line_bytes;
                        tokio::spawn(async move {
                            tracing::debug!(%peer, "client connected");
                            serve_connection(stream, sim, max_line, stop).await;
                            tracing::debug!(%peer, "client disconnected");
                            drop(permit);
                        });
                    }
                    Err(_) => {
                        tracing::warn!(%peer, "refusing connection: {} connections open", config.max_connections);
                        tokio::spawn(refuse(stream, config.max_connections));
                    }
                }
            }
        }
    }
    let _ = stop_tx.send(true);
    // Wait (bounded) for connections to finish their current request.
    let all = u32::try_from(config.max_connections.max(1)).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(Duration::from_secs(2), permits.acquire_many(all)).await;
    sim.shutdown();
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
    sim: SimHandle,
    max_line: usize,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let (rd, wr) = stream.into_split();
    let mut lines = FramedRead::new(rd, NdjsonCodec::with_max_line_bytes(max_line));
    let mut out = FramedWrite::new(wr, NdjsonCodec::new());
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
                Ok(req) => sim.call(req).await,
                Err(rejected) => rejected.to_response(None),
            },
        };
        if out.send(resp).await.is_err() {
            return;
        }
    }
}
