//! The protocol shell: the request entry points (`Simulation::handle`,
//! `handle_in`, `answer`), then one line per action, each handing its
//! typed payload, and only the parts of the simulation it touches (`ctx`),
//! to its family's module. Every function validates before it changes
//! anything, so a rejected request leaves the world as it was, and answers
//! with a typed reply (see `oceansim_protocol::reply`) or a coded error.

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
use crate::journal::is_query;
use crate::render::{agents_data, map_info};
use crate::simulation::{Session, Simulation};
use oceansim_protocol::{Action, ActionName, Request, Response, SingleRequest};

impl Simulation {
    /// Answers one request (for callers without a connection of their own;
    /// compact replies then track what this simulation last returned).
    pub fn handle(&mut self, req: SingleRequest) -> Response {
        let mut session = std::mem::take(&mut self.default_session);
        let r = self.handle_in(&mut session, req);
        self.default_session = session;
        r
    }

    /// Answers one request for the client whose view is `session`.
    ///
    /// The request has a [`Budget`] of its own unless it is a child of a
    /// line being answered by [`Simulation::answer`].
    pub fn handle_in(&mut self, session: &mut Session, req: SingleRequest) -> Response {
        let own_budget = session.budget.is_none();
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
        if own_budget {
            session.budget = None;
        }
        if let (Ok(_), Some(entry)) = (&outcome, pending) {
            self.journal.push(entry);
        }
        match outcome {
            Ok(reply) => {
                let mut r = Response::typed(reply.kind, id, name, Some(self.sim_time()), &());
                r.data_raw = Some(reply.data);
                r
            }
            Err(e) => Response::error(id, Some(name.as_str().into()), Some(self.sim_time()), &e),
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

    /// Answers one request line: a single request, or a batch whose
    /// children share one [`Budget`] and see one consistent world.
    pub fn answer(&mut self, session: &mut Session, request: Request) -> Response {
        session.budget = Some(match &request {
            Request::Single(_) => Budget::single(),
            Request::Batch(_) => Budget::batch(),
        });
        let r = request.respond(|single| self.handle_in(session, single));
        session.budget = None;
        r
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
    let (world, h) = (&mut sim.world, &sim.h);
    match action {
        A::GetState(p) => state::get_state(sim.state_view(), session, p),
        A::GetSensors(p) => state::get_sensors(world, h, &sim.agents, &mut sim.revs, p),
        A::Step(p) => motion::step(sim, session, p),
        A::SetForce(p) | A::SetForceWorld(p) | A::SetForceBody(p) => {
            motion::force(sim.ctx(), name, p)
        }
        A::SetBodyWrench(p) => motion::wrench(sim.ctx(), p),
        A::SetBodyVelocity(p) => motion::body_velocity(sim.ctx(), p),
        A::SetThrust(p) | A::SetThrusters(p) => motion::thrusters(sim.ctx(), name, p),
        A::SetFins(p) => motion::fins(sim.ctx(), p),
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
        A::GetMapInfo(_) => Reply::ok(&map_info(world, h, &sim.agents)),
        A::GetTerrainGrid(p) => map::terrain_grid(sim.read_ctx(), session.budget(), p),
        A::SpawnObstacle(p) => map::spawn_obstacle(world, h, &sim.agents, *p),
        A::RemoveObstacle(p) => map::remove_obstacle(world, h, p),
        A::SpawnAgent(p) => agents::spawn(sim.roster(), *p),
        A::MoveAgent(p) => agents::move_agent(world, h, &sim.agents, p),
        A::RemoveAgent(p) => agents::remove(sim.roster(), p),
        A::ClearAgents(_) => agents::clear(sim.roster()),
        A::GetAgents(_) => Reply::ok(&agents_data(sim.read_ctx())),
        A::SetAgentVelocity(p) => agents::set_velocity(sim.ctx(), p),
        A::SetNavPath(p) => nav::set_nav_path(world, h, p),
        A::SetWaypoint(p) => nav::set_waypoint(sim.ctx(), p),
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
