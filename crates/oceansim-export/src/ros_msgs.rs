//! Recorded frames and sensor samples as ROS 2 messages (CDR), for the
//! rosbag2 export: what each topic carries, in REP 103 frames.
//!
//! | sample | topic (under `/<agent>/<sensor>`) | type | frame |
//! |---|---|---|---|
//! | depth | `pressure` | `sensor_msgs/msg/FluidPressure` (Pa, absolute) | sensor |
//! | IMU | (the sensor's own name) | `sensor_msgs/msg/Imu` | sensor (FLU) |
//! | DVL | (own name) | `geometry_msgs/msg/TwistWithCovarianceStamped`, while locked | sensor (FLU) |
//! | DVL | `altitude` | `sensor_msgs/msg/Range` (+inf unlocked) | sensor |
//! | camera, RGB-D | `image_raw`, `camera_info`, `depth/image_raw` | `Image` (`rgb8`, `16UC1` mm), `CameraInfo` | optical |
//! | camera | `segmentation/image_raw`, `segmentation/image_color` | `Image` (`mono8` class ids; `rgb8` through the palette) | optical |
//! | RGB-D, 3-D lidar, multibeam | `points` | `sensor_msgs/msg/PointCloud2` | sensor (FLU) |
//! | 2-D lidar | `scan` | `sensor_msgs/msg/LaserScan` (counter-clockwise) | sensor (FLU) |
//! | imaging sonar, side-scan | `image` | `Image` (`mono8`) | sensor |
//!
//! Readings come in the sensor's FRD axes (IMU and DVL in the body's FRD
//! axes at the mount); here they are turned into the sensor's FLU frame,
//! which `/tf_static` places on its base link.

use nalgebra::{Matrix3, Quaternion as NQuat, Rotation3, UnitQuaternion, Vector3};
use oceansim_record::AgentFrame;
use oceansim_ros2::msg::builtin_interfaces::Time;
use oceansim_ros2::msg::geometry_msgs as geo;
use oceansim_ros2::msg::nav_msgs::Odometry;
use oceansim_ros2::msg::sensor_msgs as sm;
use oceansim_ros2::msg::std_msgs::Header;
use oceansim_ros2::{to_cdr, RosMessage};
use oceansim_sensors::frame_tree::SensorFrame;
use oceansim_sensors::image::{RawImage, RawKind};
use oceansim_sensors::{Reading, SensorSample};

/// A message's type, as a bag's schema and metadata name it.
#[derive(Debug, Clone, Copy)]
pub struct RosType {
    /// `pkg/msg/Type`.
    pub name: &'static str,
    /// The `ros2msg` definition text.
    pub definition: fn() -> String,
    /// The RIHS01 type hash.
    pub hash: fn() -> String,
}

impl RosType {
    /// The type of `M`.
    pub fn of<M: RosMessage>() -> RosType {
        RosType {
            name: M::TYPE_NAME,
            definition: M::definition,
            hash: M::type_hash,
        }
    }
}

/// One message for a topic: its type and CDR bytes.
#[derive(Debug, Clone)]
pub struct RosOut {
    /// Topic suffix under the sensor's namespace (empty: the namespace
    /// itself).
    pub suffix: &'static str,
    /// Its type.
    pub ty: RosType,
    /// CDR payload (with its encapsulation header).
    pub cdr: Vec<u8>,
}

fn out<M: RosMessage>(suffix: &'static str, m: &M) -> RosOut {
    RosOut {
        suffix,
        ty: RosType::of::<M>(),
        cdr: to_cdr(m),
    }
}

/// A stamp `ns` nanoseconds after the Unix epoch.
pub fn time(ns: u64) -> Time {
    Time {
        sec: i32::try_from(ns / 1_000_000_000).unwrap_or(i32::MAX),
        nanosec: (ns % 1_000_000_000) as u32,
    }
}

fn header(ns: u64, frame: String) -> Header {
    Header {
        stamp: time(ns),
        frame_id: frame,
    }
}

