//! Inertial measurement unit: specific force and body rates in the FRD
//! body frame, and the attitude.
//!
//! The specific force is what an accelerometer at the mount point r (body)
//! measures: f = ν̇₁ + ω × ν₁ + ω̇ × r + ω × (ω × r) − Rᵀ g, with ν₁ the
//! body velocity, ω the body rates and g = [0, 0, 9.81] m/s² in NED. ω × ν₁
//! is the centripetal term of a turning vehicle (ν₁ is measured in the
//! rotating body frame); the last two are the lever arm's.

use super::{r4, Family, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use serde::Serialize;

/// The IMU model (100 Hz, σ = 0.02 m/s², rates σ/10).
#[derive(Debug)]
pub struct Imu;

/// An IMU reading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImuReading {
    /// Specific force (m/s², FRD body) at the mount: inertial acceleration
    /// minus gravity.
    pub linear_acceleration: [f64; 3],
    /// Body rates (rad/s, FRD).
    pub angular_velocity: [f64; 3],
    /// Body → NED attitude `[x, y, z, w]`.
    pub orientation_quat_xyzw: [f64; 4],
    /// Conventions of the fields.
    pub frame_convention: &'static str,
}

impl SensorModel for Imu {
    fn family(&self) -> Family {
        Family::Imu
    }
    fn rate_hz(&self) -> f64 {
        100.0
    }
    fn sigma(&self) -> f64 {
        0.02
    }
    fn sample(&self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let s = ctx.state;
        let g_body = s
            .attitude
            .inverse_transform_vector(&Vector3::new(0.0, 0.0, 9.81));
        let v = s.nu.fixed_rows::<3>(0).into_owned();
        let w = s.nu.fixed_rows::<3>(3).into_owned();
        let w_dot = ctx.nu_dot.fixed_rows::<3>(3).into_owned();
        let r = ctx.mount.0;
        let a_origin = ctx.nu_dot.fixed_rows::<3>(0) + w.cross(&v);
        let a = a_origin + w_dot.cross(r) + w.cross(&w.cross(r)) - g_body;
        let q = s.attitude.quaternion();
        let sigma = self.sigma();
        let mut n = || sigma * rng.gauss();
        Reading::Imu(ImuReading {
            linear_acceleration: [r4(a.x + n()), r4(a.y + n()), r4(a.z + n())],
            angular_velocity: [
                r4(w.x + n() * 0.1),
                r4(w.y + n() * 0.1),
                r4(w.z + n() * 0.1),
            ],
            orientation_quat_xyzw: [q.i, q.j, q.k, q.w],
            frame_convention: "FRD body, specific force (m/s^2), rates (rad/s)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn at_rest_it_feels_gravity_upward() {
        let (s, _) = fixture::sample(Family::Imu, None, &fixture::state());
        let Reading::Imu(r) = s.reading else { panic!() };
        // Specific force at rest is −g in NED: up, so −9.81 along body z (down).
        assert!((r.linear_acceleration[2] + 9.81).abs() < 0.1, "{r:?}");
        assert!(r.linear_acceleration[0].abs() < 0.1);
        assert_eq!(r.orientation_quat_xyzw, [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn in_a_steady_turn_it_feels_the_centripetal_acceleration() {
        // Surging at 2 m/s while yawing at 0.3 rad/s to starboard, ν̇ = 0:
        // the path curves right, so the body accelerates toward starboard
        // at u r = 0.6 m/s² (a circle of radius u / r = 6.7 m).
        let mut st = fixture::state();
        st.nu = nalgebra::Vector6::new(2.0, 0.0, 0.0, 0.0, 0.0, 0.3);
        let (s, _) = fixture::sample(Family::Imu, None, &st);
        let Reading::Imu(r) = s.reading else { panic!() };
        assert!((r.linear_acceleration[1] - 0.6).abs() < 0.1, "{r:?}");
        assert!(r.linear_acceleration[0].abs() < 0.1);
        assert!((r.linear_acceleration[2] + 9.81).abs() < 0.1);
        assert!((r.angular_velocity[2] - 0.3).abs() < 0.01);
        // Mounted 1 m ahead of the origin the lever arm adds ω × (ω × r):
        // −r² · 1 m = −0.09 m/s² along x.
        let m = oceansim_vehicles::SensorMount {
            name: "imu".into(),
            sensor_type: "imu".into(),
            position_m: [1.0, 0.0, 0.0],
            rotation_rpy_deg: [0.0; 3],
        };
        let (s, _) = fixture::sample(Family::Imu, Some(&m), &st);
        let Reading::Imu(r) = s.reading else { panic!() };
        assert!((r.linear_acceleration[0] + 0.09).abs() < 0.06, "{r:?}");
    }
}
