//! Initial positions and formations. Random distributions take a seed and
//! use ChaCha8, so the same seed gives the same points on every platform.

use crate::error::{MathError, Result};
use nalgebra::DMatrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// N points uniform in the box rc0 ± lims, in D = lims.len() dimensions
/// (rc0 defaults to the origin). Returns an N×D matrix.
pub fn uniform_distrib(
    n: usize,
    lims: &[f64],
    rc0: Option<&[f64]>,
    seed: u64,
) -> Result<DMatrix<f64>> {
    let d = lims.len();
    let zero = vec![0.0; d];
    let rc0 = rc0.unwrap_or(&zero);
    if rc0.len() != d {
        return Err(MathError::Shape {
            name: "rc0".into(),
            expected: format!("({d},)"),
            got: format!("({},)", rc0.len()),
        });
    }
    if lims.iter().any(|l| !(l.is_finite() && *l >= 0.0)) {
        return Err(MathError::Invalid("lims must be finite and >= 0".into()));
    }
    let mut r = rng(seed);
    Ok(DMatrix::from_fn(n, d, |_, j| {
        rc0[j] + lims[j] * (2.0 * r.gen::<f64>() - 1.0)
    }))
}

/// N 2-D points uniform in rc0 ± scale·lims.
pub fn xy_distrib(n: usize, rc0: [f64; 2], lims: [f64; 2], scale: f64, seed: u64) -> Vec<[f64; 2]> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| {
            [
                rc0[0] + scale * lims[0] * (2.0 * r.gen::<f64>() - 1.0),
                rc0[1] + scale * lims[1] * (2.0 * r.gen::<f64>() - 1.0),
            ]
        })
        .collect()
}

/// N points uniform (by area) in the annulus r_in ≤ |p − rc0| ≤ r.
pub fn circular_distrib(
    n: usize,
    rc0: [f64; 2],
    r: f64,
    r_in: f64,
    seed: u64,
) -> Result<Vec<[f64; 2]>> {
    elliptical_distrib(
        n,
        rc0,
        r,
        r,
        if r > 0.0 { r_in / r } else { 0.0 },
        0.0,
        0.0,
        seed,
    )
}

/// N points uniform (by area) in an elliptical annulus: semi-axes rx, ry,
/// inner boundary at fraction `h` ∈ [0, 1) of the ellipse, radial jitter of
/// up to ± `border_noise` (fraction), rotated by `rot_angle` (rad).
#[allow(clippy::too_many_arguments)]
pub fn elliptical_distrib(
    n: usize,
    rc0: [f64; 2],
    rx: f64,
    ry: f64,
    h: f64,
    border_noise: f64,
    rot_angle: f64,
    seed: u64,
) -> Result<Vec<[f64; 2]>> {
    if !(rx >= 0.0 && ry >= 0.0 && (0.0..1.0).contains(&h) && border_noise >= 0.0) {
        return Err(MathError::Invalid(
            "need rx, ry >= 0, 0 <= h < 1 and border_noise >= 0".into(),
        ));
    }
    let mut r = rng(seed);
    let (s, c) = rot_angle.sin_cos();
    Ok((0..n)
        .map(|_| {
            let t = 2.0 * PI * r.gen::<f64>();
            let mut rho = (h * h + (1.0 - h * h) * r.gen::<f64>()).sqrt();
            rho *= 1.0 + border_noise * (2.0 * r.gen::<f64>() - 1.0);
            let (x, y) = (rx * rho * t.cos(), ry * rho * t.sin());
            [rc0[0] + c * x - s * y, rc0[1] + s * x + c * y]
        })
        .collect())
}

/// Upper and lower edges of the classic "Batman" curve on x ∈ [−7, 7].
fn batman_bounds(x: f64) -> (f64, f64) {
    let ax = x.abs();
    let upper = if ax > 3.0 {
        3.0 * (1.0 - (x / 7.0).powi(2)).max(0.0).sqrt()
    } else if ax > 1.0 {
        6.0 * 10f64.sqrt() / 7.0 + (1.5 - 0.5 * ax)
            - 6.0 * 10f64.sqrt() / 14.0 * (4.0 - (ax - 1.0).powi(2)).max(0.0).sqrt()
    } else if ax > 0.75 {
        9.0 - 8.0 * ax
    } else if ax > 0.5 {
        3.0 * ax + 0.75
    } else {
        2.25
    };
    let lower = if ax > 4.0 {
        -3.0 * (1.0 - (x / 7.0).powi(2)).max(0.0).sqrt()
    } else {
        (x / 2.0).abs() - (3.0 * 33f64.sqrt() - 7.0) / 112.0 * x * x - 3.0
            + (1.0 - ((ax - 2.0).abs() - 1.0).powi(2)).max(0.0).sqrt()
    };
    (lower, upper)
}

