//! Control schemes, their frames and their protocol mapping.

use crate::error::{AgentError, Result};
use oceansim_protocol::ActionName;
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The documented control schemes (action contracts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlScheme {
    /// `[fx, fy, fz]` (N), OceanSim world/user frame → `set_force_world`.
    #[serde(rename = "force_3d")]
    Force3d,
    /// `[fx, fy, fz]` (N), AUV body frame in the user convention → `set_force_body`.
    #[serde(rename = "body_force_3d")]
    BodyForce3d,
    /// One normalised command per thruster, profile order → `set_thrusters`.
    Thrusters,
    /// `[vx, vy, vz]` (m/s), Godot world frame → `set_agent_velocity`.
    ExternalVelocity,
    /// `[world_x, world_z, depth]` (m) → `set_waypoint` with controller metadata.
    WaypointPid,
    /// `[fx, fy, fz, tx, ty, tz]` (N, N·m), Fossen body frame → `set_body_wrench`.
    #[serde(rename = "body_wrench_6dof")]
    BodyWrench6dof,
    /// `[u, v, w, p, q, r]` (m/s, rad/s), Fossen body frame → `set_body_velocity`.
    #[serde(rename = "body_velocity_6dof")]
    BodyVelocity6dof,
    /// Control-surface deflections (rad) then propeller speeds (rpm), in
    /// vehicle-profile order (`[rudder, stern_plane, propeller]` for Fossen's
    /// REMUS 100) → `set_fins`. Only vehicles whose profile has fins or
    /// propellers take it (see [`ControlScheme::needs_fins`]).
    Fins,
    /// `[lin_ax, .., ang_az]` (m/s², rad/s²), reserved protocol extension.
    #[serde(rename = "custom_dynamics_6dof")]
    CustomDynamics6dof,
}

impl ControlScheme {
    /// Every scheme, in the order of the spec's contract table.
    pub const ALL: [ControlScheme; 9] = [
        ControlScheme::Force3d,
        ControlScheme::BodyForce3d,
        ControlScheme::Thrusters,
        ControlScheme::ExternalVelocity,
        ControlScheme::WaypointPid,
        ControlScheme::BodyWrench6dof,
        ControlScheme::BodyVelocity6dof,
        ControlScheme::Fins,
        ControlScheme::CustomDynamics6dof,
    ];

    /// The canonical name, e.g. `"body_wrench_6dof"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ControlScheme::Force3d => "force_3d",
            ControlScheme::BodyForce3d => "body_force_3d",
            ControlScheme::Thrusters => "thrusters",
            ControlScheme::ExternalVelocity => "external_velocity",
            ControlScheme::WaypointPid => "waypoint_pid",
            ControlScheme::BodyWrench6dof => "body_wrench_6dof",
            ControlScheme::BodyVelocity6dof => "body_velocity_6dof",
            ControlScheme::Fins => "fins",
            ControlScheme::CustomDynamics6dof => "custom_dynamics_6dof",
        }
    }

    /// The frame the action vector is expressed in.
    pub const fn frame(self) -> Frame {
        match self {
            ControlScheme::Force3d => Frame::OceansimWorld,
            ControlScheme::BodyForce3d => Frame::OceansimBody,
            ControlScheme::Thrusters | ControlScheme::Fins => Frame::Actuator,
            ControlScheme::ExternalVelocity => Frame::GodotWorld,
            ControlScheme::WaypointPid => Frame::GodotMapPlane,
            ControlScheme::BodyWrench6dof
            | ControlScheme::BodyVelocity6dof
            | ControlScheme::CustomDynamics6dof => Frame::FossenBody,
        }
    }

    /// The protocol action an action vector of this scheme is sent as.
    pub const fn protocol_mapping(self) -> ProtocolMapping {
        ProtocolMapping::Action(match self {
            ControlScheme::Force3d => ActionName::SetForceWorld,
            ControlScheme::BodyForce3d => ActionName::SetForceBody,
            ControlScheme::Thrusters => ActionName::SetThrusters,
            ControlScheme::ExternalVelocity => ActionName::SetAgentVelocity,
            ControlScheme::WaypointPid => ActionName::SetWaypoint,
            ControlScheme::BodyWrench6dof => ActionName::SetBodyWrench,
            ControlScheme::BodyVelocity6dof => ActionName::SetBodyVelocity,
            ControlScheme::Fins => ActionName::SetFins,
            ControlScheme::CustomDynamics6dof => return ProtocolMapping::Reserved,
        })
    }

    /// The scheme a protocol action commands: the inverse of
    /// [`ControlScheme::protocol_mapping`], plus the protocol's aliases
    /// (`set_force` for `set_force_world`, `set_thrust` for
    /// `set_thrusters`). `None` for actions that are not commands.
    pub fn for_action(action: ActionName) -> Option<ControlScheme> {
        let canonical = match action {
            ActionName::SetForce => ActionName::SetForceWorld,
            ActionName::SetThrust => ActionName::SetThrusters,
            other => other,
        };
        ControlScheme::ALL
            .into_iter()
            .find(|s| s.protocol_mapping() == ProtocolMapping::Action(canonical))
    }

    /// Whether every physical vehicle (the main AUV, any profile) accepts
    /// this scheme. `false` for [`ControlScheme::Fins`]: a vehicle takes fin
    /// commands only when its profile has control surfaces or propellers
    /// (the simulator decides, per profile; see
    /// [`ControlScheme::needs_fins`]).
    pub const fn main_auv_supports(self) -> bool {
        !matches!(
            self,
            ControlScheme::ExternalVelocity
                | ControlScheme::CustomDynamics6dof
                | ControlScheme::Fins
        )
    }

    /// Whether a vehicle takes this scheme only when its profile has
    /// control surfaces or propellers (`fins`). A vehicle supports a scheme
    /// when `main_auv_supports() || (needs_fins() && profile has fins)`.
    pub const fn needs_fins(self) -> bool {
        matches!(self, ControlScheme::Fins)
    }

    /// Whether a kinematic proxy agent accepts this scheme.
    pub const fn proxy_supports(self) -> bool {
        matches!(self, ControlScheme::ExternalVelocity)
    }
}

