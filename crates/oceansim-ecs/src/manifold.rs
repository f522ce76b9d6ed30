//! Manifolds: the in-place retraction x ⊞ ξ of integrated state.
//!
//! Representations are flat struct-of-arrays over the N entities:
//!
//! | manifold | state per entity | tangent per entity | retraction |
//! |---|---|---|---|
//! | [`Flat`] | any shape | same shape | x + ξ |
//! | [`SO3`] | 3×3 rotation matrix, row-major | 3 (body rotation vector) | R · exp(ξ̂), then one orthonormalising Newton step |
//! | [`UnitQuaternion`] | 4: `[w, x, y, z]` | 3 (body rotation vector) | q ⊗ exp(ξ/2), renormalised |
//!
//! Rotations stay orthonormal (unit) to 1e-12 over 10⁶ steps.

use crate::error::{EcsError, Result};
use crate::par::par_rows_mut;
use std::fmt::Debug;

/// A state manifold with an in-place retraction.
pub trait Manifold: Debug + Send + Sync {
    /// Name for introspection.
    fn name(&self) -> &'static str;
    /// Values per entity of the tangent for a state of per-entity shape `dim`.
    fn tangent_stride(&self, dim: &[usize]) -> usize;
    /// Rejects state shapes the manifold cannot hold.
    fn check_state_dim(&self, name: &str, dim: &[usize]) -> Result<()> {
        let _ = (name, dim);
        Ok(())
    }
    /// x ⊞ h·v for every entity, in place (`x` and `v` hold N rows).
    fn retract_scaled(&self, x: &mut [f64], v: &[f64], h: f64, state_stride: usize);
    /// x ⊞ ξ, in place.
    fn retract(&self, x: &mut [f64], tangent: &[f64], state_stride: usize) {
        self.retract_scaled(x, tangent, 1.0, state_stride)
    }
}

/// Euclidean space: retraction is addition.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flat;

impl Manifold for Flat {
    fn name(&self) -> &'static str {
        "flat"
    }
    fn tangent_stride(&self, dim: &[usize]) -> usize {
        dim.iter().product()
    }
    fn retract_scaled(&self, x: &mut [f64], v: &[f64], h: f64, stride: usize) {
        par_rows_mut(x, stride, |first, rows| {
            let v = &v[first * stride..first * stride + rows.len()];
            for (xi, vi) in rows.iter_mut().zip(v) {
                *xi += h * vi;
            }
        });
    }
}

fn exact_shape(name: &str, dim: &[usize], want: &[usize], what: &str) -> Result<()> {
    if dim != want {
        return Err(EcsError::Shape {
            name: name.to_owned(),
            expected: format!("per-entity shape {want:?} for {what}"),
            got: format!("{dim:?}"),
        });
    }
    Ok(())
}

/// Rodrigues: exp of the rotation vector w as a row-major 3×3 matrix.
pub fn so3_exp(w: [f64; 3]) -> [f64; 9] {
    let th2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    let th = th2.sqrt();
    // a = sin θ / θ, b = (1 - cos θ) / θ², by series near 0.
    let (a, b) = if th < 1e-4 {
        (
            1.0 - th2 / 6.0 + th2 * th2 / 120.0,
            0.5 - th2 / 24.0 + th2 * th2 / 720.0,
        )
    } else {
        (th.sin() / th, (1.0 - th.cos()) / th2)
    };
    let [x, y, z] = w;
    [
        1.0 - b * (y * y + z * z),
        -a * z + b * x * y,
        a * y + b * x * z,
        a * z + b * x * y,
        1.0 - b * (x * x + z * z),
        -a * x + b * y * z,
        -a * y + b * x * z,
        a * x + b * y * z,
        1.0 - b * (x * x + y * y),
    ]
}

fn mat_mul(a: &[f64], b: &[f64; 9]) -> [f64; 9] {
    let mut out = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            out[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j];
        }
    }
    out
}

/// SO(3) as row-major rotation matrices; tangents are body rotation vectors.
#[derive(Debug, Clone, Copy, Default)]
pub struct SO3;

impl Manifold for SO3 {
    fn name(&self) -> &'static str {
        "SO3"
    }
    fn tangent_stride(&self, _dim: &[usize]) -> usize {
        3
    }
    fn check_state_dim(&self, name: &str, dim: &[usize]) -> Result<()> {
        exact_shape(name, dim, &[3, 3], "an SO(3) state")
    }
    fn retract_scaled(&self, x: &mut [f64], v: &[f64], h: f64, _stride: usize) {
        par_rows_mut(x, 9, |first, rows| {
            for (k, r) in rows.chunks_exact_mut(9).enumerate() {
                let i = first + k;
                let w = [h * v[3 * i], h * v[3 * i + 1], h * v[3 * i + 2]];
                let m = mat_mul(r, &so3_exp(w));
                // One Newton step towards the polar factor, R ← (3R − R Rᵀ R)/2,
                // keeps RᵀR = I at rounding level instead of letting it drift.
                let mut rrt = [0.0; 9];
                for a in 0..3 {
                    for b in 0..3 {
                        rrt[a * 3 + b] = m[a * 3] * m[b * 3]
                            + m[a * 3 + 1] * m[b * 3 + 1]
                            + m[a * 3 + 2] * m[b * 3 + 2];
                    }
                }
                let rrtr = mat_mul(&rrt, &m);
                for (dst, (mi, ci)) in r.iter_mut().zip(m.iter().zip(rrtr.iter())) {
                    *dst = 1.5 * mi - 0.5 * ci;
                }
            }
        });
    }
}

