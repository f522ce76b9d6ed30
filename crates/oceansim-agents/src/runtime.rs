//! The runtime agent record reported by `get_agents`.

use crate::definition::{AgentDefinition, SensorDecl};
use crate::scheme::ControlScheme;
use crate::space::ActionSpace;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Version of the runtime record format.
pub const RUNTIME_SCHEMA_VERSION: u64 = 1;

/// Pose part of a runtime record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimePose {
    /// Position (m), OceanSim user frame (x east, y north, z up).
    pub position: [f64; 3],
    /// Roll, pitch, yaw (degrees); yaw is the compass heading (0 = north,
    /// clockwise).
    pub rotation_rpy: [f64; 3],
    /// Attitude quaternion `[x, y, z, w]` (Fossen body → NED), provided by
    /// the main AUV.
    pub rotation_quat_xyzw: Option<[f64; 4]>,
}

pub use oceansim_protocol::reply::{CommandRecord, ControllerState};

/// The runtime state of one agent, with the spec's "Runtime fields" names.
///
/// Every field is always serialised; absent optional values are `null`, so
/// consumers see one schema for the main AUV and for proxies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentRuntimeState {
    /// Record format version.
    pub schema_version: u64,
    /// Stable runtime identifier (same as `agent_name`).
    pub id: String,
    /// Stable runtime identifier.
    pub agent_name: String,
    /// Agent role (`main_auv`, `proxy_auv`, ...).
    pub agent_type: String,
    /// Vehicle or runtime profile name.
    pub profile: Option<String>,
    /// Visualisation shape (`torpedo`, `sphere`, ...).
    pub shape: String,
    /// Semantic class, e.g. `auv`.
    pub semantic_label: Option<String>,
    /// Grouping labels.
    pub tags: Vec<String>,
    /// Position (m), OceanSim user frame.
    pub position: [f64; 3],
    /// Full pose.
    pub pose: RuntimePose,
    /// Linear velocity (m/s), OceanSim user frame.
    pub velocity: [f64; 3],
    /// Body angular velocity `[p, q, r]` (rad/s), Fossen body frame.
    pub angular_velocity: Option<[f64; 3]>,
    /// Motion mode (`dynamics`, `external_velocity`, `patrol`, `idle`).
    pub mode: String,
    /// Speed, |velocity| (m/s).
    pub speed: f64,
    /// Footprint radius (m).
    pub size_m: f64,
    /// Whether the agent is a lightweight proxy.
    pub proxy_auv: bool,
    /// Active control contract.
    pub control_scheme: ControlScheme,
    /// The protocol path the contract uses (e.g. `set_force_world`).
    pub control_mode: String,
    /// Contract of the active scheme.
    pub action_space: ActionSpace,
    /// Contracts the agent accepts.
    pub available_action_spaces: Vec<ActionSpace>,
    /// Sensor declarations.
    pub sensors: Vec<SensorDecl>,
    /// Last command received.
    pub last_command: Option<CommandRecord>,
    /// Simulation time (s) of the last command.
    pub last_command_time: Option<f64>,
    /// `idle`, `active`, `saturated` or `error`.
    pub control_status: String,
    /// Controller diagnostics, when a controller is engaged.
    pub controller_state: Option<ControllerState>,
    /// Control-surface angles (rad), profile order, for vehicles with fins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fin_angles_rad: Vec<f64>,
    /// Propeller shaft speeds (rpm), profile order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub propeller_rpm: Vec<f64>,
    /// Shallowest allowed depth (m, positive down).
    pub depth_min: Option<f64>,
    /// Deepest allowed depth (m, positive down).
    pub depth_max: Option<f64>,
    /// Role, tags and experiment annotations.
    pub metadata: Map<String, Value>,
    /// Bodies the agent touches this tick (see the state's `contacts`).
    #[serde(default)]
    pub contacts: usize,
}

