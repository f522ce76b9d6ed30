//! The simulation: one [`World`] holding every vehicle, proxy and message,
//! and one schedule of systems ticking it. It is built in `setup`, and
//! answers requests through `handlers` (`Simulation::handle`, `answer`).

use crate::agents::{Profiles, Registry};
use crate::bookkeeping::{Commands, Exports, Revisions};
use crate::budget::Budget;
use crate::components::Handles;
use crate::config::SimConfig;
use crate::error::{Result, SimError};
use crate::state_cache::StateCache;
use crate::systems;
use oceansim_ecs::{Engine, Entity, World};
use oceansim_protocol::ProtocolError;
use oceansim_scene::scenario::LoadedScenario;
use oceansim_vehicles::VehicleProfile;
use std::collections::BTreeMap;

/// What one client has seen: compact replies carry only the sensors whose
/// sequence changed since this session's last reply.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub(crate) generation: u64,
    pub(crate) seen: BTreeMap<String, u64>,
    /// The cost budget of the line being answered (see [`Budget`]).
    pub(crate) budget: Option<Budget>,
}

impl Session {
    /// A session that has seen nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// The budget of the line being answered.
    pub(crate) fn budget(&mut self) -> &mut Budget {
        self.budget.get_or_insert_with(Budget::single)
    }
}

/// The simulation.
///
/// Its parts are separate values so that a request's handler borrows only
/// those it touches (see `handlers`' contexts): the world and its
/// handles, the agents by name, the profiles, the revisions, the command
/// book, the exports' counter, the journal.
pub struct Simulation {
    pub(crate) config: SimConfig,
    pub(crate) world: World,
    pub(crate) engine: Engine,
    pub(crate) h: Handles,
    /// Agents by name, the main AUV first.
    pub(crate) agents: Registry,
    pub(crate) profiles: Profiles,
    pub(crate) revs: Revisions,
    pub(crate) commands: Commands,
    pub(crate) cache: StateCache,
    pub(crate) default_session: Session,
    /// Requests that changed the world, for snapshots that load back.
    pub(crate) journal: crate::journal::Journal,
    /// Ticks run since the simulation was created (across resets).
    pub(crate) ticks_run: u64,
    pub(crate) exports: Exports,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("scenario", &self.scenario_id())
            .field("sim_time", &self.sim_time())
            .field("entities", &self.world.len())
            .finish()
    }
}

/// A vehicle profile by name or `*.json` path, its sensor mounts checked
/// against their purpose ([`crate::check_sensor_mounts`]).
pub(crate) fn load_profile(name: &str) -> Result<VehicleProfile> {
    let p = if name.ends_with(".json") {
        VehicleProfile::load(name)?
    } else {
        VehicleProfile::builtin(name)?
    };
    oceansim_sensors::check_mounts(&p).map_err(SimError::Config)?;
    Ok(p)
}

/// The main vehicle's profile: the one asked for, else the main agent's,
/// else the scenario's recommendation, else the default.
pub(crate) fn main_profile_name(loaded: &LoadedScenario, asked: Option<&str>) -> String {
    asked
        .map(str::to_owned)
        .or_else(|| loaded.main_agent().profile.clone())
        .or_else(|| loaded.scenario.recommended_profile.clone())
        .unwrap_or_else(|| oceansim_vehicles::DEFAULT_PROFILE.into())
}

impl Simulation {
    /// Runs `n` physics ticks: the one schedule ([`crate::TICK`]), whether
    /// the clock runs in real time or is stepped; the clock and the idling
    /// of failed vehicles are systems of it. Returns the agents whose
    /// dynamics failed, each once with the time of its first failure (they
    /// kept their last finite state and are now idle); a failure is logged
    /// when it starts, not again while it persists.
    pub fn tick(&mut self, n: u64) -> Vec<(String, f64)> {
        if n == 0 {
            return Vec::new();
        }
        let t0 = self.world.resource(self.h.clock).time();
        self.world.set_time(t0);
        if let Err(e) = self.engine.run(&mut self.world, n) {
            // The schedule was checked when the world was built.
            tracing::error!("tick failed: {e}");
        }
        self.ticks_run += n;
        self.revs.state += 1;
        let (faults, fresh) = self.world.resource_mut(self.h.faults).drain();
        for (name, t) in &fresh {
            tracing::warn!(agent = %name, time = t, "dynamics diverged; the vehicle keeps its last state and goes idle (logged once while it keeps diverging)");
        }
        faults
    }