pub(crate) fn v3(v: Vector3<f64>) -> geo::Vector3 {
    geo::Vector3 {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

pub(crate) fn quat(q: UnitQuaternion<f64>) -> geo::Quaternion {
    geo::Quaternion {
        x: q.i,
        y: q.j,
        z: q.k,
        w: q.w,
    }
}

/// `[x, y, z, w]` as a rotation.
pub fn rot_xyzw(q: [f64; 4]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(NQuat::new(q[3], q[0], q[1], q[2]))
}

/// FRD ↔ FLU.
fn flip(v: [f64; 3]) -> Vector3<f64> {
    Vector3::new(v[0], -v[1], -v[2])
}

/// Base link in world (ENU), from Fossen's body → NED attitude.
fn flu_in_enu(body_to_ned_xyzw: [f64; 4]) -> UnitQuaternion<f64> {
    let enu_ned = Matrix3::new(0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0);
    let frd_flu = Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, -1.0));
    let r = enu_ned * rot_xyzw(body_to_ned_xyzw).to_rotation_matrix().matrix() * frd_flu;
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r))
}

/// An IMU reading in its sensor's FLU frame: the frame's attitude in the
/// world (ENU), the body rates and the specific force (`mount`: sensor FLU
/// → base link FLU).
pub(crate) fn imu_in_sensor(
    m: &oceansim_sensors::ImuReading,
    mount: UnitQuaternion<f64>,
) -> (UnitQuaternion<f64>, Vector3<f64>, Vector3<f64>) {
    (
        flu_in_enu(m.orientation_quat_xyzw) * mount,
        body_to_sensor(m.angular_velocity, mount),
        body_to_sensor(m.linear_acceleration, mount),
    )
}

/// A vector in the body's FRD axes (as the IMU and DVL give them) in the
/// sensor's FLU axes.
pub(crate) fn body_to_sensor(v: [f64; 3], mount: UnitQuaternion<f64>) -> Vector3<f64> {
    mount.inverse() * flip(v)
}

/// A planar scan turned counter-clockwise, as ROS and Foxglove want it:
/// the readings' FRD angles turn toward starboard, so they are negated
/// and the beams reversed to keep the angles increasing. Returns the
/// first and last angle (rad) and the ranges and intensities in order.
pub(crate) fn scan_ccw(l: &oceansim_sensors::Lidar2dReading) -> (f64, f64, Vec<f64>, Vec<f64>) {
    let n = l.ranges.len();
    let last = l.angle_min_rad + l.angle_increment_rad * n.saturating_sub(1) as f64;
    (
        -last,
        -l.angle_min_rad,
        l.ranges.iter().rev().copied().collect(),
        l.intensities.iter().rev().copied().collect(),
    )
}

/// A multibeam ping's soundings in the sensor's FLU frame, `[x, y, z,
/// intensity in 0..1]`, one per beam that found the bottom: beam `i` looks
/// at `b_i` across track about the sensor's +z (FRD).
pub(crate) fn soundings(m: &oceansim_sensors::MultibeamReading) -> Vec<[f64; 4]> {
    let n = m.ranges.len().max(1) as f64;
    m.ranges
        .iter()
        .zip(&m.intensity)
        .enumerate()
        .filter_map(|(i, (r, s))| {
            let r = (*r)?;
            let b = (m.swath_deg * ((i as f64 + 0.5) / n - 0.5)).to_radians();
            let q = flip([0.0, r * b.sin(), r * b.cos()]);
            Some([q.x, q.y, q.z, f64::from(*s) / 255.0])
        })
        .collect()
}

/// `nav_msgs/msg/Odometry` of an agent: its base link in the world frame,
/// the twist in the base link (ground truth: zero covariance).
pub fn odometry(a: &AgentFrame, ns: u64, world: &str, base: String) -> RosOut {
    let [u, v, w, p, q, r] = a.body_velocity;
    let msg = Odometry {
        header: header(ns, world.to_owned()),
        child_frame_id: base,
        pose: geo::PoseWithCovariance {
            pose: geo::Pose {
                position: geo::Point {
                    x: a.position[0],
                    y: a.position[1],
                    z: a.position[2],
                },
                orientation: quat(rot_xyzw(a.quaternion_xyzw)),
            },
            covariance: [0.0; 36],
        },
        twist: geo::TwistWithCovariance {
            twist: geo::Twist {
                linear: v3(flip([u, v, w])),
                angular: v3(flip([p, q, r])),
            },
            covariance: [0.0; 36],
        },
    };
    out("odom", &msg)
}

/// `sensor_msgs/msg/PointField` FLOAT32 / UINT32.
const FLOAT32: u8 = 7;
const UINT32: u8 = 6;

