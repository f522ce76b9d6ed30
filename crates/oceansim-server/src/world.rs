//! The world the connections share: the simulation, the wall time of its
//! last clock advance, and the allowances every connection draws on.

use crate::config::ServerConfig;
use oceansim_protocol::{ProtocolError, Request, Response};
use oceansim_sim::{Answer, Session, Simulation};
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

/// How long a snapshot's replay runs before the loop serves others.
const RESTORE_SLICE: Duration = Duration::from_millis(5);

/// The world with the wall time of its last clock advance, and what the
/// connections share.
pub(crate) struct World {
    pub(crate) sim: RefCell<Simulation>,
    pub(crate) last: Cell<Instant>,
    pub(crate) config: ServerConfig,
    /// Reply bytes written to no socket yet, over all connections.
    pub(crate) unsent: Cell<usize>,
    /// One export written at a time (they are disk-bound).
    pub(crate) exports: tokio::sync::Semaphore,
    /// One snapshot replayed at a time.
    pub(crate) restores: tokio::sync::Semaphore,
}

impl World {
    /// Advances the clock to now, then answers `request` for the client
    /// whose view is `session`; a single export is written on a blocking
    /// thread while the world serves others.
    pub(crate) async fn answer(&self, session: &mut Session, request: Request) -> Response {
        // Taken before the file is read: a waiting load holds nothing.
        let _restoring = match &request {
            Request::Single(r)
                if matches!(r.action, oceansim_protocol::Action::LoadSnapshot(_)) =>
            {
                Some(self.restores.acquire().await)
            }
            _ => None,
        };
        let answer = {
            let mut sim = self.sim.borrow_mut();
            self.advance(&mut sim);
            sim.answer_or_defer(session, request)
        };
        match answer {
            Answer::Now(r) => r,
            Answer::Restore(mut restore) => {
                // One replay at a time (each holds a snapshot's text and a
                // world), in slices; between them the clock and every
                // other connection are served, from the world as it was.
                while !restore.run_for(RESTORE_SLICE) {
                    tokio::task::yield_now().await;
                }
                restore.finish(&mut self.sim.borrow_mut())
            }
            Answer::Later(export) => {
                let _permit = self.exports.acquire().await;
                match tokio::task::spawn_blocking(move || export.run()).await {
                    Ok(r) => r,
                    Err(e) => Response::error(
                        None,
                        Some("export_dataset".into()),
                        None,
                        &ProtocolError::InvalidMessage(format!("export failed: {e}")),
                    ),
                }
            }
        }
    }

    /// Claims `n` bytes of the shared unsent allowance.
    pub(crate) fn reserve(&self, n: usize) -> bool {
        let now = self.unsent.get();
        if now + n > self.config.max_unsent_bytes {
            return false;
        }
        self.unsent.set(now + n);
        true
    }

    pub(crate) fn release(&self, n: usize) {
        self.unsent.set(self.unsent.get().saturating_sub(n));
    }

    pub(crate) fn advance(&self, sim: &mut Simulation) {
        let now = Instant::now();
        sim.advance_realtime((now - self.last.get()).as_secs_f64());
        self.last.set(now);
    }
}
