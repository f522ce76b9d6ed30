//! Camera: a pinhole that renders an RGB image shaded from the scene, a
//! depth image and a segmentation image, one ray per pixel.
//!
//! Image formation follows the usual simplified underwater model (after
//! Jaffe–McGlamery): sunlight comes straight down and fades with depth by
//! the diffuse attenuation `Kd`; a surface reflects it by its colour and
//! Lambert's cosine (plus a quarter as ambient light); on the way to the
//! camera the signal fades by the beam attenuation `c` and veiling light
//! (backscatter, the water's own colour) fills in what it lost:
//!
//! `I = ρ·(E(z_hit)·shade + lamp)·e^(−c·r) + B·E(z_cam)·(1 − e^(−c·r))`,
//! per channel, where the vehicle's lamp at the camera lights a surface
//! by its cosine, 1/r² and the water's attenuation, twice as bright at
//! 3 m as the daylight at the camera's depth.
//!
//! `c` and `Kd` are pure water's absorption plus `turbidity` times that of
//! the particles and dissolved matter of clear coastal water, so red fades
//! first and distance turns everything blue-green. An auto-exposure
//! scales by the light at the camera's depth; the result is gamma-encoded
//! (1/2.2) to 8-bit sRGB-like values.

use super::readings::classes;
use super::{CameraReading, Family, Intrinsics, Noise, Reading, SampleCtx, SensorModel};
use crate::image::{Image, Pixels};
use crate::model::Fan;
use crate::steps::Steps;
use nalgebra::Vector3;
use oceansim_scene::raycast::{Hit, RayHit};
use oceansim_vehicles::CameraParams;

/// Pure water absorption at the red, green and blue bands (1/m).
const PURE_WATER: [f64; 3] = [0.34, 0.06, 0.015];
/// Beam attenuation of clear coastal water's particles and dissolved
/// matter per unit of turbidity (1/m).
const PARTICLES_BEAM: [f64; 3] = [0.05, 0.06, 0.08];
/// The same matter's share of the diffuse attenuation of sunlight (1/m).
const PARTICLES_DIFFUSE: [f64; 3] = [0.03, 0.03, 0.05];
/// Colour of the veiling light (the water's backscatter).
const WATER_RGB: [f64; 3] = [0.05, 0.32, 0.38];
/// Colour of the sea surface seen from below.
const SURFACE_RGB: [f64; 3] = [0.85, 0.95, 1.0];
/// Seabed colour (sand).
const SEABED_RGB: [f64; 3] = [0.74, 0.67, 0.50];
/// Obstacle colours (rock, rust, weed, concrete), by obstacle index.
const OBSTACLE_RGB: [[f64; 3]; 4] = [
    [0.45, 0.45, 0.48],
    [0.58, 0.38, 0.26],
    [0.33, 0.50, 0.32],
    [0.62, 0.60, 0.55],
];
/// Vehicle hull colours (yellow, orange, white, red), by agent index.
const AGENT_RGB: [[f64; 3]; 4] = [
    [0.95, 0.78, 0.12],
    [0.95, 0.45, 0.10],
    [0.90, 0.90, 0.88],
    [0.80, 0.18, 0.16],
];
/// The lamp's light on a surface facing it 3 m away, as a multiple of the
/// daylight at the camera's depth (before the water's attenuation).
const LAMP_AT_3M: f64 = 2.0;
/// Farthest any ray is cast for colour (m): past a few attenuation
/// lengths the scene is lost in the veiling light.
const MAX_VISIBILITY_M: f64 = 40.0;

/// A pinhole's geometry: intrinsics and one unit ray per pixel.
#[derive(Debug, Clone)]
pub(crate) struct Optics {
    pub params: CameraParams,
    pub intrinsics: Intrinsics,
    /// One ray per pixel through its centre, row-major (sensor frame: x
    /// along the optical axis, y right, z down).
    pub rays: Fan,
    /// Beam attenuation per channel (1/m).
    beam: [f64; 3],
    /// Diffuse attenuation of sunlight per channel (1/m).
    diffuse: [f64; 3],
}

