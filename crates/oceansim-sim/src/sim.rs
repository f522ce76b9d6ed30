//! The simulation: world state, time control and every protocol action.

use crate::auv::{Auv, Command, WaypointPid};
use crate::comms::{AcousticChannel, ChannelConfig};
use crate::error::{Result, SimError};
use crate::export::{confine, pack_dir, trajectory_svg, write_json, write_lines};
use crate::frames::{
    attitude_to_godot_rotation, godot_rotation_to_attitude, godot_to_oceansim, heading_deg,
    ned_to_user, oceansim_to_godot, user_to_ned,
};
use crate::geometry::{splitmix64, Obstacle, Terrain, TerrainSpec};
use crate::proxies::{Proxies, Proxy, ProxyMode};
use crate::scenario::{self, LoadedScenario};
use crate::sensors::{Scene, SensorSuite, Snapshot};
use nalgebra::{Vector3, Vector6};
use oceansim_agents::{
    ActionSpace, AgentDefinition, AgentRuntimeState, CommandRecord, ControlScheme, Frame,
    MAIN_AGENT_NAME,
};
use oceansim_protocol::payload::{
    ObstacleShape, PathPoint, SpawnObstacle, ThrusterCommand, Vector,
};
use oceansim_protocol::{Action, ActionName, ProtocolError, Response, SingleRequest};
use oceansim_vehicles::{VehicleModel, VehicleProfile, VehicleState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
use std::path::PathBuf;

/// Most dynamic agents.
pub const MAX_AGENTS: usize = 64;
/// Most static obstacles.
pub const MAX_OBSTACLES: usize = 512;
/// Most cells in one occupancy grid.
pub const MAX_GRID_CELLS: usize = 1_000_000;
/// Most recorded samples kept for export (10 Hz: about 2.8 h).
pub const MAX_RECORDED_SAMPLES: usize = 100_000;
/// Most physics ticks one real-time advance may run (the clock falls behind
/// rather than bursting when the host cannot keep up).
pub const MAX_TICKS_PER_ADVANCE: u64 = 2_000;

/// Runtime settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Scenario name or path.
    pub scenario: String,
    /// Terrain and noise seed.
    pub seed: u64,
    /// Vehicle profile override (default: the scenario's main agent's).
    pub profile: Option<String>,
    /// Physics tick (s).
    pub tick_s: f64,
    /// Control period advanced by `step` (s).
    pub step_period_s: f64,
    /// Start paused.
    pub paused: bool,
    /// Multiple of real time.
    pub time_scale: f64,
    /// Where exports may be written.
    pub export_root: PathBuf,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            scenario: scenario::DEFAULT_SCENARIO.into(),
            seed: 0,
            profile: None,
            tick_s: 0.01,
            step_period_s: 0.1,
            paused: false,
            time_scale: 1.0,
            export_root: PathBuf::from("oceansim-exports"),
        }
    }
}

impl SimConfig {
    fn check(&self) -> Result<()> {
        let ok = self.tick_s.is_finite() && self.tick_s > 0.0 && self.tick_s <= 0.1;
        if !ok {
            return Err(SimError::Config(format!(
                "tick must be in (0, 0.1] s, got {}",
                self.tick_s
            )));
        }
        let ratio = self.step_period_s / self.tick_s;
        if !(ratio.is_finite() && ratio >= 1.0 - 1e-9 && (ratio - ratio.round()).abs() < 1e-6) {
            return Err(SimError::Config(format!(
                "step period {} s must be a whole number of ticks of {} s",
                self.step_period_s, self.tick_s
            )));
        }
        if !(self.time_scale.is_finite()
            && self.time_scale > 0.0
            && self.time_scale <= oceansim_protocol::payload::MAX_TIME_SCALE)
        {
            return Err(SimError::Config(format!(
                "time scale must be in (0, 1e6], got {}",
                self.time_scale
            )));
        }
        Ok(())
    }
}

/// Navigation overlays (Godot coordinates, as sent).
#[derive(Debug, Clone, Default, PartialEq)]
struct Overlays {
    nav_path: Vec<PathPoint>,
    waypoint: Option<[f64; 3]>,
    pred_trajectory: Vec<PathPoint>,
    waypoints: Vec<PathPoint>,
}

/// One recorded sample for export.
#[derive(Debug, Clone)]
struct Sample {
    time: f64,
    position: [f64; 3],
    velocity: [f64; 3],
    heading_deg: f64,
    command: Option<CommandRecord>,
    agents: Vec<(String, [f64; 3])>,
}

enum Reply {
    /// A state payload, pre-rendered JSON.
    State(String),
    Ok(Value),
}

/// The simulation.
pub struct Simulation {
    config: SimConfig,
    loaded: LoadedScenario,
    seed: u64,
    profile: VehicleProfile,
    terrain: Terrain,
    obstacles: Vec<Obstacle>,
    obstacle_counter: u64,
    auv: Auv,
    main_def: AgentDefinition,
    scheme: ControlScheme,
    sensors: SensorSuite,
    proxies: Proxies,
    overlays: Overlays,
    current_user: [f64; 3],
    acoustic: AcousticChannel,
    ticks: u64,
    paused: bool,
    time_scale: f64,
    realtime_acc: f64,
    last_command: Option<CommandRecord>,
    last_command_time: Option<f64>,
    nu_dot: Vector6<f64>,
    contact: Option<&'static str>,
    recorder: VecDeque<Sample>,
    export_counter: u64,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("scenario", &self.loaded.scenario.id)
            .field("seed", &self.seed)
            .field("ticks", &self.ticks)
            .finish()
    }
}

fn godot3(p: [f64; 3]) -> Value {
    json!(p)
}

impl Simulation {
    /// A simulation of `config.scenario`.
    pub fn new(config: SimConfig) -> Result<Self> {
        config.check()?;
        let loaded = scenario::load(&config.scenario)?;
        let profile_name = config
            .profile
            .clone()
            .or_else(|| loaded.main_agent().profile.clone())
            .or_else(|| loaded.scenario.recommended_profile.clone())
            .unwrap_or_else(|| oceansim_vehicles::DEFAULT_PROFILE.into());
        let profile = load_profile(&profile_name)?;
        let seed = config.seed;
        let mut sim = Simulation::build(config, loaded, seed, profile)?;
        sim.paused = sim.config.paused;
        sim.time_scale = sim.config.time_scale;
        Ok(sim)
    }