impl fmt::Display for ControlScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ControlScheme {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<Self> {
        normalize_control_scheme(s)
    }
}

/// Aliases, written as lookup keys (lower case, separators removed).
const ALIASES: &[(&str, ControlScheme)] = &[
    ("force", ControlScheme::Force3d),
    ("worldforce", ControlScheme::Force3d),
    ("forceworld", ControlScheme::Force3d),
    ("worldforce3d", ControlScheme::Force3d),
    ("setforce", ControlScheme::Force3d),
    ("setforceworld", ControlScheme::Force3d),
    ("bodyforce", ControlScheme::BodyForce3d),
    ("forcebody", ControlScheme::BodyForce3d),
    ("setforcebody", ControlScheme::BodyForce3d),
    ("thruster", ControlScheme::Thrusters),
    ("thrust", ControlScheme::Thrusters),
    ("setthrust", ControlScheme::Thrusters),
    ("setthrusters", ControlScheme::Thrusters),
    ("velocity", ControlScheme::ExternalVelocity),
    ("externalvel", ControlScheme::ExternalVelocity),
    ("agentvelocity", ControlScheme::ExternalVelocity),
    ("setagentvelocity", ControlScheme::ExternalVelocity),
    ("waypoint", ControlScheme::WaypointPid),
    ("waypoints", ControlScheme::WaypointPid),
    ("pid", ControlScheme::WaypointPid),
    ("setwaypoint", ControlScheme::WaypointPid),
    ("wrench", ControlScheme::BodyWrench6dof),
    ("bodywrench", ControlScheme::BodyWrench6dof),
    ("wrench6dof", ControlScheme::BodyWrench6dof),
    ("setbodywrench", ControlScheme::BodyWrench6dof),
    ("bodyvelocity", ControlScheme::BodyVelocity6dof),
    ("velocity6dof", ControlScheme::BodyVelocity6dof),
    ("setbodyvelocity", ControlScheme::BodyVelocity6dof),
    ("fin", ControlScheme::Fins),
    ("setfins", ControlScheme::Fins),
    ("controlsurfaces", ControlScheme::Fins),
    ("customdynamics", ControlScheme::CustomDynamics6dof),
    ("custom", ControlScheme::CustomDynamics6dof),
    ("dynamics6dof", ControlScheme::CustomDynamics6dof),
];

fn key(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' ' | '.' | '/'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Resolves a control-scheme name: the canonical names in any case and with
/// any of `_ - . /` or spaces as separators (`Body-Force-3D`), plus common
/// aliases (`force`, `world_force`, `body_force`, `velocity`, `waypoint`,
/// `wrench`, ...). Unknown names are an error listing the valid ones.
///
/// ```
/// use oceansim_agents::{normalize_control_scheme, ControlScheme};
/// assert_eq!(normalize_control_scheme("Body-Force-3D").unwrap(), ControlScheme::BodyForce3d);
/// assert_eq!(normalize_control_scheme("wrench").unwrap(), ControlScheme::BodyWrench6dof);
/// assert!(normalize_control_scheme("teleport").is_err());
/// ```
pub fn normalize_control_scheme(name: &str) -> Result<ControlScheme> {
    let k = key(name.trim());
    ControlScheme::ALL
        .into_iter()
        .find(|s| key(s.as_str()) == k)
        .or_else(|| {
            ALIASES
                .iter()
                .find(|(alias, _)| *alias == k)
                .map(|(_, s)| *s)
        })
        .ok_or_else(|| AgentError::UnknownControlScheme {
            name: name.to_owned(),
            valid: ControlScheme::ALL.map(ControlScheme::as_str).join(", "),
        })
}

pub use oceansim_protocol::Frame;

/// Where a scheme's action vector goes on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProtocolMapping {
    /// Sent as this protocol action.
    Action(ActionName),
    /// Reserved protocol extension: not dispatchable yet.
    Reserved,
}

