//! Building a simulation: from a scenario (its vehicles' profiles, its
//! agents placed as `spawn_agent` places them), and again on a reset.

use crate::acoustic::{default_channel, AcousticChannel};
use crate::agents::{self, ProfileModel, Profiles, Registry};
use crate::bookkeeping::{Commands, Exports, Revisions};
use crate::clock::Clock;
use crate::components::build_world;
use crate::config::SimConfig;
use crate::error::{Result, SimError};
use crate::frames::{Godot, User};
use crate::handlers;
use crate::simulation::{load_profile, main_profile_name, Session, Simulation};
use crate::state_cache::StateCache;
use crate::systems;
use oceansim_ecs::Engine;
use oceansim_record::{RecordLimits, Recorder};
use oceansim_scene::scenario::{self, LoadedScenario};
use oceansim_scene::Scene;
use std::collections::BTreeMap;
use std::sync::Arc;

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
        profiles: Profiles,
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
        profiles: Profiles,
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
                    renders_in_flight: config.renders_in_flight,
                    ..RecordLimits::default()
                },
            ),
        )?;
        systems::register(&mut world, &h)?;
        let spawn = agents::VehicleSpawn {
            position: start,
            attitude: crate::frames::GodotRotation(main_def.rotation).into(),
            scheme: main_def.control_scheme,
            seed,
        };
        let main = agents::spawn_vehicle(&mut world, &h, main_def.clone(), &main_pm, spawn);
        let mut sim = Simulation {
            engine: Engine::new(config.tick_s),
            config,
            world,
            h,
            agents: Registry::new(&main_def.agent_name, main),
            profiles,
            revs: Revisions {
                generation,
                ..Revisions::default()
            },
            commands: Commands::default(),
            cache: StateCache::default(),
            default_session: Session::default(),
            journal: Default::default(),
            ticks_run: 0,
            exports: Exports::default(),
        };
        sim.profiles.insert(profile_name, main_pm);
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
            handlers::agents::place(&mut sim.roster(), def.clone(), &raw, false).map_err(|e| {
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
            self.revs.generation + 1,
            self.profiles.clone(),
        )?;
        // The journal and the tick count run on across resets: a snapshot
        // replays from the simulation's creation.
        next.journal = std::mem::take(&mut self.journal);
        next.ticks_run = self.ticks_run;
        // The export counter runs on too, and the server holds the cancel
        // flag it was given at start: the rebuilt world's exports answer
        // to the same one.
        next.exports = self.exports.clone();
        *self = next;
        Ok(())
    }
}