    fn build(
        config: SimConfig,
        loaded: LoadedScenario,
        seed: u64,
        profile: VehicleProfile,
    ) -> Result<Self> {
        let s = &loaded.scenario;
        let terrain = Terrain::generate(TerrainSpec {
            size_m: s.map_size_m,
            floor_depth_m: s.terrain.floor_depth_m,
            relief_m: s.terrain.relief_m,
            feature_scale_m: s.terrain.feature_scale_m,
            canyon_width_m: s.terrain.canyon_width_m,
            canyon_wall_height_m: s.terrain.canyon_wall_height_m.unwrap_or(0.0),
            seed: splitmix64(seed ^ 0x007E_44A1_u64),
        });
        let main_def = loaded.main_agent().clone();
        let start_user = godot_to_oceansim(main_def.location);
        let start = VehicleState {
            position_ned: user_to_ned(start_user),
            attitude: godot_rotation_to_attitude(main_def.rotation),
            nu: Vector6::zeros(),
        };
        let auv = Auv::new(profile.clone(), start, config.tick_s)?;
        let mut obstacles: Vec<Obstacle> = loaded
            .obstacles
            .iter()
            .map(|(id, o)| Obstacle::from_spawn(id.clone(), o))
            .collect();
        if let Some(po) = &s.procedural_obstacles {
            obstacles.extend(procedural_obstacles(&terrain, po, start_user, seed));
        }
        let decls: Vec<(String, String)> = main_def
            .sensors
            .iter()
            .map(|d| (d.name().to_owned(), d.sensor_type().to_owned()))
            .collect();
        let sensors = SensorSuite::new(&decls, &profile.sensors, seed);
        let mut sim = Simulation {
            obstacle_counter: obstacles.len() as u64,
            config,
            seed,
            terrain,
            obstacles,
            auv,
            scheme: main_def.control_scheme,
            main_def,
            sensors,
            proxies: Proxies::new(0.01),
            overlays: Overlays::default(),
            current_user: [0.0; 3],
            acoustic: AcousticChannel::new(ChannelConfig {
                seed,
                ..ChannelConfig::default()
            }),
            ticks: 0,
            paused: false,
            time_scale: 1.0,
            realtime_acc: 0.0,
            last_command: None,
            last_command_time: None,
            nu_dot: Vector6::zeros(),
            contact: None,
            recorder: VecDeque::new(),
            export_counter: 0,
            profile,
            loaded,
        };
        sim.proxies = Proxies::new(sim.config.tick_s);
        for def in sim
            .loaded
            .agents
            .iter()
            .filter(|d| !d.is_main_agent)
            .cloned()
            .collect::<Vec<_>>()
        {
            let extra = sim
                .loaded
                .scenario
                .agents
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .find(|v| v["agent_name"] == def.agent_name.as_str())
                        .cloned()
                })
                .unwrap_or(Value::Null);
            let proxy = proxy_from(&def, &extra)?;
            sim.proxies.add(proxy, godot_to_oceansim(def.location));
        }
        sim.record_sample();
        Ok(sim)
    }

    /// Back to the scenario's initial state (optionally with a new seed);
    /// the clock's pause state and time scale are kept.
    pub fn reset(&mut self, seed: Option<u64>) -> Result<()> {
        let seed = seed.unwrap_or(self.seed);
        let (paused, scale) = (self.paused, self.time_scale);
        let rebuilt = Simulation::build(
            self.config.clone(),
            self.loaded.clone(),
            seed,
            self.profile.clone(),
        )?;
        *self = rebuilt;
        self.paused = paused;
        self.time_scale = scale;
        Ok(())
    }

    /// Simulation time (s).
    pub fn sim_time(&self) -> f64 {
        self.ticks as f64 * self.config.tick_s
    }

    /// Whether the clock is paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// The clock's multiple of real time.
    pub fn time_scale(&self) -> f64 {
        self.time_scale
    }

    /// The scenario id.
    pub fn scenario_id(&self) -> &str {
        &self.loaded.scenario.id
    }

    /// Ticks per `step`.
    fn step_ticks(&self) -> u64 {
        (self.config.step_period_s / self.config.tick_s).round() as u64
    }

    /// Advances the real-time clock by `wall_dt` seconds of wall time (no-op
    /// while paused). Returns the ticks run.
    pub fn advance_realtime(&mut self, wall_dt: f64) -> u64 {
        if self.paused || !(wall_dt.is_finite() && wall_dt > 0.0) {
            return 0;
        }
        self.realtime_acc += wall_dt * self.time_scale;
        let due = (self.realtime_acc / self.config.tick_s).floor() as u64;
        let run = due.min(MAX_TICKS_PER_ADVANCE);
        self.realtime_acc = if due > run {
            0.0
        } else {
            self.realtime_acc - run as f64 * self.config.tick_s
        };
        self.tick(run);
        run
    }

    /// Runs `n` physics ticks.
    ///
    /// Stretches in which the AUV cannot reach the surface or the seabed
    /// (judged from its speed and a bound on its acceleration) run as one
    /// engine call; near a boundary, ticks run one by one with contact
    /// handling. Both paths do the same arithmetic, so results are identical.
    pub fn tick(&mut self, n: u64) {
        let samples_every = self.step_ticks().max(1);
        let dt = self.config.tick_s;
        let mut remaining = n;
        while remaining > 0 {
            let to_boundary = samples_every - self.ticks % samples_every;
            let k = remaining.min(to_boundary);
            if self.contact_free(k as f64 * dt) {
                if k > 1 {
                    self.auv.tick(k - 1);
                }
                let before = self.auv.state().nu;
                self.auv.tick(1);
                self.nu_dot = (self.auv.state().nu - before) / dt;
                self.contact = None;
                self.proxies.tick(k);
                self.ticks += k;
                self.acoustic.deliver(self.sim_time());
            } else {
                for _ in 0..k {
                    let before = self.auv.state().nu;
                    self.auv.tick(1);
                    self.apply_contacts();
                    self.nu_dot = (self.auv.state().nu - before) / dt;
                    self.proxies.tick(1);
                    self.ticks += 1;
                    self.acoustic.deliver(self.sim_time());
                }
            }
            remaining -= k;
            if self.ticks.is_multiple_of(samples_every) {
                self.record_sample();
            }
        }
    }

    /// Whether the AUV certainly stays clear of surface and seabed for
    /// `horizon` seconds (speed now plus up to 10 m/s² of acceleration).
    fn contact_free(&self, horizon: f64) -> bool {
        let s = self.auv.state();
        let p = ned_to_user(&s.position_ned);
        let reach = s.nu.fixed_rows::<3>(0).norm() * horizon + 5.0 * horizon * horizon + 0.3;
        let floor = self.terrain.height(p[0], p[1]) + 0.2;
        -p[2] > reach && p[2] - floor > reach
    }

    /// Keeps the AUV between the seabed and the surface.
    fn apply_contacts(&mut self) {
        let mut s = self.auv.state();
        let user = ned_to_user(&s.position_ned);
        let floor = self.terrain.height(user[0], user[1]) + 0.2;
        let contact = if user[2] > 0.0 {
            Some(("surface", 0.0, true))
        } else if user[2] < floor {
            Some(("seabed", floor, false))
        } else {
            None
        };
        self.contact = contact.map(|c| c.0);
        if let Some((_, z, at_surface)) = contact {
            s.position_ned.z = -z;
            let mut v = s.attitude * s.nu.fixed_rows::<3>(0).into_owned();
            // Stop the motion into the boundary (NED z: up is negative).
            if at_surface {
                v.z = v.z.max(0.0);
            } else {
                v.z = v.z.min(0.0);
            }
            let b = s.attitude.inverse_transform_vector(&v);
            s.nu[0] = b.x;
            s.nu[1] = b.y;
            s.nu[2] = b.z;
            self.auv.set_state(&s);
        }
    }

    fn record_sample(&mut self) {
        let s = self.auv.state();
        let positions = self.proxies.positions();
        let agents = self
            .proxies
            .records
            .borrow()
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    p.def.agent_name.clone(),
                    [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]],
                )
            })
            .collect();
        if self.recorder.len() >= MAX_RECORDED_SAMPLES {
            self.recorder.pop_front();
        }
        self.recorder.push_back(Sample {
            time: self.sim_time(),
            position: ned_to_user(&s.position_ned),
            velocity: ned_to_user(&s.velocity_ned()),
            heading_deg: heading_deg(&s.attitude),
            command: self.last_command.clone(),
            agents,
        });
    }

    /// Answers one request.
    pub fn handle(&mut self, req: SingleRequest) -> Response {
        let id = req.request_id;
        let name = req.action.name();
        match self.apply(req.action) {
            Ok(Reply::State(json)) => Response::state_raw(id, name, self.sim_time(), json),
            Ok(Reply::Ok(data)) => Response::ok(id, name, Some(self.sim_time()), data),
            Err(e) => Response::error(id, Some(name.as_str().into()), Some(self.sim_time()), &e),
        }
    }

    /// Applies a main-AUV command and records it; returns the frame the
    /// command is expressed in (the scheme's).
    fn command(
        &mut self,
        cmd: Command,
        scheme: ControlScheme,
        action: ActionName,
        data: Value,
    ) -> Frame {
        self.auv.control.borrow_mut().command = cmd;
        self.scheme = scheme;
        self.last_command = Some(CommandRecord {
            action: action.as_str().into(),
            data,
            frame: Some(scheme.frame()),
        });
        self.last_command_time = Some(self.sim_time());
        scheme.frame()
    }

    fn thruster_command(
        &self,
        t: &ThrusterCommand,
    ) -> std::result::Result<Vec<f64>, ProtocolError> {
        let n = self.profile.thrusters.len();
        match t {
            ThrusterCommand::Ordered(v) if v.len() == n => Ok(v.clone()),
            ThrusterCommand::Ordered(v) => Err(ProtocolError::InvalidActionShape(format!(
                "expected {n} thruster values, got {}",
                v.len()
            ))),
            ThrusterCommand::Named(map) => {
                let mut out = match &self.auv.control.borrow().command {
                    Command::Thrusters(prev) => prev.clone(),
                    _ => vec![0.0; n],
                };
                for (name, v) in map {
                    let idx = name
                        .strip_prefix("thruster_")
                        .and_then(|i| i.parse::<usize>().ok())
                        .filter(|i| *i < n)
                        .or_else(|| self.profile.thrusters.iter().position(|t| &t.name == name));
                    match idx {
                        Some(i) => out[i] = *v,
                        None => {
                            let valid: Vec<String> =
                                (0..n).map(|i| format!("thruster_{i}")).collect();
                            return Err(ProtocolError::InvalidActionShape(format!(
                                "unknown thruster `{name}`; valid: {}",
                                valid.join(", ")
                            )));
                        }
                    }
                }
                Ok(out)
            }
        }
    }

    fn apply(&mut self, action: Action) -> std::result::Result<Reply, ProtocolError> {
        use Action as A;
        let data = action.data();
        let name = action.name();
        Ok(match action {
            A::GetState(_) => Reply::State(self.state_json(None)),
            A::GetSensors(g) => {
                if let Some(names) = &g.sensors {
                    if let Some(bad) = names.iter().find(|n| !self.sensors.has(n)) {
                        let have: Vec<&str> = self
                            .sensors
                            .sensors
                            .iter()
                            .map(|s| s.name.as_str())
                            .collect();
                        return Err(ProtocolError::InvalidMessage(format!(
                            "no sensor `{bad}` (active: {})",
                            have.join(", ")
                        )));
                    }
                }
                let sensors = self.sensor_json(g.sensors.as_deref());
                let t = Value::from(self.sim_time());
                Reply::State(format!("{{\"sim_time\":{t},\"sensors\":{sensors}}}"))
            }
            A::Step(s) => {
                if let Some(f) = s.force {
                    self.command(
                        Command::ForceWorld(f.0),
                        ControlScheme::Force3d,
                        ActionName::SetForceWorld,
                        json!({"force": f}),
                    );
                } else if let Some(t) = &s.thrusters {
                    let cmd = self.thruster_command(t)?;
                    self.command(
                        Command::Thrusters(cmd.clone()),
                        ControlScheme::Thrusters,
                        ActionName::SetThrusters,
                        json!({"thrusters": cmd}),
                    );
                }
                self.tick(self.step_ticks());
                Reply::State(self.state_json(None))
            }
            A::SetForce(f) | A::SetForceWorld(f) => {
                let frame = self.command(
                    Command::ForceWorld(f.force.0),
                    ControlScheme::Force3d,
                    name,
                    data,
                );
                Reply::Ok(json!({"force": f.force, "frame": frame}))
            }
            A::SetForceBody(f) => {
                let frame = self.command(
                    Command::ForceBody(f.force.0),
                    ControlScheme::BodyForce3d,
                    name,
                    data,
                );
                Reply::Ok(json!({"force": f.force, "frame": frame}))
            }
            A::SetBodyWrench(w) => {
                let frame = self.command(
                    Command::Wrench(w.wrench.0),
                    ControlScheme::BodyWrench6dof,
                    name,
                    data,
                );
                Reply::Ok(json!({"wrench": w.wrench, "frame": frame}))
            }
            A::SetBodyVelocity(v) => {
                let frame = self.command(
                    Command::BodyVelocity(v.velocity.0),
                    ControlScheme::BodyVelocity6dof,
                    name,
                    data,
                );
                Reply::Ok(json!({"velocity": v.velocity, "frame": frame}))
            }
            A::SetThrust(t) | A::SetThrusters(t) => {
                let cmd = self.thruster_command(&t.thrusters)?;
                self.command(
                    Command::Thrusters(cmd.clone()),
                    ControlScheme::Thrusters,
                    name,
                    data,
                );
                Reply::Ok(json!({"thrusters": cmd}))
            }
            A::Reset(r) => {
                self.reset(r.seed).map_err(ProtocolError::from)?;
                Reply::Ok(self.clock_data())
            }
            A::Pause(_) => {
                self.paused = true;
                Reply::Ok(self.clock_data())
            }
            A::Resume(_) => {
                self.paused = false;
                self.realtime_acc = 0.0;
                Reply::Ok(self.clock_data())
            }
            A::SetTimeScale(t) => {
                self.time_scale = t.time_scale;
                Reply::Ok(self.clock_data())
            }
            A::SetScenario(s) => {
                self.load_scenario(&s.scenario, s.seed.unwrap_or(0))?;
                Reply::Ok(self.map_info())
            }
            A::GenerateMap(g) => {
                let scenario = g
                    .scenario
                    .unwrap_or_else(|| self.loaded.scenario.id.clone());
                self.load_scenario(&scenario, g.seed.unwrap_or(self.seed))?;
                Reply::Ok(self.map_info())
            }
            A::GetMapInfo(_) => Reply::Ok(self.map_info()),
            A::GetTerrainGrid(g) => Reply::Ok(self.terrain_grid(&g)?),
            A::SpawnObstacle(o) => Reply::Ok(self.spawn_obstacle(*o)?),
            A::RemoveObstacle(o) => {
                let i = self
                    .obstacles
                    .iter()
                    .position(|x| x.id == o.id)
                    .ok_or_else(|| {
                        ProtocolError::InvalidMessage(format!("no obstacle `{}`", o.id))
                    })?;
                self.obstacles.remove(i);
                Reply::Ok(json!({"removed": o.id, "count": self.obstacles.len()}))
            }
            // The typed payload was validated by the codec; the definition
            // parser reads the same object with its aliases and defaults.
            A::SpawnAgent(_) => Reply::Ok(self.spawn_agent(data)?),
            A::MoveAgent(m) => {
                Reply::Ok(self.move_agent(&m.id, m.position.0, m.rotation.map(|r| r.0))?)
            }
            A::RemoveAgent(r) => {
                if r.id == MAIN_AGENT_NAME {
                    return Err(ProtocolError::InvalidMessage(
                        "the main AUV is scene-owned and cannot be removed".into(),
                    ));
                }
                let i = self
                    .proxies
                    .index(&r.id)
                    .ok_or_else(|| ProtocolError::UnknownAgent(r.id.clone()))?;
                self.proxies.remove(i);
                Reply::Ok(json!({"removed": r.id, "count": self.proxies.len()}))
            }
            A::ClearAgents(_) => {
                let n = self.proxies.len();
                self.proxies.clear();
                Reply::Ok(json!({"removed": n, "count": 0}))
            }
            A::GetAgents(_) => Reply::Ok(self.agents_data()),
            A::SetAgentVelocity(v) => {
                if v.id == MAIN_AGENT_NAME {
                    return Err(ProtocolError::UnsupportedControlScheme("the main AUV is driven by forces, thrusters or waypoints; external_velocity applies to proxy agents".into()));
                }
                let i = self
                    .proxies
                    .index(&v.id)
                    .ok_or_else(|| ProtocolError::UnknownAgent(v.id.clone()))?;
                let vel_user = godot_to_oceansim(v.velocity.0);
                let t = self.sim_time();
                let mut recs = self.proxies.records.borrow_mut();
                let rec = &mut recs[i];
                rec.mode = ProxyMode::ExternalVelocity(vel_user);
                rec.last_command = Some(CommandRecord {
                    action: name.as_str().into(),
                    data,
                    frame: Some(Frame::GodotWorld),
                });
                rec.last_command_time = Some(t);
                Reply::Ok(json!({"id": v.id, "velocity": v.velocity, "frame": Frame::GodotWorld}))
            }
            A::SetNavPath(p) => {
                self.overlays.nav_path = p.path;
                Reply::Ok(json!({"points": self.overlays.nav_path.len()}))
            }
            A::SetWaypoint(w) => Reply::Ok(self.set_waypoint(w, data)?),
            A::SetPredTrajectory(p) => {
                self.overlays.pred_trajectory = p.points;
                Reply::Ok(json!({"points": self.overlays.pred_trajectory.len()}))
            }
            A::SetWaypoints(p) => {
                self.overlays.waypoints = p.waypoints;
                Reply::Ok(json!({"points": self.overlays.waypoints.len()}))
            }
            A::ClearNav(_) => {
                self.overlays = Overlays::default();
                Reply::Ok(json!({"cleared": true}))
            }
            A::SetCurrent(c) => {
                self.current_user = c.velocity.0;
                self.auv.control.borrow_mut().current_ned = user_to_ned(c.velocity.0);
                Reply::Ok(json!({"current": c.velocity, "frame": Frame::OceansimWorld}))
            }
            A::SendAcousticMessage(m) => {
                let from = self
                    .agent_position(&m.sender_id)
                    .ok_or_else(|| ProtocolError::UnknownAgent(m.sender_id.clone()))?;
                let to = self
                    .agent_position(&m.receiver_id)
                    .ok_or_else(|| ProtocolError::UnknownAgent(m.receiver_id.clone()))?;
                if !self.acoustic.has_room() {
                    return Err(ProtocolError::InvalidMessage(format!(
                        "acoustic queue full ({} messages in flight)",
                        crate::comms::MAX_IN_FLIGHT
                    )));
                }
                let d = ((from[0] - to[0]).powi(2)
                    + (from[1] - to[1]).powi(2)
                    + (from[2] - to[2]).powi(2))
                .sqrt();
                let now = self.sim_time();
                let out = self
                    .acoustic
                    .send(&m.sender_id, &m.receiver_id, m.payload, d, now);
                Reply::Ok(serde_json::to_value(out).unwrap_or(Value::Null))
            }
            A::ConfigureAcousticComm(c) => {
                self.acoustic.configure(&c);
                Reply::Ok(serde_json::to_value(&self.acoustic.config).unwrap_or(Value::Null))
            }
            A::ExportDataset(e) => Reply::Ok(self.export_dataset(&e)?),
            A::SaveSnapshotJson(s) => {
                self.export_counter += 1;
                let mut rel = s
                    .path
                    .unwrap_or_else(|| format!("snapshots/snapshot_{:08}.json", self.ticks));
                if !rel.ends_with(".json") {
                    rel.push_str(".json");
                }
                let path = confine(&self.config.export_root, &rel)?;
                let snap = self.snapshot();
                let bytes = write_json(&path, &snap)?;
                Reply::Ok(
                    json!({"status": "ok", "path": path.display().to_string(), "bytes": bytes}),
                )
            }
        })
    }

    fn clock_data(&self) -> Value {
        json!({"paused": self.paused, "time_scale": self.time_scale, "sim_time": self.sim_time(), "scenario": self.loaded.scenario.id, "seed": self.seed})
    }

    fn load_scenario(&mut self, name: &str, seed: u64) -> std::result::Result<(), ProtocolError> {
        if !scenario::builtin_names().contains(&name) {
            return Err(ProtocolError::InvalidMessage(format!(
                "unknown scenario `{name}`; available: {}",
                scenario::builtin_names().join(", ")
            )));
        }
        let loaded = scenario::load(name).map_err(ProtocolError::from)?;
        let profile_name = self
            .config
            .profile
            .clone()
            .or_else(|| loaded.main_agent().profile.clone())
            .unwrap_or_else(|| oceansim_vehicles::DEFAULT_PROFILE.into());
        let profile = load_profile(&profile_name).map_err(ProtocolError::from)?;
        let (paused, scale) = (self.paused, self.time_scale);
        let mut next = Simulation::build(self.config.clone(), loaded, seed, profile)
            .map_err(ProtocolError::from)?;
        next.paused = paused;
        next.time_scale = scale;
        next.config.scenario = name.into();
        *self = next;
        Ok(())
    }

    fn agent_position(&self, id: &str) -> Option<[f64; 3]> {
        if id == MAIN_AGENT_NAME {
            return Some(ned_to_user(&self.auv.state().position_ned));
        }
        let i = self.proxies.index(id)?;
        let p = self.proxies.positions();
        Some([p[3 * i], p[3 * i + 1], p[3 * i + 2]])
    }

    /// Why a user-frame point (with clearance `r` m) cannot hold an agent.
    fn blocked(&self, p: [f64; 3], r: f64, ignore: Option<&str>) -> Option<String> {
        let [x0, x1, y0, y1] = self.terrain.bounds();
        if p[0] < x0 || p[0] > x1 || p[1] < y0 || p[1] > y1 {
            return Some(format!(
                "({:.2}, {:.2}) is outside the map [{x0}, {x1}] x [{y0}, {y1}]",
                p[0], p[1]
            ));
        }
        if p[2] > 0.0 {
            return Some(format!("depth {:.2} m is above the surface", -p[2]));
        }
        let floor = self.terrain.height(p[0], p[1]);
        if p[2] - r < floor {
            return Some(format!(
                "depth {:.2} m is at or below the seabed ({:.2} m)",
                -p[2], -floor
            ));
        }
        let v = Vector3::from(p);
        if let Some(o) = self.obstacles.iter().find(|o| o.contains(&v, r)) {
            return Some(format!("inside obstacle `{}`", o.id));
        }
        let positions = self.proxies.positions();
        for (i, rec) in self.proxies.records.borrow().iter().enumerate() {
            if Some(rec.def.agent_name.as_str()) == ignore {
                continue;
            }
            let q = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
            let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            if d < r + rec.size_m {
                return Some(format!("overlaps agent `{}`", rec.def.agent_name));
            }
        }
        None
    }

    fn spawn_obstacle(&mut self, o: SpawnObstacle) -> std::result::Result<Value, ProtocolError> {
        if self.obstacles.len() >= MAX_OBSTACLES {
            return Err(ProtocolError::SpawnFailed(format!(
                "obstacle limit reached ({MAX_OBSTACLES})"
            )));
        }
        let id =
            o.id.clone()
                .unwrap_or_else(|| format!("obstacle_{}", self.obstacle_counter + 1));
        if self.obstacles.iter().any(|x| x.id == id) {
            return Err(ProtocolError::SpawnFailed(format!(
                "an obstacle `{id}` already exists"
            )));
        }
        let ob = Obstacle::from_spawn(id.clone(), &o);
        let [x0, x1, y0, y1] = self.terrain.bounds();
        if ob.center[0] < x0 || ob.center[0] > x1 || ob.center[1] < y0 || ob.center[1] > y1 {
            return Err(ProtocolError::BlockedPose(format!(
                "obstacle centre is outside the map [{x0}, {x1}] x [{y0}, {y1}]"
            )));
        }
        if ob.contains(
            &Vector3::from(ned_to_user(&self.auv.state().position_ned)),
            0.5,
        ) {
            return Err(ProtocolError::BlockedPose(
                "the obstacle would enclose the main AUV".into(),
            ));
        }
        self.obstacle_counter += 1;
        let summary = obstacle_json(&ob);
        self.obstacles.push(ob);
        Ok(json!({"id": id, "obstacle": summary, "count": self.obstacles.len()}))
    }

    fn spawn_agent(&mut self, data: Value) -> std::result::Result<Value, ProtocolError> {
        let def = AgentDefinition::from_json(&data).map_err(ProtocolError::from)?;
        if def.is_main_agent || def.agent_name == MAIN_AGENT_NAME {
            return Err(ProtocolError::SpawnFailed(
                "the main AUV is scene-owned; spawn proxies with is_main_agent: false".into(),
            ));
        }
        if self.proxies.index(&def.agent_name).is_some() {
            return Err(ProtocolError::SpawnFailed(format!(
                "agent `{}` already exists",
                def.agent_name
            )));
        }
        if self.proxies.len() >= MAX_AGENTS {
            return Err(ProtocolError::SpawnFailed(format!(
                "agent limit reached ({MAX_AGENTS})"
            )));
        }
        if !def.control_scheme.proxy_supports() {
            return Err(ProtocolError::UnsupportedControlScheme(format!(
                "proxy agents support external_velocity, not {}",
                def.control_scheme
            )));
        }
        let proxy = proxy_from(&def, &data).map_err(ProtocolError::from)?;
        let pos = godot_to_oceansim(def.location);
        if let Some(why) = self.blocked(pos, proxy.size_m, None) {
            return Err(ProtocolError::BlockedPose(format!(
                "cannot spawn `{}`: {why}",
                def.agent_name
            )));
        }
        let name = def.agent_name.clone();
        self.proxies.add(proxy, pos);
        Ok(
            json!({"id": name, "position": pos, "position_godot": def.location, "count": self.proxies.len()}),
        )
    }

    fn move_agent(
        &mut self,
        id: &str,
        godot: [f64; 3],
        rotation: Option<[f64; 3]>,
    ) -> std::result::Result<Value, ProtocolError> {
        let pos = godot_to_oceansim(godot);
        if id == MAIN_AGENT_NAME {
            if let Some(why) = self.blocked(pos, 0.3, None) {
                return Err(ProtocolError::BlockedPose(format!(
                    "cannot move the main AUV: {why}"
                )));
            }
            let s = self.auv.state();
            let attitude = rotation.map_or(s.attitude, godot_rotation_to_attitude);
            self.auv.set_state(&VehicleState {
                position_ned: user_to_ned(pos),
                attitude,
                nu: Vector6::zeros(),
            });
            self.record_sample();
            return Ok(json!({"id": id, "position": pos, "position_godot": godot}));
        }
        let i = self
            .proxies
            .index(id)
            .ok_or_else(|| ProtocolError::UnknownAgent(id.into()))?;
        let size = self.proxies.records.borrow()[i].size_m;
        if let Some(why) = self.blocked(pos, size, Some(id)) {
            return Err(ProtocolError::BlockedPose(format!(
                "cannot move `{id}`: {why}"
            )));
        }
        self.proxies.set_position(i, pos);
        if let Some(r) = rotation {
            self.proxies.records.borrow_mut()[i].def.rotation = r;
        }
        Ok(json!({"id": id, "position": pos, "position_godot": godot}))
    }

    fn set_waypoint(
        &mut self,
        w: oceansim_protocol::payload::SetWaypoint,
        data: Value,
    ) -> std::result::Result<Value, ProtocolError> {
        let agent = w.agent_id.clone().unwrap_or_else(|| MAIN_AGENT_NAME.into());
        let engage = match w.control_scheme.as_deref() {
            None => false,
            Some(s) => {
                let scheme =
                    oceansim_agents::normalize_control_scheme(s).map_err(ProtocolError::from)?;
                if scheme != ControlScheme::WaypointPid {
                    return Err(ProtocolError::UnsupportedControlScheme(format!(
                        "set_waypoint drives waypoint_pid, not {scheme}"
                    )));
                }
                true
            }
        };
        if agent != MAIN_AGENT_NAME {
            if self.proxies.index(&agent).is_none() {
                return Err(ProtocolError::UnknownAgent(agent));
            }
            if engage {
                return Err(ProtocolError::UnsupportedControlScheme(format!(
                    "`{agent}` is a proxy; waypoint_pid drives the main AUV"
                )));
            }
        }
        let depth = w
            .depth
            .unwrap_or_else(|| self.auv.state().position_ned.z.max(0.0));
        if engage {
            let pid = WaypointPid::new(w.world_x, w.world_z, depth, w.controller.as_ref())
                .map_err(ProtocolError::InvalidMessage)?;
            self.command(
                Command::Waypoint(pid),
                ControlScheme::WaypointPid,
                ActionName::SetWaypoint,
                data,
            );
        }
        self.overlays.waypoint = Some([w.world_x, w.world_z, depth]);
        Ok(
            json!({"waypoint": [w.world_x, w.world_z, depth], "agent_id": agent, "controller_engaged": engage}),
        )
    }

    fn sensor_json(&mut self, only: Option<&[String]>) -> String {
        let mut out = String::with_capacity(16 * 1024);
        self.write_sensor_json(only, &mut out);
        out
    }

    /// Runs `f` on the sensor suite with a snapshot of the current scene.
    fn with_sensors<R>(&mut self, f: impl FnOnce(&mut SensorSuite, &Snapshot<'_>) -> R) -> R {
        let state = self.auv.state();
        let positions = self.proxies.positions();
        let agents: Vec<([f64; 3], f64)> = self
            .proxies
            .records
            .borrow()
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]],
                    r.size_m,
                )
            })
            .collect();
        let snap = Snapshot {
            time: self.sim_time(),
            state: &state,
            nu_dot: self.nu_dot,
            water_density: self.profile.water_density_kg_m3,
            scene: Scene {
                terrain: &self.terrain,
                obstacles: &self.obstacles,
                agents: &agents,
            },
            agent: MAIN_AGENT_NAME,
        };
        f(&mut self.sensors, &snap)
    }

    fn write_sensor_json(&mut self, only: Option<&[String]>, out: &mut String) {
        self.with_sensors(|sensors, snap| sensors.write_payloads_json(snap, only, out));
    }

    fn sensor_payloads(&mut self, only: Option<&[String]>) -> Map<String, Value> {
        self.with_sensors(|sensors, snap| sensors.payloads(snap, only))
    }

    /// The `state` payload of the main AUV.
    pub fn state_data(&mut self, only: Option<&[String]>) -> Value {
        let mut d = self.state_map();
        d.insert("sensors".into(), Value::Object(self.sensor_payloads(only)));
        Value::Object(d)
    }

    /// The `state` payload as JSON text (the sensors spliced in from their
    /// cached text).
    pub fn state_json(&mut self, only: Option<&[String]>) -> String {
        let head = Value::Object(self.state_map()).to_string();
        let mut out = String::with_capacity(head.len() + 16 * 1024);
        out.push_str(&head[..head.len() - 1]);
        out.push_str(",\"sensors\":");
        self.write_sensor_json(only, &mut out);
        out.push('}');
        out
    }

    fn state_map(&self) -> Map<String, Value> {
        let s = self.auv.state();
        let pos = ned_to_user(&s.position_ned);
        let vel = ned_to_user(&s.velocity_ned());
        let (roll, pitch, _) = s.euler();
        let heading = heading_deg(&s.attitude);
        let q = s.attitude.quaternion();
        let floor = self.terrain.height(pos[0], pos[1]);
        let ctl = self.auv.control.borrow();
        let controller_state = match &ctl.command {
            Command::Waypoint(pid) => serde_json::to_value(pid.state()).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let control = json!({
            "control_scheme": self.scheme,
            "last_command": self.last_command,
            "last_command_time": self.last_command_time,
            "body_wrench": ctl.tau.as_slice(),
            "thruster_outputs": ctl.bank.outputs(),
            "thrust_n": ctl.bank.thrusts_n(),
            "controller_state": controller_state,
        });
        drop(ctl);
        let mut d = Map::new();
        d.insert("position".into(), json!(pos));
        d.insert("velocity".into(), json!(vel));
        d.insert("depth".into(), (-pos[2]).into());
        d.insert("speed".into(), Vector3::from(vel).norm().into());
        d.insert("heading_deg".into(), heading.into());
        d.insert("sim_time".into(), self.sim_time().into());
        d.insert("position_godot".into(), json!(oceansim_to_godot(pos)));
        d.insert("altitude".into(), (pos[2] - floor).into());
        d.insert(
            "orientation".into(),
            json!({"roll_deg": roll.to_degrees(), "pitch_deg": pitch.to_degrees(), "heading_deg": heading, "quaternion_xyzw": [q.i, q.j, q.k, q.w], "rotation_godot_deg": attitude_to_godot_rotation(&s.attitude), "frame": "body FRD to NED"}),
        );
        d.insert("body_velocity".into(), json!(s.nu.as_slice()));
        d.insert(
            "angular_velocity".into(),
            json!([s.nu[3], s.nu[4], s.nu[5]]),
        );
        d.insert(
            "contact".into(),
            self.contact.map_or(Value::Null, Value::from),
        );
        d.insert("current".into(), json!(self.current_user));
        d.insert("control".into(), control);
        d.insert("paused".into(), self.paused.into());
        d.insert("time_scale".into(), self.time_scale.into());
        d.insert("scenario".into(), self.loaded.scenario.id.clone().into());
        d.insert("acoustic".into(), json!({"inbox": self.acoustic.inbox(MAIN_AGENT_NAME), "pending": self.acoustic.pending()}));
        d
    }

    fn main_record(&self) -> AgentRuntimeState {
        let s = self.auv.state();
        let pos = ned_to_user(&s.position_ned);
        let n = self.profile.thrusters.len();
        let mut r = AgentRuntimeState::from_definition(&self.main_def, pos, n);
        let vel = ned_to_user(&s.velocity_ned());
        let (roll, pitch, _) = s.euler();
        let q = s.attitude.quaternion();
        r.profile = Some(self.profile.name.clone());
        r.velocity = vel;
        r.speed = Vector3::from(vel).norm();
        r.angular_velocity = Some([s.nu[3], s.nu[4], s.nu[5]]);
        r.pose.rotation_rpy = [
            roll.to_degrees(),
            pitch.to_degrees(),
            heading_deg(&s.attitude),
        ];
        r.pose.rotation_quat_xyzw = Some([q.i, q.j, q.k, q.w]);
        r.size_m = self.profile.dimensions_m.map_or(0.8, |d| d[0] / 2.0);
        r.control_scheme = self.scheme;
        r.control_mode = self.scheme.protocol_mapping().as_str().into();
        r.action_space = self.action_space(self.scheme);
        r.available_action_spaces = ControlScheme::ALL
            .into_iter()
            .filter(|s| s.main_auv_supports())
            .map(|s| self.action_space(s))
            .collect();
        r.last_command = self.last_command.clone();
        r.last_command_time = self.last_command_time;
        let ctl = self.auv.control.borrow();
        if let Command::Waypoint(pid) = &ctl.command {
            let st = pid.state();
            r.control_status = if st.saturation.iter().any(|x| *x) {
                "saturated"
            } else {
                "active"
            }
            .into();
            r.controller_state = Some(st);
        } else {
            r.control_status = if matches!(ctl.command, Command::Idle) {
                "idle"
            } else {
                "active"
            }
            .into();
        }
        r
    }

    fn action_space(&self, scheme: ControlScheme) -> ActionSpace {
        let n = self.profile.thrusters.len();
        let space = ActionSpace::for_scheme(scheme, n);
        if scheme == ControlScheme::Thrusters {
            let lo = self
                .profile
                .thrusters
                .iter()
                .map(|t| Some(t.command_bounds[0]))
                .collect();
            let hi = self
                .profile
                .thrusters
                .iter()
                .map(|t| Some(t.command_bounds[1]))
                .collect();
            return space
                .clone()
                .with_bounds(Some(lo), Some(hi))
                .unwrap_or(space);
        }
        space
    }

    fn proxy_records(&self) -> Vec<AgentRuntimeState> {
        let positions = self.proxies.positions();
        let velocities = self.proxies.velocities();
        self.proxies
            .records
            .borrow()
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let pos = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
                let vel = [
                    velocities[3 * i],
                    velocities[3 * i + 1],
                    velocities[3 * i + 2],
                ];
                let mut r = AgentRuntimeState::from_definition(&p.def, pos, 0);
                r.pose.rotation_rpy = [
                    p.def.rotation[2],
                    p.def.rotation[0],
                    (-p.def.rotation[1]).rem_euclid(360.0),
                ];
                r.velocity = vel;
                r.speed = Vector3::from(vel).norm();
                r.mode = p.mode.name().into();
                r.size_m = p.size_m;
                r.depth_min = p.depth_min;
                r.depth_max = p.depth_max;
                r.last_command = p.last_command.clone();
                r.last_command_time = p.last_command_time;
                r.control_status = if matches!(p.mode, ProxyMode::Idle) {
                    "idle"
                } else {
                    "active"
                }
                .into();
                r
            })
            .collect()
    }

    fn agents_data(&self) -> Value {
        let mut agents = vec![self.main_record()];
        agents.extend(self.proxy_records());
        let inboxes: Map<String, Value> = self
            .acoustic
            .inboxes
            .iter()
            .map(|(k, v)| (k.clone(), json!(v.len())))
            .collect();
        json!({
            "schema_version": oceansim_agents::RUNTIME_SCHEMA_VERSION,
            "count": agents.len(),
            "agents": agents,
            "acoustic": {"pending": self.acoustic.pending(), "inbox_sizes": inboxes, "stats": self.acoustic.stats},
        })
    }

    /// `get_map_info`.
    pub fn map_info(&self) -> Value {
        let s = &self.loaded.scenario;
        let [x0, x1, y0, y1] = self.terrain.bounds();
        // A lawnmower survey route over the map, Godot X/Z, 4 legs.
        let legs = 4;
        let mut route = Vec::new();
        for k in 0..legs {
            let x = x0 + (x1 - x0) * (k as f64 + 0.5) / legs as f64;
            let (ya, yb) = if k % 2 == 0 {
                (y0 + 2.0, y1 - 2.0)
            } else {
                (y1 - 2.0, y0 + 2.0)
            };
            route.push([x, -ya]);
            route.push([x, -yb]);
        }
        let pts = |v: &[PathPoint]| serde_json::to_value(v).unwrap_or(Value::Null);
        json!({
            "scenario": s.id,
            "display_name": s.display_name,
            "description": s.description,
            "generator": s.generator,
            "seed": self.seed,
            "seeds": s.seeds,
            "tags": s.tags,
            "recommended_profile": s.recommended_profile,
            "map_size_m": s.map_size_m,
            "bounds_user": {"x": [x0, x1], "y": [y0, y1]},
            "bounds_godot": {"x": [x0, x1], "z": [-y1, -y0]},
            "floor_depth_m": s.terrain.floor_depth_m,
            "terrain": {"min_depth_m": -self.terrain.max_height(), "max_depth_m": -self.terrain.min_height(), "cell_m": crate::geometry::TERRAIN_CELL_M},
            "obstacles": self.obstacles.iter().map(obstacle_json).collect::<Vec<_>>(),
            "path_points": route,
            "path_frame": "godot_map_plane [world_x, world_z]",
            "overlays": {
                "nav_path": pts(&self.overlays.nav_path),
                "waypoint": self.overlays.waypoint,
                "pred_trajectory": pts(&self.overlays.pred_trajectory),
                "waypoints": pts(&self.overlays.waypoints),
            },
            "agents": 1 + self.proxies.len(),
        })
    }

    fn terrain_grid(
        &self,
        g: &oceansim_protocol::payload::TerrainGridRequest,
    ) -> std::result::Result<Value, ProtocolError> {
        let cell = g.cell_size.unwrap_or(0.5);
        let [x0, x1, y0, y1] = self.terrain.bounds();
        let (nx, ny) = (
            ((x1 - x0) / cell).ceil() as usize,
            ((y1 - y0) / cell).ceil() as usize,
        );
        if nx * ny > MAX_GRID_CELLS {
            return Err(ProtocolError::InvalidMessage(format!(
                "{nx} x {ny} cells exceed the limit of {MAX_GRID_CELLS}; use a larger cell_size"
            )));
        }
        let z = g
            .auv_y
            .unwrap_or_else(|| ned_to_user(&self.auv.state().position_ned)[2]);
        let infl = g.inflation_radius.unwrap_or(0.0);
        let statics = g.include_static_obstacles.unwrap_or(true);
        let dynamics = g.include_dynamic_agents.unwrap_or(true);
        let positions = self.proxies.positions();
        let agents: Vec<([f64; 3], f64)> = self
            .proxies
            .records
            .borrow()
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]],
                    r.size_m,
                )
            })
            .collect();
        let mut grid = vec![vec![0u8; nx]; ny];
        let mut class = vec![vec![0u8; nx]; ny];
        let mut counts = [0usize; 4];
        for (j, (grow, crow)) in grid.iter_mut().zip(class.iter_mut()).enumerate() {
            let y = y0 + (j as f64 + 0.5) * cell;
            for i in 0..nx {
                let x = x0 + (i as f64 + 0.5) * cell;
                let c = if self.terrain.height(x, y) >= z - infl {
                    1
                } else if statics && self.obstacles.iter().any(|o| o.covers_xy(x, y, z, infl)) {
                    2
                } else if dynamics
                    && agents.iter().any(|(p, r)| {
                        (x - p[0]).hypot(y - p[1]) <= r + infl && (z - p[2]).abs() <= r + infl
                    })
                {
                    3
                } else {
                    0
                };
                crow[i] = c;
                grow[i] = u8::from(c != 0);
                counts[c as usize] += 1;
            }
        }
        Ok(json!({
            "width": nx, "height": ny, "cell_size": cell,
            "origin_user": [x0, y0], "slice_z": z, "inflation_radius": infl,
            "layout": "grid[row][col]: row j at y = origin_y + (j + 0.5) cell (north), col i at x = origin_x + (i + 0.5) cell (east)",
            "grid": grid, "class_grid": class,
            "classes": {"0": "free", "1": "terrain", "2": "static_obstacle", "3": "dynamic_agent"},
            "counts": {"free": counts[0], "terrain": counts[1], "static_obstacle": counts[2], "dynamic_agent": counts[3]},
            "include_static_obstacles": statics, "include_dynamic_agents": dynamics,
        }))
    }

    /// A full snapshot (state, agents, map), as `save_snapshot_json` writes it.
    pub fn snapshot(&mut self) -> Value {
        json!({
            "schema": "oceansim_snapshot", "schema_version": 1,
            "sim_time": self.sim_time(), "scenario": self.loaded.scenario.id, "seed": self.seed,
            "state": self.state_data(None),
            "agents": self.agents_data(),
            "map": self.map_info(),
            "clock": self.clock_data(),
        })
    }

    fn export_dataset(
        &mut self,
        e: &oceansim_protocol::payload::ExportDataset,
    ) -> std::result::Result<Value, ProtocolError> {
        self.export_counter += 1;
        let rel = e
            .export_dir
            .clone()
            .unwrap_or_else(|| format!("run_{:04}_t{:08}", self.export_counter, self.ticks));
        let dir = confine(&self.config.export_root, &rel)?;
        std::fs::create_dir_all(&dir).map_err(|err| {
            ProtocolError::InvalidMessage(format!("cannot create {}: {err}", dir.display()))
        })?;
        let mut files = Vec::new();
        let meta = json!({
            "schema": "oceansim_dataset", "schema_version": 1,
            "scenario": self.loaded.scenario.id, "seed": self.seed, "profile": self.profile.name,
            "sim_time": self.sim_time(), "samples": self.recorder.len(), "sample_period_s": self.config.step_period_s,
            "frames": {"world": "oceansim_world (x east, y north, z up)", "base": "auv/main/base_link (FRD)"},
            "dynamics": VehicleModel::from_profile(&self.profile).report(&self.auv.state(), self.auv.control.borrow().bank.allocation_columns()),
        });
        let p = dir.join("metadata.json");
        write_json(&p, &meta)?;
        files.push(p);
        let p = dir.join("trajectory.csv");
        write_lines(
            &p,
            std::iter::once("time,x,y,z,vx,vy,vz,heading_deg".to_owned()).chain(
                self.recorder.iter().map(|s| {
                    format!(
                        "{},{},{},{},{},{},{},{}",
                        s.time,
                        s.position[0],
                        s.position[1],
                        s.position[2],
                        s.velocity[0],
                        s.velocity[1],
                        s.velocity[2],
                        s.heading_deg
                    )
                }),
            ),
        )?;
        files.push(p);
        let sensor_names: Vec<String> = self
            .sensors
            .sensors
            .iter()
            .map(|s| s.name.clone())
            .collect();
        let p = dir.join("agent_timeline.jsonl");
        let rows = self.recorder.iter().flat_map(|s| {
            let main = json!({
                "time": s.time, "agent": MAIN_AGENT_NAME,
                "state": {"position": s.position, "velocity": s.velocity, "heading_deg": s.heading_deg},
                "command": s.command,
                "sensor_sequences": sensor_names,
                "frame_trace": {"world_frame": "oceansim_world", "base_frame": "auv/main/base_link", "sensor_frames": sensor_names.iter().map(|n| format!("auv/main/{n}")).collect::<Vec<_>>(), "command_frame": s.command.as_ref().and_then(|c| c.frame)},
            });
            std::iter::once(main.to_string()).chain(s.agents.iter().map(move |(name, pos)| {
                json!({"time": s.time, "agent": name, "state": {"position": pos}, "command": null, "sensor_sequences": [], "frame_trace": {"world_frame": "oceansim_world", "base_frame": format!("{name}/base_link"), "sensor_frames": [], "command_frame": "godot_world"}}).to_string()
            }))
        });
        write_lines(&p, rows)?;
        files.push(p);
        let p = dir.join("snapshot.json");
        let snap = self.snapshot();
        write_json(&p, &snap)?;
        files.push(p);
        if e.render_image.unwrap_or(false) {
            let pts: Vec<[f64; 2]> = self
                .recorder
                .iter()
                .map(|s| [s.position[0], s.position[1]])
                .collect();
            let obs: Vec<([f64; 2], f64)> = self
                .obstacles
                .iter()
                .map(|o| {
                    (
                        [o.center[0], o.center[1]],
                        o.half_extents[0].max(o.half_extents[1]),
                    )
                })
                .collect();
            let p = dir.join("trajectory.svg");
            std::fs::write(&p, trajectory_svg(&pts, self.terrain.bounds(), &obs)).map_err(
                |err| ProtocolError::InvalidMessage(format!("cannot write {}: {err}", p.display())),
            )?;
            files.push(p);
        }
        let mut packed = Value::Null;
        if e.pack_dataset.unwrap_or(false) {
            let zip = dir.with_extension("zip");
            let bytes = pack_dir(&dir, &zip)?;
            packed = json!({"path": zip.display().to_string(), "bytes": bytes});
        }
        Ok(json!({
            "status": "ok",
            "export_dir": dir.display().to_string(),
            "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "samples": self.recorder.len(),
            "packed": packed,
        }))
    }
}

