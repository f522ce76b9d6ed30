//! The topics a vehicle subscribes to, and each message turned into the
//! TCP protocol's request, so that it takes the same path (validation,
//! saturation, errors, the command log) as a client's.
//!
//! | topic (under the vehicle's namespace) | type | request |
//! |---|---|---|
//! | `cmd_wrench` | `geometry_msgs/msg/WrenchStamped`, frame `""` or the base link | `set_body_wrench` (FLU → Fossen FRD) |
//! | `cmd_vel` | `geometry_msgs/msg/Twist` (base link) | `set_body_velocity` (FLU → FRD) |
//! | `thrusters` | `std_msgs/msg/Float64MultiArray` | `set_thrusters`, profile order |
//! | `fins` | `std_msgs/msg/Float64MultiArray` | `set_fins`: surfaces (rad) then propellers (rpm) |
//! | `goal_pose` | `geometry_msgs/msg/PoseStamped`, frame `world` (ENU) or `""` | `set_waypoint` with the `waypoint_pid` controller |

use crate::error::{BridgeError, Result};
use oceansim_protocol::payload::{
    BodyVelocity, BodyWrench, FinCommand, Fins, SetWaypoint, ThrusterCommand, Thrusters, Vector,
};
use oceansim_protocol::{Action, SingleRequest};
use oceansim_ros2::msg::geometry_msgs::{PoseStamped, Twist, WrenchStamped};
use oceansim_ros2::msg::std_msgs::Float64MultiArray;
use oceansim_ros2::{from_cdr, RosMessage};

/// The largest command payload read (bytes); larger ones are refused
/// before decoding.
pub const MAX_COMMAND_BYTES: usize = 64 << 10;

/// The most values a thruster or fin command may carry.
pub const MAX_ACTUATORS: usize = 64;

/// A command topic of a vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandTopic {
    /// `cmd_wrench`.
    Wrench,
    /// `cmd_vel`.
    Velocity,
    /// `thrusters`.
    Thrusters,
    /// `fins`.
    Fins,
    /// `goal_pose`.
    Goal,
}

impl CommandTopic {
    /// Every command topic.
    pub const ALL: [CommandTopic; 5] = [
        CommandTopic::Wrench,
        CommandTopic::Velocity,
        CommandTopic::Thrusters,
        CommandTopic::Fins,
        CommandTopic::Goal,
    ];

    /// The topic's name under the vehicle's namespace.
    pub fn suffix(self) -> &'static str {
        match self {
            CommandTopic::Wrench => "cmd_wrench",
            CommandTopic::Velocity => "cmd_vel",
            CommandTopic::Thrusters => "thrusters",
            CommandTopic::Fins => "fins",
            CommandTopic::Goal => "goal_pose",
        }
    }

    /// Its ROS type and RIHS01 hash.
    pub fn ros_type(self) -> (&'static str, String) {
        match self {
            CommandTopic::Wrench => (WrenchStamped::TYPE_NAME, WrenchStamped::type_hash()),
            CommandTopic::Velocity => (Twist::TYPE_NAME, Twist::type_hash()),
            CommandTopic::Thrusters | CommandTopic::Fins => {
                (Float64MultiArray::TYPE_NAME, Float64MultiArray::type_hash())
            }
            CommandTopic::Goal => (PoseStamped::TYPE_NAME, PoseStamped::type_hash()),
        }
    }
}

fn bad(msg: impl Into<String>) -> BridgeError {
    BridgeError::BadMessage(msg.into())
}

fn finite(what: &str, v: &[f64]) -> Result<()> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(bad(format!("{what} has a non-finite value")))
    }
}

/// A frame id a body command may name: none, `base_link` or the vehicle's
/// own `<agent>/base_link`.
fn body_frame(agent: &str, frame: &str) -> Result<()> {
    let own = format!("{agent}/base_link");
    if frame.is_empty() || frame == "base_link" || frame == own {
        Ok(())
    } else {
        Err(bad(format!(
            "frame_id {frame:?}: body commands are in \"{own}\" (or \"\")"
        )))
    }
}

