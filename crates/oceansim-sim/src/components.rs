//! The simulation's one [`World`]: every component, object component and
//! resource it holds, by name, with the handles systems and requests use.
//!
//! One row per entity, whatever its [`Kind`]: the main AUV and every other
//! vehicle (Fossen dynamics), kinematic proxies, and acoustic messages in
//! flight. Numeric components hold what the systems integrate and exchange
//! (NED positions, body velocities, wrenches); object components hold
//! per-entity models and records (a vehicle's own dynamics model from its
//! own profile, its thruster bank, its active command, its sensors);
//! resources hold what the world shares (clock, scene, acoustic channel,
//! recorder). Rows of another kind hold defaults (zeros, `None`) and every
//! system skips them by `kind`.
//!
//! Also here, so that components depend on nothing above them: what an
//! agent's object components hold ([`AgentMeta`], [`ProxyMotion`]) and the
//! row helpers every system and reply reads rows with ([`vec3_at`],
//! [`quat_at`], [`state_at`], [`user_velocity`]).

use crate::acoustic::{AcousticChannel, InFlight};
use crate::clock::Clock;
use crate::control::{CommandSlot, PidState};
use crate::frames::User;
use nalgebra::{Quaternion, UnitQuaternion, Vector3, Vector6};
use oceansim_agents::{AgentDefinition, CommandRecord, ControlScheme};
use oceansim_ecs::{Handle, ObjectHandle, ResourceHandle, World};
use oceansim_protocol::payload::Vector;
use oceansim_protocol::reply::Contact;
use oceansim_record::Recorder;
use oceansim_scene::Scene;
use oceansim_sensors::SensorSuite;
use oceansim_vehicles::VehicleState;
use oceansim_vehicles::{Actuators, Vehicle, VehicleProfile};
use serde_json::Value;
use std::sync::Arc;

/// What an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A vehicle under Fossen 6-DOF dynamics (the main AUV is the first).
    Vehicle = 0,
    /// A kinematic proxy agent.
    Proxy = 1,
    /// An acoustic message in flight.
    Message = 2,
}

impl Kind {
    /// The value stored in the `kind` component.
    pub const fn code(self) -> i64 {
        self as i64
    }
    /// Whether the row is an agent (vehicle or proxy).
    pub fn is_agent(code: i64) -> bool {
        code == Kind::Vehicle.code() || code == Kind::Proxy.code()
    }
}

/// Component, object and resource names, as systems declare them.
pub mod names {
    /// `i64`: the entity's [`Kind`](super::Kind).
    pub const KIND: &str = "kind";
    /// `f64 [3]`: position (m, NED); state.
    pub const POSITION: &str = "position_ned";
    /// `f64 [4]`: body → NED attitude `[w, x, y, z]`; state.
    pub const ATTITUDE: &str = "attitude";
    /// `f64 [6]`: body velocity ν (m/s, rad/s, Fossen body); state.
    pub const NU: &str = "nu";
    /// `f64 [3]`: where an agent began the tick (m, NED), written by the
    /// system that moves it before it moves; contacts sweep from it.
    pub const POSITION_START: &str = "position_start_ned";
    /// `f64 [3]`: velocity (m/s, NED).
    pub const VELOCITY: &str = "velocity_ned";
    /// `f64 [6]`: ν̇ of the last tick (Fossen body), for the IMU.
    pub const NU_DOT: &str = "nu_dot";
    /// `f64 [6]`: wrench asked for by the controller (N, N·m, body).
    pub const TAU_CONTROL: &str = "tau_control";
    /// `f64 [6]`: wrench applied to the dynamics (N, N·m, body).
    pub const TAU: &str = "tau";
    /// `f64 [3]`: ocean current at the entity (m/s, NED).
    pub const CURRENT: &str = "current_ned";
    /// `f64`: contact radius (m): a proxy's footprint, a hull's half beam.
    pub const RADIUS: &str = "radius_m";
    /// `f64`: half length of the hull's axis segment (m, 0 for a sphere).
    pub const HALF_LENGTH: &str = "half_length_m";
    /// Object: `AgentMeta`.
    pub const AGENT: &str = "agent";
    /// Object: `VehicleParams`.
    pub const VEHICLE: &str = "vehicle";
    /// Object: a command written by a request, applied at the next tick.
    pub const COMMAND_IN: &str = "command_in";
    /// Object: the active command.
    pub const COMMAND: &str = "command";
    /// Object: waypoint PID memory.
    pub const PID: &str = "pid";
    /// Object: a vehicle's actuators: thruster bank with its memory, fin
    /// angles and shaft speeds with their commands.
    pub const ACTUATORS: &str = "actuators";
    /// Object: how a proxy moves.
    pub const PROXY: &str = "proxy";
    /// Object: contacts of the last tick.
    pub const CONTACTS: &str = "contacts";
    /// Object: the sensor suite.
    pub const SENSORS: &str = "sensors";
    /// Object: an acoustic message in flight.
    pub const MESSAGE: &str = "message";
    /// Resource: `Clock`.
    pub const CLOCK: &str = "clock";
    /// Resource: `Scene`.
    pub const SCENE: &str = "scene";
    /// Resource: `AcousticChannel`.
    pub const ACOUSTIC: &str = "acoustic";
    /// Resource: `Recorder`.
    pub const RECORDER: &str = "recorder";
    /// Resource: `Faults`.
    pub const FAULTS: &str = "faults";
}

