//! What the viewer's sensor panels draw: the catalogue of a run's sensors
//! (key, kind, frame, units, rate) and one `sensor` message per sample,
//! shaped for drawing rather than for archiving. Live runs and replays
//! build both here, so a panel shows the same thing from either.
//!
//! ## Conventions
//!
//! * A panel's **key** is its sensor's frame id, `<agent>/<sensor>`
//!   (`auv/main/imaging_sonar`).
//! * **Points** (2-D and 3-D lidar, RGB-D) are in the agent's `base_link`
//!   (REP 103 FLU: x forward, y left, z up), in centimetres as integers,
//!   at most [`MAX_PANEL_POINTS`] of them (evenly thinned): the mount is
//!   applied here, so a page needs no frame tree.
//! * **Sonar images** keep the sensor's own layout: the imaging sonar's
//!   8-bit PNG has a column per beam (port to starboard, bearings centred
//!   in `azimuth_deg`) and a row per range bin (nearest first); the
//!   side-scan's port and starboard lines are base64 of their 8-bit bins
//!   (nearest first); the multibeam's soundings are `across_m` (starboard
//!   positive) and `down_m` in the sensor frame.
//! * **Camera images** travel as the sensor made them: 8-bit RGB PNG and
//!   16-bit depth PNG in `depth_unit_m`, base64.
//!
//! ```
//! use oceansim_sim::{SimConfig, Simulation};
//! let mut sim = Simulation::new(SimConfig::default()).unwrap();
//! let keys = vec!["auv/main/imaging_sonar".to_owned()];
//! sim.view_demand_sensors(&keys);
//! let (panel, sample) = sim.view_latest_samples(&keys).pop().unwrap();
//! let msg: serde_json::Value =
//!     serde_json::from_str(&oceansim_sim::panels::panel_message(&panel, &sample)).unwrap();
//! assert_eq!(msg["kind"], "imaging_sonar");
//! assert!(msg["data"]["png"].as_str().is_some_and(|s| !s.is_empty()));
//! ```

use crate::live_view::mm;
use crate::Simulation;
use base64::Engine as _;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
pub use oceansim_protocol::view::PanelEntry;
use oceansim_sensors::frame_tree::SensorFrame;
use oceansim_sensors::{Reading, SensorSample};
use serde::Serialize;
use std::sync::Arc;

mod recorded;
pub use recorded::RecordedPanels;

/// Most points a point panel is sent per sample (the rest thinned evenly).
pub const MAX_PANEL_POINTS: usize = 6000;

/// A sensor a panel can show.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelSensor {
    /// Where it sits on its agent.
    pub frame: SensorFrame,
    /// Its sampling rate (Hz).
    pub rate_hz: f64,
}

impl PanelSensor {
    /// `<agent>/<sensor>`.
    pub fn key(&self) -> String {
        self.frame.frame_id()
    }
}

/// What a panel's numbers mean, per kind.
pub fn units(kind: &str) -> &'static str {
    match kind {
        "imaging_sonar" => "range m, bearing deg (starboard +), echo 8-bit over display_db dB",
        "side_scan_sonar" => "slant range m per side, echo 8-bit over display_db dB",
        "multibeam_sonar" => "across-track m (starboard +), down m, sensor frame",
        "camera" => "RGB 8-bit; depth m along the optical axis",
        "rgbd_dense_cloud" => "points cm in base_link (FLU), colour 8-bit RGB",
        "lidar_2d" => "points cm in base_link (FLU), ranges m",
        "lidar_3d" => "points cm in base_link (FLU), intensity 0-255",
        "depth" => "depth m (down +), pressure Pa",
        "imu" => "specific force m/s², rates rad/s, body FRD",
        "dvl" => "velocity m/s body FRD, altitude m",
        _ => "",
    }
}

