//! Typed payloads of every action.
//!
//! Payloads are deserialised by serde from the request's `data` object.
//! Vectors ([`Vector`], [`ThrusterCommand`], [`FinCommand`], [`PathPoint`]) reject wrong
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

use crate::error::{Num, ProtocolError, Result};
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
/// Upper bound on values (control surfaces plus propellers) in one `fins`
/// command.
pub const MAX_FINS: usize = 16;
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
        let v = Value::deserialize(d)?;
        named_or_ordered(v, MAX_THRUSTERS, "thruster", "thrusters").map(|c| match c {
            NamedOrOrdered::Named(m) => ThrusterCommand::Named(m),
            NamedOrOrdered::Ordered(v) => ThrusterCommand::Ordered(v),
        })
    }
}

enum NamedOrOrdered {
    Named(BTreeMap<String, f64>),
    Ordered(Vec<f64>),
}

/// Reads an object of name -> finite number or an array of finite numbers,
/// at most `max` of them; `one` and `many` name an entry in messages
/// (`thruster`, `thrusters`).
fn named_or_ordered<E: serde::de::Error>(
    v: Value,
    max: usize,
    one: &str,
    many: &str,
) -> std::result::Result<NamedOrOrdered, E> {
    match v {
        Value::Object(map) => {
            if map.len() > max {
                return Err(shape_err(format_args!(
                    "at most {max} {many}, got {}",
                    map.len()
                )));
            }
            let mut out = BTreeMap::new();
            for (name, v) in &map {
                if name.is_empty()
                    || name.len() > MAX_ID_LEN
                    || name.chars().any(crate::names::is_unprintable)
                {
                    return Err(shape_err(format_args!(
                        "{one} names must be 1..256 bytes of printable text"
                    )));
                }
                out.insert(
                    name.clone(),
                    finite_number(v, format_args!("{one} `{name}`"))?,
                );
            }
            Ok(NamedOrOrdered::Named(out))
        }
        Value::Array(items) => {
            if items.len() > max {
                return Err(shape_err(format_args!(
                    "at most {max} {many}, got {}",
                    items.len()
                )));
            }
            items
                .iter()
                .enumerate()
                .map(|(i, v)| finite_number(v, format_args!("{one} {i}")))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map(NamedOrOrdered::Ordered)
        }
        other => Err(shape_err(format_args!(
            "{many} must be an object of name -> value or an array, got {}",
            value_kind(&other)
        ))),
    }
}

/// A control-surface and propeller command (`set_fins`, `step`): one value
/// per control surface in vehicle-profile order, in rad, then one per
/// propeller, in rpm (`[rudder, stern_plane, propeller]` for Fossen's
/// REMUS 100) — or the same values by the profile's fin and propeller names
/// (`{"rudder": 0.1, "propeller": 1200}`; names not given keep their current
/// command). Angles and rpm follow Fossen's sign conventions (`remus100.py`);
/// rpm ≥ 0 drives ahead. The simulator clips each value to the profile's
/// limits (deflection, rpm) and reports the applied values.
#[derive(Debug, Clone, PartialEq)]
pub enum FinCommand {
    /// Values by fin or propeller name; names not in the active profile are
    /// an error at the simulator.
    Named(BTreeMap<String, f64>),
    /// Surfaces (rad) then propellers (rpm), in profile order; the length
    /// must match the profile.
    Ordered(Vec<f64>),
}

impl Serialize for FinCommand {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            FinCommand::Named(m) => m.serialize(s),
            FinCommand::Ordered(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for FinCommand {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        named_or_ordered(v, MAX_FINS, "fin", "fin values").map(|c| match c {
            NamedOrOrdered::Named(m) => FinCommand::Named(m),
            NamedOrOrdered::Ordered(v) => FinCommand::Ordered(v),
        })
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
    if let Some(c) = id.chars().find(|&c| crate::names::is_unprintable(c)) {
        return Err(ProtocolError::invalid(format!(
            "`{field}` must be printable text; U+{:04X} is a control or format character",
            c as u32
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
        let (lo, hi, x) = (Num(lo), Num(hi), Num(x));
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
            "`{field}` must be > 0, got {}",
            Num(x)
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

/// `step`: apply a force, thruster or fin command (at most one of the three),
/// advance one control period and return the new state. With none, the last
/// command is held.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// World/user-frame force `[fx, fy, fz]` (N): x right, y forward, z up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<Vector<3>>,
    /// Thruster command (normalised, profile order or by name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thrusters: Option<ThrusterCommand>,
    /// Fin command: control surfaces (rad) then propellers (rpm), profile
    /// order or by name, as `set_fins` takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fins: Option<FinCommand>,
    /// `full` (default) or `compact` reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
}
impl Validate for Step {
    fn validate(&self) -> Result<()> {
        let given: Vec<&str> = [
            ("force", self.force.is_some()),
            ("thrusters", self.thrusters.is_some()),
            ("fins", self.fins.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect();
        if given.len() > 1 {
            return Err(ProtocolError::invalid(format!(
                "`step` takes at most one of `force`, `thrusters` and `fins`, got `{}`",
                given.join("` and `")
            )));
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

/// `set_fins`: control-surface deflections (rad) then propeller speeds
/// (rpm), in the vehicle profile's order or by name (see [`FinCommand`]).
/// For Fossen's REMUS 100: `{"fins": [rudder_rad, stern_plane_rad,
/// propeller_rpm]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fins {
    /// The command, by name or in profile order.
    pub fins: FinCommand,
    /// Agent the command is for; the main AUV when omitted.
    #[serde(default, alias = "agent_name", skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}
impl Validate for Fins {
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

mod world;
pub use world::*;
#[cfg(test)]
mod tests;
