//! RIHS01 type hashes against values published by others, taken from
//! running ROS 2 systems: rmw_zenoh key expressions and liveliness tokens
//! (`<domain>/<topic>/<dds type>/RIHS01_…`) quoted in public docs and code.
//! A mismatch means the type description or its JSON serialization drifted
//! from rosidl_generator_type_description. (`tests/check_cdr.py` also
//! compares every type's hash with the Python `rosbags` implementation.)
//!
//! Sources: String from ros2/rmw_zenoh `docs/design.md` (the demo talker's
//! `chatter` key); TFMessage and PointCloud2 from ZettaScaleLabs'
//! zenoh-ros-examples (rmw_zenoh subscriber tokens); Twist from several
//! unrelated zenoh-pico interop projects; Imu and FluidPressure from an
//! embedded rmw_zenoh endpoint table; TwistStamped, Odometry and the Range
//! prefix from single third-party projects.

use oceansim_ros2::msg::{geometry_msgs, nav_msgs, sensor_msgs, std_msgs, tf2_msgs};
use oceansim_ros2::RosMessage;

#[test]
fn std_msgs_string() {
    assert_eq!(
        std_msgs::String::type_hash(),
        "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
    );
}

#[test]
fn std_msgs_string_description_json() {
    // The JSON the String hash is taken over, as rosidl writes it.
    assert_eq!(
        <std_msgs::String as RosMessage>::SPEC.type_description_json(),
        r#"{"type_description": {"type_name": "std_msgs/msg/String", "fields": [{"name": "data", "type": {"type_id": 17, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}}]}, "referenced_type_descriptions": []}"#
    );
}

#[test]
fn geometry_msgs_twist() {
    assert_eq!(
        geometry_msgs::Twist::type_hash(),
        "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a"
    );
}

#[test]
fn geometry_msgs_twist_stamped() {
    assert_eq!(
        geometry_msgs::TwistStamped::type_hash(),
        "RIHS01_5f0fcd4f81d5d06ad9b4c4c63e3ea51b82d6ae4d0558f1d475229b1121db6f64"
    );
}

#[test]
fn sensor_msgs_imu() {
    assert_eq!(
        sensor_msgs::Imu::type_hash(),
        "RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b"
    );
}

#[test]
fn sensor_msgs_fluid_pressure() {
    assert_eq!(
        sensor_msgs::FluidPressure::type_hash(),
        "RIHS01_22dfb2b145a0bd5a31a1ac3882a1b32148b51d9b2f3bab250290d66f3595bc32"
    );
}

#[test]
fn sensor_msgs_point_cloud2() {
    assert_eq!(
        sensor_msgs::PointCloud2::type_hash(),
        "RIHS01_9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5"
    );
}

#[test]
fn sensor_msgs_range_prefix() {
    // Only the first 8 digits were published.
    assert!(sensor_msgs::Range::type_hash().starts_with("RIHS01_b42b6256"));
}

#[test]
fn tf2_msgs_tf_message() {
    assert_eq!(
        tf2_msgs::TFMessage::type_hash(),
        "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087"
    );
}

#[test]
fn nav_msgs_odometry() {
    assert_eq!(
        nav_msgs::Odometry::type_hash(),
        "RIHS01_3cc97dc7fb7502f8714462c526d369e35b603cfc34d946e3f2eda2766dfec6e0"
    );
}
