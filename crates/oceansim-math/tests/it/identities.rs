//! Identities and hand-derived values: Laplacian properties, exp/log on
//! SO(3) (including near π), Kabsch recovery, true derivatives of fields,
//! GVF on its path, and the flight-log utilities.

use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
use oceansim_math::fields::{
    ascent_direction, calc_mu_centralized, l_sigma, ScalarField, SigmaFract, SigmaGauss,
    SigmaNonconvex,
};
use oceansim_math::graphs::{gen_z_distance, gen_z_random, gen_z_ring, sorted_eigenvalues, Graph};
use oceansim_math::gvf::{gvf_field, GvfDirectedLine, GvfEllipse, GvfTrajectory};
use oceansim_math::lie::*;
use oceansim_math::pprz::{get_pprz_idx, get_pprz_pos, load_pprz_data, pprz_angle, PprzLog};
use oceansim_math::transforms::*;
use proptest::prelude::*;
use std::f64::consts::PI;

fn assert_laplacian_properties(g: &Graph) {
    let l = g.l();
    assert_eq!(l, l.transpose(), "symmetric");
    let ones = DVector::from_element(g.n(), 1.0);
    assert!((&l * ones).amax() < 1e-12, "L 1 = 0");
    assert!(sorted_eigenvalues(&l)[0] > -1e-10, "positive semidefinite");
    assert_eq!(
        g.lambda2() > 1e-10,
        g.is_connected(),
        "lambda2 > 0 iff connected"
    );
}

proptest! {
    #[test]
    fn laplacian_properties_hold_for_random_graphs(n in 2usize..25, rounds in 1usize..4, seed in any::<u64>()) {
        let g = Graph::new(n, &gen_z_random(n, rounds, seed)).unwrap();
        prop_assert!(g.is_connected(), "gen_z_random is connected");
        assert_laplacian_properties(&g);
        // Same seed, same graph.
        prop_assert_eq!(gen_z_random(n, rounds, seed), gen_z_random(n, rounds, seed));
    }

    #[test]
    fn exp_log_round_trip(axis in prop::array::uniform3(-1.0f64..1.0), angle in 0.0f64..PI - 1e-6) {
        let axis = Vector3::from(axis);
        prop_assume!(axis.norm() > 1e-3);
        let w = axis.normalize() * angle;
        let r = so3_exp(&w);
        prop_assert!((r.transpose() * r - Matrix3::identity()).amax() < 1e-14);
        prop_assert!((r.determinant() - 1.0).abs() < 1e-14);
        prop_assert!((so3_log(&r) - w).amax() < 1e-12);
        // A few tens of ulps: 1.09e-14 was seen at |w| = π − 0.012.
        prop_assert!((so3_exp(&so3_log(&r)) - r).amax() < 1e-13);
    }

    #[test]
    fn kabsch_recovers_a_known_pose(w in prop::array::uniform3(-3.0f64..3.0), t in prop::array::uniform3(-10.0f64..10.0),
                                   pts in prop::collection::vec(prop::array::uniform3(-5.0f64..5.0), 3..30)) {
        let pose = make_pose(&so3_exp(&Vector3::from(w)), &Vector3::from(t));
        let dst = from_frame(&pts, &pose);
        // Recovery error grows as the points approach a line: scale the
        // bound by the conditioning of the centred cloud (σ1 / σ2).
        let n = pts.len() as f64;
        let mean = pts.iter().fold(Vector3::zeros(), |a, p| a + Vector3::from(*p)) / n;
        let cov = pts.iter().fold(Matrix3::zeros(), |a, p| {
            let d = Vector3::from(*p) - mean;
            a + d * d.transpose()
        });
        let sv = cov.singular_values();
        let mut sv = [sv[0], sv[1], sv[2]];
        sv.sort_by(|a, b| b.total_cmp(a));
        let condition = (sv[0] / sv[1].max(f64::MIN_POSITIVE)).sqrt();
        match rigid_transform(&pts, &dst) {
            Ok(fit) => {
                let err = (fit - pose).amax();
                prop_assert!(err < 1e-12 * condition.max(1.0), "{err} at condition {condition}");
            }
            Err(e) => prop_assert_eq!(e.code(), "degenerate_points"),
        }
    }
}

#[test]
fn ring_and_distance_graphs() {
    let g = Graph::new(8, &gen_z_ring(8)).unwrap();
    assert_laplacian_properties(&g);
    // The doubled ring edges make L = 2(D - A): diagonal 4.
    assert_eq!(g.l()[(0, 0)], 4.0);
    let pts = [0.0, 0.0, 1.0, 0.0, 5.0, 0.0];
    assert_eq!(gen_z_distance(&pts, 2, 1.5).unwrap(), vec![(0, 1), (1, 0)]);
    let g = Graph::new(3, &gen_z_distance(&pts, 2, 1.5).unwrap()).unwrap();
    assert!(!g.is_connected() && g.lambda2().abs() < 1e-12);
    assert_laplacian_properties(&g);
    assert_eq!(g.lb().nrows(), 6);
    assert!(Graph::new(3, &[(0, 3)]).is_err());
}