/// Unit quaternions `[w, x, y, z]`; tangents are body rotation vectors.
#[derive(Debug, Clone, Copy, Default)]
pub struct UnitQuaternion;

impl Manifold for UnitQuaternion {
    fn name(&self) -> &'static str {
        "unit_quaternion"
    }
    fn tangent_stride(&self, _dim: &[usize]) -> usize {
        3
    }
    fn check_state_dim(&self, name: &str, dim: &[usize]) -> Result<()> {
        exact_shape(name, dim, &[4], "a unit-quaternion state")
    }
    fn retract_scaled(&self, x: &mut [f64], v: &[f64], h: f64, _stride: usize) {
        par_rows_mut(x, 4, |first, rows| {
            for (k, q) in rows.chunks_exact_mut(4).enumerate() {
                let i = first + k;
                let w = [h * v[3 * i], h * v[3 * i + 1], h * v[3 * i + 2]];
                let th = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
                let half = 0.5 * th;
                let (s, c) = if th < 1e-8 {
                    (0.5 - th * th / 48.0, 1.0 - th * th / 8.0)
                } else {
                    (half.sin() / th, half.cos())
                };
                let d = [c, s * w[0], s * w[1], s * w[2]];
                let (a0, a1, a2, a3) = (q[0], q[1], q[2], q[3]);
                let mut r = [
                    a0 * d[0] - a1 * d[1] - a2 * d[2] - a3 * d[3],
                    a0 * d[1] + a1 * d[0] + a2 * d[3] - a3 * d[2],
                    a0 * d[2] - a1 * d[3] + a2 * d[0] + a3 * d[1],
                    a0 * d[3] + a1 * d[2] - a2 * d[1] + a3 * d[0],
                ];
                let norm = r.iter().map(|x| x * x).sum::<f64>().sqrt();
                r.iter_mut().for_each(|x| *x /= norm);
                q.copy_from_slice(&r);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orthonormality_error(r: &[f64]) -> f64 {
        let mut worst = 0.0f64;
        for a in 0..3 {
            for b in 0..3 {
                let dot: f64 = (0..3).map(|k| r[a * 3 + k] * r[b * 3 + k]).sum();
                let want = if a == b { 1.0 } else { 0.0 };
                worst = worst.max((dot - want).abs());
            }
        }
        worst
    }

    #[test]
    fn so3_stays_orthonormal_over_a_million_steps() {
        let mut r = vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let w = [0.37, -1.1, 0.52];
        for _ in 0..1_000_000 {
            SO3.retract_scaled(&mut r, &w, 1e-3, 9);
        }
        assert!(
            orthonormality_error(&r) < 1e-12,
            "{}",
            orthonormality_error(&r)
        );
        let det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6])
            + r[2] * (r[3] * r[7] - r[4] * r[6]);
        assert!((det - 1.0).abs() < 1e-12);
        // Constant body rate: the result is exp(1000 s · w).
        let expected = so3_exp([w[0] * 1000.0, w[1] * 1000.0, w[2] * 1000.0]);
        let err = r
            .iter()
            .zip(expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-8, "accumulated angle error {err}");
    }

    #[test]
    fn quaternions_stay_unit_and_agree_with_so3() {
        let mut q = vec![1.0, 0.0, 0.0, 0.0];
        let w = [0.2, 0.9, -0.4];
        for _ in 0..1_000_000 {
            UnitQuaternion.retract_scaled(&mut q, &w, 1e-3, 4);
        }
        let n: f64 = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((n - 1.0).abs() < 1e-12);
        let (qw, qx, qy, qz) = (q[0], q[1], q[2], q[3]);
        let from_q = [
            1.0 - 2.0 * (qy * qy + qz * qz),
            2.0 * (qx * qy - qz * qw),
            2.0 * (qx * qz + qy * qw),
            2.0 * (qx * qy + qz * qw),
            1.0 - 2.0 * (qx * qx + qz * qz),
            2.0 * (qy * qz - qx * qw),
            2.0 * (qx * qz - qy * qw),
            2.0 * (qy * qz + qx * qw),
            1.0 - 2.0 * (qx * qx + qy * qy),
        ];
        let expected = so3_exp([w[0] * 1000.0, w[1] * 1000.0, w[2] * 1000.0]);
        let err = from_q
            .iter()
            .zip(expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-8, "{err}");
    }

    #[test]
    fn flat_is_addition_and_shapes_are_checked() {
        let mut x = vec![1.0, 2.0];
        Flat.retract_scaled(&mut x, &[1.0, -1.0], 0.5, 1);
        assert_eq!(x, vec![1.5, 1.5]);
        assert!(SO3.check_state_dim("R", &[9]).is_err());
        assert!(UnitQuaternion.check_state_dim("q", &[3]).is_err());
        assert_eq!(SO3.tangent_stride(&[3, 3]), 3);
    }
}
