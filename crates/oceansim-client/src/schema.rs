//! The `oceansim_sensor_payload` envelope: normalising and validating sensor
//! payloads (the Rust counterpart of the Python SDK's `sensor_schema`).
//!
//! Every sensor payload the simulator returns (`get_sensors`, `get_state`,
//! `step`) is a JSON object carrying an envelope next to the sensor's own
//! reading:
//!
//! | field | type |
//! |---|---|
//! | `enabled` | bool |
//! | `status` | string (`"ok"`, `"disabled"`, ...) |
//! | `schema_name` | [`SCHEMA_NAME`] |
//! | `schema_version` | integer ≥ [`MIN_SCHEMA_VERSION`] |
//! | `sensor_type` | non-empty string |
//! | `sim_time`, `timestamp_sim`, `timestamp_wall`, `timestamp` | finite numbers (s) |
//! | `sequence` | non-negative integer |
//! | `frame_id`, `sensor_frame_id`, `parent_frame_id` | non-empty strings |
//! | `noise_seed` | integer (the full `u64` range, or a negative `i64`) |
//! | `extrinsic_xyz_rpy` | 6 finite numbers: mount position (m) and roll, pitch, yaw (rad) |
//! | `extrinsic_quat_xyzw` | 4 finite numbers, unit norm within [`QUAT_NORM_TOLERANCE`] |
//! | `covariance` | `{"convention": ..., "diagonal": [variances...]}` or `{"convention": ..., "matrix": [[...], ...]}` |
//!
//! The extrinsics place the sensor frame in the vehicle's `frame_id` (its
//! base link); positions are in metres, angles in radians. Payloads round
//! their numbers to 3 decimals, hence the loose quaternion tolerance.
//!
//! [`normalize_sensor_payload`] fills the fields a compact or hand-written
//! payload leaves out (it never overwrites a field that is present);
//! [`validate_sensor_payload`] normalises and then rejects fields that are
//! present but wrong; [`validate_sensor_set`] does both for a whole
//! `sensors` map and checks that the sensors a caller relies on are there.
//!
//! ```
//! use oceansim_client::schema::{validate_sensor_payload, SCHEMA_NAME};
//! use serde_json::json;
//!
//! let depth = validate_sensor_payload(&json!({"depth_m": 5.963, "sim_time": 1.5}), "depth")?;
//! assert_eq!(depth["schema_name"], SCHEMA_NAME);
//! assert_eq!(depth["timestamp"], 1.5);
//! assert_eq!(depth["depth_m"], 5.963);
//! # Ok::<(), oceansim_client::schema::SensorSchemaError>(())
//! ```

use serde_json::{Map, Value};

/// The `schema_name` of every sensor payload.
pub const SCHEMA_NAME: &str = "oceansim_sensor_payload";

/// The oldest `schema_version` this client reads (and the version
/// [`normalize_sensor_payload`] fills in).
pub const MIN_SCHEMA_VERSION: u64 = 2;

/// How far `|extrinsic_quat_xyzw|` may be from 1: payloads round to 3
/// decimals, so a unit quaternion arrives with a norm error up to ~1e-3.
pub const QUAT_NORM_TOLERANCE: f64 = 1e-3;

/// The timestamp fields, in the order a missing one is filled from.
const TIME_FIELDS: [&str; 3] = ["sim_time", "timestamp_sim", "timestamp"];

