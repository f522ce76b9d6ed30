//! What the server hosts for its connections: the simulation, the wall
//! time of its last clock advance, and the allowances every connection
//! draws on (the simulation's own world is `oceansim_ecs::World`).

use crate::config::ServerConfig;
use oceansim_protocol::{ProtocolError, Reply, Request};
use oceansim_sim::{Answer, Session, Simulation};
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

/// How long a snapshot's replay runs before the loop serves others.
const RESTORE_SLICE: Duration = Duration::from_millis(5);
/// How long a thread helping the render pool before an export renders
/// before it checks again whether the record is whole.
const RENDER_SLICE: Duration = Duration::from_millis(20);

/// The hosted simulation with the wall time of its last clock advance,
/// and what the connections share.
pub(crate) struct Host {
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

impl Host {
    /// Advances the clock to now, then answers `request` for the client
    /// whose view is `session`; a single export is written on a blocking
    /// thread while the world serves others.
    pub(crate) async fn answer(&self, session: &mut Session, request: Request) -> Reply {
        // Taken before the file is read: a waiting load holds nothing.
        let _restoring = match &request {
            Request::Single(r)
                if matches!(r.action, oceansim_protocol::Action::LoadSnapshot(_)) =>
            {
                Some(self.restores.acquire().await)
            }
            _ => None,
        };
        // An export takes its turn first, then lets the recording's renders
        // catch up with the frames recorded so far without holding the
        // world (a backlog can be minutes of rendering), so the record it
        // takes is whole and the simulation thread serves others meanwhile.
        let exporting = match &request {
            Request::Single(r)
                if matches!(r.action, oceansim_protocol::Action::ExportDataset(_)) =>
            {
                let permit = self.exports.acquire().await;
                if !self.renders_caught_up().await {
                    let sim_time = self.sim.borrow().sim_time();
                    return Reply::error(
                        r.request_id.clone(),
                        Some("export_dataset".into()),
                        Some(sim_time),
                        &ProtocolError::InvalidMessage(
                            "export_dataset cancelled while the recording's sensor renders caught up: \
                             the server is shutting down (nothing was written)"
                                .into(),
                        ),
                    );
                }
                Some(permit)
            }
            _ => None,
        };
        let answer = {
            let mut sim = self.sim.borrow_mut();
            self.advance(&mut sim);
            sim.answer(session, request)
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
                let _permit = match exporting {
                    Some(held) => held,
                    None => self.exports.acquire().await,
                };
                match tokio::task::spawn_blocking(move || export.run()).await {
                    Ok(r) => r,
                    Err(e) => Reply::error(
                        None,
                        Some("export_dataset".into()),
                        None,
                        &ProtocolError::InvalidMessage(format!("export failed: {e}")),
                    ),
                }
            }
        }
    }

    /// Returns `true` once every frame recorded before the call has its
    /// sensor renders done, `false` if the server is stopping first (its
    /// exports are cancelled). Meanwhile a blocking thread renders beside
    /// the pool's workers, in slices, and the world stays free between
    /// them.
    async fn renders_caught_up(&self) -> bool {
        let (mark, cancel) = {
            let sim = self.sim.borrow();
            (sim.frames_recorded(), sim.export_cancel())
        };
        loop {
            if cancel.is_cancelled() {
                return false;
            }
            let oldest = self.sim.borrow_mut().oldest_frame_waiting_for_renders();
            if oldest.is_none_or(|f| f >= mark) {
                return true;
            }
            let helped = tokio::task::spawn_blocking(|| {
                oceansim_sim::RenderPool::global().help_for(RENDER_SLICE)
            })
            .await
            .unwrap_or(false);
            if !helped {
                // The rest are rendering on the workers.
                tokio::time::sleep(Duration::from_millis(1)).await;
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
