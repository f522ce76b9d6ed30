//! `std_msgs`: the header of stamped messages, and a string.

use super::builtin_interfaces::Time;
use crate::message::ros_message;

ros_message! {
    /// `std_msgs/msg/Header`: when and in which frame data was taken.
    Header = "std_msgs/msg/Header" {
        /// Acquisition time (default 0).
        stamp: Time,
        /// The coordinate frame the data is in (tf frame id, default empty).
        frame_id: std::string::String,
    }
}

ros_message! {
    /// `std_msgs/msg/String`: one string.
    String = "std_msgs/msg/String" {
        /// The text (default empty).
        data: std::string::String,
    }
}