impl ProtocolMapping {
    /// The wire form: the action name, or `"reserved"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolMapping::Action(a) => a.as_str(),
            ProtocolMapping::Reserved => "reserved",
        }
    }
}

impl Serialize for ProtocolMapping {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names_in_every_spelling() {
        for s in ControlScheme::ALL {
            let c = s.as_str();
            assert_eq!(normalize_control_scheme(c).unwrap(), s);
            assert_eq!(normalize_control_scheme(&c.to_uppercase()).unwrap(), s);
            assert_eq!(normalize_control_scheme(&c.replace('_', "-")).unwrap(), s);
            assert_eq!(normalize_control_scheme(&c.replace('_', " ")).unwrap(), s);
            assert_eq!(normalize_control_scheme(&format!("  {c} ")).unwrap(), s);
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{c}\""));
        }
    }

    #[test]
    fn every_alias_resolves() {
        for (alias, scheme) in ALIASES {
            assert_eq!(normalize_control_scheme(alias).unwrap(), *scheme, "{alias}");
        }
        for (alias, scheme) in [
            ("force", ControlScheme::Force3d),
            ("world_force", ControlScheme::Force3d),
            ("body_force", ControlScheme::BodyForce3d),
            ("Velocity", ControlScheme::ExternalVelocity),
            ("waypoint", ControlScheme::WaypointPid),
            ("WRENCH", ControlScheme::BodyWrench6dof),
            ("body-velocity", ControlScheme::BodyVelocity6dof),
        ] {
            assert_eq!(normalize_control_scheme(alias).unwrap(), scheme);
        }
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let err = normalize_control_scheme("teleport").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("teleport"), "{msg}");
        for s in ControlScheme::ALL {
            assert!(msg.contains(s.as_str()), "{msg}");
        }
        assert_eq!(err.code(), oceansim_protocol::ErrorCode::InvalidMessage);
        assert!(normalize_control_scheme("").is_err());
    }

    #[test]
    fn frames_follow_design_conventions() {
        assert_eq!(ControlScheme::Force3d.frame(), Frame::OceansimWorld);
        // The mapping runs both ways, aliases included.
        for s in ControlScheme::ALL {
            if let ProtocolMapping::Action(a) = s.protocol_mapping() {
                assert_eq!(ControlScheme::for_action(a), Some(s));
            }
        }
        assert_eq!(
            ControlScheme::for_action(ActionName::SetForce),
            Some(ControlScheme::Force3d)
        );
        assert_eq!(
            ControlScheme::for_action(ActionName::SetThrust),
            Some(ControlScheme::Thrusters)
        );
        assert_eq!(ControlScheme::for_action(ActionName::GetState), None);
        assert_eq!(ControlScheme::BodyWrench6dof.frame(), Frame::FossenBody);
        assert_eq!(ControlScheme::BodyVelocity6dof.frame(), Frame::FossenBody);
        assert_eq!(ControlScheme::ExternalVelocity.frame(), Frame::GodotWorld);
    }

    #[test]
    fn fins_map_to_set_fins_and_need_a_finned_profile() {
        let f = ControlScheme::Fins;
        assert_eq!(f.as_str(), "fins");
        assert_eq!(serde_json::to_string(&f).unwrap(), "\"fins\"");
        assert_eq!(
            serde_json::from_str::<ControlScheme>("\"fins\"").unwrap(),
            f
        );
        assert_eq!(
            f.protocol_mapping(),
            ProtocolMapping::Action(ActionName::SetFins)
        );
        assert_eq!(f.protocol_mapping().as_str(), "set_fins");
        assert_eq!(ControlScheme::for_action(ActionName::SetFins), Some(f));
        assert_eq!(f.frame(), Frame::Actuator);
        assert!(ControlScheme::ALL.contains(&f));
        assert!(!f.main_auv_supports() && !f.proxy_supports() && f.needs_fins());
        assert_eq!(
            ControlScheme::ALL.iter().filter(|s| s.needs_fins()).count(),
            1
        );
        for name in ["fins", "FINS", "set_fins", "fin", "control-surfaces"] {
            assert_eq!(normalize_control_scheme(name).unwrap(), f, "{name}");
        }
    }
}