impl Optics {
    /// The optics of `params` (square pixels, principal point at the
    /// image centre).
    pub fn new(params: CameraParams) -> Self {
        let (w, h) = (params.width_px as usize, params.height_px as usize);
        let fx = (w as f64 / 2.0) / (params.hfov_deg.to_radians() / 2.0).tan();
        // OpenCV's convention: pixel centres at whole coordinates, so the
        // image centre is ((w − 1)/2, (h − 1)/2).
        let (cx, cy) = ((w as f64 - 1.0) / 2.0, (h as f64 - 1.0) / 2.0);
        let rays = (0..h)
            .flat_map(|v| {
                (0..w).map(move |u| {
                    Vector3::new(1.0, (u as f64 - cx) / fx, (v as f64 - cy) / fx).normalize()
                })
            })
            .collect::<Vec<_>>();
        let t = params.turbidity;
        Optics {
            params,
            intrinsics: Intrinsics { fx, fy: fx, cx, cy },
            rays: Fan::new(rays),
            beam: std::array::from_fn(|k| PURE_WATER[k] + t * PARTICLES_BEAM[k]),
            diffuse: std::array::from_fn(|k| PURE_WATER[k] + t * PARTICLES_DIFFUSE[k]),
        }
    }

    /// How far rays go for colour (m): the depth range, or farther where
    /// the water is clear enough to see it (three attenuation lengths of
    /// the clearest channel).
    fn colour_range(&self) -> f64 {
        let clearest = self.beam.iter().copied().fold(f64::INFINITY, f64::min);
        self.params
            .max_range_m
            .max((3.0 / clearest).min(MAX_VISIBILITY_M))
    }

    /// Sunlight at `depth` m per channel (1 at the surface).
    fn sunlight(&self, depth: f64) -> [f64; 3] {
        std::array::from_fn(|k| (-self.diffuse[k] * depth.max(0.0)).exp())
    }

    /// Renders one frame from `ctx`, with depth noise `sigma` (m).
    pub fn render(&self, ctx: &SampleCtx<'_>, sigma: f64, rng: &mut Noise) -> Frame {
        let p = &self.params;
        let (w, h) = (p.width_px as usize, p.height_px as usize);
        let hits = ctx.cast_surface_par(&self.rays, self.colour_range());
        let (origin, _) = ctx.pose();
        let ambient = self.sunlight(-origin.z);
        // Auto-exposure: the brightest channel of the light at the camera.
        let exposure = 0.9 / ambient.iter().copied().fold(1e-6, f64::max);
        // Shading (exponentials and a gamma per channel) is most of the
        // cost and needs no noise: rows on rayon's pool, in pixel order
        // (on this thread alone in a render pool's job).
        let gamma = gamma_table();
        let light = FrameLight {
            origin,
            lamp: LAMP_AT_3M * 9.0 * ambient.iter().copied().fold(0.0, f64::max),
            water: std::array::from_fn(|k| WATER_RGB[k] * ambient[k]),
            surface_before_m: self.colour_range() - 1e-9,
        };
        let pixel = |out: &mut [u8], (ray, d): &(RayHit, Vector3<f64>)| {
            let [r, g, b] = self.shade(ray, d, &light);
            out[0] = gamma.count(r * exposure) as u8;
            out[1] = gamma.count(g * exposure) as u8;
            out[2] = gamma.count(b * exposure) as u8;
        };
        // Written in place: one buffer, three bytes per hit in pixel order.
        let mut rgb = vec![0u8; hits.len() * 3];
        if crate::serial::serial() {
            for (out, hit) in rgb.chunks_exact_mut(3).zip(&hits) {
                pixel(out, hit);
            }
        } else {
            use rayon::prelude::*;
            let row = w.max(1);
            rgb.par_chunks_mut(3 * row)
                .zip(hits.par_chunks(row))
                .for_each(|(out, hits)| {
                    for (out, hit) in out.chunks_exact_mut(3).zip(hits) {
                        pixel(out, hit);
                    }
                });
        }
        let mut frame = Frame {
            rgb,
            depth_mm: Vec::with_capacity(w * h),
            segmentation: Vec::with_capacity(w * h),
        };
        // Depth noise in pixel order, so the seeded stream repeats.
        for ((ray, _), pixel) in hits.iter().zip(self.rays.iter()) {
            let measured = ray.hit != Hit::None && ray.t <= p.max_range_m;
            if measured {
                // Depth along the optical axis, with range noise.
                let z = (ray.t + sigma * rng.gauss()) * pixel.x;
                frame
                    .depth_mm
                    .push((z * 1000.0).round().clamp(1.0, f64::from(u16::MAX)) as u16);
                frame.segmentation.push(ray.hit as u8);
            } else {
                frame.depth_mm.push(0);
                frame.segmentation.push(Hit::None as u8);
            }
        }
        frame
    }

