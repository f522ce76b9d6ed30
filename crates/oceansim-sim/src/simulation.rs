//! The simulation: one [`World`] holding every vehicle, proxy and message,
//! one schedule of systems ticking it, and the requests that read and
//! command it.

use crate::acoustic::{default_channel, AcousticChannel};
use crate::agents::{self, ProfileModel, Registry};
use crate::budget::Budget;
use crate::clock::Clock;
use crate::components::{build_world, Handles};
use crate::config::SimConfig;
use crate::control::{Command, CommandSlot};
use crate::dispatch;
use crate::error::{Result, SimError};
use crate::frames::{Godot, User};
use crate::render::StateCache;
use crate::systems;
use oceansim_ecs::{Engine, Entity, World};
use oceansim_protocol::{ProtocolError, Request, Response, SingleRequest};
use oceansim_record::{RecordLimits, Recorder};
use oceansim_scene::scenario::{self, LoadedScenario};
use oceansim_scene::Scene;
use oceansim_vehicles::VehicleProfile;
use std::collections::BTreeMap;
use std::sync::Arc;

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
pub struct Simulation {
    pub(crate) config: SimConfig,
    pub(crate) world: World,
    engine: Engine,
    pub(crate) h: Handles,
    pub(crate) agents: Registry,
    pub(crate) main: Entity,
    pub(crate) profiles: BTreeMap<String, ProfileModel>,
    /// Bumped by every tick and every change; keys the rendered state.
    pub(crate) revision: u64,
    /// The id of the request being answered (logged with its command).
    pub(crate) current_request: Option<oceansim_protocol::RequestId>,
    /// Bumped by every rebuild (reset, new scenario).
    pub(crate) generation: u64,
    pub(crate) cache: StateCache,
    command_seq: u64,
    pub(crate) export_counter: u64,
    default_session: Session,
    /// Requests that changed the world, for snapshots that load back.
    pub(crate) journal: crate::journal::Journal,
    /// Ticks run since the simulation was created (across resets).
    pub(crate) ticks_run: u64,
    /// Bumped by every navigation-overlay request.
    pub(crate) overlays_rev: u64,
    /// Stops the exports this simulation prepared ([`Simulation::export_cancel`]).
    pub(crate) export_cancel: oceansim_record::Cancel,
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
    /// A simulation of `config.scenario`.
    pub fn new(config: SimConfig) -> Result<Self> {
        config.check()?;
        let loaded = Arc::new(scenario::load(&config.scenario)?);
        Simulation::from_sources(config, loaded, BTreeMap::new())
    }

    /// A simulation of the scenario `loaded` (whatever `config.scenario`
    /// names), its vehicles' profiles taken from `profiles` where named
    /// there (a restored snapshot carries them) and loaded otherwise.
    pub(crate) fn from_sources(
        config: SimConfig,
        loaded: Arc<LoadedScenario>,
        profiles: BTreeMap<String, ProfileModel>,
    ) -> Result<Self> {
        config.check()?;
        crate::DiskBudget::set_limit(&config.export_root, config.export_budget_bytes);
        let mut clock = Clock::new(
            config.tick_s,
            config.step_ticks(),
            config.paused,
            config.time_scale,
        );
        clock.deterministic = config.deterministic;
        clock.record_ticks = config.record_ticks();
        let seed = config.seed;
        Simulation::build(config, loaded, seed, clock, 0, profiles)
    }

