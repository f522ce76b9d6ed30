//! `geometry_msgs`: vectors, poses, velocities, transforms and wrenches.
//!
//! Frames follow REP-103 (x forward, y left, z up for bodies; ENU for the
//! world); quaternions are Hamilton, `w` last, and turn vectors of the
//! child frame into the parent frame. Covariances are 6×6 row-major over
//! (x, y, z, rotation about x, y, z).

use super::std_msgs::Header;
use crate::message::ros_message;

ros_message! {
    /// `geometry_msgs/msg/Vector3`: a free vector.
    Vector3 = "geometry_msgs/msg/Vector3" {
        /// x component (default 0).
        x: f64,
        /// y component (default 0).
        y: f64,
        /// z component (default 0).
        z: f64,
    }
}

ros_message! {
    /// `geometry_msgs/msg/Point`: a position.
    Point = "geometry_msgs/msg/Point" {
        /// x (m, default 0).
        x: f64,
        /// y (m, default 0).
        y: f64,
        /// z (m, default 0).
        z: f64,
    }
}

ros_message! {
    /// `geometry_msgs/msg/Quaternion`: an orientation; the default is the
    /// identity (`w = 1`), as the `.msg` file declares.
    Quaternion = "geometry_msgs/msg/Quaternion" {
        /// x (default 0).
        x: f64 = "0" (0.0),
        /// y (default 0).
        y: f64 = "0" (0.0),
        /// z (default 0).
        z: f64 = "0" (0.0),
        /// w, the scalar part (default 1).
        w: f64 = "1" (1.0),
    }
}

ros_message! {
    /// `geometry_msgs/msg/Pose`: a position and an orientation.
    Pose = "geometry_msgs/msg/Pose" {
        /// Position (m).
        position: Point,
        /// Orientation (default identity).
        orientation: Quaternion,
    }
}

ros_message! {
    /// `geometry_msgs/msg/PoseStamped`: a pose with stamp and frame.
    PoseStamped = "geometry_msgs/msg/PoseStamped" {
        /// Stamp, and the frame the pose is in.
        header: Header,
        /// The pose.
        pose: Pose,
    }
}

ros_message! {
    /// `geometry_msgs/msg/PoseWithCovariance`: a pose with its uncertainty.
    PoseWithCovariance = "geometry_msgs/msg/PoseWithCovariance" {
        /// The pose.
        pose: Pose,
        /// 6×6 row-major covariance (m², rad²; default 0).
        covariance: [f64; 36],
    }
}

ros_message! {
    /// `geometry_msgs/msg/Twist`: linear and angular velocity.
    Twist = "geometry_msgs/msg/Twist" {
        /// Linear velocity (m/s).
        linear: Vector3,
        /// Angular velocity (rad/s).
        angular: Vector3,
    }
}

ros_message! {
    /// `geometry_msgs/msg/TwistStamped`: a twist with stamp and frame.
    TwistStamped = "geometry_msgs/msg/TwistStamped" {
        /// Stamp, and the frame the twist is in.
        header: Header,
        /// The twist.
        twist: Twist,
    }
}

ros_message! {
    /// `geometry_msgs/msg/TwistWithCovariance`: a twist with its uncertainty.
    TwistWithCovariance = "geometry_msgs/msg/TwistWithCovariance" {
        /// The twist.
        twist: Twist,
        /// 6×6 row-major covariance ((m/s)², (rad/s)²; default 0).
        covariance: [f64; 36],
    }
}

ros_message! {
    /// `geometry_msgs/msg/TwistWithCovarianceStamped`: the same, stamped.
    TwistWithCovarianceStamped = "geometry_msgs/msg/TwistWithCovarianceStamped" {
        /// Stamp, and the frame the twist is in.
        header: Header,
        /// The twist and its covariance.
        twist: TwistWithCovariance,
    }
}

ros_message! {
    /// `geometry_msgs/msg/Transform`: the child frame's pose in its parent.
    Transform = "geometry_msgs/msg/Transform" {
        /// Child origin in the parent frame (m).
        translation: Vector3,
        /// Child orientation in the parent frame.
        rotation: Quaternion,
    }
}

ros_message! {
    /// `geometry_msgs/msg/TransformStamped`: one tf edge,
    /// `header.frame_id` → `child_frame_id`.
    TransformStamped = "geometry_msgs/msg/TransformStamped" {
        /// Stamp, and the parent frame.
        header: Header,
        /// The child frame.
        child_frame_id: String,
        /// The child's pose in the parent.
        transform: Transform,
    }
}

ros_message! {
    /// `geometry_msgs/msg/Wrench`: force and torque.
    Wrench = "geometry_msgs/msg/Wrench" {
        /// Force (N).
        force: Vector3,
        /// Torque (N·m).
        torque: Vector3,
    }
}

ros_message! {
    /// `geometry_msgs/msg/WrenchStamped`: a wrench with stamp and frame.
    WrenchStamped = "geometry_msgs/msg/WrenchStamped" {
        /// Stamp, and the frame the wrench is in.
        header: Header,
        /// The wrench.
        wrench: Wrench,
    }
}
