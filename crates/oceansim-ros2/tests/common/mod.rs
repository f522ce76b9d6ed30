//! One instance of every message, with awkward values: negative numbers,
//! float32 values that are not exact in decimal, odd-length strings before
//! 8-byte fields, empty and non-empty sequences, non-ASCII text.

use oceansim_ros2::msg::builtin_interfaces::Time;
use oceansim_ros2::msg::geometry_msgs::*;
use oceansim_ros2::msg::nav_msgs::Odometry;
use oceansim_ros2::msg::rosgraph_msgs::Clock;
use oceansim_ros2::msg::sensor_msgs::*;
use oceansim_ros2::msg::std_msgs::{self, Header};
use oceansim_ros2::msg::tf2_msgs::TFMessage;
use oceansim_ros2::{from_cdr, to_cdr, to_json, Ros2Error, RosMessage};

/// One encoded instance and what should be read back from it.
#[allow(dead_code)] // each test binary uses a different part
pub struct Sample {
    pub type_name: &'static str,
    pub cdr: Vec<u8>,
    pub json: String,
    pub definition: String,
    pub hash: String,
    /// Decodes a payload as this type (for truncation and fuzz tests).
    pub decode: fn(&[u8]) -> Result<(), Ros2Error>,
}

fn decode_as<T: RosMessage>(bytes: &[u8]) -> Result<(), Ros2Error> {
    from_cdr::<T>(bytes).map(|_| ())
}

/// Encodes `msg` and checks that it decodes back to itself.
fn sample<T: RosMessage>(msg: T) -> Sample {
    let cdr = to_cdr(&msg);
    let back: T = from_cdr(&cdr).unwrap_or_else(|e| panic!("{}: {e}", T::TYPE_NAME));
    assert_eq!(back, msg, "{} round trip", T::TYPE_NAME);
    Sample {
        type_name: T::TYPE_NAME,
        json: to_json(&msg),
        cdr,
        definition: T::definition(),
        hash: T::type_hash(),
        decode: decode_as::<T>,
    }
}

fn header(sec: i32, nanosec: u32, frame_id: &str) -> Header {
    Header {
        stamp: Time { sec, nanosec },
        frame_id: frame_id.to_owned(),
    }
}

fn cov<const N: usize>(scale: f64) -> [f64; N] {
    std::array::from_fn(|i| scale * (i as f64 + 0.25))
}

fn pose() -> Pose {
    Pose {
        position: Point {
            x: 1.5,
            y: -2.25,
            z: -30.125,
        },
        orientation: Quaternion {
            x: 0.0,
            y: 0.0,
            z: 0.3826834323650898,
            w: 0.9238795325112867,
        },
    }
}

fn twist() -> Twist {
    Twist {
        linear: Vector3 {
            x: 0.7,
            y: -0.05,
            z: 0.1,
        },
        angular: Vector3 {
            x: 1e-300,
            y: -0.0,
            z: 0.2,
        },
    }
}

fn transform(child: &str, x: f64) -> TransformStamped {
    TransformStamped {
        header: header(100, 5, "odom"),
        child_frame_id: child.to_owned(),
        transform: Transform {
            translation: Vector3 { x, y: 2.0, z: -3.0 },
            rotation: Quaternion::default(),
        },
    }
}

fn point_field(name: &str, offset: u32, datatype: u8) -> PointField {
    PointField {
        name: name.to_owned(),
        offset,
        datatype,
        count: 1,
    }
}

