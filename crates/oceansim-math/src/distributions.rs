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

/// N points in a disc or annulus of radius r around rc0: the circular case
/// of [`elliptical_distrib`] (rx = ry = r, no jitter, no rotation).
pub fn circular_distrib(
    n: usize,
    rc0: [f64; 2],
    r: f64,
    h: f64,
    seed: u64,
) -> Result<Vec<[f64; 2]>> {
    elliptical_distrib(n, rc0, r, r, h, 0.0, 0.0, seed)
}

/// N points in an ellipse (semi-axes rx, ry) or an annulus of it, as
/// ssl_simulator draws them: angle θ uniform, normalised radius
/// ρ = √(U (1 − h/m) + h/m) with m = max(rx, ry), so with h = 0 the points
/// are uniform by area and h > 0 empties the core out to ρ = √(h/m) (h is
/// not itself the inner radius: for a circle that is √(h r)). Then
/// x = (ρ + ν₁) rx cos θ, y = (ρ + ν₂) ry sin θ with independent jitters
/// ν ∈ [0, border_noise), rotated by `rot_angle` (rad) and moved to rc0.
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
    let m = rx.max(ry);
    let ok = rx.is_finite() && ry.is_finite() && rx >= 0.0 && ry >= 0.0;
    if !(ok && (0.0..=m).contains(&h) && border_noise.is_finite() && border_noise >= 0.0) {
        return Err(MathError::Invalid(format!(
            "need rx, ry >= 0, 0 <= h <= max(rx, ry) and border_noise >= 0, \
             got rx = {rx}, ry = {ry}, h = {h}, border_noise = {border_noise}"
        )));
    }
    let core = if m > 0.0 { h / m } else { 0.0 };
    let mut r = rng(seed);
    let (s, c) = rot_angle.sin_cos();
    Ok((0..n)
        .map(|_| {
            let t = 2.0 * PI * r.gen::<f64>();
            let rho = (r.gen::<f64>() * (1.0 - core) + core).sqrt();
            let x = (rho + border_noise * r.gen::<f64>()) * rx * t.cos();
            let y = (rho + border_noise * r.gen::<f64>()) * ry * t.sin();
            [rc0[0] + c * x - s * y, rc0[1] + s * x + c * y]
        })
        .collect())
}

/// √(|a| / a): 1 for a > 0, NaN otherwise (the reference's switch that
/// makes a branch of the curve vanish where it does not apply).
fn side(a: f64) -> f64 {
    (a.abs() / a).sqrt()
}

/// Whether (x, y) in the reference's [−8, 8]² frame lies in the thin band
/// just inside the Batman outline that ssl_simulator samples: one of six
/// implicit pieces e(x, y) of the curve with −0.05 < e < 0 (wings) or
/// −0.5 < e < 0 (the rest), each on its own x/y window. NaN (a piece that
/// does not apply) never passes.
fn on_batman_band(x: f64, y: f64) -> bool {
    let ax = x.abs();
    let s33 = 33f64.sqrt();
    let band = |e: f64, lo: f64| e < 0.0 && e > lo;
    let eq1 =
        || (x / 7.0).powi(2) * side(ax - 3.0) + (y / 3.0).powi(2) * side(y + 3.0 / 7.0 * s33) - 1.0;
    // The outer wings, and the wings' top edge over the body.
    let wings = !(-4.0..=4.0).contains(&x) || (y >= 0.0 && ax < 4.0);
    if wings && band(eq1(), -0.05) {
        return true;
    }
    if y < 0.0 && (-4.0..=4.0).contains(&x) {
        let eq2 = ax / 2.0 - (3.0 * s33 - 7.0) / 112.0 * x * x - 3.0
            + (1.0 - ((ax - 2.0).abs() - 1.0).powi(2)).sqrt()
            - y;
        if band(eq2, -0.5) {
            return true;
        }
    }
    if y <= 0.0 {
        return false;
    }
    // Ears, head, and shoulders.
    if (0.75..=1.0).contains(&ax) {
        let eq3 = 9.0 * (((ax - 1.0) * (ax - 0.75)).abs() / ((1.0 - ax) * (ax - 0.75))).sqrt()
            - 8.0 * ax
            - y;
        if band(eq3, -0.5) {
            return true;
        }
    }
    if ax < 0.75 {
        let eq4 = 3.0 * ax
            + 0.75 * (((ax - 0.75) * (ax - 0.5)).abs() / ((0.75 - ax) * (ax - 0.5))).sqrt()
            - y;
        if band(eq4, -0.5) {
            return true;
        }
    }
    if ax < 0.5 {
        let eq5 = 2.25 * (((x - 0.5) * (x + 0.5)).abs() / ((0.5 - x) * (0.5 + x))).sqrt() - y;
        if band(eq5, -0.5) {
            return true;
        }
    }
    if ax > 1.0 && ax < 3.0 {
        let eq6 = 6.0 * 10f64.sqrt() / 7.0 + (1.5 - 0.5 * ax) * side(ax - 1.0)
            - 6.0 * 10f64.sqrt() / 14.0 * (4.0 - (ax - 1.0).powi(2)).sqrt()
            - y;
        if band(eq6, -0.5) {
            return true;
        }
    }
    false
}

