//! Doppler velocity log: four beams in a Janus configuration, 30° from the
//! sensor's +z (down) at azimuths 45°, 135°, 225° and 315° from its +x
//! (forward), as on common 600 kHz DVLs. Each beam is a ray cast to the
//! seabed (or an obstacle) within 30 m and measures the velocity along
//! itself; with three or more beams on the bottom ("bottom lock") the body
//! velocity over ground at the sensor is the least-squares solution of the
//! beam velocities, and the altitude is the mean of their vertical
//! components. Without lock the velocity is `null` and `bottom_lock` false.

use super::{r4, DvlReading, Family, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::{Matrix3, Vector3};
use oceansim_scene::raycast::Hit;

/// Range of each beam (m).
pub const MAX_RANGE_M: f64 = 30.0;
/// Beam angle from the sensor's +z axis (deg).
pub const BEAM_ANGLE_DEG: f64 = 30.0;
/// Beams needed on the bottom for a velocity.
pub const MIN_BEAMS_FOR_LOCK: usize = 3;

/// The beams (sensor frame, unit).
fn beams() -> [Vector3<f64>; 4] {
    let (s, c) = BEAM_ANGLE_DEG.to_radians().sin_cos();
    [45.0f64, 135.0, 225.0, 315.0].map(|az| {
        let (sa, ca) = az.to_radians().sin_cos();
        Vector3::new(s * ca, s * sa, c)
    })
}

/// The DVL model (10 Hz, σ = 5 mm/s per beam).
#[derive(Debug)]
pub struct Dvl;

impl SensorModel for Dvl {
    fn family(&self) -> Family {
        Family::Dvl
    }
    fn seabed_beams(&self) -> Vec<Vector3<f64>> {
        beams().to_vec()
    }
    fn rate_hz(&self) -> f64 {
        10.0
    }
    fn sigma(&self) -> f64 {
        0.005
    }
    fn field_variances(&self) -> Vec<(&'static str, Vec<f64>)> {
        // Least squares over the four beams: Var(v) = σ² (BᵀB)⁻¹, diagonal
        // for the Janus layout; altitude is the mean of four vertical
        // components of noisy ranges: σ² cos²(beam angle) / 4.
        let s2 = self.sigma().powi(2);
        let btb = beams()
            .iter()
            .fold(Matrix3::zeros(), |m, b| m + b * b.transpose());
        let var = btb.try_inverse().map_or([s2; 3], |inv| {
            [inv[(0, 0)] * s2, inv[(1, 1)] * s2, inv[(2, 2)] * s2]
        });
        let c = BEAM_ANGLE_DEG.to_radians().cos();
        vec![
            ("velocity_body", var.to_vec()),
            ("altitude_m", vec![s2 * c * c / 4.0]),
            ("beam_ranges_m", vec![s2; 4]),
        ]
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let b = beams();
        let hits = ctx.cast(&b[..], MAX_RANGE_M);
        let sigma = self.sigma();
        // Velocity of the sensor over ground, body frame: ν₁ + ω × r.
        let nu = ctx.state.nu;
        let w = Vector3::new(nu[3], nu[4], nu[5]);
        let v = Vector3::new(nu[0], nu[1], nu[2]) + w.cross(ctx.mount.0);
        // Beams in the body frame.
        let rot = ctx.mount.1;
        let mut ranges = [None; 4];
        let mut btb = Matrix3::zeros();
        let mut btd = Vector3::zeros();
        let (mut locked, mut vertical) = (0, 0.0);
        for (k, ((t, hit), bs)) in hits.iter().zip(&b).enumerate() {
            // Two draws per beam whatever it hits, so the noise stream does
            // not depend on the geometry.
            let (range_noise, doppler_noise) = (rng.gauss(), rng.gauss());
            if *hit == Hit::None {
                continue;
            }
            let bb = rot * bs;
            let measured = t + sigma * range_noise;
            ranges[k] = Some(r4(measured));
            let radial = bb.dot(&v) + sigma * doppler_noise;
            btb += bb * bb.transpose();
            btd += bb * radial;
            locked += 1;
            // Vertical component of the range in the level body frame.
            vertical += measured * (ctx.state.attitude * bb).z;
        }
        let lock = locked >= MIN_BEAMS_FOR_LOCK;
        let velocity = if lock {
            btb.try_inverse().map(|inv| {
                let v = inv * btd;
                [r4(v.x), r4(v.y), r4(v.z)]
            })
        } else {
            None
        };
        Reading::Dvl(DvlReading {
            velocity_body: velocity,
            altitude_m: lock.then(|| r4(vertical / locked as f64)),
            bottom_lock: lock && velocity.is_some(),
            beam_ranges_m: ranges,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;
    use nalgebra::Vector6;
    use oceansim_vehicles::VehicleState;

    fn at_depth(depth: f64, nu: Vector6<f64>) -> DvlReading {
        let mut st = VehicleState::at_rest(Vector3::new(0.0, 0.0, depth), 0.0, 0.0, 0.0);
        st.nu = nu;
        let (s, _) = fixture::sample(Family::Dvl, None, &st);
        let Reading::Dvl(r) = s.reading else { panic!() };
        r
    }

    #[test]
    fn four_beams_on_a_flat_seabed_give_altitude_and_velocity() {
        // Seabed 20 m deep, vehicle 6 m deep: 14 m altitude; each beam's
        // slant range is 14 / cos 30° = 16.17 m.
        let r = at_depth(6.0, Vector6::new(1.2, -0.3, 0.1, 0.0, 0.0, 0.0));
        assert!(r.bottom_lock);
        assert!((r.altitude_m.unwrap() - 14.0).abs() < 0.02, "{r:?}");
        for range in r.beam_ranges_m {
            assert!(
                (range.unwrap() - 14.0 / 30f64.to_radians().cos()).abs() < 0.03,
                "{r:?}"
            );
        }
        let v = r.velocity_body.unwrap();
        for (got, want) in v.iter().zip([1.2, -0.3, 0.1]) {
            assert!((got - want).abs() < 0.02, "{v:?}");
        }
    }

    #[test]
    fn lock_is_lost_above_the_beams_range_and_regained_below() {
        // Beams reach 30 m: vertical reach 26 m. 20 m seabed.
        let high = at_depth(-10.0, Vector6::zeros()); // 30 m altitude (above the surface is fine for the ray cast)
        assert!(!high.bottom_lock);
        assert_eq!(high.velocity_body, None);
        assert_eq!(high.altitude_m, None);
        let low = at_depth(0.0, Vector6::zeros()); // 20 m altitude
        assert!(low.bottom_lock && low.velocity_body.is_some());
        assert!((low.altitude_m.unwrap() - 20.0).abs() < 0.02);
    }
}
