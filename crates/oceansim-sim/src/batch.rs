//! Many copies of one vehicle in one scene, stepped in lockstep: the
//! simulator's physics and, where asked, its sensor models, without its
//! protocol or recorder, for reinforcement learning and Monte-Carlo runs.
//!
//! A [`Batch`] holds one read-only [`Shared`] part (the scene of a scenario
//! and seed, the vehicle profile and its [`Vehicle`], the tick) and `K`
//! independent [`Lane`]s (one vehicle's state, actuators, waypoint PID and
//! command each). A lane's control period runs exactly the systems the
//! world runs for its main vehicle, in the same order and with the same
//! functions: command → body wrench (the control module's `control_wrench`),
//! then [`Vehicle::step`] (thrusters, fins, propellers, the dynamics with
//! forces at every stage, the integrator, the plausibility guard), and the
//! contacts with the seabed, obstacles, map edge and surface. A lane driven
//! by the same commands as a [`crate::Simulation`]'s main AUV (with no other
//! agent near it) follows the same trajectory bit for bit; a test pins it.
//!
//! Lanes share nothing mutable, so stepping them on any number of threads
//! gives the same result as stepping them one after another.
//!
//! ## Sensors
//!
//! [`BatchSpec::sensors`] lists the sensors each lane carries (depth, IMU,
//! DVL, a reduced imaging or multibeam sonar, any family): the very
//! [`Sensor`] models the simulator samples, mounted where the profile
//! mounts that family, seeded as the simulator seeds them. A lane samples
//! each at the end of every tick its period falls on (its own tick count
//! from the lane's reset, as the world counts from its build), and every
//! sensor once at the reset, so a lane reset at a simulation's start and
//! driven by the same commands reads, sample for sample, what that
//! simulation's main AUV reads (a test pins it; the imaging sonar encodes
//! no PNG in lanes, its intensity array is the same). The only bodies sonar rays meet
//! besides the scene are those handed to [`Shared::step_among`].
//!
//! Frames and units are the simulator's: lane states are Fossen
//! [`VehicleState`]s (NED, body velocity); actions follow the control
//! schemes of [`oceansim_agents::ControlScheme`], in their documented frames.
//!
//! ```
//! use oceansim_agents::ControlScheme;
//! use oceansim_sim::batch::{Batch, BatchSpec};
//!
//! let mut batch = Batch::new(&BatchSpec::default(), 4).unwrap();
//! let (shared, lanes) = batch.split_mut();
//! for lane in lanes.iter_mut() {
//!     lane.set_action(shared, ControlScheme::BodyForce3d, &[0.0, 40.0, 0.0]).unwrap();
//! }
//! batch.step_all(None);
//! assert!(batch.lanes().iter().all(|l| l.state().nu[0] > 0.0), "all surge ahead");
//! ```

use crate::control::{vehicle_tick, Command, PidState, Plant, WaypointTarget};
use crate::error::{Result, SimError};
use crate::frames::{Godot, GodotRotation, Ned, User};
use nalgebra::{Rotation3, UnitQuaternion, Vector3, Vector6};
use oceansim_agents::ControlScheme;
use oceansim_protocol::reply::{Contact, ContactClass};
use oceansim_scene::body::Body;
use oceansim_scene::scenario::LoadedScenario;
use oceansim_scene::Scene;
use oceansim_sensors::{Family, SampleCtx, SceneView, Sensor};
use oceansim_vehicles::{
    Actuators, CommandLimits, SensorMount, SonarParams, Vehicle, VehicleProfile, VehicleState,
};
use rayon::prelude::*;
use std::sync::Arc;

/// What a batch simulates.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSpec {
    /// Scenario name or `*.json` path.
    pub scenario: String,
    /// Seed of the scene (terrain and procedural obstacles), shared by
    /// every lane.
    pub seed: u64,
    /// Vehicle profile; `None` takes the scenario's main agent's.
    pub profile: Option<String>,
    /// Physics tick (s).
    pub tick_s: f64,
    /// Control period (s): one [`Shared::step`]; a whole number of ticks.
    pub step_period_s: f64,
    /// The sensors every lane carries (none by default).
    pub sensors: Vec<LaneSensorSpec>,
    /// Samples each lane sensor keeps, the latest last (1 to
    /// [`crate::SENSOR_BUFFER`]; default 1: an observation reads the
    /// latest, and thousands of lanes stay in cache).
    pub sensor_buffer: usize,
}

