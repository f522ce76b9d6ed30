//! # oceansim-sensors
//!
//! The simulator's sensor models without the simulator: depth, IMU, DVL,
//! camera (RGB, depth and segmentation images), RGB-D cloud, 2-D and 3-D
//! lidar, imaging, multibeam and side-scan sonar. Each family is a
//! [`SensorModel`] in its own file; a [`Sensor`] carries one on a vehicle
//! (its mount, its rate, its seeded noise, a short buffer of samples) and
//! renders its latest sample once, in the `oceansim_sensor_payload`
//! envelope (schema version 2) that clients read. A [`SensorSuite`] is a
//! vehicle's sensors as its profile and agent definition declare them.
//! Rays are cast against an [`oceansim_scene`] scene; images are
//! [`image::Image`]s, encoded as PNG; numbers in payloads are written in
//! thousandths by [`milli`]. [`frame_tree`] names each sensor's ROS frame
//! (REP 103/105) for the exporters and the ROS 2 bridge.
//!
//! ## Conventions
//!
//! - Sensor frames follow the body: x forward, y starboard, z down (FRD);
//!   `extrinsic_xyz_rpy` is the mount in the body frame (m, rad). Geometry
//!   in payloads is in the sensor frame unless a field says `_world` (user
//!   frame: x east, y north, z up).
//! - A [`SampleCtx`] gives the vehicle's state as the dynamics hold it
//!   (NED position, Fossen body velocity) and the scene in the user frame.
//! - Noise is seeded by (the sensor's noise seed, the sample's sequence
//!   number), so the same run gives the same bytes, whichever thread
//!   samples.
//! - Errors are [`SensorError`], whose stable code (`image`) is the
//!   simulator's.
//!
//! ## Example
//!
//! A depth sensor and a DVL on a vehicle 6 m deep over a flat seabed 20 m
//! deep:
//!
//! ```
//! use nalgebra::{Rotation3, Vector3, Vector6};
//! use oceansim_scene::raycast::SceneView;
//! use oceansim_scene::terrain::{Terrain, TerrainSpec};
//! use oceansim_sensors::{Family, Reading, SampleCtx, Sensor};
//! use oceansim_vehicles::VehicleState;
//!
//! let terrain = Terrain::generate(TerrainSpec::flat([100.0, 100.0], 20.0));
//! // At rest, 6 m down (NED), facing north.
//! let state = VehicleState::at_rest(Vector3::new(0.0, 0.0, 6.0), 0.0, 0.0, 0.0);
//! let ctx = SampleCtx {
//!     time: 0.5,
//!     wall_time: 0.5,
//!     state: &state,
//!     nu_dot: Vector6::zeros(),
//!     water_density: 1025.0,
//!     scene: SceneView { terrain: &terrain, obstacles: &[], bodies: &[] },
//!     mount: (&Vector3::zeros(), &Rotation3::identity()),
//! };
//!
//! let mut depth = Sensor::new("auv/main", "depth", Family::Depth, None, 7);
//! depth.sample(&ctx);
//! let Reading::Depth(d) = &depth.latest().unwrap().reading else { unreachable!() };
//! assert!((d.depth_m - 6.0).abs() < 0.05, "{d:?}");
//!
//! let mut dvl = Sensor::new("auv/main", "dvl", Family::Dvl, None, 7);
//! dvl.sample(&ctx);
//! let Reading::Dvl(v) = &dvl.latest().unwrap().reading else { unreachable!() };
//! let altitude = v.altitude_m.expect("the seabed is in range");
//! assert!((altitude - 14.0).abs() < 0.2, "{altitude}");
//!
//! // What a client reads: the payload envelope, rendered once.
//! let text = dvl.payload().unwrap();
//! assert!(text.contains(r#""sensor_type":"dvl""#));
//! ```

mod acoustics;
mod camera;
mod cloud;
mod depth;
mod dvl;
mod envelope;
mod error;
pub mod image;
pub mod milli;
use envelope::Header;
#[cfg(test)]
mod fixture;
pub mod frame_tree;
mod readings;
use readings::fixed_str;
pub use readings::{FixedStr, PNG_BASE64};
mod mount;
pub use mount::{check_mounts, mount_problem};
mod imaging_sonar;
mod imu;
mod lidar_2d;
mod lidar_3d;
mod multibeam;
mod noise;
mod rgbd;
mod side_scan;

