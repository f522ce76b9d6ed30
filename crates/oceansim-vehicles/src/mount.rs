//! Sensor mounts of a vehicle profile and the IMU error model one may
//! carry. Positions in the Fossen body frame (m), rotations in degrees.

use serde::{Deserialize, Serialize};

/// Where a sensor sits on the vehicle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensorMount {
    /// Sensor name (matches scenario sensor declarations).
    pub name: String,
    /// Sensor family, e.g. `dvl`.
    pub sensor_type: String,
    /// Position (m), Fossen body frame.
    pub position_m: [f64; 3],
    /// Mounting rotation roll, pitch, yaw (degrees) relative to the body.
    #[serde(default)]
    pub rotation_rpy_deg: [f64; 3],
    /// Error model of an `imu` sensor; [`ImuNoise::TACTICAL_MEMS`] when
    /// omitted. Refused on other families.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imu_noise: Option<ImuNoise>,
}

/// An IMU's errors in Allan-variance terms, per axis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImuNoise {
    /// Accelerometer white-noise density, the velocity random walk
    /// (m/s²/√Hz).
    pub accel_noise_density: f64,
    /// Gyro white-noise density, the angle random walk (rad/s/√Hz).
    pub gyro_noise_density: f64,
    /// Accelerometer bias random walk (m/s²/√s).
    pub accel_bias_random_walk: f64,
    /// Gyro bias random walk (rad/s/√s).
    pub gyro_bias_random_walk: f64,
    /// Spread of the accelerometer bias drawn at turn-on (m/s²).
    #[serde(default)]
    pub accel_turn_on_bias: f64,
    /// Spread of the gyro bias drawn at turn-on (rad/s).
    #[serde(default)]
    pub gyro_turn_on_bias: f64,
}

impl ImuNoise {
    /// A tactical-grade MEMS unit: 0.002 m/s²/√Hz and 2·10⁻⁴ rad/s/√Hz
    /// (0.011 °/s/√Hz) white noise, bias random walks of 10⁻⁴ m/s²/√s and
    /// 10⁻⁵ rad/s/√s, turn-on biases of 0.01 m/s² and 10⁻⁴ rad/s.
    pub const TACTICAL_MEMS: ImuNoise = ImuNoise {
        accel_noise_density: 0.002,
        gyro_noise_density: 2e-4,
        accel_bias_random_walk: 1e-4,
        gyro_bias_random_walk: 1e-5,
        accel_turn_on_bias: 0.01,
        gyro_turn_on_bias: 1e-4,
    };

    pub(crate) fn fields(&self) -> [(&'static str, f64); 6] {
        [
            ("accel_noise_density", self.accel_noise_density),
            ("gyro_noise_density", self.gyro_noise_density),
            ("accel_bias_random_walk", self.accel_bias_random_walk),
            ("gyro_bias_random_walk", self.gyro_bias_random_walk),
            ("accel_turn_on_bias", self.accel_turn_on_bias),
            ("gyro_turn_on_bias", self.gyro_turn_on_bias),
        ]
    }
}

impl Default for ImuNoise {
    fn default() -> Self {
        ImuNoise::TACTICAL_MEMS
    }
}

/// Reports every problem of the profile's sensor mounts to `bad(path,
/// message)`.
pub(crate) fn check_mounts(sensors: &[SensorMount], bad: &mut impl FnMut(&str, String)) {
    for (i, m) in sensors.iter().enumerate() {
        let Some(noise) = &m.imu_noise else { continue };
        if m.sensor_type != "imu" {
            bad(
                &format!("sensors[{i}].imu_noise"),
                format!(
                    "only an `imu` sensor takes an error model, not `{}`",
                    m.sensor_type
                ),
            );
        }
        for (field, x) in noise.fields() {
            // Also catches NaN.
            let ok = x.is_finite() && x >= 0.0;
            if !ok {
                bad(
                    &format!("sensors[{i}].imu_noise.{field}"),
                    format!("must be a finite value >= 0, got {x}"),
                );
            }
        }
    }
}
