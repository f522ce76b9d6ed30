//! Offline tests of the sensor-schema helpers, no server (`cloud.rs` holds
//! those of the point-cloud helpers).

use oceansim_client::schema::*;
use serde_json::{json, Map, Value};

/// A full `depth` payload as the server sends it.
fn depth_payload() -> Value {
    json!({
        "enabled": true, "status": "ok",
        "schema_name": "oceansim_sensor_payload", "schema_version": 2,
        "sensor_type": "depth",
        "frame_id": "auv/main/base_link", "sensor_frame_id": "auv/main/depth",
        "parent_frame_id": "auv/main/base_link",
        "noise_seed": 1483013997138889831u64,
        "extrinsic_xyz_rpy": [-0.3, 0.0, -0.05, 0.0, 0.0, 0.0],
        "extrinsic_quat_xyzw": [0.0, 0.0, 0.0, 1.0],
        "covariance": {"convention": "diagonal_variance", "diagonal": [0.0001, 0.0001, 0.0001]},
        "sim_time": 0.0, "timestamp_sim": 0.0, "timestamp_wall": 0.0, "timestamp": 0.0,
        "sequence": 0, "depth_m": 5.963, "pressure_pa": 161573.372
    })
}

/// `depth_payload` with `field` set to `value` (a dotted `covariance.x`
/// sets a nested field).
fn with(field: &str, value: Value) -> Value {
    let mut p = depth_payload();
    match field.split_once('.') {
        Some((outer, inner)) => p[outer][inner] = value,
        None => p[field] = value,
    }
    p
}

#[test]
fn full_valid_payload_passes_unchanged() {
    let p = depth_payload();
    assert_eq!(validate_sensor_payload(&p, "depth").unwrap(), p);
    assert_eq!(normalize_sensor_payload(&p, "other"), p);
}

