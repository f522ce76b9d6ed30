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
//! disconnects mid-request harms nothing. After each reply a connection
//! keeps the thread awake for its client's next line, briefly
//! ([`ServerConfig::spin`], 200 µs), so a lockstep controller does not pay
//! a sleeping thread's wake-up on every step.
//!
//! ## Bounds
//!
//! Whatever the clients do, the work and memory they can claim is bounded:
//!
//! * **Work per line.** A request or a whole batch draws on one cost
//!   budget ([`oceansim_sim::budget`]: 16 MiB of query replies, 2·10⁶
//!   units of grid work, 16 scene rebuilds), so no line holds the
//!   simulation for more than ~100 ms; a child past it is answered
//!   `invalid_message` naming the limit. A single `export_dataset` (or a
//!   single `get_terrain_grid` of more than 65,536 cells) is taken from the
//!   world at once and finished on a blocking thread (one at a time), while
//!   every other client is served.
//! * **Backpressure.** A connection is read only when its previous reply
//!   has been written, so its unsent output is at most one reply (≤ 16 MiB
//!   by the budget). A client that accepts none of a reply's bytes for
//!   [`ServerConfig::write_stall`] (10 s) is disconnected. Replies waiting
//!   for slow readers share [`ServerConfig::max_unsent_bytes`] (96 MiB in
//!   all): a reply that would pass it is replaced by an `invalid_message`
//!   saying the server is busy.
//! * **Sockets.** At most [`ServerConfig::max_connections`] clients (64);
//!   more get one error line and are closed. A line must be complete
//!   within [`ServerConfig::partial_line_timeout`] (30 s) of its first
//!   byte, or the client is told so and disconnected; a connection idle
//!   between requests keeps its slot unless the operator sets
//!   [`ServerConfig::idle_timeout`]. A failed accept (the process out of
//!   file descriptors) is retried after a pause growing to a second, and
//!   logged at most once a second ([`oceansim_log::AcceptErrors`]), as are
//!   refused connections.
//! * **Shutdown.** Once the shutdown future completes (the binary: SIGINT
//!   or SIGTERM), no connection is accepted; a request being answered is
//!   finished and its reply written before its connection closes, for up
//!   to [`ServerConfig::shutdown_grace`] (60 s), while idle connections
//!   close at once. An export still running after
//!   [`ServerConfig::export_grace`] (2 s) is cancelled: it removes what it
//!   wrote and answers so, and the server exits.
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

mod config;
mod deadline;
mod handle;
mod host;
mod spin;
pub use config::{ServerConfig, DEFAULT_SPIN};
pub use handle::{spawn, ServerError, ServerHandle};
use host::Host;
pub mod headless;
#[cfg(feature = "ros2")]
mod ros2;
#[cfg(feature = "viewer")]
mod viewer;

/// The ROS 2 bridge ([`Attached::ros2`]), with the `ros2` feature (off by
/// default).
#[cfg(feature = "ros2")]
pub use oceansim_bridge as bridge;

/// The live browser view ([`Attached::viewer`]), with the `viewer`
/// feature (on by default).
#[cfg(feature = "viewer")]
pub use oceansim_viewer::Viewer;

use deadline::{Deadline, Expired};
use futures::{SinkExt, StreamExt};
use oceansim_protocol::{NdjsonCodec, ProtocolError, Reply, Request};
use oceansim_sim::{Session, Simulation};
use spin::Spin;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{FramedRead, FramedWrite};

/// How often the clock task advances the real-time clock.
const CLOCK_PERIOD: Duration = Duration::from_millis(2);

/// Keeps the process's resident memory what it uses: turns off transparent
/// huge pages for this process (Linux; elsewhere a no-op).
///
/// mimalloc reserves a 1 GiB arena and marks it for huge pages; with the
/// kernel's default `max_ptes_none` (511), `khugepaged` later fills whole
/// 2 MiB pages around a single live 4 KiB page, so an idle server's RSS
/// grows by megabytes with nothing allocated. The `oceansim` binary calls
/// this first; an embedding program decides for itself.
pub fn disable_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
        tracing::debug!("transparent huge pages stay on: {e}");
    }
}

/// Raises this process's soft limit on open files to its hard limit
/// (Linux; elsewhere a no-op returning `None`), and returns the soft limit
/// now in force (`None`: unlimited or unknown).
///
/// The soft limit is often 1,024 while the hard limit is far higher; the
/// server holds a descriptor per client, viewer socket, export file and
/// spill, so the low default is what a crowd of connections exhausts
/// first. The `oceansim` binary calls this at start; an embedding program
/// decides for itself.
pub fn raise_open_file_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
        let limit = getrlimit(Resource::Nofile);
        // `None` is unlimited; a soft limit already unlimited or equal to
        // the hard one stays.
        if let (Some(soft), Some(hard)) = (limit.current, limit.maximum) {
            if soft < hard {
                let raised = Rlimit {
                    current: Some(hard),
                    maximum: Some(hard),
                };
                return match setrlimit(Resource::Nofile, raised) {
                    Ok(()) => Some(hard),
                    Err(e) => {
                        tracing::debug!("open-file limit stays {soft}: {e}");
                        Some(soft)
                    }
                };
            }
        }
        limit.current
    }
    #[cfg(not(target_os = "linux"))]
    None
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
    run_blocking_attached(listener, sim, config, Attached::default(), shutdown)
}

