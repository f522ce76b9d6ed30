//! `rosgraph_msgs`: the simulated clock on `/clock`.

use super::builtin_interfaces::Time;
use crate::message::ros_message;

ros_message! {
    /// `rosgraph_msgs/msg/Clock`: the current simulated time, which nodes
    /// with `use_sim_time` follow.
    Clock = "rosgraph_msgs/msg/Clock" {
        /// The simulated time (default 0).
        clock: Time,
    }
}
