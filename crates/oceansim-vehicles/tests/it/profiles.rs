//! Loading and validation of vehicle profiles: both shipped profiles load,
//! and every malformed case is reported with the path of its field.

use oceansim_vehicles::{VehicleError, VehicleProfile};
use serde_json::{json, Value};

fn default_json() -> Value {
    serde_json::from_str(include_str!(
        "../../../../assets/vehicle_profiles/oceansim_torpedo_auv.json"
    ))
    .unwrap()
}

fn problems(v: &Value) -> Vec<String> {
    match VehicleProfile::from_json_str(&v.to_string()) {
        Ok(_) => vec![],
        Err(e) => e.problems().iter().map(|p| p.to_string()).collect(),
    }
}

fn assert_reports(v: &Value, path: &str, needle: &str) {
    let ps = problems(v);
    assert!(
        ps.iter().any(|p| p.starts_with(path) && p.contains(needle)),
        "expected `{path}` with `{needle}` in {ps:?}"
    );
}

#[test]
fn shipped_profiles_load_from_disk_and_validate() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/vehicle_profiles");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let p = VehicleProfile::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!p.source.is_empty());
        n += 1;
    }
    assert_eq!(n, VehicleProfile::builtin_names().len());
    let torpedo = VehicleProfile::builtin("oceansim_torpedo_auv").unwrap();
    let names: Vec<_> = torpedo.thrusters.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert_eq!(
        VehicleProfile::builtin("bluerov2_heavy")
            .unwrap()
            .thrusters
            .len(),
        8
    );
}

/// A change that breaks a valid profile.
type Mutation = Box<dyn Fn(&mut Value)>;

#[test]
fn every_malformed_case_names_its_field() {
    let cases: Vec<(&str, Mutation, &str)> = vec![
        (
            "mass_kg",
            Box::new(|v| v["mass_kg"] = json!(-3.0)),
            "positive",
        ),
        (
            "mass_kg",
            Box::new(|v| v["mass_kg"] = json!(0.0)),
            "positive",
        ),
        (
            "inertia_kg_m2",
            Box::new(|v| v["inertia_kg_m2"][0][1] = json!(0.5)),
            "symmetric",
        ),
        (
            "inertia_kg_m2",
            Box::new(|v| v["inertia_kg_m2"][1][1] = json!(-3.45)),
            "positive definite",
        ),
        (
            "added_mass",
            Box::new(|v| v["added_mass"][1][5] = json!(5.0)),
            "symmetric",
        ),
        (
            "added_mass",
            Box::new(|v| v["added_mass"][0][0] = json!(-40.0)),
            "positive definite",
        ),
        (
            "thrusters[2].direction",
            Box::new(|v| v["thrusters"][2]["direction"] = json!([0, 0, 0])),
            "non-zero",
        ),
        (
            "thrusters[1].command_bounds",
            Box::new(|v| v["thrusters"][1]["command_bounds"] = json!([0.5, -0.5])),
            "low must not exceed high",
        ),
        (
            "thrusters[0].command_bounds",
            Box::new(|v| v["thrusters"][0]["command_bounds"] = json!([-2, 1])),
            "[-1, 1]",
        ),
        (
            "thrusters[3].failure_mode",
            Box::new(|v| v["thrusters"][3]["failure_mode"] = json!("exploded")),
            "unknown failure mode",
        ),
        (
            "thrusters[4].failure_scale",
            Box::new(|v| v["thrusters"][4]["failure_scale"] = json!(1.5)),
            "[0, 1]",
        ),
        (
            "thrusters[5].deadband",
            Box::new(|v| v["thrusters"][5]["deadband"] = json!(1.0)),
            "[0, 1)",
        ),
        (
            "thrusters[0].max_thrust_n",
            Box::new(|v| v["thrusters"][0]["max_thrust_n"] = json!(0)),
            "positive",
        ),
        (
            "thrusters[0].rate_limit_per_s",
            Box::new(|v| v["thrusters"][0]["rate_limit_per_s"] = json!(-1)),
            "positive",
        ),
        (
            "thrusters[1].name",
            Box::new(|v| v["thrusters"][1]["name"] = json!("stern_port")),
            "used twice",
        ),
        (
            "linear_damping[2]",
            Box::new(|v| v["linear_damping"][2] = json!(-1.0)),
            "dissipative",
        ),
        (
            "quadratic_damping[4]",
            Box::new(|v| v["quadratic_damping"][4] = json!(-1.0)),
            "dissipative",
        ),
        (
            "buoyancy_n",
            Box::new(|v| v["displaced_volume_m3"] = json!(0.03)),
            "not both",
        ),
        (
            "buoyancy_n",
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("buoyancy_n");
            }),
            "missing",
        ),
        (
            "schema_version",
            Box::new(|v| v["schema_version"] = json!(2)),
            "unsupported",
        ),
        ("source", Box::new(|v| v["source"] = json!("")), "cite"),
    ];
    for (path, mutate, needle) in &cases {
        let mut v = default_json();
        mutate(&mut v);
        assert_reports(&v, path, needle);
    }
}