/// A vehicle's own parameters, from its own profile.
#[derive(Debug, Clone)]
pub struct VehicleParams {
    /// The profile.
    pub profile: Arc<VehicleProfile>,
    /// Its dynamics, actuators, limits and integrator: what
    /// [`Vehicle::step`] advances.
    pub vehicle: Arc<Vehicle>,
    /// Whether its damping is stiff enough at this tick that a `step` must
    /// be checked for divergence before it runs (see
    /// [`crate::control::stiffness`]).
    pub check_steps: bool,
}

/// (agent name, simulation time in s) of a divergence.
pub type Divergence = (String, f64);

/// Integration failures: a vehicle whose next state would not be finite
/// keeps its previous state and is listed here.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// (agent name, simulation time of its first failure) of each agent
    /// whose dynamics failed since the last drain, once per agent however
    /// many ticks failed.
    pub diverged: Vec<Divergence>,
    /// Agents whose divergence has been logged and that have failed in
    /// every drain since: a cause that persists (the clock runs thousands
    /// of ticks a second) is logged once, not once a tick.
    pub logged: std::collections::BTreeSet<String>,
    /// Rows whose dynamics failed this tick, made idle at its end
    /// (`idle_faulted`).
    pub to_idle: Vec<usize>,
}

impl Faults {
    /// Records that `agent`, in `row`, failed at `time` (s).
    pub fn diverge(&mut self, agent: String, row: usize, time: f64) {
        self.to_idle.push(row);
        if !self.diverged.iter().any(|(a, _)| *a == agent) {
            self.diverged.push((agent, time));
        }
    }

    /// Takes the failures since the last drain, and those of them to log:
    /// the agents not already failing at the previous drain. An agent
    /// absent from a drain (its ticks ran clean) is logged again when it
    /// next fails.
    pub fn drain(&mut self) -> (Vec<Divergence>, Vec<Divergence>) {
        let failed = std::mem::take(&mut self.diverged);
        self.logged
            .retain(|a| failed.iter().any(|(name, _)| name == a));
        let fresh = failed
            .iter()
            .filter(|(a, _)| self.logged.insert(a.clone()))
            .cloned()
            .collect();
        (failed, fresh)
    }
}

