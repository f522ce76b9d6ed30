//! Typed payloads of every action.
//!
//! Payloads are deserialised by serde from the request's `data` object.
//! Vectors ([`Vector`], [`ThrusterCommand`], [`PathPoint`]) reject wrong
//! lengths, non-numbers and non-finite values with
//! [`ErrorCode::InvalidActionShape`](crate::ErrorCode::InvalidActionShape);
//! scalar range checks ([`Validate`]) and missing fields are
//! [`ErrorCode::InvalidMessage`](crate::ErrorCode::InvalidMessage).
//!
//! Frames: AUV control payloads (`force`, `wrench`, `velocity`) use the
//! frame their action names (user/world frame for `set_force*` and `step`,
//! Fossen body frame for `set_body_*`). Map-side payloads (agents, obstacles,
//! navigation overlays) use Godot world coordinates (Y up), as scenario files
//! do; `set_current` uses the user frame (x east, y north, z up), m/s.
//! Unknown fields are ignored so that newer clients keep working.

use crate::error::{ProtocolError, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Marks serde errors raised by vector types so decoding can report them as
/// `invalid_action_shape` rather than `invalid_message`.
const SHAPE_MARK: &str = "\u{1}shape\u{1}";

/// Upper bound on points in one overlay path (`set_nav_path` and friends).
pub const MAX_PATH_POINTS: usize = 10_000;
/// Upper bound on named thrusters in one command.
pub const MAX_THRUSTERS: usize = 64;
/// Upper bound on identifier and name lengths, in bytes.
pub const MAX_ID_LEN: usize = 256;

fn shape_err<E: serde::de::Error>(msg: impl std::fmt::Display) -> E {
    E::custom(format_args!("{SHAPE_MARK}{msg}"))
}

/// What a JSON value is, with its article ("a number", "null"), for error
/// messages that say what arrived instead of what was expected.
pub fn value_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn finite_number<E: serde::de::Error>(v: &Value, what: impl std::fmt::Display) -> Result<f64, E> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        Some(_) => Err(shape_err(format_args!("{what} is not finite"))),
        None => Err(shape_err(format_args!(
            "{what} must be a number, got {}",
            value_kind(v)
        ))),
    }
}

/// A fixed-length vector of finite `f64`, e.g. a force `[fx, fy, fz]`.
///
/// Deserialises only from a JSON array of exactly `N` finite numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vector<const N: usize>(pub [f64; N]);

impl<const N: usize> Vector<N> {
    /// The zero vector.
    pub const ZERO: Self = Vector([0.0; N]);

    /// The components as an array.
    pub fn to_array(self) -> [f64; N] {
        self.0
    }
}

impl<const N: usize> From<[f64; N]> for Vector<N> {
    fn from(a: [f64; N]) -> Self {
        Vector(a)
    }
}

impl<const N: usize> Serialize for Vector<N> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.as_slice().serialize(s)
    }
}

impl<'de, const N: usize> Deserialize<'de> for Vector<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let Value::Array(items) = v else {
            return Err(shape_err(format_args!(
                "expected an array of {N} numbers, got {}",
                value_kind(&v)
            )));
        };
        if items.len() != N {
            return Err(shape_err(format_args!(
                "expected {N} numbers, got {}",
                items.len()
            )));
        }
        let mut out = [0.0; N];
        for (i, (slot, item)) in out.iter_mut().zip(&items).enumerate() {
            *slot = finite_number(item, format_args!("element {i}"))?;
        }
        Ok(Vector(out))
    }
}

/// A thruster command: named values (`{"thruster_0": 0.5, ...}`) or a vector
/// in vehicle-profile order (`[0.5, 0.5, ...]`). Values are normalised
/// commands, usually in [-1, 1]; the simulator's actuator model clamps them
/// to each thruster's `command_bounds`.
#[derive(Debug, Clone, PartialEq)]
pub enum ThrusterCommand {
    /// Values by thruster name; names not in the active profile are an error
    /// at the simulator.
    Named(BTreeMap<String, f64>),
    /// Values in profile order; the length must match the profile.
    Ordered(Vec<f64>),
}