    /// Linear colour of one pixel's ray `d` (user frame) that met `ray`.
    fn shade(&self, ray: &RayHit, d: &Vector3<f64>, light: &FrameLight) -> [f64; 3] {
        let FrameLight {
            origin,
            lamp,
            water,
            surface_before_m,
        } = light;
        // Veiling light is brighter looking up, toward the sun.
        let veil: [f64; 3] = std::array::from_fn(|k| water[k] * (0.7 + 0.3 * d.z));
        let (colour, lit) = match ray.hit {
            Hit::Terrain => (SEABED_RGB, true),
            Hit::Obstacle => (OBSTACLE_RGB[ray.index % OBSTACLE_RGB.len()], true),
            Hit::Agent => (AGENT_RGB[ray.index % AGENT_RGB.len()], true),
            // The ray ended on the sea surface before its range.
            Hit::None if d.z > 0.0 && ray.t < *surface_before_m => (SURFACE_RGB, false),
            Hit::None => return veil,
        };
        // The water between, once per channel: the lamp's light crosses
        // the same water as the light coming back.
        let through: [f64; 3] = std::array::from_fn(|k| (-self.beam[k] * ray.t).exp());
        let light = if lit {
            self.lit(ray, origin, d, *lamp, &through)
        } else {
            [1.0; 3]
        };
        std::array::from_fn(|k| colour[k] * light[k] * through[k] + veil[k] * (1.0 - through[k]))
    }

    /// Light falling on the surface `ray` met: sunlight by Lambert's
    /// cosine with a quarter of it as ambient light, plus the lamp (of
    /// strength `lamp` at 1 m) by its cosine, 1/r² and the water between
    /// (`through`, per channel).
    fn lit(
        &self,
        ray: &RayHit,
        origin: &Vector3<f64>,
        d: &Vector3<f64>,
        lamp: f64,
        through: &[f64; 3],
    ) -> [f64; 3] {
        let at = origin + d * ray.t;
        let shade = 0.25 + 0.75 * ray.normal.z.max(0.0);
        let facing = (-ray.normal.dot(d)).max(0.0) / (ray.t * ray.t).max(0.25);
        let sun = self.sunlight(-at.z);
        std::array::from_fn(|k| sun[k] * shade + lamp * facing * through[k])
    }
}

/// What [`Optics::shade`] needs of a frame, once per frame rather than
/// per pixel: the same expressions, so the same values to the bit.
struct FrameLight {
    /// The camera's position (user frame, m).
    origin: Vector3<f64>,
    /// The lamp's strength on a surface facing it 1 m away.
    lamp: f64,
    /// The veiling light per channel looking level: the water's colour
    /// times the daylight at the camera.
    water: [f64; 3],
    /// A ray that ended upward short of this range (m) met the surface.
    surface_before_m: f64,
}

/// `round(255 · clamp(y, 0, 1)^(1/2.2))`, the display gamma.
fn gamma_formula(y: f64) -> u8 {
    (y.clamp(0.0, 1.0).powf(1.0 / 2.2) * 255.0).round() as u8
}

/// [`gamma_formula`] by its 255 thresholds: the formula is monotone in `y`,
/// so its value is the number of thresholds at or below `y`, each found
/// once by bisection over the formula itself, read through [`Steps`] (the
/// same values to the bit, without a `powf`; NaN gives 0 either way).
#[cfg(test)]
pub(crate) fn gamma_u8(y: f64) -> u8 {
    gamma_table().count(y) as u8
}