#[cfg(feature = "viewer")]
/// [`run_blocking`], also showing the simulation on `viewer` (a
/// [`oceansim_viewer::Mode::Live`] viewer): its scene and, at the log
/// cadence, every agent; the page's pause, resume and time-scale controls
/// are answered like a client's requests.
pub fn run_blocking_with_viewer(
    listener: std::net::TcpListener,
    sim: Simulation,
    config: ServerConfig,
    viewer: Option<Viewer>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    // The other fields (the `ros2` feature's bridge) stay empty.
    #[allow(clippy::needless_update)]
    let attached = Attached {
        viewer,
        ..Attached::default()
    };
    run_blocking_attached(listener, sim, config, attached, shutdown)
}

/// What serves the simulation beside its TCP clients, on the same thread.
#[derive(Debug, Default)]
pub struct Attached {
    /// A live browser view.
    #[cfg(feature = "viewer")]
    pub viewer: Option<Viewer>,
    /// A ROS 2 bridge: every recorded frame published as ROS 2 topics (as
    /// the rosbag2 export writes them), its command topics answered like
    /// a client's requests. See `docs/ros2.md`.
    #[cfg(feature = "ros2")]
    pub ros2: Option<oceansim_bridge::Bridge>,
}

/// [`run_blocking`] with a viewer and a ROS 2 bridge beside the clients.
pub fn run_blocking_attached(
    listener: std::net::TcpListener,
    sim: Simulation,
    config: ServerConfig,
    attached: Attached,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let served = rt.block_on(async move {
        let listener = TcpListener::from_std(listener)?;
        let local = tokio::task::LocalSet::new();
        local
            .run_until(serve(listener, sim, config, attached, shutdown))
            .await
    });
    // Dropping the runtime would wait for an export still on a blocking
    // thread past the shutdown grace, however long it takes.
    rt.shutdown_timeout(Duration::from_millis(100));
    served
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
        .run_until(serve(listener, sim, config, Attached::default(), shutdown))
        .await
}

