//! The sensor payload envelope (`oceansim_sensor_payload`, schema version
//! 2) every sensor reading travels in.

use super::SensorMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Covariance of a sensor's main measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Covariance {
    /// `diagonal_variance`.
    pub convention: String,
    /// Variances of the main measurement, per axis.
    pub diagonal: Vec<f64>,
    /// Per measured field, the variances of its components (e.g.
    /// `linear_acceleration`, `angular_velocity`, `velocity_body`,
    /// `altitude_m`, `depth_m`), in the field's own units squared;
    /// omitted when the sensor reports only `diagonal`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, Vec<f64>>,
}

/// The envelope of every sensor payload (`oceansim_sensor_payload`, schema
/// version 2); the family's reading `R` is flattened into it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensorPayload<R = SensorMap> {
    /// Whether the sensor is on.
    pub enabled: bool,
    /// `ok`.
    pub status: String,
    /// `oceansim_sensor_payload`.
    pub schema_name: String,
    /// 2.
    pub schema_version: u32,
    /// Family (`imu`, `lidar_2d`, ...).
    pub sensor_type: String,
    /// The vehicle's base frame id.
    pub frame_id: String,
    /// The sensor's frame id.
    pub sensor_frame_id: String,
    /// Parent of the sensor frame.
    pub parent_frame_id: String,
    /// Seed of this sensor's noise.
    pub noise_seed: u64,
    /// Mount in the body frame `[x, y, z, roll, pitch, yaw]` (m, rad).
    pub extrinsic_xyz_rpy: [f64; 6],
    /// Mount rotation `[x, y, z, w]`.
    pub extrinsic_quat_xyzw: [f64; 4],
    /// Measurement covariance.
    pub covariance: Covariance,
    /// Time of the sample (s).
    pub sim_time: f64,
    /// Same, simulation clock (s).
    pub timestamp_sim: f64,
    /// Wall-clock time of the sample; equals simulation time on the
    /// headless server so lockstep runs stay byte-identical.
    pub timestamp_wall: f64,
    /// Same as `sim_time`.
    pub timestamp: f64,
    /// Samples taken so far (0 for the sample at start).
    pub sequence: u64,
    /// The family's reading.
    #[serde(flatten)]
    pub reading: R,
}

/// Schema name of sensor payloads.
pub const SENSOR_SCHEMA_NAME: &str = "oceansim_sensor_payload";
/// Schema version of sensor payloads.
pub const SENSOR_SCHEMA_VERSION: u32 = 2;
