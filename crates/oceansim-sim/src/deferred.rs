//! Answers finished later: work a request takes from the world at once
//! and finishes elsewhere (an export written, a large grid classed, on any
//! thread) or in slices (a snapshot replayed), so that a long request does
//! not hold the simulation while others wait.

use crate::budget::Budget;
use crate::handlers;
use crate::simulation::Simulation;
use oceansim_protocol::payload::{LoadSnapshot, TerrainGridRequest};
use oceansim_protocol::{ActionName, ProtocolError, Reply, RequestId};

impl Simulation {
    /// The frames recorded so far are those numbered below this; with
    /// [`Simulation::oldest_frame_waiting_for_renders`], what an export
    /// waits for before it takes the record.
    pub fn frames_recorded(&self) -> u64 {
        self.world.resource(self.h.recorder).frames_taken()
    }

    /// The oldest recorded frame whose sensor renders are not all done
    /// (landing those that are), if any.
    pub fn oldest_frame_waiting_for_renders(&mut self) -> Option<u64> {
        self.world.resource_mut(self.h.recorder).oldest_waiting()
    }
}

/// An answer now, or work taken from the world to finish elsewhere first
/// (what [`Simulation::answer`] gives).
#[derive(Debug)]
pub enum Answer {
    /// The reply.
    Now(Reply),
    /// An export or a large grid taken from the world;
    /// [`PreparedExport::run`] finishes it and gives the response.
    Later(PreparedExport),
    /// A `load_snapshot` whose replay runs in slices
    /// ([`PendingRestore::run_for`]) between other clients' requests, then
    /// replaces the world ([`PendingRestore::finish`]).
    Restore(PendingRestore),
}

/// A `load_snapshot` being replayed beside the live world, which goes on
/// (and answers others) until the restored one replaces it.
#[derive(Debug)]
pub struct PendingRestore {
    replay: Option<Box<crate::journal::Replay>>,
    failed: Option<ProtocolError>,
    path: std::path::PathBuf,
    id: Option<RequestId>,
}

impl PendingRestore {
    /// Replays for about `slice` of wall time; `true` once done (or failed).
    pub fn run_for(&mut self, slice: std::time::Duration) -> bool {
        let Some(replay) = self.replay.as_mut() else {
            return true;
        };
        match replay.run_for(slice) {
            Ok(done) => done,
            Err(e) => {
                self.failed = Some(ProtocolError::InvalidMessage(e.to_string()));
                self.replay = None;
                true
            }
        }
    }

    /// How far the replay is: ticks run and ticks in all.
    pub fn progress(&self) -> (u64, u64) {
        self.replay
            .as_ref()
            .map_or((0, 0), |r| (r.ticks_done(), r.total_ticks()))
    }

    /// Replaces `sim` with the restored world and answers the request (or
    /// says why not, leaving `sim` as it was). Call once
    /// [`PendingRestore::run_for`] said done.
    pub fn finish(mut self, sim: &mut Simulation) -> Reply {
        let name = ActionName::LoadSnapshot;
        let outcome = match (self.failed.take(), self.replay.take()) {
            (Some(e), _) => Err(e),
            (None, Some(mut replay)) => {
                // Not done yet (a caller that did not wait): finish here.
                let done =
                    std::iter::repeat_with(|| replay.run_for(crate::journal::RESTORE_TIME_LIMIT))
                        .find(|r| !matches!(r, Ok(false)));
                match done {
                    Some(Err(e)) => Err(ProtocolError::InvalidMessage(e.to_string())),
                    _ => handlers::snapshot::install(sim, replay.finish(), &self.path),
                }
            }
            (None, None) => Err(ProtocolError::InvalidMessage("the replay was lost".into())),
        };
        envelope(self.id, name, sim.sim_time(), outcome)
    }
}

/// The reply to request `id` of action `name` finished at `sim_time`.
fn envelope(id: Option<RequestId>, name: ActionName, sim_time: f64, o: handlers::Outcome) -> Reply {
    match o {
        Ok(reply) => Reply::ok(reply.kind, id, name, Some(sim_time), reply.data),
        Err(e) => Reply::error(id, Some(name.as_str().into()), Some(sim_time), &e),
    }
}

