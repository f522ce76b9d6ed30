//! Ray hits as point clouds, shared by the camera, RGB-D and 3-D lidar.

use super::{r4, Hit, Noise, SampleCtx};
use nalgebra::Vector3;

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
}

/// Casts `beams` and turns the hits into noisy points.
pub(crate) fn cloud(
    ctx: &SampleCtx<'_>,
    beams: &[Vector3<f64>],
    max: f64,
    sigma: f64,
    rng: &mut Noise,
) -> Cloud {
    let hits = ctx.cast(beams, max);
    let (o, to_world) = ctx.pose();
    let mut c = Cloud {
        depth_mm: Vec::with_capacity(hits.len()),
        hits: Vec::with_capacity(hits.len()),
        ..Cloud::default()
    };
    for (k, ((t, h), b)) in hits.iter().zip(beams).enumerate() {
        c.hits.push(*h);
        if *h == Hit::None {
            c.depth_mm.push(0);
            continue;
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