pub use camera::{colour_segmentation, SEGMENTATION_PALETTE};
pub use camera::{CameraReading, Intrinsics};
pub(crate) use cloud::cloud;
pub use depth::DepthReading;
pub use dvl::DvlReading;
pub use dvl::{BEAM_ANGLE_DEG as DVL_BEAM_ANGLE_DEG, MAX_RANGE_M as DVL_MAX_RANGE_M};
pub use error::{Result, SensorError};
pub use imaging_sonar::ImagingSonarReading;
pub use imu::ImuReading;
pub use lidar_2d::Lidar2dReading;
pub use lidar_3d::Lidar3dReading;
pub use multibeam::MultibeamReading;
pub use noise::Noise;
pub use oceansim_scene::raycast::{Candidates, Hit, RayHit, SceneView};
pub use rgbd::RgbdReading;
pub use side_scan::SideScanReading;

use nalgebra::{Rotation3, UnitQuaternion, Vector3, Vector6};
use oceansim_scene::terrain::splitmix64;
use oceansim_vehicles::{CameraParams, SensorMount, VehicleState};
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Arc;

/// Samples kept per sensor (the latest last).
pub const SENSOR_BUFFER: usize = 16;

/// The sensor families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Pressure depth.
    Depth,
    /// Inertial measurement unit.
    Imu,
    /// Doppler velocity log.
    Dvl,
    /// Camera (intrinsics, depth and segmentation images).
    Camera,
    /// RGB-D dense point cloud.
    RgbdDenseCloud,
    /// Planar lidar.
    Lidar2d,
    /// 3-D lidar.
    Lidar3d,
    /// Forward-looking imaging sonar.
    ImagingSonar,
    /// Down-looking multibeam.
    MultibeamSonar,
    /// Side-scan sonar.
    SideScanSonar,
}

impl Family {
    /// Parses a family name.
    pub fn parse(s: &str) -> Option<Family> {
        Some(match s {
            "depth" => Family::Depth,
            "imu" => Family::Imu,
            "dvl" => Family::Dvl,
            "camera" => Family::Camera,
            "rgbd_dense_cloud" | "rgbd" => Family::RgbdDenseCloud,
            "lidar_2d" => Family::Lidar2d,
            "lidar_3d" => Family::Lidar3d,
            "imaging_sonar" => Family::ImagingSonar,
            "multibeam_sonar" => Family::MultibeamSonar,
            "side_scan_sonar" => Family::SideScanSonar,
            _ => return None,
        })
    }

    /// Family name.
    pub fn name(self) -> &'static str {
        match self {
            Family::Depth => "depth",
            Family::Imu => "imu",
            Family::Dvl => "dvl",
            Family::Camera => "camera",
            Family::RgbdDenseCloud => "rgbd_dense_cloud",
            Family::Lidar2d => "lidar_2d",
            Family::Lidar3d => "lidar_3d",
            Family::ImagingSonar => "imaging_sonar",
            Family::MultibeamSonar => "multibeam_sonar",
            Family::SideScanSonar => "side_scan_sonar",
        }
    }

    /// The family's model, with the mount's parameters where it has them.
    fn model(self, mount: Option<&SensorMount>) -> Box<dyn SensorModel> {
        let sonar = mount.and_then(|m| m.sonar).unwrap_or_default();
        match self {
            Family::Depth => Box::new(depth::Depth),
            Family::Imu => Box::new(imu::Imu::new(
                mount.and_then(|m| m.imu_noise).unwrap_or_default(),
            )),
            Family::Dvl => Box::new(dvl::Dvl),
            Family::Camera => Box::new(camera::Camera::new(
                mount
                    .and_then(|m| m.camera)
                    .unwrap_or(CameraParams::PERCEPTION),
            )),
            Family::RgbdDenseCloud => Box::new(rgbd::Rgbd::new(
                mount.and_then(|m| m.camera).unwrap_or_default(),
            )),
            Family::Lidar2d => Box::new(lidar_2d::Lidar2d::new()),
            Family::Lidar3d => Box::new(lidar_3d::Lidar3d::new()),
            Family::ImagingSonar => Box::new(imaging_sonar::ImagingSonar::new(sonar)),
            Family::MultibeamSonar => Box::new(multibeam::Multibeam::new(sonar)),
            Family::SideScanSonar => Box::new(side_scan::SideScan::new(sonar)),
        }
    }
}

