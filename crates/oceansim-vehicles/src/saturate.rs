//! Saturation of command vectors to a Euclidean norm, finite and
//! direction-preserving for every finite input.
//!
//! The textbook `v · max / |v|` fails at the ends of the f64 range: the
//! sum of squares of a component above ~1.3e154 overflows to infinity, so
//! the scale `max / ∞` is zero (`[1e155, 0, 0]` became `[0, 0, 0]`) and
//! `f64::MAX · max / ∞` is NaN. Here a vector whose plain norm would not
//! be finite is first divided by its largest component, so the norm taken
//! is in `[1, √N]` and the clipped vector keeps the input's direction.

/// Scales `v` down to Euclidean norm `max` (≥ 0) when it is longer; says
/// whether it did. For every finite `v` the result is finite, has norm at
/// most `max` (to rounding) and, when clipped, points the way `v` points.
/// Non-finite inputs are made total too: infinite components keep their
/// sign and outweigh the finite ones (`[∞, 1, 0]` clips to `[max, 0, 0]`);
/// a vector holding NaN has no direction and becomes zero (clipped).
pub fn clip_norm<const N: usize>(v: [f64; N], max: f64) -> ([f64; N], bool) {
    let max = if max > 0.0 { max } else { 0.0 };
    if v.iter().any(|x| x.is_nan()) {
        return ([0.0; N], true);
    }
    let big = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if big == 0.0 {
        return (v, false);
    }
    let squares: f64 = v.iter().map(|x| x * x).sum();
    if squares.is_finite() && squares >= f64::MIN_POSITIVE {
        // The common case, exactly as before: nothing over- or underflowed.
        let norm = squares.sqrt();
        return if norm <= max {
            (v, false)
        } else {
            (v.map(|x| x * (max / norm)), true)
        };
    }
    // Scaled by the largest magnitude: `unit` has components in [-1, 1],
    // at least one of them ±1, so its norm is in [1, √N] and finite.
    let unit = if big.is_infinite() {
        v.map(|x| if x.is_infinite() { x.signum() } else { 0.0 })
    } else {
        v.map(|x| x / big)
    };
    let unit_norm = unit.iter().map(|x| x * x).sum::<f64>().sqrt();
    // |v| = big · unit_norm ≤ max, compared without forming the product
    // (max / big may underflow to 0 or overflow to ∞; both compare right).
    if big.is_finite() && unit_norm <= max / big {
        return (v, false);
    }
    (unit.map(|x| x * (max / unit_norm)), true)
}

/// The Euclidean norm of `v` without overflow or underflow in between
/// (infinite only when the norm itself exceeds `f64::MAX`).
pub fn norm(v: &[f64]) -> f64 {
    let big = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if big == 0.0 || !big.is_finite() {
        return big;
    }
    big * v.iter().map(|x| (x / big).powi(2)).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clipped vector is finite, at most `max` long, and parallel to
    /// the input (cosine 1 computed in scaled form).
    fn check(v: [f64; 3], max: f64) -> [f64; 3] {
        let (out, clipped) = clip_norm(v, max);
        assert!(out.iter().all(|x| x.is_finite()), "{v:?} -> {out:?}");
        let n = norm(&out);
        assert!(n <= max * (1.0 + 1e-12), "{v:?} -> {out:?} (|out| {n})");
        if clipped {
            assert!((n - max).abs() <= max * 1e-12, "{v:?} -> {out:?}");
            // The cosine in scaled form (|v| itself may be ∞).
            let big = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let u = v.map(|x| x / big);
            let nu = norm(&u);
            let cos: f64 = u.iter().zip(&out).map(|(a, b)| (a / nu) * (b / n)).sum();
            assert!((cos - 1.0).abs() < 1e-12, "{v:?} -> {out:?}: cos {cos}");
        } else {
            assert_eq!(out, v);
        }
        out
    }

    #[test]
    fn huge_vectors_clip_to_the_limit_along_their_direction() {
        const M: f64 = f64::MAX;
        assert_eq!(check([1e155, 0.0, 0.0], 5.0), [5.0, 0.0, 0.0]);
        assert_eq!(check([M, 0.0, 0.0], 5.0), [5.0, 0.0, 0.0]);
        assert_eq!(check([-M, 0.0, 0.0], 5.0), [-5.0, 0.0, 0.0]);
        assert_eq!(check([0.0, 0.0, -1e200], 20.0), [0.0, 0.0, -20.0]);
        let s = 5.0 / 3f64.sqrt();
        for x in check([M, M, M], 5.0) {
            assert!((x - s).abs() < 1e-14, "{x}");
        }
        for x in check([M, -M, M], 5.0).iter().zip([1.0, -1.0, 1.0]) {
            assert!((x.0 - x.1 * s).abs() < 1e-14);
        }
        // Mixed magnitudes: the largest component dominates, the rest keep
        // their (negligible) share and sign.
        let out = check([M, 1e-300, -1.0], 5.0);
        assert_eq!(out[0], 5.0);
        assert!(out[1] >= 0.0 && out[2] <= 0.0);
        let out = check([3e154, 4e154, 0.0], 5.0);
        assert!((out[0] - 3.0).abs() < 1e-14 && (out[1] - 4.0).abs() < 1e-14);
        check([1e154, -1e154, 1e153], 1.0);
        check([1.3e154, 0.0, 0.0], 5.0);
    }

    #[test]
    fn small_and_ordinary_vectors_pass_unchanged_or_clip_as_before() {
        let tiny = f64::from_bits(1); // the smallest subnormal
        assert_eq!(
            clip_norm([tiny, 0.0, -tiny], 5.0),
            ([tiny, 0.0, -tiny], false)
        );
        assert!(!clip_norm([1e-200, 1e-200, 0.0], 5.0).1);
        assert_eq!(clip_norm([0.0; 3], 5.0), ([0.0; 3], false));
        assert_eq!(clip_norm([-0.0, 0.0, 0.0], 5.0), ([-0.0, 0.0, 0.0], false));
        assert_eq!(clip_norm([3.0, 4.0, 0.0], 5.0), ([3.0, 4.0, 0.0], false));
        assert_eq!(clip_norm([6.0, 8.0, 0.0], 5.0), ([3.0, 4.0, 0.0], true));
        check([1e3, -2e3, 5e2], 5.0);
        // A zero limit clips everything to zero; a negative one acts as 0.
        assert_eq!(clip_norm([1.0, 0.0, 0.0], 0.0), ([0.0; 3], true));
        assert_eq!(clip_norm([f64::MAX, 0.0, 0.0], -1.0), ([0.0; 3], true));
        // Six components (wrenches) work the same way.
        let (w, c) = clip_norm([f64::MAX; 6], 6.0);
        assert!(c && w.iter().all(|x| (x - 6.0 / 6f64.sqrt()).abs() < 1e-14));
    }

    #[test]
    fn non_finite_inputs_stay_total() {
        let inf = f64::INFINITY;
        assert_eq!(clip_norm([inf, 1.0, 0.0], 5.0), ([5.0, 0.0, 0.0], true));
        assert_eq!(clip_norm([-inf, 0.0, 0.0], 5.0), ([-5.0, 0.0, 0.0], true));
        assert_eq!(clip_norm([f64::NAN, 1.0, 0.0], 5.0), ([0.0; 3], true));
        assert!((norm(&[3e200, 4e200]) / 5e200 - 1.0).abs() < 1e-15);
        assert!((norm(&[3e-200, 4e-200]) / 5e-200 - 1.0).abs() < 1e-15);
        assert_eq!(norm(&[f64::MAX, f64::MAX]), inf);
    }
}