/// A sensor payload or sensor set that does not follow the sensor schema.
///
/// Every variant names the sensor; [`SensorSchemaError::code`] is a stable
/// machine-readable code and [`SensorSchemaError::field`] the offending
/// envelope field, when there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SensorSchemaError {
    /// A sensor the caller requires is absent from the sensor set.
    #[error("required sensor `{name}` is missing from the sensor set")]
    MissingSensor {
        /// The required sensor's name.
        name: String,
    },
    /// The payload is not a JSON object.
    #[error("sensor `{sensor}`: payload is not a JSON object (got {found})")]
    NotAnObject {
        /// The sensor's name.
        sensor: String,
        /// The payload, abbreviated.
        found: String,
    },
    /// `schema_name` is not [`SCHEMA_NAME`].
    #[error("sensor `{sensor}`: field `schema_name` is {found}, expected \"{expected}\"")]
    SchemaMismatch {
        /// The sensor's name.
        sensor: String,
        /// The payload's `schema_name`, abbreviated JSON.
        found: String,
        /// [`SCHEMA_NAME`].
        expected: &'static str,
    },
    /// `schema_version` is an integer older than [`MIN_SCHEMA_VERSION`].
    #[error(
        "sensor `{sensor}`: field `schema_version` is {version}, older than the minimum {minimum}"
    )]
    UnsupportedVersion {
        /// The sensor's name.
        sensor: String,
        /// The payload's `schema_version`.
        version: i64,
        /// [`MIN_SCHEMA_VERSION`].
        minimum: u64,
    },
    /// An envelope field of the wrong type, length or value.
    #[error("sensor `{sensor}`: field `{field}` is invalid: {reason}")]
    InvalidField {
        /// The sensor's name.
        sensor: String,
        /// The field, dotted for nested ones (`covariance.diagonal`).
        field: String,
        /// What is wrong with it, with the value found.
        reason: String,
    },
}

impl SensorSchemaError {
    /// Stable machine-readable code: `missing_sensor`,
    /// `sensor_payload_not_object`, `sensor_schema_mismatch`,
    /// `unsupported_sensor_schema_version` or `invalid_sensor_field`.
    ///
    /// ```
    /// use oceansim_client::schema::validate_sensor_payload;
    /// use serde_json::json;
    ///
    /// let err = validate_sensor_payload(&json!({"sequence": -1}), "dvl").unwrap_err();
    /// assert_eq!(err.code(), "invalid_sensor_field");
    /// assert_eq!(err.field(), Some("sequence"));
    /// assert_eq!(err.sensor(), "dvl");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            SensorSchemaError::MissingSensor { .. } => "missing_sensor",
            SensorSchemaError::NotAnObject { .. } => "sensor_payload_not_object",
            SensorSchemaError::SchemaMismatch { .. } => "sensor_schema_mismatch",
            SensorSchemaError::UnsupportedVersion { .. } => "unsupported_sensor_schema_version",
            SensorSchemaError::InvalidField { .. } => "invalid_sensor_field",
        }
    }

    /// The offending envelope field (`schema_name`, `covariance.diagonal`,
    /// ...), or `None` when the error is about the whole payload or set.
    pub fn field(&self) -> Option<&str> {
        match self {
            SensorSchemaError::MissingSensor { .. } | SensorSchemaError::NotAnObject { .. } => None,
            SensorSchemaError::SchemaMismatch { .. } => Some("schema_name"),
            SensorSchemaError::UnsupportedVersion { .. } => Some("schema_version"),
            SensorSchemaError::InvalidField { field, .. } => Some(field),
        }
    }

    /// The sensor the error is about.
    pub fn sensor(&self) -> &str {
        match self {
            SensorSchemaError::MissingSensor { name } => name,
            SensorSchemaError::NotAnObject { sensor, .. }
            | SensorSchemaError::SchemaMismatch { sensor, .. }
            | SensorSchemaError::UnsupportedVersion { sensor, .. }
            | SensorSchemaError::InvalidField { sensor, .. } => sensor,
        }
    }
}

