//! Planar lidar: 90 beams over 360° in the sensor's x–y plane.

use super::{r4, Family, Lidar2dReading, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use oceansim_scene::raycast::Hit;
use std::f64::consts::PI;

/// Beams per scan.
pub const BEAMS: usize = 90;
/// Range (m).
const MAX_RANGE_M: f64 = 20.0;

/// The planar lidar model (10 Hz, σ = 2 cm).
#[derive(Debug)]
pub struct Lidar2d {
    beams: Vec<Vector3<f64>>,
}

impl Lidar2d {
    /// A scan whose first beam points straight back (−π) and whose beams
    /// turn from x toward +y (starboard) in even steps, in the sensor's x–y plane.
    pub fn new() -> Self {
        let beams = (0..BEAMS)
            .map(|i| {
                let a = -PI + 2.0 * PI * i as f64 / BEAMS as f64;
                Vector3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        Lidar2d { beams }
    }
}

impl SensorModel for Lidar2d {
    fn family(&self) -> Family {
        Family::Lidar2d
    }
    fn rate_hz(&self) -> f64 {
        10.0
    }
    fn sigma(&self) -> f64 {
        0.02
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let hits = ctx.cast(&self.beams, MAX_RANGE_M);
        let sigma = self.sigma();
        let ranges = hits
            .iter()
            .map(|(t, h)| {
                if *h == Hit::None {
                    MAX_RANGE_M
                } else {
                    r4(t + sigma * rng.gauss())
                }
            })
            .collect();
        let intensities = hits
            .iter()
            .map(|(t, h)| {
                if *h == Hit::None {
                    0.0
                } else {
                    r4(1.0 / (1.0 + t))
                }
            })
            .collect();
        Reading::Lidar2d(Lidar2dReading {
            angle_min_rad: -PI,
            angle_increment_rad: 2.0 * PI / BEAMS as f64,
            range_min_m: 0.1,
            range_max_m: MAX_RANGE_M,
            ranges,
            intensities,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn the_forward_beam_ranges_the_wall() {
        let (s, _) = fixture::sample(Family::Lidar2d, None, &fixture::state());
        let Reading::Lidar2d(r) = s.reading else {
            panic!()
        };
        assert_eq!(r.ranges.len(), BEAMS);
        // Beam BEAMS/2 points forward (angle 0): the wall 10 m north.
        assert!(
            (r.ranges[BEAMS / 2] - 10.0).abs() < 0.1,
            "{}",
            r.ranges[BEAMS / 2]
        );
        // Straight back: open water to full range.
        assert_eq!(r.ranges[0], MAX_RANGE_M);
        assert_eq!(r.intensities[0], 0.0);
    }
}
