//! Side-scan sonar: 16 rays per side from 15° to 80° below horizontal,
//! binned by range into port and starboard intensity lines.

use super::{to_u8, Family, Hit, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;

/// Rays per side.
pub const RAYS: usize = 16;
/// Range bins per side.
pub const BINS: usize = 32;
/// Range (m).
const MAX_RANGE_M: f64 = 50.0;

/// The side-scan model (5 Hz).
#[derive(Debug)]
pub struct SideScan {
    rays: Vec<Vector3<f64>>,
}

impl SideScan {
    /// Port rays first, then starboard (sensor frame, y starboard, z down).
    pub fn new() -> Self {
        let rays = [-1.0, 1.0]
            .iter()
            .flat_map(|side| {
                (0..RAYS).map(move |i| {
                    // 15°..80° below horizontal: shallower rays rarely return within range.
                    let d = (15.0 + 65.0 * i as f64 / (RAYS - 1) as f64).to_radians();
                    Vector3::new(0.0, side * d.cos(), d.sin())
                })
            })
            .collect();
        SideScan { rays }
    }
}

/// A side-scan ping.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideScanReading {
    /// Bins per side.
    pub bins: usize,
    /// Bin length (m).
    pub range_resolution_m: f64,
    /// Value of one intensity step.
    pub intensity_scale: f64,
    /// Port intensities by range (8-bit).
    pub port: Vec<u8>,
    /// Starboard intensities by range (8-bit).
    pub starboard: Vec<u8>,
}

impl SensorModel for SideScan {
    fn family(&self) -> Family {
        Family::SideScanSonar
    }
    fn seabed_beams(&self) -> Vec<Vector3<f64>> {
        self.rays.clone()
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.05
    }
    fn sample(&self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let hits = ctx.cast(&self.rays, MAX_RANGE_M);
        let bin = MAX_RANGE_M / BINS as f64;
        let mut side = |rays: &[(f64, Hit)]| -> Vec<u8> {
            let mut v = [0.0; BINS];
            for (t, h) in rays {
                if *h != Hit::None {
                    let k = ((t / bin) as usize).min(BINS - 1);
                    v[k] += if *h == Hit::Terrain { 0.5 } else { 1.0 };
                }
            }
            v.iter().map(|x| to_u8(x + 0.03 * rng.uniform())).collect()
        };
        let port = side(&hits[..RAYS]);
        let starboard = side(&hits[RAYS..]);
        Reading::SideScan(SideScanReading {
            bins: BINS,
            range_resolution_m: bin,
            intensity_scale: 1.0 / 255.0,
            port,
            starboard,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn the_seabed_returns_no_nearer_than_the_altitude() {
        let (s, _) = fixture::sample(Family::SideScanSonar, None, &fixture::state());
        let Reading::SideScan(r) = s.reading else {
            panic!()
        };
        // 14 m altitude: nothing within 14 m but speckle (< 0.04), echoes beyond.
        let first = (14.0 / (MAX_RANGE_M / BINS as f64)) as usize;
        assert!(r.port[..first].iter().all(|x| *x < 10), "{:?}", r.port);
        assert!(r.port[first..].iter().any(|x| *x > 100), "{:?}", r.port);
        assert_eq!(r.port.len(), BINS);
    }
}