impl Serialize for ThrusterCommand {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            ThrusterCommand::Named(m) => m.serialize(s),
            ThrusterCommand::Ordered(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ThrusterCommand {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Object(map) => {
                if map.len() > MAX_THRUSTERS {
                    return Err(shape_err(format_args!(
                        "at most {MAX_THRUSTERS} thrusters, got {}",
                        map.len()
                    )));
                }
                let mut out = BTreeMap::new();
                for (name, v) in &map {
                    if name.is_empty() || name.len() > MAX_ID_LEN {
                        return Err(shape_err("thruster names must be 1..256 bytes"));
                    }
                    out.insert(
                        name.clone(),
                        finite_number(v, format_args!("thruster `{name}`"))?,
                    );
                }
                Ok(ThrusterCommand::Named(out))
            }
            Value::Array(items) => {
                if items.len() > MAX_THRUSTERS {
                    return Err(shape_err(format_args!(
                        "at most {MAX_THRUSTERS} thrusters, got {}",
                        items.len()
                    )));
                }
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| finite_number(v, format_args!("thruster {i}")))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map(ThrusterCommand::Ordered)
            }
            other => Err(shape_err(format_args!(
                "thrusters must be an object of name -> value or an array, got {}",
                value_kind(&other)
            ))),
        }
    }
}

/// A point of an overlay path: `[x, z]` on the Godot map plane or `[x, y, z]`
/// in Godot world coordinates (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PathPoint {
    /// `[x, z]` on the map plane.
    Planar([f64; 2]),
    /// `[x, y, z]`, Y up.
    Spatial([f64; 3]),
}

impl Serialize for PathPoint {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            PathPoint::Planar(p) => p.as_slice().serialize(s),
            PathPoint::Spatial(p) => p.as_slice().serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PathPoint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let items = match &v {
            Value::Array(items) if items.len() == 2 || items.len() == 3 => items,
            other => {
                return Err(shape_err(format_args!(
                    "a path point must be [x, z] or [x, y, z], got {}",
                    match other {
                        Value::Array(a) => format!("{} elements", a.len()),
                        o => value_kind(o).to_string(),
                    }
                )))
            }
        };
        let mut xs = [0.0; 3];
        for (i, item) in items.iter().enumerate() {
            xs[i] = finite_number(item, format_args!("coordinate {i}"))?;
        }
        Ok(if items.len() == 2 {
            PathPoint::Planar([xs[0], xs[1]])
        } else {
            PathPoint::Spatial(xs)
        })
    }
}

fn path_len_ok(points: &[PathPoint], field: &str) -> Result<()> {
    if points.len() > MAX_PATH_POINTS {
        return Err(ProtocolError::invalid(format!(
            "{field} holds {} points; the limit is {MAX_PATH_POINTS}",
            points.len()
        )));
    }
    Ok(())
}

/// Checks a payload beyond its shape: ranges, lengths, combinations.
pub trait Validate {
    /// Returns an error naming the offending field, or `Ok(())`.
    fn validate(&self) -> Result<()> {
        Ok(())
    }
}

fn check_id(field: &str, id: &str) -> Result<()> {
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(ProtocolError::invalid(format!(
            "`{field}` must be 1..={MAX_ID_LEN} bytes, got {}",
            id.len()
        )));
    }
    Ok(())
}

fn check_agent_id(id: Option<&str>) -> Result<()> {
    id.map_or(Ok(()), |id| check_id("agent_id", id))
}

fn check_finite(field: &str, x: f64) -> Result<()> {
    if !x.is_finite() {
        return Err(ProtocolError::invalid(format!("`{field}` must be finite")));
    }
    Ok(())
}

fn check_range(field: &str, x: f64, lo: f64, hi: f64) -> Result<()> {
    check_finite(field, x)?;
    if x < lo || x > hi {
        return Err(ProtocolError::invalid(format!(
            "`{field}` must be in [{lo}, {hi}], got {x}"
        )));
    }
    Ok(())
}

fn check_positive(field: &str, x: f64) -> Result<()> {
    check_finite(field, x)?;
    if x <= 0.0 {
        return Err(ProtocolError::invalid(format!(
            "`{field}` must be > 0, got {x}"
        )));
    }
    Ok(())
}

