//! `tf2_msgs`: the transforms on `/tf` and `/tf_static`.

use super::geometry_msgs::TransformStamped;
use crate::message::ros_message;

ros_message! {
    /// `tf2_msgs/msg/TFMessage`: a batch of transforms.
    TFMessage = "tf2_msgs/msg/TFMessage" {
        /// The transforms (default empty).
        transforms: Vec<TransformStamped>,
    }
}
