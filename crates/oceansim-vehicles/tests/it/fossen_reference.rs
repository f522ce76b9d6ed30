//! Our Fossen building blocks and dynamics against the test vectors produced
//! by Fossen's Python Vehicle Simulator (commit c717e073,
//! `assets/reference-data/fossen_reference.json`).

use nalgebra::{Matrix3, Matrix6, UnitQuaternion, Vector3, Vector6};
use oceansim_vehicles::fossen::{gvect, hmtrx, m2c, rzyx, smtrx, tzyx};
use oceansim_vehicles::{VehicleModel, VehicleState};
use serde_json::Value;

fn reference() -> Value {
    let text = include_str!("../../../../assets/reference-data/fossen_reference.json");
    serde_json::from_str(text).expect("reference JSON")
}

/// A JSON array of numbers.
pub fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn v3(v: &Value) -> Vector3<f64> {
    Vector3::from_column_slice(&floats(v))
}

fn v6(v: &Value) -> Vector6<f64> {
    Vector6::from_column_slice(&floats(v))
}

fn m3(v: &Value) -> Matrix3<f64> {
    Matrix3::from_row_slice(&floats(v))
}

fn m6(v: &Value) -> Matrix6<f64> {
    Matrix6::from_row_slice(&floats(v))
}

/// Relative agreement to `tol` of the largest entry.
fn close<const R: usize, const C: usize>(
    a: &nalgebra::SMatrix<f64, R, C>,
    b: &nalgebra::SMatrix<f64, R, C>,
    tol: f64,
    what: &str,
) {
    let scale = b.amax().max(1.0);
    let err = (a - b).amax();
    assert!(
        err <= tol * scale,
        "{what}: max |diff| = {err:e}\nours {a}\nref {b}"
    );
}

#[test]
fn building_blocks_match_to_1e_14() {
    let r = reference();
    let cases = |name: &str| r[name].as_array().expect("cases").clone();
    let f = |v: &Value, k: &str| v[k].as_f64().expect("number");
    for c in cases("smtrx") {
        close(&smtrx(&v3(&c["a"])), &m3(&c["S"]), 1e-14, "smtrx");
    }
    for c in cases("hmtrx") {
        close(&hmtrx(&v3(&c["r"])), &m6(&c["H"]), 1e-14, "hmtrx");
    }
    for c in cases("rzyx") {
        let got = rzyx(f(&c, "phi"), f(&c, "theta"), f(&c, "psi"));
        close(&got, &m3(&c["R"]), 1e-14, "rzyx");
    }
    for c in cases("tzyx") {
        close(
            &tzyx(f(&c, "phi"), f(&c, "theta")),
            &m3(&c["T"]),
            1e-14,
            "tzyx",
        );
    }
    for c in cases("gvect") {
        let got = gvect(
            f(&c, "W"),
            f(&c, "B"),
            f(&c, "theta"),
            f(&c, "phi"),
            &v3(&c["r_bg"]),
            &v3(&c["r_bb"]),
        );
        close(&got, &v6(&c["g"]), 1e-14, "gvect");
    }
    let m = m6(&r["m2c"]["M"]);
    for case in r["m2c"]["cases"].as_array().unwrap() {
        let nu = v6(&case["nu"]);
        let c = m2c(&m, &nu);
        close(&c, &m6(&case["C"]), 1e-14, "m2c");
        close(&(c * nu), &v6(&case["C_times_nu"]), 1e-14, "m2c * nu");
        // Skew-symmetric, as the reference notes.
        close(&(c + c.transpose()), &Matrix6::zeros(), 1e-14, "C + C^T");
    }
}

fn reference_model(r: &Value) -> VehicleModel {
    let p = &r["traj6dof"]["params"];
    let mrb = m6(&p["MRB"]);
    let ma = m6(&p["MA"]);
    let model = VehicleModel::from_parts(
        mrb,
        ma,
        v6(&p["D_lin_diag"]),
        v6(&p["D_quad_diag"]),
        p["W"].as_f64().unwrap(),
        p["B"].as_f64().unwrap(),
        v3(&p["r_g"]),
        v3(&p["r_b"]),
    )
    .unwrap();
    close(&model.mass, &m6(&p["M"]), 1e-14, "M = MRB + MA");
    model
}

