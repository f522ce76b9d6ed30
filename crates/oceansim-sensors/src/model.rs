//! What a sensor model is given and gives: the context of a sample, the
//! [`SensorModel`] trait every family implements, and the sample a sensor
//! keeps.

use crate::noise::Noise;
use crate::readings::{Family, Reading};
use nalgebra::{Rotation3, Vector3, Vector6};
use oceansim_scene::raycast::{Candidates, Cone, Hit, RayHit, SceneView};
use oceansim_vehicles::VehicleState;
use std::sync::Arc;

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
    pub fn cast(&self, beams: &(impl Beams + ?Sized), max: f64) -> Vec<(f64, Hit)> {
        let (o, to_world) = self.pose();
        let near = self.near(&o, &to_world, beams, max);
        let beams = beams.rays();
        beams
            .iter()
            .map(|b| self.scene.raycast_among(&o, &to_world(b), max, &near))
            .collect()
    }
}

impl SampleCtx<'_> {
    /// The broad phase for `beams` from `o`: the obstacles and agents
    /// within `max` m whose bounding spheres the beams' cone (when they
    /// have one) meets.
    fn near(
        &self,
        o: &Vector3<f64>,
        to_world: impl Fn(&Vector3<f64>) -> Vector3<f64>,
        beams: &(impl Beams + ?Sized),
        max: f64,
    ) -> Candidates {
        let cone = beams.cone().and_then(|c| c.turned(to_world));
        self.scene
            .candidates_within(o, max, beams.rays().len(), cone.as_ref())
    }
}

/// Beams to cast (sensor frame), with the cone around them when it is
/// known: a [`Fan`] finds it once; a plain slice has none.
pub trait Beams {
    /// The beams' directions (sensor frame).
    fn rays(&self) -> &[Vector3<f64>];
    /// The cone around them (sensor frame), if any.
    fn cone(&self) -> Option<&Cone> {
        None
    }
}

impl Beams for [Vector3<f64>] {
    fn rays(&self) -> &[Vector3<f64>] {
        self
    }
}

impl Beams for Vec<Vector3<f64>> {
    fn rays(&self) -> &[Vector3<f64>] {
        self
    }
}

/// A sensor's fixed beams (sensor frame) and the cone around them, found
/// once when the sensor is built: each sample turns the cone with the
/// vehicle and leaves out of its broad phase what the cone misses (a
/// camera's frustum sees a fifth of the directions around it). Derefs to
/// the beams.
#[derive(Debug, Clone)]
pub struct Fan {
    rays: Arc<[Vector3<f64>]>,
    cone: Option<Cone>,
}

impl Fan {
    /// The fan of `rays`, with their cone when there are enough of them
    /// for culling to pay.
    pub fn new(rays: impl Into<Arc<[Vector3<f64>]>>) -> Self {
        let rays = rays.into();
        let cone = (rays.len() >= CONE_ABOVE)
            .then(|| Cone::around(rays.iter()))
            .flatten();
        Fan { rays, cone }
    }
}

impl std::ops::Deref for Fan {
    type Target = [Vector3<f64>];
    fn deref(&self) -> &[Vector3<f64>] {
        &self.rays
    }
}

impl Beams for Fan {
    fn rays(&self) -> &[Vector3<f64>] {
        &self.rays
    }
    fn cone(&self) -> Option<&Cone> {
        self.cone.as_ref()
    }
}

/// Beams a fan must have for its cone to be worth finding.
const CONE_ABOVE: usize = 64;

impl SampleCtx<'_> {
    /// Casts every beam (sensor frame) to at most `max` m, keeping the
    /// surface normal and each beam's direction (user frame), for models
    /// whose return depends on the incidence angle.
    pub fn cast_surface(
        &self,
        beams: &(impl Beams + ?Sized),
        max: f64,
    ) -> Vec<(RayHit, Vector3<f64>)> {
        let (o, to_world) = self.pose();
        let near = self.near(&o, &to_world, beams, max);
        let beams = beams.rays();
        let mut out = vec![(MISS, Vector3::zeros()); beams.len()];
        self.cast_into(&o, &to_world, &near, beams, max, &mut out);
        out
    }

    /// Casts `beams` (sensor frame) from `o` into `out` in batches
    /// ([`SceneView::raycast_surfaces`]: a batch's rays, then their
    /// normals), with each beam's direction (user frame).
    fn cast_into(
        &self,
        o: &Vector3<f64>,
        to_world: impl Fn(&Vector3<f64>) -> Vector3<f64>,
        near: &Candidates,
        beams: &[Vector3<f64>],
        max: f64,
        out: &mut [(RayHit, Vector3<f64>)],
    ) {
        const BATCH: usize = 64;
        let mut dirs = [Vector3::zeros(); BATCH];
        let mut hits = [MISS; BATCH];
        for (beams, out) in beams.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let (dirs, hits) = (&mut dirs[..beams.len()], &mut hits[..beams.len()]);
            for (d, b) in dirs.iter_mut().zip(beams) {
                *d = to_world(b);
            }
            self.scene.raycast_surfaces(o, dirs, max, near, hits);
            for ((slot, hit), d) in out.iter_mut().zip(hits.iter()).zip(dirs.iter()) {
                *slot = (*hit, *d);
            }
        }
    }
}

/// A placeholder the casts overwrite.
const MISS: RayHit = RayHit {
    t: 0.0,
    hit: Hit::None,
    normal: Vector3::new(0.0, 0.0, 0.0),
    index: 0,
};

impl SampleCtx<'_> {
    /// [`SampleCtx::cast_surface`] across threads for a large fan of beams
    /// (cameras, imaging sonars): chunks of rays on rayon's pool (on this
    /// thread alone in a render pool's job), results in beam order and
    /// identical to the one-thread cast.
    pub fn cast_surface_par(
        &self,
        beams: &(impl Beams + ?Sized),
        max: f64,
    ) -> Vec<(RayHit, Vector3<f64>)> {
        use rayon::prelude::*;
        const CHUNK: usize = 1024;
        if beams.rays().len() < 2 * CHUNK || crate::serial::serial() {
            return self.cast_surface(beams, max);
        }
        // One broad phase for all the rays, each chunk cast in place (no
        // per-chunk vectors to concatenate).
        let (o, to_world) = self.pose();
        let near = self.near(&o, &to_world, beams, max);
        let beams = beams.rays();
        let mut out = vec![(MISS, Vector3::zeros()); beams.len()];
        out.par_chunks_mut(CHUNK)
            .zip(beams.par_chunks(CHUNK))
            .for_each(|(out, beams)| self.cast_into(&o, &to_world, &near, beams, max, out));
        out
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
    /// A copy that renders on another thread, for a model whose sample
    /// is a function of its parameters, the context and the noise stream
    /// alone (the imaging families): the copy's samples equal this
    /// model's, value for value. `None` (the default) for a model that
    /// carries state from one sample to the next (the IMU's biases).
    fn detached(&self) -> Option<Box<dyn SensorModel>> {
        None
    }
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
