//! Sensor samples as the MCAP file's JSON messages: Foxglove's schemas
//! where one fits, this project's own (`oceansim.Imu`, `oceansim.Dvl`,
//! `oceansim.Depth`, in [`OWN_SCHEMAS`]) where Foxglove has none.
//!
//! | sample | topic suffix | schema | frame |
//! |---|---|---|---|
//! | camera, RGB-D | `image`, `depth`, (`segmentation`, `segmentation_color`), `calibration` | `foxglove.CompressedImage`, `foxglove.CameraCalibration` | optical |
//! | RGB-D | `points` | `foxglove.PointCloud` (x y z float32, red green blue alpha uint8) | sensor (FLU) |
//! | 3-D lidar | `points` | `foxglove.PointCloud` (x y z intensity float32) | `world` |
//! | multibeam | `points` | `foxglove.PointCloud` (x y z intensity float32), one sounding per beam | sensor (FLU) |
//! | 2-D lidar | `scan` | `foxglove.LaserScan` (counter-clockwise; no return: the range limit) | sensor (FLU) |
//! | imaging sonar | `image` | `foxglove.CompressedImage` (8-bit PNG, polar) | sensor |
//! | side-scan | `image` | `foxglove.RawImage` (`mono8`, one row per ping: port far → near, starboard near → far) | sensor |
//! | IMU | (none) | `oceansim.Imu`: attitude in `world`, rates and specific force in the sensor's FLU axes | sensor (FLU) |
//! | DVL | (none) | `oceansim.Dvl`: velocity in the sensor's FLU axes while locked, altitude, beam ranges | sensor (FLU) |
//! | depth | (none) | `oceansim.Depth`: depth (m) and absolute pressure (Pa) | sensor |

use super::ros_msgs::{body_to_sensor, imu_in_sensor, rot_xyzw, scan_ccw, soundings};
use base64::Engine as _;
use nalgebra::Vector3;
use oceansim_sensors::frame_tree::{SensorFrame, WORLD_FRAME};
use oceansim_sensors::{Reading, SensorSample};
use serde_json::{json, Value};

/// Foxglove's `NumericType.UINT8`.
pub(super) const UINT8: u32 = 1;
/// Foxglove's `NumericType.FLOAT32`.
pub(super) const FLOAT32: u32 = 7;

