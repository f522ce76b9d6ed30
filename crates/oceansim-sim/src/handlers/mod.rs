//! The protocol shell: the one request entry (`Simulation::answer`: a
//! line, single or batch, each request through `answer_one`), then one
//! line per action, each handing its typed payload, and only the parts of
//! the simulation it touches (`ctx`), to its family's module. Every
//! function validates before it changes anything, so a rejected request
//! leaves the world as it was, and answers with a typed reply (see
//! `oceansim_protocol::reply`) or a coded error; the envelope is
//! `oceansim_protocol::Reply`, written by its one encoder.

mod acoustic;
pub(crate) mod agents;
mod clock;
#[cfg(feature = "export")]
pub(crate) mod export;
#[cfg(feature = "export")]
mod export_metadata;
pub(crate) mod map;
mod motion;
mod nav;
mod reply;
pub(crate) mod snapshot;
mod state;

// Re-exported, not imported: the handlers name them through `super::` and
// so depend on `reply`, not on this file.
pub(crate) use reply::{Outcome, Reply};

use crate::budget::Budget;
use crate::ctx::{Ctx, ExportCtx, ReadCtx, Roster, StateView};
use crate::deferred::Answer;
use crate::journal::is_query;
use crate::replies::{agents_data, map_info};
use crate::simulation::{Session, Simulation};
use oceansim_protocol::{Action, ActionName, ReplyBody, Request, SingleRequest};

impl Simulation {
    /// Answers one request line for the client whose view is `session`:
    /// the simulation's one request entry. A single request, and each
    /// child of a batch, is answered by the same per-request function; a
    /// batch's children share one [`Budget`] and see one consistent world.
    ///
    /// A single `export_dataset`, or a single `get_terrain_grid` of more
    /// than [`crate::budget::INLINE_GRID_CELLS`] cells, comes back as
    /// [`Answer::Later`]: taken from the world now, to be finished on
    /// another thread, so that it does not hold the simulation (inside a
    /// batch both are done in place and bounded by [`Budget`]); a single
    /// `load_snapshot` as [`Answer::Restore`], replayed in slices between
    /// other requests. [`Answer::finish`] finishes either on this thread.
    pub fn answer(&mut self, session: &mut Session, request: Request) -> Answer {
        let reply = match request {
            // What a single line should not answer in place is taken from
            // the world here, to be finished elsewhere.
            Request::Single(SingleRequest { request_id, action }) => match action {
                #[cfg(feature = "export")]
                Action::ExportDataset(p) => return self.defer_export(request_id, p),
                Action::GetTerrainGrid(g) if self.large_grid(&g) => {
                    return self.defer_grid(request_id, g)
                }
                Action::LoadSnapshot(l) => return self.begin_restore(request_id, l),
                action => {
                    session.budget = Some(Budget::single());
                    self.answer_one(session, SingleRequest { request_id, action })
                }
            },
            batch @ Request::Batch(_) => {
                session.budget = Some(Budget::batch());
                // The protocol's batch rule: the children in order, each
                // valid one answered here, an invalid one with its error.
                batch.respond(|r| self.answer_one(session, r))
            }
        };
        session.budget = None;
        Answer::Now(reply)
    }

    /// Answers one request on this thread, for callers without a
    /// connection of their own (compact replies then track what this
    /// simulation last returned): [`Simulation::answer`], then
    /// [`Answer::finish`].
    pub fn handle(&mut self, req: SingleRequest) -> oceansim_protocol::Reply {
        let mut session = std::mem::take(&mut self.default_session);
        let r = self.answer(&mut session, Request::Single(req)).finish(self);
        self.default_session = session;
        r
    }

    /// Answers one request (a line's, or a batch child's) within the
    /// line's [`Budget`], which `session` holds.
    fn answer_one(
        &mut self,
        session: &mut Session,
        req: SingleRequest,
    ) -> oceansim_protocol::Reply {
        let id = req.request_id;
        let name = req.action.name();
        let query = is_query(name);
        self.commands.request = id.clone();
        if !query {
            self.revs.state += 1;
        }
        // Journaled only once it succeeded: a refused request changes
        // nothing, and replayed alone it might not be refused.
        let pending = self.journal.prepare(self.ticks_run, &id, &req.action);
        let outcome = apply(self, session, req.action).and_then(|reply| {
            // Queries change nothing, so a reply past the budget can be
            // refused whole.
            if query {
                session.budget().take_reply_bytes(reply.data.len())?;
            }
            Ok(reply)
        });
        if let (Ok(_), Some(entry)) = (&outcome, pending) {
            self.journal.push(entry);
        }
        let sim_time = Some(self.sim_time());
        match outcome {
            Ok(reply) => oceansim_protocol::Reply {
                request_id: id,
                action: Some(name.as_str().into()),
                sim_time,
                body: ReplyBody::Ok {
                    kind: reply.kind,
                    data: reply.data,
                },
            },
            Err(e) => oceansim_protocol::Reply::error(id, Some(name.as_str().into()), sim_time, &e),
        }
    }