async fn serve(
    listener: TcpListener,
    sim: Simulation,
    config: ServerConfig,
    attached: Attached,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let export_cancel = sim.export_cancel();
    let world = Rc::new(Host {
        sim: RefCell::new(sim),
        last: Cell::new(Instant::now()),
        config: config.clone(),
        unsent: Cell::new(0),
        exports: tokio::sync::Semaphore::new(1),
        restores: tokio::sync::Semaphore::new(1),
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
    // Without the viewer and the bridge there is nothing beside the clients.
    #[allow(unused_mut)]
    let mut viewer_tasks: Vec<tokio::task::JoinHandle<()>> = Vec::new();
    #[cfg(not(any(feature = "viewer", feature = "ros2")))]
    let _ = attached;
    #[cfg(feature = "ros2")]
    if let Some(bridge) = attached.ros2 {
        viewer_tasks.push(tokio::task::spawn_local(ros2::bridge(
            world.clone(),
            bridge,
            stop_rx.clone(),
        )));
    }
    #[cfg(feature = "viewer")]
    if let Some(mut v) = attached.viewer {
        let requests = v.take_requests();
        let v = Rc::new(v);
        viewer_tasks.push(tokio::task::spawn_local(viewer::publish(
            world.clone(),
            v,
            stop_rx.clone(),
        )));
        if let Some(requests) = requests {
            viewer_tasks.push(tokio::task::spawn_local(viewer::answer_pages(
                world.clone(),
                requests,
                stop_rx.clone(),
            )));
        }
    }
    tokio::pin!(shutdown);
    let mut accept_errors = oceansim_log::AcceptErrors::new();
    let mut refusals = oceansim_log::Throttle::new(Duration::from_secs(1));
    loop {
        let pause = accept_errors.pause();
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            a = async {
                if !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
                listener.accept().await
            } => a,
        };
        let (stream, peer) = match accepted {
            Ok(x) => x,
            Err(e) => {
                if let Some(held) = accept_errors.failed(&e) {
                    tracing::warn!(
                        "accept failed: {e}{}; next try in {:?}",
                        held_back(held),
                        accept_errors.pause()
                    );
                }
                continue;
            }
        };
        accept_errors.accepted();
        let _ = stream.set_nodelay(true);
        if open.get() >= config.max_connections.max(1) {
            if let Some(held) = refusals.admit() {
                tracing::warn!(
                    %peer,
                    "refusing connection: {} connections open{}",
                    config.max_connections,
                    held_back(held)
                );
            }
            tokio::task::spawn_local(refuse(stream, config.max_connections));
            continue;
        }
        open.set(open.get() + 1);
        let (world, open, stop) = (world.clone(), open.clone(), stop_rx.clone());
        tokio::task::spawn_local(async move {
            tracing::debug!(%peer, "client connected");
            serve_connection(stream, &world, stop).await;
            tracing::debug!(%peer, "client disconnected");
            open.set(open.get() - 1);
        });
    }
    let _ = stop_tx.send(true);
    let _ = clock.await;
    for t in viewer_tasks {
        let _ = t.await;
    }
    // Idle connections close at once on the stop; those answering a
    // request (an export on its blocking thread) finish it and write the
    // reply first, for up to the grace; an export still running past its
    // own grace is cancelled and answers so.
    let stopped = Instant::now();
    let deadline = stopped + config.shutdown_grace;
    while open.get() > 0 && Instant::now() < deadline {
        if stopped.elapsed() >= config.export_grace && !export_cancel.is_cancelled() {
            export_cancel.cancel();
            tracing::info!(
                "stopping: exports still running after {:?} are cancelled",
                config.export_grace
            );
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    if open.get() > 0 {
        tracing::warn!(
            "{} connections still answering after {:?}; closing them",
            open.get(),
            config.shutdown_grace
        );
    }
    Ok(())
}

use oceansim_log::held_back;

async fn refuse(stream: TcpStream, max: usize) {
    let mut out = FramedWrite::new(stream, NdjsonCodec::new());
    let resp = Reply::error(
        None,
        None,
        None,
        &ProtocolError::InvalidMessage(format!("server busy: at most {max} connections")),
    );
    let _ = out.send(resp).await;
}

/// Replies smaller than this are always sent (errors, acknowledgements),
/// so a busy server can still say so.
const SMALL_REPLY: usize = 64 << 10;

async fn serve_connection(
    stream: TcpStream,
    world: &Host,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let config = &world.config;
    let (rd, mut wr) = stream.into_split();
    let rd = Deadline::new(rd, config.partial_line_timeout, config.idle_timeout);
    let mut lines = FramedRead::new(rd, NdjsonCodec::with_max_line_bytes(config.max_line_bytes));
    let mut session = Session::new();
    let mut buf = Vec::new();
    let mut spin = Spin::new(config.spin);
    loop {
        // Reading only after the last reply is written is the backpressure:
        // a client that does not read stops being read.
        let item = match spin.wait(&mut lines).await {
            Some(item) => item,
            None => tokio::select! {
                item = lines.next() => item,
                _ = stop.changed() => None,
            },
        };
        let Some(item) = item else { return };
        let resp = match item {
            Err(e) => {
                if let Some(expired) = Expired::of(&e) {
                    // Told why, so a slow client is not left guessing.
                    buf.clear();
                    let why = ProtocolError::InvalidMessage(expired.to_string());
                    Reply::error(None, None, None, &why).write_json(&mut buf);
                    buf.push(b'\n');
                    let _ = write_all_or_stall(&mut wr, &buf, config.write_stall).await;
                }
                tracing::debug!("read error: {e}");
                return;
            }
            Ok(Err(frame_error)) => Reply::error(None, None, None, &frame_error),
            Ok(Ok(line)) => match Request::decode(&line) {
                Ok(req) => world.answer(&mut session, req).await,
                Err(rejected) => rejected.to_reply(None),
            },
        };
        // The reply's bytes, written once by the protocol's encoder.
        buf.clear();
        resp.write_json(&mut buf);
        buf.push(b'\n');
        let mut held = 0;
        if buf.len() > SMALL_REPLY {
            if world.reserve(buf.len()) {
                held = buf.len();
            } else {
                let busy = Reply::error(
                    resp.request_id.clone(),
                    resp.action.clone(),
                    resp.sim_time,
                    &ProtocolError::InvalidMessage(format!(
                        "server busy: {} MiB of replies are waiting for slow readers; retry",
                        world.unsent.get() >> 20
                    )),
                );
                buf.clear();
                busy.write_json(&mut buf);
                buf.push(b'\n');
            }
        }
        drop(resp);
        let sent = write_all_or_stall(&mut wr, &buf, world.config.write_stall).await;
        world.release(held);
        if let Err(e) = sent {
            tracing::debug!("dropping connection: {e}");
            return;
        }
        // An idle connection keeps no large buffer.
        if buf.capacity() > SMALL_REPLY {
            buf = Vec::new();
        }
        let begun = !lines.read_buffer().is_empty();
        lines.get_mut().next_line(begun);
    }
}

/// Writes all of `buf`, failing when the peer accepts nothing for `stall`.
async fn write_all_or_stall(
    wr: &mut tokio::net::tcp::OwnedWriteHalf,
    buf: &[u8],
    stall: Duration,
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    // A reply the socket takes at once (the usual case) needs no stall
    // timer: try the write before arming one.
    let mut at = match wr.try_write(buf) {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
        Err(e) => return Err(e),
    };
    while at < buf.len() {
        match tokio::time::timeout(stall, wr.write(&buf[at..])).await {
            Ok(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(Ok(n)) => at += n,
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("peer read nothing for {stall:?}"),
                ))
            }
        }
    }
    Ok(())
}