/// A sensor of every lane: a family, mounted where the profile mounts it
/// (the body origin where the profile has none), and for a sonar the
/// beams, bins and range to use instead of the profile's.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneSensorSpec {
    /// The family; the sensor is named after it (`dvl`, `imaging_sonar`).
    pub family: Family,
    /// For a sonar: what to change of the mount's parameters.
    pub sonar: Option<SonarParams>,
    /// The mount's rotation (roll, pitch, yaw, deg, body FRD) instead of
    /// the profile's: a task's own sensor head.
    pub rotation_rpy_deg: Option<[f64; 3]>,
}

impl LaneSensorSpec {
    /// A sensor of `family` as the profile mounts it.
    pub fn new(family: Family) -> Self {
        LaneSensorSpec {
            family,
            sonar: None,
            rotation_rpy_deg: None,
        }
    }
    /// A sonar of `family` with `beams` beams and `bins` bins over
    /// `range_m` metres (what is `None` keeps the mount's value).
    pub fn sonar(
        family: Family,
        beams: Option<u32>,
        bins: Option<u32>,
        range_m: Option<f64>,
    ) -> Self {
        LaneSensorSpec {
            family,
            sonar: Some(SonarParams {
                beams,
                bins,
                max_range_m: range_m,
            }),
            rotation_rpy_deg: None,
        }
    }
    /// This sensor with its mount turned to `rpy_deg`.
    pub fn rotated(mut self, rpy_deg: [f64; 3]) -> Self {
        self.rotation_rpy_deg = Some(rpy_deg);
        self
    }
}

impl Default for BatchSpec {
    fn default() -> Self {
        let d = crate::SimConfig::default();
        BatchSpec {
            scenario: d.scenario,
            seed: d.seed,
            profile: None,
            tick_s: d.tick_s,
            step_period_s: d.step_period_s,
            sensors: Vec::new(),
            sensor_buffer: 1,
        }
    }
}

/// The read-only part of a batch.
#[derive(Debug, Clone)]
pub struct Shared {
    scene: Arc<Scene>,
    profile: Arc<VehicleProfile>,
    vehicle: Arc<Vehicle>,
    radius_m: f64,
    half_length_m: f64,
    tick_s: f64,
    ticks_per_step: u64,
    start: VehicleState,
    /// Each lane sensor's family and mount (sonar parameters applied).
    sensors: Vec<(Family, Option<SensorMount>)>,
    /// The scene's seed: the sensors' noise seed of [`Lane::reset`].
    seed: u64,
    /// Samples each lane sensor keeps.
    sensor_buffer: usize,
}

/// What happened to a lane in its last control period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Touches {
    /// Touched the seabed.
    pub seabed: bool,
    /// Touched a static obstacle.
    pub obstacle: bool,
    /// Held at the map's edge.
    pub map_edge: bool,
    /// Held at the sea surface.
    pub surface: bool,
    /// A tick's dynamics were not plausible and were not taken.
    pub diverged: bool,
}

/// One vehicle of a batch.
#[derive(Debug)]
pub struct Lane {
    state: VehicleState,
    velocity_ned: Vector3<f64>,
    actuators: Actuators,
    pid: PidState,
    command: Command,
    seq: u64,
    touches: Touches,
    /// Ticks since the reset (the sensors' schedule).
    tick: u64,
    /// ν̇ over the last tick (Fossen body), as the world's `nu_dot`.
    nu_dot: Vector6<f64>,
    sensors: Vec<Sensor>,
}