#[test]
fn compact_payload_is_normalized_and_passes() {
    let p = validate_sensor_payload(
        &json!({"depth_m": 5.963, "timestamp_sim": 12.5, "frame_id": "auv/main/base_link"}),
        "depth",
    )
    .unwrap();
    assert_eq!(p["depth_m"], 5.963);
    assert_eq!(p["enabled"], true);
    assert_eq!(p["status"], "ok");
    assert_eq!(p["schema_name"], SCHEMA_NAME);
    assert_eq!(p["schema_version"], MIN_SCHEMA_VERSION);
    assert_eq!(p["sensor_type"], "depth");
    for t in ["sim_time", "timestamp_sim", "timestamp", "timestamp_wall"] {
        assert_eq!(p[t], 12.5, "{t}");
    }
    assert_eq!(p["sequence"], 0);
    assert_eq!(p["frame_id"], "auv/main/base_link");
    assert_eq!(p["sensor_frame_id"], "auv/main/depth");
    assert_eq!(p["parent_frame_id"], "auv/main/base_link");
    assert_eq!(p["noise_seed"], 0);
    assert_eq!(p["extrinsic_xyz_rpy"], json!(vec![0.0; 6]));
    assert_eq!(p["extrinsic_quat_xyzw"], json!([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(
        p["covariance"],
        json!({"convention": "diagonal_variance", "diagonal": [0.0, 0.0, 0.0]})
    );
}

#[test]
fn empty_payload_gets_default_frames_and_times() {
    let p = validate_sensor_payload(&json!({}), "sonar").unwrap();
    assert_eq!(p["frame_id"], "base_link");
    assert_eq!(p["sensor_frame_id"], "sonar");
    assert_eq!(p["parent_frame_id"], "base_link");
    assert_eq!(p["sim_time"], 0.0);
    assert_eq!(p["timestamp_wall"], 0.0);
    // A frame that is not a base link gets the sensor as a child.
    let p = normalize_sensor_payload(&json!({"frame_id": "rov"}), "camera");
    assert_eq!(p["sensor_frame_id"], "rov/camera");
    assert_eq!(p["parent_frame_id"], "rov");
}

#[test]
fn normalize_never_overwrites_present_fields() {
    let p = normalize_sensor_payload(
        &json!({"sensor_type": "dvl", "sequence": 41, "timestamp": 3.0, "timestamp_wall": 100.0,
                "status": "degraded", "noise_seed": 7, "parent_frame_id": "odom"}),
        "unknown",
    );
    assert_eq!(p["sensor_type"], "dvl");
    assert_eq!(p["sensor_frame_id"], "dvl");
    assert_eq!(p["sequence"], 41);
    assert_eq!(p["sim_time"], 3.0);
    assert_eq!(p["timestamp_wall"], 100.0);
    assert_eq!(p["status"], "degraded");
    assert_eq!(p["noise_seed"], 7);
    assert_eq!(p["parent_frame_id"], "odom");
    // Present but wrong fields stay for validation to reject.
    let p = normalize_sensor_payload(&json!({"sequence": null}), "dvl");
    assert_eq!(p["sequence"], Value::Null);
}

#[test]
fn disabled_payload_gets_disabled_status() {
    let p = validate_sensor_payload(&json!({"enabled": false}), "camera").unwrap();
    assert_eq!(p["status"], "disabled");
    assert_eq!(p["enabled"], false);
}

#[test]
fn non_object_is_wrapped_by_normalize_and_rejected_by_validate() {
    let p = normalize_sensor_payload(&json!([1, 2]), "unknown");
    assert_eq!(p["value"], json!([1, 2]));
    assert_eq!(p["sensor_type"], "unknown");
    assert_eq!(p["schema_name"], SCHEMA_NAME);

    let err = validate_sensor_payload(&json!(5.9), "depth").unwrap_err();
    assert_eq!(err.code(), "sensor_payload_not_object");
    assert_eq!(err.sensor(), "depth");
    assert_eq!(err.field(), None);
    assert!(err.to_string().contains("`depth`"), "{err}");
}

#[test]
fn each_bad_field_is_rejected_with_its_code_and_field() {
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "schema_name",
            json!("ros_payload"),
            "sensor_schema_mismatch",
        ),
        ("schema_name", json!(null), "sensor_schema_mismatch"),
        (
            "schema_version",
            json!(1),
            "unsupported_sensor_schema_version",
        ),
        (
            "schema_version",
            json!(-3),
            "unsupported_sensor_schema_version",
        ),
        ("schema_version", json!(2.5), "invalid_sensor_field"),
        ("schema_version", json!("2"), "invalid_sensor_field"),
        ("enabled", json!("yes"), "invalid_sensor_field"),
        ("status", json!(1), "invalid_sensor_field"),
        ("sensor_type", json!(""), "invalid_sensor_field"),
        ("sim_time", json!("NaN"), "invalid_sensor_field"),
        ("timestamp_sim", json!(null), "invalid_sensor_field"),
        ("timestamp_wall", json!([1.0]), "invalid_sensor_field"),
        ("timestamp", json!(true), "invalid_sensor_field"),
        ("sequence", json!(-1), "invalid_sensor_field"),
        ("sequence", json!(1.5), "invalid_sensor_field"),
        ("frame_id", json!(""), "invalid_sensor_field"),
        ("sensor_frame_id", json!(""), "invalid_sensor_field"),
        ("parent_frame_id", json!(3), "invalid_sensor_field"),
        ("noise_seed", json!(0.5), "invalid_sensor_field"),
        (
            "extrinsic_xyz_rpy",
            json!(vec![0.0; 5]),
            "invalid_sensor_field",
        ),
        (
            "extrinsic_xyz_rpy",
            json!([0, 0, 0, 0, 0, "x"]),
            "invalid_sensor_field",
        ),
        (
            "extrinsic_quat_xyzw",
            json!([0.0, 0.0, 1.0]),
            "invalid_sensor_field",
        ),
        (
            "extrinsic_quat_xyzw",
            json!([0.0, 0.0, 0.0, 1.01]),
            "invalid_sensor_field",
        ),
        (
            "extrinsic_quat_xyzw",
            json!([0.0, 0.0, 0.0, 0.0]),
            "invalid_sensor_field",
        ),
        ("covariance", json!([0.1, 0.1]), "invalid_sensor_field"),
        (
            "covariance",
            json!({"convention": "diagonal_variance"}),
            "invalid_sensor_field",
        ),
        ("covariance.convention", json!(null), "invalid_sensor_field"),
        ("covariance.diagonal", json!([]), "invalid_sensor_field"),
        (
            "covariance.diagonal",
            json!([0.1, -0.1]),
            "invalid_sensor_field",
        ),
        ("covariance.diagonal", json!("0.1"), "invalid_sensor_field"),
        (
            "covariance.matrix",
            json!([[1.0, 0.0], [0.0]]),
            "invalid_sensor_field",
        ),
        ("covariance.matrix", json!([[-1.0]]), "invalid_sensor_field"),
        (
            "covariance.matrix",
            json!([[1.0, "a"], [0.0, 1.0]]),
            "invalid_sensor_field",
        ),
    ];
    for (field, value, code) in cases {
        let err = validate_sensor_payload(&with(field, value.clone()), "depth")
            .expect_err(&format!("{field} = {value} should be rejected"));
        assert_eq!(err.code(), code, "{field} = {value}: {err}");
        assert_eq!(err.field(), Some(field), "{field} = {value}: {err}");
        assert_eq!(err.sensor(), "depth");
        let message = err.to_string();
        assert!(message.contains("`depth`"), "{message}");
        assert!(message.contains(&format!("`{field}`")), "{message}");
    }
}

#[test]
fn version_error_reports_the_version() {
    let err = validate_sensor_payload(&with("schema_version", json!(1)), "imu").unwrap_err();
    assert_eq!(
        err,
        SensorSchemaError::UnsupportedVersion {
            sensor: "imu".into(),
            version: 1,
            minimum: 2
        }
    );
    // Newer versions are accepted.
    assert!(validate_sensor_payload(&with("schema_version", json!(3)), "imu").is_ok());
}

#[test]
fn noise_seed_accepts_u64_and_negative_i64() {
    for seed in [json!(u64::MAX), json!(-5), json!(0)] {
        let p = validate_sensor_payload(&with("noise_seed", seed.clone()), "depth").unwrap();
        assert_eq!(p["noise_seed"], seed);
    }
}

#[test]
fn quaternion_norm_tolerates_rounding() {
    // The 3-decimal rounding of a 45° yaw: norm 0.99985.
    let q = json!([0.0, 0.0, 0.383, 0.924]);
    assert!(validate_sensor_payload(&with("extrinsic_quat_xyzw", q), "depth").is_ok());
    let q = json!([0.0, 0.0, 0.0, 1.0009]);
    assert!(validate_sensor_payload(&with("extrinsic_quat_xyzw", q), "depth").is_ok());
    let q = json!([0.0, 0.0, 0.0, 1.002]);
    assert!(validate_sensor_payload(&with("extrinsic_quat_xyzw", q), "depth").is_err());
}

#[test]
fn covariance_matrix_form_is_accepted() {
    let cov = json!({"convention": "full", "matrix": [[0.1, 0.01], [0.01, 0.2]]});
    let p = validate_sensor_payload(&with("covariance", cov.clone()), "dvl").unwrap();
    assert_eq!(p["covariance"], cov);
    // Both forms together are both checked.
    let cov = json!({"convention": "c", "diagonal": [0.1], "matrix": [[0.1, 0.0]]});
    let err = validate_sensor_payload(&with("covariance", cov), "dvl").unwrap_err();
    assert_eq!(err.field(), Some("covariance.matrix"));
}

#[test]
fn sensor_set_is_validated_and_normalized_by_name() {
    let mut sensors = Map::new();
    sensors.insert("depth".into(), depth_payload());
    sensors.insert("imu".into(), json!({"sequence": 4, "sim_time": 1.0}));
    let valid = validate_sensor_set(&sensors, &["depth", "imu"]).unwrap();
    assert_eq!(valid.len(), 2);
    assert_eq!(valid["depth"], depth_payload());
    assert_eq!(valid["imu"]["sensor_type"], "imu");
    assert_eq!(valid["imu"]["sequence"], 4);
    assert_eq!(valid["imu"]["timestamp"], 1.0);
    // No requirement: still validated.
    assert_eq!(validate_sensor_set(&sensors, &[]).unwrap(), valid);
}

#[test]
fn sensor_set_reports_missing_required_sensor() {
    let mut sensors = Map::new();
    sensors.insert("depth".into(), depth_payload());
    let err = validate_sensor_set(&sensors, &["depth", "dvl"]).unwrap_err();
    assert_eq!(err.code(), "missing_sensor");
    assert_eq!(err.sensor(), "dvl");
    assert_eq!(err.field(), None);
    assert!(err.to_string().contains("`dvl`"), "{err}");
    // Even an empty set.
    let err = validate_sensor_set(&Map::new(), &["imu"]).unwrap_err();
    assert_eq!(err, SensorSchemaError::MissingSensor { name: "imu".into() });
}

#[test]
fn sensor_set_names_the_invalid_sensor() {
    let mut sensors = Map::new();
    sensors.insert("depth".into(), depth_payload());
    sensors.insert("gps".into(), json!({"sequence": "first"}));
    let err = validate_sensor_set(&sensors, &["depth"]).unwrap_err();
    assert_eq!(err.code(), "invalid_sensor_field");
    assert_eq!(err.sensor(), "gps");
    assert_eq!(err.field(), Some("sequence"));
    assert!(err.to_string().contains("\"first\""), "{err}");
}