/// [`gamma_u8`]'s thresholds, built on first use.
fn gamma_table() -> &'static Steps<255> {
    static THRESHOLDS: std::sync::OnceLock<Steps<255>> = std::sync::OnceLock::new();
    THRESHOLDS.get_or_init(|| {
        Steps::new(std::array::from_fn(|k| {
            // The least y in [0, 1] whose value is k + 1 or more: bisection
            // over the bit patterns of non-negative floats, which order as
            // the floats do.
            let (mut lo, mut hi) = (0u64, 1.0f64.to_bits());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if usize::from(gamma_formula(f64::from_bits(mid))) > k {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            f64::from_bits(lo)
        }))
    })
}

/// One rendered frame, row-major.
#[derive(Debug)]
pub(crate) struct Frame {
    /// 8-bit RGB.
    pub rgb: Vec<u8>,
    /// Depth along the optical axis (mm, 0 = no return within range).
    pub depth_mm: Vec<u16>,
    /// Class per pixel ([`classes`]); water exactly where depth is 0.
    pub segmentation: Vec<u8>,
}

impl Frame {
    /// The three images as base64 PNG text: RGB, 16-bit depth and 8-bit
    /// segmentation.
    pub fn pngs(self, params: &CameraParams) -> [String; 3] {
        let (w, h) = (params.width_px, params.height_px);
        [
            Pixels::Rgb8(self.rgb),
            Pixels::Gray16(self.depth_mm),
            Pixels::Gray8(self.segmentation),
        ]
        .map(|px| {
            Image::new(w, h, px)
                .map(|i| i.to_png_base64())
                .unwrap_or_default()
        })
    }
}

/// The camera model (5 Hz, σ = 1 cm on depth).
#[derive(Debug, Clone)]
pub struct Camera {
    optics: Optics,
}

impl Camera {
    /// A camera of `params`.
    pub fn new(params: CameraParams) -> Self {
        Camera {
            optics: Optics::new(params),
        }
    }
}

/// The colour of each segmentation class id (RGB), for the exports'
/// colour segmentation images: water deep blue, terrain sand, static
/// obstacles red, dynamic agents yellow; an id outside the table is
/// magenta.
pub const SEGMENTATION_PALETTE: [[u8; 3]; 4] =
    [[0, 40, 90], [200, 180, 120], [220, 50, 40], [255, 210, 0]];

/// Class ids as RGB through [`SEGMENTATION_PALETTE`].
pub fn colour_segmentation(ids: &[u8]) -> Vec<u8> {
    // One lookup table over every id and a sized buffer: a `flat_map`
    // collect grows its buffer as it goes, per pixel of every exported
    // frame (twice: the MCAP file and the ROS 2 bag).
    let table: [[u8; 3]; 256] = std::array::from_fn(|i| {
        SEGMENTATION_PALETTE
            .get(i)
            .copied()
            .unwrap_or([255, 0, 255])
    });
    let mut out = vec![0u8; ids.len() * 3];
    for (px, &i) in out.chunks_exact_mut(3).zip(ids) {
        px.copy_from_slice(&table[usize::from(i)]);
    }
    out
}

impl SensorModel for Camera {
    fn family(&self) -> Family {
        Family::Camera
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.01
    }
    fn on_demand(&self) -> bool {
        true
    }
    fn detached(&self) -> Option<Box<dyn SensorModel>> {
        Some(Box::new(self.clone()))
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let o = &self.optics;
        let [rgb, depth, seg] = o.render(ctx, self.sigma(), rng).pngs(&o.params);
        Reading::Camera(CameraReading {
            width: o.params.width_px as usize,
            height: o.params.height_px as usize,
            intrinsics: o.intrinsics.clone(),
            hfov_deg: o.params.hfov_deg,
            max_range_m: o.params.max_range_m,
            turbidity: o.params.turbidity,
            encoding: super::PNG_BASE64,
            rgb_png_base64: rgb,
            depth_png_base64: depth,
            depth_unit_m: 0.001,
            segmentation_png_base64: seg,
            segmentation_classes: classes(),
        })
    }
}

#[cfg(test)]
mod tests;
