//! Multibeam echosounder: 32 beams across a 120° swath in the sensor's y–z
//! plane, reporting slant ranges and the depth of each sounding.

use super::{r4, Family, Hit, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;

/// Beams.
pub const BEAMS: usize = 32;
/// Range (m).
const MAX_RANGE_M: f64 = 60.0;

/// The multibeam model (5 Hz, σ = 5 cm).
#[derive(Debug)]
pub struct Multibeam {
    beams: Vec<Vector3<f64>>,
}

impl Multibeam {
    /// Beams across ±60° about the sensor's +z axis.
    pub fn new() -> Self {
        let beams = (0..BEAMS)
            .map(|i| {
                let b = (-60.0 + 120.0 * (i as f64 + 0.5) / BEAMS as f64).to_radians();
                Vector3::new(0.0, b.sin(), b.cos())
            })
            .collect();
        Multibeam { beams }
    }
}

/// A multibeam ping.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultibeamReading {
    /// Beams.
    pub beams: usize,
    /// Swath (deg).
    pub swath_deg: f64,
    /// Slant range per beam (m), `null` without a return.
    pub ranges: Vec<Option<f64>>,
    /// Depth of each sounding (m, positive down), `null` without a return.
    pub depths_m: Vec<Option<f64>>,
}

impl SensorModel for Multibeam {
    fn family(&self) -> Family {
        Family::MultibeamSonar
    }
    fn seabed_beams(&self) -> Vec<Vector3<f64>> {
        self.beams.clone()
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.05
    }
    fn sample(&self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let hits = ctx.cast(&self.beams, MAX_RANGE_M);
        let (o, to_world) = ctx.pose();
        let sigma = self.sigma();
        let ranges = hits
            .iter()
            .map(|(t, h)| (*h != Hit::None).then(|| r4(t + sigma * rng.gauss())))
            .collect();
        let depths_m = hits
            .iter()
            .zip(&self.beams)
            .map(|((t, h), b)| (*h != Hit::None).then(|| r4(-(o + to_world(b) * *t).z)))
            .collect();
        Reading::Multibeam(MultibeamReading {
            beams: BEAMS,
            swath_deg: 120.0,
            ranges,
            depths_m,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn mounted_downward_it_sounds_the_flat_seabed() {
        let (s, _) = fixture::sample(Family::MultibeamSonar, None, &fixture::state());
        let Reading::Multibeam(r) = s.reading else {
            panic!()
        };
        // Unrotated, the swath's +z is the body's down: every beam that
        // reaches the 20 m seabed reports depth 20.
        let depths: Vec<f64> = r.depths_m.iter().flatten().copied().collect();
        assert!(depths.len() >= BEAMS / 2, "{:?}", r.depths_m);
        for d in depths {
            assert!((d - 20.0).abs() < 1e-3, "{d}");
        }
    }
}