    /// Advances the real-time clock by `wall_dt` seconds of wall time (no-op
    /// while paused). Returns the ticks run.
    ///
    /// The ticks owed run one at a time for at most
    /// [`crate::MAX_ADVANCE_WALL_S`] of wall time: what the host
    /// could not run in that slice is dropped (the clock falls behind real
    /// time rather than holding every client, the viewer and the bridge for
    /// seconds), and [`crate::Clock::achieved_time_scale`] says how far.
    ///
    /// Paused or not, recorded frames whose sensor renders have finished
    /// on the pool join the record here, so images rendered while nobody
    /// steps count against the recording's memory bound (and spill) at
    /// once rather than at the next frame.
    pub fn advance_realtime(&mut self, wall_dt: f64) -> u64 {
        self.world.resource_mut(self.h.recorder).land_ready();
        let due = self.world.resource_mut(self.h.clock).due(wall_dt);
        let start = std::time::Instant::now();
        let mut ran = 0;
        while ran < due {
            self.tick(1);
            ran += 1;
            if start.elapsed().as_secs_f64() >= crate::MAX_ADVANCE_WALL_S {
                break;
            }
        }
        let mut clock = self.world.resource_mut(self.h.clock);
        if ran < due {
            clock.drop_backlog();
        }
        clock.note_run(wall_dt, ran);
        ran
    }

    /// The recorded frames still in memory, oldest first (shared: cheap to
    /// take). Past the memory bound the oldest have spilled to disk:
    /// [`Simulation::recorded_frames`] has them all.
    pub fn recorded(&self) -> Vec<std::sync::Arc<crate::Sample>> {
        self.world.resource_mut(self.h.recorder).shared()
    }

    /// Everything recorded so far, spilled frames included, as exports read
    /// it (cheap to take: the spill is read as it is iterated).
    pub fn recorded_frames(&self) -> crate::RecordedFrames {
        self.world.resource_mut(self.h.recorder).frames()
    }

    /// Samples every sensor now (at start and after a teleport).
    pub(crate) fn sample_now(&mut self) {
        let time = self.world.resource(self.h.clock).time();
        systems::sample_all(&self.world, &self.h, time);
    }

    /// The flag that stops every export this simulation prepares, even
    /// one running on another thread ([`PreparedExport::run`]): set, the
    /// export stops at its next frame, removes what it wrote and answers
    /// that it was cancelled. A server that is stopping sets it once its
    /// exports have had their grace.
    ///
    /// [`PreparedExport::run`]: crate::PreparedExport::run
    pub fn export_cancel(&self) -> oceansim_record::Cancel {
        self.exports.cancel.clone()
    }

    /// Simulation time (s).
    pub fn sim_time(&self) -> f64 {
        self.world.resource(self.h.clock).time()
    }

    /// Whether the clock is paused.
    pub fn paused(&self) -> bool {
        self.world.resource(self.h.clock).paused
    }

    /// The clock's multiple of real time.
    pub fn time_scale(&self) -> f64 {
        self.world.resource(self.h.clock).time_scale
    }

    /// The scenario id.
    pub fn scenario_id(&self) -> String {
        self.world
            .resource(self.h.scene)
            .scenario
            .scenario
            .id
            .clone()
    }

    /// The active seed.
    pub fn seed(&self) -> u64 {
        self.world.resource(self.h.scene).seed
    }

    /// The world (read-only): every entity, component and system.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The main AUV's entity.
    pub fn main_entity(&self) -> Entity {
        self.agents.main()
    }

    /// The entity of agent `name`.
    pub fn entity_of(&self, name: &str) -> Option<Entity> {
        self.agents.get(name)
    }

    /// The Fossen state (NED position, attitude, body velocity) of vehicle
    /// `name` (the main AUV for `None`); `None` for an unknown name or a
    /// kinematic proxy.
    pub fn vehicle_state(&self, name: Option<&str>) -> Option<oceansim_vehicles::VehicleState> {
        let e = match name {
            Some(n) => self.agents.get(n)?,
            None => self.agents.main(),
        };
        let row = self.world.row(e)?;
        if self.world.read(self.h.kind)[row] != crate::Kind::Vehicle.code() {
            return None;
        }
        Some(crate::components::vehicle_state(&self.world, &self.h, row))
    }

    /// Builds (if needed) and checks the schedule.
    pub(crate) fn check_schedule(&mut self) -> Result<()> {
        self.engine.schedule_names(&mut self.world)?;
        Ok(())
    }

    /// The systems in the order the schedule runs them.
    pub fn schedule(&mut self) -> Vec<String> {
        self.engine
            .schedule_names(&mut self.world)
            .unwrap_or_default()
    }

    /// The world's components, systems and dataflow, as text.
    pub fn describe(&self) -> String {
        self.world.describe()
    }

    /// The buffered samples of sensor `sensor` on agent `agent`, oldest
    /// first (the latest [`oceansim_sensors::SENSOR_BUFFER`] at most).
    pub fn sensor_samples(&self, agent: &str, sensor: &str) -> Vec<crate::SensorSample> {
        let Some(row) = self.agents.get(agent).and_then(|e| self.world.row(e)) else {
            return Vec::new();
        };
        let suites = self.world.objects(self.h.sensors);
        suites[row]
            .as_ref()
            .and_then(|s| s.get(sensor))
            .map(|s| s.samples().cloned().collect())
            .unwrap_or_default()
    }

    /// The entity of agent `id`, or `unknown_agent`.
    pub(crate) fn agent(&self, id: &str) -> std::result::Result<Entity, ProtocolError> {
        self.agents.agent(id)
    }

