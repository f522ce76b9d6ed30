//! Forward-looking imaging sonar, on the geometry of a Blueprint Oculus
//! M750d in its 750 kHz mode (130° horizontal by 20° vertical aperture)
//! at 24 beams by 32 range bins over 30 m. Each beam is a fan of rays
//! over the vertical aperture; echoes follow the acoustic model of
//! [`super::acoustics`]: Lambert's law on the incidence angle, the
//! material's backscatter, spreading and absorption with the unit's gain,
//! speckle, a noise floor, and shadows where nothing returns.

use super::acoustics::{fan_bins, Acoustics};
use super::{to_u8, Family, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;

/// Beams.
pub const BEAMS: usize = 24;
/// Range bins per beam.
pub const BINS: usize = 32;
/// Rays per beam across the vertical aperture.
pub const RAYS_PER_BEAM: usize = 16;
/// Horizontal aperture (deg).
pub const HORIZONTAL_DEG: f64 = 130.0;
/// Vertical aperture (deg).
pub const VERTICAL_DEG: f64 = 20.0;
/// Range (m).
const MAX_RANGE_M: f64 = 30.0;

/// The imaging sonar model (5 Hz).
#[derive(Debug)]
pub struct ImagingSonar {
    /// `BEAMS × RAYS_PER_BEAM` rays, beam-major, each fan top to bottom.
    rays: Vec<Vector3<f64>>,
}

impl ImagingSonar {
    /// Beams at bin-centred azimuths across the horizontal aperture, each
    /// a fan of rays at bin-centred elevations across the vertical one.
    pub fn new() -> Self {
        let mut rays = Vec::with_capacity(BEAMS * RAYS_PER_BEAM);
        for i in 0..BEAMS {
            let az = (HORIZONTAL_DEG * ((i as f64 + 0.5) / BEAMS as f64 - 0.5)).to_radians();
            for j in 0..RAYS_PER_BEAM {
                // Sensor frame FRD: positive elevation looks down (+z).
                let el =
                    (VERTICAL_DEG * ((j as f64 + 0.5) / RAYS_PER_BEAM as f64 - 0.5)).to_radians();
                rays.push(Vector3::new(
                    az.cos() * el.cos(),
                    az.sin() * el.cos(),
                    el.sin(),
                ));
            }
        }
        ImagingSonar { rays }
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
    /// Vertical aperture of each beam (deg).
    pub elevation_aperture_deg: f64,
    /// Bin length (m).
    pub range_resolution_m: f64,
    /// Value of one intensity step.
    pub intensity_scale: f64,
    /// Echo level at full scale and the displayed window below it (dB).
    pub display_db: [f64; 2],
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
        let acoustics = Acoustics::IMAGING_750KHZ;
        let returns = ctx.cast_surface(&self.rays, MAX_RANGE_M);
        let bin = MAX_RANGE_M / BINS as f64;
        let intensity = returns
            .chunks(RAYS_PER_BEAM)
            .map(|fan| {
                fan_bins(&acoustics, fan, BINS, bin, rng)
                    .into_iter()
                    .map(|e| to_u8(acoustics.display(e, rng)))
                    .collect()
            })
            .collect();
        Reading::ImagingSonar(ImagingSonarReading {
            beams: BEAMS,
            bins: BINS,
            azimuth_range_deg: [-HORIZONTAL_DEG / 2.0, HORIZONTAL_DEG / 2.0],
            elevation_aperture_deg: VERTICAL_DEG,
            range_resolution_m: bin,
            intensity_scale: 1.0 / 255.0,
            display_db: [acoustics.top_db, acoustics.dynamic_range_db],
            intensity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn the_wall_echoes_in_its_range_bin_and_shadows_what_is_behind() {
        let (s, _) = fixture::sample(Family::ImagingSonar, None, &fixture::state());
        let Reading::ImagingSonar(r) = s.reading else {
            panic!()
        };
        // The central beams see the wall 10 m out (bin 10 / (30 / 32) =
        // 10.67) at normal incidence; behind it, only the noise floor.
        let beam = &r.intensity[BEAMS / 2];
        let peak = (0..BINS).max_by_key(|&k| beam[k]).unwrap();
        assert!((10..=11).contains(&peak), "peak bin {peak}: {beam:?}");
        assert!(beam[peak] > 150, "{beam:?}");
        let behind = &beam[13..];
        assert!(
            behind.iter().all(|v| *v < 40),
            "shadow behind the wall: {beam:?}"
        );
    }
}