/// The scene's `sensors` list.
pub fn catalogue(sensors: &[PanelSensor]) -> Vec<PanelEntry> {
    sensors
        .iter()
        .map(|s| PanelEntry {
            key: s.key(),
            agent: s.frame.agent.to_string(),
            sensor: s.frame.sensor.to_string(),
            kind: s.frame.family.into(),
            frame: s.frame.frame_id(),
            parent: s.frame.parent_id(),
            rate_hz: s.rate_hz,
            units: units(s.frame.family).into(),
        })
        .collect()
}

#[derive(Serialize)]
struct Message<'a> {
    #[serde(rename = "type")]
    tag: &'static str,
    key: String,
    agent: &'a str,
    sensor: &'a str,
    kind: &'static str,
    t: f64,
    seq: u64,
    data: Data<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Data<'a> {
    Fan {
        beams: usize,
        bins: usize,
        azimuth_deg: [f64; 2],
        max_range_m: f64,
        range_resolution_m: f64,
        display_db: [f64; 2],
        png: &'a str,
    },
    Waterfall {
        bins: usize,
        max_range_m: f64,
        range_resolution_m: f64,
        display_db: [f64; 2],
        port: String,
        starboard: String,
    },
    Swath {
        beams: usize,
        swath_deg: f64,
        max_range_m: f64,
        across_m: Vec<Option<f64>>,
        down_m: Vec<Option<f64>>,
        intensity: &'a [u8],
    },
    Camera {
        width: usize,
        height: usize,
        hfov_deg: f64,
        max_range_m: f64,
        rgb_png: &'a str,
        depth_png: &'a str,
        depth_unit_m: f64,
    },
    Points {
        count: usize,
        total: usize,
        xyz_cm: Vec<i32>,
        /// base64: per point one byte (intensity) or three (RGB).
        #[serde(skip_serializing_if = "Option::is_none")]
        intensity: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rgb: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        range_max_m: Option<f64>,
    },
    Depth {
        depth_m: f64,
        pressure_pa: f64,
    },
    Imu {
        linear_acceleration: [f64; 3],
        angular_velocity: [f64; 3],
    },
    Dvl {
        velocity_body: Option<[f64; 3]>,
        altitude_m: Option<f64>,
        bottom_lock: bool,
        beam_ranges_m: [Option<f64>; 4],
    },
}

/// Sensor FRD points into the base link (FLU), thinned to
/// [`MAX_PANEL_POINTS`]: `(xyz_cm, indices kept)`.
fn to_base_link(frame: &SensorFrame, points: &[[f64; 3]]) -> (Vec<i32>, Vec<usize>) {
    let [x, y, z, w] = frame.rotation_xyzw;
    let r = UnitQuaternion::from_quaternion(Quaternion::new(w, x, y, z));
    let t = Vector3::from(frame.translation_m);
    let stride = points.len().div_ceil(MAX_PANEL_POINTS).max(1);
    let mut xyz = Vec::with_capacity(3 * points.len().min(MAX_PANEL_POINTS));
    let mut kept = Vec::with_capacity(points.len().min(MAX_PANEL_POINTS));
    for (i, p) in points.iter().enumerate().step_by(stride) {
        // FRD → FLU is diag(1, −1, −1).
        let b = t + r * Vector3::new(p[0], -p[1], -p[2]);
        if !(b.x.is_finite() && b.y.is_finite() && b.z.is_finite()) {
            continue;
        }
        let cm = |v: f64| (v * 100.0).round().clamp(-2e9, 2e9) as i32;
        xyz.extend([cm(b.x), cm(b.y), cm(b.z)]);
        kept.push(i);
    }
    (xyz, kept)
}