/// Everything a sensor reads at one instant.
#[derive(Debug)]
pub struct SampleCtx<'a> {
    /// Time of the sample (s).
    pub time: f64,
    /// Wall-clock time of the sample (s since the Unix epoch; the
    /// simulated time in a deterministic run).
    pub wall_time: f64,
    /// The carrying vehicle's state.
    pub state: &'a VehicleState,
    /// Its ν̇ over the last tick (Fossen body).
    pub nu_dot: Vector6<f64>,
    /// Water density (kg/m³).
    pub water_density: f64,
    /// What rays can hit.
    pub scene: SceneView<'a>,
    /// The sensor's mount: position (m, body) and rotation (sensor → body).
    pub mount: (&'a Vector3<f64>, &'a Rotation3<f64>),
}

impl SampleCtx<'_> {
    /// Sensor origin (user frame) and the sensor → user rotation of a beam.
    pub fn pose(&self) -> (Vector3<f64>, impl Fn(&Vector3<f64>) -> Vector3<f64> + '_) {
        let att = self.state.attitude;
        let origin_ned = self.state.position_ned + att * self.mount.0;
        let rot = self.mount.1;
        let to_user = |v: &Vector3<f64>| Vector3::new(v.y, v.x, -v.z);
        (to_user(&origin_ned), move |d: &Vector3<f64>| {
            to_user(&(att * (rot * d)))
        })
    }

    /// Casts every beam (sensor frame) to at most `max` m.
    pub fn cast(&self, beams: &[Vector3<f64>], max: f64) -> Vec<(f64, Hit)> {
        let (o, to_world) = self.pose();
        let near = self.scene.candidates_for(&o, max, beams.len());
        beams
            .iter()
            .map(|b| self.scene.raycast_among(&o, &to_world(b), max, &near))
            .collect()
    }
}

impl SampleCtx<'_> {
    /// Casts every beam (sensor frame) to at most `max` m, keeping the
    /// surface normal and each beam's direction (user frame), for models
    /// whose return depends on the incidence angle.
    pub fn cast_surface(&self, beams: &[Vector3<f64>], max: f64) -> Vec<(RayHit, Vector3<f64>)> {
        let (o, to_world) = self.pose();
        let near = self.scene.candidates_for(&o, max, beams.len());
        beams
            .iter()
            .map(|b| {
                let d = to_world(b);
                (self.scene.raycast_surface(&o, &d, max, &near), d)
            })
            .collect()
    }
}

impl SampleCtx<'_> {
    /// [`SampleCtx::cast_surface`] across threads for a large fan of beams
    /// (cameras, imaging sonars): chunks of rays on rayon's pool, results
    /// in beam order and identical to the one-thread cast.
    pub fn cast_surface_par(
        &self,
        beams: &[Vector3<f64>],
        max: f64,
    ) -> Vec<(RayHit, Vector3<f64>)> {
        use rayon::prelude::*;
        const CHUNK: usize = 1024;
        if beams.len() < 2 * CHUNK {
            return self.cast_surface(beams, max);
        }
        beams
            .par_chunks(CHUNK)
            .map(|c| self.cast_surface(c, max))
            .collect::<Vec<_>>()
            .concat()
    }
}

/// A sensor family's model: its rate, noise and how it samples. `Send`
/// and `Sync`, so that the batched simulator's lanes carry sensors across
/// threads and into Python objects.
pub trait SensorModel: std::fmt::Debug + Send + Sync {
    /// The family.
    fn family(&self) -> Family;
    /// For a family that must see the seabed (multibeam, DVL, side-scan):
    /// its beams in the sensor frame; empty for the others.
    fn seabed_beams(&self) -> Vec<Vector3<f64>> {
        Vec::new()
    }
    /// Sampling rate (Hz).
    fn rate_hz(&self) -> f64;
    /// Whether the sensor renders only while something consumes it (the
    /// imaging families: cameras and sonars; the lidars are cheap enough to
    /// run always), so a control loop that never reads images does not pay
    /// for them.
    fn on_demand(&self) -> bool {
        false
    }
    /// Standard deviation of the main measurement noise.
    fn sigma(&self) -> f64;
    /// Per measured field, the variances of its components, for the
    /// payload's `covariance.fields`; none by default.
    fn field_variances(&self) -> Vec<(&'static str, Vec<f64>)> {
        Vec::new()
    }
    /// One sample; `rng` is this sample's seeded noise stream.
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading;
    /// For an IMU, its current biases `[ax, ay, az, gx, gy, gz]` (m/s²,
    /// rad/s, body FRD) as of its latest sample: the error state a
    /// ground-truth file records. `None` for the others, and before the
    /// first sample.
    fn imu_bias(&self) -> Option<[f64; 6]> {
        None
    }
    /// Whether the model encodes its images (PNG, base64) into the
    /// reading; on by default. The batched simulator turns it off: its
    /// observations read the raw arrays the same sample computes, so the
    /// noise stream and the array values are unchanged.
    fn set_encode_images(&mut self, _on: bool) {}
}

