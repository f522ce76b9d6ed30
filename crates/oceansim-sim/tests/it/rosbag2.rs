//! The ROS 2 bag an export writes: read back by the `mcap` crate and
//! `oceansim-ros2`'s decoder here, and by Python's `rosbags` and
//! `mcap-ros2-support` (`tests/check_bag.py`) when `OCEANSIM_ROS2_PY`
//! names a Python that has them (`.ci/run` does).

use crate::export::{run_in, sim_keeping};
use oceansim_ros2::msg::{geometry_msgs, nav_msgs, rosgraph_msgs, sensor_msgs, std_msgs, tf2_msgs};
use oceansim_ros2::{from_cdr, RosMessage};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every topic the default scenario's AUV and the run's commands give.
const TOPICS: &[&str] = &[
    "/clock",
    "/tf",
    "/tf_static",
    "/oceansim/commands",
    "/auv/main/odom",
    "/buoy/odom",
    "/auv/main/imu",
    "/auv/main/dvl",
    "/auv/main/dvl/altitude",
    "/auv/main/depth/pressure",
    "/auv/main/camera/image_raw",
    "/auv/main/camera/camera_info",
    "/auv/main/camera/depth/image_raw",
    "/auv/main/camera/segmentation/image_raw",
    "/auv/main/camera/segmentation/image_color",
    "/auv/main/rgbd_dense_cloud/image_raw",
    "/auv/main/rgbd_dense_cloud/depth/image_raw",
    "/auv/main/rgbd_dense_cloud/camera_info",
    "/auv/main/rgbd_dense_cloud/points",
    "/auv/main/lidar_2d/scan",
    "/auv/main/lidar_3d/points",
    "/auv/main/imaging_sonar/image",
    "/auv/main/multibeam_sonar/points",
    "/auv/main/side_scan_sonar/image",
];

/// Decodes `data` as the type `name` names; the decoded header's stamp
/// and frame when it has one.
fn decode(name: &str, data: &[u8]) -> Option<(i32, u32, String)> {
    fn h(x: &std_msgs::Header) -> Option<(i32, u32, String)> {
        Some((x.stamp.sec, x.stamp.nanosec, x.frame_id.clone()))
    }
    macro_rules! by_type {
        ($($t:ty => $f:expr),* $(,)?) => {
            match name {
                $(n if n == <$t>::TYPE_NAME => {
                    let m = from_cdr::<$t>(data).unwrap_or_else(|e| panic!("{name}: {e}"));
                    #[allow(clippy::redundant_closure_call)]
                    ($f)(&m)
                })*
                other => panic!("an unexpected type {other}"),
            }
        };
    }
    by_type! {
        rosgraph_msgs::Clock => |_: &rosgraph_msgs::Clock| None,
        tf2_msgs::TFMessage => |_: &tf2_msgs::TFMessage| None,
        std_msgs::String => |m: &std_msgs::String| {
            let v: serde_json::Value = serde_json::from_str(&m.data).unwrap();
            assert!(v["action"].is_string(), "{v}");
            None
        },
        nav_msgs::Odometry => |m: &nav_msgs::Odometry| h(&m.header),
        sensor_msgs::Imu => |m: &sensor_msgs::Imu| h(&m.header),
        geometry_msgs::TwistWithCovarianceStamped =>
            |m: &geometry_msgs::TwistWithCovarianceStamped| h(&m.header),
        sensor_msgs::Range => |m: &sensor_msgs::Range| h(&m.header),
        sensor_msgs::FluidPressure => |m: &sensor_msgs::FluidPressure| {
            // Absolute: at least the atmosphere's.
            assert!(m.fluid_pressure > 101_000.0, "{}", m.fluid_pressure);
            h(&m.header)
        },
        sensor_msgs::Image => |m: &sensor_msgs::Image| {
            assert_eq!(m.data.len(), (m.step * m.height) as usize);
            h(&m.header)
        },
        sensor_msgs::CameraInfo => |m: &sensor_msgs::CameraInfo| h(&m.header),
        sensor_msgs::PointCloud2 => |m: &sensor_msgs::PointCloud2| {
            assert_eq!(m.data.len(), (m.point_step * m.width * m.height) as usize);
            h(&m.header)
        },
        sensor_msgs::LaserScan => |m: &sensor_msgs::LaserScan| {
            assert!(m.angle_increment > 0.0 && m.angle_min < m.angle_max);
            h(&m.header)
        },
    }
}

