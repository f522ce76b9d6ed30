//! Finding a field's maximum from its centre: damped Newton ascent on the
//! exact gradient and Hessian, with gradient steps where the Hessian is not
//! negative definite and a backtracking line search on the value, so every
//! accepted step climbs.

use super::v;
use nalgebra::{Matrix2, Vector2};

/// Value, gradient and Hessian of a smooth function of the plane.
pub trait Smooth {
    /// f(p).
    fn f(&self, p: [f64; 2]) -> f64;
    /// ∇f(p).
    fn df(&self, p: [f64; 2]) -> Vector2<f64>;
    /// ∇²f(p).
    fn d2f(&self, p: [f64; 2]) -> Matrix2<f64>;
}

/// The local maximum of `f` reached from `start`; `scale` is a length on
/// which `f` changes (the first gradient step is at most that long).
///
/// Stops when the gradient vanishes to rounding (‖∇f‖ ≤ 1e-12 (1 + |f|) /
/// scale), when a step no longer moves the point, or after 500 steps.
pub fn ascend(f: &dyn Smooth, start: [f64; 2], scale: f64) -> [f64; 2] {
    let mut x = v(start);
    let mut fx = f.f(x.into());
    for _ in 0..500 {
        let g = f.df(x.into());
        if g.norm() <= 1e-12 * (1.0 + fx.abs()) / scale {
            break;
        }
        let h = f.d2f(x.into());
        // Newton toward the maximum where the Hessian is negative definite
        // (trace < 0 and determinant > 0), else along the gradient.
        let newton = (h.trace() < 0.0 && h.determinant() > 0.0)
            .then(|| h.try_inverse().map(|hi| -(hi * g)))
            .flatten();
        let d = newton.unwrap_or_else(|| g * (scale / g.norm()));
        let slope = g.dot(&d);
        let mut t = 1.0;
        let mut moved = false;
        while t > 1e-16 {
            let y = x + d * t;
            let fy = f.f(y.into());
            if fy >= fx + 1e-4 * t * slope {
                moved = (y - x).norm() > 1e-15 * (1.0 + x.norm());
                x = y;
                fx = fy;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            break;
        }
    }
    x.into()
}

/// Whether `p` is a strict local maximum by the second-order conditions
/// (gradient zero to `tol`, Hessian negative definite).
pub fn is_local_max(f: &dyn Smooth, p: [f64; 2], tol: f64) -> bool {
    let h = f.d2f(p);
    f.df(p).norm() <= tol && h.trace() < 0.0 && h.determinant() > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f = −(x − 1)² − 3 (y + 2)² + x y, a concave quadratic.
    struct Quad;
    impl Smooth for Quad {
        fn f(&self, p: [f64; 2]) -> f64 {
            -(p[0] - 1.0).powi(2) - 3.0 * (p[1] + 2.0).powi(2) + p[0] * p[1]
        }
        fn df(&self, p: [f64; 2]) -> Vector2<f64> {
            Vector2::new(-2.0 * (p[0] - 1.0) + p[1], -6.0 * (p[1] + 2.0) + p[0])
        }
        fn d2f(&self, _: [f64; 2]) -> Matrix2<f64> {
            Matrix2::new(-2.0, 1.0, 1.0, -6.0)
        }
    }

    #[test]
    fn newton_lands_on_a_quadratic_maximum_in_one_step() {
        // ∇f = 0: −2x + y = −2, x − 6y = 12 → x = 0, y = −2.
        let m = ascend(&Quad, [5.0, 5.0], 1.0);
        assert!(
            (m[0] - 0.0).abs() < 1e-12 && (m[1] + 2.0).abs() < 1e-12,
            "{m:?}"
        );
        assert!(is_local_max(&Quad, m, 1e-9));
    }

    /// f = exp(−x²) + exp(−(y − 3)²): starts where the Hessian is indefinite.
    struct Ridge;
    impl Smooth for Ridge {
        fn f(&self, p: [f64; 2]) -> f64 {
            (-p[0] * p[0]).exp() + (-(p[1] - 3.0).powi(2)).exp()
        }
        fn df(&self, p: [f64; 2]) -> Vector2<f64> {
            Vector2::new(
                -2.0 * p[0] * (-p[0] * p[0]).exp(),
                -2.0 * (p[1] - 3.0) * (-(p[1] - 3.0).powi(2)).exp(),
            )
        }
        fn d2f(&self, p: [f64; 2]) -> Matrix2<f64> {
            let (x, y) = (p[0], p[1] - 3.0);
            Matrix2::new(
                (4.0 * x * x - 2.0) * (-x * x).exp(),
                0.0,
                0.0,
                (4.0 * y * y - 2.0) * (-y * y).exp(),
            )
        }
    }

    #[test]
    fn gradient_steps_carry_it_out_of_indefinite_regions() {
        let m = ascend(&Ridge, [0.9, 1.6], 1.0);
        assert!(m[0].abs() < 1e-9 && (m[1] - 3.0).abs() < 1e-9, "{m:?}");
        assert!(is_local_max(&Ridge, m, 1e-9));
    }
}
