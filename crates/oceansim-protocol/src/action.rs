//! The typed action catalogue: every action name, the request type it
//! belongs to, and its payload type.

use crate::envelope::RequestType;
use crate::error::Result;
use crate::payload::*;
use serde_json::Value;
use std::fmt;

macro_rules! catalogue {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $kind:ident, $payload:ty; )+) => {
        /// The name of an action, without its payload.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ActionName {
            $( $(#[$doc])* $variant, )+
        }

        impl ActionName {
            /// Every action of protocol v2, in catalogue order.
            pub const ALL: &'static [ActionName] = &[ $(ActionName::$variant,)+ ];

            /// The wire name, e.g. `"set_force_world"`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ActionName::$variant => $name,)+ }
            }

            /// Parses a wire name.
            pub fn parse(name: &str) -> Option<Self> {
                match name { $($name => Some(ActionName::$variant),)+ _ => None }
            }

            /// The request type this action is sent under.
            pub const fn request_type(self) -> RequestType {
                match self { $(ActionName::$variant => RequestType::$kind,)+ }
            }
        }

        /// An action together with its validated payload.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Action {
            $( $(#[$doc])* $variant($payload), )+
        }

        impl Action {
            /// This action's name.
            pub fn name(&self) -> ActionName {
                match self { $(Action::$variant(_) => ActionName::$variant,)+ }
            }

            /// Deserialises and validates the payload of `name` from a `data`
            /// object (`null` is read as `{}`).
            pub fn from_data(name: ActionName, data: Value) -> Result<Action> {
                let data = if data.is_null() { Value::Object(Default::default()) } else { data };
                match name {
                    $(ActionName::$variant => parse_payload::<$payload>(data).map(Action::$variant),)+
                }
            }

            /// The payload as a `data` object.
            pub fn data(&self) -> Value {
                match self { $(Action::$variant(p) => payload_value(p),)+ }
            }
        }
    };
}

catalogue! {
    /// Return AUV state and embedded sensor data (response type `state`).
    GetState => "get_state", Command, GetState;
    /// Return active sensor payloads.
    GetSensors => "get_sensors", Command, GetSensors;
    /// Apply a force, thruster or fin command, advance one control period, return state.
    Step => "step", Command, Step;
    /// Compatibility alias of `set_force_world`.
    SetForce => "set_force", Command, Force;
    /// Three-axis force in the world/user frame (x right, y forward, z up).
    SetForceWorld => "set_force_world", Command, Force;
    /// Three-axis force in the AUV body frame.
    SetForceBody => "set_force_body", Command, Force;
    /// Six-degree body wrench (Fossen body frame).
    SetBodyWrench => "set_body_wrench", Command, BodyWrench;
    /// Six-degree body velocity (Fossen body frame).
    SetBodyVelocity => "set_body_velocity", Command, BodyVelocity;
    /// Named thruster values (alias of `set_thrusters`).
    SetThrust => "set_thrust", Command, Thrusters;
    /// Named thruster values from the profile's control dictionary.
    SetThrusters => "set_thrusters", Command, Thrusters;
    /// Control-surface deflections (rad) then propeller speeds (rpm), in
    /// profile order or by name (an extension of protocol v2).
    SetFins => "set_fins", Command, Fins;
    /// Back to the scenario's initial state.
    Reset => "reset", SimControl, Reset;
    /// Freeze the simulation clock.
    Pause => "pause", SimControl, Empty;
    /// Restart the simulation clock.
    Resume => "resume", SimControl, Empty;
    /// Run at a multiple of real time.
    SetTimeScale => "set_time_scale", SimControl, SetTimeScale;
    /// Load a named scenario and regenerate the map.
    SetScenario => "set_scenario", Command, SetScenario;
    /// Generate a named or default procedural terrain.
    GenerateMap => "generate_map", Command, GenerateMap;
    /// Dimensions, path points, scenario name and map metadata.
    GetMapInfo => "get_map_info", Command, Empty;
    /// Occupancy and class grids for planners.
    GetTerrainGrid => "get_terrain_grid", Command, TerrainGridRequest;
    /// Create a static obstacle.
    SpawnObstacle => "spawn_obstacle", Command, Box<SpawnObstacle>;
    /// Remove a static obstacle.
    RemoveObstacle => "remove_obstacle", Command, ObjectId;
    /// Create a dynamic proxy agent.
    SpawnAgent => "spawn_agent", Command, Box<SpawnAgent>;
    /// Teleport a dynamic agent.
    MoveAgent => "move_agent", Command, MoveAgent;
    /// Remove a dynamic agent.
    RemoveAgent => "remove_agent", Command, ObjectId;
    /// Remove every dynamic agent.
    ClearAgents => "clear_agents", Command, Empty;
    /// Runtime records of every agent.
    GetAgents => "get_agents", Command, Empty;
    /// Drive a proxy agent with an external velocity.
    SetAgentVelocity => "set_agent_velocity", Command, SetAgentVelocity;
    /// Planned-path overlay.
    SetNavPath => "set_nav_path", Command, NavPath;
    /// One target waypoint (and `waypoint_pid` target).
    SetWaypoint => "set_waypoint", Command, SetWaypoint;
    /// Predicted-trajectory overlay.
    SetPredTrajectory => "set_pred_trajectory", Command, PredTrajectory;
    /// Waypoint-list overlay.
    SetWaypoints => "set_waypoints", Command, Waypoints;
    /// Clear every navigation overlay.
    ClearNav => "clear_nav", Command, Empty;
    /// Uniform ocean current.
    SetCurrent => "set_current", Command, SetCurrent;
    /// Queue an acoustic message.
    SendAcousticMessage => "send_acoustic_message", Command, AcousticMessage;
    /// Configure the acoustic channel.
    ConfigureAcousticComm => "configure_acoustic_comm", Command, AcousticConfig;
    /// Read (and by default clear) an agent's acoustic inbox.
    ReadAcousticInbox => "read_acoustic_inbox", Command, ReadAcousticInbox;
    /// Export run artifacts.
    ExportDataset => "export_dataset", Command, ExportDataset;
    /// Write a snapshot JSON.
    SaveSnapshotJson => "save_snapshot_json", Command, SaveSnapshot;
    /// Replace the world with a saved snapshot's (an extension of protocol v2).
    LoadSnapshot => "load_snapshot", Command, LoadSnapshot;
}

impl fmt::Display for ActionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Action {
    /// The request type this action is sent under.
    pub fn request_type(&self) -> RequestType {
        self.name().request_type()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut seen = std::collections::BTreeSet::new();
        for a in ActionName::ALL {
            assert!(seen.insert(a.as_str()), "duplicate {a}");
            assert_eq!(ActionName::parse(a.as_str()), Some(*a));
        }
        // The 36 documented actions plus the extensions
        // `read_acoustic_inbox`, `load_snapshot` and `set_fins`.
        assert_eq!(ActionName::ALL.len(), 39);
        assert_eq!(ActionName::parse("set_fins"), Some(ActionName::SetFins));
        assert_eq!(ActionName::SetFins.request_type(), RequestType::Command);
    }

    #[test]
    fn sim_control_actions_are_the_four_documented() {
        let sim: Vec<_> = ActionName::ALL
            .iter()
            .filter(|a| a.request_type() == RequestType::SimControl)
            .map(|a| a.as_str())
            .collect();
        assert_eq!(sim, ["reset", "pause", "resume", "set_time_scale"]);
    }
}
