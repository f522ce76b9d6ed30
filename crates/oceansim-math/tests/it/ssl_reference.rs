//! Our math against the test vectors produced by ssl_simulator (commit
//! 285a162, `assets/reference-data/ssl_reference.json`).

use nalgebra::DMatrix;
use oceansim_math::algebra::{
    angle_of_vectors, cov_matrix, cov_matrix_batched, r_2d_matrix, unit_vec,
};
use oceansim_math::graphs::{build_b, build_l_from_b, gen_z_ring, Edge, Graph};
use oceansim_math::gvf::{GvfEllipse, GvfTrajectory};
use oceansim_math::lie::{rot_3d_matrix, rotation_angle};
use serde_json::Value;

fn entry(name: &str) -> Value {
    let all: Value = serde_json::from_str(include_str!(
        "../../../../assets/reference-data/ssl_reference.json"
    ))
    .unwrap();
    all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("{name}"))
        .clone()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(f).collect())
        .collect()
}

fn matrix(v: &Value) -> DMatrix<f64> {
    let r = rows(v);
    DMatrix::from_fn(r.len(), r[0].len(), |i, j| r[i][j])
}

fn pts2(v: &Value) -> Vec<[f64; 2]> {
    rows(v).into_iter().map(|r| [r[0], r[1]]).collect()
}

fn edges(v: &Value) -> Vec<Edge> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e[0].as_u64().unwrap() as usize,
                e[1].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{what}: {a} vs {b}");
}

fn close_m(a: &DMatrix<f64>, b: &DMatrix<f64>, tol: f64, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}");
    for (x, y) in a.iter().zip(b.iter()) {
        close(*x, *y, tol, what);
    }
}

#[test]
fn ring_generator_incidence_and_laplacians() {
    let e = entry("gen_Z_ring_6");
    assert_eq!(gen_z_ring(6), edges(&e["outputs"]["edges"]));
    let e = entry("build_B_ring6");
    let b = build_b(&edges(&e["inputs"]["edges"]), 6).unwrap();
    close_m(&b, &matrix(&e["outputs"]["B"]), 0.0, "B");
    let e = entry("build_L_from_B_ring6");
    let b = matrix(&e["inputs"]["B"]);
    close_m(
        &build_l_from_b(&b, None).unwrap(),
        &matrix(&e["outputs"]["L"]),
        1e-15,
        "L",
    );
    let w: Vec<f64> = e["inputs"]["W_diag"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .collect();
    close_m(
        &build_l_from_b(&b, Some(&w)).unwrap(),
        &matrix(&e["outputs"]["L_weighted"]),
        1e-14,
        "L weighted",
    );
}

#[test]
fn random_graph_laplacian_and_lambda2() {
    let e = entry("graph_random7");
    let z = edges(&e["inputs"]["edges"]);
    let g = Graph::new(7, &z).unwrap();
    close_m(&g.b(), &matrix(&e["outputs"]["B"]), 0.0, "B");
    close_m(&g.l(), &matrix(&e["outputs"]["L"]), 0.0, "L");
    close(g.lambda2(), f(&e["outputs"]["lambda2"]), 1e-12, "lambda2");
    let ev = oceansim_math::graphs::sorted_eigenvalues(&g.l());
    for (a, b) in ev.iter().zip(e["outputs"]["eigvals"].as_array().unwrap()) {
        assert!((a - f(b)).abs() < 1e-12, "{a} vs {b}");
    }
}

#[test]
fn unit_vec_rotation_and_angles() {
    let e = entry("unit_vec");
    let v = pts2(&e["inputs"]["V"]);
    assert_eq!(unit_vec(&v, 0.0), pts2(&e["outputs"]["delta_0"]));
    assert_eq!(unit_vec(&v, 0.5), pts2(&e["outputs"]["delta_0p5"]));

    let e = entry("R_2D_matrix");
    for (angle, r) in e["inputs"]["angles"]
        .as_array()
        .unwrap()
        .iter()
        .zip(e["outputs"]["R"].as_array().unwrap())
    {
        let m = r_2d_matrix(f(angle));
        let want = rows(r);
        for i in 0..2 {
            for j in 0..2 {
                close(m[(i, j)], want[i][j], 1e-15, "R_2D");
            }
        }
    }

    let e = entry("angle_of_vectors");
    let got = angle_of_vectors(&pts2(&e["inputs"]["A"]), &pts2(&e["inputs"]["B"])).unwrap();
    for (a, b) in got.iter().zip(e["outputs"]["theta"].as_array().unwrap()) {
        close(*a, f(b), 1e-15, "angle_of_vectors");
    }
}

#[test]
fn covariance_single_and_batched() {
    let e = entry("cov_matrix");
    let x = matrix(&e["inputs"]["X"]);
    close_m(
        &cov_matrix(&x, false).unwrap(),
        &matrix(&e["outputs"]["population"]),
        1e-14,
        "population",
    );
    close_m(
        &cov_matrix(&x, true).unwrap(),
        &matrix(&e["outputs"]["sample"]),
        1e-14,
        "sample",
    );
    let batch: Vec<DMatrix<f64>> = e["inputs"]["X_batch"]
        .as_array()
        .unwrap()
        .iter()
        .map(matrix)
        .collect();
    let got = cov_matrix_batched(&batch, false).unwrap();
    for (g, w) in got
        .iter()
        .zip(e["outputs"]["population_batch"].as_array().unwrap())
    {
        close_m(g, &matrix(w), 1e-14, "population batch");
    }
}

#[test]
fn rot_3d_matrix_zyx() {
    let e = entry("rot_3d_matrix");
    let inputs = rows(&e["inputs"]["roll_pitch_yaw"]);
    for (k, rpy) in inputs.iter().enumerate() {
        let r = rot_3d_matrix(rpy[0], rpy[1], rpy[2]);
        let want = rows(&e["outputs"]["R"][k]);
        for i in 0..3 {
            for j in 0..3 {
                close(r[(i, j)], want[i][j], 1e-15, "rot_3d_matrix");
            }
        }
        close(
            rotation_angle(&r),
            f(&e["outputs"]["rotation_angle"][k]),
            1e-14,
            "rotation angle",
        );
    }
}

#[test]
fn gvf_ellipse() {
    let e = entry("GvfEllipse_alpha0.0");
    let i = &e["inputs"];
    let off = [f(&i["XYoff"][0]), f(&i["XYoff"][1])];
    let el = GvfEllipse::new(off, f(&i["alpha"]), f(&i["a"]), f(&i["b"]));
    let p = pts2(&i["points"]);
    let o = &e["outputs"];
    for (k, pt) in p.iter().enumerate() {
        close(el.phi(*pt), f(&o["phi"][k]), 1e-15, "phi");
        let g = el.grad_phi(*pt);
        close(g[0], f(&o["grad_phi"][k][0]), 1e-15, "grad");
        close(g[1], f(&o["grad_phi"][k][1]), 1e-15, "grad");
        let h = el.hess_phi(*pt);
        close(h[0][0], f(&o["hess_phi"][k][0][0]), 1e-15, "hess");
        close(h[1][1], f(&o["hess_phi"][k][1][1]), 1e-15, "hess");
    }
    assert_eq!(el.phi_vec(&p).len(), 5);
    let pts = el.gen_param_points(i["pts"].as_u64().unwrap() as usize);
    for (k, q) in pts.iter().enumerate() {
        close(q[0], f(&o["gen_param_points"][0][k]), 1e-14, "param x");
        close(q[1], f(&o["gen_param_points"][1][k]), 1e-14, "param y");
    }
}
