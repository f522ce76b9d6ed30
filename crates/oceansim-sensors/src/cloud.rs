//! Ray hits as point clouds, shared by the camera, RGB-D and 3-D lidar.

use super::{r4, Noise, SampleCtx};
use crate::model::Beams;
use oceansim_scene::raycast::Hit;

/// The points a ray-casting sensor saw.
#[derive(Debug, Default)]
pub(crate) struct Cloud {
    /// Points (m, sensor frame), one per beam that hit.
    pub points: Vec<[f64; 3]>,
    /// The same points (m, user frame).
    pub world: Vec<[f64; 3]>,
    /// Index of the beam of each point.
    pub beam: Vec<usize>,
    /// Per beam: depth along the optical axis (mm, 0 = no return).
    pub depth_mm: Vec<u16>,
    /// Per beam: what it hit.
    pub hits: Vec<Hit>,
    /// Per point, when asked for: cosine of the incidence angle on the
    /// surface it hit.
    pub cos_incidence: Vec<f64>,
    /// Per point, when asked for: the true range (m, before noise).
    pub range: Vec<f64>,
}

/// Diffuse reflectance at 532 nm (green, the wavelength of underwater
/// lidars) of a material class: a sandy seabed 0.3, rock and concrete
/// 0.2, painted hulls 0.5.
pub(crate) fn reflectance(hit: Hit) -> f64 {
    match hit {
        Hit::None => 0.0,
        Hit::Terrain => 0.3,
        Hit::Obstacle => 0.2,
        Hit::Agent => 0.5,
    }
}

/// Beam attenuation coefficient of clear coastal water at 532 nm (1/m).
pub(crate) const WATER_ATTENUATION_PER_M: f64 = 0.05;

/// Lidar return intensity in [0, 1]: a Lambertian surface (reflectance ×
/// cos θ), attenuated by the water both ways, exp(−2·c·r); the 1/r²
/// spreading is compensated, as lidar drivers report it.
pub(crate) fn lidar_intensity(hit: Hit, cos_incidence: f64, range: f64) -> f64 {
    reflectance(hit)
        * cos_incidence.clamp(0.0, 1.0)
        * (-2.0 * WATER_ATTENUATION_PER_M * range.max(0.0)).exp()
}

/// Casts `beams` and turns the hits into noisy points; with `surface`,
/// also each point's incidence cosine and true range (the surface normal
/// costs a little per ray, so sensors that do not use it skip it).
pub(crate) fn cloud(
    ctx: &SampleCtx<'_>,
    beams: &(impl Beams + ?Sized),
    max: f64,
    sigma: f64,
    surface: bool,
    rng: &mut Noise,
) -> Cloud {
    let hits: Vec<(f64, Hit, f64)> = if surface {
        ctx.cast_surface(beams, max)
            .iter()
            .map(|(ray, d)| (ray.t, ray.hit, ray.cos_incidence(d)))
            .collect()
    } else {
        ctx.cast(beams, max)
            .into_iter()
            .map(|(t, hit)| (t, hit, 1.0))
            .collect()
    };
    let (o, to_world) = ctx.pose();
    let mut c = Cloud {
        depth_mm: Vec::with_capacity(hits.len()),
        hits: Vec::with_capacity(hits.len()),
        ..Cloud::default()
    };
    for (k, ((t, hit, cos), b)) in hits.iter().zip(beams.rays()).enumerate() {
        c.hits.push(*hit);
        if *hit == Hit::None {
            c.depth_mm.push(0);
            continue;
        }
        if surface {
            c.cos_incidence.push(*cos);
            c.range.push(*t);
        }
        let t = t + sigma * rng.gauss();
        let p = b * t;
        c.depth_mm
            .push((p.x * 1000.0).round().clamp(0.0, f64::from(u16::MAX)) as u16);
        c.points.push([r4(p.x), r4(p.y), r4(p.z)]);
        let w = o + to_world(b) * t;
        c.world.push([r4(w.x), r4(w.y), r4(w.z)]);
        c.beam.push(k);
    }
    c
}
