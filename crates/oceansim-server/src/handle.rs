//! A server on a background thread, for tests, examples and programs that
//! embed the simulator next to their own client.

use crate::{run_blocking, ServerConfig};
use oceansim_sim::{SimConfig, Simulation};
use std::net::SocketAddr;
use std::thread::JoinHandle;

/// A running server on its own thread; dropping it stops the server and
/// waits for the thread (open connections finish their current request).
#[derive(Debug)]
pub struct ServerHandle {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
}

impl ServerHandle {
    /// The bound address (the real port when bound to port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops the server and returns how its thread ended.
    pub fn shutdown(mut self) -> std::io::Result<()> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(std::io::Error::other("the server thread panicked")),
            None => Ok(()),
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        let _ = self.stop_and_join();
    }
}

/// Binds `addr` (`127.0.0.1:0` picks a free port), builds the simulation
/// from `sim` on a new thread (the world never leaves it) and serves until
/// the handle is dropped or shut down. A scenario that does not load is
/// an error here, not a dead thread.
///
/// ```
/// let server = oceansim_server::spawn("127.0.0.1:0", oceansim_sim::SimConfig::default(), Default::default())?;
/// assert_ne!(server.addr().port(), 0);
/// server.shutdown()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn spawn(
    addr: &str,
    sim: SimConfig,
    config: ServerConfig,
) -> Result<ServerHandle, ServerError> {
    let listener = std::net::TcpListener::bind(addr)?;
    let local = listener.local_addr()?;
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name(format!("oceansim-server-{}", local.port()))
        .spawn(move || {
            let sim = match Simulation::new(sim) {
                Ok(s) => s,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return Ok(());
                }
            };
            let _ = ready_tx.send(Ok(()));
            run_blocking(listener, sim, config, async {
                let _ = stop_rx.await;
            })
        })?;
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(ServerHandle {
            addr: local,
            stop: Some(stop_tx),
            thread: Some(thread),
        }),
        Ok(Err(e)) => {
            let _ = thread.join();
            Err(ServerError::Sim(e))
        }
        Err(_) => Err(ServerError::Io(std::io::Error::other(
            "the server thread ended before the simulation started",
        ))),
    }
}

/// Why [`spawn`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Binding or starting the thread failed.
    #[error("cannot start the server: {0}")]
    Io(#[from] std::io::Error),
    /// The simulation did not build (scenario, profile, configuration).
    #[error(transparent)]
    Sim(#[from] oceansim_sim::SimError),
    /// A headless run could not go on (a refused request, a bad option).
    #[error("headless run: {0}")]
    Run(String),
}

impl ServerError {
    /// Stable machine-readable code (`io_error`, `headless_run`, or the
    /// simulator's code).
    pub fn code(&self) -> &'static str {
        match self {
            ServerError::Io(_) => "io_error",
            ServerError::Sim(e) => e.code(),
            ServerError::Run(_) => "headless_run",
        }
    }
}
