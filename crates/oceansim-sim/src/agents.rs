//! Agents as entities: spawning a vehicle (Fossen dynamics, its own
//! profile's parameters) or a kinematic proxy, removing them, and finding
//! them by name.
//!
//! Positions given here are in the user frame (x east, y north, z up);
//! rows store NED, as the dynamics do.

use crate::components::{Handles, Kind, VehicleParams};
use crate::control::{CommandSlot, PidState};
use crate::frames::{Attitude, Ned, User};
use crate::sensors::SensorSuite;
use oceansim_agents::{AgentDefinition, CommandRecord, ControlScheme};
use oceansim_ecs::{Entity, World};
use oceansim_protocol::payload::Vector;
use oceansim_vehicles::{Vehicle, VehicleProfile};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Fastest a proxy may be driven (m/s); faster commands are clipped.
pub const MAX_PROXY_SPEED_M_S: f64 = 20.0;
/// Smallest and largest proxy radius `size_m` (m), from a scenario file as
/// from `spawn_agent` (whose payload check has the same range).
pub const PROXY_SIZE_RANGE_M: [f64; 2] = [1e-3, 100.0];

/// An agent's identity and command record.
#[derive(Debug, Clone)]
pub struct AgentMeta {
    /// Its definition (name, type, metadata, sensors).
    pub def: AgentDefinition,
    /// The active control scheme.
    pub scheme: ControlScheme,
    /// The last command accepted, as applied.
    pub last_command: Option<CommandRecord>,
    /// When (s).
    pub last_command_time: Option<f64>,
    /// Its entry in the recorder's command log.
    pub last_command_entry: Option<std::sync::Arc<crate::recorder::CommandEntry>>,
    /// Whether that command was clipped to the agent's limits.
    pub command_saturated: bool,
    /// Footprint radius reported to clients (m).
    pub size_m: f64,
}

impl AgentMeta {
    fn new(def: AgentDefinition, scheme: ControlScheme, size_m: f64) -> Self {
        AgentMeta {
            def,
            scheme,
            last_command: None,
            last_command_time: None,
            last_command_entry: None,
            command_saturated: false,
            size_m,
        }
    }

    /// Records an accepted command, logged as `entry`.
    pub fn record(
        &mut self,
        scheme: ControlScheme,
        entry: std::sync::Arc<crate::recorder::CommandEntry>,
        saturated: bool,
    ) {
        self.scheme = scheme;
        self.last_command = Some(entry.record.clone());
        self.last_command_time = Some(entry.time);
        self.last_command_entry = Some(entry);
        self.command_saturated = saturated;
    }
}

/// How a proxy moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProxyMode {
    /// Holds still.
    Idle,
    /// Follows the last `set_agent_velocity` (m/s, user frame).
    ExternalVelocity([f64; 3]),
    /// Circles `anchor` (user frame) at `speed` m/s, radius `radius` m.
    Patrol {
        /// Circle centre (user frame).
        anchor: [f64; 3],
        /// Radius (m).
        radius: f64,
        /// Speed (m/s).
        speed: f64,
    },
}

impl ProxyMode {
    /// Name reported as `mode`.
    pub fn name(&self) -> &'static str {
        match self {
            ProxyMode::Idle => "idle",
            ProxyMode::ExternalVelocity(_) => "external_velocity",
            ProxyMode::Patrol { .. } => "patrol",
        }
    }
}

/// A proxy's motion and depth limits.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyMotion {
    /// How it moves.
    pub mode: ProxyMode,
    /// Shallowest allowed depth (m, positive down).
    pub depth_min: Option<f64>,
    /// Deepest allowed depth (m, positive down).
    pub depth_max: Option<f64>,
}