#[test]
fn log_is_correct_near_pi() {
    for axis in [
        Vector3::new(1.0, 0.0, 0.0),
        Vector3::new(0.3, -0.5, 0.8).normalize(),
        Vector3::new(-1.0, 2.0, 0.5).normalize(),
    ] {
        for th in [PI - 1e-2, PI - 1e-4, PI - 1e-7, PI - 1e-10] {
            let w = axis * th;
            let back = so3_log(&so3_exp(&w));
            assert!(
                (back - w).amax() < 1e-8,
                "θ = π - {:e}: {back} vs {w}",
                PI - th
            );
            assert!((so3_exp(&back) - so3_exp(&w)).amax() < 1e-14);
        }
        // Exactly π: either sign of the axis is a valid logarithm.
        let back = so3_log(&so3_exp(&(axis * PI)));
        assert!((back.norm() - PI).abs() < 1e-9);
        assert!((back.normalize().dot(&axis)).abs() > 1.0 - 1e-9);
    }
    assert_eq!(so3_log(&Matrix3::identity()), Vector3::zeros());
}

#[test]
fn hat_vee_and_jacobians() {
    let w = Vector3::new(0.4, -1.1, 0.7);
    assert_eq!(so3_vee(&so3_hat(&w)), w);
    assert!(
        (so3_hat(&w) * Vector3::new(1.0, 2.0, 3.0) - w.cross(&Vector3::new(1.0, 2.0, 3.0))).amax()
            < 1e-15
    );
    // exp(w + dw) ≈ exp(w) exp(J_r(w) dw).
    let dw = Vector3::new(1e-6, -2e-6, 0.5e-6);
    let lhs = so3_exp(&(w + dw));
    let rhs = so3_exp(&w) * so3_exp(&(so3_right_jacobian(&w) * dw));
    assert!((lhs - rhs).amax() < 1e-11);
    let lhs_l = so3_exp(&(so3_left_jacobian(&w) * dw)) * so3_exp(&w);
    assert!((lhs - lhs_l).amax() < 1e-11);
    assert!(
        (so3_left_jacobian(&w) * so3_left_jacobian_inv(&w) - Matrix3::identity()).amax() < 1e-13
    );
    assert!(
        (so3_right_jacobian(&w) * so3_right_jacobian_inv(&w) - Matrix3::identity()).amax() < 1e-13
    );
    let tiny = Vector3::new(1e-9, 0.0, 0.0);
    assert!((so3_left_jacobian_inv(&tiny) - Matrix3::identity()).amax() < 1e-8);
}

#[test]
fn se3_frames_and_kabsch_edge_cases() {
    let pose = make_pose(
        &rot_3d_matrix(0.3, -0.2, 1.1),
        &Vector3::new(1.0, -2.0, 0.5),
    );
    let pts = vec![
        [1.0, 0.0, 0.0],
        [0.0, 2.0, 0.0],
        [0.0, 0.0, 3.0],
        [1.0, 1.0, 1.0],
    ];
    let world = from_frame(&pts, &pose);
    let back = to_frame(&world, &pose);
    for (a, b) in back.iter().zip(&pts) {
        assert!((Vector3::from(*a) - Vector3::from(*b)).amax() < 1e-14);
    }
    assert!((compose(&pose, &invert(&pose)) - nalgebra::Matrix4::identity()).amax() < 1e-15);
    let (r, t) = pose_parts(&pose);
    assert_eq!(make_pose(&r, &t), pose);
    // Per-point poses.
    let poses = vec![pose, invert(&pose), pose, nalgebra::Matrix4::identity()];
    let w = from_frames(&pts, &poses).unwrap();
    assert!((Vector3::from(w[3]) - Vector3::from(pts[3])).amax() < 1e-15);
    let l = to_frames(&w, &poses).unwrap();
    assert!((Vector3::from(l[1]) - Vector3::from(pts[1])).amax() < 1e-14);
    assert!(from_frames(&pts, &poses[..2]).is_err());
    // Kabsch: exact to 1e-12 on a good set; reflection corrected; errors.
    let fit = rigid_transform(&pts, &world).unwrap();
    assert!((fit - pose).amax() < 1e-12);
    let mirrored: Vec<[f64; 3]> = pts.iter().map(|p| [p[0], p[1], -p[2]]).collect();
    let proper = rigid_transform(&pts, &mirrored).unwrap();
    assert!(
        (pose_parts(&proper).0.determinant() - 1.0).abs() < 1e-12,
        "never a reflection"
    );
    assert_eq!(
        rigid_transform(&pts[..2], &world[..2]).unwrap_err().code(),
        "degenerate_points"
    );
    let line = vec![[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]];
    assert_eq!(
        rigid_transform(&line, &line).unwrap_err().code(),
        "degenerate_points"
    );
    assert!(rigid_transform(&pts, &world[..3]).is_err());
}