fn cloud(ns: u64, frame: String, points: &[[f32; 4]], last: (&str, u8)) -> sm::PointCloud2 {
    let field = |name: &str, offset: u32, datatype: u8| sm::PointField {
        name: name.to_owned(),
        offset,
        datatype,
        count: 1,
    };
    let data: Vec<u8> = points
        .iter()
        .flat_map(|p| p.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    sm::PointCloud2 {
        header: header(ns, frame),
        height: 1,
        width: points.len() as u32,
        fields: vec![
            field("x", 0, FLOAT32),
            field("y", 4, FLOAT32),
            field("z", 8, FLOAT32),
            field(last.0, 12, last.1),
        ],
        is_bigendian: false,
        point_step: 16,
        row_step: 16 * points.len() as u32,
        data,
        is_dense: true,
    }
}

/// A recorded image as `sensor_msgs/msg/Image` (16-bit samples little
/// endian, as `is_bigendian = 0` says); `None` if it does not decode.
fn image(ns: u64, frame: String, png_base64: &str) -> Option<sm::Image> {
    let img = RawImage::from_png_base64(png_base64).ok()?;
    let (encoding, per) = match img.kind {
        RawKind::Gray8 => ("mono8", 1),
        RawKind::Rgb8 => ("rgb8", 3),
        RawKind::Gray16Le => ("16UC1", 2),
    };
    Some(sm::Image {
        header: header(ns, frame),
        height: img.height,
        width: img.width,
        encoding: encoding.to_owned(),
        is_bigendian: 0,
        step: per * img.width,
        data: img.data,
    })
}

fn camera_info(
    ns: u64,
    frame: String,
    k: &oceansim_sensors::Intrinsics,
    width: usize,
    height: usize,
) -> sm::CameraInfo {
    sm::CameraInfo {
        header: header(ns, frame),
        height: height as u32,
        width: width as u32,
        distortion_model: "plumb_bob".into(),
        d: vec![0.0; 5],
        k: [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0],
        r: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        p: [
            k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0,
        ],
        ..Default::default()
    }
}

/// The messages of one sensor sample stamped `ns`, on the sensor `f`.
pub fn sensor_messages(f: &SensorFrame, sample: &SensorSample, ns: u64) -> Vec<RosOut> {
    let frame = f.frame_id();
    // Sensor FLU → base FLU: body-axis vectors are turned back by it.
    let mount = rot_xyzw(f.rotation_xyzw);
    let mut msgs = Vec::new();
    let push_image = |msgs: &mut Vec<RosOut>, suffix, frame: String, png: &str| {
        if let Some(m) = image(ns, frame, png) {
            msgs.push(out(suffix, &m));
        }
    };
    match &sample.reading {
        Reading::Depth(d) => msgs.push(out(
            "pressure",
            &sm::FluidPressure {
                header: header(ns, frame),
                fluid_pressure: d.pressure_pa,
                variance: 0.0,
            },
        )),
        Reading::Imu(m) => {
            let (attitude, rates, force) = imu_in_sensor(m, mount);
            msgs.push(out(
                "",
                &sm::Imu {
                    header: header(ns, frame),
                    orientation: quat(attitude),
                    orientation_covariance: [0.0; 9],
                    angular_velocity: v3(rates),
                    angular_velocity_covariance: [0.0; 9],
                    linear_acceleration: v3(force),
                    linear_acceleration_covariance: [0.0; 9],
                },
            ));
        }
        Reading::Dvl(d) => {
            if let Some(v) = d.velocity_body {
                let mut cov = [0.0; 36];
                // Angular rates are not measured: unknown (-1 by ROS's
                // convention for a covariance's first element).
                cov[21] = -1.0;
                msgs.push(out(
                    "",
                    &geo::TwistWithCovarianceStamped {
                        header: header(ns, frame.clone()),
                        twist: geo::TwistWithCovariance {
                            twist: geo::Twist {
                                linear: v3(body_to_sensor(v, mount)),
                                angular: geo::Vector3::default(),
                            },
                            covariance: cov,
                        },
                    },
                ));
            }
            msgs.push(out(
                "altitude",
                &sm::Range {
                    header: header(ns, frame),
                    radiation_type: sm::Range::ULTRASOUND,
                    field_of_view: (2.0 * oceansim_sensors::DVL_BEAM_ANGLE_DEG).to_radians() as f32,
                    min_range: 0.0,
                    max_range: oceansim_sensors::DVL_MAX_RANGE_M as f32,
                    range: d.altitude_m.map_or(f32::INFINITY, |a| a as f32),
                    variance: 0.0,
                },
            ));
        }
        Reading::Camera(c) => {
            let optical = f.optical_id();
            push_image(&mut msgs, "image_raw", optical.clone(), &c.rgb_png_base64);
            push_image(
                &mut msgs,
                "depth/image_raw",
                optical.clone(),
                &c.depth_png_base64,
            );
            if let Some(ids) = image(ns, optical.clone(), &c.segmentation_png_base64) {
                // The ids' header, not a copy of their pixels.
                let colour = sm::Image {
                    header: ids.header.clone(),
                    height: ids.height,
                    width: ids.width,
                    encoding: "rgb8".into(),
                    is_bigendian: 0,
                    step: 3 * ids.width,
                    data: oceansim_sensors::colour_segmentation(&ids.data),
                };
                msgs.push(out("segmentation/image_raw", &ids));
                msgs.push(out("segmentation/image_color", &colour));
            }
            let info = camera_info(ns, optical, &c.intrinsics, c.width, c.height);
            msgs.push(out("camera_info", &info));
        }
        Reading::Rgbd(r) => {
            let optical = f.optical_id();
            push_image(&mut msgs, "image_raw", optical.clone(), &r.rgb_png_base64);
            push_image(
                &mut msgs,
                "depth/image_raw",
                optical.clone(),
                &r.depth_png_base64,
            );
            let info = camera_info(ns, optical, &r.intrinsics, r.width, r.height);
            msgs.push(out("camera_info", &info));
            // PCL's packed rgb: 0x00RRGGBB in a 32-bit field.
            let pts: Vec<[f32; 4]> = r
                .points
                .iter()
                .zip(&r.colors_rgb)
                .map(|(p, c)| {
                    let q = flip(*p);
                    let rgb = u32::from_be_bytes([0, c[0], c[1], c[2]]);
                    [q.x as f32, q.y as f32, q.z as f32, f32::from_bits(rgb)]
                })
                .collect();
            msgs.push(out("points", &cloud(ns, frame, &pts, ("rgb", UINT32))));
        }
        Reading::Lidar2d(l) => {
            let (angle_min, angle_max, ranges, intensities) = scan_ccw(l);
            // No return: +inf, as LaserScan has it.
            let no_return = |r: f64| {
                if r >= l.range_max_m {
                    f32::INFINITY
                } else {
                    r as f32
                }
            };
            msgs.push(out(
                "scan",
                &sm::LaserScan {
                    header: header(ns, frame),
                    angle_min: angle_min as f32,
                    angle_max: angle_max as f32,
                    angle_increment: l.angle_increment_rad as f32,
                    time_increment: 0.0,
                    scan_time: 0.0,
                    range_min: l.range_min_m as f32,
                    range_max: l.range_max_m as f32,
                    ranges: ranges.into_iter().map(no_return).collect(),
                    intensities: intensities.into_iter().map(|i| i as f32).collect(),
                },
            ));
        }
        Reading::Lidar3d(l) => {
            let pts: Vec<[f32; 4]> = l
                .points
                .iter()
                .zip(&l.intensities)
                .map(|(p, i)| {
                    let q = flip(*p);
                    [q.x as f32, q.y as f32, q.z as f32, *i as f32]
                })
                .collect();
            msgs.push(out(
                "points",
                &cloud(ns, frame, &pts, ("intensity", FLOAT32)),
            ));
        }
        Reading::Multibeam(m) => {
            let pts: Vec<[f32; 4]> = soundings(m).iter().map(|p| p.map(|x| x as f32)).collect();
            msgs.push(out(
                "points",
                &cloud(ns, frame, &pts, ("intensity", FLOAT32)),
            ));
        }
        Reading::ImagingSonar(s) => {
            push_image(&mut msgs, "image", frame, &s.intensity_png_base64);
        }
        Reading::SideScan(s) => {
            // One ping per row: port from far to near, then starboard from
            // near to far.
            let data: Vec<u8> = s.port.iter().rev().chain(&s.starboard).copied().collect();
            msgs.push(out(
                "image",
                &sm::Image {
                    header: header(ns, frame),
                    height: 1,
                    width: data.len() as u32,
                    encoding: "mono8".into(),
                    is_bigendian: 0,
                    step: data.len() as u32,
                    data,
                },
            ));
        }
    }
    msgs
}