impl ProxyMotion {
    /// The motion of a proxy defined by `def` and its raw entry (`mode`,
    /// `speed`, `depth_min`, `depth_max`, `velocity` in Godot coordinates),
    /// and its footprint radius (`size_m`, default 0.5 m).
    pub fn from_entry(def: &AgentDefinition, raw: &Value) -> Result<(Self, f64), String> {
        let f = |k: &str| raw.get(k).and_then(Value::as_f64);
        let (dmin, dmax) = (f("depth_min"), f("depth_max"));
        if let (Some(a), Some(b)) = (dmin, dmax) {
            if a > b {
                let (a, b) = (oceansim_protocol::Num(a), oceansim_protocol::Num(b));
                return Err(format!("{}: depth_min {a} > depth_max {b}", def.agent_name));
            }
        }
        let pos = User::from(crate::frames::Godot(def.location)).0;
        let mode = match raw.get("mode").and_then(Value::as_str) {
            Some("patrol") => ProxyMode::Patrol {
                anchor: [pos[0] - 3.0, pos[1], pos[2]],
                radius: 3.0,
                speed: f("speed").unwrap_or(0.5).clamp(0.0, MAX_PROXY_SPEED_M_S),
            },
            Some("idle") => ProxyMode::Idle,
            Some("external_velocity") | None => {
                let v = raw
                    .get("velocity")
                    .and_then(|v| serde_json::from_value::<Vector<3>>(v.clone()).ok())
                    .map_or([0.0; 3], |v| {
                        clip_speed(User::from(crate::frames::Godot(v.0)).0).0
                    });
                ProxyMode::ExternalVelocity(v)
            }
            Some(other) => {
                return Err(format!(
                    "{}: unknown mode `{other}` (idle, external_velocity, patrol)",
                    def.agent_name
                ))
            }
        };
        let size = f("size_m").unwrap_or(0.5);
        let [lo, hi] = PROXY_SIZE_RANGE_M;
        if !(lo..=hi).contains(&size) {
            return Err(format!(
                "{}: size_m must be in [{lo}, {hi}] m, got {size}",
                def.agent_name
            ));
        }
        let motion = ProxyMotion {
            mode,
            depth_min: dmin,
            depth_max: dmax,
        };
        Ok((motion, size))
    }
}

/// Scales a velocity (m/s, any frame) down to [`MAX_PROXY_SPEED_M_S`],
/// keeping its direction; says whether it did. Finite for every finite
/// input (a 1e200 m/s request is a 20 m/s one the same way).
pub fn clip_speed(v: [f64; 3]) -> ([f64; 3], bool) {
    oceansim_vehicles::clip_norm(v, MAX_PROXY_SPEED_M_S)
}

/// Agents by name, in the order they joined (the main AUV first).
#[derive(Debug, Clone, Default)]
pub struct Registry {
    by_name: BTreeMap<String, Entity>,
    order: Vec<Entity>,
}

impl Registry {
    /// The entity of agent `name`.
    pub fn get(&self, name: &str) -> Option<Entity> {
        self.by_name.get(name).copied()
    }
    /// Adds an agent.
    pub fn insert(&mut self, name: &str, e: Entity) {
        self.by_name.insert(name.to_owned(), e);
        self.order.push(e);
    }
    /// Removes an agent; returns its entity.
    pub fn remove(&mut self, name: &str) -> Option<Entity> {
        let e = self.by_name.remove(name)?;
        self.order.retain(|x| *x != e);
        Some(e)
    }
    /// Agents in joining order.
    pub fn entities(&self) -> &[Entity] {
        &self.order
    }
    /// Number of agents.
    pub fn len(&self) -> usize {
        self.order.len()
    }
}

/// A vehicle's profile with its dynamics model, shared by every vehicle of
/// that profile.
#[derive(Debug, Clone)]
pub struct ProfileModel {
    /// The profile.
    pub profile: Arc<VehicleProfile>,
    /// Its vehicle: dynamics, actuators, limits, integrator.
    pub vehicle: Arc<Vehicle>,
}

impl ProfileModel {
    /// Builds the vehicle of `profile`.
    pub fn new(profile: VehicleProfile) -> Self {
        let vehicle = Arc::new(Vehicle::from_profile(&profile));
        ProfileModel {
            profile: Arc::new(profile),
            vehicle,
        }
    }
}

/// Whether a vehicle of `profile` can be driven by `scheme`. Thrusters need
/// thrusters; fins need control surfaces or propellers; the force-level
/// schemes (forces, wrenches, body velocities, the waypoint PID) ask for
/// body wrenches that only thrusters produce in any direction, so they need
/// thrusters too.
pub fn vehicle_supports(profile: &VehicleProfile, scheme: ControlScheme) -> bool {
    match scheme {
        ControlScheme::Fins => {
            !(profile.control_surfaces.is_empty() && profile.propellers.is_empty())
        }
        s => s.main_auv_supports() && !profile.thrusters.is_empty(),
    }
}

/// The scheme a vehicle of `profile` starts under when none is asked:
/// `force_3d` where it has thrusters, else `fins`.
pub fn default_scheme(profile: &VehicleProfile) -> ControlScheme {
    if profile.thrusters.is_empty() {
        ControlScheme::Fins
    } else {
        ControlScheme::Force3d
    }
}

/// Contact geometry of a hull: a capsule along the body x axis, radius half
/// the larger of beam and height, the rest of the length its segment.
pub fn hull_capsule(profile: &VehicleProfile) -> (f64, f64) {
    match profile.dimensions_m {
        Some([l, b, h]) => {
            let r = b.max(h) / 2.0;
            (r, (l / 2.0 - r).max(0.0))
        }
        None => (0.3, 0.0),
    }
}

