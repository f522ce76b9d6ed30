//! The message types, one module per ROS package, as in ROS 2 Jazzy's
//! `.msg` files: same field names, types and order.

pub mod builtin_interfaces;
pub mod geometry_msgs;
pub mod nav_msgs;
pub mod rosgraph_msgs;
pub mod sensor_msgs;
pub mod std_msgs;
pub mod tf2_msgs;
