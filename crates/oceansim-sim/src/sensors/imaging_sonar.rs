//! Forward-looking imaging sonar: 24 beams over ±45° azimuth, an echo
//! intensity per range bin.

use super::{to_u8, Family, Hit, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;

/// Beams.
pub const BEAMS: usize = 24;
/// Range bins per beam.
pub const BINS: usize = 32;
/// Range (m).
const MAX_RANGE_M: f64 = 30.0;

/// The imaging sonar model (5 Hz).
#[derive(Debug)]
pub struct ImagingSonar {
    beams: Vec<Vector3<f64>>,
}

impl ImagingSonar {
    /// Beams at bin-centred azimuths across ±45°.
    pub fn new() -> Self {
        let beams = (0..BEAMS)
            .map(|i| {
                let a = (-45.0 + 90.0 * (i as f64 + 0.5) / BEAMS as f64).to_radians();
                Vector3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        ImagingSonar { beams }
    }
}

/// An imaging sonar frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImagingSonarReading {
    /// Beams.
    pub beams: usize,
    /// Bins per beam.
    pub bins: usize,
    /// Azimuth span (deg).
    pub azimuth_range_deg: [f64; 2],
    /// Bin length (m).
    pub range_resolution_m: f64,
    /// Value of one intensity step.
    pub intensity_scale: f64,
    /// Intensity per beam and bin, `intensity[beam][bin]` (8-bit).
    pub intensity: Vec<Vec<u8>>,
}

impl SensorModel for ImagingSonar {
    fn family(&self) -> Family {
        Family::ImagingSonar
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.05
    }
    fn sample(&self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let hits = ctx.cast(&self.beams, MAX_RANGE_M);
        let bin = MAX_RANGE_M / BINS as f64;
        // Echo: a Gaussian blob (σ = one bin) at the return, plus uniform
        // speckle, as 8-bit intensities (value / 255).
        let intensity = hits
            .iter()
            .map(|(t, h)| {
                (0..BINS)
                    .map(|k| {
                        let z = ((k as f64 + 0.5) * bin - t) / bin;
                        let echo = if *h == Hit::None || z.abs() > 4.0 {
                            0.0
                        } else {
                            (-0.5 * z * z).exp()
                        };
                        to_u8(echo + 0.03 * rng.uniform())
                    })
                    .collect()
            })
            .collect();
        Reading::ImagingSonar(ImagingSonarReading {
            beams: BEAMS,
            bins: BINS,
            azimuth_range_deg: [-45.0, 45.0],
            range_resolution_m: bin,
            intensity_scale: 1.0 / 255.0,
            intensity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn the_wall_echoes_in_its_range_bin() {
        let (s, _) = fixture::sample(Family::ImagingSonar, None, &fixture::state());
        let Reading::ImagingSonar(r) = s.reading else {
            panic!()
        };
        // The central beams see the wall 10 m out: bin 10 / (30 / 32) = 10.67.
        let beam = &r.intensity[BEAMS / 2];
        let peak = (0..BINS).max_by_key(|&k| beam[k]).unwrap();
        assert!((10..=11).contains(&peak), "peak bin {peak}: {beam:?}");
        assert!(beam[peak] > 200);
    }
}