/// A copy of `payload` with every missing envelope field filled in; fields
/// that are present (even `null` or wrong ones) are kept as they are.
///
/// Defaults: `enabled` `true`; `status` `"ok"`, or `"disabled"` when
/// `enabled` is `false`; `schema_name` [`SCHEMA_NAME`]; `schema_version`
/// [`MIN_SCHEMA_VERSION`]; `sensor_type` the `sensor_type` argument (pass
/// `"unknown"` when there is nothing better); `sim_time`, `timestamp_sim`,
/// `timestamp` and `timestamp_wall` the first numeric one of `sim_time`,
/// `timestamp_sim`, `timestamp` present, else `0.0`; `sequence` 0;
/// `frame_id` `"base_link"`; `sensor_frame_id` the sensor type next to the
/// base link (`"auv/main/base_link"` gives `"auv/main/depth"`, a frame not
/// ending in `base_link` gets `"/{sensor_type}"` appended); `parent_frame_id`
/// the `frame_id`; `noise_seed` 0; `extrinsic_xyz_rpy` six zeros;
/// `extrinsic_quat_xyzw` the identity `[0, 0, 0, 1]`; `covariance`
/// `{"convention": "diagonal_variance", "diagonal": [0, 0, 0]}`.
///
/// A payload that is not an object (a bare number, an array, ...) becomes a
/// default envelope whose `"value"` key holds it. (Validation still rejects
/// such payloads: see [`validate_sensor_payload`].)
///
/// ```
/// use oceansim_client::schema::normalize_sensor_payload;
/// use serde_json::json;
///
/// let p = normalize_sensor_payload(
///     &json!({"frame_id": "auv/main/base_link", "timestamp": 2.0, "enabled": false}),
///     "sonar",
/// );
/// assert_eq!(p["status"], "disabled");
/// assert_eq!(p["sensor_type"], "sonar");
/// assert_eq!(p["sensor_frame_id"], "auv/main/sonar");
/// assert_eq!(p["parent_frame_id"], "auv/main/base_link");
/// assert_eq!(p["sim_time"], 2.0);
/// assert_eq!(p["extrinsic_quat_xyzw"], json!([0.0, 0.0, 0.0, 1.0]));
///
/// let wrapped = normalize_sensor_payload(&json!(5.9), "depth");
/// assert_eq!(wrapped["value"], 5.9);
/// ```
pub fn normalize_sensor_payload(payload: &Value, sensor_type: &str) -> Value {
    let mut map = match payload {
        Value::Object(map) => map.clone(),
        other => {
            let mut map = Map::new();
            map.insert("value".to_owned(), other.clone());
            map
        }
    };
    fill_envelope(&mut map, sensor_type);
    Value::Object(map)
}

/// Inserts `key` with `make()` when it is absent.
fn fill(map: &mut Map<String, Value>, key: &str, make: impl FnOnce() -> Value) {
    if !map.contains_key(key) {
        map.insert(key.to_owned(), make());
    }
}

/// Fills the missing envelope fields of `map` (see
/// [`normalize_sensor_payload`]).
fn fill_envelope(map: &mut Map<String, Value>, default_type: &str) {
    fill(map, "enabled", || Value::Bool(true));
    let disabled = map.get("enabled").and_then(Value::as_bool) == Some(false);
    fill(map, "status", || {
        Value::from(if disabled { "disabled" } else { "ok" })
    });
    fill(map, "schema_name", || Value::from(SCHEMA_NAME));
    fill(map, "schema_version", || Value::from(MIN_SCHEMA_VERSION));
    fill(map, "sensor_type", || Value::from(default_type));

    let time = TIME_FIELDS
        .iter()
        .find_map(|key| map.get(*key).filter(|v| v.is_number()).cloned())
        .unwrap_or_else(|| Value::from(0.0));
    for key in TIME_FIELDS.iter().chain(&["timestamp_wall"]) {
        fill(map, key, || time.clone());
    }
    fill(map, "sequence", || Value::from(0u64));

    fill(map, "frame_id", || Value::from("base_link"));
    let frame = map
        .get("frame_id")
        .and_then(Value::as_str)
        .unwrap_or("base_link")
        .to_owned();
    let sensor_type = map
        .get("sensor_type")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(if default_type.is_empty() {
            "sensor"
        } else {
            default_type
        })
        .to_owned();
    fill(map, "sensor_frame_id", || {
        Value::from(sensor_frame_for(&frame, &sensor_type))
    });
    fill(map, "parent_frame_id", || Value::from(frame));

    fill(map, "noise_seed", || Value::from(0u64));
    fill(map, "extrinsic_xyz_rpy", || Value::from(vec![0.0; 6]));
    fill(map, "extrinsic_quat_xyzw", || {
        Value::from(vec![0.0, 0.0, 0.0, 1.0])
    });
    fill(map, "covariance", || {
        let mut cov = Map::new();
        cov.insert("convention".to_owned(), Value::from("diagonal_variance"));
        cov.insert("diagonal".to_owned(), Value::from(vec![0.0; 3]));
        Value::Object(cov)
    });
}