fn check_opt<T: Copy>(v: Option<T>, f: impl FnOnce(T) -> Result<()>) -> Result<()> {
    v.map_or(Ok(()), f)
}

impl<T: Validate> Validate for Box<T> {
    fn validate(&self) -> Result<()> {
        (**self).validate()
    }
}

/// Payload of actions that take none (`pause`, `get_agents`, ...). Accepts
/// `{}`, `null` or an omitted `data`, and ignores any fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Empty {}
impl Validate for Empty {}

/// How much of the state a `get_state` or `step` reply carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// The documented state with every sensor payload (the default).
    #[default]
    Full,
    /// Pose, velocity and only the sensors whose `sequence` changed since
    /// this connection last saw them.
    Compact,
}

/// `get_state`: the main AUV's state; `detail` selects the reply's size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetState {
    /// `full` (default) or `compact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
}
impl Validate for GetState {}

/// `get_sensors`: optionally restrict the answer to some sensor names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetSensors {
    /// Sensor names to return; all active sensors when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensors: Option<Vec<String>>,
}
impl Validate for GetSensors {}

/// `step`: apply a force or thruster command, advance one control period and
/// return the new state. With neither, the last command is held.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// World/user-frame force `[fx, fy, fz]` (N): x right, y forward, z up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<Vector<3>>,
    /// Thruster command (normalised, profile order or by name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thrusters: Option<ThrusterCommand>,
    /// `full` (default) or `compact` reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
}
impl Validate for Step {
    fn validate(&self) -> Result<()> {
        if self.force.is_some() && self.thrusters.is_some() {
            return Err(ProtocolError::invalid(
                "`step` takes either `force` or `thrusters`, not both",
            ));
        }
        Ok(())
    }
}

/// `set_force`, `set_force_world`, `set_force_body`: a three-axis force (N)
/// in the frame the action names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Force {
    /// `[fx, fy, fz]` in N.
    pub force: Vector<3>,
    /// Agent the command is for; the main AUV when omitted.
    #[serde(default, alias = "agent_name", skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}
impl Validate for Force {
    fn validate(&self) -> Result<()> {
        check_agent_id(self.agent_id.as_deref())
    }
}

/// `set_body_wrench`: `[fx, fy, fz, tx, ty, tz]` (N, N·m) in the Fossen body
/// frame (x forward, y starboard, z down).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyWrench {
    /// Force and torque, body frame.
    pub wrench: Vector<6>,
    /// Agent the command is for; the main AUV when omitted.
    #[serde(default, alias = "agent_name", skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}
impl Validate for BodyWrench {
    fn validate(&self) -> Result<()> {
        check_agent_id(self.agent_id.as_deref())
    }
}

/// `set_body_velocity`: `[u, v, w, p, q, r]` (m/s, rad/s) in the Fossen body
/// frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyVelocity {
    /// Linear and angular velocity, body frame.
    pub velocity: Vector<6>,
    /// Agent the command is for; the main AUV when omitted.
    #[serde(default, alias = "agent_name", skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}
impl Validate for BodyVelocity {
    fn validate(&self) -> Result<()> {
        check_agent_id(self.agent_id.as_deref())
    }
}

/// `set_thrust`, `set_thrusters`: set thruster commands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thrusters {
    /// The command, by name or in profile order.
    pub thrusters: ThrusterCommand,
    /// Agent the command is for; the main AUV when omitted.
    #[serde(default, alias = "agent_name", skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}
impl Validate for Thrusters {
    fn validate(&self) -> Result<()> {
        check_agent_id(self.agent_id.as_deref())
    }
}

/// `reset`: back to the scenario's initial state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reset {
    /// New seed; the scenario's current seed when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
impl Validate for Reset {}

/// Largest accepted `time_scale`.
pub const MAX_TIME_SCALE: f64 = 1.0e6;

/// `set_time_scale`: run the clock at this multiple of real time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SetTimeScale {
    /// Multiple of real time, in (0, 1e6].
    pub time_scale: f64,
}
impl Validate for SetTimeScale {
    fn validate(&self) -> Result<()> {
        check_positive("time_scale", self.time_scale)?;
        check_range("time_scale", self.time_scale, 0.0, MAX_TIME_SCALE)
    }
}

