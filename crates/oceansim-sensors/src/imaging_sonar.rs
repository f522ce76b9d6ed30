//! Forward-looking imaging sonar, on the geometry of a Blueprint Oculus
//! M750d in its 750 kHz mode (130° horizontal by 20° vertical aperture)
//! at 256 beams by 512 range bins over 30 m by default (a profile's
//! `sonar` entry sets beams, bins and range). Each beam is a fan of rays
//! over the vertical aperture; echoes follow the acoustic model of
//! [`super::acoustics`]: Lambert's law on the incidence angle, the
//! material's backscatter, spreading and absorption with the unit's gain,
//! speckle, a noise floor, and shadows where nothing returns.

use super::acoustics::{fan_bins, Acoustics};
use super::{Family, ImagingSonarReading, Noise, Reading, SampleCtx, SensorModel};
use crate::image::{Image, Pixels};
use crate::model::Fan;
use nalgebra::Vector3;
use oceansim_vehicles::SonarParams;

/// Default beams: the M750d forms 512 (interpolated) beams over 130°;
/// half that keeps its angular detail at a quarter of the cost.
pub const BEAMS: usize = 256;
/// Default range bins per beam (6 cm at 30 m).
pub const BINS: usize = 512;
/// Rays per beam across the vertical aperture.
pub const RAYS_PER_BEAM: usize = 16;
/// Horizontal aperture (deg).
pub const HORIZONTAL_DEG: f64 = 130.0;
/// Vertical aperture (deg).
pub const VERTICAL_DEG: f64 = 20.0;
/// Default range (m).
pub const MAX_RANGE_M: f64 = 30.0;

/// The imaging sonar model (5 Hz).
#[derive(Debug, Clone)]
pub struct ImagingSonar {
    beams: usize,
    bins: usize,
    range_m: f64,
    /// `beams × RAYS_PER_BEAM` rays, beam-major, each fan top to bottom.
    rays: Fan,
    /// Whether the reading carries the PNG (off in the batched lanes).
    png: bool,
}

impl ImagingSonar {
    /// Beams at bin-centred azimuths across the horizontal aperture, each
    /// a fan of rays at bin-centred elevations across the vertical one;
    /// what `params` leaves out keeps the defaults above.
    pub fn new(params: SonarParams) -> Self {
        let beams = params.beams.map_or(BEAMS, |b| b as usize);
        let mut rays = Vec::with_capacity(beams * RAYS_PER_BEAM);
        for i in 0..beams {
            let az = (HORIZONTAL_DEG * ((i as f64 + 0.5) / beams as f64 - 0.5)).to_radians();
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
        ImagingSonar {
            beams,
            bins: params.bins.map_or(BINS, |b| b as usize),
            range_m: params.max_range_m.unwrap_or(MAX_RANGE_M),
            rays: Fan::new(rays),
            png: true,
        }
    }
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
    fn on_demand(&self) -> bool {
        true
    }
    fn detached(&self) -> Option<Box<dyn SensorModel>> {
        Some(Box::new(self.clone()))
    }
    fn set_encode_images(&mut self, on: bool) {
        self.png = on;
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let acoustics = Acoustics::IMAGING_750KHZ;
        let floor = acoustics.noise_floor();
        let empty = acoustics.empty_bins(floor);
        let returns = ctx.cast_surface_par(&self.rays, self.range_m);
        let bin = self.range_m / self.bins as f64;
        let intensity: Vec<Vec<u8>> = returns
            .chunks(RAYS_PER_BEAM)
            .map(|fan| {
                fan_bins(&acoustics, fan, self.bins, bin, rng)
                    .into_iter()
                    .map(|e| acoustics.display_u8(floor, &empty, e, rng))
                    .collect()
            })
            .collect();
        let png = if self.png {
            let polar: Vec<u8> = (0..self.bins)
                .flat_map(|k| intensity.iter().map(move |beam| beam[k]))
                .collect();
            Image::new(self.beams as u32, self.bins as u32, Pixels::Gray8(polar))
                .map(|i| i.to_png_base64())
                .unwrap_or_default()
        } else {
            String::new()
        };
        Reading::ImagingSonar(ImagingSonarReading {
            beams: self.beams,
            bins: self.bins,
            azimuth_range_deg: [-HORIZONTAL_DEG / 2.0, HORIZONTAL_DEG / 2.0],
            elevation_aperture_deg: VERTICAL_DEG,
            range_resolution_m: bin,
            max_range_m: self.range_m,
            intensity_scale: 1.0 / 255.0,
            display_db: [acoustics.top_db, acoustics.dynamic_range_db],
            encoding: super::PNG_BASE64,
            intensity_png_base64: png,
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
        // The central beams see the wall 10 m out at normal incidence;
        // behind it, only the noise floor.
        let bin = MAX_RANGE_M / BINS as f64;
        let beam = &r.intensity[BEAMS / 2];
        let peak = (0..BINS).max_by_key(|&k| beam[k]).unwrap();
        let at = peak as f64 * bin;
        assert!((9.8..=10.4).contains(&at), "peak at {at} m: {beam:?}");
        assert!(beam[peak] > 150, "{beam:?}");
        let behind = &beam[(12.5 / bin) as usize..];
        assert!(
            behind.iter().all(|v| *v < 40),
            "shadow behind the wall: {beam:?}"
        );
    }
}
