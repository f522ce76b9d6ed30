//! What the client-side controllers of [`super::Auv`] add to a reply (its
//! `control` field) and what a Gym-style step reports beside the state:
//! typed, serialised once where they join the reply.

use crate::transport::Reply;
use oceansim_protocol::reply::ControlReport;
use serde::Serialize;
use serde_json::Value;

/// `control` of [`super::Auv::hold_depth_step`]'s reply.
#[derive(Debug, Clone, Serialize)]
pub(super) struct DepthReport {
    /// Always `depth_pd`.
    pub mode: &'static str,
    /// Depth held (m, positive down).
    pub target: f64,
    /// Depth − target (m, positive when too deep).
    pub error: f64,
    /// Depth rate (m/s, positive down).
    pub rate: f64,
    /// The world-frame force applied (N).
    pub force: [f64; 3],
    /// Whether the vertical force was clamped.
    pub saturation: bool,
}

/// `control` of [`super::Auv::hold_heading_step`]'s reply.
#[derive(Debug, Clone, Serialize)]
pub(super) struct HeadingReport {
    /// Always `heading_pd`.
    pub mode: &'static str,
    /// Heading held (deg).
    pub target: f64,
    /// Heading error wrapped to (−180, 180] (deg).
    pub error: f64,
    /// Yaw rate (rad/s).
    pub yaw_rate: f64,
    /// Yaw torque applied (N·m).
    pub torque: f64,
    /// Whether the torque was clamped.
    pub saturation: bool,
}

/// `control` of [`super::Auv::track_waypoint_step`]'s reply.
#[derive(Debug, Clone, Serialize)]
pub(super) struct WaypointReport {
    /// Always `waypoint_pid`.
    pub mode: &'static str,
    /// Godot X, Godot Z and depth of the target (m).
    pub target: [f64; 3],
    /// User-frame error x, y and up (m).
    pub error: [f64; 3],
    /// The error's integral (m·s).
    pub integral: [f64; 3],
    /// Which axes were clamped.
    pub saturation: [bool; 3],
    /// The world-frame force applied (N).
    pub force: [f64; 3],
    /// Time since the tracker's last step (s).
    pub dt: f64,
    /// Horizontal distance to the target (m).
    pub distance: f64,
}

/// [`super::StepResult::info`].
#[derive(Debug, Clone, Serialize)]
pub(super) struct StepInfo<'a> {
    /// Simulation time after the step (s).
    pub sim_time: f64,
    /// Contacts after the step.
    pub contacts: &'a [oceansim_protocol::reply::Contact],
    /// Whether the command was clipped.
    pub command_saturated: bool,
    /// The reply's control report.
    pub control: &'a ControlReport,
}

/// `report` as a JSON value (plain data: it cannot fail to serialise).
pub(super) fn to_value<T: serde::Serialize>(report: &T) -> Value {
    serde_json::to_value(report).unwrap_or(Value::Null)
}

/// The reply with a client-side controller's `control` report.
pub(super) fn annotate<T: serde::Serialize>(mut reply: Reply, report: &T) -> Reply {
    if let Some(obj) = reply.0.as_object_mut() {
        obj.insert("control".into(), to_value(report));
    }
    reply
}