/// `set_scenario`: load a named scenario and regenerate the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetScenario {
    /// Scenario name (`Static_Map`, `Dynamic_Map`, `NarrowMap`, `PaleMap`).
    pub scenario: String,
    /// Terrain seed; 0 when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
impl Validate for SetScenario {
    fn validate(&self) -> Result<()> {
        check_id("scenario", &self.scenario)
    }
}

/// `generate_map`: regenerate terrain for a named or the current scenario.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerateMap {
    /// Scenario name; the current one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Terrain seed; the current one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
impl Validate for GenerateMap {
    fn validate(&self) -> Result<()> {
        self.scenario
            .as_deref()
            .map_or(Ok(()), |s| check_id("scenario", s))
    }
}

/// `get_terrain_grid`: a 2-D occupancy grid (1 = blocked, 0 = free).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TerrainGridRequest {
    /// Cell edge (m), > 0; simulator default when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_size: Option<f64>,
    /// Height of the horizontal slice (Godot Y, m); the AUV's when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auv_y: Option<f64>,
    /// Mark static obstacles as blocked (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_static_obstacles: Option<bool>,
    /// Mark dynamic agents as blocked (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_dynamic_agents: Option<bool>,
    /// Grow blocked cells by this radius (m), >= 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inflation_radius: Option<f64>,
}
impl Validate for TerrainGridRequest {
    fn validate(&self) -> Result<()> {
        check_opt(self.cell_size, |x| check_range("cell_size", x, 1e-3, 1e3))?;
        check_opt(self.auv_y, |x| check_finite("auv_y", x))?;
        check_opt(self.inflation_radius, |x| {
            check_range("inflation_radius", x, 0.0, 1e3)
        })
    }
}

/// Geometry of a static obstacle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObstacleShape {
    /// Needs `radius`.
    Sphere,
    /// Needs `size` (full extents, m).
    Box,
    /// Vertical (Godot Y) axis; needs `radius` and `height`.
    Cylinder,
}

/// `spawn_obstacle`: create a static obstacle (Godot world coordinates, m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpawnObstacle {
    /// Identifier; the simulator assigns one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Geometry.
    pub shape: ObstacleShape,
    /// Centre (m, Godot world).
    #[serde(alias = "location")]
    pub position: Vector<3>,
    /// Box extents (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Vector<3>>,
    /// Sphere or cylinder radius (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Cylinder height (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Euler rotation (degrees, Godot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Vector<3>>,
}
impl Validate for SpawnObstacle {
    fn validate(&self) -> Result<()> {
        if let Some(id) = &self.id {
            check_id("id", id)?;
        }
        let need = |field: &str, v: Option<f64>| match v {
            Some(x) => check_range(field, x, 1e-6, 1e4),
            None => Err(ProtocolError::invalid(format!(
                "a {:?} obstacle needs `{field}`",
                self.shape
            ))),
        };
        match self.shape {
            ObstacleShape::Sphere => need("radius", self.radius),
            ObstacleShape::Cylinder => {
                need("radius", self.radius)?;
                need("height", self.height)
            }
            ObstacleShape::Box => match self.size {
                Some(s) if s.0.iter().all(|x| *x > 0.0 && *x <= 1e4) => Ok(()),
                Some(_) => Err(ProtocolError::invalid(
                    "box `size` entries must be in (0, 1e4] m",
                )),
                None => Err(ProtocolError::invalid("a Box obstacle needs `size`")),
            },
        }
    }
}

/// An action that names one object by `id`: `remove_obstacle`,
/// `remove_agent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectId {
    /// The object's identifier.
    #[serde(alias = "agent_name", alias = "name", alias = "obstacle_id")]
    pub id: String,
}
impl Validate for ObjectId {
    fn validate(&self) -> Result<()> {
        check_id("id", &self.id)
    }
}