fn bag_of_a_run(root: &Path) -> PathBuf {
    run_in(sim_keeping(root, oceansim_sim::MAX_RECORDED_SAMPLES));
    root.join("runs/demo/rosbag2")
}

#[test]
fn the_bag_holds_every_sensor_in_cdr_with_stamps_on_the_log_clock() {
    let root = tempfile::tempdir().unwrap();
    let bag = bag_of_a_run(root.path());
    let yaml = std::fs::read_to_string(bag.join("metadata.yaml")).unwrap();
    assert!(yaml
        .starts_with("rosbag2_bagfile_information:\n  version: 8\n  storage_identifier: mcap\n"));
    let bytes = std::fs::read(bag.join("rosbag2_0.mcap")).unwrap();
    let summary = mcap::Summary::read(&bytes).unwrap().unwrap();
    let stats = summary.stats.unwrap();
    assert!(summary.chunk_indexes.iter().all(|c| c.compression == "lz4"));
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut frames: BTreeMap<String, String> = BTreeMap::new();
    for m in mcap::MessageStream::new(&bytes).unwrap() {
        let m = m.unwrap();
        let schema = m.channel.schema.as_ref().unwrap();
        assert_eq!(m.channel.message_encoding, "cdr");
        assert_eq!(schema.encoding, "ros2msg");
        assert!(m.channel.metadata["topic_type_hash"].starts_with("RIHS01_"));
        *counts.entry(m.channel.topic.clone()).or_default() += 1;
        if let Some((sec, nsec, frame)) = decode(&schema.name, &m.data) {
            assert_eq!(
                sec as u64 * 1_000_000_000 + nsec as u64,
                m.log_time,
                "{}",
                m.channel.topic
            );
            frames.insert(m.channel.topic.clone(), frame);
        }
    }
    assert_eq!(counts.values().sum::<u64>(), stats.message_count);
    for t in TOPICS {
        assert!(counts.get(*t).is_some_and(|n| *n > 0), "{t}: {counts:?}");
        assert!(
            yaml.contains(&format!("        name: {t}\n")),
            "{t} in metadata.yaml"
        );
    }
    assert!(yaml.contains(&format!("  message_count: {}\n", stats.message_count)));
    // A pose per frame (31 frames: the start and 30 steps), images at 5 Hz
    // over 3 s (the first at the start), the IMU at 100 Hz.
    assert_eq!(counts["/tf"], 31);
    assert_eq!(counts["/auv/main/camera/image_raw"], 16);
    assert_eq!(counts["/auv/main/imaging_sonar/image"], 16);
    assert_eq!(counts["/tf_static"], 1);
    assert_eq!(
        frames["/auv/main/camera/image_raw"],
        "auv/main/camera_optical"
    );
    assert_eq!(frames["/auv/main/lidar_3d/points"], "auv/main/lidar_3d");
    assert_eq!(frames["/auv/main/odom"], "world");
}

#[test]
fn python_rosbags_and_mcap_ros2_read_the_bag() {
    let Ok(python) = std::env::var("OCEANSIM_ROS2_PY") else {
        eprintln!("skipped: set OCEANSIM_ROS2_PY to a python with rosbags and mcap-ros2-support");
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let bag = bag_of_a_run(root.path());
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/check_bag.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(&bag)
        .args(TOPICS)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "check_bag.py failed:\n{stdout}");
    assert!(stdout.contains("bag ok:"), "{stdout}");
}

/// The bag's messages of type `M` on `topic`, with their log times.
fn messages<M: RosMessage>(bytes: &[u8], topic: &str) -> Vec<(u64, M)> {
    mcap::MessageStream::new(bytes)
        .unwrap()
        .map(Result::unwrap)
        .filter(|m| m.channel.topic == topic)
        .map(|m| (m.log_time, from_cdr::<M>(&m.data).unwrap()))
        .collect()
}

