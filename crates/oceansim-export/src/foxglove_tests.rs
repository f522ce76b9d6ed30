//! Each message type against the `serde_json::Value` the exporter built
//! before (its keys sorted): the same text, byte for byte.

use super::*;
use serde_json::json;

fn same(typed: &impl Serialize, value: serde_json::Value) {
    assert_eq!(
        serde_json::to_string(typed).unwrap(),
        serde_json::to_string(&value).unwrap()
    );
}

fn stamp(t: f64) -> serde_json::Value {
    let ns = (t.max(0.0) * 1e9).round() as u64;
    json!({"sec": ns / 1_000_000_000, "nsec": ns % 1_000_000_000})
}

fn v3(v: [f64; 3]) -> serde_json::Value {
    json!({"x": v[0], "y": v[1], "z": v[2]})
}

fn q4(q: [f64; 4]) -> serde_json::Value {
    json!({"x": q[0], "y": q[1], "z": q[2], "w": q[3]})
}

#[test]
fn transforms_poses_and_odd_numbers_serialise_as_before() {
    let (t, q) = ([1.5, -0.0, f64::NAN], [0.1, 0.2, 0.3, f64::INFINITY]);
    for time in [0.0, -3.0, 12.345_678_901_2, 4e9 + 0.999_999_999_7] {
        same(&Time::at(time), stamp(time));
    }
    same(
        &FrameTransform {
            child_frame_id: "auv/main/base_link",
            parent_frame_id: "world",
            rotation: q.into(),
            timestamp: Time::at(2.25),
            translation: t.into(),
        },
        json!({"timestamp": stamp(2.25), "parent_frame_id": "world",
               "child_frame_id": "auv/main/base_link",
               "translation": v3(t), "rotation": q4(q)}),
    );
    same(
        &PoseInFrame {
            frame_id: "world",
            pose: Pose {
                orientation: q.into(),
                position: t.into(),
            },
            timestamp: Time::at(0.1),
        },
        json!({"timestamp": stamp(0.1), "frame_id": "world",
               "pose": {"position": v3(t), "orientation": q4(q)}}),
    );
}

#[test]
fn scene_updates_serialise_as_before() {
    let grey = json!({"r": 0.5, "g": 0.52, "b": 0.55, "a": 1.0});
    let gray = Color::rgb(0.5, 0.52, 0.55);
    let mut e = SceneEntity::new("rock", Cow::Borrowed("world"), Time::at(1.0), false);
    e.cubes.push(CubePrimitive {
        color: gray,
        pose: Pose::at([1.0, 2.0, 3.0]),
        size: [2.0, 4.0, 6.0].into(),
    });
    e.spheres.push(SpherePrimitive {
        color: gray,
        pose: Pose::IDENTITY,
        size: [1.0; 3].into(),
    });
    e.cylinders.push(CylinderPrimitive {
        bottom_scale: 1.0,
        color: gray,
        pose: Pose::IDENTITY,
        size: [1.0, 1.0, 5.0].into(),
        top_scale: 1.0,
    });
    let id = [0.0, 0.0, 0.0, 1.0];
    let update = SceneUpdate {
        deletions: vec![SceneEntityDeletion {
            id: "buoy",
            timestamp: Time::at(3.0),
            kind: SceneEntityDeletion::MATCHING_ID,
        }],
        entities: vec![e],
    };
    same(
        &update,
        json!({"deletions": [{"timestamp": stamp(3.0), "type": 0, "id": "buoy"}],
               "entities": [{
            "timestamp": stamp(1.0), "frame_id": "world", "id": "rock",
            "lifetime": {"sec": 0, "nsec": 0}, "frame_locked": false,
            "metadata": [], "arrows": [], "lines": [], "triangles": [], "texts": [],
            "models": [],
            "cubes": [{"pose": {"position": v3([1.0, 2.0, 3.0]), "orientation": q4(id)},
                       "size": v3([2.0, 4.0, 6.0]), "color": grey}],
            "spheres": [{"pose": {"position": v3([0.0; 3]), "orientation": q4(id)},
                         "size": v3([1.0; 3]), "color": grey}],
            "cylinders": [{"pose": {"position": v3([0.0; 3]), "orientation": q4(id)},
                           "size": v3([1.0, 1.0, 5.0]), "bottom_scale": 1.0,
                           "top_scale": 1.0, "color": grey}]}]}),
    );
}