#[test]
fn all_problems_are_reported_together() {
    let mut v = default_json();
    v["mass_kg"] = json!(-1);
    v["thrusters"][0]["direction"] = json!([0, 0, 0]);
    v["thrusters"][1]["command_bounds"] = json!([1, -1]);
    v["thrusters"][2]["failure_mode"] = json!("gone");
    v["inertia_kg_m2"][0][2] = json!(0.3);
    let ps = problems(&v);
    assert!(ps.len() >= 5, "{ps:?}");
    let e = VehicleProfile::from_json_str(&v.to_string()).unwrap_err();
    assert_eq!(e.code(), "profile_invalid");
}

#[test]
fn structural_errors_carry_the_json_path() {
    let mut v = default_json();
    v["thrusters"][0]["position_m"] = json!([1, 2]);
    let e = VehicleProfile::from_json_str(&v.to_string()).unwrap_err();
    assert!(matches!(e, VehicleError::Parse(_)));
    assert_eq!(e.problems()[0].path, "thrusters[0].position_m");

    let mut v = default_json();
    v["mass_kg"] = json!("heavy");
    assert_eq!(
        VehicleProfile::from_json_str(&v.to_string())
            .unwrap_err()
            .problems()[0]
            .path,
        "mass_kg"
    );

    let mut v = default_json();
    v["thrusters"][1]["max_thrust"] = json!(3); // typo of max_thrust_n
    let e = VehicleProfile::from_json_str(&v.to_string()).unwrap_err();
    assert!(e.to_string().contains("max_thrust"), "{e}");

    assert!(VehicleProfile::from_json_str("not json").is_err());
    let e = VehicleProfile::load("/definitely/not/here.json").unwrap_err();
    assert_eq!(e.code(), "profile_io");
}

#[test]
fn derived_matrices_follow_fossen() {
    let p = VehicleProfile::default_profile();
    let mrb = p.rigid_body_mass_matrix();
    let zg = p.r_g_m[2];
    // M_RB = H(r_g)^T diag(m, m, m, I_g) H(r_g) (Fossen 2021, eq. 3.44).
    let h = oceansim_vehicles::fossen::hmtrx(&p.r_g_m.into());
    let mut cg = nalgebra::Matrix6::zeros();
    cg.fixed_view_mut::<3, 3>(0, 0).fill_with_identity();
    cg.fixed_view_mut::<3, 3>(0, 0).scale_mut(p.mass_kg);
    cg.fixed_view_mut::<3, 3>(3, 3).copy_from(&p.inertia());
    assert!((h.transpose() * cg * h - mrb).amax() < 1e-12);
    assert!((mrb[(0, 4)] - p.mass_kg * zg).abs() < 1e-12);
    assert!((mrb[(3, 3)] - (p.inertia()[(0, 0)] + p.mass_kg * zg * zg)).abs() < 1e-12);
    let bluerov = VehicleProfile::builtin("bluerov2_heavy").unwrap();
    // B = rho g V from the displaced volume.
    assert!((bluerov.buoyancy() - 1000.0 * 9.81 * 0.0134).abs() < 1e-9);
}

/// Commands saturate at the profile's limits: derived from weight and
/// thrust when the profile gives none, the profile's own otherwise.
#[test]
fn command_limits_are_derived_or_given_and_clip_commands() {
    let torpedo = VehicleProfile::default_profile();
    let l = torpedo.command_limits();
    // W = 299 N beats the thrusters' summed 32 N; arm = 1.33 m / 2.
    assert_eq!(l.max_force_n, [299.0; 3]);
    assert!((l.max_torque_n_m[0] - 299.0 * 0.665).abs() < 1e-9);
    let (f, clipped) = l.clamp_force([0.0, 1e5, 0.0]);
    assert!(clipped && (f[1] - 299.0).abs() < 1e-9 && f[0] == 0.0);
    let (f, clipped) = l.clamp_force([3.0, 4.0, 0.0]);
    assert!(!clipped && f == [3.0, 4.0, 0.0]);
    let (w, clipped) = l.clamp_wrench([1e9, -1e9, 10.0, 0.0, 1e9, 0.0]);
    assert!(clipped);
    assert_eq!(w[0], 299.0);
    assert_eq!(w[1], -299.0);
    assert_eq!(w[2], 10.0);
    let (v, clipped) = l.clamp_velocity([1000.0, 0.0, 0.0, 0.0, 0.0, -9.0]);
    assert!(clipped && v[0] == 5.0 && v[5] == -std::f64::consts::FRAC_PI_2);
    // A profile's own limits win, and are validated.
    let mut p = torpedo.clone();
    p.command_limits = Some(oceansim_vehicles::CommandLimits {
        max_force_n: [50.0, 20.0, 20.0],
        max_torque_n_m: [5.0; 3],
        max_speed_m_s: 2.0,
        max_rate_rad_s: 0.5,
    });
    assert!(p.validate().is_ok());
    assert_eq!(
        p.command_limits().clamp_force([0.0, 0.0, -100.0]).0,
        [0.0, 0.0, -20.0]
    );
    p.command_limits.as_mut().unwrap().max_speed_m_s = -1.0;
    assert!(p
        .validate()
        .unwrap_err()
        .to_string()
        .contains("command_limits"));
}