/// N points uniform inside the Batman curve, scaled to the box rc0 ± lims
/// (rejection sampling).
pub fn batman_distrib(n: usize, rc0: [f64; 2], lims: [f64; 2], seed: u64) -> Vec<[f64; 2]> {
    let mut r = rng(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let x = 14.0 * r.gen::<f64>() - 7.0;
        let y = 6.0 * r.gen::<f64>() - 3.0;
        let (lo, hi) = batman_bounds(x);
        if y >= lo && y <= hi {
            out.push([rc0[0] + x / 7.0 * lims[0], rc0[1] + y / 3.0 * lims[1]]);
        }
    }
    out
}

/// N agents on a `b`-petal flower around the origin: agent i at angle
/// θᵢ = 2πi/N and radius R (2 + cos(b θᵢ))/3, so radii vary between R/3 and
/// R (a deliberately non-uniform formation).
pub fn flower_formation(n: usize, r: f64, b: u32) -> Vec<[f64; 2]> {
    (0..n)
        .map(|i| {
            let th = 2.0 * PI * i as f64 / n as f64;
            let rho = r * (2.0 + (f64::from(b) * th).cos()) / 3.0;
            [rho * th.cos(), rho * th.sin()]
        })
        .collect()
}

/// The N vertices of a regular polygon of circumradius r, counter-clockwise,
/// as ssl_simulator places them: vertex i at angle i·Δ + θ0 + offset,
/// Δ = 2π/N, offset Δ/2 for even N > 2, Δ/4 for odd N, 0 for N = 2 (so a
/// square sits edge-on to the axes, not corner-on).
pub fn regpoly_formation(n: usize, r: f64, theta0: f64) -> Vec<[f64; 2]> {
    let d_theta = 2.0 * PI / n as f64;
    let offset = match n {
        2 => 0.0,
        n if n.is_multiple_of(2) => d_theta / 2.0,
        _ => d_theta / 4.0,
    };
    (0..n)
        .map(|i| {
            // Summed in the reference's order, for the same rounding.
            let th = d_theta * i as f64 + offset + theta0;
            [r * th.cos(), r * th.sin()]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_in_bounds() {
        let a = uniform_distrib(100, &[1.0, 2.0, 3.0], Some(&[5.0, 0.0, -1.0]), 7).unwrap();
        assert_eq!(
            a,
            uniform_distrib(100, &[1.0, 2.0, 3.0], Some(&[5.0, 0.0, -1.0]), 7).unwrap()
        );
        assert_ne!(
            a,
            uniform_distrib(100, &[1.0, 2.0, 3.0], Some(&[5.0, 0.0, -1.0]), 8).unwrap()
        );
        for i in 0..100 {
            assert!(
                (a[(i, 0)] - 5.0).abs() <= 1.0
                    && a[(i, 1)].abs() <= 2.0
                    && (a[(i, 2)] + 1.0).abs() <= 3.0
            );
        }
        assert!(uniform_distrib(3, &[1.0], Some(&[0.0, 0.0]), 1).is_err());
        for p in circular_distrib(500, [1.0, 1.0], 2.0, 1.0, 3).unwrap() {
            let d = (p[0] - 1.0).hypot(p[1] - 1.0);
            assert!((1.0 - 1e-12..=2.0 + 1e-12).contains(&d), "{d}");
        }
        for p in xy_distrib(50, [0.0, 0.0], [1.0, 2.0], 2.0, 1) {
            assert!(p[0].abs() <= 2.0 && p[1].abs() <= 4.0);
        }
    }

    #[test]
    fn batman_points_are_inside_the_curve() {
        let pts = batman_distrib(300, [0.0, 0.0], [7.0, 3.0], 11);
        assert_eq!(pts.len(), 300);
        for p in pts {
            let (lo, hi) = batman_bounds(p[0]);
            assert!(p[1] >= lo && p[1] <= hi);
        }
    }

    #[test]
    fn formations() {
        // A square is edge-on: its first vertex at 45°.
        let poly = regpoly_formation(4, 2.0, 0.0);
        let c = 2.0 * std::f64::consts::FRAC_1_SQRT_2;
        assert!((poly[0][0] - c).abs() < 1e-12 && (poly[0][1] - c).abs() < 1e-12);
        assert!((poly[1][0] + c).abs() < 1e-12 && (poly[1][1] - c).abs() < 1e-12);
        let f = flower_formation(12, 3.0, 3);
        assert!((f[0][0] - 3.0).abs() < 1e-12, "petal tip at R");
        let radii: Vec<f64> = f.iter().map(|p| p[0].hypot(p[1])).collect();
        assert!(radii.iter().all(|r| *r >= 1.0 - 1e-12 && *r <= 3.0 + 1e-12));
    }
}