/// This project's JSON Schemas (draft 2020-12) for the readings Foxglove
/// has no schema for, by name.
pub(super) const OWN_SCHEMAS: [(&str, &str); 3] = [
    (
        "oceansim.Imu",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"oceansim-rs","title":"oceansim.Imu","description":"An IMU sample in its sensor's FLU frame","type":"object","properties":{"timestamp":{"type":"object","title":"time","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}},"frame_id":{"type":"string","description":"The sensor's frame"},"orientation":{"type":"object","description":"Attitude of the sensor frame in the world frame (ENU)","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"},"w":{"type":"number"}}},"angular_velocity":{"type":"object","description":"Body rates in the sensor frame (rad/s)","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}},"linear_acceleration":{"type":"object","description":"Specific force in the sensor frame (m/s^2): +9.81 up at rest","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}}},"required":["timestamp","frame_id","orientation","angular_velocity","linear_acceleration"]}"##,
    ),
    (
        "oceansim.Dvl",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"oceansim-rs","title":"oceansim.Dvl","description":"A Doppler velocity log sample in its sensor's FLU frame","type":"object","properties":{"timestamp":{"type":"object","title":"time","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}},"frame_id":{"type":"string","description":"The sensor's frame"},"bottom_lock":{"type":"boolean","description":"At least three beams found the bottom"},"velocity":{"type":["object","null"],"description":"Velocity over ground in the sensor frame (m/s), null without bottom lock","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}},"altitude_m":{"type":["number","null"],"description":"Height above the bottom (m), null without bottom lock"},"beam_ranges_m":{"type":"array","description":"Slant range of each of the four beams (m), null where none","items":{"type":["number","null"]}}},"required":["timestamp","frame_id","bottom_lock","velocity","altitude_m","beam_ranges_m"]}"##,
    ),
    (
        "oceansim.Depth",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"oceansim-rs","title":"oceansim.Depth","description":"A pressure-depth sample","type":"object","properties":{"timestamp":{"type":"object","title":"time","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}},"frame_id":{"type":"string","description":"The sensor's frame"},"depth_m":{"type":"number","description":"Depth of the sensor (m, positive down)"},"pressure_pa":{"type":"number","description":"Absolute pressure (Pa): atmosphere plus rho g depth"}},"required":["timestamp","frame_id","depth_m","pressure_pa"]}"##,
    ),
];

pub(super) fn stamp(t: f64) -> Value {
    let ns = (t.max(0.0) * 1e9).round() as u64;
    json!({"sec": ns / 1_000_000_000, "nsec": ns % 1_000_000_000})
}

pub(super) fn v3(v: [f64; 3]) -> Value {
    json!({"x": v[0], "y": v[1], "z": v[2]})
}

pub(super) fn q4(q: [f64; 4]) -> Value {
    json!({"x": q[0], "y": q[1], "z": q[2], "w": q[3]})
}

fn nv(v: Vector3<f64>) -> Value {
    v3([v.x, v.y, v.z])
}

fn identity_pose() -> Value {
    json!({"position": v3([0.0; 3]), "orientation": q4([0.0, 0.0, 0.0, 1.0])})
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `foxglove.PointCloud` of `x y z` float32 points followed by `extra`
/// fields (name, type, bytes), each point's bytes from `point`.
fn cloud(
    t: f64,
    frame: &str,
    n: usize,
    extra: &[(&str, u32, u32)],
    mut point: impl FnMut(usize, &mut Vec<u8>),
) -> Value {
    let mut fields = vec![
        json!({"name": "x", "offset": 0, "type": FLOAT32}),
        json!({"name": "y", "offset": 4, "type": FLOAT32}),
        json!({"name": "z", "offset": 8, "type": FLOAT32}),
    ];
    let mut stride = 12;
    for (name, ty, size) in extra {
        fields.push(json!({"name": name, "offset": stride, "type": ty}));
        stride += size;
    }
    let mut data = Vec::with_capacity(n * stride as usize);
    for i in 0..n {
        point(i, &mut data);
    }
    json!({"timestamp": stamp(t), "frame_id": frame, "pose": identity_pose(),
           "point_stride": stride, "fields": fields, "data": b64(&data)})
}

fn push_f32(out: &mut Vec<u8>, xs: &[f64]) {
    for x in xs {
        out.extend((*x as f32).to_le_bytes());
    }
}

/// The pinhole the renderer uses (no distortion), in `optical`: with the
/// optical frame on `/tf_static`, Foxglove projects the scene into it.
fn calibration(
    t: f64,
    optical: &str,
    k: &oceansim_sensors::Intrinsics,
    width: usize,
    height: usize,
) -> Value {
    json!({"timestamp": stamp(t), "frame_id": optical, "width": width, "height": height,
           "distortion_model": "plumb_bob", "D": [0.0, 0.0, 0.0, 0.0, 0.0],
           "K": [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0],
           "R": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
           "P": [k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0]})
}

/// The Foxglove (or own) messages of one sensor sample on the sensor `f`:
/// `(topic suffix, schema, message)`, the suffix empty for the sensor's
/// own topic.
pub(super) fn sensor_messages(
    f: &SensorFrame,
    sample: &SensorSample,
) -> Vec<(&'static str, &'static str, Value)> {
    let t = sample.time;
    let frame = f.frame_id();
    let mount = rot_xyzw(f.rotation_xyzw);
    let png = |frame: &str, data: &str| json!({"timestamp": stamp(t), "frame_id": frame, "data": data, "format": "png"});
    match &sample.reading {
        Reading::Camera(c) => {
            let optical = f.optical_id();
            let colour =
                oceansim_sensors::image::Image::from_png_base64(&c.segmentation_png_base64)
                    .ok()
                    .and_then(|img| match img.pixels {
                        oceansim_sensors::image::Pixels::Gray8(ids) => {
                            oceansim_sensors::image::Image::new(
                                img.width,
                                img.height,
                                oceansim_sensors::image::Pixels::Rgb8(
                                    oceansim_sensors::colour_segmentation(&ids),
                                ),
                            )
                            .ok()
                        }
                        _ => None,
                    })
                    .map(|img| img.to_png_base64());
            let mut msgs = vec![
                (
                    "image",
                    "foxglove.CompressedImage",
                    png(&optical, &c.rgb_png_base64),
                ),
                (
                    "depth",
                    "foxglove.CompressedImage",
                    png(&optical, &c.depth_png_base64),
                ),
                (
                    "segmentation",
                    "foxglove.CompressedImage",
                    png(&optical, &c.segmentation_png_base64),
                ),
                (
                    "calibration",
                    "foxglove.CameraCalibration",
                    calibration(t, &optical, &c.intrinsics, c.width, c.height),
                ),
            ];
            if let Some(colour) = colour {
                msgs.push((
                    "segmentation_color",
                    "foxglove.CompressedImage",
                    png(&optical, &colour),
                ));
            }
            msgs
        }
        Reading::Rgbd(r) => {
            let optical = f.optical_id();
            // Sensor FRD → FLU: y and z flip.
            let points = cloud(
                t,
                &frame,
                r.points.len(),
                &[
                    ("red", UINT8, 1),
                    ("green", UINT8, 1),
                    ("blue", UINT8, 1),
                    ("alpha", UINT8, 1),
                ],
                |i, out| {
                    let p = r.points[i];
                    push_f32(out, &[p[0], -p[1], -p[2]]);
                    let c = r.colors_rgb.get(i).copied().unwrap_or([255; 3]);
                    out.extend([c[0], c[1], c[2], 255]);
                },
            );
            vec![
                (
                    "image",
                    "foxglove.CompressedImage",
                    png(&optical, &r.rgb_png_base64),
                ),
                (
                    "depth",
                    "foxglove.CompressedImage",
                    png(&optical, &r.depth_png_base64),
                ),
                (
                    "calibration",
                    "foxglove.CameraCalibration",
                    calibration(t, &optical, &r.intrinsics, r.width, r.height),
                ),
                ("points", "foxglove.PointCloud", points),
            ]
        }
        Reading::Lidar3d(l) => vec![(
            "points",
            "foxglove.PointCloud",
            cloud(
                t,
                WORLD_FRAME,
                l.points_world.len(),
                &[("intensity", FLOAT32, 4)],
                |i, out| {
                    let p = l.points_world[i];
                    let s = l.intensities.get(i).copied().unwrap_or(0.0);
                    push_f32(out, &[p[0], p[1], p[2], s]);
                },
            ),
        )],
        Reading::Multibeam(m) => {
            let soundings = soundings(m);
            vec![(
                "points",
                "foxglove.PointCloud",
                cloud(
                    t,
                    &frame,
                    soundings.len(),
                    &[("intensity", FLOAT32, 4)],
                    |i, out| push_f32(out, &soundings[i]),
                ),
            )]
        }
        Reading::Lidar2d(l) => {
            let (start, end, ranges, intensities) = scan_ccw(l);
            vec![(
                "scan",
                "foxglove.LaserScan",
                json!({"timestamp": stamp(t), "frame_id": frame, "pose": identity_pose(),
                       "start_angle": start, "end_angle": end,
                       "ranges": ranges, "intensities": intensities}),
            )]
        }
        Reading::ImagingSonar(s) => vec![(
            "image",
            "foxglove.CompressedImage",
            png(&frame, &s.intensity_png_base64),
        )],
        Reading::SideScan(s) => {
            let row: Vec<u8> = s.port.iter().rev().chain(&s.starboard).copied().collect();
            vec![(
                "image",
                "foxglove.RawImage",
                json!({"timestamp": stamp(t), "frame_id": frame, "width": row.len(),
                       "height": 1, "encoding": "mono8", "step": row.len(), "data": b64(&row)}),
            )]
        }
        Reading::Imu(m) => {
            let (attitude, rates, force) = imu_in_sensor(m, mount);
            vec![(
                "",
                "oceansim.Imu",
                json!({"timestamp": stamp(t), "frame_id": frame,
                       "orientation": q4([attitude.i, attitude.j, attitude.k, attitude.w]),
                       "angular_velocity": nv(rates), "linear_acceleration": nv(force)}),
            )]
        }
        Reading::Dvl(d) => vec![(
            "",
            "oceansim.Dvl",
            json!({"timestamp": stamp(t), "frame_id": frame, "bottom_lock": d.bottom_lock,
                   "velocity": d.velocity_body.map(|v| nv(body_to_sensor(v, mount))),
                   "altitude_m": d.altitude_m, "beam_ranges_m": d.beam_ranges_m}),
        )],
        Reading::Depth(d) => vec![(
            "",
            "oceansim.Depth",
            json!({"timestamp": stamp(t), "frame_id": frame,
                   "depth_m": d.depth_m, "pressure_pa": d.pressure_pa}),
        )],
    }
}