#[test]
fn an_imu_error_model_is_checked_and_only_imus_take_one() {
    let noise = json!({
        "accel_noise_density": 0.0008, "gyro_noise_density": 5e-5,
        "accel_bias_random_walk": 2e-5, "gyro_bias_random_walk": 1e-6
    });
    let mut v = default_json();
    let imu = v["sensors"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["sensor_type"] == "imu")
        .unwrap();
    v["sensors"][imu]["imu_noise"] = noise.clone();
    let p = VehicleProfile::from_json_str(&v.to_string()).unwrap();
    let n = p.sensors[imu].imu_noise.unwrap();
    assert_eq!(n.accel_noise_density, 0.0008);
    assert_eq!(n.gyro_turn_on_bias, 0.0, "omitted turn-on biases are zero");

    v["sensors"][imu]["imu_noise"]["gyro_noise_density"] = json!(-1.0);
    assert_reports(
        &v,
        &format!("sensors[{imu}].imu_noise.gyro_noise_density"),
        ">= 0",
    );
    let mut v = default_json();
    v["sensors"][0]["imu_noise"] = noise;
    assert_eq!(v["sensors"][0]["sensor_type"], "depth");
    assert_reports(&v, "sensors[0].imu_noise", "only an `imu` sensor");
}

#[test]
fn camera_and_sonar_parameters_are_checked_and_only_their_families_take_them() {
    let v = default_json();
    let index = |family: &str| {
        v["sensors"]
            .as_array()
            .unwrap()
            .iter()
            .position(|s| s["sensor_type"] == family)
            .unwrap()
    };
    let (camera, sonar, multibeam) = (
        index("camera"),
        index("imaging_sonar"),
        index("multibeam_sonar"),
    );
    // The shipped profile mounts the 320 x 240 perception preset.
    let p = VehicleProfile::from_json_str(&v.to_string()).unwrap();
    assert_eq!(
        p.sensors[camera].camera,
        Some(oceansim_vehicles::CameraParams::PERCEPTION)
    );

    let mut ok = v.clone();
    ok["sensors"][camera]["camera"] = json!({"width_px": 64, "height_px": 48});
    ok["sensors"][sonar]["sonar"] = json!({"beams": 512, "bins": 1024});
    let p = VehicleProfile::from_json_str(&ok.to_string()).unwrap();
    let c = p.sensors[camera].camera.unwrap();
    assert_eq!(
        (c.width_px, c.height_px, c.hfov_deg, c.turbidity),
        (64, 48, 90.0, 1.0)
    );
    assert_eq!(
        p.sensors[sonar].sonar.unwrap().max_range_m,
        None,
        "kept default"
    );

    for (field, value, path, says) in [
        (
            "camera",
            json!({"width_px": 4, "height_px": 48}),
            "camera.width_px",
            "[8, 1920]",
        ),
        (
            "camera",
            json!({"width_px": 64, "height_px": 48, "hfov_deg": 180.0}),
            "camera.hfov_deg",
            "[10, 170]",
        ),
        (
            "camera",
            json!({"width_px": 64, "height_px": 48, "turbidity": -1.0}),
            "camera.turbidity",
            "[0, 20]",
        ),
        ("sonar", json!({"beams": 0}), "sonar.beams", "[2, 1024]"),
        (
            "sonar",
            json!({"max_range_m": 1e9}),
            "sonar.max_range_m",
            "[1, 500]",
        ),
    ] {
        let mut bad = v.clone();
        let at = if field == "camera" { camera } else { sonar };
        bad["sensors"][at][field] = value;
        assert_reports(&bad, &format!("sensors[{at}].{path}"), says);
    }
    let mut bad = v.clone();
    bad["sensors"][0]["camera"] = json!({"width_px": 64, "height_px": 48});
    assert_reports(&bad, "sensors[0].camera", "only a `camera`");
    let mut bad = v.clone();
    bad["sensors"][camera]["sonar"] = json!({"beams": 8});
    assert_reports(&bad, &format!("sensors[{camera}].sonar"), "only a sonar");
    let mut bad = v;
    bad["sensors"][multibeam]["sonar"] = json!({"bins": 8});
    assert_reports(
        &bad,
        &format!("sensors[{multibeam}].sonar.bins"),
        "one sounding per beam",
    );
}