impl Shared {
    /// The scene every lane moves in.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }
    /// The vehicle profile.
    pub fn profile(&self) -> &VehicleProfile {
        &self.profile
    }
    /// The command limits of the profile.
    pub fn limits(&self) -> &CommandLimits {
        &self.vehicle.limits
    }
    /// The vehicle: dynamics, actuators, limits, integrator.
    pub fn vehicle(&self) -> &Vehicle {
        &self.vehicle
    }
    /// The scenario's start state of the main vehicle.
    pub fn start(&self) -> VehicleState {
        self.start
    }
    /// Physics tick (s).
    pub fn tick_s(&self) -> f64 {
        self.tick_s
    }
    /// Control period (s).
    pub fn step_period_s(&self) -> f64 {
        self.tick_s * self.ticks_per_step as f64
    }
    /// Contact capsule of the hull: (radius, half length of the segment), m.
    pub fn hull(&self) -> (f64, f64) {
        (self.radius_m, self.half_length_m)
    }

    /// The sensors of every lane: family and mount.
    pub fn sensor_mounts(&self) -> &[(Family, Option<SensorMount>)] {
        &self.sensors
    }

    /// A lane at `state`, at rest in its actuators and controller, its
    /// sensors seeded with the scene's seed (as the simulator seeds its
    /// main AUV's) and sampled once.
    pub fn lane(&self, state: VehicleState) -> Lane {
        self.lane_with_noise(state, self.seed)
    }

    /// [`Shared::lane`] with the sensors' noise seeded by `noise_seed`
    /// (each episode its own noise).
    pub fn lane_with_noise(&self, state: VehicleState, noise_seed: u64) -> Lane {
        let sensors = self
            .sensors
            .iter()
            .map(|(family, mount)| {
                let mut s = Sensor::new("auv", family.name(), *family, mount.as_ref(), noise_seed)
                    .encode_images(false)
                    .keep_samples(self.sensor_buffer);
                s.set_tick(self.tick_s);
                s
            })
            .collect();
        let mut lane = Lane {
            sensors,
            ..self.lane_without_sensors(state)
        };
        self.sample(&mut lane, &[], |_| true);
        lane
    }

    /// A lane at `state` that carries no sensors (a probe: what a start
    /// would do, without paying for its sensors).
    pub fn lane_without_sensors(&self, state: VehicleState) -> Lane {
        Lane {
            velocity_ned: state.velocity_ned(),
            state: normalised(state),
            actuators: self.vehicle.actuators(),
            pid: PidState::default(),
            command: Command::Idle,
            seq: 0,
            touches: Touches::default(),
            tick: 0,
            nu_dot: Vector6::zeros(),
            sensors: Vec::new(),
        }
    }

    /// One control period of `lane` under its command.
    pub fn step(&self, lane: &mut Lane) {
        self.step_among(lane, &[]);
    }

    /// [`Shared::step`] with `others` (user frame) in the water: what the
    /// lane's sensor rays can meet besides the scene (the other vehicles
    /// of a fleet, where they were at the start of the period). The hull
    /// touches only the scene.
    pub fn step_among(&self, lane: &mut Lane, others: &[Body]) {
        lane.touches = Touches::default();
        let current = Ned::from(User(self.scene.current_user)).0;
        for _ in 0..self.ticks_per_step {
            self.tick(lane, &current);
            lane.tick += 1;
            if !lane.sensors.is_empty() {
                let tick = lane.tick;
                self.sample(lane, others, |s| s.due(tick));
            }
        }
    }

    /// Samples the lane's sensors `pick` accepts, at the lane's time.
    fn sample(&self, lane: &mut Lane, others: &[Body], pick: impl Fn(&Sensor) -> bool) {
        if !lane.sensors.iter().any(&pick) {
            return;
        }
        let time = lane.tick as f64 * self.tick_s;
        let ctx = SampleCtx {
            time,
            wall_time: time,
            state: &lane.state,
            nu_dot: lane.nu_dot,
            water_density: self.profile.water_density_kg_m3,
            scene: SceneView {
                terrain: &self.scene.terrain,
                obstacles: &self.scene.obstacles,
                bodies: others,
            },
            mount: (&Vector3::zeros(), &Rotation3::identity()),
        };
        for s in lane.sensors.iter_mut().filter(|s| pick(s)) {
            s.sample(&ctx);
        }
    }

