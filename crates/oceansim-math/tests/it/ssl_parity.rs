//! Parity with ssl_simulator's definitions (commit 285a162): every check
//! compares with a value computed here from the closed-form definition, or
//! with the reference's own numbers where it has no closed form (its
//! maxima: scipy BFGS on the reference's value function, gtol 1e-13).

use oceansim_math::distributions::regpoly_formation;
use oceansim_math::fields::maximum::{is_local_max, Smooth};
use oceansim_math::fields::{ScalarField, SigmaFract, SigmaGauss, SigmaNonconvex, Transformed};
use oceansim_math::graphs::{gen_z_distance, gen_z_distance_unordered, Graph};
use oceansim_math::gvf::{GvfLine, GvfTrajectory};
use std::f64::consts::PI;

const PTS: [[f64; 2]; 3] = [[0.3, -0.7], [2.0, 1.5], [-1.2, 0.4]];

/// The reference's default bumps, written out from its source:
/// Qa = −0.9 diag(1/√30, 1), Qb = −Aᵀ 0.9 diag(1, 1/√15) A,
/// A = [[1, −1], [1, 1]]/√2, a = (1, 0), b = (0, −1.5).
fn bump(y: [f64; 2], c: [f64; 2], q: [[f64; 2]; 2]) -> f64 {
    let d = [y[0] - c[0], y[1] - c[1]];
    let qd = [
        q[0][0] * d[0] + q[0][1] * d[1],
        q[1][0] * d[0] + q[1][1] * d[1],
    ];
    (d[0] * qd[0] + d[1] * qd[1]).exp()
}

