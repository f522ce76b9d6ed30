//! ssl_simulator's affine transform of a field's input (`transf_a`,
//! `transf_w`), as a wrapper.

use super::{m_out, v, ScalarField};
use crate::algebra::r_2d_matrix;
use crate::error::{MathError, Result};
use nalgebra::Matrix2;
use serde_json::{json, Value};

/// A field seen through the affine map p ↦ M (p − s) + s, M = a·R(w), about
/// the inner field's source s: σ'(p) = σ(M (p − s) + s). a scales (a > 1
/// shrinks the field around its source), w rotates (rad, counter-clockwise
/// turns the input, so the field turns by −w).
///
/// As ssl_simulator's `transf_a` / `transf_w`: its `value` and `grad`
/// match (∇σ' = Mᵀ ∇σ); its Hessian ignores the map, ours is Mᵀ ∇²σ M.
/// The source stays where it was; the centre moves to M⁻¹ (c − s) + s.
#[derive(Debug, Clone, PartialEq)]
pub struct Transformed<F> {
    /// The untransformed field.
    pub field: F,
    a: f64,
    w: f64,
    m: Matrix2<f64>,
}

impl<F: ScalarField> Transformed<F> {
    /// `field` scaled by `a` (finite, nonzero) and rotated by `w` (rad).
    pub fn new(field: F, a: f64, w: f64) -> Result<Self> {
        if !(a.is_finite() && a != 0.0 && w.is_finite()) {
            return Err(MathError::Invalid(format!(
                "transform needs a finite nonzero scale and a finite angle, got a = {a}, w = {w}"
            )));
        }
        Ok(Transformed {
            field,
            a,
            w,
            m: r_2d_matrix(w) * a,
        })
    }

    fn inner(&self, p: [f64; 2]) -> [f64; 2] {
        let s = v(self.field.source());
        (self.m * (v(p) - s) + s).into()
    }
}

impl<F: ScalarField> ScalarField for Transformed<F> {
    fn value(&self, p: [f64; 2]) -> f64 {
        self.field.value(self.inner(p))
    }
    fn gradient(&self, p: [f64; 2]) -> [f64; 2] {
        (self.m.transpose() * v(self.field.gradient(self.inner(p)))).into()
    }
    fn hessian(&self, p: [f64; 2]) -> [[f64; 2]; 2] {
        let [[a, b], [c, d]] = self.field.hessian(self.inner(p));
        m_out(self.m.transpose() * Matrix2::new(a, b, c, d) * self.m)
    }
    fn source(&self) -> [f64; 2] {
        self.field.source()
    }
    fn center(&self) -> [f64; 2] {
        let s = v(self.field.source());
        // M = a R(w) is invertible: M⁻¹ = R(−w)/a.
        let inv = r_2d_matrix(-self.w) / self.a;
        (inv * (v(self.field.center()) - s) + s).into()
    }
    fn get_config(&self) -> Value {
        let mut c = self.field.get_config();
        if let Value::Object(m) = &mut c {
            m.insert("transf_a".into(), json!(self.a));
            m.insert("transf_w".into(), json!(self.w));
        }
        c
    }
}