    fn tick(&self, lane: &mut Lane, current: &Vector3<f64>) {
        let dt = self.tick_s;
        // vehicle_control, then actuators (as the world's systems do).
        if matches!(lane.command, Command::Waypoint(_)) && lane.pid.seq != lane.seq {
            lane.pid = PidState::new(lane.seq);
        }
        let plant = Plant {
            state: &lane.state,
            current_ned: *current,
            vehicle: &self.vehicle,
        };
        // vehicle_control and fossen_dynamics, as the world runs them: a
        // step that is not plausible is not taken.
        let start_ned = lane.state.position_ned;
        let next = vehicle_tick(&lane.command, &mut lane.pid, &mut lane.actuators, plant, dt);
        if let Some(next) = next {
            lane.nu_dot = (next.nu - lane.state.nu) / dt;
            lane.velocity_ned = next.velocity_ned();
            lane.state = normalised(next);
        } else {
            lane.nu_dot = Vector6::zeros();
            lane.touches.diverged = true;
        }
        // contacts, against the scene alone.
        let contacts = crate::systems::vehicle_scene_contacts(
            &self.scene,
            start_ned,
            &mut lane.state,
            &mut lane.velocity_ned,
            self.radius_m,
            self.half_length_m,
        );
        for c in &contacts {
            lane.touches.note(c);
        }
    }
}

/// The simulator configuration a batch's spec stands for (the default
/// scenario: the caller names its own).
fn config_of(spec: &BatchSpec) -> crate::SimConfig {
    crate::SimConfig {
        seed: spec.seed,
        profile: spec.profile.clone(),
        tick_s: spec.tick_s,
        step_period_s: spec.step_period_s,
        ..crate::SimConfig::default()
    }
}