fn check_derivatives(field: &dyn ScalarField, points: &[[f64; 2]]) {
    let h = 1e-5;
    for &p in points {
        let g = field.gradient(p);
        let hs = field.hessian(p);
        for k in 0..2 {
            let mut pp = p;
            let mut pm = p;
            pp[k] += h;
            pm[k] -= h;
            let fd = (field.value(pp) - field.value(pm)) / (2.0 * h);
            assert!(
                (fd - g[k]).abs() < 1e-6 * (1.0 + g[k].abs()),
                "gradient[{k}] at {p:?}: {} vs fd {fd}",
                g[k]
            );
            let (gp, gm) = (field.gradient(pp), field.gradient(pm));
            for j in 0..2 {
                let fdh = (gp[j] - gm[j]) / (2.0 * h);
                assert!(
                    (fdh - hs[j][k]).abs() < 1e-6 * (1.0 + hs[j][k].abs()),
                    "hessian[{j}][{k}] at {p:?}: {} vs fd {fdh}",
                    hs[j][k]
                );
            }
        }
    }
}

#[test]
fn field_derivatives_are_true_derivatives() {
    let pts = [
        [0.3, -0.7],
        [2.0, 1.5],
        [-1.2, 0.4],
        [0.9, -2.1],
        [4.0, 3.0],
    ];
    let s = oceansim_math::algebra::r_2d_matrix(0.4);
    let r = nalgebra::Matrix2::new(2.0, 0.3, 0.3, 0.5);
    check_derivatives(
        &SigmaGauss::with_shape([0.5, -0.5], 10.0, 1.5, s, r).unwrap(),
        &pts,
    );
    check_derivatives(&SigmaGauss::default(), &pts);
    check_derivatives(&SigmaNonconvex::default(), &pts);
    check_derivatives(&SigmaNonconvex::new(0.5, [1.0, 1.0], 2.0).unwrap(), &pts);
    check_derivatives(&SigmaFract::default(), &pts);
    check_derivatives(
        &SigmaFract::new(0.04, [1.0, -2.0], [0.7, 1.9]).unwrap(),
        &pts,
    );
    check_derivatives(&SigmaNonconvex::new(0.04, [3.0, 1.0], 2.0).unwrap(), &pts);
    let inner = SigmaFract::new(0.04, [1.0, -2.0], [0.7, 1.9]).unwrap();
    check_derivatives(
        &oceansim_math::fields::Transformed::new(inner, 1.5, 0.4).unwrap(),
        &pts,
    );
    // Values at the sources.
    let g = SigmaGauss::new([1.0, 2.0], 42.0, 3.0).unwrap();
    assert_eq!(
        g.value([1.0, 2.0]),
        42.0 / (2.0 * std::f64::consts::PI * 9.0).sqrt()
    );
    assert_eq!(g.gradient(g.source()), [0.0, 0.0]);
    assert!(SigmaGauss::new([0.0, 0.0], 1.0, 0.0).is_err());
}

#[test]
fn l_sigma_points_up_the_gradient_for_a_symmetric_formation() {
    let field = SigmaGauss::new([5.0, 3.0], 10.0, 4.0).unwrap();
    let pc = [0.0, 0.0];
    let d = 0.05;
    let ring = oceansim_math::distributions::regpoly_formation(12, d, 0.1);
    let pts: Vec<[f64; 2]> = ring.iter().map(|x| [pc[0] + x[0], pc[1] + x[1]]).collect();
    let sig = field.values(&pts);
    let l = l_sigma(&ring, &sig).unwrap();
    let grad = field.gradient(pc);
    // For a small regular polygon, L_sigma -> grad/2.
    assert!(
        (l[0] - grad[0] / 2.0).abs() < 1e-3 * grad[0].abs()
            && (l[1] - grad[1] / 2.0).abs() < 1e-3 * grad[1].abs(),
        "{l:?} vs {grad:?}"
    );
    let l1 = field.l1(pc, &pts).unwrap();
    assert!((l1[0] - grad[0] / 2.0).abs() < 1e-12 && (l1[1] - grad[1] / 2.0).abs() < 1e-12);
    let dir = ascent_direction(&ring, &sig).unwrap();
    assert!((dir[0].hypot(dir[1]) - 1.0).abs() < 1e-12);
    // The reference's μ = σᵀX/N is L_σ scaled by D².
    let mu = calc_mu_centralized(&ring, &sig).unwrap();
    assert!((mu[0] - l[0] * d * d).abs() < 1e-12 && (mu[1] - l[1] * d * d).abs() < 1e-12);
    let x = [[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0]];
    assert_eq!(
        calc_mu_centralized(&x, &[3.0, 1.0, 2.0, 2.0]).unwrap(),
        [0.5, 0.0]
    );
    assert!(l_sigma(&ring, &sig[..3]).is_err());
    assert!(l_sigma(&[[0.0, 0.0]], &[1.0]).is_err());
}