pub(super) fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// One sample as the page's `sensor` message: `{"type":"sensor","key",
/// "agent","sensor","kind","t","seq","data":{..}}`, `data` per kind as the
/// module's conventions say.
pub fn panel_message(panel: &PanelSensor, sample: &SensorSample) -> String {
    let f = &panel.frame;
    let data = match &sample.reading {
        Reading::ImagingSonar(s) => Data::Fan {
            beams: s.beams,
            bins: s.bins,
            azimuth_deg: s.azimuth_range_deg,
            max_range_m: s.max_range_m,
            range_resolution_m: s.range_resolution_m,
            display_db: s.display_db,
            png: &s.intensity_png_base64,
        },
        Reading::SideScan(s) => Data::Waterfall {
            bins: s.bins,
            max_range_m: s.max_range_m,
            range_resolution_m: s.range_resolution_m,
            display_db: s.display_db,
            port: b64(&s.port),
            starboard: b64(&s.starboard),
        },
        Reading::Multibeam(m) => {
            let n = m.ranges.len().max(1) as f64;
            let angle = |i: usize| (m.swath_deg * ((i as f64 + 0.5) / n - 0.5)).to_radians();
            let (across_m, down_m) = m
                .ranges
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    r.filter(|r| r.is_finite()).map_or((None, None), |r| {
                        let a = angle(i);
                        (Some(mm(r * a.sin())), Some(mm(r * a.cos())))
                    })
                })
                .unzip();
            Data::Swath {
                beams: m.beams,
                swath_deg: m.swath_deg,
                max_range_m: m.max_range_m,
                across_m,
                down_m,
                intensity: &m.intensity,
            }
        }
        Reading::Camera(c) => Data::Camera {
            width: c.width,
            height: c.height,
            hfov_deg: c.hfov_deg,
            max_range_m: c.max_range_m,
            rgb_png: &c.rgb_png_base64,
            depth_png: &c.depth_png_base64,
            depth_unit_m: c.depth_unit_m,
        },
        Reading::Rgbd(r) => {
            let (xyz_cm, kept) = to_base_link(f, &r.points);
            let rgb: Vec<u8> = kept
                .iter()
                .flat_map(|&i| r.colors_rgb.get(i).copied().unwrap_or([200, 200, 200]))
                .collect();
            Data::Points {
                count: kept.len(),
                total: r.points.len(),
                xyz_cm,
                intensity: None,
                rgb: Some(b64(&rgb)),
                range_max_m: None,
            }
        }
        Reading::Lidar3d(l) => {
            let (xyz_cm, kept) = to_base_link(f, &l.points);
            let level: Vec<u8> = kept
                .iter()
                .map(|&i| {
                    let v = l.intensities.get(i).copied().unwrap_or(0.0);
                    (v.clamp(0.0, 1.0) * 255.0).round() as u8
                })
                .collect();
            Data::Points {
                count: kept.len(),
                total: l.points.len(),
                xyz_cm,
                intensity: Some(b64(&level)),
                rgb: None,
                range_max_m: None,
            }
        }
        Reading::Lidar2d(l) => {
            // Beams with no return report the longest range: not drawn.
            let hits: Vec<[f64; 3]> = l
                .ranges
                .iter()
                .enumerate()
                .filter(|(_, r)| r.is_finite() && **r < l.range_max_m - 1e-6)
                .map(|(i, r)| {
                    let a = l.angle_min_rad + i as f64 * l.angle_increment_rad;
                    [r * a.cos(), r * a.sin(), 0.0]
                })
                .collect();
            let (xyz_cm, kept) = to_base_link(f, &hits);
            Data::Points {
                count: kept.len(),
                total: l.ranges.len(),
                xyz_cm,
                intensity: None,
                rgb: None,
                range_max_m: Some(l.range_max_m),
            }
        }
        Reading::Depth(d) => Data::Depth {
            depth_m: mm(d.depth_m),
            pressure_pa: mm(d.pressure_pa),
        },
        Reading::Imu(i) => Data::Imu {
            linear_acceleration: i.linear_acceleration.map(mm),
            angular_velocity: i.angular_velocity.map(mm),
        },
        Reading::Dvl(d) => Data::Dvl {
            velocity_body: d.velocity_body.map(|v| v.map(mm)),
            altitude_m: d.altitude_m.map(mm),
            bottom_lock: d.bottom_lock,
            beam_ranges_m: d.beam_ranges_m.map(|r| r.map(mm)),
        },
    };
    let msg = Message {
        tag: "sensor",
        key: panel.key(),
        agent: &f.agent,
        sensor: &f.sensor,
        kind: f.family,
        t: sample.time,
        seq: sample.sequence,
        data,
    };
    // Every number above is finite or null, so this cannot fail.
    serde_json::to_string(&msg).unwrap_or_default()
}