#[test]
fn right_hand_side_matches_the_reference_model() {
    let r = reference();
    let model = reference_model(&r);
    let tau = v6(&r["traj6dof"]["params"]["tau"]);
    for check in r["traj6dof"]["rhs_checks"].as_array().unwrap() {
        let eta = v6(&check["eta"]);
        let nu = v6(&check["nu"]);
        let q = UnitQuaternion::from_euler_angles(eta[3], eta[4], eta[5]);
        let s = VehicleState {
            position_ned: Vector3::new(eta[0], eta[1], eta[2]),
            attitude: q,
            nu,
        };
        close(
            &model.coriolis_matrix(&nu),
            &m6(&check["C"]),
            1e-13,
            "C(nu)",
        );
        close(
            &model.restoring_force_torque(&q),
            &v6(&check["g"]),
            1e-12,
            "g(eta)",
        );
        let d = model.derivative(&s, &tau, &Vector3::zeros());
        close(&d.nu, &v6(&check["nu_dot"]), 1e-12, "nu_dot");
        // eta_dot: position rates directly; Euler rates via T(phi, theta).
        let eta_dot = v6(&check["eta_dot"]);
        close(
            &d.position_ned,
            &eta_dot.fixed_rows::<3>(0).into_owned(),
            1e-12,
            "p_dot",
        );
        let euler_rates = tzyx(eta[3], eta[4]) * nu.fixed_rows::<3>(3);
        close(
            &euler_rates,
            &eta_dot.fixed_rows::<3>(3).into_owned(),
            1e-12,
            "euler rates",
        );
        // And the quaternion rate is consistent with those Euler rates.
        let h = 1e-7;
        let q_next = UnitQuaternion::new_normalize(q.into_inner() + d.attitude * h);
        let (p1, t1, y1) = q_next.euler_angles();
        let numeric = Vector3::new(p1 - eta[3], t1 - eta[4], wrap(y1 - eta[5])) / h;
        close(
            &numeric,
            &eta_dot.fixed_rows::<3>(3).into_owned(),
            1e-5,
            "quaternion kinematics",
        );
    }
}

fn wrap(a: f64) -> f64 {
    (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI
}

/// RK4 at h = 0.01 s with a unit quaternion reproduces the DOP853 reference
/// trajectory (Euler angles, psi unwrapped) to 1e-6 over 30 s.
#[test]
fn rk4_trajectory_matches_dop853_to_1e_6() {
    let r = reference();
    let model = reference_model(&r);
    let traj = &r["traj6dof"];
    let tau = v6(&traj["params"]["tau"]);
    let times = floats(&traj["t"]);
    let etas: Vec<Vector6<f64>> = traj["eta"].as_array().unwrap().iter().map(v6).collect();
    let nus: Vec<Vector6<f64>> = traj["nu"].as_array().unwrap().iter().map(v6).collect();
    let dt = 0.01;
    let mut s = VehicleState::default();
    let mut step = 0usize;
    let mut worst = 0.0f64;
    for (k, &t) in times.iter().enumerate() {
        let target = (t / dt).round() as usize;
        while step < target {
            s = model.rk4_step(&s, &tau, &Vector3::zeros(), dt);
            step += 1;
        }
        let (phi, theta, psi) = s.euler();
        let e = etas[k];
        let pos_err = (s.position_ned - e.fixed_rows::<3>(0)).amax();
        let ang_err = [phi - e[3], theta - e[4], wrap(psi - e[5])]
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()));
        let nu_err = (s.nu - nus[k]).amax();
        worst = worst.max(pos_err).max(ang_err).max(nu_err);
        assert!(
            pos_err < 1e-6 && ang_err < 1e-6 && nu_err < 1e-6,
            "t = {t}: position {pos_err:e}, angles {ang_err:e}, nu {nu_err:e}"
        );
    }
    assert!(times.last().copied() == Some(30.0));
    eprintln!("worst deviation from DOP853 over 30 s: {worst:e}");
}