#[test]
fn grids_clouds_and_images_serialise_as_before() {
    let id = [0.0, 0.0, 0.0, 1.0];
    same(
        &Grid {
            cell_size: Vector2 { x: 0.5, y: 0.5 },
            cell_stride: 4,
            column_count: 3,
            data: "AAAA".into(),
            fields: vec![PackedElementField {
                name: "height",
                offset: 0,
                numeric_type: FLOAT32,
            }],
            frame_id: "world",
            pose: Pose::at([-20.0, -20.0, 0.0]),
            row_stride: 12,
            timestamp: Time::at(0.0),
        },
        json!({"timestamp": stamp(0.0), "frame_id": "world",
               "pose": {"position": v3([-20.0, -20.0, 0.0]), "orientation": q4(id)},
               "column_count": 3usize, "cell_size": {"x": 0.5, "y": 0.5},
               "row_stride": 12usize, "cell_stride": 4,
               "fields": [{"name": "height", "offset": 0, "type": FLOAT32}],
               "data": "AAAA"}),
    );
    same(
        &PointCloud {
            data: "AQID".into(),
            fields: vec![PackedElementField {
                name: "x",
                offset: 0,
                numeric_type: FLOAT32,
            }],
            frame_id: Cow::Borrowed("auv/main/lidar_3d"),
            point_stride: 16,
            pose: Pose::IDENTITY,
            timestamp: Time::at(0.5),
        },
        json!({"timestamp": stamp(0.5), "frame_id": "auv/main/lidar_3d",
               "pose": {"position": v3([0.0; 3]), "orientation": q4(id)},
               "point_stride": 16u32, "fields": [json!({"name": "x", "offset": 0, "type": FLOAT32})],
               "data": "AQID"}),
    );
    same(
        &CompressedImage {
            data: Cow::Borrowed("iVBO"),
            format: "png",
            frame_id: Cow::Borrowed("cam_optical"),
            timestamp: Time::at(0.2),
        },
        json!({"timestamp": stamp(0.2), "frame_id": "cam_optical", "data": "iVBO", "format": "png"}),
    );
    same(
        &RawImage {
            data: "AAE=".into(),
            encoding: "mono8",
            frame_id: Cow::Borrowed("ss"),
            height: 1,
            step: 2,
            timestamp: Time::at(0.3),
            width: 2,
        },
        json!({"timestamp": stamp(0.3), "frame_id": "ss", "width": 2usize,
               "height": 1, "encoding": "mono8", "step": 2usize, "data": "AAE="}),
    );
    let (fx, fy, cx, cy) = (300.5, 301.0, 160.0, 120.0);
    same(
        &CameraCalibration {
            d: [0.0; 5],
            k: [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0],
            p: [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0],
            r: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            distortion_model: "plumb_bob",
            frame_id: Cow::Borrowed("cam_optical"),
            height: 240,
            timestamp: Time::at(0.2),
            width: 320,
        },
        json!({"timestamp": stamp(0.2), "frame_id": "cam_optical", "width": 320usize,
               "height": 240usize, "distortion_model": "plumb_bob",
               "D": [0.0, 0.0, 0.0, 0.0, 0.0],
               "K": [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0],
               "R": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
               "P": [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0]}),
    );
    let (ranges, intensities) = (vec![1.0, f64::INFINITY, 2.5], vec![0.0, 0.5, 1.0]);
    same(
        &LaserScan {
            end_angle: 1.5,
            frame_id: Cow::Borrowed("l2"),
            intensities: intensities.clone(),
            pose: Pose::IDENTITY,
            ranges: ranges.clone(),
            start_angle: -1.5,
            timestamp: Time::at(0.4),
        },
        json!({"timestamp": stamp(0.4), "frame_id": "l2",
               "pose": {"position": v3([0.0; 3]), "orientation": q4(id)},
               "start_angle": -1.5, "end_angle": 1.5,
               "ranges": ranges, "intensities": intensities}),
    );
}

#[test]
fn own_messages_serialise_as_before() {
    let (r, f) = ([0.1, -0.2, 0.3], [0.0, 0.0, 9.81]);
    let q = [0.0, 0.0, 0.6, 0.8];
    same(
        &Imu {
            angular_velocity: r.into(),
            frame_id: Cow::Borrowed("imu"),
            linear_acceleration: f.into(),
            orientation: q.into(),
            timestamp: Time::at(0.01),
        },
        json!({"timestamp": stamp(0.01), "frame_id": "imu", "orientation": q4(q),
               "angular_velocity": v3(r), "linear_acceleration": v3(f)}),
    );
    for (v, alt, beams) in [
        (
            Some([0.5, 0.0, -0.1]),
            Some(3.5),
            [Some(4.0), Some(4.1), None, Some(3.9)],
        ),
        (None, None, [None; 4]),
    ] {
        same(
            &Dvl {
                altitude_m: alt,
                beam_ranges_m: beams,
                bottom_lock: v.is_some(),
                frame_id: Cow::Borrowed("dvl"),
                timestamp: Time::at(0.2),
                velocity: v.map(Vector3::from),
            },
            json!({"timestamp": stamp(0.2), "frame_id": "dvl", "bottom_lock": v.is_some(),
                   "velocity": v.map(v3), "altitude_m": alt, "beam_ranges_m": beams}),
        );
    }
    same(
        &Depth {
            depth_m: 17.25,
            frame_id: Cow::Borrowed("depth"),
            pressure_pa: 274_000.5,
            timestamp: Time::at(0.05),
        },
        json!({"timestamp": stamp(0.05), "frame_id": "depth",
               "depth_m": 17.25, "pressure_pa": 274_000.5}),
    );
}
