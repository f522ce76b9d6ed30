//! Multibeam echosounder: by default 128 beams (half the 256 of a compact
//! unit such as the R2Sonic 2020; a profile's `sonar` entry sets beams and
//! range) across a 120° swath in the sensor's y–z
//! plane, each a fan of rays over its 2° along-track aperture, reporting
//! slant ranges, the depth of each sounding and its backscatter (the
//! acoustic model of [`super::acoustics`] at 400 kHz: Lambert's law,
//! material, spreading and absorption with the unit's gain, speckle).

use super::acoustics::{speckle, Acoustics};
use super::{r4, to_u8, Family, MultibeamReading, Noise, Reading, SampleCtx, SensorModel};
use crate::model::Fan;
use nalgebra::Vector3;
use oceansim_scene::raycast::Hit;
use oceansim_vehicles::SonarParams;
use std::sync::Arc;

/// Default beams.
pub const BEAMS: usize = 128;
/// Default range (m).
pub const MAX_RANGE_M: f64 = 60.0;
/// Rays per beam over the along-track aperture.
pub const RAYS_PER_BEAM: usize = 3;
/// Along-track aperture of a beam (deg).
pub const ALONG_TRACK_DEG: f64 = 2.0;

/// Absorption near 400 kHz, a 40 dB backscatter display.
const ACOUSTICS: Acoustics = Acoustics {
    absorption_db_per_m: 0.1,
    tvg_db_per_decade: 30.0,
    top_db: -25.0,
    dynamic_range_db: 40.0,
    noise_db: -70.0,
    // One sounding per beam: no bins.
    reference_bin_m: 1.0,
};

/// The multibeam model (5 Hz, σ = 5 cm).
#[derive(Debug, Clone)]
pub struct Multibeam {
    range_m: f64,
    beams: Arc<[Vector3<f64>]>,
    /// `BEAMS × RAYS_PER_BEAM` rays, beam-major, each fan aft to fore.
    rays: Fan,
}

impl Multibeam {
    /// Beams across ±60° about the sensor's +z axis.
    pub fn new(params: SonarParams) -> Self {
        let n = params.beams.map_or(BEAMS, |b| b as usize);
        let beams = (0..n)
            .map(|i| {
                let b = (-60.0 + 120.0 * (i as f64 + 0.5) / n as f64).to_radians();
                Vector3::new(0.0, b.sin(), b.cos())
            })
            .collect::<Vec<Vector3<f64>>>();
        let rays = beams
            .iter()
            .flat_map(|b| {
                (0..RAYS_PER_BEAM).map(move |j| {
                    let a = (ALONG_TRACK_DEG * ((j as f64 + 0.5) / RAYS_PER_BEAM as f64 - 0.5))
                        .to_radians();
                    // Tilt the beam fore/aft about the sensor's y axis.
                    Vector3::new(b.z * a.sin(), b.y, b.z * a.cos())
                })
            })
            .collect::<Vec<_>>();
        Multibeam {
            range_m: params.max_range_m.unwrap_or(MAX_RANGE_M),
            beams: beams.into(),
            rays: Fan::new(rays),
        }
    }
}

impl SensorModel for Multibeam {
    fn family(&self) -> Family {
        Family::MultibeamSonar
    }
    fn seabed_beams(&self) -> Vec<Vector3<f64>> {
        self.beams.to_vec()
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
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let returns = ctx.cast_surface(&self.rays, self.range_m);
        let (o, _) = ctx.pose();
        let sigma = self.sigma();
        let (mut ranges, mut depths_m, mut intensity) = (Vec::new(), Vec::new(), Vec::new());
        for fan in returns.chunks(RAYS_PER_BEAM) {
            // Bottom detection: the echo-weighted mean range of the fan.
            let (mut energy, mut weighted, mut depth) = (0.0, 0.0, 0.0);
            for (ray, d) in fan {
                let e = ACOUSTICS.echo(ray, d) / RAYS_PER_BEAM as f64 * speckle(rng);
                energy += e;
                weighted += e * ray.t;
                depth += e * -(o + d * ray.t).z;
            }
            if energy <= 0.0 || fan.iter().all(|(r, _)| r.hit == Hit::None) {
                ranges.push(None);
                depths_m.push(None);
                intensity.push(0);
                continue;
            }
            let t = weighted / energy;
            ranges.push(Some(r4(t + sigma * rng.gauss())));
            depths_m.push(Some(r4(depth / energy)));
            intensity.push(to_u8(ACOUSTICS.display(energy, rng)));
        }
        Reading::Multibeam(MultibeamReading {
            beams: self.beams.len(),
            swath_deg: 120.0,
            max_range_m: self.range_m,
            ranges,
            depths_m,
            intensity,
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
        // Backscatter: brighter at nadir (normal incidence) than at the
        // swath's edge (60°, cos² = 0.25: −6 dB, plus range).
        let mean = |v: &[u8]| v.iter().map(|x| f64::from(*x)).sum::<f64>() / v.len() as f64;
        let nadir = mean(&r.intensity[BEAMS / 2 - 3..BEAMS / 2 + 3]);
        let edge = mean(&[&r.intensity[..3], &r.intensity[BEAMS - 3..]].concat());
        assert!(nadir > edge + 20.0, "{:?}", r.intensity);
    }
}
