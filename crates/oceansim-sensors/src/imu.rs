//! Inertial measurement unit: specific force and body rates in the FRD
//! body frame, and the attitude.
//!
//! The specific force is what an accelerometer at the mount point r (body)
//! measures: f = ν̇₁ + ω × ν₁ + ω̇ × r + ω × (ω × r) − Rᵀ g, with ν₁ the
//! body velocity, ω the body rates and g = [0, 0, 9.81] m/s² in NED. ω × ν₁
//! is the centripetal term of a turning vehicle (ν₁ is measured in the
//! rotating body frame); the last two are the lever arm's.
//!
//! Errors, per axis, in Allan-variance terms, from the profile's
//! `imu_noise` (`ImuNoise`); by default a tactical-grade MEMS unit: white
//! noise of density 0.002 m/s²/√Hz (accelerometer) and 2·10⁻⁴ rad/s/√Hz
//! (gyro; 0.011 °/s/√Hz), i.e. σ = 0.02 m/s² and 0.002 rad/s per sample at
//! 100 Hz; a turn-on bias drawn once (σ 0.01 m/s², 10⁻⁴ rad/s); and bias
//! random walks of 10⁻⁴ m/s²/√s and 10⁻⁵ rad/s/√s. The payload's
//! `covariance.fields` gives the per-sample white-noise variance of
//! `linear_acceleration` and `angular_velocity`. Every draw comes from
//! the sensor's seeded stream, so a run repeats.