impl Simulation {
    /// Every sensor of every vehicle, as panels can show them (agents in
    /// row order, sensors in declaration order).
    pub fn view_panel_sensors(&self) -> Vec<PanelSensor> {
        let mut out = Vec::new();
        self.each_sensor(|agent, s| out.push(panel_of(agent, s)));
        out
    }

    fn each_sensor(&self, mut f: impl FnMut(&str, &crate::Sensor)) {
        let meta = self.world.objects(self.h.agent);
        let suites = self.world.objects(self.h.sensors);
        for (m, suite) in meta.iter().zip(suites.iter()) {
            if let (Some(m), Some(suite)) = (m, suite) {
                for s in &suite.sensors {
                    f(&m.def.agent_name, s);
                }
            }
        }
    }

    /// Asks for the sensors `keys` name, as a client's `get_sensors` asks:
    /// an on-demand one (camera, sonar) takes a fresh sample if its latest
    /// is a period old and renders at its rate for the next period; the
    /// others sample anyway. Only those sensors' samples change, never the
    /// vehicles' motion. Unknown keys are ignored.
    pub fn view_demand_sensors(&mut self, keys: &[String]) {
        if keys.is_empty() {
            return;
        }
        let time = self.sim_time();
        let rows: Vec<(usize, Vec<String>)> = {
            let meta = self.world.objects(self.h.agent);
            let suites = self.world.objects(self.h.sensors);
            meta.iter()
                .zip(suites.iter())
                .enumerate()
                .filter_map(|(row, (m, s))| {
                    let (m, s) = (m.as_ref()?, s.as_ref()?);
                    let agent = &m.def.agent_name;
                    let names: Vec<String> = s
                        .sensors
                        .iter()
                        .filter(|s| keys.iter().any(|k| is_key(k, agent, &s.name)))
                        .map(|s| s.name.clone())
                        .collect();
                    (!names.is_empty()).then_some((row, names))
                })
                .collect()
        };
        for (row, names) in rows {
            let sampled = crate::systems::sample_on_request(&self.world, &self.h, row, time, |n| {
                names.iter().any(|x| x == n)
            });
            if sampled {
                // Cached state replies hold the sensors' previous samples.
                self.revs.state += 1;
            }
        }
    }

    /// The latest sample of each sensor `keys` names that has one.
    pub fn view_latest_samples(&self, keys: &[String]) -> Vec<(PanelSensor, Arc<SensorSample>)> {
        let mut out = Vec::new();
        self.each_sensor(|agent, s| {
            if !keys.iter().any(|k| is_key(k, agent, &s.name)) {
                return;
            }
            if let Some(latest) = s.latest_ready() {
                out.push((panel_of(agent, s), latest.clone()));
            }
        });
        out
    }
}

/// Whether `key` is `<agent>/<sensor>`.
fn is_key(key: &str, agent: &str, sensor: &str) -> bool {
    key.strip_prefix(agent).and_then(|r| r.strip_prefix('/')) == Some(sensor)
}

