//! The protocol shell: one line per action, each handing its typed payload
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
pub(crate) mod snapshot;
mod state;

use crate::simulation::{Session, Simulation};
use oceansim_protocol::{Action, ActionName, ProtocolError, ResponseType};
use serde::Serialize;
use std::sync::Arc;

/// A successful answer: its type and its data as JSON text.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub kind: ResponseType,
    pub data: Arc<str>,
}

impl Reply {
    /// A `response` carrying a typed reply.
    pub fn ok<T: Serialize + ?Sized>(data: &T) -> Outcome {
        // Reply types are plain data; serialising them cannot fail.
        let text = serde_json::to_string(data).unwrap_or_else(|_| "{}".into());
        Ok(Reply {
            kind: ResponseType::Response,
            data: text.into(),
        })
    }

    /// A `state` response from rendered text.
    pub fn state(data: impl Into<Arc<str>>) -> Outcome {
        Ok(Reply {
            kind: ResponseType::State,
            data: data.into(),
        })
    }
}

/// What a request comes to.
pub(crate) type Outcome = Result<Reply, ProtocolError>;

/// Whether an action only reads the world.
pub(crate) fn is_query(name: ActionName) -> bool {
    use ActionName as N;
    matches!(
        name,
        N::GetState | N::GetSensors | N::GetAgents | N::GetMapInfo | N::GetTerrainGrid
    )
}

/// Applies one action.
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
        sim.overlays_rev += 1;
    }
    match action {
        A::GetState(p) => state::get_state(sim, session, p),
        A::GetSensors(p) => state::get_sensors(sim, p),
        A::Step(p) => motion::step(sim, session, p),
        A::SetForce(p) | A::SetForceWorld(p) | A::SetForceBody(p) => motion::force(sim, name, p),
        A::SetBodyWrench(p) => motion::wrench(sim, p),
        A::SetBodyVelocity(p) => motion::body_velocity(sim, p),
        A::SetThrust(p) | A::SetThrusters(p) => motion::thrusters(sim, name, p),
        A::SetFins(p) => motion::fins(sim, p),
        A::Reset(p) => {
            session.budget().take_rebuild()?;
            clock::reset(sim, p)
        }
        A::Pause(_) => clock::pause(sim, true),
        A::Resume(_) => clock::pause(sim, false),
        A::SetTimeScale(p) => clock::time_scale(sim, p),
        A::SetScenario(p) => {
            session.budget().take_rebuild()?;
            map::set_scenario(sim, p)
        }
        A::GenerateMap(p) => {
            session.budget().take_rebuild()?;
            map::generate_map(sim, p)
        }
        A::GetMapInfo(_) => Reply::ok(&sim.map_info()),
        A::GetTerrainGrid(p) => map::terrain_grid(sim, session, p),
        A::SpawnObstacle(p) => map::spawn_obstacle(sim, *p),
        A::RemoveObstacle(p) => map::remove_obstacle(sim, p),
        A::SpawnAgent(p) => agents::spawn(sim, *p),
        A::MoveAgent(p) => agents::move_agent(sim, p),
        A::RemoveAgent(p) => agents::remove(sim, p),
        A::ClearAgents(_) => agents::clear(sim),
        A::GetAgents(_) => Reply::ok(&sim.agents_data()),
        A::SetAgentVelocity(p) => agents::set_velocity(sim, p),
        A::SetNavPath(p) => nav::set_nav_path(sim, p),
        A::SetWaypoint(p) => nav::set_waypoint(sim, p),
        A::SetPredTrajectory(p) => nav::set_pred_trajectory(sim, p),
        A::SetWaypoints(p) => nav::set_waypoints(sim, p),
        A::ClearNav(_) => nav::clear(sim),
        A::SetCurrent(p) => map::set_current(sim, p),
        A::SendAcousticMessage(p) => acoustic::send(sim, p),
        A::ConfigureAcousticComm(p) => acoustic::configure(sim, p),
        A::ReadAcousticInbox(p) => acoustic::read_inbox(sim, p),
        A::ExportDataset(p) => {
            session
                .budget()
                .check_export(sim.world.resource(sim.h.recorder).total_len())?;
            export_dataset(sim, p)
        }
        A::SaveSnapshotJson(p) => snapshot::save_snapshot(sim, p),
        A::LoadSnapshot(p) => snapshot::load_snapshot(sim, session.budget(), p),
    }
}

#[cfg(feature = "export")]
use export::export_dataset;

/// `export_dataset` in a build without the exporters: refused, naming the
/// feature, with nothing changed.
#[cfg(not(feature = "export"))]
fn export_dataset(_: &mut Simulation, _: oceansim_protocol::payload::ExportDataset) -> Outcome {
    Err(ProtocolError::InvalidMessage(
        "export_dataset needs the exporters: this build of oceansim-sim has the `export` feature off".into(),
    ))
}