/// `spawn_agent`: create a dynamic proxy agent. The typed fields are those of
/// an agent definition (aliases `id`/`name` and `position` accepted);
/// anything else is kept in `extra` for the simulator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpawnAgent {
    /// Stable runtime identifier.
    #[serde(alias = "id", alias = "name")]
    pub agent_name: String,
    /// Logical type, e.g. `proxy_auv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Initial position (m, Godot world).
    #[serde(default, alias = "position", skip_serializing_if = "Option::is_none")]
    pub location: Option<Vector<3>>,
    /// Initial Euler rotation (degrees, Godot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Vector<3>>,
    /// Initial velocity (m/s, Godot world).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Vector<3>>,
    /// Control scheme name (normalised by the simulator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_scheme: Option<String>,
    /// Motion mode, e.g. `external_velocity` or `patrol`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Patrol speed (m/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// Footprint radius (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_m: Option<f64>,
    /// Shallowest allowed depth (m, positive down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_min: Option<f64>,
    /// Deepest allowed depth (m, positive down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_max: Option<f64>,
    /// Any other definition fields (metadata, sensors, profile, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
impl Validate for SpawnAgent {
    fn validate(&self) -> Result<()> {
        check_id("agent_name", &self.agent_name)?;
        check_opt(self.speed, |x| check_range("speed", x, 0.0, 100.0))?;
        check_opt(self.size_m, |x| check_range("size_m", x, 1e-3, 100.0))?;
        check_opt(self.depth_min, |x| check_finite("depth_min", x))?;
        check_opt(self.depth_max, |x| check_finite("depth_max", x))?;
        if let (Some(lo), Some(hi)) = (self.depth_min, self.depth_max) {
            if lo > hi {
                return Err(ProtocolError::invalid(format!(
                    "`depth_min` ({lo}) is greater than `depth_max` ({hi})"
                )));
            }
        }
        Ok(())
    }
}

/// `move_agent`: teleport an agent (Godot world coordinates, m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveAgent {
    /// Agent identifier.
    #[serde(alias = "agent_name", alias = "name")]
    pub id: String,
    /// New position (m).
    #[serde(alias = "location")]
    pub position: Vector<3>,
    /// New Euler rotation (degrees), kept when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Vector<3>>,
}
impl Validate for MoveAgent {
    fn validate(&self) -> Result<()> {
        check_id("id", &self.id)
    }
}

/// `set_agent_velocity`: drive a proxy with an external velocity (m/s,
/// Godot world frame).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAgentVelocity {
    /// Agent identifier.
    #[serde(alias = "agent_name", alias = "name")]
    pub id: String,
    /// `[vx, vy, vz]` (m/s).
    pub velocity: Vector<3>,
}
impl Validate for SetAgentVelocity {
    fn validate(&self) -> Result<()> {
        check_id("id", &self.id)
    }
}

/// `set_nav_path`: a planned path overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NavPath {
    /// Points, `[x, z]` or `[x, y, z]` (m, Godot).
    #[serde(alias = "points")]
    pub path: Vec<PathPoint>,
}
impl Validate for NavPath {
    fn validate(&self) -> Result<()> {
        path_len_ok(&self.path, "path")
    }
}

/// `set_pred_trajectory`: a predicted trajectory overlay (e.g. an MPC
/// horizon).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredTrajectory {
    /// Points, `[x, z]` or `[x, y, z]` (m, Godot).
    #[serde(alias = "path", alias = "trajectory")]
    pub points: Vec<PathPoint>,
}
impl Validate for PredTrajectory {
    fn validate(&self) -> Result<()> {
        path_len_ok(&self.points, "points")
    }
}

/// `set_waypoints`: a waypoint list overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Waypoints {
    /// Waypoints, `[x, z]` or `[x, y, z]` (m, Godot).
    #[serde(alias = "points", alias = "path")]
    pub waypoints: Vec<PathPoint>,
}
impl Validate for Waypoints {
    fn validate(&self) -> Result<()> {
        path_len_ok(&self.waypoints, "waypoints")
    }
}

/// `set_waypoint`: one target waypoint on the Godot X/Z map plane; with
/// `control_scheme: "waypoint_pid"` it also becomes the PID controller's
/// target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetWaypoint {
    /// Godot X (m).
    pub world_x: f64,
    /// Godot Z (m).
    pub world_z: f64,
    /// Target depth (m, positive down); current depth when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    /// Agent the waypoint is for; the main AUV when omitted.
    #[serde(default, alias = "agent_name", skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// `waypoint_pid` to engage the simulator-side controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_scheme: Option<String>,
    /// Controller metadata (gains, arrival distance, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<Map<String, Value>>,
}
impl Validate for SetWaypoint {
    fn validate(&self) -> Result<()> {
        check_finite("world_x", self.world_x)?;
        check_finite("world_z", self.world_z)?;
        check_opt(self.depth, |x| check_finite("depth", x))?;
        if let Some(id) = &self.agent_id {
            check_id("agent_id", id)?;
        }
        Ok(())
    }
}