#[test]
fn gvf_phi_vanishes_on_the_path_and_the_field_follows_it() {
    let el = GvfEllipse::new([1.0, -0.5], 0.7, 3.0, 1.5);
    for p in el.gen_param_points(50) {
        assert!(el.phi(p).abs() < 1e-14);
        // On the path the field is tangent: χ · ∇φ = 0.
        let chi = gvf_field(&el, p, 1.0, 1.0);
        let n = el.grad_phi(p);
        assert!((chi[0] * n[0] + chi[1] * n[1]).abs() < 1e-12);
    }
    // Off the path the field points back toward it.
    let outside = [10.0, 10.0];
    let chi = gvf_field(&el, outside, 1.0, 1.0);
    let n = el.grad_phi(outside);
    assert!(chi[0] * n[0] + chi[1] * n[1] < 0.0);
    for line in [
        GvfDirectedLine::through([0.0, 0.0], [3.0, 4.0]),
        GvfDirectedLine::with_heading([1.0, 1.0], 0.3),
        GvfDirectedLine::new([0.0, 2.0], [1.0, 0.0]),
    ] {
        for p in line.gen_param_points(7) {
            assert!(line.phi(p).abs() < 1e-12);
        }
        assert_eq!(line.hess_phi([0.0, 0.0]), [[0.0; 2]; 2]);
    }
    let l = GvfDirectedLine::through([0.0, 0.0], [3.0, 4.0]);
    let ends = l.gen_param_points(2);
    assert!(
        (ends[0][0]).abs() < 1e-12 && (ends[1][0] - 3.0).abs() < 1e-12,
        "{ends:?}"
    );
}

#[test]
fn pprz_logs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.csv");
    std::fs::write(
        &path,
        "Time\tx\tpsi\n0.0\t1\t0.1\n0.5\t2\t0.2\n1.0\t3\tnan\n1.5\t4\t0.4\n",
    )
    .unwrap();
    let log = load_pprz_data(&path, 0.4, Some(1.2), '\t', "Time").unwrap();
    assert_eq!(log.column("x").unwrap(), vec![2.0, 3.0]);
    assert!(log.column("psi").unwrap()[1].is_nan());
    let full = load_pprz_data(&path, 0.0, None, '\t', "Time").unwrap();
    assert_eq!(get_pprz_idx(&full, 0.7, "Time").unwrap(), 2);
    assert_eq!(get_pprz_idx(&full, 0.0, "Time").unwrap(), 0);
    // From a start time: the file's row number (pandas' label), and the
    // position among the kept rows.
    let late = load_pprz_data(&path, 0.4, None, '\t', "Time").unwrap();
    assert_eq!(late.index, vec![1, 2, 3]);
    assert_eq!(get_pprz_idx(&late, 0.7, "Time").unwrap(), 2);
    assert_eq!(get_pprz_pos(&late, 0.7, "Time").unwrap(), 1);
    assert!(get_pprz_idx(&full, 9.0, "Time").is_err());
    assert_eq!(
        load_pprz_data(&path, 0.0, None, '\t', "t")
            .unwrap_err()
            .code(),
        "flight_log"
    );
    assert!(load_pprz_data(&path, 5.0, None, '\t', "Time")
        .unwrap_err()
        .to_string()
        .contains("spans [0, 1.5]"));
    assert!(PprzLog::parse("", '\t').is_err());
    assert!(PprzLog::parse("Time\tx\n", '\t').is_err());
    assert!(load_pprz_data(dir.path().join("nope"), 0.0, None, '\t', "Time").is_err());
    assert!(
        (pprz_angle(0.0) - PI / 2.0).abs() < 1e-15,
        "east is 90 degrees from north"
    );
    assert!((pprz_angle(PI / 2.0)).abs() < 1e-15, "north is 0");
}

#[test]
fn algebra_helpers_with_hand_values() {
    use oceansim_math::algebra::{cov_matrix, norm_2};
    let x = DMatrix::from_row_slice(3, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let c = cov_matrix(&x, true).unwrap();
    assert_eq!(c, DMatrix::from_row_slice(2, 2, &[4.0, 4.0, 4.0, 4.0]));
    assert!(cov_matrix(&DMatrix::zeros(1, 2), true).is_err());
    assert!(
        (norm_2(&DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 0.0, 1.0])) - 1.618033988749895).abs()
            < 1e-12
    );
}