fn obstacle_json(o: &Obstacle) -> Value {
    json!({"id": o.id, "shape": o.shape, "center_user": o.center, "center_godot": godot3(oceansim_to_godot(o.center)), "half_extents_user": o.half_extents, "rotation_godot_deg": o.source.as_ref().and_then(|s| s.rotation)})
}

fn load_profile(name: &str) -> Result<VehicleProfile> {
    if name.ends_with(".json") {
        return Ok(VehicleProfile::load(name)?);
    }
    Ok(VehicleProfile::builtin(name)?)
}

/// A proxy from its definition and the raw entry (for `mode`, `speed`,
/// `size_m`, `depth_min`, `depth_max`, `velocity`).
fn proxy_from(def: &AgentDefinition, raw: &Value) -> Result<Proxy> {
    let f = |k: &str| raw.get(k).and_then(Value::as_f64);
    let size_m = f("size_m").unwrap_or(0.5);
    let (dmin, dmax) = (f("depth_min"), f("depth_max"));
    if let (Some(a), Some(b)) = (dmin, dmax) {
        if a > b {
            return Err(SimError::Config(format!(
                "{}: depth_min {a} > depth_max {b}",
                def.agent_name
            )));
        }
    }
    let pos = godot_to_oceansim(def.location);
    let mode = match raw.get("mode").and_then(Value::as_str) {
        Some("patrol") => ProxyMode::Patrol {
            anchor: [pos[0] - 3.0, pos[1], pos[2]],
            radius: 3.0,
            speed: f("speed").unwrap_or(0.5),
        },
        Some("idle") => ProxyMode::Idle,
        Some("external_velocity") | None => {
            let v = raw
                .get("velocity")
                .and_then(|v| serde_json::from_value::<Vector<3>>(v.clone()).ok())
                .map_or([0.0; 3], |v| godot_to_oceansim(v.0));
            ProxyMode::ExternalVelocity(v)
        }
        Some(other) => {
            return Err(SimError::Config(format!(
                "{}: unknown mode `{other}` (idle, external_velocity, patrol)",
                def.agent_name
            )))
        }
    };
    Ok(Proxy {
        def: def.clone(),
        mode,
        size_m,
        depth_min: dmin,
        depth_max: dmax,
        last_command: None,
        last_command_time: None,
    })
}