/// A family's reading, flattened into the payload envelope.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reading {
    /// Pressure depth.
    Depth(depth::DepthReading),
    /// IMU.
    Imu(imu::ImuReading),
    /// Doppler velocity log.
    Dvl(dvl::DvlReading),
    /// Camera images.
    Camera(camera::CameraReading),
    /// RGB-D point cloud.
    Rgbd(rgbd::RgbdReading),
    /// Planar lidar scan.
    Lidar2d(lidar_2d::Lidar2dReading),
    /// 3-D lidar scan.
    Lidar3d(lidar_3d::Lidar3dReading),
    /// Imaging sonar frame.
    ImagingSonar(imaging_sonar::ImagingSonarReading),
    /// Multibeam ping.
    Multibeam(multibeam::MultibeamReading),
    /// Side-scan ping.
    SideScan(side_scan::SideScanReading),
}

/// One sample of one sensor.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorSample {
    /// When (s, simulated).
    pub time: f64,
    /// When on the wall clock (s since the Unix epoch), or the simulated
    /// time in a deterministic run.
    pub wall_time: f64,
    /// Samples before this one.
    pub sequence: u64,
    /// What was measured.
    pub reading: Reading,
}

impl SensorSample {
    /// Approximate heap and inline bytes (images and point lists dominate),
    /// for the recorder's memory bound.
    pub fn approx_bytes(&self) -> usize {
        let heap = match &self.reading {
            Reading::Camera(c) => {
                c.rgb_png_base64.len() + c.depth_png_base64.len() + c.segmentation_png_base64.len()
            }
            Reading::Rgbd(r) => {
                r.rgb_png_base64.len() + r.depth_png_base64.len() + 51 * r.points.len()
            }
            Reading::Lidar3d(l) => 80 * l.points.len(),
            Reading::Lidar2d(l) => 8 * (l.ranges.len() + l.intensities.len()),
            Reading::ImagingSonar(s) => s.intensity_png_base64.len() + s.beams * (s.bins + 24),
            Reading::SideScan(s) => s.port.len() + s.starboard.len(),
            Reading::Multibeam(m) => 40 * m.ranges.len(),
            Reading::Depth(_) | Reading::Imu(_) | Reading::Dvl(_) => 64,
        };
        std::mem::size_of::<SensorSample>() + heap
    }
}

/// Round for compact, deterministic payloads (1 mm, 1e-3 of other units).
pub(crate) fn r4(x: f64) -> f64 {
    let y = x * 1e3;
    if y.abs() < 1e15 {
        crate::milli::round_i64(y) as f64 / 1e3
    } else {
        x
    }
}

/// An intensity in [0, 1] as an 8-bit value.
pub(crate) fn to_u8(x: f64) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// One mounted sensor with its samples.
#[derive(Debug)]
pub struct Sensor {
    /// Name (unique per agent).
    pub name: String,
    model: Box<dyn SensorModel>,
    mount_xyz: Vector3<f64>,
    mount_rot: Rotation3<f64>,
    header: Header,
    period_ticks: u64,
    /// Sampling period (s), from the rate and the tick.
    period_s: f64,
    /// Simulated time of the last request that asked for this sensor.
    last_demand: Option<f64>,
    /// Shared, so the recorder keeps a sample without copying its images.
    samples: VecDeque<Arc<SensorSample>>,
    /// Samples kept (the latest last): [`SENSOR_BUFFER`] unless set.
    capacity: usize,
    /// The next sample's sequence number (kept here, not read from the
    /// latest sample: that one is cold in memory when thousands of lanes
    /// sample in turn).
    next_sequence: u64,
    rendered: Option<(u64, Arc<str>)>,
}

