//! Scheme → protocol request mapping, shared by client and server.

use crate::definition::MAIN_AGENT_NAME;
use crate::error::{AgentError, Result};
use crate::scheme::{ControlScheme, ProtocolMapping};
use crate::space::ActionSpace;
use oceansim_protocol::payload::{
    BodyVelocity, BodyWrench, FinCommand, Fins, Force, SetAgentVelocity, SetWaypoint,
    ThrusterCommand, Thrusters, Vector,
};
use oceansim_protocol::{Action, SingleRequest};

fn v3(a: &[f64]) -> Vector<3> {
    Vector([a[0], a[1], a[2]])
}

fn v6(a: &[f64]) -> Vector<6> {
    Vector([a[0], a[1], a[2], a[3], a[4], a[5]])
}

/// Validates `action` against `space` and turns it into the protocol request
/// the simulator understands, per the scheme's protocol mapping.
/// Motion actions carry `agent_id` unless the agent is the main AUV.
///
/// | scheme | request |
/// |---|---|
/// | `force_3d` | `set_force_world {force}` |
/// | `body_force_3d` | `set_force_body {force}` |
/// | `thrusters` | `set_thrusters {thrusters: {thruster_i: v}}` |
/// | `external_velocity` | `set_agent_velocity {id: agent, velocity}` |
/// | `waypoint_pid` | `set_waypoint {world_x, world_z, depth, agent_id, control_scheme: "waypoint_pid"}` |
/// | `body_wrench_6dof` | `set_body_wrench {wrench}` |
/// | `body_velocity_6dof` | `set_body_velocity {velocity}` |
/// | `fins` | `set_fins {fins: [surfaces (rad).., propellers (rpm)..]}` |
/// | `custom_dynamics_6dof` | error `unsupported_control_scheme` (reserved) |
///
/// ```
/// use oceansim_agents::{action_request, ActionSpace, ControlScheme};
/// let space = ActionSpace::for_scheme(ControlScheme::ExternalVelocity, 6);
/// let req = action_request("target_01", &space, &[0.2, 0.0, -0.1]).unwrap();
/// let v = req.to_value();
/// assert_eq!(v["action"], "set_agent_velocity");
/// assert_eq!(v["data"]["id"], "target_01");
/// ```
pub fn action_request(
    agent_name: &str,
    space: &ActionSpace,
    action: &[f64],
) -> Result<SingleRequest> {
    let a = space.validate(action)?;
    // Motion actions address the main AUV unless told otherwise, so its
    // commands stay what they always were on the wire.
    let agent_id = (agent_name != MAIN_AGENT_NAME).then(|| agent_name.to_owned());
    let act = match space.scheme {
        ControlScheme::Force3d => Action::SetForceWorld(Force {
            force: v3(&a),
            agent_id,
        }),
        ControlScheme::BodyForce3d => Action::SetForceBody(Force {
            force: v3(&a),
            agent_id,
        }),
        ControlScheme::Thrusters => Action::SetThrusters(Thrusters {
            thrusters: ThrusterCommand::Named(space.fields.iter().cloned().zip(a).collect()),
            agent_id,
        }),
        ControlScheme::ExternalVelocity => Action::SetAgentVelocity(SetAgentVelocity {
            id: agent_name.to_owned(),
            velocity: v3(&a),
        }),
        ControlScheme::WaypointPid => Action::SetWaypoint(SetWaypoint {
            world_x: a[0],
            world_z: a[1],
            depth: Some(a[2]),
            agent_id: Some(agent_name.to_owned()),
            control_scheme: Some(ControlScheme::WaypointPid.as_str().to_owned()),
            controller: None,
        }),
        ControlScheme::BodyWrench6dof => Action::SetBodyWrench(BodyWrench {
            wrench: v6(&a),
            agent_id,
        }),
        ControlScheme::BodyVelocity6dof => Action::SetBodyVelocity(BodyVelocity {
            velocity: v6(&a),
            agent_id,
        }),
        ControlScheme::Fins => Action::SetFins(Fins {
            fins: FinCommand::Ordered(a),
            agent_id,
        }),
        ControlScheme::CustomDynamics6dof => {
            return Err(AgentError::Unsupported {
                scheme: space.scheme.to_string(),
                reason: "a reserved protocol extension with no simulator action yet".into(),
            })
        }
    };
    debug_assert_eq!(
        space.scheme.protocol_mapping(),
        ProtocolMapping::Action(act.name())
    );
    Ok(SingleRequest::new(act))
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_protocol::{ErrorCode, Request};
    use serde_json::json;

    fn wire(scheme: ControlScheme, action: &[f64]) -> serde_json::Value {
        let space = ActionSpace::for_scheme(scheme, 6);
        action_request("agent_x", &space, action)
            .unwrap()
            .to_value()
    }

    #[test]
    fn every_dispatchable_scheme_maps_to_its_action() {
        for scheme in ControlScheme::ALL {
            let space = ActionSpace::for_scheme(scheme, 6);
            let res = action_request("agent_x", &space, &space.zero());
            match scheme.protocol_mapping() {
                ProtocolMapping::Action(name) => {
                    let req = res.unwrap();
                    assert_eq!(req.action.name(), name);
                    // What the client sends, the server decodes back.
                    let line = Request::Single(req.clone()).to_line();
                    assert_eq!(
                        Request::decode(line.trim_end()).unwrap(),
                        Request::Single(req)
                    );
                }
                ProtocolMapping::Reserved => {
                    assert_eq!(res.unwrap_err().code(), ErrorCode::UnsupportedControlScheme)
                }
            }
        }
    }

    #[test]
    fn payloads_carry_the_vector_in_field_order() {
        assert_eq!(
            wire(ControlScheme::Force3d, &[1.0, 2.0, 3.0])["data"],
            json!({"force": [1.0, 2.0, 3.0], "agent_id": "agent_x"})
        );
        assert_eq!(
            wire(ControlScheme::BodyForce3d, &[1.0, 0.0, 0.0])["action"],
            "set_force_body"
        );
        let t = wire(ControlScheme::Thrusters, &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
        assert_eq!(t["data"]["thrusters"]["thruster_5"], 0.6);
        let w = wire(ControlScheme::WaypointPid, &[3.0, -4.0, 5.0]);
        assert_eq!(w["data"]["world_x"], 3.0);
        assert_eq!(w["data"]["world_z"], -4.0);
        assert_eq!(w["data"]["depth"], 5.0);
        assert_eq!(w["data"]["control_scheme"], "waypoint_pid");
        assert_eq!(w["data"]["agent_id"], "agent_x");
        let b = wire(
            ControlScheme::BodyWrench6dof,
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        );
        assert_eq!(b["data"]["wrench"], json!([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        assert_eq!(b["data"]["agent_id"], "agent_x");
        let space = ActionSpace::for_scheme(ControlScheme::Force3d, 6);
        let main = action_request(MAIN_AGENT_NAME, &space, &[0.0; 3]).unwrap();
        assert!(main.to_value()["data"].get("agent_id").is_none());
        let v = wire(
            ControlScheme::BodyVelocity6dof,
            &[1.0, 0.0, 0.0, 0.0, 0.0, 0.5],
        );
        assert_eq!(v["data"]["velocity"][5], 0.5);
        let f = wire(ControlScheme::Fins, &[0.1, -0.2, 1200.0]);
        assert_eq!(f["action"], "set_fins");
        assert_eq!(
            f["data"],
            json!({"fins": [0.1, -0.2, 1200.0], "agent_id": "agent_x"})
        );
        let space = ActionSpace::for_scheme(ControlScheme::Fins, 6);
        let main = action_request(MAIN_AGENT_NAME, &space, &[0.0, 0.0, 500.0]).unwrap();
        assert_eq!(main.to_value()["data"], json!({"fins": [0.0, 0.0, 500.0]}));
    }

    #[test]
    fn invalid_vectors_are_refused_before_dispatch() {
        let space = ActionSpace::for_scheme(ControlScheme::Force3d, 6);
        let e = action_request("a", &space, &[1.0]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidActionShape);
        let bounded = space.with_uniform_bounds(-10.0, 10.0).unwrap();
        assert!(action_request("a", &bounded, &[0.0, 11.0, 0.0]).is_err());
    }
}