fn quat(q: &geometry_msgs::Quaternion) -> nalgebra::UnitQuaternion<f64> {
    nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q.w, q.x, q.y, q.z))
}

fn vec3(v: &geometry_msgs::Vector3) -> nalgebra::Vector3<f64> {
    nalgebra::Vector3::new(v.x, v.y, v.z)
}

/// The bag's ROS frames agree with one another and with physics: the IMU
/// feels gravity up in its FLU frame and its attitude is its frame's on
/// `/tf` (through `/tf_static`); the DVL's velocity, turned into the base
/// link, is the odometry's; the odometry's pose is `/tf`'s.
#[test]
fn imu_dvl_and_odometry_agree_with_the_transforms() {
    let root = tempfile::tempdir().unwrap();
    let bag = bag_of_a_run(root.path());
    let bytes = std::fs::read(bag.join("rosbag2_0.mcap")).unwrap();
    let statics = &messages::<tf2_msgs::TFMessage>(&bytes, "/tf_static")[0].1;
    let mount = |child: &str| {
        let t = statics
            .transforms
            .iter()
            .find(|t| t.child_frame_id == child)
            .unwrap_or_else(|| panic!("{child} on /tf_static"));
        assert_eq!(t.header.frame_id, "auv/main/base_link");
        quat(&t.transform.rotation)
    };
    let base: BTreeMap<u64, nalgebra::UnitQuaternion<f64>> =
        messages::<tf2_msgs::TFMessage>(&bytes, "/tf")
            .into_iter()
            .map(|(t, m)| {
                let tf = m
                    .transforms
                    .iter()
                    .find(|x| x.child_frame_id == "auv/main/base_link")
                    .unwrap();
                assert_eq!(tf.header.frame_id, "world");
                (t, quat(&tf.transform.rotation))
            })
            .collect();
    let imu = messages::<sensor_msgs::Imu>(&bytes, "/auv/main/imu");
    assert!(imu.len() >= 300, "100 Hz over 3 s: {}", imu.len());
    let (mut compared, imu_mount) = (0, mount("auv/main/imu"));
    for (t, m) in &imu {
        // Specific force: about +g along the world's up, whatever the mount.
        let up = quat(&m.orientation) * vec3(&m.linear_acceleration);
        assert!((up.z - 9.81).abs() < 1.0, "{up:?}");
        if let Some(q) = base.get(t) {
            let angle = (q * imu_mount).angle_to(&quat(&m.orientation));
            assert!(angle < 0.05, "IMU attitude {angle} rad from /tf's");
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} IMU samples on a /tf stamp");
    let odom: BTreeMap<u64, nav_msgs::Odometry> =
        messages::<nav_msgs::Odometry>(&bytes, "/auv/main/odom")
            .into_iter()
            .collect();
    for (t, o) in &odom {
        let q = quat(&o.pose.pose.orientation);
        assert!(q.angle_to(&base[t]) < 1e-9, "odometry's pose is /tf's");
    }
    let dvl = messages::<geometry_msgs::TwistWithCovarianceStamped>(&bytes, "/auv/main/dvl");
    let dvl_mount = mount("auv/main/dvl");
    let mut compared = 0;
    for (t, m) in &dvl {
        let Some(o) = odom.get(t) else { continue };
        let v = dvl_mount * vec3(&m.twist.twist.linear);
        let want = vec3(&o.twist.twist.linear);
        // Noise and the mount's lever arm (the AUV turns slowly).
        assert!(
            (v - want).norm() < 0.1,
            "DVL {v:?} against odometry {want:?}"
        );
        compared += 1;
    }
    assert!(
        compared >= 10,
        "{compared} DVL samples on an odometry stamp"
    );
    // The AUV was pushed north: its surge in the base link is forward.
    let last = odom.values().last().unwrap();
    assert!(last.twist.twist.linear.x.abs() + last.twist.twist.linear.y.abs() > 0.05);
}