/// A lane sonar's parameters within the ranges a profile may give.
fn check_sonar(family: Family, p: SonarParams) -> Result<()> {
    let bad = |what: &str, x: f64, lo: f64, hi: f64| {
        // Also catches NaN.
        let ok = x >= lo && x <= hi;
        (!ok).then(|| {
            SimError::Config(format!(
                "lane sensor {}: {what} must be in [{lo}, {hi}], got {x}",
                family.name()
            ))
        })
    };
    let sonar = matches!(
        family,
        Family::ImagingSonar | Family::MultibeamSonar | Family::SideScanSonar
    );
    if !sonar {
        return Err(SimError::Config(format!(
            "lane sensor {}: only a sonar takes beams, bins and range",
            family.name()
        )));
    }
    let checks = [
        p.beams
            .and_then(|b| bad("beams", f64::from(b), 2.0, 1024.0)),
        p.bins.and_then(|b| bad("bins", f64::from(b), 4.0, 4096.0)),
        p.max_range_m.and_then(|r| bad("range", r, 1.0, 500.0)),
    ];
    match checks.into_iter().flatten().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The attitude as the world stores and reads it: written as a quaternion,
/// read back normalised.
fn normalised(mut s: VehicleState) -> VehicleState {
    s.attitude = UnitQuaternion::new_normalize(s.attitude.into_inner());
    s
}

impl Touches {
    fn note(&mut self, c: &Contact) {
        match c.class {
            ContactClass::Terrain => self.seabed = true,
            ContactClass::StaticObstacle => self.obstacle = true,
            ContactClass::MapEdge => self.map_edge = true,
            ContactClass::Surface => self.surface = true,
            _ => {}
        }
    }

    /// Whether the hull hit something solid (seabed or obstacle).
    pub fn collided(&self) -> bool {
        self.seabed || self.obstacle
    }
}

impl Lane {
    /// The vehicle's state (NED, Fossen body velocity).
    pub fn state(&self) -> &VehicleState {
        &self.state
    }
    /// Velocity of the body origin in NED (m/s), as the dynamics left it.
    pub fn velocity_ned(&self) -> Vector3<f64> {
        self.velocity_ned
    }
    /// What the last control period touched.
    pub fn touches(&self) -> Touches {
        self.touches
    }
    /// The command in force.
    pub fn command(&self) -> &Command {
        &self.command
    }
    /// The lane's sensors, in [`BatchSpec::sensors`] order.
    pub fn sensors(&self) -> &[Sensor] {
        &self.sensors
    }
    /// The lane's sensor of `family` (the first, if several).
    pub fn sensor(&self, family: Family) -> Option<&Sensor> {
        self.sensors.iter().find(|s| s.family() == family)
    }
    /// Simulated time since the reset (s).
    pub fn time_s(&self, shared: &Shared) -> f64 {
        self.tick as f64 * shared.tick_s
    }

    /// Puts the lane at `state`, actuators and controller at rest, no
    /// command, sensors afresh (seeded with the scene's seed).
    pub fn reset(&mut self, shared: &Shared, state: VehicleState) {
        *self = shared.lane(state);
    }

    /// [`Lane::reset`] with the sensors' noise seeded by `noise_seed`.
    pub fn reset_with_noise(&mut self, shared: &Shared, state: VehicleState, noise_seed: u64) {
        *self = shared.lane_with_noise(state, noise_seed);
    }

    /// Sets the command from an action of `scheme`, clamped to the
    /// vehicle's limits as the simulator clamps the same request; returns
    /// whether it was clamped. Refused (the lane unchanged) when the length
    /// is not the scheme's, a value is not finite, or the scheme does not
    /// drive a vehicle (`external_velocity` moves proxies;
    /// `custom_dynamics_6dof` is reserved).
    pub fn set_action(
        &mut self,
        shared: &Shared,
        scheme: ControlScheme,
        action: &[f64],
    ) -> Result<bool> {
        let v = &shared.vehicle;
        let want = match scheme {
            ControlScheme::Fins => v.fin_count(),
            _ => oceansim_agents::ActionSpace::for_scheme(scheme, v.thruster_count()).len(),
        };
        let unsupported = !crate::agents::vehicle_supports(&shared.profile, scheme);
        if unsupported {
            return Err(SimError::Action(format!(
                "profile `{}` has no actuators for {}",
                shared.profile.name,
                scheme.as_str()
            )));
        }
        if action.len() != want {
            return Err(SimError::Action(format!(
                "{} takes {want} values, got {}",
                scheme.as_str(),
                action.len()
            )));
        }
        if let Some(k) = action.iter().position(|x| !x.is_finite()) {
            return Err(SimError::Action(format!(
                "{} value {k} is not finite",
                scheme.as_str()
            )));
        }
        let l = &shared.vehicle.limits;
        let a3 = || [action[0], action[1], action[2]];
        let a6 = || {
            let mut a = [0.0; 6];
            a.copy_from_slice(action);
            a
        };
        let (command, clamped) = match scheme {
            ControlScheme::Force3d => {
                let (f, c) = l.clamp_force(a3());
                (Command::ForceWorld(f), c)
            }
            ControlScheme::BodyForce3d => {
                let (f, c) = l.clamp_force(a3());
                (Command::ForceBody(f), c)
            }
            ControlScheme::BodyWrench6dof => {
                let (w, c) = l.clamp_wrench(a6());
                (Command::Wrench(w), c)
            }
            ControlScheme::BodyVelocity6dof => {
                let (v, c) = l.clamp_velocity(a6());
                (Command::BodyVelocity(v), c)
            }
            ControlScheme::Thrusters => (Command::Thrusters(action.to_vec()), false),
            ControlScheme::WaypointPid => {
                let t = WaypointTarget::new(action[0], action[1], action[2], None)
                    .map_err(SimError::Action)?;
                (Command::Waypoint(t), false)
            }
            ControlScheme::Fins => {
                // Finite and of the right length: checked above.
                let (f, c) = v.clamp_fins(action).unwrap_or_default();
                (Command::Fins(f), c)
            }
            ControlScheme::ExternalVelocity | ControlScheme::CustomDynamics6dof => {
                return Err(SimError::Action(format!(
                    "{} does not drive a Fossen vehicle",
                    scheme.as_str()
                )))
            }
        };
        self.seq += 1;
        self.command = command;
        Ok(clamped)
    }
}

/// `K` lanes over one [`Shared`] part.
#[derive(Debug)]
pub struct Batch {
    shared: Shared,
    lanes: Vec<Lane>,
}

impl Batch {
    /// `lanes` vehicles at the scenario's start of its main agent.
    pub fn new(spec: &BatchSpec, lanes: usize) -> Result<Batch> {
        let config = crate::SimConfig {
            scenario: spec.scenario.clone(),
            ..config_of(spec)
        };
        config.check()?;
        let loaded = oceansim_scene::scenario::load(&spec.scenario)?;
        Batch::with_scenario(spec, loaded, lanes)
    }

    /// [`Batch::new`] on a scenario already parsed
    /// ([`crate::parse_scenario`]); `spec.scenario` is not read.
    pub fn with_scenario(spec: &BatchSpec, loaded: LoadedScenario, lanes: usize) -> Result<Batch> {
        let config = config_of(spec);
        config.check()?;
        let loaded = Arc::new(loaded);
        let main = loaded.main_agent().clone();
        let profile_name = crate::simulation::main_profile_name(&loaded, spec.profile.as_deref());
        let profile = crate::simulation::load_profile(&profile_name)?;
        let start_user = User::from(Godot(main.location));
        let attitude: crate::frames::Attitude = GodotRotation(main.rotation).into();
        let scene = Scene::new(loaded, spec.seed, start_user);
        let (radius_m, half_length_m) = crate::agents::hull_capsule(&profile);
        let sensors = spec
            .sensors
            .iter()
            .map(|want| {
                // The profile's mount of the family, as the simulator finds
                // one for a declaration named after its family.
                let mut mount = profile
                    .sensors
                    .iter()
                    .find(|m| m.name == want.family.name())
                    .or_else(|| {
                        profile
                            .sensors
                            .iter()
                            .find(|m| m.sensor_type == want.family.name())
                    })
                    .cloned();
                let origin = || SensorMount {
                    name: want.family.name().into(),
                    sensor_type: want.family.name().into(),
                    position_m: [0.0; 3],
                    rotation_rpy_deg: [0.0; 3],
                    imu_noise: None,
                    camera: None,
                    sonar: None,
                };
                if let Some(rpy) = want.rotation_rpy_deg {
                    if !rpy.iter().all(|x| x.is_finite()) {
                        return Err(SimError::Config(format!(
                            "lane sensor {}: rotation must be finite",
                            want.family.name()
                        )));
                    }
                    mount.get_or_insert_with(origin).rotation_rpy_deg = rpy;
                }
                if let Some(p) = want.sonar {
                    let m = mount.get_or_insert_with(origin);
                    let old = m.sonar.unwrap_or_default();
                    m.sonar = Some(SonarParams {
                        beams: p.beams.or(old.beams),
                        bins: p.bins.or(old.bins),
                        max_range_m: p.max_range_m.or(old.max_range_m),
                    });
                    check_sonar(want.family, m.sonar.unwrap_or_default())?;
                }
                Ok((want.family, mount))
            })
            .collect::<Result<Vec<_>>>()?;
        let start = VehicleState {
            position_ned: Ned::from(start_user).0,
            attitude: attitude.0,
            nu: Vector6::zeros(),
        };
        let shared = Shared {
            scene: Arc::new(scene),
            vehicle: Arc::new(Vehicle::from_profile(&profile)),
            profile: Arc::new(profile),
            radius_m,
            half_length_m,
            tick_s: config.tick_s,
            ticks_per_step: config.step_ticks(),
            start,
            sensors,
            seed: spec.seed,
            sensor_buffer: spec.sensor_buffer,
        };
        let lanes = (0..lanes).map(|_| shared.lane(start)).collect();
        Ok(Batch { shared, lanes })
    }

    /// The read-only part.
    pub fn shared(&self) -> &Shared {
        &self.shared
    }
    /// The lanes.
    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }
    /// The read-only part and the lanes, to set actions or reset lanes.
    pub fn split_mut(&mut self) -> (&Shared, &mut [Lane]) {
        (&self.shared, &mut self.lanes)
    }

    /// One control period of every lane, on `pool`'s threads (rayon's
    /// global pool when `None`). The result does not depend on the pool.
    pub fn step_all(&mut self, pool: Option<&rayon::ThreadPool>) {
        let shared = &self.shared;
        let run = |lanes: &mut [Lane]| {
            lanes
                .par_iter_mut()
                .with_min_len(16)
                .for_each(|l| shared.step(l))
        };
        match pool {
            Some(p) => p.install(|| run(&mut self.lanes)),
            None => run(&mut self.lanes),
        }
    }
}