/// Resolved handles of everything in the world.
#[derive(Debug, Clone, Copy)]
pub struct Handles {
    /// [`names::KIND`].
    pub kind: Handle<i64>,
    /// [`names::POSITION`].
    pub position: Handle<f64>,
    /// [`names::ATTITUDE`].
    pub attitude: Handle<f64>,
    /// [`names::NU`].
    pub nu: Handle<f64>,
    /// [`names::POSITION_START`].
    pub position_start: Handle<f64>,
    /// [`names::VELOCITY`].
    pub velocity: Handle<f64>,
    /// [`names::NU_DOT`].
    pub nu_dot: Handle<f64>,
    /// [`names::TAU_CONTROL`].
    pub tau_control: Handle<f64>,
    /// [`names::TAU`].
    pub tau: Handle<f64>,
    /// [`names::CURRENT`].
    pub current: Handle<f64>,
    /// [`names::RADIUS`].
    pub radius: Handle<f64>,
    /// [`names::HALF_LENGTH`].
    pub half_length: Handle<f64>,
    /// [`names::AGENT`].
    pub agent: ObjectHandle<AgentMeta>,
    /// [`names::VEHICLE`].
    pub vehicle: ObjectHandle<VehicleParams>,
    /// [`names::COMMAND_IN`].
    pub command_in: ObjectHandle<CommandSlot>,
    /// [`names::COMMAND`].
    pub command: ObjectHandle<CommandSlot>,
    /// [`names::PID`].
    pub pid: ObjectHandle<PidState>,
    /// [`names::ACTUATORS`]: thrusters, fins and propellers.
    pub actuators: ObjectHandle<Actuators>,
    /// [`names::PROXY`].
    pub proxy: ObjectHandle<ProxyMotion>,
    /// [`names::CONTACTS`].
    pub contacts: ObjectHandle<Vec<Contact>>,
    /// [`names::SENSORS`].
    pub sensors: ObjectHandle<SensorSuite>,
    /// [`names::MESSAGE`].
    pub message: ObjectHandle<InFlight>,
    /// [`names::CLOCK`].
    pub clock: ResourceHandle<Clock>,
    /// [`names::SCENE`].
    pub scene: ResourceHandle<Scene>,
    /// [`names::ACOUSTIC`].
    pub acoustic: ResourceHandle<AcousticChannel>,
    /// [`names::RECORDER`].
    pub recorder: ResourceHandle<Recorder>,
    /// [`names::FAULTS`].
    pub faults: ResourceHandle<Faults>,
}

/// An empty world holding every component and the given resources.
pub fn build_world(
    clock: Clock,
    scene: Scene,
    acoustic: AcousticChannel,
    recorder: Recorder,
) -> oceansim_ecs::Result<(World, Handles)> {
    use names::*;
    let mut w = World::new(0);
    let kind = w.add_i64(KIND, &[], Some(&[Kind::Message.code()]))?;
    // Pose and body velocity are advanced by the systems themselves (RK4,
    // proxy kinematics, contacts): loop-carried state, read at tick start.
    let position = w.add_self_integrated_state(POSITION, &[3], None)?;
    let attitude = w.add_self_integrated_state(ATTITUDE, &[4], Some(&[1.0, 0.0, 0.0, 0.0]))?;
    let nu = w.add_self_integrated_state(NU, &[6], None)?;
    let h = Handles {
        kind,
        position,
        attitude,
        nu,
        position_start: w.add(POSITION_START, &[3], None)?,
        velocity: w.add(VELOCITY, &[3], None)?,
        nu_dot: w.add(NU_DOT, &[6], None)?,
        tau_control: w.add(TAU_CONTROL, &[6], None)?,
        tau: w.add(TAU, &[6], None)?,
        current: w.add(CURRENT, &[3], None)?,
        radius: w.add(RADIUS, &[], Some(&[0.5]))?,
        half_length: w.add(HALF_LENGTH, &[], Some(&[0.0]))?,
        agent: w.add_object(AGENT)?,
        vehicle: w.add_object(VEHICLE)?,
        command_in: w.add_object(COMMAND_IN)?,
        command: w.add_object(COMMAND)?,
        pid: w.add_object(PID)?,
        actuators: w.add_object(ACTUATORS)?,
        proxy: w.add_object(PROXY)?,
        contacts: w.add_object(CONTACTS)?,
        sensors: w.add_object(SENSORS)?,
        message: w.add_object(MESSAGE)?,
        clock: w.insert_resource(CLOCK, clock)?,
        scene: w.insert_resource(SCENE, scene)?,
        acoustic: w.insert_resource(ACOUSTIC, acoustic)?,
        recorder: w.insert_resource(RECORDER, recorder)?,
        faults: w.insert_resource(FAULTS, Faults::default())?,
    };
    Ok((w, h))
}

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
    pub last_command_entry: Option<std::sync::Arc<oceansim_record::CommandEntry>>,
    /// Whether that command was clipped to the agent's limits.
    pub command_saturated: bool,
    /// Footprint radius reported to clients (m).
    pub size_m: f64,
}

