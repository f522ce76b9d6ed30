//! The export alone places the camera: a known obstacle's corners, taken
//! from `run.mcap`'s scene and carried through `/tf`, `/tf_static` and the
//! calibration of the ROS 2 bag, land on the segmentation image's
//! obstacle pixels, just inside the obstacle's outline, and not just
//! outside it.

use crate::common::ok;
use crate::export::sim_keeping;
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use oceansim_ros2::from_cdr;
use oceansim_ros2::msg::{geometry_msgs, sensor_msgs, tf2_msgs};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn iso(t: &geometry_msgs::Transform) -> Isometry3<f64> {
    let q = &t.rotation;
    Isometry3::from_parts(
        Translation3::new(t.translation.x, t.translation.y, t.translation.z),
        UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q.w, q.x, q.y, q.z)),
    )
}

/// The bag's messages on `topic` as `(log time, CDR)`.
fn raw(bytes: &[u8], topic: &str) -> Vec<(u64, Vec<u8>)> {
    mcap::MessageStream::new(bytes)
        .unwrap()
        .map(Result::unwrap)
        .filter(|m| m.channel.topic == topic)
        .map(|m| (m.log_time, m.data.into_owned()))
        .collect()
}

#[test]
fn an_obstacle_corner_projects_onto_its_pixel_from_the_export_alone() {
    let root = tempfile::tempdir().unwrap();
    let mut s = sim_keeping(root.path(), oceansim_sim::MAX_RECORDED_SAMPLES);
    // 6.75 m north of the wreck's north face, level with its middle,
    // facing south (Godot: X east, Y up, Z south).
    ok(
        &mut s,
        "move_agent",
        json!({"id": "auv/main", "position": [-9.0, -14.6, -2.0], "rotation": [0.0, 180.0, 0.0]}),
    );
    for _ in 0..4 {
        ok(&mut s, "step", json!({}));
    }
    ok(&mut s, "export_dataset", json!({"export_dir": "seen"}));
    let dir = root.path().join("seen");

    // The wreck, as run.mcap's scene has it (world frame).
    let scene_bytes = std::fs::read(dir.join("run.mcap")).unwrap();
    let scene: Value = mcap::MessageStream::new(&scene_bytes)
        .unwrap()
        .map(Result::unwrap)
        .find(|m| m.channel.topic == "/scene")
        .map(|m| serde_json::from_slice(&m.data).unwrap())
        .unwrap();
    let wreck = scene["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "wreck_box")
        .expect("the wreck on /scene");
    let cube = &wreck["cubes"][0];
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    let (p, o, size) = (
        &cube["pose"]["position"],
        &cube["pose"]["orientation"],
        &cube["size"],
    );
    let box_pose = Isometry3::from_parts(
        Translation3::new(f(p, "x"), f(p, "y"), f(p, "z")),
        UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            f(o, "w"),
            f(o, "x"),
            f(o, "y"),
            f(o, "z"),
        )),
    );
    let half = Vector3::new(f(size, "x"), f(size, "y"), f(size, "z")) / 2.0;

    // The camera, from the bag: its mount and optical frame, the AUV's
    // pose when the image was taken, the calibration and the image.
    let bag = std::fs::read(dir.join("rosbag2/rosbag2_0.mcap")).unwrap();
    let statics = from_cdr::<tf2_msgs::TFMessage>(&raw(&bag, "/tf_static")[0].1).unwrap();
    let edge = |child: &str| {
        let t = statics
            .transforms
            .iter()
            .find(|t| t.child_frame_id == child)
            .unwrap();
        iso(&t.transform)
    };
    let base_optical = edge("auv/main/camera") * edge("auv/main/camera_optical");
    let poses: BTreeMap<u64, Isometry3<f64>> = raw(&bag, "/tf")
        .into_iter()
        .map(|(t, d)| {
            let m = from_cdr::<tf2_msgs::TFMessage>(&d).unwrap();
            let tf = m
                .transforms
                .iter()
                .find(|x| x.child_frame_id == "auv/main/base_link")
                .unwrap();
            (t, iso(&tf.transform))
        })
        .collect();
    let (t, seg) = raw(&bag, "/auv/main/camera/segmentation/image_raw")
        .into_iter()
        .rev()
        .find(|(t, _)| poses.contains_key(t))
        .expect("an image on a /tf stamp");
    let seg = from_cdr::<sensor_msgs::Image>(&seg).unwrap();
    let info = raw(&bag, "/auv/main/camera/camera_info")
        .into_iter()
        .find(|(ti, _)| *ti == t)
        .map(|(_, d)| from_cdr::<sensor_msgs::CameraInfo>(&d).unwrap())
        .unwrap();
    assert_eq!(seg.header.frame_id, "auv/main/camera_optical");
    let world_optical = poses[&t] * base_optical;
    let k = info.k;
    let project = |w: Point3<f64>| {
        let c = world_optical.inverse_transform_point(&w);
        assert!(c.z > 0.5, "in front of the camera: {c:?}");
        (k[0] * c.x / c.z + k[2], k[4] * c.y / c.z + k[5])
    };
    let class = |u: f64, v: f64| {
        let (i, j) = (u.floor() as i64, v.floor() as i64);
        assert!(
            (0..seg.width as i64).contains(&i) && (0..seg.height as i64).contains(&j),
            "({u}, {v}) inside the {}x{} image",
            seg.width,
            seg.height
        );
        seg.data[(j as usize) * seg.step as usize + i as usize]
    };
    // The face toward the camera: its four corners outline the wreck.
    let cam = world_optical.translation.vector;
    let toward = box_pose.inverse_transform_vector(&(cam - box_pose.translation.vector));
    let axis = (0..3)
        .max_by(|a, b| {
            (toward[*a] / half[*a])
                .abs()
                .total_cmp(&(toward[*b] / half[*b]).abs())
        })
        .unwrap();
    let (mut corners, mut corner_points) = (Vec::new(), Vec::new());
    for sa in [-1.0, 1.0] {
        for sb in [-1.0, 1.0] {
            let mut c = Vector3::zeros();
            c[axis] = toward[axis].signum() * half[axis];
            let (a, b) = ((axis + 1) % 3, (axis + 2) % 3);
            c[a] = sa * half[a];
            c[b] = sb * half[b];
            let w = box_pose * Point3::from(c);
            corner_points.push(w);
            corners.push(project(w));
        }
    }
    let (cu, cv) = (
        corners.iter().map(|c| c.0).sum::<f64>() / 4.0,
        corners.iter().map(|c| c.1).sum::<f64>() / 4.0,
    );
    const STATIC_OBSTACLE: u8 = 2;
    // Depth along the optical axis (mm) at a pixel, from the bag too.
    let depth = raw(&bag, "/auv/main/camera/depth/image_raw")
        .into_iter()
        .find(|(ti, _)| *ti == t)
        .map(|(_, d)| from_cdr::<sensor_msgs::Image>(&d).unwrap())
        .unwrap();
    assert_eq!(depth.encoding, "16UC1");
    let depth_m = |u: f64, v: f64| {
        let at = (v.floor() as usize) * depth.step as usize + 2 * u.floor() as usize;
        f64::from(u16::from_le_bytes([depth.data[at], depth.data[at + 1]])) / 1000.0
    };
    // A procedural rock in front of the wreck's left end hides its left
    // corners (it is nearer, and of the same class): the right ones are
    // in clear view.
    let mut checked = 0;
    for (i, (u, v)) in corners.iter().enumerate().filter(|(_, c)| c.0 > cu) {
        let (du, dv) = ((cu - u).signum() * 3.0, (cv - v).signum() * 3.0);
        assert_eq!(
            class(u + du, v + dv),
            STATIC_OBSTACLE,
            "just inside the corner at ({u:.1}, {v:.1})"
        );
        // Just inside a corner the depth is the corner's.
        let want = world_optical.inverse_transform_point(&corner_points[i]).z;
        let got = depth_m(u + du, v + dv);
        assert!(
            (got - want).abs() < 0.1,
            "depth {got} m at a corner {want} m away"
        );
        // Just outside: water or seabed, not the wreck.
        assert_ne!(
            class(u - du, v - dv),
            STATIC_OBSTACLE,
            "just outside the corner at ({u:.1}, {v:.1})"
        );
        checked += 1;
    }
    assert_eq!(checked, 2, "{corners:?}");
}
