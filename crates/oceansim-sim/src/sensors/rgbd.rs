//! RGB-D camera: the camera's rays as a coloured point cloud.

use super::camera::pixel_rays;
use super::{cloud, Family, Hit, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;

/// Range (m).
const MAX_RANGE_M: f64 = 15.0;

/// The RGB-D model (5 Hz, σ = 1 cm).
#[derive(Debug)]
pub struct Rgbd {
    rays: Vec<Vector3<f64>>,
}

impl Rgbd {
    /// An RGB-D camera with the camera's pixel rays.
    pub fn new() -> Self {
        Rgbd { rays: pixel_rays() }
    }
}

/// An RGB-D reading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RgbdReading {
    /// Number of points.
    pub point_count: usize,
    /// Points (m, sensor frame).
    pub points: Vec<[f64; 3]>,
    /// Points (m, user frame).
    pub points_world: Vec<[f64; 3]>,
    /// Colour of each point by what it hit.
    pub colors_rgb: Vec<[u8; 3]>,
}

impl SensorModel for Rgbd {
    fn family(&self) -> Family {
        Family::RgbdDenseCloud
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.01
    }
    fn sample(&self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let c = cloud(ctx, &self.rays, MAX_RANGE_M, self.sigma(), false, rng);
        let colors_rgb = c
            .beam
            .iter()
            .map(|&k| match c.hits[k] {
                Hit::Terrain => [150, 140, 110],
                Hit::Obstacle => [90, 90, 100],
                _ => [230, 180, 40],
            })
            .collect();
        Reading::Rgbd(RgbdReading {
            point_count: c.points.len(),
            points: c.points,
            points_world: c.world,
            colors_rgb,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn points_lie_on_the_wall_in_the_world_frame() {
        let (s, _) = fixture::sample(Family::RgbdDenseCloud, None, &fixture::state());
        let Reading::Rgbd(r) = s.reading else {
            panic!()
        };
        assert_eq!(r.point_count, r.points_world.len());
        let on_wall = r
            .points_world
            .iter()
            .zip(&r.colors_rgb)
            .filter(|(_, c)| **c == [90, 90, 100])
            .count();
        assert!(on_wall > 50, "{on_wall} points on the wall");
        for (p, c) in r.points_world.iter().zip(&r.colors_rgb) {
            if *c == [90, 90, 100] {
                assert!((p[1] - 10.0).abs() < 0.06, "wall face at y = 10: {p:?}");
            }
        }
    }
}
