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
#[cfg(test)]
mod fixture;
pub mod frame_tree;
pub mod image;
mod imaging_sonar;
mod imu;
mod lidar_2d;
mod lidar_3d;
pub mod milli;
mod model;
mod mount;
mod multibeam;
mod noise;
mod pending;
mod pool;
mod readings;
mod rgbd;
mod serial;
mod side_scan;
mod steps;

use envelope::Header;

// Re-exports, not imports: the families name these through `super::` and
// so depend on the files that define them, not on this one.
pub use camera::{colour_segmentation, SEGMENTATION_PALETTE};
pub(crate) use cloud::cloud;
pub use dvl::{BEAM_ANGLE_DEG as DVL_BEAM_ANGLE_DEG, MAX_RANGE_M as DVL_MAX_RANGE_M};
pub use error::{Result, SensorError};
pub(crate) use model::{r4, to_u8};
pub use model::{Beams, Fan, SampleCtx, SensorModel, SensorSample};
pub use mount::{check_mounts, mount_problem};
pub use noise::Noise;
pub use oceansim_scene::raycast::{Candidates, Hit, RayHit, SceneView};
pub use pending::{PendingSample, RenderJob, SampleInputs, SampleSlot};
pub use pool::RenderPool;
pub use readings::{
    CameraReading, DepthReading, DvlReading, Family, FixedStr, ImagingSonarReading, ImuReading,
    Intrinsics, Lidar2dReading, Lidar3dReading, MultibeamReading, Reading, RgbdReading,
    SideScanReading, PNG_BASE64,
};

use nalgebra::{Rotation3, UnitQuaternion, Vector3};
use oceansim_scene::terrain::splitmix64;
use oceansim_vehicles::{CameraParams, SensorMount};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Samples kept per sensor (the latest last).
pub const SENSOR_BUFFER: usize = 16;

impl Family {
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
    /// Shared, so the recorder keeps a sample without copying its images;
    /// a sample rendering on a worker is a pending slot until it is done.
    samples: VecDeque<SampleSlot>,
    /// Samples kept (the latest last): [`SENSOR_BUFFER`] unless set.
    capacity: usize,
    /// The next sample's sequence number (kept here, not read from the
    /// latest sample: that one is cold in memory when thousands of lanes
    /// sample in turn).
    next_sequence: u64,
    rendered: Option<(u64, Arc<str>)>,
    /// Nanoseconds spent rendering this sensor's on-demand samples, on
    /// this thread or a render worker (jobs carry a handle to it).
    render_ns: Arc<AtomicU64>,
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
            render_ns: Arc::default(),
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
        self.samples
            .back()
            .is_none_or(|s| time - s.time() >= self.period_s - 1e-9)
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
        // Only renders are timed: a clock read would be a tenth of an IMU
        // sample.
        let started = self.model.on_demand().then(Instant::now);
        let reading = self.model.sample(&ctx, &mut rng);
        if let Some(started) = started {
            add_elapsed(&self.render_ns, started);
        }
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
            Some(SampleSlot::Ready(mut old)) => match Arc::get_mut(&mut old) {
                Some(slot) => {
                    *slot = sample;
                    old
                }
                None => Arc::new(sample),
            },
            _ => Arc::new(sample),
        };
        self.samples.push_back(SampleSlot::Ready(shared));
    }

    /// Takes a sample whose render runs elsewhere: numbers it now, keeps
    /// its pending slot in the buffer, and returns the job that renders
    /// it, to run on any thread (readers of the sample wait for it). The
    /// sample equals, value for value, the one [`Sensor::sample`] would
    /// take from the same inputs. `None` when the model cannot render
    /// detached ([`SensorModel::detached`]): the sample was taken here.
    pub fn sample_detached(&mut self, inputs: &SampleInputs) -> Option<RenderJob> {
        let Some(model) = self.model.detached() else {
            self.sample(&inputs.ctx());
            return None;
        };
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        let job = RenderJob::new(
            model,
            inputs.clone(),
            (self.mount_xyz, self.mount_rot),
            self.header.noise_seed,
            sequence,
            self.render_ns.clone(),
        );
        if self.samples.len() >= self.capacity {
            self.samples.pop_front();
        }
        self.samples
            .push_back(SampleSlot::Pending(job.pending().clone()));
        Some(job)
    }

    /// Seconds of CPU spent rendering this sensor's on-demand samples so
    /// far (on any thread; renders still running not yet counted).
    pub fn render_seconds(&self) -> f64 {
        self.render_ns.load(Ordering::Relaxed) as f64 * 1e-9
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

    /// The latest sample (waiting for its render if it is running on a
    /// worker).
    pub fn latest(&self) -> Option<&SensorSample> {
        self.samples.back().map(|s| &**s.get())
    }

    /// The buffered samples, oldest first (waiting for renders).
    pub fn samples(&self) -> impl Iterator<Item = &SensorSample> + Clone {
        self.samples.iter().map(|s| &**s.get())
    }

    /// The buffered samples, oldest first, shared (waiting for renders).
    pub fn shared_samples(&self) -> impl Iterator<Item = &Arc<SensorSample>> + Clone {
        self.samples.iter().map(SampleSlot::get)
    }

    /// The newest rendered sample (no waiting: a live view shows it while
    /// a newer one renders).
    pub fn latest_ready(&self) -> Option<&Arc<SensorSample>> {
        self.samples
            .iter()
            .rev()
            .find(|s| s.is_ready())
            .map(SampleSlot::get)
    }

    /// The buffered samples, oldest first, as slots: rendered or still
    /// rendering (no waiting).
    pub fn slots(&self) -> impl Iterator<Item = &SampleSlot> + Clone {
        self.samples.iter()
    }

    /// Sequence number of the latest sample (known before its render is
    /// done).
    pub fn sequence(&self) -> Option<u64> {
        self.samples.back().map(SampleSlot::sequence)
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
        let latest = self.samples.back()?.get();
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

/// Adds the time since `started` to a render-time counter (ns).
pub(crate) fn add_elapsed(counter: &AtomicU64, started: Instant) {
    let ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    counter.fetch_add(ns, Ordering::Relaxed);
}
