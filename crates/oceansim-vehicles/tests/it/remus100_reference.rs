//! Fossen's `gnc.py` blocks and his REMUS 100 against the vectors his Python
//! Vehicle Simulator (commit c717e07) produced:
//! `tests/data/fossen_remus100_reference.json`, written by
//! `tools/fossen/generate_vectors.py`.

use oceansim_vehicles::fossen::{
    attitude_euler, cross_flow_drag, force_lift_drag, hoerner, m2c_3dof, ssa,
};
use oceansim_vehicles::remus100::Remus100;
use serde_json::Value;

use super::fossen_reference::floats;

pub fn reference() -> Value {
    let text = include_str!("../data/fossen_remus100_reference.json");
    serde_json::from_str(text).expect("reference JSON")
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("number {k}"))
}

fn arr<const N: usize>(v: &Value) -> [f64; N] {
    floats(v).try_into().expect("length")
}

fn mat<const N: usize>(v: &Value) -> [[f64; N]; N] {
    let rows: Vec<[f64; N]> = v.as_array().expect("rows").iter().map(arr).collect();
    rows.try_into().expect("rows")
}

/// Entrywise |a − b| ≤ rel · max(|b|_max, floor): relative to the largest
/// entry, so entries that cancel to near zero are held to that scale.
fn close(a: &[f64], b: &[f64], rel: f64, floor: f64, what: &str) -> f64 {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let scale = b.iter().fold(floor, |m, x| m.max(x.abs()));
    let err = a
        .iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
    if std::env::var_os("FOSSEN_VERBOSE").is_some() && err > 0.0 {
        eprintln!("{what}: relative {:e}", err / scale);
    }
    assert!(
        err <= rel * scale,
        "{what}: max |diff| {err:e} > {rel:e} · {scale:e}\nours {a:?}\nref  {b:?}"
    );
    err / scale
}

#[test]
fn ssa_matches_gnc() {
    let r = reference();
    for c in r["blocks"]["ssa"].as_array().expect("cases") {
        let (a, want) = (f(c, "angle"), f(c, "ssa"));
        let got = ssa(a);
        // Python's float modulo is exact, so these agree bit for bit.
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "ssa({a}) = {got}, Fossen {want}"
        );
        assert!((-std::f64::consts::PI..std::f64::consts::PI).contains(&got));
    }
}

#[test]
fn hoerner_matches_gnc() {
    let r = reference();
    for c in r["blocks"]["hoerner"].as_array().expect("cases") {
        let got = hoerner(f(c, "B"), f(c, "T"));
        close(&[got], &[f(c, "CY_2D")], 1e-15, 0.0, "hoerner");
    }
}

#[test]
fn cross_flow_drag_matches_gnc() {
    let r = reference();
    for c in r["blocks"]["cross_flow_drag"].as_array().expect("cases") {
        let got = cross_flow_drag(f(c, "L"), f(c, "B"), f(c, "T"), &arr(&c["nu_r"]));
        // At zero velocity both are exactly zero.
        close(&got, &floats(&c["tau"]), 1e-14, 1e-300, "cross_flow_drag");
    }
}

#[test]
fn force_lift_drag_matches_gnc() {
    let r = reference();
    for c in r["blocks"]["force_lift_drag"].as_array().expect("cases") {
        let got = force_lift_drag(
            f(c, "b"),
            f(c, "S"),
            f(c, "CD_0"),
            f(c, "alpha"),
            f(c, "U_r"),
        );
        close(&got, &floats(&c["tau"]), 1e-14, 1e-300, "force_lift_drag");
    }
}

#[test]
fn attitude_euler_matches_gnc() {
    let r = reference();
    for c in r["blocks"]["attitude_euler"].as_array().expect("cases") {
        let got = attitude_euler(&arr(&c["eta"]), &arr(&c["nu"]), f(c, "dt"));
        close(
            &got,
            &floats(&c["eta_next"]),
            1e-14,
            1e-300,
            "attitude_euler",
        );
    }
}

#[test]
fn m2c_3dof_matches_gnc() {
    let r = reference();
    for c in r["blocks"]["m2c_3dof"].as_array().expect("cases") {
        let got = m2c_3dof(&mat(&c["M"]), &arr(&c["nu"]));
        let want: [[f64; 3]; 3] = mat(&c["C"]);
        close(
            got.as_flattened(),
            want.as_flattened(),
            1e-14,
            1e-300,
            "m2c_3dof",
        );
    }
}