/// The protocol request line for a message on `topic` of `agent`.
pub fn request_line(agent: &str, topic: CommandTopic, cdr: &[u8]) -> Result<String> {
    if cdr.len() > MAX_COMMAND_BYTES {
        return Err(bad(format!(
            "{} bytes on {}: more than {MAX_COMMAND_BYTES}",
            cdr.len(),
            topic.suffix()
        )));
    }
    let decode_err = |e: oceansim_ros2::Ros2Error| bad(format!("{}: {e}", topic.suffix()));
    let agent_id = Some(agent.to_owned());
    let action = match topic {
        CommandTopic::Wrench => {
            let m: WrenchStamped = from_cdr(cdr).map_err(decode_err)?;
            body_frame(agent, &m.header.frame_id)?;
            let (f, t) = (m.wrench.force, m.wrench.torque);
            // Base link FLU → Fossen body FRD: y and z change sign.
            let w = [f.x, -f.y, -f.z, t.x, -t.y, -t.z];
            finite("wrench", &w)?;
            Action::SetBodyWrench(BodyWrench {
                wrench: Vector(w),
                agent_id,
            })
        }
        CommandTopic::Velocity => {
            let m: Twist = from_cdr(cdr).map_err(decode_err)?;
            let (l, a) = (m.linear, m.angular);
            let v = [l.x, -l.y, -l.z, a.x, -a.y, -a.z];
            finite("twist", &v)?;
            Action::SetBodyVelocity(BodyVelocity {
                velocity: Vector(v),
                agent_id,
            })
        }
        CommandTopic::Thrusters | CommandTopic::Fins => {
            let m: Float64MultiArray = from_cdr(cdr).map_err(decode_err)?;
            let offset = m.layout.data_offset as usize;
            let values = m.data.get(offset..).unwrap_or_default();
            if values.is_empty() || values.len() > MAX_ACTUATORS {
                return Err(bad(format!(
                    "{}: {} values (1 to {MAX_ACTUATORS} expected)",
                    topic.suffix(),
                    values.len()
                )));
            }
            finite(topic.suffix(), values)?;
            if topic == CommandTopic::Thrusters {
                Action::SetThrusters(Thrusters {
                    thrusters: ThrusterCommand::Ordered(values.to_vec()),
                    agent_id,
                })
            } else {
                Action::SetFins(Fins {
                    fins: FinCommand::Ordered(values.to_vec()),
                    agent_id,
                })
            }
        }
        CommandTopic::Goal => {
            let m: PoseStamped = from_cdr(cdr).map_err(decode_err)?;
            let frame = &m.header.frame_id;
            if !(frame.is_empty() || frame == "world") {
                return Err(bad(format!(
                    "goal_pose frame_id {frame:?}: goals are in \"world\""
                )));
            }
            let p = m.pose.position;
            finite("goal position", &[p.x, p.y, p.z])?;
            // World ENU → the protocol's Godot map plane (X east, Z south)
            // and depth (positive down).
            Action::SetWaypoint(SetWaypoint {
                world_x: p.x,
                world_z: -p.y,
                depth: Some(-p.z),
                agent_id,
                control_scheme: Some("waypoint_pid".into()),
                controller: None,
            })
        }
    };
    Ok(SingleRequest::new(action).to_value().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_ros2::msg::builtin_interfaces::Time;
    use oceansim_ros2::msg::geometry_msgs::{Pose, Quaternion, Vector3, Wrench};
    use oceansim_ros2::msg::std_msgs::{Header, MultiArrayLayout};
    use oceansim_ros2::to_cdr;
    use serde_json::json;
    use serde_json::Value;

    fn v(x: f64, y: f64, z: f64) -> Vector3 {
        Vector3 { x, y, z }
    }

    fn wrench(frame: &str, fx: f64) -> Vec<u8> {
        to_cdr(&WrenchStamped {
            header: Header {
                stamp: Time { sec: 0, nanosec: 0 },
                frame_id: frame.into(),
            },
            wrench: Wrench {
                force: v(fx, 2.0, 3.0),
                torque: v(4.0, 5.0, 6.0),
            },
        })
    }

    #[test]
    fn a_flu_wrench_becomes_an_frd_body_wrench() {
        let line =
            request_line("auv", CommandTopic::Wrench, &wrench("auv/base_link", 1.0)).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["action"], "set_body_wrench");
        assert_eq!(
            v["data"]["wrench"],
            json!([1.0, -2.0, -3.0, 4.0, -5.0, -6.0])
        );
        assert_eq!(v["data"]["agent_id"], "auv");
    }

    #[test]
    fn bad_wrenches_are_refused() {
        let e = request_line("auv", CommandTopic::Wrench, &wrench("world", 1.0)).unwrap_err();
        assert_eq!(e.code(), "bridge_bad_message");
        assert!(request_line("auv", CommandTopic::Wrench, &wrench("", f64::NAN)).is_err());
        let ok = wrench("", 1.0);
        assert!(request_line("auv", CommandTopic::Wrench, &ok[..ok.len() - 3]).is_err());
        assert!(request_line("auv", CommandTopic::Wrench, &[0u8; 3]).is_err());
        let huge = vec![0u8; MAX_COMMAND_BYTES + 1];
        assert!(request_line("auv", CommandTopic::Wrench, &huge).is_err());
    }

    #[test]
    fn arrays_become_actuator_commands() {
        let m = |data: Vec<f64>| {
            to_cdr(&Float64MultiArray {
                layout: MultiArrayLayout::default(),
                data,
            })
        };
        let line = request_line("a", CommandTopic::Fins, &m(vec![0.1, 0.0, 1200.0])).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["action"], "set_fins");
        assert_eq!(v["data"]["fins"], json!([0.1, 0.0, 1200.0]));
        assert!(request_line("a", CommandTopic::Thrusters, &m(vec![])).is_err());
        assert!(request_line("a", CommandTopic::Thrusters, &m(vec![0.0; 65])).is_err());
        assert!(request_line("a", CommandTopic::Thrusters, &m(vec![f64::INFINITY])).is_err());
    }

    #[test]
    fn a_goal_in_enu_becomes_a_waypoint_on_the_map_plane() {
        let goal = to_cdr(&PoseStamped {
            header: Header {
                stamp: Time { sec: 0, nanosec: 0 },
                frame_id: "world".into(),
            },
            pose: Pose {
                position: oceansim_ros2::msg::geometry_msgs::Point {
                    x: 10.0,
                    y: 20.0,
                    z: -5.0,
                },
                orientation: Quaternion {
                    x: 0.0,
                    y: 0.0,
                    z: 0.0,
                    w: 1.0,
                },
            },
        });
        let v: Value =
            serde_json::from_str(&request_line("a", CommandTopic::Goal, &goal).unwrap()).unwrap();
        assert_eq!(v["action"], "set_waypoint");
        assert_eq!(v["data"]["world_x"], 10.0);
        assert_eq!(v["data"]["world_z"], -20.0);
        assert_eq!(v["data"]["depth"], 5.0);
    }
}