impl AgentRuntimeState {
    /// The initial record of an agent built from its definition, at rest at
    /// `position` (user frame). `thrusters` sizes the `thrusters` contract.
    pub fn from_definition(def: &AgentDefinition, position: [f64; 3], thrusters: usize) -> Self {
        let proxy = !def.is_main_agent;
        let available: Vec<ActionSpace> = ControlScheme::ALL
            .into_iter()
            .filter(|s| {
                if proxy {
                    s.proxy_supports()
                } else {
                    s.main_auv_supports()
                }
            })
            .map(|s| ActionSpace::for_scheme(s, thrusters))
            .collect();
        AgentRuntimeState {
            schema_version: RUNTIME_SCHEMA_VERSION,
            id: def.agent_name.clone(),
            agent_name: def.agent_name.clone(),
            agent_type: def.agent_type.clone(),
            profile: def.profile.clone(),
            shape: if proxy { "sphere" } else { "torpedo" }.into(),
            semantic_label: def
                .semantic_label()
                .map(str::to_owned)
                .or(Some("auv".into())),
            tags: def.tags(),
            position,
            pose: RuntimePose {
                position,
                rotation_rpy: [0.0; 3],
                rotation_quat_xyzw: if proxy {
                    None
                } else {
                    Some([0.0, 0.0, 0.0, 1.0])
                },
            },
            velocity: [0.0; 3],
            angular_velocity: if proxy { None } else { Some([0.0; 3]) },
            mode: if proxy { "idle" } else { "dynamics" }.into(),
            speed: 0.0,
            size_m: if proxy { 0.5 } else { 0.8 },
            proxy_auv: proxy,
            control_scheme: def.control_scheme,
            control_mode: def.control_scheme.protocol_mapping().as_str().into(),
            action_space: ActionSpace::for_scheme(def.control_scheme, thrusters),
            available_action_spaces: available,
            sensors: def.sensors.clone(),
            last_command: None,
            last_command_time: None,
            control_status: "idle".into(),
            controller_state: None,
            fin_angles_rad: Vec::new(),
            propeller_rpm: Vec::new(),
            depth_min: None,
            depth_max: None,
            metadata: def.metadata.clone(),
            contacts: 0,
        }
    }
}

/// The spec's "Runtime fields" table, flattened to dotted names
/// (`pose.position` is `state["pose"]["position"]`): every `get_agents`
/// record carries each of them, `null` where not applicable.
pub const RUNTIME_FIELDS: &[&str] = &[
    "schema_version",
    "id",
    "agent_name",
    "agent_type",
    "profile",
    "shape",
    "semantic_label",
    "tags",
    "position",
    "pose.position",
    "pose.rotation_rpy",
    "pose.rotation_quat_xyzw",
    "velocity",
    "angular_velocity",
    "mode",
    "speed",
    "size_m",
    "proxy_auv",
    "control_scheme",
    "control_mode",
    "action_space",
    "available_action_spaces",
    "sensors",
    "last_command",
    "last_command_time",
    "control_status",
    "controller_state",
    "depth_min",
    "depth_max",
    "metadata",
];

/// Fields this simulator adds to the spec's table (documented in its
/// runtime record); nothing else appears.
pub const RUNTIME_EXTENSIONS: &[&str] = &["contacts"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_every_documented_field_by_name() {
        let def = AgentDefinition::new("target_01");
        let v = serde_json::to_value(AgentRuntimeState::from_definition(&def, [1.0, 2.0, 3.0], 6))
            .unwrap();
        for f in RUNTIME_FIELDS {
            let mut cur = &v;
            for part in f.split('.') {
                cur = cur
                    .get(part)
                    .unwrap_or_else(|| panic!("missing {f} in {v}"));
            }
        }
        let top: Vec<&String> = v.as_object().unwrap().keys().collect();
        let spec_top: std::collections::BTreeSet<&str> = RUNTIME_FIELDS
            .iter()
            .map(|f| f.split('.').next().unwrap())
            .collect();
        assert_eq!(
            top.len(),
            spec_top.len() + RUNTIME_EXTENSIONS.len(),
            "no undocumented top-level fields: {top:?}"
        );
        for f in RUNTIME_EXTENSIONS {
            assert!(v.get(f).is_some(), "{f}");
        }
        assert_eq!(v["proxy_auv"], true);
        assert_eq!(v["control_scheme"], "external_velocity");
        assert_eq!(v["control_mode"], "set_agent_velocity");
        assert_eq!(v["available_action_spaces"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn main_auv_lists_its_alternatives() {
        let def = AgentDefinition::new("auv/main");
        let r = AgentRuntimeState::from_definition(&def, [0.0; 3], 6);
        let names: Vec<_> = r
            .available_action_spaces
            .iter()
            .map(|s| s.scheme.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "force_3d",
                "body_force_3d",
                "thrusters",
                "waypoint_pid",
                "body_wrench_6dof",
                "body_velocity_6dof"
            ]
        );
        assert_eq!(r.pose.rotation_quat_xyzw, Some([0.0, 0.0, 0.0, 1.0]));
        let back: AgentRuntimeState =
            serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }
}