    /// The world of `loaded` with `seed`: the main AUV first, then the
    /// scenario's other agents; the clock keeps its pause and time scale.
    /// Profiles already in `profiles` are used as they are (a reset does
    /// not read a profile file again).
    pub(crate) fn build(
        config: SimConfig,
        loaded: Arc<LoadedScenario>,
        seed: u64,
        old_clock: Clock,
        generation: u64,
        profiles: BTreeMap<String, ProfileModel>,
    ) -> Result<Self> {
        let main_def = loaded.main_agent().clone();
        let profile_name = main_profile_name(&loaded, config.profile.as_deref());
        let main_pm = match profiles.get(&profile_name) {
            Some(pm) => pm.clone(),
            None => ProfileModel::new(load_profile(&profile_name)?),
        };
        let start = User::from(Godot(main_def.location));
        let scene = Scene::new(loaded.clone(), seed, start);
        let acoustic = AcousticChannel::new(default_channel(seed));
        let mut clock = old_clock;
        clock.tick = 0;
        clock.set_paused(clock.paused);
        let (mut world, h) = build_world(
            clock,
            scene,
            acoustic,
            Recorder::with_limits(
                config.record_sensor_data,
                RecordLimits {
                    memory_frames: config.record_memory_frames,
                    memory_bytes: config.record_memory_bytes,
                    memory_commands: config.record_memory_frames,
                    spill_root: Some(config.export_root.clone()),
                    ..RecordLimits::default()
                },
            ),
        )?;
        systems::register(&mut world, &h)?;
        let mut sim = Simulation {
            engine: Engine::new(config.tick_s),
            config,
            world,
            h,
            agents: Registry::default(),
            main: Entity::from_raw(0),
            profiles,
            revision: 0,
            current_request: None,
            generation,
            cache: StateCache::default(),
            command_seq: 0,
            export_counter: 0,
            default_session: Session::default(),
            journal: Default::default(),
            ticks_run: 0,
            overlays_rev: 0,
            export_cancel: oceansim_record::Cancel::new(),
        };
        sim.profiles.insert(profile_name, main_pm.clone());
        let scheme = main_def.control_scheme;
        let spawn = agents::VehicleSpawn {
            position: start,
            attitude: crate::frames::GodotRotation(main_def.rotation).into(),
            scheme,
            seed,
        };
        sim.main = agents::spawn_vehicle(&mut sim.world, &sim.h, main_def.clone(), &main_pm, spawn);
        sim.agents.insert(&main_def.agent_name, sim.main);
        for def in loaded.agents.iter().filter(|d| !d.is_main_agent) {
            let raw = loaded
                .scenario
                .agents
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .find(|v| v["agent_name"] == def.agent_name.as_str())
                })
                .cloned()
                .unwrap_or_default();
            dispatch::agents::place(&mut sim, def.clone(), &raw, false).map_err(|e| {
                SimError::Config(format!("scenario agent `{}`: {e}", def.agent_name))
            })?;
        }
        // Builds and checks the schedule once.
        sim.engine.run(&mut sim.world, 0)?;
        sim.sample_now();
        systems::record(&sim.world, &sim.h, 0.0);
        Ok(sim)
    }

    /// Back to the scenario's initial state (optionally with a new seed);
    /// the clock's pause state and time scale are kept.
    pub fn reset(&mut self, seed: Option<u64>) -> Result<()> {
        let seed = seed.unwrap_or(self.seed());
        let loaded = self.world.resource(self.h.scene).scenario.clone();
        self.rebuild(loaded, seed)
    }

    /// Replaces the world with a fresh one of `loaded`.
    pub(crate) fn rebuild(&mut self, loaded: Arc<LoadedScenario>, seed: u64) -> Result<()> {
        let clock = self.world.resource(self.h.clock).clone();
        let mut next = Simulation::build(
            self.config.clone(),
            loaded,
            seed,
            clock,
            self.generation + 1,
            self.profiles.clone(),
        )?;
        // The journal and the tick count run on across resets: a snapshot
        // replays from the simulation's creation.
        next.journal = std::mem::take(&mut self.journal);
        next.ticks_run = self.ticks_run;
        next.export_counter = self.export_counter;
        *self = next;
        Ok(())
    }

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
        let query = dispatch::is_query(name);
        self.current_request = id.clone();
        if !query {
            self.revision += 1;
        }
        // Journaled only once it succeeded: a refused request changes
        // nothing, and replayed alone it might not be refused.
        let pending = self.journal.prepare(self.ticks_run, &id, &req.action);
        let outcome = dispatch::apply(self, session, req.action).and_then(|reply| {
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

    /// Runs `n` physics ticks: the one schedule, whether the clock runs in
    /// real time or is stepped. Returns the agents whose dynamics failed,
    /// each once with the time of its first failure (they kept their last
    /// finite state and are now idle); a failure is logged when it starts,
    /// not again while it persists.
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
        self.world.resource_mut(self.h.clock).tick += n;
        self.ticks_run += n;
        self.revision += 1;
        let (faults, fresh) = self.world.resource_mut(self.h.faults).drain();
        for (name, t) in &fresh {
            tracing::warn!(agent = %name, time = t, "dynamics diverged; the vehicle keeps its last state and goes idle (logged once while it keeps diverging)");
        }
        for (name, _) in &faults {
            if let Some(e) = self.agents.get(name) {
                self.set_command(e, Command::Idle);
            }
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
    pub fn advance_realtime(&mut self, wall_dt: f64) -> u64 {
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

    /// Writes `command` for entity `e`; it takes effect at the next tick.
    pub(crate) fn set_command(&mut self, e: Entity, command: Command) {
        self.command_seq += 1;
        if let Some(row) = self.world.row(e) {
            self.world.objects_mut(self.h.command_in)[row] = Some(CommandSlot {
                command,
                seq: self.command_seq,
            });
        }
    }

    /// The recorded frames still in memory, oldest first (shared: cheap to
    /// take). Past the memory bound the oldest have spilled to disk:
    /// [`Simulation::recorded_frames`] has them all.
    pub fn recorded(&self) -> Vec<std::sync::Arc<crate::Sample>> {
        self.world.resource(self.h.recorder).shared()
    }

    /// Everything recorded so far, spilled frames included, as exports read
    /// it (cheap to take: the spill is read as it is iterated).
    pub fn recorded_frames(&self) -> crate::RecordedFrames {
        self.world.resource(self.h.recorder).frames()
    }

    /// Logs a command accepted for the agent in `row` (with the request id
    /// being answered) and makes it the agent's last command.
    pub(crate) fn record_command(
        &mut self,
        row: usize,
        scheme: oceansim_agents::ControlScheme,
        record: oceansim_agents::CommandRecord,
        saturated: bool,
    ) {
        let time = self.sim_time();
        let mut agents = self.world.objects_mut(self.h.agent);
        let Some(meta) = agents.get_mut(row).and_then(Option::as_mut) else {
            return;
        };
        let entry = self.world.resource_mut(self.h.recorder).log_command(
            &meta.def.agent_name,
            record,
            time,
            self.current_request.clone(),
        );
        meta.record(scheme, entry, saturated);
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
        self.export_cancel.clone()
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
        self.main
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
            None => self.main,
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
        self.agents
            .get(id)
            .ok_or_else(|| ProtocolError::UnknownAgent(id.into()))
    }
}