/// The default sensor frame: a sibling of the base link
/// (`auv/main/base_link` → `auv/main/{sensor_type}`), or a child of any
/// other frame.
fn sensor_frame_for(frame: &str, sensor_type: &str) -> String {
    if frame == "base_link" {
        sensor_type.to_owned()
    } else if let Some(prefix) = frame.strip_suffix("/base_link") {
        format!("{prefix}/{sensor_type}")
    } else {
        format!("{frame}/{sensor_type}")
    }
}

/// Normalises `payload` (see [`normalize_sensor_payload`]) and checks every
/// envelope field; returns the normalised payload.
///
/// `name` names the sensor in errors and is the default `sensor_type`.
/// Since missing fields are filled, what this rejects is fields that are
/// present but wrong: a `schema_name` other than [`SCHEMA_NAME`], a
/// `schema_version` that is not an integer or is below
/// [`MIN_SCHEMA_VERSION`], non-numeric timestamps, a negative or fractional
/// `sequence`, empty frame ids, extrinsics of the wrong length or with
/// non-numeric entries, a non-unit quaternion, a malformed `covariance`,
/// and payloads that are not objects at all.
///
/// ```
/// use oceansim_client::schema::validate_sensor_payload;
/// use serde_json::json;
///
/// let err = validate_sensor_payload(&json!({"extrinsic_xyz_rpy": [0.0, 1.0]}), "imu")
///     .unwrap_err();
/// assert_eq!(err.field(), Some("extrinsic_xyz_rpy"));
/// assert!(err.to_string().contains("`imu`"));
/// ```
pub fn validate_sensor_payload(payload: &Value, name: &str) -> Result<Value, SensorSchemaError> {
    if !payload.is_object() {
        return Err(SensorSchemaError::NotAnObject {
            sensor: name.to_owned(),
            found: abbreviate(payload),
        });
    }
    let normalized = normalize_sensor_payload(payload, name);
    if let Value::Object(map) = &normalized {
        Checker { sensor: name, map }.check()?;
    }
    Ok(normalized)
}

/// Validates every payload of a `sensors` map (each normalised with its key
/// as the default `sensor_type`) after checking that every `required`
/// sensor is present; returns the normalised payloads by name.
///
/// ```
/// use oceansim_client::schema::validate_sensor_set;
/// use serde_json::json;
///
/// let sensors = json!({"depth": {"depth_m": 5.0}, "imu": {"sequence": 3}});
/// let sensors = sensors.as_object().unwrap();
/// let valid = validate_sensor_set(sensors, &["depth"])?;
/// assert_eq!(valid["imu"]["sensor_type"], "imu");
///
/// let err = validate_sensor_set(sensors, &["depth", "dvl"]).unwrap_err();
/// assert_eq!(err.code(), "missing_sensor");
/// # Ok::<(), oceansim_client::schema::SensorSchemaError>(())
/// ```
pub fn validate_sensor_set(
    sensors: &Map<String, Value>,
    required: &[&str],
) -> Result<Map<String, Value>, SensorSchemaError> {
    if let Some(name) = required.iter().find(|name| !sensors.contains_key(**name)) {
        return Err(SensorSchemaError::MissingSensor {
            name: (*name).to_owned(),
        });
    }
    sensors
        .iter()
        .map(|(name, payload)| Ok((name.clone(), validate_sensor_payload(payload, name)?)))
        .collect()
}