use super::readings::FRAME_CONVENTION;
use super::{r4, Family, ImuReading, Noise, Reading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use oceansim_vehicles::ImuNoise;

const RATE_HZ: f64 = 100.0;

/// The IMU model (100 Hz) and its drifting biases.
#[derive(Debug, Default)]
pub struct Imu {
    /// Its error model.
    noise: ImuNoise,
    /// Accelerometer and gyro biases `[ax, ay, az, gx, gy, gz]`, and when
    /// they were last advanced (s); `None` before the first sample.
    bias: Option<([f64; 6], f64)>,
}

impl Imu {
    /// An IMU with these errors.
    pub fn new(noise: ImuNoise) -> Self {
        Imu { noise, bias: None }
    }

    /// Advances the biases to `t` by their random walks.
    fn advance(&mut self, t: f64, rng: &mut Noise) -> [f64; 6] {
        let (mut b, last) = self.bias.unwrap_or_else(|| {
            let (a0, g0) = (self.noise.accel_turn_on_bias, self.noise.gyro_turn_on_bias);
            let mut b = [0.0; 6];
            for (k, v) in b.iter_mut().enumerate() {
                *v = if k < 3 { a0 } else { g0 } * rng.gauss();
            }
            (b, t)
        });
        let dt = (t - last).max(0.0).sqrt();
        for (k, v) in b.iter_mut().enumerate() {
            *v += if k < 3 {
                self.noise.accel_bias_random_walk
            } else {
                self.noise.gyro_bias_random_walk
            } * dt
                * rng.gauss();
        }
        self.bias = Some((b, t));
        b
    }
}

impl SensorModel for Imu {
    fn family(&self) -> Family {
        Family::Imu
    }
    fn rate_hz(&self) -> f64 {
        RATE_HZ
    }
    fn sigma(&self) -> f64 {
        self.noise.accel_noise_density * RATE_HZ.sqrt()
    }
    fn field_variances(&self) -> Vec<(&'static str, Vec<f64>)> {
        let sg = self.noise.gyro_noise_density * RATE_HZ.sqrt();
        vec![
            ("linear_acceleration", vec![self.sigma().powi(2); 3]),
            ("angular_velocity", vec![sg * sg; 3]),
        ]
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
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
        let (sa, sg) = (self.sigma(), self.noise.gyro_noise_density * RATE_HZ.sqrt());
        // White noise first (six draws), then the bias walk, so the white
        // noise of sample k is the same whatever came before.
        let white: [f64; 6] = std::array::from_fn(|k| if k < 3 { sa } else { sg } * rng.gauss());
        let b = self.advance(ctx.time, rng);
        let e = |k: usize| white[k] + b[k];
        Reading::Imu(ImuReading {
            linear_acceleration: [r4(a.x + e(0)), r4(a.y + e(1)), r4(a.z + e(2))],
            angular_velocity: [r4(w.x + e(3)), r4(w.y + e(4)), r4(w.z + e(5))],
            orientation_quat_xyzw: [q.i, q.j, q.k, q.w],
            frame_convention: FRAME_CONVENTION,
        })
    }
    fn imu_bias(&self) -> Option<[f64; 6]> {
        self.bias.map(|(b, _)| b)
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
            imu_noise: None,
            camera: None,
            sonar: None,
        };
        let (s, _) = fixture::sample(Family::Imu, Some(&m), &st);
        let Reading::Imu(r) = s.reading else { panic!() };
        assert!((r.linear_acceleration[0] + 0.09).abs() < 0.06, "{r:?}");
    }

    #[test]
    fn biases_wander_as_random_walks_of_the_documented_strength() {
        // Many independent units, each advanced over 100 s in 1 s steps:
        // the bias change has variance walk² · 100 s per axis.
        let (units, steps) = (400, 100);
        let (mut sa, mut sg) = (0.0, 0.0);
        for u in 0..units {
            let mut imu = Imu::default();
            let mut first = None;
            for k in 0..=steps {
                let mut rng = Noise::new(u as u64, k);
                let b = imu.advance(k as f64, &mut rng);
                first.get_or_insert(b);
            }
            let (b0, b1) = (first.unwrap(), imu.imu_bias().unwrap());
            sa += (b1[0] - b0[0]).powi(2);
            sg += (b1[5] - b0[5]).powi(2);
        }
        let rel = |sum: f64, walk: f64| (sum / units as f64) / (walk * walk * steps as f64);
        // 400 samples of a chi-square: the ratio is 1 within ±25 % (4σ).
        assert!(
            (rel(sa, ImuNoise::TACTICAL_MEMS.accel_bias_random_walk) - 1.0).abs() < 0.25,
            "{}",
            rel(sa, ImuNoise::TACTICAL_MEMS.accel_bias_random_walk)
        );
        assert!(
            (rel(sg, ImuNoise::TACTICAL_MEMS.gyro_bias_random_walk) - 1.0).abs() < 0.25,
            "{}",
            rel(sg, ImuNoise::TACTICAL_MEMS.gyro_bias_random_walk)
        );
    }

    #[test]
    fn the_profile_sets_the_error_model_and_the_covariance_says_so() {
        // A perfect unit at rest reads exactly −g along body z.
        let perfect = oceansim_vehicles::SensorMount {
            name: "imu".into(),
            sensor_type: "imu".into(),
            position_m: [0.0; 3],
            rotation_rpy_deg: [0.0; 3],
            imu_noise: Some(ImuNoise {
                accel_noise_density: 0.0,
                gyro_noise_density: 0.0,
                accel_bias_random_walk: 0.0,
                gyro_bias_random_walk: 0.0,
                accel_turn_on_bias: 0.0,
                gyro_turn_on_bias: 0.0,
            }),
            camera: None,
            sonar: None,
        };
        let (s, text) = fixture::sample(Family::Imu, Some(&perfect), &fixture::state());
        let Reading::Imu(r) = s.reading else { panic!() };
        assert_eq!(r.linear_acceleration, [0.0, 0.0, -9.81]);
        assert_eq!(r.angular_velocity, [0.0; 3]);
        assert!(text.contains("\"fields\":{\"angular_velocity\":[0.0,0.0,0.0],\"linear_acceleration\":[0.0,0.0,0.0]}"), "{text}");
        // The default unit: σ² = density² · rate per sample.
        let (_, text) = fixture::sample(Family::Imu, None, &fixture::state());
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let f = &v["covariance"]["fields"];
        let want_a = (0.002f64 * 10.0).powi(2);
        assert!(
            (f["linear_acceleration"][0].as_f64().unwrap() - want_a).abs() < 1e-12,
            "{f}"
        );
        let want_g = (2e-4f64 * 10.0).powi(2);
        assert!(
            (f["angular_velocity"][2].as_f64().unwrap() - want_g).abs() < 1e-12,
            "{f}"
        );
    }
}