/// `export_dataset`: export run artifacts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportDataset {
    /// Directory under the export root; a fresh one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export_dir: Option<String>,
    /// Also render an image of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_image: Option<bool>,
    /// Also pack the export into one archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack_dataset: Option<bool>,
}
impl Validate for ExportDataset {
    fn validate(&self) -> Result<()> {
        self.export_dir
            .as_deref()
            .map_or(Ok(()), |d| check_id("export_dir", d))
    }
}

/// `save_snapshot_json`: write the current snapshot as JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveSnapshot {
    /// File path under the export root; a fresh name when omitted.
    #[serde(default, alias = "filename", skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}
impl Validate for SaveSnapshot {
    fn validate(&self) -> Result<()> {
        self.path.as_deref().map_or(Ok(()), |d| check_id("path", d))
    }
}

/// `set_current`: a uniform ocean current (m/s, user frame: x east, y north,
/// z up).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SetCurrent {
    /// Current velocity (m/s).
    #[serde(alias = "current")]
    pub velocity: Vector<3>,
}
impl Validate for SetCurrent {}

/// `send_acoustic_message`: queue a message through the simulated acoustic
/// channel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcousticMessage {
    /// Sending agent id.
    pub sender_id: String,
    /// Receiving agent id.
    pub receiver_id: String,
    /// Message body (any JSON; its serialised size counts against bandwidth).
    pub payload: Value,
}
impl Validate for AcousticMessage {
    fn validate(&self) -> Result<()> {
        check_id("sender_id", &self.sender_id)?;
        check_id("receiver_id", &self.receiver_id)
    }
}

/// `configure_acoustic_comm`: channel parameters; omitted fields keep their
/// value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct AcousticConfig {
    /// One-way latency (s), >= 0.
    #[serde(default, alias = "latency", skip_serializing_if = "Option::is_none")]
    pub latency_s: Option<f64>,
    /// Bandwidth (bit/s), > 0.
    #[serde(default, alias = "bandwidth", skip_serializing_if = "Option::is_none")]
    pub bandwidth_bps: Option<f64>,
    /// Maximum range (m), > 0.
    #[serde(default, alias = "range", skip_serializing_if = "Option::is_none")]
    pub range_m: Option<f64>,
    /// Probability in [0, 1] that a packet is dropped.
    #[serde(default, alias = "drop_rate", skip_serializing_if = "Option::is_none")]
    pub packet_drop_rate: Option<f64>,
    /// Seed of the drop process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
impl Validate for AcousticConfig {
    fn validate(&self) -> Result<()> {
        check_opt(self.latency_s, |x| check_range("latency_s", x, 0.0, 3600.0))?;
        check_opt(self.bandwidth_bps, |x| check_positive("bandwidth_bps", x))?;
        check_opt(self.range_m, |x| check_positive("range_m", x))?;
        check_opt(self.packet_drop_rate, |x| {
            check_range("packet_drop_rate", x, 0.0, 1.0)
        })
    }
}

/// Deserialises and validates a payload from a request's `data` object.
pub(crate) fn parse_payload<T: DeserializeOwned + Validate>(data: Value) -> Result<T> {
    let payload: T = serde_json::from_value(data).map_err(|e| {
        let msg = e.to_string();
        match msg.find(SHAPE_MARK) {
            Some(at) => {
                let rest = &msg[at + SHAPE_MARK.len()..];
                ProtocolError::shape(format!("invalid action shape: {rest}"))
            }
            None => ProtocolError::invalid(format!("invalid payload: {msg}")),
        }
    })?;
    payload.validate()?;
    Ok(payload)
}