impl Sensor {
    /// A sensor `name` of `family` on `agent`, mounted per `mount` (or at
    /// the origin), with noise seeded from `seed`.
    pub fn new(
        agent: &str,
        name: &str,
        family: Family,
        mount: Option<&SensorMount>,
        seed: u64,
    ) -> Self {
        let (xyz, rpy_deg) =
            mount.map_or(([0.0; 3], [0.0; 3]), |m| (m.position_m, m.rotation_rpy_deg));
        let rpy = rpy_deg.map(f64::to_radians);
        let mut h = seed;
        for b in name.bytes() {
            h = splitmix64(h ^ u64::from(b));
        }
        let mount_rot = Rotation3::from_euler_angles(rpy[0], rpy[1], rpy[2]);
        let q = UnitQuaternion::from_rotation_matrix(&mount_rot);
        let model = family.model(mount);
        let header = Header {
            sensor_type: family.name(),
            frame_id: format!("{agent}/base_link"),
            sensor_frame_id: format!("{agent}/{name}"),
            noise_seed: h,
            extrinsic_xyz_rpy: [xyz[0], xyz[1], xyz[2], rpy[0], rpy[1], rpy[2]],
            extrinsic_quat_xyzw: [q.i, q.j, q.k, q.w],
            variance: model.sigma().powi(2),
            fields: model
                .field_variances()
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
            prefix: String::new(),
        };
        let mut header = header;
        let full = crate::milli::to_string_milli(&header.envelope(0.0, 0.0, 0, &()));
        header.prefix = full
            .find(",\"sim_time\":")
            .map_or_else(String::new, |at| full[..at].to_owned());
        Sensor {
            name: name.into(),
            mount_xyz: Vector3::from(xyz),
            mount_rot,
            header,
            period_ticks: 1,
            period_s: 1.0 / model.rate_hz(),
            last_demand: None,
            samples: VecDeque::with_capacity(SENSOR_BUFFER),
            capacity: SENSOR_BUFFER,
            next_sequence: 0,
            rendered: None,
            model,
        }
    }

    /// This sensor keeping its latest `n` samples (1 to
    /// [`SENSOR_BUFFER`]): the batched simulator's lanes keep fewer than
    /// the simulator, which serves a request's history.
    pub fn keep_samples(mut self, n: usize) -> Self {
        self.capacity = n.clamp(1, SENSOR_BUFFER);
        self
    }

    /// This sensor with image encoding on or off
    /// ([`SensorModel::set_encode_images`]).
    pub fn encode_images(mut self, on: bool) -> Self {
        self.model.set_encode_images(on);
        self
    }

    /// The sensor's family.
    pub fn family(&self) -> Family {
        self.model.family()
    }

    /// The family's sampling rate (Hz).
    pub fn rate_hz(&self) -> f64 {
        self.model.rate_hz()
    }

    /// Sets the tick length, from which the sampling period in ticks follows
    /// (at least one tick: a rate above the tick rate samples every tick).
    pub fn set_tick(&mut self, dt: f64) {
        self.period_ticks = ((1.0 / (self.model.rate_hz() * dt)).round() as u64).max(1);
        self.period_s = self.period_ticks as f64 * dt;
    }

    /// Whether a sample is due at the end of tick number `tick`.
    pub fn due(&self, tick: u64) -> bool {
        tick.is_multiple_of(self.period_ticks)
    }

    /// Whether the sensor renders only while something consumes it.
    pub fn on_demand(&self) -> bool {
        self.model.on_demand()
    }

    /// Whether the sensor samples at `time` (s) when due: always, unless
    /// it renders on demand and no request asked for it within the last
    /// period.
    pub fn wanted(&self, time: f64) -> bool {
        !self.model.on_demand()
            || self
                .last_demand
                .is_some_and(|t| time - t <= self.period_s + 1e-9)
    }

    /// Records that a request asked for this sensor at `time` (s); returns
    /// whether its latest sample is older than one period (or missing), so
    /// the request should take a fresh one.
    pub fn demand(&mut self, time: f64) -> bool {
        self.last_demand = Some(time);
        self.latest()
            .is_none_or(|s| time - s.time >= self.period_s - 1e-9)
    }