fn panel_of(agent: &str, s: &crate::Sensor) -> PanelSensor {
    let (xyz, rot) = s.mount();
    PanelSensor {
        frame: SensorFrame::from_mount(agent, &s.name, s.family().name(), xyz, rot),
        rate_hz: s.rate_hz(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimConfig;
    use serde_json::Value;

    fn sim() -> Simulation {
        Simulation::new(SimConfig::default()).unwrap()
    }

    #[test]
    fn every_sensor_of_the_default_scenario_has_a_panel_message() {
        let mut sim = sim();
        let keys: Vec<String> = sim
            .view_panel_sensors()
            .iter()
            .map(PanelSensor::key)
            .collect();
        assert_eq!(keys.len(), 10, "{keys:?}");
        assert!(keys.contains(&"auv/main/imaging_sonar".to_owned()));
        sim.view_demand_sensors(&keys);
        let got = sim.view_latest_samples(&keys);
        assert_eq!(got.len(), 10, "every sensor sampled once asked");
        for (p, s) in &got {
            let v: Value = serde_json::from_str(&panel_message(p, s)).unwrap();
            assert_eq!(v["type"], "sensor");
            assert_eq!(v["key"], p.key());
            assert_eq!(v["kind"], p.frame.family);
            assert!(v["data"].is_object(), "{v}");
            assert!(!units(p.frame.family).is_empty());
        }
    }

    #[test]
    fn nothing_renders_for_a_sensor_nobody_asked_for() {
        // Without a recording that keeps sensor data, on-demand sensors
        // render only when asked.
        let mut sim = Simulation::new(SimConfig {
            record_sensor_data: false,
            ..SimConfig::default()
        })
        .unwrap();
        sim.view_demand_sensors(&["auv/main/camera".to_owned()]);
        let got = sim.view_latest_samples(&[
            "auv/main/camera".to_owned(),
            "auv/main/imaging_sonar".to_owned(),
        ]);
        let kinds: Vec<&str> = got.iter().map(|(p, _)| p.frame.family).collect();
        assert_eq!(kinds, ["camera"], "the sonar was never asked for");
    }

    #[test]
    fn points_are_moved_by_the_mount_into_base_link_flu() {
        // A sensor 1 m forward, turned 90° to port (yaw +90° about FLU z):
        // its forward axis is the body's left.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let frame = SensorFrame {
            agent: "a".into(),
            sensor: "s".into(),
            family: "lidar_3d",
            translation_m: [1.0, 0.0, 0.0],
            rotation_xyzw: [0.0, 0.0, h, h],
            optical: false,
        };
        // 2 m ahead of the sensor and 1 m below it (FRD z down).
        let (xyz, kept) = to_base_link(&frame, &[[2.0, 0.0, 1.0]]);
        assert_eq!(kept, [0]);
        assert_eq!(xyz, [100, 200, -100]);
        let many: Vec<[f64; 3]> = (0..3 * MAX_PANEL_POINTS)
            .map(|i| [i as f64, 0.0, 0.0])
            .collect();
        let (xyz, kept) = to_base_link(&frame, &many);
        assert!(kept.len() <= MAX_PANEL_POINTS && xyz.len() == 3 * kept.len());
    }

    #[test]
    fn a_multibeam_sounding_straight_down_is_at_its_range() {
        let panel = PanelSensor {
            frame: SensorFrame {
                agent: "a".into(),
                sensor: "mb".into(),
                family: "multibeam_sonar",
                translation_m: [0.0; 3],
                rotation_xyzw: [0.0, 0.0, 0.0, 1.0],
                optical: false,
            },
            rate_hz: 5.0,
        };
        // Three beams over 120°: the middle one looks straight down.
        let sample = SensorSample {
            time: 1.0,
            wall_time: 1.0,
            sequence: 3,
            reading: Reading::Multibeam(crate::MultibeamReading {
                beams: 3,
                swath_deg: 120.0,
                max_range_m: 50.0,
                ranges: vec![Some(10.0), Some(7.0), None],
                depths_m: vec![None, None, None],
                intensity: vec![1, 2, 0],
            }),
        };
        let v: Value = serde_json::from_str(&panel_message(&panel, &sample)).unwrap();
        let d = &v["data"];
        assert_eq!(d["across_m"][1], 0.0);
        assert_eq!(d["down_m"][1], 7.0);
        // The first beam is 40° to port: across = −10 sin 40°.
        let a = d["across_m"][0].as_f64().unwrap();
        assert!((a + 10.0 * 40f64.to_radians().sin()).abs() < 1e-3, "{a}");
        assert!(d["across_m"][2].is_null());
        assert_eq!(v["seq"], 3);
    }
}
