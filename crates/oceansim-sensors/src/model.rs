//! What a sensor model is given and gives: the context of a sample, the
//! [`SensorModel`] trait every family implements, and the sample a sensor
//! keeps.

use crate::noise::Noise;
use crate::readings::{Family, Reading};
use nalgebra::{Rotation3, Vector3, Vector6};
use oceansim_scene::raycast::{Hit, RayHit, SceneView};
use oceansim_vehicles::VehicleState;

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
    /// (cameras, imaging sonars): chunks of rays on rayon's pool (on this
    /// thread alone in a render pool's job), results in beam order and
    /// identical to the one-thread cast.
    pub fn cast_surface_par(
        &self,
        beams: &[Vector3<f64>],
        max: f64,
    ) -> Vec<(RayHit, Vector3<f64>)> {
        use rayon::prelude::*;
        const CHUNK: usize = 1024;
        if beams.len() < 2 * CHUNK || crate::serial::serial() {
            return self.cast_surface(beams, max);
        }
        // One broad phase for all the rays, collected in place (no
        // per-chunk vectors to concatenate).
        let (o, to_world) = self.pose();
        let near = self.scene.candidates_for(&o, max, beams.len());
        beams
            .par_iter()
            .with_min_len(CHUNK)
            .map(|b| {
                let d = to_world(b);
                (self.scene.raycast_surface(&o, &d, max, &near), d)
            })
            .collect()
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
