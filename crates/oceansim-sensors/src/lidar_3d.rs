//! 3-D lidar: 8 rings from −15° to +15° elevation, 36 columns around,
//! with a return intensity per point (Lambertian reflectance at 532 nm
//! times the incidence cosine, attenuated by the water both ways).

use super::cloud::lidar_intensity;
use super::{cloud, r4, Family, Lidar3dReading, Noise, Reading, SampleCtx, SensorModel};
use crate::model::Fan;
use nalgebra::Vector3;

/// Rings (elevations).
pub const RINGS: usize = 8;
/// Columns (azimuths).
pub const COLUMNS: usize = 36;
/// Range (m).
const MAX_RANGE_M: f64 = 25.0;

/// The 3-D lidar model (5 Hz, σ = 2 cm).
#[derive(Debug)]
pub struct Lidar3d {
    beams: Fan,
}

impl Lidar3d {
    /// Beams ring by ring, columns from −180° (sensor frame, z down, so a
    /// positive elevation looks up).
    pub fn new() -> Self {
        let beams = (0..RINGS)
            .flat_map(|r| {
                let e = (-15.0 + 30.0 * r as f64 / (RINGS - 1) as f64).to_radians();
                (0..COLUMNS).map(move |c| {
                    let a = (-180.0 + 360.0 * c as f64 / COLUMNS as f64).to_radians();
                    Vector3::new(e.cos() * a.cos(), e.cos() * a.sin(), -e.sin())
                })
            })
            .collect::<Vec<_>>();
        Lidar3d {
            beams: Fan::new(beams),
        }
    }
}

impl SensorModel for Lidar3d {
    fn family(&self) -> Family {
        Family::Lidar3d
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.02
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let c = cloud(ctx, &self.beams, MAX_RANGE_M, self.sigma(), true, rng);
        Reading::Lidar3d(Lidar3dReading {
            rings: RINGS,
            columns: COLUMNS,
            point_count: c.points.len(),
            ring_column: c.beam.iter().map(|k| [k / COLUMNS, k % COLUMNS]).collect(),
            intensities: c
                .beam
                .iter()
                .zip(c.cos_incidence.iter().zip(&c.range))
                .map(|(k, (cos, r))| r4(lidar_intensity(c.hits[*k], *cos, *r)))
                .collect(),
            points: c.points,
            points_world: c.world,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn forward_columns_return_from_the_wall() {
        let (s, _) = fixture::sample(Family::Lidar3d, None, &fixture::state());
        let Reading::Lidar3d(r) = s.reading else {
            panic!()
        };
        // Column 18 points forward; every ring sees the wall within ±15°.
        let forward: Vec<_> = r
            .ring_column
            .iter()
            .zip(&r.points_world)
            .filter(|(rc, _)| rc[1] == COLUMNS / 2)
            .collect();
        assert_eq!(forward.len(), RINGS);
        for (_, p) in forward {
            assert!((p[1] - 10.0).abs() < 0.1, "{p:?}");
        }
        // One intensity per return; the wall (rock-like, 0.2) head-on at
        // 10 m: 0.2 · cos(elevation) · e^(−1) ≈ 0.07.
        assert_eq!(r.intensities.len(), r.point_count);
        let i = r
            .ring_column
            .iter()
            .position(|rc| rc[1] == COLUMNS / 2)
            .unwrap();
        let want = 0.2
            * (-2.0 * 0.05 * 10.0f64 / (15f64.to_radians().cos())).exp()
            * 15f64.to_radians().cos();
        assert!(
            (r.intensities[i] - want).abs() < 2e-3,
            "{} vs {want}",
            r.intensities[i]
        );
    }
}
