//! Doppler velocity log: body velocity over ground and altitude from one
//! downward beam.

use super::{r4, Family, Hit, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;

/// Range of the DVL's beam (m).
const MAX_RANGE_M: f64 = 30.0;

/// The DVL model (10 Hz, σ = 5 mm/s).
#[derive(Debug)]
pub struct Dvl;

/// A DVL reading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DvlReading {
    /// Body velocity `[u, v, w]` (m/s, FRD).
    pub velocity_body: [f64; 3],
    /// Height above what the beam hit (m), `null` without bottom lock.
    pub altitude_m: Option<f64>,
    /// Whether the beam found the bottom within range.
    pub bottom_lock: bool,
}

impl SensorModel for Dvl {
    fn family(&self) -> Family {
        Family::Dvl
    }
    fn seabed_beams(&self) -> Vec<Vector3<f64>> {
        vec![Vector3::new(0.0, 0.0, 1.0)]
    }
    fn rate_hz(&self) -> f64 {
        10.0
    }
    fn sigma(&self) -> f64 {
        0.005
    }
    fn sample(&self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let (alt, hit) = ctx.cast(&[Vector3::new(0.0, 0.0, 1.0)], MAX_RANGE_M)[0];
        let valid = hit != Hit::None;
        let nu = ctx.state.nu;
        let sigma = self.sigma();
        let mut n = || sigma * rng.gauss();
        Reading::Dvl(DvlReading {
            velocity_body: [r4(nu[0] + n()), r4(nu[1] + n()), r4(nu[2] + n())],
            altitude_m: valid.then(|| r4(alt + n())),
            bottom_lock: valid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn locks_on_the_seabed_below() {
        let (s, _) = fixture::sample(Family::Dvl, None, &fixture::state());
        let Reading::Dvl(r) = s.reading else { panic!() };
        assert!(r.bottom_lock);
        assert!((r.altitude_m.unwrap() - 14.0).abs() < 0.05, "{r:?}");
    }
}
