//! EuRoC ground truth's bias columns against physics: with the IMU's white
//! noise off, what the exported IMU series measured minus what the
//! exported trajectory says the body did is the bias; the EuRoC file must
//! say the same, sample for sample, in its body frame (FLU).

use crate::common::*;
use nalgebra::{UnitQuaternion, Vector3};
use oceansim_sim::{SimConfig, Simulation};
use serde_json::{json, Value};
use std::path::Path;

/// The torpedo AUV with an IMU whose only errors are large biases that
/// walk fast (so a bias one sample late would show).
fn biased_profile(dir: &Path) -> String {
    let mut p: Value = serde_json::from_str(include_str!(
        "../../../../assets/vehicle_profiles/oceansim_torpedo_auv.json"
    ))
    .unwrap();
    let imu = p["sensors"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["sensor_type"] == "imu")
        .unwrap();
    p["sensors"][imu]["imu_noise"] = json!({
        "accel_noise_density": 0.0, "gyro_noise_density": 0.0,
        "accel_bias_random_walk": 0.05, "gyro_bias_random_walk": 0.1,
        "accel_turn_on_bias": 0.3, "gyro_turn_on_bias": 0.02,
    });
    let path = dir.join("biased.json");
    std::fs::write(&path, p.to_string()).unwrap();
    path.display().to_string()
}

fn flip(v: Vector3<f64>) -> Vector3<f64> {
    Vector3::new(v.x, -v.y, -v.z)
}

fn arr(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn euroc_biases_are_what_the_imu_measured_beyond_the_motion() {
    let root = tempfile::tempdir().unwrap();
    let mut s = Simulation::new(SimConfig {
        paused: true,
        deterministic: true,
        export_root: root.path().to_path_buf(),
        profile: Some(biased_profile(root.path())),
        ..SimConfig::default()
    })
    .unwrap();
    // A steady push and turn: smooth motion, so finite differences of the
    // recorded body velocity give its derivative (3 s: the AUV reaches the
    // first obstacle at 3.9 s).
    ok(
        &mut s,
        "set_body_wrench",
        json!({"wrench": [30.0, 0.0, 5.0, 0.0, 0.0, 3.0]}),
    );
    steps(&mut s, 30, json!({}));
    ok(&mut s, "export_dataset", json!({"export_dir": "runs/bias"}));
    let dir = root.path().join("runs/bias");

    let euroc = std::fs::read_to_string(dir.join("trajectories/auv_main.euroc.csv")).unwrap();
    let rows: Vec<Vec<f64>> = euroc
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    let imu: Vec<Value> = std::fs::read_to_string(dir.join("sensors/auv_main/imu.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("metadata.json")).unwrap()).unwrap();
    let mount = meta["sensors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "imu")
        .unwrap();
    let r = Vector3::from_vec(arr(&mount["translation_m_flu"]));
    assert_eq!(meta["euroc_imu_bias"]["auv/main"], "imu", "{meta}");
    assert_eq!(rows.len(), 31);

    // The body's true velocity and rates per frame (ν, FRD, from the
    // timeline), in FLU; the attitude from the EuRoC row itself.
    let timeline: Vec<Value> = std::fs::read_to_string(dir.join("agent_timeline.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["agent"] == "auv/main")
        .collect();
    assert_eq!(timeline.len(), rows.len());
    let body = |k: usize| {
        let nu = arr(&timeline[k]["state"]["body_velocity"]);
        (
            flip(Vector3::new(nu[0], nu[1], nu[2])),
            flip(Vector3::new(nu[3], nu[4], nu[5])),
        )
    };
    let mut checked = 0;
    for k in 1..rows.len() - 1 {
        let t_ns = rows[k][0];
        let Some(sample) = imu
            .iter()
            .find(|m| (m["time"].as_f64().unwrap() * 1e9 - t_ns).abs() < 1.0)
        else {
            continue;
        };
        let bias_w = Vector3::new(rows[k][11], rows[k][12], rows[k][13]);
        let bias_a = Vector3::new(rows[k][14], rows[k][15], rows[k][16]);
        assert!(
            bias_a.norm() > 0.05,
            "a 0.3 m/s² bias is recorded: {bias_a}"
        );
        let ((v0, w0), (v, w), (v1, w1)) = (body(k - 1), body(k), body(k + 1));
        // Gyro: the reading less the body rate is the bias, to the
        // readings' three decimals (the bias walks 0.01 rad/s a sample).
        let gyro = flip(Vector3::from_vec(arr(&sample["angular_velocity"])));
        assert!(
            (gyro - w - bias_w).amax() <= 5.0001e-4,
            "t {t_ns} ns: gyro {gyro} − rate {w} is not the bias {bias_w}"
        );
        // Accelerometer: specific force = v̇ + ω × v + ω̇ × r + ω × (ω × r)
        // − g, all in the body (derivatives by central differences); the
        // rest is the bias.
        let dt = (rows[k + 1][0] - rows[k - 1][0]) * 1e-9;
        let (v_dot, w_dot) = ((v1 - v0) / dt, (w1 - w0) / dt);
        let q = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            rows[k][4], rows[k][5], rows[k][6], rows[k][7],
        ));
        let g = q.inverse_transform_vector(&Vector3::new(0.0, 0.0, -9.81));
        let f = v_dot + w.cross(&v) + w_dot.cross(&r) + w.cross(&w.cross(&r)) - g;
        let acc = flip(Vector3::from_vec(arr(&sample["linear_acceleration"])));
        assert!(
            (acc - f - bias_a).norm() < 0.03,
            "t {t_ns} ns: accel {acc} − motion {f} is not the bias {bias_a}"
        );
        checked += 1;
    }
    assert_eq!(checked, 29, "every inner frame has an IMU sample");
    // The bias walks: a row one sample stale would not match the series.
    assert_ne!(rows[10][11..17], rows[20][11..17]);
}
