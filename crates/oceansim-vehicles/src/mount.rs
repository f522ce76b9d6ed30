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
    /// Image geometry of a `camera` or `rgbd_dense_cloud` sensor; when
    /// omitted, [`CameraParams::PERCEPTION`] for a camera and
    /// [`CameraParams::DEFAULT`] for an RGB-D camera. Refused on other
    /// families.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraParams>,
    /// Beams, bins and range of a sonar (`imaging_sonar`,
    /// `multibeam_sonar`, `side_scan_sonar`); each family's own defaults
    /// when omitted. Refused on other families.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sonar: Option<SonarParams>,
}

/// A camera's image: size, field of view, range and the water it looks
/// through.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraParams {
    /// Columns (px), 8 to 1920.
    pub width_px: u32,
    /// Rows (px), 8 to 1080.
    pub height_px: u32,
    /// Horizontal field of view (deg), 10 to 170; square pixels.
    #[serde(default = "CameraParams::default_hfov")]
    pub hfov_deg: f64,
    /// Farthest depth measured (m), 0.5 to 65 (depth images hold 16-bit
    /// millimetres).
    #[serde(default = "CameraParams::default_range")]
    pub max_range_m: f64,
    /// Multiplier of clear coastal water's light attenuation, 0 to 20
    /// (1 = clear coastal water, 5 = a turbid harbour).
    #[serde(default = "CameraParams::default_turbidity")]
    pub turbidity: f64,
}

impl CameraParams {
    /// 160 × 120 px, 90° horizontal field of view, 15 m, clear water.
    pub const DEFAULT: CameraParams = CameraParams {
        width_px: 160,
        height_px: 120,
        hfov_deg: 90.0,
        max_range_m: 15.0,
        turbidity: 1.0,
    };
    /// The perception preset: 320 × 240 px, otherwise [`Self::DEFAULT`].
    pub const PERCEPTION: CameraParams = CameraParams {
        width_px: 320,
        height_px: 240,
        ..CameraParams::DEFAULT
    };
    fn default_hfov() -> f64 {
        Self::DEFAULT.hfov_deg
    }
    fn default_range() -> f64 {
        Self::DEFAULT.max_range_m
    }
    fn default_turbidity() -> f64 {
        Self::DEFAULT.turbidity
    }
}

impl Default for CameraParams {
    fn default() -> Self {
        CameraParams::DEFAULT
    }
}

/// A sonar's resolution and range; what is omitted keeps the family's
/// default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SonarParams {
    /// Beams (imaging, multibeam) or rays per side (side-scan), 2 to 1024.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beams: Option<u32>,
    /// Range bins per beam or per side, 4 to 4096 (not for the multibeam,
    /// which reports one sounding per beam).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bins: Option<u32>,
    /// Range (m), 1 to 500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_range_m: Option<f64>,
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
        check_imaging(i, m, bad);
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

/// Checks a mount's camera and sonar parameters: the family takes them,
/// and each lies in its documented range.
fn check_imaging(i: usize, m: &SensorMount, bad: &mut impl FnMut(&str, String)) {
    let family = m.sensor_type.as_str();
    let mut range = |field: &str, x: f64, lo: f64, hi: f64| {
        // Also catches NaN.
        let ok = x >= lo && x <= hi;
        if !ok {
            bad(
                &format!("sensors[{i}].{field}"),
                format!("must be in [{lo}, {hi}], got {x}"),
            );
        }
    };
    if let Some(c) = &m.camera {
        range("camera.width_px", f64::from(c.width_px), 8.0, 1920.0);
        range("camera.height_px", f64::from(c.height_px), 8.0, 1080.0);
        range("camera.hfov_deg", c.hfov_deg, 10.0, 170.0);
        range("camera.max_range_m", c.max_range_m, 0.5, 65.0);
        range("camera.turbidity", c.turbidity, 0.0, 20.0);
    }
    if let Some(s) = &m.sonar {
        if let Some(b) = s.beams {
            range("sonar.beams", f64::from(b), 2.0, 1024.0);
        }
        if let Some(b) = s.bins {
            range("sonar.bins", f64::from(b), 4.0, 4096.0);
        }
        if let Some(r) = s.max_range_m {
            range("sonar.max_range_m", r, 1.0, 500.0);
        }
    }
    let camera = matches!(family, "camera" | "rgbd_dense_cloud");
    let sonar = matches!(
        family,
        "imaging_sonar" | "multibeam_sonar" | "side_scan_sonar"
    );
    if m.camera.is_some() && !camera {
        bad(
            &format!("sensors[{i}].camera"),
            format!("only a `camera` or `rgbd_dense_cloud` sensor takes image parameters, not `{family}`"),
        );
    }
    if m.sonar.is_some() && !sonar {
        bad(
            &format!("sensors[{i}].sonar"),
            format!("only a sonar takes sonar parameters, not `{family}`"),
        );
    }
    if family == "multibeam_sonar" && m.sonar.is_some_and(|s| s.bins.is_some()) {
        bad(
            &format!("sensors[{i}].sonar.bins"),
            "a multibeam reports one sounding per beam and takes no `bins`".into(),
        );
    }
}