/// N points tracing the Batman outline, as ssl_simulator draws them:
/// uniform draws in [−8, 8]² kept when they fall in the thin band just
/// inside one of the outline's six pieces, then mapped to
/// rc0 + scale·(x·lims₀/8, y·lims₁/8) (seeded rejection sampling).
pub fn batman_distrib(
    n: usize,
    rc0: [f64; 2],
    lims: [f64; 2],
    scale: f64,
    seed: u64,
) -> Vec<[f64; 2]> {
    let mut r = rng(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let x = 16.0 * r.gen::<f64>() - 8.0;
        let y = 16.0 * r.gen::<f64>() - 8.0;
        if on_batman_band(x, y) {
            out.push([
                rc0[0] + scale * (x / 8.0 * lims[0]),
                rc0[1] + scale * (y / 8.0 * lims[1]),
            ]);
        }
    }
    out
}

/// N agents scattered (seeded) over a four-petal "flower" around the
/// origin, as ssl_simulator draws its dummy non-uniform formation: each
/// round draws N/2 points uniform in the square ±R·b/4 and N/8 in the
/// square ±R·b/20, keeps those with ‖p‖ ≤ R cos²(2θ) + b, θ = atan2(x, y)
/// (angle from +y, as the reference measures it), until N are kept.
///
/// The shape matches the reference; the points cannot (its draws come from
/// numpy's global generator). Errors unless R ≥ 0 and b > 0 are finite.
pub fn flower_formation(n: usize, r: f64, b: f64, seed: u64) -> Result<Vec<[f64; 2]>> {
    if !(r.is_finite() && r >= 0.0 && b.is_finite() && b > 0.0) {
        return Err(MathError::Invalid(format!(
            "flower_formation needs R >= 0 and b > 0, got R = {r}, b = {b}"
        )));
    }
    let mut g = rng(seed);
    let mut out = Vec::with_capacity(n);
    // At least one draw per box and round, so N = 1 terminates.
    let (n1, n2) = ((n / 2).max(1), (n / 8).max(1));
    while out.len() < n {
        let big = (0..n1).map(|_| r * b / 4.0);
        let small = (0..n2).map(|_| r * b / 20.0);
        for half in big.chain(small) {
            let x = (2.0 * g.gen::<f64>() - 1.0) * half;
            let y = (2.0 * g.gen::<f64>() - 1.0) * half;
            let th = x.atan2(y);
            if x.hypot(y) <= r * (2.0 * th).cos().powi(2) + b {
                out.push([x, y]);
            }
        }
    }
    out.truncate(n);
    Ok(out)
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
    use std::f64::consts::FRAC_PI_2;

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
        // The reference's annulus law: h = 1, r = 2 empties the core to
        // √(h r) = √2, and the radius² is uniform above it.
        let ring = circular_distrib(4000, [1.0, 1.0], 2.0, 1.0, 3).unwrap();
        let r2: Vec<f64> = ring
            .iter()
            .map(|p| (p[0] - 1.0).powi(2) + (p[1] - 1.0).powi(2))
            .collect();
        assert!(r2.iter().all(|d| (2.0 - 1e-12..=4.0 + 1e-12).contains(d)));
        let below3 = r2.iter().filter(|d| **d < 3.0).count() as f64 / 4000.0;
        assert!((below3 - 0.5).abs() < 0.04, "{below3}");
        assert!(circular_distrib(5, [0.0, 0.0], 2.0, 2.5, 1).is_err());
        // Jitter only pushes outward; rotation turns the ellipse.
        for p in elliptical_distrib(500, [0.0, 0.0], 4.0, 1.0, 0.0, 0.1, FRAC_PI_2, 9).unwrap() {
            // Rotated by 90°: the long axis is now y.
            assert!(
                p[0].abs() <= 1.1 + 1e-12 && p[1].abs() <= 4.4 + 1e-12,
                "{p:?}"
            );
        }
        for p in xy_distrib(50, [0.0, 0.0], [1.0, 2.0], 2.0, 1) {
            assert!(p[0].abs() <= 2.0 && p[1].abs() <= 4.0);
        }
    }

    #[test]
    fn batman_points_trace_the_outline() {
        let pts = batman_distrib(2000, [1.0, -1.0], [8.0, 4.0], 2.0, 11);
        assert_eq!(pts.len(), 2000);
        assert_eq!(pts, batman_distrib(2000, [1.0, -1.0], [8.0, 4.0], 2.0, 11));
        // Back in the [−8, 8]² frame every point is on the band.
        let back: Vec<[f64; 2]> = pts
            .iter()
            .map(|p| [(p[0] - 1.0) / 2.0, p[1] + 1.0])
            .collect();
        assert!(back.iter().all(|q| on_batman_band(q[0], q[1])));
        // Every piece of the outline gets points: wing tips, the lower
        // edge, the ears and head, the shoulders.
        let count = |f: &dyn Fn(&[f64; 2]) -> bool| back.iter().filter(|q| f(q)).count();
        assert!(count(&|q| q[0] > 6.0) > 10 && count(&|q| q[0] < -6.0) > 10);
        assert!(count(&|q| q[1] < -1.0 && q[0].abs() < 3.0) > 10);
        assert!(count(&|q| q[1] > 1.0 && q[0].abs() < 1.0) > 10);
        assert!(count(&|q| q[1] > 1.0 && q[0].abs() > 1.0 && q[0].abs() < 3.0) > 10);
        // The band is thin: the centre of the body and far outside are not.
        assert!(!on_batman_band(0.0, 0.0) && !on_batman_band(0.0, -1.0));
        assert!(!on_batman_band(7.5, 0.0) && on_batman_band(6.99, 0.0));
    }

    #[test]
    fn formations() {
        // A square is edge-on: its first vertex at 45°.
        let poly = regpoly_formation(4, 2.0, 0.0);
        let c = 2.0 * std::f64::consts::FRAC_1_SQRT_2;
        assert!((poly[0][0] - c).abs() < 1e-12 && (poly[0][1] - c).abs() < 1e-12);
        assert!((poly[1][0] + c).abs() < 1e-12 && (poly[1][1] - c).abs() < 1e-12);
        let f = flower_formation(500, 3.0, 3.0, 4).unwrap();
        assert_eq!(f.len(), 500);
        assert_eq!(f, flower_formation(500, 3.0, 3.0, 4).unwrap(), "seeded");
        for p in &f {
            let th = p[0].atan2(p[1]);
            assert!(p[0].hypot(p[1]) <= 3.0 * (2.0 * th).cos().powi(2) + 3.0);
            assert!(p[0].abs() <= 3.0 * 3.0 / 4.0 && p[1].abs() <= 3.0 * 3.0 / 4.0);
        }
        // Non-uniform: the small box adds a dense core.
        let core = f
            .iter()
            .filter(|p| p[0].abs() < 0.45 && p[1].abs() < 0.45)
            .count();
        assert!(core > 500 * 15 / 100, "{core} in the core");
        assert_eq!(flower_formation(1, 3.0, 3.0, 1).unwrap().len(), 1);
        assert!(flower_formation(5, 3.0, 0.0, 1).is_err());
        assert!(flower_formation(5, f64::NAN, 1.0, 1).is_err());
    }
}