fn bumps(y: [f64; 2]) -> f64 {
    let qa = [[-0.9 / 30f64.sqrt(), 0.0], [0.0, -0.9]];
    // Aᵀ diag(s1, s2) A with A = [[1, −1], [1, 1]]/√2:
    // [[s1 + s2, s2 − s1], [s2 − s1, s1 + s2]] / 2.
    let (s1, s2) = (0.9, 0.9 / 15f64.sqrt());
    let qb = [
        [-(s1 + s2) / 2.0, -(s2 - s1) / 2.0],
        [-(s2 - s1) / 2.0, -(s1 + s2) / 2.0],
    ];
    bump(y, [1.0, 0.0], qa) + bump(y, [0.0, -1.5], qb)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

fn near(p: [f64; 2], q: [f64; 2], tol: f64) -> bool {
    (p[0] - q[0]).hypot(p[1] - q[1]) <= tol
}

/// A maximum by the value alone: central differences of σ give a zero
/// gradient and a negative-definite Hessian.
fn assert_fd_maximum(f: &dyn ScalarField, p: [f64; 2], h: f64) {
    let s = |dx: f64, dy: f64| f.value([p[0] + dx, p[1] + dy]);
    let g = [
        (s(h, 0.0) - s(-h, 0.0)) / (2.0 * h),
        (s(0.0, h) - s(0.0, -h)) / (2.0 * h),
    ];
    assert!(g[0].hypot(g[1]) < 1e-7, "fd gradient {g:?} at {p:?}");
    let hxx = (s(h, 0.0) - 2.0 * s(0.0, 0.0) + s(-h, 0.0)) / (h * h);
    let hyy = (s(0.0, h) - 2.0 * s(0.0, 0.0) + s(0.0, -h)) / (h * h);
    let hxy = (s(h, h) - s(h, -h) - s(-h, h) + s(-h, -h)) / (4.0 * h * h);
    assert!(
        hxx < 0.0 && hxx * hyy - hxy * hxy > 0.0,
        "fd Hessian [[{hxx}, {hxy}], [{hxy}, {hyy}]] at {p:?}"
    );
}

#[test]
fn nonconvex_values_follow_the_definition() {
    let (k, c, dev) = (0.04, [3.0, 1.0], 2.0);
    let f = SigmaNonconvex::new(k, c, dev).unwrap();
    // The reference's numbers at PTS.
    let reference = [2.302960793435096, 2.716243062478282, 2.112044508921377];
    for (p, want) in PTS.iter().zip(reference) {
        let x = [(p[0] - c[0]) / dev, (p[1] - c[1]) / dev];
        let closed = 2.0 + bumps(x) - k * x[0].hypot(x[1]);
        assert!(close(f.value(*p), closed, 1e-14), "{p:?}");
        assert!(close(f.value(*p), want, 1e-14), "{p:?}");
    }
}

#[test]
fn nonconvex_source_is_the_maximum_not_the_centre() {
    // Default bumps, k = 0.04: the bumps pull the maximum 0.82 away.
    let f = SigmaNonconvex::new(0.04, [0.0, 0.0], 1.0).unwrap();
    let s = f.source();
    assert_eq!(f.center(), [0.0, 0.0]);
    assert!(near(s, [0.7626448, -0.2941631], 1e-6), "{s:?}");
    assert!(is_local_max(&f as &dyn Smooth, s, 1e-9));
    assert_fd_maximum(&f, s, 1e-4);
    // Shifted and scaled: the same maximum, scaled by dev about the centre.
    let f = SigmaNonconvex::new(0.04, [3.0, 1.0], 2.0).unwrap();
    assert!(near(
        f.source(),
        [4.525289756820941, 0.4116739015475467],
        1e-6
    ));
    assert!(near(f.source(), [3.0 + 2.0 * s[0], 1.0 + 2.0 * s[1]], 1e-9));
    // k = 1: the cone is steeper than the bumps at its tip, so the tip is
    // the maximum although σ has no gradient there: σ drops along every
    // direction.
    let f = SigmaNonconvex::new(1.0, [1.0, -1.0], 2.0).unwrap();
    assert_eq!(f.source(), [1.0, -1.0]);
    let top = f.value([1.0, -1.0]);
    for i in 0..32 {
        let a = 2.0 * PI * f64::from(i) / 32.0;
        let p = [1.0 + 1e-6 * a.cos(), -1.0 + 1e-6 * a.sin()];
        assert!(f.value(p) < top, "rises toward {a} rad");
    }
}

/// The reference's fractal field, written out: X = p − c,
/// 2 + 2 [e_a + e_b](X/d0) + [e_a + e_b](X/d1) − k‖X‖.
fn fract_closed(p: [f64; 2], k: f64, c: [f64; 2], dev: [f64; 2]) -> f64 {
    let x = [p[0] - c[0], p[1] - c[1]];
    let y0 = [x[0] / dev[0], x[1] / dev[0]];
    let y1 = [x[0] / dev[1], x[1] / dev[1]];
    2.0 + 2.0 * bumps(y0) + bumps(y1) - k * x[0].hypot(x[1])
}

#[test]
fn fract_is_two_scales_of_the_bumps_and_an_unscaled_cone() {
    let (c, dev) = ([1.0, -2.0], [0.7, 1.9]);
    let cases = [
        (
            0.04,
            [2.5063535242373223, 1.9048180533208288, 1.981181132498675],
            [1.6052571713866284, -2.219713008169976],
        ),
        (
            1.0,
            [1.0889305104549158, -1.58963469353382, -1.144352421952469],
            [1.3994809982683436, -2.2080686466195414],
        ),
    ];
    for (k, values, maximum) in cases {
        let f = SigmaFract::new(k, c, dev).unwrap();
        for (p, want) in PTS.iter().zip(values) {
            assert!(close(f.value(*p), fract_closed(*p, k, c, dev), 1e-14));
            assert!(close(f.value(*p), want, 1e-14), "k {k} at {p:?}");
        }
        assert!(near(f.source(), maximum, 1e-6), "k {k}: {:?}", f.source());
        assert_fd_maximum(&f, f.source(), 1e-4);
        assert_eq!(f.center(), c);
    }
    // Defaults: k = 1, centre 0, dev (1, 1); the three bump terms outclimb
    // the cone, so the maximum leaves the centre.
    let f = SigmaFract::default();
    assert_eq!(f.dev, [1.0, 1.0]);
    assert!(near(
        f.source(),
        [0.4962102607442794, -0.2664911066218983],
        1e-6
    ));
    assert!(SigmaFract::new(1.0, [0.0, 0.0], [1.0, 0.0]).is_err());
    assert!(SigmaFract::new(-1.0, [0.0, 0.0], [1.0, 1.0]).is_err());
}

#[test]
fn gauss_carries_the_reference_normalisation() {
    let (c, i, dev) = ([1.0, 2.0], 100.0, 10.0);
    let f = SigmaGauss::new(c, i, dev).unwrap();
    let reference = [3.8372139130513405, 3.964566667826672, 3.844511550045911];
    for (p, want) in PTS.iter().zip(reference) {
        let r2 = (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2);
        let closed = i * (-r2 / (2.0 * dev * dev)).exp() / (2.0 * PI * dev * dev).sqrt();
        assert!(close(f.value(*p), closed, 1e-14));
        assert!(close(f.value(*p), want, 1e-14));
    }
    // At the source: I / √(2π dev²), not I.
    assert!(close(f.value(c), i / (2.0 * PI * 100.0).sqrt(), 1e-15));
    assert_eq!(f.source(), c);
    assert_fd_maximum(&f, f.source(), 1e-2);
}

#[test]
fn bad_bumps_are_refused() {
    let (a, b) = ([1.0, 0.0], [0.0, -1.5]);
    let neg = nalgebra::Matrix2::new(-1.0, 0.0, 0.0, -2.0);
    let pos = nalgebra::Matrix2::new(1.0, 0.0, 0.0, 2.0);
    let indef = nalgebra::Matrix2::new(-1.0, 0.0, 0.0, 2.0);
    assert!(SigmaNonconvex::with_bumps(1.0, [0.0; 2], 1.0, a, b, neg, neg).is_ok());
    for q in [pos, indef] {
        let e = SigmaNonconvex::with_bumps(1.0, [0.0; 2], 1.0, a, b, q, neg).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
        assert!(SigmaFract::with_bumps(1.0, [0.0; 2], [1.0; 2], a, b, neg, q).is_err());
    }
    assert!(SigmaNonconvex::new(f64::NAN, [0.0; 2], 1.0).is_err());
    assert!(SigmaNonconvex::new(1.0, [0.0; 2], 0.0).is_err());
    // The defaults are the reference's matrices.
    let qa = SigmaFract::create_qa();
    assert!(close(qa[(0, 0)], -0.9 / 30f64.sqrt(), 1e-16) && qa[(1, 1)] == -0.9);
    let qb = SigmaFract::create_qb();
    assert!(close(qb[(0, 1)], -(0.9 / 15f64.sqrt() - 0.9) / 2.0, 1e-15));
}

#[test]
fn configs_rebuild_the_field_and_report_the_maximum() {
    let f = SigmaNonconvex::new(0.04, [3.0, 1.0], 2.0).unwrap();
    let c = f.get_config();
    assert_eq!(c["k"], 0.04);
    assert_eq!(c["dev"], 2.0);
    assert_eq!(c["mu"], serde_json::json!([3.0, 1.0]));
    assert_eq!(c["source"][0].as_f64(), Some(f.source()[0]));
    assert_eq!(c["a"], serde_json::json!([1.0, 0.0]));
    assert_eq!(c["Qa"][1][1], -0.9);
    let f = SigmaFract::new(1.0, [1.0, -2.0], [0.7, 1.9]).unwrap();
    let c = f.get_config();
    assert_eq!(c["dev"], serde_json::json!([0.7, 1.9]));
    assert_eq!(c["b"], serde_json::json!([0.0, -1.5]));
    let g = SigmaGauss::new([1.0, 2.0], 100.0, 10.0)
        .unwrap()
        .get_config();
    assert_eq!(
        (g["max_intensity"].as_f64(), g["dev"].as_f64()),
        (Some(100.0), Some(10.0))
    );
    assert_eq!(g["mu"], serde_json::json!([1.0, 2.0]));
    let l = GvfLine::new(0.5, -1.0).get_config();
    assert_eq!(
        l,
        serde_json::json!({"m": 0.5, "b": -1.0, "line_length": 30.0})
    );
}

#[test]
fn gvf_line_is_the_vertical_offset_from_y_equals_mx_plus_b() {
    let (m, b) = (-2.5, 1.25);
    let l = GvfLine::new(m, b);
    for p in PTS {
        assert_eq!(l.phi(p), p[1] - (m * p[0] + b));
        assert_eq!(l.grad_phi(p), [-m, 1.0]);
        assert_eq!(l.hess_phi(p), [[0.0; 2]; 2]);
    }
    // numpy.linspace(-30, 30, 5): both ends exact.
    let pts = l.gen_param_points(5);
    let xs: Vec<f64> = pts.iter().map(|p| p[0]).collect();
    assert_eq!(xs, vec![-30.0, -15.0, 0.0, 15.0, 30.0]);
    for p in &pts {
        assert_eq!(p[1], m * p[0] + b);
    }
    let short = GvfLine::with_length(1.0, 0.0, 2.0).gen_param_points(3);
    assert_eq!(short, vec![[-2.0, -2.0], [0.0, 0.0], [2.0, 2.0]]);
}

#[test]
fn distance_graph_lists_ordered_pairs_row_major() {
    // 0–1 at 1, 1–2 at 1, 0–2 at 2, 3 far away; threshold 1 inclusive.
    let p = [0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 9.0, 9.0];
    let z = gen_z_distance(&p, 2, 1.0).unwrap();
    assert_eq!(z, vec![(0, 1), (1, 0), (1, 2), (2, 1)]);
    assert_eq!(
        gen_z_distance_unordered(&p, 2, 1.0).unwrap(),
        vec![(0, 1), (1, 2)]
    );
    let all = gen_z_distance(&p, 2, f64::INFINITY).unwrap();
    assert_eq!(all.len(), 4 * 3);
    assert!(all.windows(2).all(|w| w[0] < w[1]), "row-major order");
    // Listing both directions doubles the Laplacian.
    let l2 = Graph::new(4, &z).unwrap().l();
    let l1 = Graph::new(4, &gen_z_distance_unordered(&p, 2, 1.0).unwrap())
        .unwrap()
        .l();
    assert_eq!(l2, l1 * 2.0);
    assert!(gen_z_distance(&p, 2, f64::NAN).is_err());
    assert!(gen_z_distance(&p[..3], 2, 1.0).is_err());
}

#[test]
fn regular_polygons_carry_the_reference_offsets() {
    let r = 2.0;
    let theta0 = 0.3;
    for n in 1..=7usize {
        let d = 2.0 * PI / n as f64;
        let offset = if n == 2 {
            0.0
        } else if n % 2 == 0 {
            d / 2.0
        } else {
            d / 4.0
        };
        let poly = regpoly_formation(n, r, theta0);
        assert_eq!(poly.len(), n);
        for (i, v) in poly.iter().enumerate() {
            let th = d * i as f64 + offset + theta0;
            assert!(
                near(*v, [r * th.cos(), r * th.sin()], 1e-14),
                "N {n} vertex {i}"
            );
        }
    }
    // A triangle from θ0 = 0 points its first vertex at 30°.
    let tri = regpoly_formation(3, 1.0, 0.0);
    assert!(near(tri[0], [(PI / 6.0).cos(), 0.5], 1e-15));
}

#[test]
fn transformed_fields_follow_the_affine_map_about_the_source() {
    let inner = SigmaNonconvex::new(0.04, [3.0, 1.0], 2.0).unwrap();
    let s = inner.source();
    let (a, w) = (1.5, 0.4);
    let t = Transformed::new(inner.clone(), a, w).unwrap();
    let (sn, cs) = w.sin_cos();
    for p in PTS {
        // M (p − s) + s with M = a [[cos, −sin], [sin, cos]].
        let d = [p[0] - s[0], p[1] - s[1]];
        let q = [
            s[0] + a * (cs * d[0] - sn * d[1]),
            s[1] + a * (sn * d[0] + cs * d[1]),
        ];
        assert!(close(t.value(p), inner.value(q), 1e-14));
        // ∇ = Mᵀ ∇σ(q).
        let g = inner.gradient(q);
        let want = [a * (cs * g[0] + sn * g[1]), a * (-sn * g[0] + cs * g[1])];
        let got = t.gradient(p);
        assert!(close(got[0], want[0], 1e-13) && close(got[1], want[1], 1e-13));
    }
    assert_eq!(t.source(), s);
    assert_fd_maximum(&t, s, 1e-4);
    // The centre maps back onto the inner centre.
    let c = t.center();
    let d = [c[0] - s[0], c[1] - s[1]];
    let back = [
        s[0] + a * (cs * d[0] - sn * d[1]),
        s[1] + a * (sn * d[0] + cs * d[1]),
    ];
    assert!(near(back, inner.center(), 1e-12));
    assert_eq!(t.get_config()["transf_a"], 1.5);
    assert!(Transformed::new(inner, 0.0, 0.0).is_err());
}
