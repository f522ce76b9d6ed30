//! `nav_msgs`: odometry.

use super::geometry_msgs::{PoseWithCovariance, TwistWithCovariance};
use super::std_msgs::Header;
use crate::message::ros_message;

ros_message! {
    /// `nav_msgs/msg/Odometry`: a pose estimate in `header.frame_id` and a
    /// velocity in `child_frame_id` (REP-105: `odom` and `base_link`).
    Odometry = "nav_msgs/msg/Odometry" {
        /// Stamp and frame of the pose.
        header: Header,
        /// Frame of the twist (the body frame).
        child_frame_id: String,
        /// Pose of `child_frame_id` in `header.frame_id` (m, rad).
        pose: PoseWithCovariance,
        /// Velocity in `child_frame_id` (m/s, rad/s).
        twist: TwistWithCovariance,
    }
}