    /// The entity of agent `id` and its row, or `unknown_agent` (a name
    /// the registry holds for an entity no longer in the world included).
    pub(crate) fn agent_row(
        &self,
        id: &str,
    ) -> std::result::Result<(Entity, usize), ProtocolError> {
        self.agents.agent_row(&self.world, id)
    }
}

/// The main AUV's row in every world: it is spawned first (setup) and
/// never despawned (`remove_agent` and `clear_agents` refuse it), and a
/// despawn moves only the last row into the removed one.
pub(crate) const MAIN_ROW: usize = 0;

/// The main AUV's row in `world`: [`MAIN_ROW`].
pub(crate) fn main_row(world: &World, agents: &Registry) -> usize {
    debug_assert_eq!(world.row(agents.main()), Some(MAIN_ROW));
    MAIN_ROW
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_protocol::ErrorCode;

    fn send(sim: &mut Simulation, line: &str) -> serde_json::Value {
        let req = oceansim_protocol::Request::decode(line).expect("a well-formed request");
        let resp = sim.answer(&mut Session::new(), req).finish(sim);
        resp.to_value()
    }

    #[test]
    fn an_agent_gone_from_the_world_is_unknown_never_the_main_auv() {
        let mut sim = Simulation::new(crate::SimConfig {
            paused: true,
            record_sensor_data: false,
            ..crate::SimConfig::default()
        })
        .expect("default scenario loads");
        for id in ["a", "b"] {
            let r = send(
                &mut sim,
                &format!(
                    r#"{{"type":"command","action":"spawn_agent","data":{{"agent_name":"{id}","location":[{x},-5,0]}}}}"#,
                    x = if id == "a" { 3 } else { -3 }
                ),
            );
            assert_eq!(r["success"], true, "{r}");
        }
        // The registry still names `a`, the world no longer holds it (the
        // two must agree; if they ever did not, the old fallback made its
        // commands the main AUV's).
        let a = sim.agent("a").unwrap();
        sim.world.despawn(a).unwrap();
        let before = send(&mut sim, r#"{"type":"command","action":"get_state"}"#);
        assert!(matches!(
            sim.agent_row("a"),
            Err(ProtocolError::UnknownAgent(_))
        ));
        assert!(matches!(
            crate::agents::row_of(&sim.world, a),
            Err(ProtocolError::UnknownAgent(_))
        ));
        for line in [
            r#"{"type":"command","action":"move_agent","data":{"id":"a","position":[0,-5,0]}}"#,
            r#"{"type":"command","action":"set_agent_velocity","data":{"id":"a","velocity":[1,0,0]}}"#,
            r#"{"type":"command","action":"set_waypoint","data":{"agent_id":"a","world_x":5,"world_z":5,"depth":5,"control_scheme":"waypoint_pid"}}"#,
        ] {
            let r = send(&mut sim, line);
            assert_eq!(
                r["error_code"],
                ErrorCode::UnknownAgent.as_str(),
                "{line} -> {r}"
            );
        }
        // The main AUV kept its row and its state.
        assert_eq!(sim.world.row(sim.main_entity()), Some(MAIN_ROW));
        let after = send(&mut sim, r#"{"type":"command","action":"get_state"}"#);
        assert_eq!(before["data"]["position"], after["data"]["position"]);
        assert_eq!(
            sim.agent_row("b").map(|(_, row)| row).ok(),
            sim.world.row(sim.agent("b").unwrap())
        );
    }

    #[test]
    fn a_failed_vehicle_goes_idle_at_the_end_of_its_tick() {
        let mut sim = Simulation::new(crate::SimConfig {
            paused: true,
            record_sensor_data: false,
            ..crate::SimConfig::default()
        })
        .expect("default scenario loads");
        let r = send(
            &mut sim,
            r#"{"type":"command","action":"set_force","data":{"force":[0,20,0]}}"#,
        );
        assert_eq!(r["success"], true, "{r}");
        let (h, t0) = (sim.h, sim.world.resource(sim.h.clock).tick);
        sim.tick(1);
        let active = |sim: &Simulation| sim.world.objects(h.command)[MAIN_ROW].clone();
        assert!(matches!(
            active(&sim).map(|s| s.command),
            Some(crate::control::Command::ForceWorld(_))
        ));
        // As fossen_dynamics lists a failure: the vehicle's idle command
        // is written at the end of the tick, and applied at the next.
        sim.world
            .resource_mut(h.faults)
            .diverge("auv/main".into(), MAIN_ROW, 0.0);
        let faults = sim.tick(1);
        assert_eq!(faults.len(), 1);
        let pending = sim.world.objects(h.command_in)[MAIN_ROW].clone();
        assert!(matches!(
            pending.map(|s| s.command),
            Some(crate::control::Command::Idle)
        ));
        assert!(sim.world.resource(h.faults).to_idle.is_empty());
        sim.tick(1);
        assert!(matches!(
            active(&sim).map(|s| s.command),
            Some(crate::control::Command::Idle)
        ));
        // The clock counted every tick (advance_clock).
        assert_eq!(sim.world.resource(h.clock).tick, t0 + 3);
    }
}