    /// The parts a command borrows ([`Ctx`]).
    pub(crate) fn ctx(&mut self) -> Ctx<'_> {
        Ctx {
            world: &mut self.world,
            h: &self.h,
            agents: &self.agents,
            commands: &mut self.commands,
        }
    }

    /// The parts a check or reply that changes nothing reads ([`ReadCtx`]).
    pub(crate) fn read_ctx(&self) -> ReadCtx<'_> {
        ReadCtx {
            world: &self.world,
            h: &self.h,
            agents: &self.agents,
        }
    }

    /// The parts a state reply reads and the cache it keeps
    /// ([`StateView`]).
    pub(crate) fn state_view(&mut self) -> StateView<'_> {
        StateView {
            read: ReadCtx {
                world: &self.world,
                h: &self.h,
                agents: &self.agents,
            },
            revs: &self.revs,
            cache: &mut self.cache,
            deterministic: self.config.deterministic,
        }
    }

    /// The parts an export reads and counts ([`ExportCtx`]).
    pub(crate) fn export_ctx(&mut self) -> ExportCtx<'_> {
        ExportCtx {
            read: ReadCtx {
                world: &self.world,
                h: &self.h,
                agents: &self.agents,
            },
            config: &self.config,
            exports: &mut self.exports,
        }
    }

    /// The parts that adding or removing agents changes ([`Roster`]).
    pub(crate) fn roster(&mut self) -> Roster<'_> {
        Roster {
            world: &mut self.world,
            h: &self.h,
            agents: &mut self.agents,
            profiles: &mut self.profiles,
        }
    }
}

/// Applies one action: each handler is lent the parts of the simulation
/// it touches (see `ctx`); `step`, which runs the schedule over it, and
/// those that replace it take it whole.
pub(crate) fn apply(sim: &mut Simulation, session: &mut Session, action: Action) -> Outcome {
    use Action as A;
    let name = action.name();
    if matches!(
        name,
        ActionName::SetNavPath
            | ActionName::SetWaypoint
            | ActionName::SetPredTrajectory
            | ActionName::SetWaypoints
            | ActionName::ClearNav
    ) {
        sim.revs.overlays += 1;
    }
    // A command's parts are borrowed apart here, not through a method, so
    // that a command's path has no hop that only lends.
    macro_rules! cx {
        () => {
            Ctx {
                world: &mut sim.world,
                h: &sim.h,
                agents: &sim.agents,
                commands: &mut sim.commands,
            }
        };
    }
    let (world, h) = (&mut sim.world, &sim.h);
    match action {
        A::GetState(p) => state::get_state(sim.state_view(), session, p),
        A::GetSensors(p) => state::get_sensors(world, h, &sim.agents, &mut sim.revs, p),
        A::Step(p) => motion::step(sim, session, p),
        A::SetForce(p) | A::SetForceWorld(p) | A::SetForceBody(p) => motion::force(cx!(), name, p),
        A::SetBodyWrench(p) => motion::wrench(cx!(), p),
        A::SetBodyVelocity(p) => motion::body_velocity(cx!(), p),
        A::SetThrust(p) | A::SetThrusters(p) => motion::thrusters(cx!(), name, p),
        A::SetFins(p) => motion::fins(cx!(), p),
        A::Reset(p) => {
            session.budget().take_rebuild()?;
            clock::reset(sim, p)
        }
        A::Pause(_) => clock::pause(world, h, true),
        A::Resume(_) => clock::pause(world, h, false),
        A::SetTimeScale(p) => clock::time_scale(world, h, p),
        A::SetScenario(p) => {
            session.budget().take_rebuild()?;
            map::set_scenario(sim, p)
        }
        A::GenerateMap(p) => {
            session.budget().take_rebuild()?;
            map::generate_map(sim, p)
        }
        A::GetMapInfo(_) => Reply::ok(map_info(world, h, &sim.agents)),
        A::GetTerrainGrid(p) => map::terrain_grid(sim.read_ctx(), session.budget(), p),
        A::SpawnObstacle(p) => map::spawn_obstacle(world, h, &sim.agents, *p),
        A::RemoveObstacle(p) => map::remove_obstacle(world, h, p),
        A::SpawnAgent(p) => agents::spawn(sim.roster(), *p),
        A::MoveAgent(p) => agents::move_agent(world, h, &sim.agents, p),
        A::RemoveAgent(p) => agents::remove(sim.roster(), p),
        A::ClearAgents(_) => agents::clear(sim.roster()),
        A::GetAgents(_) => Reply::ok(agents_data(sim.read_ctx())),
        A::SetAgentVelocity(p) => agents::set_velocity(cx!(), p),
        A::SetNavPath(p) => nav::set_nav_path(world, h, p),
        A::SetWaypoint(p) => nav::set_waypoint(cx!(), p),
        A::SetPredTrajectory(p) => nav::set_pred_trajectory(world, h, p),
        A::SetWaypoints(p) => nav::set_waypoints(world, h, p),
        A::ClearNav(_) => nav::clear(world, h),
        A::SetCurrent(p) => map::set_current(world, h, p),
        A::SendAcousticMessage(p) => acoustic::send(world, h, &sim.agents, p),
        A::ConfigureAcousticComm(p) => acoustic::configure(world, h, p),
        A::ReadAcousticInbox(p) => acoustic::read_inbox(world, h, &sim.agents, p),
        A::ExportDataset(p) => {
            session
                .budget()
                .check_export(world.resource(h.recorder).total_len())?;
            export_dataset(sim.export_ctx(), p)
        }
        A::SaveSnapshotJson(p) => {
            let (j, exports) = sim.journal_and_exports();
            snapshot::save_snapshot(j, exports, p)
        }
        A::LoadSnapshot(p) => snapshot::load_snapshot(sim, session.budget(), p),
    }
}

#[cfg(feature = "export")]
use export::export_dataset;

/// `export_dataset` in a build without the exporters: refused, naming the
/// feature, with nothing changed.
#[cfg(not(feature = "export"))]
fn export_dataset(_: ExportCtx<'_>, _: oceansim_protocol::payload::ExportDataset) -> Outcome {
    Err(oceansim_protocol::ProtocolError::InvalidMessage(
        "export_dataset needs the exporters: this build of oceansim-sim has the `export` feature off".into(),
    ))
}
