//! Sensor samples as the MCAP file's JSON messages: Foxglove's schemas
//! where one fits, this project's own (`oceansim.Imu`, `oceansim.Dvl`,
//! `oceansim.Depth`, in
//! [`OWN_SCHEMAS`](super::foxglove::OWN_SCHEMAS)) where Foxglove has none.
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

use super::foxglove::{
    CameraCalibration, CompressedImage, Depth, Dvl, Imu, LaserScan, PackedElementField, PointCloud,
    Pose, RawImage, SensorMessage, Time, FLOAT32, UINT8,
};
use super::ros_msgs::{body_to_sensor, imu_in_sensor, rot_xyzw, scan_ccw, soundings};
use base64::Engine as _;
use oceansim_sensors::frame_tree::{SensorFrame, WORLD_FRAME};
use oceansim_sensors::{Reading, SensorSample};
use std::borrow::Cow;

/// Bytes as standard base64, as Foxglove's JSON messages carry them.
pub(super) fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `foxglove.PointCloud` of `x y z` float32 points followed by `extra`
/// fields (name, type, bytes), each point's bytes from `point`.
fn cloud<'a>(
    t: f64,
    frame: Cow<'a, str>,
    n: usize,
    extra: &[(&'a str, u32, u32)],
    mut point: impl FnMut(usize, &mut Vec<u8>),
) -> SensorMessage<'a> {
    let field = |name, offset, numeric_type| PackedElementField {
        name,
        offset,
        numeric_type,
    };
    let mut fields = vec![
        field("x", 0, FLOAT32),
        field("y", 4, FLOAT32),
        field("z", 8, FLOAT32),
    ];
    let mut stride = 12;
    for &(name, ty, size) in extra {
        fields.push(field(name, stride, ty));
        stride += size;
    }
    let mut data = Vec::with_capacity(n * stride as usize);
    for i in 0..n {
        point(i, &mut data);
    }
    SensorMessage::PointCloud(PointCloud {
        data: b64(&data),
        fields,
        frame_id: frame,
        point_stride: stride,
        pose: Pose::IDENTITY,
        timestamp: Time::at(t),
    })
}

fn push_f32(out: &mut Vec<u8>, xs: &[f64]) {
    for x in xs {
        out.extend((*x as f32).to_le_bytes());
    }
}

/// The pinhole the renderer uses (no distortion), in `optical`: with the
/// optical frame on `/tf_static`, Foxglove projects the scene into it.
fn calibration<'a>(
    t: f64,
    optical: &str,
    k: &oceansim_sensors::Intrinsics,
    width: usize,
    height: usize,
) -> SensorMessage<'a> {
    SensorMessage::CameraCalibration(CameraCalibration {
        d: [0.0; 5],
        k: [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0],
        p: [
            k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0,
        ],
        r: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        distortion_model: "plumb_bob",
        frame_id: Cow::Owned(optical.to_owned()),
        height,
        timestamp: Time::at(t),
        width,
    })
}

/// The Foxglove (or own) messages of one sensor sample on the sensor `f`:
/// `(topic suffix, message)`, the suffix empty for the sensor's own topic.
pub(super) fn sensor_messages<'a>(
    f: &SensorFrame,
    sample: &'a SensorSample,
) -> Vec<(&'static str, SensorMessage<'a>)> {
    let t = sample.time;
    let frame = f.frame_id();
    let mount = rot_xyzw(f.rotation_xyzw);
    let png = |frame: &str, data: Cow<'a, str>| {
        SensorMessage::CompressedImage(CompressedImage {
            data,
            format: "png",
            frame_id: Cow::Owned(frame.to_owned()),
            timestamp: Time::at(t),
        })
    };
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
                ("image", png(&optical, Cow::Borrowed(&c.rgb_png_base64))),
                ("depth", png(&optical, Cow::Borrowed(&c.depth_png_base64))),
                (
                    "segmentation",
                    png(&optical, Cow::Borrowed(&c.segmentation_png_base64)),
                ),
                (
                    "calibration",
                    calibration(t, &optical, &c.intrinsics, c.width, c.height),
                ),
            ];
            if let Some(colour) = colour {
                msgs.push(("segmentation_color", png(&optical, Cow::Owned(colour))));
            }
            msgs
        }
        Reading::Rgbd(r) => {
            let optical = f.optical_id();
            // Sensor FRD → FLU: y and z flip.
            let points = cloud(
                t,
                Cow::Owned(frame),
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
                ("image", png(&optical, Cow::Borrowed(&r.rgb_png_base64))),
                ("depth", png(&optical, Cow::Borrowed(&r.depth_png_base64))),
                (
                    "calibration",
                    calibration(t, &optical, &r.intrinsics, r.width, r.height),
                ),
                ("points", points),
            ]
        }
        Reading::Lidar3d(l) => vec![(
            "points",
            cloud(
                t,
                Cow::Borrowed(WORLD_FRAME),
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
                cloud(
                    t,
                    Cow::Owned(frame),
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
                SensorMessage::LaserScan(LaserScan {
                    end_angle: end,
                    frame_id: Cow::Owned(frame),
                    intensities,
                    pose: Pose::IDENTITY,
                    ranges,
                    start_angle: start,
                    timestamp: Time::at(t),
                }),
            )]
        }
        Reading::ImagingSonar(s) => {
            vec![("image", png(&frame, Cow::Borrowed(&s.intensity_png_base64)))]
        }
        Reading::SideScan(s) => {
            let row: Vec<u8> = s.port.iter().rev().chain(&s.starboard).copied().collect();
            vec![(
                "image",
                SensorMessage::RawImage(RawImage {
                    data: b64(&row),
                    encoding: "mono8",
                    frame_id: Cow::Owned(frame),
                    height: 1,
                    step: row.len(),
                    timestamp: Time::at(t),
                    width: row.len(),
                }),
            )]
        }
        Reading::Imu(m) => {
            let (attitude, rates, force) = imu_in_sensor(m, mount);
            vec![(
                "",
                SensorMessage::Imu(Imu {
                    angular_velocity: rates.into(),
                    frame_id: Cow::Owned(frame),
                    linear_acceleration: force.into(),
                    orientation: [attitude.i, attitude.j, attitude.k, attitude.w].into(),
                    timestamp: Time::at(t),
                }),
            )]
        }
        Reading::Dvl(d) => vec![(
            "",
            SensorMessage::Dvl(Dvl {
                altitude_m: d.altitude_m,
                beam_ranges_m: d.beam_ranges_m,
                bottom_lock: d.bottom_lock,
                frame_id: Cow::Owned(frame),
                timestamp: Time::at(t),
                velocity: d.velocity_body.map(|v| body_to_sensor(v, mount).into()),
            }),
        )],
        Reading::Depth(d) => vec![(
            "",
            SensorMessage::Depth(Depth {
                depth_m: d.depth_m,
                frame_id: Cow::Owned(frame),
                pressure_pa: d.pressure_pa,
                timestamp: Time::at(t),
            }),
        )],
    }
}