/// Serialises a payload back to its `data` object.
pub(crate) fn payload_value<T: Serialize>(payload: &T) -> Value {
    // Payload types serialise to JSON objects by construction (plain structs
    // of finite numbers, strings and maps), so this cannot fail.
    serde_json::to_value(payload).unwrap_or_else(|_| Value::Object(Map::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn vector_accepts_exact_length_of_numbers() {
        let f: Force = parse_payload(json!({"force": [1, 2.5, -3]})).unwrap();
        assert_eq!(f.force.0, [1.0, 2.5, -3.0]);
    }

    #[test]
    fn vector_shape_errors_are_invalid_action_shape() {
        for bad in [
            json!({"force": [1, 2]}),
            json!({"force": [1, 2, 3, 4]}),
            json!({"force": [1, "2", 3]}),
            json!({"force": [1, null, 3]}),
            json!({"force": [[1], 2, 3]}),
            json!({"force": "1,2,3"}),
            json!({"force": {"x": 1}}),
        ] {
            let err = parse_payload::<Force>(bad.clone()).unwrap_err();
            assert_eq!(
                err.code(),
                crate::ErrorCode::InvalidActionShape,
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn missing_vector_is_invalid_message() {
        let err = parse_payload::<Force>(json!({})).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidMessage);
        assert!(err.to_string().contains("force"), "{err}");
    }

    #[test]
    fn scalar_ranges_are_checked() {
        assert!(parse_payload::<SetTimeScale>(json!({"time_scale": 0})).is_err());
        assert!(parse_payload::<SetTimeScale>(json!({"time_scale": -1})).is_err());
        assert!(parse_payload::<SetTimeScale>(json!({"time_scale": 2})).is_ok());
        assert!(parse_payload::<AcousticConfig>(json!({"packet_drop_rate": 1.5})).is_err());
        assert!(parse_payload::<SpawnAgent>(
            json!({"id": "a", "depth_min": 5.0, "depth_max": 1.0})
        )
        .is_err());
    }

    #[test]
    fn obstacle_shapes_need_their_dimensions() {
        let ok = json!({"shape": "cylinder", "position": [0,0,0], "radius": 1, "height": 2});
        assert!(parse_payload::<SpawnObstacle>(ok).is_ok());
        let no_height = json!({"shape": "cylinder", "position": [0,0,0], "radius": 1});
        let err = parse_payload::<SpawnObstacle>(no_height).unwrap_err();
        assert!(err.to_string().contains("height"), "{err}");
        let neg_box = json!({"shape": "box", "position": [0,0,0], "size": [1,-1,1]});
        assert!(parse_payload::<SpawnObstacle>(neg_box).is_err());
    }

    #[test]
    fn thrusters_accept_names_or_order() {
        let named: Thrusters =
            parse_payload(json!({"thrusters": {"thruster_0": 0.5, "thruster_1": -1}})).unwrap();
        assert_eq!(
            named.thrusters,
            ThrusterCommand::Named(
                [("thruster_0".into(), 0.5), ("thruster_1".into(), -1.0)].into()
            )
        );
        let ordered: Thrusters = parse_payload(json!({"thrusters": [0.1, 0.2]})).unwrap();
        assert_eq!(ordered.thrusters, ThrusterCommand::Ordered(vec![0.1, 0.2]));
        let err = parse_payload::<Thrusters>(json!({"thrusters": {"t": "x"}})).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidActionShape);
    }

    #[test]
    fn spawn_agent_accepts_aliases_and_keeps_extras() {
        let a: SpawnAgent = parse_payload(json!({
            "id": "target_01", "position": [4.0, -7.0, 6.0],
            "metadata": {"role": "moving_target"}
        }))
        .unwrap();
        assert_eq!(a.agent_name, "target_01");
        assert_eq!(a.location, Some(Vector([4.0, -7.0, 6.0])));
        assert_eq!(a.extra["metadata"]["role"], "moving_target");
    }

    #[test]
    fn path_points_are_planar_or_spatial() {
        let p: NavPath = parse_payload(json!({"path": [[1, 2], [1, 2, 3]]})).unwrap();
        assert_eq!(
            p.path,
            vec![
                PathPoint::Planar([1.0, 2.0]),
                PathPoint::Spatial([1.0, 2.0, 3.0])
            ]
        );
        let err = parse_payload::<NavPath>(json!({"path": [[1]]})).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidActionShape);
    }
}
