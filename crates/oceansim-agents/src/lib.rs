//! # oceansim-agents
//!
//! The typed agent vocabulary of OceanSim, shared by the simulator, the
//! client and the scenario loader: the nine [`ControlScheme`]s and their
//! [`ActionSpace`] contracts, [`AgentDefinition`]s as scenario files and
//! `spawn_agent` carry them, the [`AgentRuntimeState`] record `get_agents`
//! reports, the scheme → protocol-request mapping ([`action_request`]), and
//! the validation of a scenario's `agents` array ([`check_scenario_agents`]).
//!
//! ## Conventions
//!
//! Every action space names its [`Frame`] (see `DESIGN.md`): `force_3d` uses
//! the OceanSim world/user frame (x right/east, y forward/north, z up) and
//! `body_force_3d` the AUV body frame in the same user convention (y
//! forward); `body_wrench_6dof`, `body_velocity_6dof` and
//! `custom_dynamics_6dof` use Fossen's body frame (x forward, y starboard,
//! z down); `external_velocity` is in the Godot world frame (Y up) and
//! `waypoint_pid` on the Godot X/Z map plane with depth positive down.
//! `fins` is in vehicle-profile order: control-surface deflections (rad),
//! then propeller speeds (rpm), Fossen's sign conventions (`remus100.py`).
//! Units are SI (N, N·m, m, m/s, rad/s, rad); propellers in rpm; thruster
//! commands are normalised.
//! Definition poses are Godot coordinates with rotations in degrees.
//! Errors map to the protocol's stable codes ([`AgentError::code`]).
//!
//! ## Examples
//!
//! The spec's main-agent example,
//! `AgentDefinition(agent_name="auv/main", control_scheme="force_3d")` then
//! `main.act([0.0, 120.0, 0.0])`:
//!
//! ```
//! use oceansim_agents::{action_request, ActionSpace, AgentDefinition, ControlScheme};
//!
//! let main = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::Force3d);
//! assert!(main.is_main_agent);
//! let space = ActionSpace::for_scheme(main.control_scheme, 6);
//! let request = action_request(&main.agent_name, &space, &[0.0, 120.0, 0.0]).unwrap();
//! let wire = request.to_value();
//! assert_eq!(wire["action"], "set_force_world");
//! assert_eq!(wire["data"]["force"], serde_json::json!([0.0, 120.0, 0.0]));
//! ```
//!
//! The spec's `target_01` proxy dictionary, then `target.act([0.2, 0.0, -0.1])`:
//!
//! ```
//! use oceansim_agents::{action_request, ActionSpace, AgentDefinition, ControlScheme};
//! use serde_json::json;
//!
//! let target = AgentDefinition::from_json(&json!({
//!     "agent_name": "target_01",
//!     "agent_type": "proxy_auv",
//!     "is_main_agent": false,
//!     "location": [4.0, -7.0, 6.0],
//!     "control_scheme": "external_velocity",
//!     "metadata": {"role": "moving_target"},
//! }))
//! .unwrap();
//! assert_eq!(target.control_scheme, ControlScheme::ExternalVelocity);
//! assert_eq!(target.role(), Some("moving_target"));
//!
//! // Spawned through the protocol's spawn_agent with its versioned form...
//! assert_eq!(target.to_json()["schema_version"], 1);
//! // ...and driven with a validated velocity vector.
//! let space = ActionSpace::for_scheme(target.control_scheme, 6);
//! let request = action_request(&target.agent_name, &space, &[0.2, 0.0, -0.1]).unwrap();
//! assert_eq!(request.to_value()["data"], json!({"id": "target_01", "velocity": [0.2, 0.0, -0.1]}));
//!
//! // A wrong length never reaches the wire.
//! let err = action_request(&target.agent_name, &space, &[0.2]).unwrap_err();
//! assert_eq!(err.code().as_str(), "invalid_action_shape");
//! ```
#![warn(missing_docs)]

mod definition;
mod dispatch;
mod error;
mod runtime;
mod scenario;
mod scheme;
mod space;

pub use definition::{AgentDefinition, SensorDecl, AGENT_SCHEMA_VERSION, MAIN_AGENT_NAME};
pub use dispatch::action_request;
pub use error::{AgentError, Problem, Result};
pub use runtime::{
    AgentRuntimeState, CommandRecord, ControllerState, RuntimePose, RUNTIME_EXTENSIONS,
    RUNTIME_FIELDS, RUNTIME_SCHEMA_VERSION,
};
pub use scenario::{check_scenario_agents, MAX_SCENARIO_AGENTS};
pub use scheme::{normalize_control_scheme, ControlScheme, Frame, ProtocolMapping};
pub use space::{
    list_control_schemes, list_control_schemes_for, ActionSpace, ControlContract, ACTION_SPACES,
    DEFAULT_FIN_PROPELLERS, DEFAULT_FIN_SURFACES, DEFAULT_THRUSTER_COUNT,
};