/// Where and how a new vehicle starts.
#[derive(Debug, Clone, Copy)]
pub struct VehicleSpawn {
    /// Position (user frame).
    pub position: User,
    /// Attitude.
    pub attitude: Attitude,
    /// The scheme that drives it.
    pub scheme: ControlScheme,
    /// Seed of its sensors' noise.
    pub seed: u64,
}

/// Spawns a vehicle of `pm`'s profile at rest, with the sensors its
/// definition declares.
pub fn spawn_vehicle(
    world: &mut World,
    h: &Handles,
    def: AgentDefinition,
    pm: &ProfileModel,
    at: VehicleSpawn,
) -> Entity {
    let (position, attitude, seed) = (at.position, at.attitude, at.seed);
    // A scenario's scheme the profile cannot take (force_3d on a vehicle
    // with fins only) falls back to the profile's own.
    let scheme = if vehicle_supports(&pm.profile, at.scheme) {
        at.scheme
    } else {
        default_scheme(&pm.profile)
    };
    let e = world.spawn();
    let row = world.row(e).unwrap_or(0);
    let (radius, half) = hull_capsule(&pm.profile);
    let ned = Ned::from(position).0;
    let q = attitude.0.quaternion();
    world.write(h.kind)[row] = Kind::Vehicle.code();
    world.write(h.position)[3 * row..3 * row + 3].copy_from_slice(ned.as_slice());
    world.write(h.attitude)[4 * row..4 * row + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
    world.write(h.radius)[row] = radius;
    world.write(h.half_length)[row] = half;
    let decls: Vec<(String, String)> = def
        .sensors
        .iter()
        .map(|d| (d.name().to_owned(), d.sensor_type().to_owned()))
        .collect();
    let mut sensors = SensorSuite::new(&def.agent_name, &decls, &pm.profile.sensors, seed);
    let dt = world.resource(h.clock).dt;
    for s in &mut sensors.sensors {
        s.set_tick(dt);
    }
    let size = pm.profile.dimensions_m.map_or(0.8, |d| d[0] / 2.0);
    world.objects_mut(h.vehicle)[row] = Some(VehicleParams {
        profile: pm.profile.clone(),
        vehicle: pm.vehicle.clone(),
        check_steps: crate::control::stiffness(&pm.vehicle.model, &pm.vehicle.limits, dt) > 1.0,
    });
    world.objects_mut(h.actuators)[row] = Some(pm.vehicle.actuators());
    world.objects_mut(h.command)[row] = Some(CommandSlot::default());
    world.objects_mut(h.pid)[row] = Some(PidState::default());
    world.objects_mut(h.contacts)[row] = Some(Vec::new());
    if !sensors.is_empty() {
        world.objects_mut(h.sensors)[row] = Some(sensors);
    }
    world.objects_mut(h.agent)[row] = Some(AgentMeta::new(def, scheme, size));
    e
}

/// Spawns a kinematic proxy at `position` (user frame).
pub fn spawn_proxy(
    world: &mut World,
    h: &Handles,
    def: AgentDefinition,
    motion: ProxyMotion,
    size_m: f64,
    position: User,
) -> Entity {
    let e = world.spawn();
    let row = world.row(e).unwrap_or(0);
    let ned = Ned::from(position).0;
    let q = Attitude::from(crate::frames::GodotRotation(def.rotation)).0;
    let q = q.quaternion();
    world.write(h.kind)[row] = Kind::Proxy.code();
    world.write(h.position)[3 * row..3 * row + 3].copy_from_slice(ned.as_slice());
    world.write(h.attitude)[4 * row..4 * row + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
    world.write(h.radius)[row] = size_m;
    world.write(h.half_length)[row] = 0.0;
    world.objects_mut(h.proxy)[row] = Some(motion);
    world.objects_mut(h.contacts)[row] = Some(Vec::new());
    world.objects_mut(h.agent)[row] =
        Some(AgentMeta::new(def, ControlScheme::ExternalVelocity, size_m));
    e
}

/// Reads an agent's pose: position (user frame) and attitude.
pub fn pose(world: &World, h: &Handles, e: Entity) -> Option<(User, Attitude)> {
    let row = world.row(e)?;
    let ned = Ned(crate::systems::vec3_at(&world.read(h.position), row));
    let att = crate::systems::quat_at(&world.read(h.attitude), row);
    Some((User::from(ned), Attitude(att)))
}