#[test]
fn reference_parameters_match_remus100_py() {
    let r = reference();
    let p = &r["remus100_params"];
    let v = Remus100::reference();
    let scalars = [
        (v.rho, "rho"),
        (v.length, "L"),
        (v.diam, "diam"),
        (v.s, "S"),
        (v.cd_0, "CD_0"),
        (v.w, "W"),
        (v.b, "B"),
        (v.w_roll, "w_roll"),
        (v.w_pitch, "w_pitch"),
        (v.a_r, "A_r"),
        (v.a_s, "A_s"),
        (v.x_r, "x_r"),
        (v.x_s, "x_s"),
        (v.cl_delta_r, "CL_delta_r"),
        (v.cl_delta_s, "CL_delta_s"),
        (v.delta_max_r, "deltaMax_r"),
        (v.delta_max_s, "deltaMax_s"),
        (v.n_max, "nMax"),
        (v.t_delta, "T_delta"),
        (v.t_n, "T_n"),
        (v.t_surge, "T_surge"),
        (v.t_sway, "T_sway"),
        (v.t_heave, "T_heave"),
        (v.zeta_roll, "zeta_roll"),
        (v.zeta_pitch, "zeta_pitch"),
        (v.t_yaw, "T_yaw"),
    ];
    for (ours, key) in scalars {
        close(&[ours], &[f(p, key)], 1e-15, 0.0, key);
    }
    close(&v.r_bg, &floats(&p["r_bg"]), 0.0, 1.0, "r_bg");
    close(&v.r_bb, &floats(&p["r_bb"]), 0.0, 1.0, "r_bb");
    for (ours, key) in [
        (&v.mrb, "MRB"),
        (&v.ma, "MA"),
        (&v.m, "M"),
        (&v.m_inv, "Minv"),
    ] {
        let want: [[f64; 6]; 6] = mat(&p[key]);
        close(ours.as_flattened(), want.as_flattened(), 1e-15, 0.0, key);
    }
}

#[test]
fn dynamics_steps_match_remus100_py_to_1e_12() {
    let r = reference();
    let mut worst = 0.0_f64;
    for c in r["dynamics_steps"].as_array().expect("cases") {
        let name = c["name"].as_str().unwrap_or("?");
        let v = Remus100::reference().with_current(f(c, "V_c"), f(c, "beta_c_deg"));
        let (nu, u) = v.dynamics(
            &arr(&c["eta"]),
            &arr(&c["nu"]),
            &arr(&c["u_actual"]),
            &arr(&c["u_control"]),
            f(c, "dt"),
        );
        let e1 = close(&nu, &floats(&c["nu_next"]), 1e-12, 1e-300, name);
        let e2 = close(&u, &floats(&c["u_actual_next"]), 1e-12, 1e-300, name);
        worst = worst.max(e1).max(e2);
    }
    eprintln!("dynamics steps: worst relative difference {worst:e}");
}

#[test]
fn ten_second_runs_match_main_loop_to_1e_9() {
    let r = reference();
    let mut worst = 0.0_f64;
    for run in r["runs"].as_array().expect("runs") {
        let name = run["name"].as_str().unwrap_or("?");
        let v = Remus100::reference().with_current(f(run, "V_c"), f(run, "beta_c_deg"));
        let uc: [f64; 3] = arr(&run["u_control"]);
        let n = run["N"].as_u64().expect("N") as usize;
        let samples = v.simulate(n, f(run, "dt"), |_| uc);
        let steps = run["step"].as_array().expect("steps");
        assert_eq!(steps.len(), n + 1, "{name}: records");
        for (k, step) in steps.iter().enumerate() {
            let s = &samples[step.as_u64().expect("step") as usize];
            let what = format!("{name} step {step}");
            let e1 = close(&s.eta, &floats(&run["eta"][k]), 1e-9, 1e-300, &what);
            let e2 = close(&s.nu, &floats(&run["nu"][k]), 1e-9, 1e-300, &what);
            let e3 = close(
                &s.u_actual,
                &floats(&run["u_actual"][k]),
                1e-9,
                1e-300,
                &what,
            );
            worst = worst.max(e1).max(e2).max(e3);
        }
    }
    eprintln!("10 s runs: worst relative difference {worst:e}");
}
