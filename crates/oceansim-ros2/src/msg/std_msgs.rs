//! `std_msgs`: the header of stamped messages, a string, and the
//! double multi-array (with its layout) that command topics carry.

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

ros_message! {
    /// `std_msgs/msg/MultiArrayDimension`: one dimension of a multi-array.
    MultiArrayDimension = "std_msgs/msg/MultiArrayDimension" {
        /// Label of the dimension (default empty).
        label: std::string::String,
        /// Size of the dimension, in elements (default 0).
        size: u32,
        /// Stride of the dimension, in elements (default 0).
        stride: u32,
    }
}

ros_message! {
    /// `std_msgs/msg/MultiArrayLayout`: how a multi-array's data is laid
    /// out.
    MultiArrayLayout = "std_msgs/msg/MultiArrayLayout" {
        /// The dimensions, outermost first (default empty).
        dim: Vec<MultiArrayDimension>,
        /// Elements of padding before the data (default 0).
        data_offset: u32,
    }
}

ros_message! {
    /// `std_msgs/msg/Float64MultiArray`: a flat array of doubles with its
    /// layout (the bridge's thruster and fin commands).
    Float64MultiArray = "std_msgs/msg/Float64MultiArray" {
        /// The layout (default: no dimensions, offset 0).
        layout: MultiArrayLayout,
        /// The values (default empty).
        data: Vec<f64>,
    }
}