pub fn all() -> Vec<Sample> {
    vec![
        sample(Time {
            sec: -3,
            nanosec: 999_999_999,
        }),
        sample(header(1_700_000_000, 123_456_789, "base_link")),
        sample(std_msgs::String {
            data: "héllo, ROS 2 \"quoted\"".into(),
        }),
        sample(std_msgs::Float64MultiArray {
            layout: std_msgs::MultiArrayLayout {
                dim: vec![std_msgs::MultiArrayDimension {
                    label: "thrusters".into(),
                    size: 3,
                    stride: 3,
                }],
                data_offset: 0,
            },
            data: vec![0.5, -1.0, 1e-9],
        }),
        sample(Vector3 {
            x: 1.0,
            y: -2.0,
            z: 0.1,
        }),
        sample(Point {
            x: f64::MAX,
            y: f64::MIN_POSITIVE,
            z: -0.0,
        }),
        sample(Quaternion {
            x: 0.1,
            y: 0.2,
            z: 0.3,
            w: 0.9,
        }),
        sample(pose()),
        sample(PoseStamped {
            header: header(1, 2, "map"),
            pose: pose(),
        }),
        sample(PoseWithCovariance {
            pose: pose(),
            covariance: cov(0.01),
        }),
        sample(twist()),
        sample(TwistStamped {
            header: header(7, 0, "b"),
            twist: twist(),
        }),
        sample(TwistWithCovariance {
            twist: twist(),
            covariance: cov(-1.0),
        }),
        sample(TwistWithCovarianceStamped {
            header: header(7, 8, "base_link_frd"),
            twist: TwistWithCovariance {
                twist: twist(),
                covariance: cov(2.0),
            },
        }),
        sample(Transform {
            translation: Vector3 {
                x: 1.0,
                y: 2.0,
                z: 3.0,
            },
            rotation: Quaternion {
                x: 0.5,
                y: 0.5,
                z: 0.5,
                w: 0.5,
            },
        }),
        sample(transform("auv/base_link", 4.0)),
        sample(Wrench {
            force: Vector3 {
                x: 10.0,
                y: -5.5,
                z: 0.0,
            },
            torque: Vector3 {
                x: 0.0,
                y: 0.0,
                z: -1.25,
            },
        }),
        sample(WrenchStamped {
            header: header(3, 4, "thruster_0"),
            wrench: Wrench {
                force: Vector3 {
                    x: 12.5,
                    y: 0.0,
                    z: 0.0,
                },
                torque: Vector3 {
                    x: 0.0,
                    y: 0.125,
                    z: 0.0,
                },
            },
        }),
        sample(TFMessage {
            transforms: vec![transform("a", 1.0), transform("camera_optical", -1.0)],
        }),
        sample(Clock {
            clock: Time {
                sec: 42,
                nanosec: 500_000_000,
            },
        }),
        sample(Odometry {
            header: header(10, 11, "odom"),
            child_frame_id: "base_link".into(),
            pose: PoseWithCovariance {
                pose: pose(),
                covariance: cov(0.5),
            },
            twist: TwistWithCovariance {
                twist: twist(),
                covariance: cov(0.25),
            },
        }),
        sample(Imu {
            header: header(5, 6, "imu_link"),
            orientation: Quaternion {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                w: 1.0,
            },
            orientation_covariance: cov(1e-4),
            angular_velocity: Vector3 {
                x: 0.01,
                y: -0.02,
                z: 0.03,
            },
            angular_velocity_covariance: cov(1e-6),
            linear_acceleration: Vector3 {
                x: 0.1,
                y: 0.2,
                z: 9.80665,
            },
            linear_acceleration_covariance: [-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        }),
        sample(FluidPressure {
            header: header(9, 10, "pressure"),
            fluid_pressure: 201_325.0,
            variance: 4.0,
        }),
        sample(Image {
            header: header(11, 12, "camera_optical"),
            height: 2,
            width: 3,
            encoding: "rgb8".into(),
            is_bigendian: 0,
            step: 9,
            data: (0..18).collect(),
        }),
        sample(CompressedImage {
            header: header(13, 14, "cam"),
            format: "jpeg".into(),
            data: vec![0xFF, 0xD8, 0xFF, 0xD9, 0x00],
        }),
        sample(RegionOfInterest {
            x_offset: 1,
            y_offset: 2,
            height: 3,
            width: 4,
            do_rectify: true,
        }),
        sample(CameraInfo {
            header: header(15, 16, "camera_optical"),
            height: 480,
            width: 640,
            distortion_model: "plumb_bob".into(),
            d: vec![-0.1, 0.01, 0.0, 0.0, 0.001],
            k: [500.0, 0.0, 320.0, 0.0, 500.0, 240.0, 0.0, 0.0, 1.0],
            r: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            p: [
                500.0, 0.0, 320.0, 0.0, 0.0, 500.0, 240.0, 0.0, 0.0, 0.0, 1.0, 0.0,
            ],
            binning_x: 0,
            binning_y: 1,
            roi: RegionOfInterest {
                x_offset: 0,
                y_offset: 0,
                height: 0,
                width: 0,
                do_rectify: false,
            },
        }),
        sample(point_field("intensity", 12, PointField::FLOAT32)),
        sample(PointCloud2 {
            header: header(17, 18, "sonar"),
            height: 1,
            width: 2,
            fields: vec![
                point_field("x", 0, PointField::FLOAT32),
                point_field("y", 4, PointField::FLOAT32),
                point_field("z", 8, PointField::FLOAT32),
                point_field("ring", 12, PointField::UINT16),
            ],
            is_bigendian: false,
            point_step: 14,
            row_step: 28,
            data: (0..28).map(|i| (i * 7) as u8).collect(),
            is_dense: true,
        }),
        sample(LaserScan {
            header: header(19, 20, "laser"),
            angle_min: -1.5,
            angle_max: 1.5,
            angle_increment: 0.1,
            time_increment: 1e-4,
            scan_time: 0.1,
            range_min: 0.05,
            range_max: 30.0,
            ranges: vec![1.0, 2.5, f32::INFINITY, 0.3],
            intensities: vec![],
        }),
        sample(Range {
            header: header(21, 22, "altimeter"),
            radiation_type: Range::ULTRASOUND,
            field_of_view: 0.26,
            min_range: 0.3,
            max_range: 100.0,
            range: 12.7,
            variance: 0.01,
        }),
    ]
}