/// Work taken from the world at the time of its request, to finish on any
/// thread (`Send`) while the world serves others: an `export_dataset`
/// (its files are written), or a `get_terrain_grid` of more than
/// [`crate::budget::INLINE_GRID_CELLS`] cells (its slice is classed and
/// its reply rendered, within a single line's [`Budget`]).
#[derive(Debug)]
pub struct PreparedExport {
    job: Deferred,
    id: Option<RequestId>,
    sim_time: f64,
}

#[derive(Debug)]
enum Deferred {
    #[cfg(feature = "export")]
    Export(Box<handlers::export::ExportJob>),
    Grid(Box<handlers::map::GridJob>),
}

impl PreparedExport {
    /// Does the work and answers the request.
    pub fn run(self) -> Reply {
        let (name, outcome) = match self.job {
            #[cfg(feature = "export")]
            Deferred::Export(job) => (
                ActionName::ExportDataset,
                job.run().map(|r| handlers::Reply {
                    kind: oceansim_protocol::ResponseType::Response,
                    data: oceansim_protocol::Data::typed(r),
                }),
            ),
            Deferred::Grid(job) => {
                let mut budget = Budget::single();
                let outcome = job.run(&mut budget).and_then(|reply| {
                    budget.take_reply_bytes(reply.data.len())?;
                    Ok(reply)
                });
                (ActionName::GetTerrainGrid, outcome)
            }
        };
        envelope(self.id, name, self.sim_time, outcome)
    }
}

impl Answer {
    /// Finishes the answer on this thread, for callers without a server
    /// loop: an export is written or a grid classed here, a snapshot
    /// replayed to its end.
    pub fn finish(self, sim: &mut Simulation) -> Reply {
        match self {
            Answer::Now(reply) => reply,
            Answer::Later(work) => work.run(),
            // `finish` replays what is left before it installs.
            Answer::Restore(restore) => restore.finish(sim),
        }
    }
}

impl Simulation {
    /// Reads and checks a snapshot, to be replayed in slices.
    pub(crate) fn begin_restore(&self, id: Option<RequestId>, load: LoadSnapshot) -> Answer {
        match handlers::snapshot::begin_load(&self.config.export_root, load) {
            Ok((replay, path)) => Answer::Restore(PendingRestore {
                replay: Some(Box::new(replay)),
                failed: None,
                path,
                id,
            }),
            Err(e) => refused(id, ActionName::LoadSnapshot, self.sim_time(), &e),
        }
    }

    /// Takes a single `export_dataset` from the world, to be written
    /// elsewhere.
    #[cfg(feature = "export")]
    pub(crate) fn defer_export(
        &mut self,
        id: Option<RequestId>,
        payload: oceansim_protocol::payload::ExportDataset,
    ) -> Answer {
        self.revs.state += 1;
        let sim_time = self.sim_time();
        match handlers::export::prepare(self.export_ctx(), payload) {
            Ok(job) => Answer::Later(PreparedExport {
                job: Deferred::Export(Box::new(job)),
                id,
                sim_time,
            }),
            Err(e) => refused(id, ActionName::ExportDataset, sim_time, &e),
        }
    }

    /// Whether `g` is worth classing on another thread.
    pub(crate) fn large_grid(&self, g: &TerrainGridRequest) -> bool {
        let cell = g.cell_size.unwrap_or(0.5);
        let [x0, x1, y0, y1] = self.world.resource(self.h.scene).bounds();
        let cells = ((x1 - x0) / cell).ceil() * ((y1 - y0) / cell).ceil();
        cells > crate::budget::INLINE_GRID_CELLS as f64
    }

    /// Takes a large `get_terrain_grid` from the world (its slice and
    /// copies of the footprints), to be classed elsewhere.
    pub(crate) fn defer_grid(&mut self, id: Option<RequestId>, g: TerrainGridRequest) -> Answer {
        let sim_time = self.sim_time();
        match handlers::map::prepare_grid(self.read_ctx(), g) {
            Ok(job) => Answer::Later(PreparedExport {
                job: Deferred::Grid(Box::new(job)),
                id,
                sim_time,
            }),
            Err(e) => refused(id, ActionName::GetTerrainGrid, sim_time, &e),
        }
    }
}

/// The answer to a request refused before anything was taken from the
/// world.
fn refused(id: Option<RequestId>, name: ActionName, sim_time: f64, e: &ProtocolError) -> Answer {
    Answer::Now(Reply::error(
        id,
        Some(name.as_str().into()),
        Some(sim_time),
        e,
    ))
}