    /// Takes a sample now.
    pub fn sample(&mut self, ctx: &SampleCtx<'_>) {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        let mut rng = Noise::new(self.header.noise_seed, sequence);
        let ctx = SampleCtx {
            mount: (&self.mount_xyz, &self.mount_rot),
            ..*ctx
        };
        let reading = self.model.sample(&ctx, &mut rng);
        let sample = SensorSample {
            time: ctx.time,
            wall_time: ctx.wall_time,
            sequence,
            reading,
        };
        let recycled = if self.samples.len() >= self.capacity {
            self.samples.pop_front()
        } else {
            None
        };
        // The oldest sample's allocation, when nothing else holds it (a
        // recorder may): one allocation less per sample at 100 Hz.
        let shared = match recycled {
            Some(mut old) => match Arc::get_mut(&mut old) {
                Some(slot) => {
                    *slot = sample;
                    old
                }
                None => Arc::new(sample),
            },
            None => Arc::new(sample),
        };
        self.samples.push_back(shared);
    }

    /// For an IMU, its true biases as of its latest sample (see
    /// [`SensorModel::imu_bias`]).
    pub fn imu_bias(&self) -> Option<[f64; 6]> {
        self.model.imu_bias()
    }

    /// The mount: position (m, body FRD) and rotation (sensor FRD → body
    /// FRD).
    pub fn mount(&self) -> (Vector3<f64>, Rotation3<f64>) {
        (self.mount_xyz, self.mount_rot)
    }

    /// The latest sample.
    pub fn latest(&self) -> Option<&SensorSample> {
        self.samples.back().map(|s| &**s)
    }

    /// The buffered samples, oldest first.
    pub fn samples(&self) -> impl Iterator<Item = &SensorSample> + Clone {
        self.samples.iter().map(|s| &**s)
    }

    /// The buffered samples, oldest first, shared.
    pub fn shared_samples(&self) -> impl Iterator<Item = &Arc<SensorSample>> + Clone {
        self.samples.iter()
    }

    /// Sequence number of the latest sample.
    pub fn sequence(&self) -> Option<u64> {
        self.latest().map(|s| s.sequence)
    }

    /// Whether a request ever asked for this sensor (an on-demand sensor
    /// that nobody asked for has no samples and a stub payload).
    pub fn ever_demanded(&self) -> bool {
        self.last_demand.is_some()
    }

    /// The latest sample's payload as JSON, rendered once per sample. An
    /// on-demand sensor nobody has asked for yet has a stub instead: the
    /// envelope with `status` `"on_demand"`, no reading and sequence 0.
    pub fn payload(&mut self) -> Option<Arc<str>> {
        if self.on_demand() && !self.ever_demanded() {
            return Some(self.header.on_demand_stub());
        }
        let latest = self.samples.back()?;
        if let Some((seq, text)) = &self.rendered {
            if *seq == latest.sequence {
                return Some(text.clone());
            }
        }
        let text: Arc<str> = self.header.render(latest).into();
        self.rendered = Some((latest.sequence, text.clone()));
        Some(text)
    }
}

/// The sensors of one vehicle, in declaration order.
#[derive(Debug, Default)]
pub struct SensorSuite {
    /// The sensors.
    pub sensors: Vec<Sensor>,
}

impl SensorSuite {
    /// Sensors for declared `(name, family)` pairs on `agent`, mounted per
    /// `mounts`. Unknown families are skipped.
    pub fn new(agent: &str, decls: &[(String, String)], mounts: &[SensorMount], seed: u64) -> Self {
        let sensors = decls
            .iter()
            .filter_map(|(name, family)| {
                let f = Family::parse(family)?;
                let mount = mounts
                    .iter()
                    .find(|m| &m.name == name)
                    .or_else(|| mounts.iter().find(|m| m.sensor_type == *family));
                Some(Sensor::new(agent, name, f, mount, seed))
            })
            .collect();
        SensorSuite { sensors }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.sensors.is_empty()
    }

    /// The sensor named `name`.
    pub fn get(&self, name: &str) -> Option<&Sensor> {
        self.sensors.iter().find(|s| s.name == name)
    }

    /// Names in declaration order.
    pub fn names(&self) -> Vec<&str> {
        self.sensors.iter().map(|s| s.name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