impl AgentMeta {
    pub(crate) fn new(def: AgentDefinition, scheme: ControlScheme, size_m: f64) -> Self {
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
        entry: std::sync::Arc<oceansim_record::CommandEntry>,
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

/// Row `row` of a 3-vector component.
pub(crate) fn vec3_at(a: &[f64], row: usize) -> Vector3<f64> {
    Vector3::new(a[3 * row], a[3 * row + 1], a[3 * row + 2])
}

/// Row `row` of the `[w, x, y, z]` attitude component.
pub(crate) fn quat_at(q: &[f64], row: usize) -> UnitQuaternion<f64> {
    UnitQuaternion::new_normalize(Quaternion::new(
        q[4 * row],
        q[4 * row + 1],
        q[4 * row + 2],
        q[4 * row + 3],
    ))
}

/// The vehicle state of row `row` from the pose and velocity arrays.
pub(crate) fn state_at(p: &[f64], q: &[f64], nu: &[f64], row: usize) -> VehicleState {
    VehicleState {
        position_ned: vec3_at(p, row),
        attitude: quat_at(q, row),
        nu: Vector6::from_column_slice(&nu[6 * row..6 * row + 6]),
    }
}

/// The user-frame velocity (m/s; x east, y north, z up) of the agent in
/// row `row`: a vehicle's R(q)·ν from its pose and body velocity, any
/// other agent's velocity column. Replies (`get_state`, `get_agents`) and
/// the recorder take it from here alone, so an export holds, to the bit,
/// the velocities clients were told (the velocity column of a vehicle,
/// set by the integrator before its attitude was stored, can differ from
/// R(q)·ν by an ulp).
pub(crate) fn user_velocity(world: &World, h: &Handles, row: usize) -> [f64; 3] {
    let cols = VelocityColumns {
        kind: &world.read(h.kind),
        position: &world.read(h.position),
        attitude: &world.read(h.attitude),
        nu: &world.read(h.nu),
        velocity: &world.read(h.velocity),
    };
    cols.user_velocity(row)
}

/// The columns [`user_velocity`] reads, borrowed once by a caller that
/// visits many rows (the recorder, every frame).
pub(crate) struct VelocityColumns<'a> {
    pub kind: &'a [i64],
    pub position: &'a [f64],
    pub attitude: &'a [f64],
    pub nu: &'a [f64],
    pub velocity: &'a [f64],
}

impl VelocityColumns<'_> {
    /// [`user_velocity`] of row `row`.
    pub(crate) fn user_velocity(&self, row: usize) -> [f64; 3] {
        let ned = if self.kind[row] == Kind::Vehicle.code() {
            state_at(self.position, self.attitude, self.nu, row).velocity_ned()
        } else {
            vec3_at(self.velocity, row)
        };
        crate::frames::User::from(crate::frames::Ned(ned)).0
    }
}

/// The state of row `row` of `world`.
pub(crate) fn vehicle_state(world: &World, h: &Handles, row: usize) -> VehicleState {
    state_at(
        &world.read(h.position),
        &world.read(h.attitude),
        &world.read(h.nu),
        row,
    )
}

#[cfg(test)]
mod tests {
    use super::Faults;

    #[test]
    fn a_persisting_divergence_is_listed_once_a_drain_and_logged_once() {
        let mut f = Faults::default();
        for tick in 0..1000 {
            f.diverge("auv".into(), 0, tick as f64 * 0.01);
        }
        let (failed, fresh) = f.drain();
        assert_eq!(failed, vec![("auv".to_owned(), 0.0)]);
        assert_eq!(fresh, failed, "logged when it starts");
        for k in 0..100 {
            f.diverge("auv".into(), 0, 20.0);
            f.diverge("rov".into(), 1, 20.0);
            let (failed, fresh) = f.drain();
            assert_eq!(failed.len(), 2);
            let want: &[&str] = if k == 0 { &["rov"] } else { &[] };
            let got: Vec<&str> = fresh.iter().map(|(a, _)| a.as_str()).collect();
            assert_eq!(got, want, "only the new failure is logged");
        }
        // A clean drain, then a new failure: logged again.
        assert_eq!(f.drain(), (vec![], vec![]));
        f.diverge("auv".into(), 0, 30.0);
        assert_eq!(f.drain().1, vec![("auv".to_owned(), 30.0)]);
    }
}