/// Seeded rocks and pillars resting on the seabed, clear of the start.
fn procedural_obstacles(
    terrain: &Terrain,
    po: &scenario::ProceduralObstacles,
    start: [f64; 3],
    seed: u64,
) -> Vec<Obstacle> {
    let mut rng = ChaCha8Rng::seed_from_u64(splitmix64(seed ^ 0x0B57_AC1E));
    let [x0, x1, y0, y1] = terrain.bounds();
    let mut out = Vec::new();
    for k in 0..po.count {
        for _attempt in 0..50 {
            let r = rng.gen_range(po.radius_range_m[0]..=po.radius_range_m[1]);
            let (x, y) = (rng.gen_range(x0 + r..x1 - r), rng.gen_range(y0 + r..y1 - r));
            if (x - start[0]).hypot(y - start[1]) < po.keep_clear_radius_m + r {
                continue;
            }
            let floor = terrain.height(x, y);
            let shape = if k % 3 == 2 {
                ObstacleShape::Cylinder
            } else {
                ObstacleShape::Sphere
            };
            let h = rng.gen_range(2.0..6.0);
            let (center, half) = match shape {
                ObstacleShape::Cylinder => ([x, y, floor + h / 2.0], [r, r, h / 2.0]),
                _ => ([x, y, floor + 0.6 * r], [r, r, r]),
            };
            out.push(Obstacle {
                id: format!("rock_{k:02}"),
                shape,
                center,
                half_extents: half,
                rotation: None,
                source: None,
            });
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim() -> Simulation {
        let s = Simulation::new(SimConfig {
            paused: true,
            scenario: "Dynamic_Map".into(),
            ..SimConfig::default()
        })
        .unwrap();
        s.auv.control.borrow_mut().command = Command::ForceWorld([10.0, 40.0, 30.0]);
        s
    }

    #[test]
    fn chunked_ticking_is_bit_identical_to_tick_by_tick() {
        let (mut a, mut b) = (sim(), sim());
        // 30 s: the AUV rises to the surface, so both the contact-free and
        // the per-tick contact paths run.
        for _ in 0..300 {
            a.tick(10);
            for _ in 0..10 {
                b.tick(1);
            }
        }
        assert_eq!(a.contact, Some("surface"), "the run reached a boundary");
        assert_eq!(a.auv.state(), b.auv.state());
        assert_eq!(a.proxies.positions(), b.proxies.positions());
        assert_eq!(a.nu_dot, b.nu_dot);
        assert_eq!(a.ticks, b.ticks);
        assert_eq!(a.recorder.len(), b.recorder.len());
    }

    fn call(s: &mut Simulation, action: &str, data: Value) -> Value {
        let line = json!({"type": "command", "action": action, "data": data}).to_string();
        match oceansim_protocol::Request::decode(&line) {
            Ok(oceansim_protocol::Request::Single(r)) => s.handle(r).to_value(),
            other => panic!("{action} did not decode as a single request: {other:?}"),
        }
    }

    #[test]
    fn obstacle_limit_is_a_clear_error_that_changes_nothing() {
        let mut s = Simulation::new(SimConfig {
            paused: true,
            ..SimConfig::default()
        })
        .unwrap();
        let auv = ned_to_user(&s.auv.state().position_ned);
        let mut i = 0;
        while s.obstacles.len() < MAX_OBSTACLES {
            // A lattice of small spheres beside the AUV, clear of its hull.
            let p = [
                auv[0] + 3.0 + (i % 20) as f64 * 0.5,
                auv[1] + ((i / 20) % 20) as f64 * 0.5,
                auv[2] + (i / 400) as f64 * 0.5,
            ];
            let r = call(
                &mut s,
                "spawn_obstacle",
                json!({"shape": "sphere", "position": p, "radius": 0.1}),
            );
            assert_eq!(r["status"], "ok", "{r}");
            i += 1;
        }
        let before = s.obstacles.len();
        let r = call(
            &mut s,
            "spawn_obstacle",
            json!({"shape": "sphere", "position": [auv[0] - 3.0, auv[1], auv[2]], "radius": 0.1}),
        );
        assert_eq!(r["error_code"], "spawn_failed");
        assert!(r["message"].as_str().unwrap().contains("limit"), "{r}");
        assert_eq!(s.obstacles.len(), before);
    }

    #[test]
    fn acoustic_queue_and_inbox_are_bounded() {
        let mut s = Simulation::new(SimConfig {
            paused: true,
            ..SimConfig::default()
        })
        .unwrap();
        let send = |s: &mut Simulation, k: usize| {
            call(
                s,
                "send_acoustic_message",
                json!({"sender_id": MAIN_AGENT_NAME, "receiver_id": MAIN_AGENT_NAME, "payload": k}),
            )
        };
        // Slow link: everything stays in flight until the queue is full.
        call(
            &mut s,
            "configure_acoustic_comm",
            json!({"latency_s": 1000.0, "packet_drop_rate": 0.0}),
        );
        for k in 0..crate::comms::MAX_IN_FLIGHT {
            assert_eq!(send(&mut s, k)["data"]["queued"], true);
        }
        let r = send(&mut s, 0);
        assert_eq!(r["error_code"], "invalid_message");
        assert!(r["message"].as_str().unwrap().contains("queue full"), "{r}");
        assert_eq!(s.acoustic.pending(), crate::comms::MAX_IN_FLIGHT);

        // Fast link: an unread inbox keeps the newest MAX_INBOX messages.
        let mut s = Simulation::new(SimConfig {
            paused: true,
            ..SimConfig::default()
        })
        .unwrap();
        call(
            &mut s,
            "configure_acoustic_comm",
            json!({"latency_s": 0.0, "packet_drop_rate": 0.0}),
        );
        let n = crate::comms::MAX_INBOX + 44;
        for k in 0..n {
            send(&mut s, k);
        }
        s.tick(10);
        let inbox = s.acoustic.inbox(MAIN_AGENT_NAME);
        assert_eq!(inbox.len(), crate::comms::MAX_INBOX);
        assert_eq!(inbox[0].payload, json!(44));
        assert_eq!(inbox.last().unwrap().payload, json!(n - 1));
        let stats = s.acoustic.stats;
        assert_eq!(
            (stats.sent, stats.delivered, stats.inbox_overflow),
            (n as u64, n as u64, 44)
        );
        let agents = call(&mut s, "get_agents", json!({}));
        assert_eq!(agents["data"]["acoustic"]["stats"]["inbox_overflow"], 44);
    }
}