/// A value as short JSON for an error message.
fn abbreviate(value: &Value) -> String {
    const MAX_CHARS: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX_CHARS {
        text
    } else {
        let mut short: String = text.chars().take(MAX_CHARS).collect();
        short.push('…');
        short
    }
}

/// The number in `value` when it is a finite number.
fn finite(value: &Value) -> Option<f64> {
    value.as_f64().filter(|x| x.is_finite())
}

/// Checks one normalised payload's envelope.
struct Checker<'a> {
    sensor: &'a str,
    map: &'a Map<String, Value>,
}

impl Checker<'_> {
    /// The field's value (`null` when absent, which normalisation rules
    /// out).
    fn get(&self, field: &str) -> &Value {
        self.map.get(field).unwrap_or(&Value::Null)
    }

    fn invalid(&self, field: &str, reason: impl Into<String>) -> SensorSchemaError {
        SensorSchemaError::InvalidField {
            sensor: self.sensor.to_owned(),
            field: field.to_owned(),
            reason: reason.into(),
        }
    }

    fn check(&self) -> Result<(), SensorSchemaError> {
        self.schema()?;
        if !self.get("enabled").is_boolean() {
            return Err(self.expected("enabled", "a boolean"));
        }
        if !self.get("status").is_string() {
            return Err(self.expected("status", "a string"));
        }
        self.non_empty_string("sensor_type")?;
        for field in TIME_FIELDS.iter().chain(&["timestamp_wall"]) {
            if finite(self.get(field)).is_none() {
                return Err(self.expected(field, "a finite number (s)"));
            }
        }
        if self.get("sequence").as_u64().is_none() {
            return Err(self.expected("sequence", "a non-negative integer"));
        }
        for field in ["frame_id", "sensor_frame_id", "parent_frame_id"] {
            self.non_empty_string(field)?;
        }
        let seed = self.get("noise_seed");
        if seed.as_u64().is_none() && seed.as_i64().is_none() {
            return Err(self.expected("noise_seed", "an integer"));
        }
        self.numbers("extrinsic_xyz_rpy", 6)?;
        let quat = self.numbers("extrinsic_quat_xyzw", 4)?;
        let norm = quat.iter().map(|q| q * q).sum::<f64>().sqrt();
        if (norm - 1.0).abs() > QUAT_NORM_TOLERANCE {
            return Err(self.invalid(
                "extrinsic_quat_xyzw",
                format!("must be a unit quaternion (norm {norm}, tolerance {QUAT_NORM_TOLERANCE})"),
            ));
        }
        self.covariance()
    }

    /// `schema_name` and `schema_version`.
    fn schema(&self) -> Result<(), SensorSchemaError> {
        let name = self.get("schema_name");
        if name.as_str() != Some(SCHEMA_NAME) {
            return Err(SensorSchemaError::SchemaMismatch {
                sensor: self.sensor.to_owned(),
                found: abbreviate(name),
                expected: SCHEMA_NAME,
            });
        }
        let version = self.get("schema_version");
        let old = |version: i64| SensorSchemaError::UnsupportedVersion {
            sensor: self.sensor.to_owned(),
            version,
            minimum: MIN_SCHEMA_VERSION,
        };
        match (version.as_u64(), version.as_i64()) {
            (Some(v), _) if v >= MIN_SCHEMA_VERSION => Ok(()),
            // Below the minimum, so it fits an i64.
            (Some(v), _) => Err(old(i64::try_from(v).unwrap_or(i64::MAX))),
            (None, Some(v)) => Err(old(v)),
            (None, None) => Err(self.expected("schema_version", "an integer")),
        }
    }

    /// An error saying `field` should be `what`, with the value found.
    fn expected(&self, field: &str, what: &str) -> SensorSchemaError {
        self.invalid(
            field,
            format!("must be {what}, got {}", abbreviate(self.get(field))),
        )
    }

    fn non_empty_string(&self, field: &str) -> Result<(), SensorSchemaError> {
        match self.get(field).as_str() {
            Some(s) if !s.is_empty() => Ok(()),
            _ => Err(self.expected(field, "a non-empty string")),
        }
    }

    /// `field` as exactly `len` finite numbers.
    fn numbers(&self, field: &str, len: usize) -> Result<Vec<f64>, SensorSchemaError> {
        let what = format!("an array of {len} finite numbers");
        let Some(items) = self.get(field).as_array() else {
            return Err(self.expected(field, &what));
        };
        if items.len() != len {
            return Err(self.invalid(
                field,
                format!("must be {what}, got {} entries", items.len()),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                finite(item).ok_or_else(|| {
                    self.invalid(
                        field,
                        format!("must be {what}, entry {i} is {}", abbreviate(item)),
                    )
                })
            })
            .collect()
    }

    /// `covariance`: a `convention` string and a `diagonal` of variances or
    /// a square `matrix` (both checked when both are given).
    fn covariance(&self) -> Result<(), SensorSchemaError> {
        let Some(cov) = self.get("covariance").as_object() else {
            return Err(self.expected("covariance", "an object"));
        };
        match cov.get("convention").and_then(Value::as_str) {
            Some(c) if !c.is_empty() => {}
            _ => {
                return Err(self.invalid(
                    "covariance.convention",
                    format!(
                        "must be a non-empty string, got {}",
                        abbreviate(cov.get("convention").unwrap_or(&Value::Null))
                    ),
                ))
            }
        }
        let (diagonal, matrix) = (cov.get("diagonal"), cov.get("matrix"));
        if diagonal.is_none() && matrix.is_none() {
            return Err(self.invalid("covariance", "must have a `diagonal` or a `matrix`"));
        }
        if let Some(diagonal) = diagonal {
            self.variances("covariance.diagonal", diagonal)?;
        }
        if let Some(matrix) = matrix {
            self.matrix(matrix)?;
        }
        Ok(())
    }

    /// A non-empty array of non-negative finite numbers.
    fn variances(&self, field: &str, value: &Value) -> Result<(), SensorSchemaError> {
        let what = "a non-empty array of non-negative finite numbers";
        match value.as_array() {
            Some(items) if !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    if !finite(item).is_some_and(|x| x >= 0.0) {
                        return Err(self.invalid(
                            field,
                            format!("must be {what}, entry {i} is {}", abbreviate(item)),
                        ));
                    }
                }
                Ok(())
            }
            _ => Err(self.invalid(field, format!("must be {what}, got {}", abbreviate(value)))),
        }
    }

    /// A non-empty square array of arrays of finite numbers with a
    /// non-negative diagonal.
    fn matrix(&self, value: &Value) -> Result<(), SensorSchemaError> {
        const FIELD: &str = "covariance.matrix";
        let rows = match value.as_array() {
            Some(rows) if !rows.is_empty() => rows,
            _ => {
                return Err(self.invalid(
                    FIELD,
                    format!(
                        "must be a non-empty square array of arrays, got {}",
                        abbreviate(value)
                    ),
                ))
            }
        };
        let n = rows.len();
        for (i, row) in rows.iter().enumerate() {
            let Some(row) = row.as_array().filter(|r| r.len() == n) else {
                return Err(self.invalid(
                    FIELD,
                    format!("must be square ({n}×{n}), row {i} is {}", abbreviate(row)),
                ));
            };
            for (j, item) in row.iter().enumerate() {
                match finite(item) {
                    Some(x) if i != j || x >= 0.0 => {}
                    Some(_) => {
                        return Err(self.invalid(
                            FIELD,
                            format!("diagonal entry [{i}][{j}] is a negative variance"),
                        ))
                    }
                    None => {
                        return Err(self.invalid(
                            FIELD,
                            format!(
                                "entry [{i}][{j}] is {}, not a finite number",
                                abbreviate(item)
                            ),
                        ))
                    }
                }
            }
        }
        Ok(())
    }
}
