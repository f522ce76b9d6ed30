//! Camera: a 90° pinhole with a depth image and a segmentation image.

use super::{cloud, Family, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;
use std::collections::BTreeMap;

/// Image width (px).
pub const WIDTH: usize = 16;
/// Image height (px).
pub const HEIGHT: usize = 12;
/// Range of the depth image (m).
const MAX_RANGE_M: f64 = 15.0;

/// (fx = fy, cx, cy) of the 90° camera (px).
pub fn intrinsics() -> (f64, f64, f64) {
    let fx = (WIDTH as f64 / 2.0) / (45f64.to_radians()).tan();
    (fx, WIDTH as f64 / 2.0, HEIGHT as f64 / 2.0)
}

/// One ray per pixel through its centre, row-major (sensor frame: x along
/// the optical axis, y right, z down).
pub fn pixel_rays() -> Vec<Vector3<f64>> {
    let (fx, cx, cy) = intrinsics();
    (0..HEIGHT)
        .flat_map(|v| {
            (0..WIDTH).map(move |u| {
                Vector3::new(1.0, (u as f64 + 0.5 - cx) / fx, (v as f64 + 0.5 - cy) / fx)
                    .normalize()
            })
        })
        .collect()
}

/// The camera model (5 Hz, σ = 1 cm).
#[derive(Debug)]
pub struct Camera {
    rays: Vec<Vector3<f64>>,
}

impl Camera {
    /// A camera with its pixel rays.
    pub fn new() -> Self {
        Camera { rays: pixel_rays() }
    }
}

/// Pinhole intrinsics (px).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Intrinsics {
    /// Focal length x.
    pub fx: f64,
    /// Focal length y.
    pub fy: f64,
    /// Principal point x.
    pub cx: f64,
    /// Principal point y.
    pub cy: f64,
}

/// A camera reading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CameraReading {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Intrinsics.
    pub intrinsics: Intrinsics,
    /// Depth along the optical axis per pixel, row-major (mm, 0 = none).
    pub depth_image_mm: Vec<u16>,
    /// Class per pixel, row-major (see `segmentation_classes`).
    pub segmentation: Vec<u8>,
    /// Class id → name.
    pub segmentation_classes: BTreeMap<&'static str, &'static str>,
}

/// Segmentation classes, shared with the ray-hit codes.
pub fn classes() -> BTreeMap<&'static str, &'static str> {
    [
        ("0", "water"),
        ("1", "terrain"),
        ("2", "static_obstacle"),
        ("3", "dynamic_agent"),
    ]
    .into()
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
    fn sample(&self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let c = cloud(ctx, &self.rays, MAX_RANGE_M, self.sigma(), false, rng);
        let (f, cx, cy) = intrinsics();
        Reading::Camera(CameraReading {
            width: WIDTH,
            height: HEIGHT,
            intrinsics: Intrinsics {
                fx: f,
                fy: f,
                cx,
                cy,
            },
            depth_image_mm: c.depth_mm,
            segmentation: c.hits.iter().map(|h| *h as u8).collect(),
            segmentation_classes: classes(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn the_wall_ahead_fills_the_image_centre_at_its_distance() {
        let (s, _) = fixture::sample(Family::Camera, None, &fixture::state());
        let Reading::Camera(r) = s.reading else {
            panic!()
        };
        assert_eq!(r.depth_image_mm.len(), WIDTH * HEIGHT);
        // Centre pixel: the wall 10 m ahead (depth along the axis).
        let centre = (HEIGHT / 2) * WIDTH + WIDTH / 2;
        assert_eq!(r.segmentation[centre], 2, "static obstacle");
        assert!((f64::from(r.depth_image_mm[centre]) - 10_000.0).abs() < 60.0);
    }
}
