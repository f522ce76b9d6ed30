//! The Gaussian field.

use super::maximum::{ascend, Smooth};
use super::{check_center, m_out, rows, sym, v, ScalarField};
use crate::error::{MathError, Result};
use nalgebra::{Matrix2, Vector2};
use serde_json::{json, Value};
use std::f64::consts::PI;

/// A Gaussian, normalised as ssl_simulator computes it:
/// σ(p) = I · exp(dᵀ Q d) / √(2π dev²), d = p − c, Q = −Sᵀ R S / (2 dev²).
///
/// The reference's docstring calls `max_intensity` I "the value at the
/// source", but its numbers carry the 1/√(2π dev²) factor; these match its
/// numbers (so σ(c) = I / √(2π dev²)). `s` is a rotation and `r` a
/// positive-definite scaling; defaults c = 0, I = 100, dev = 10, S = R = I.
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaGauss {
    /// Centre (the maximum of a Gaussian).
    pub mu: [f64; 2],
    /// The intensity I.
    pub max_intensity: f64,
    /// Width (same units as positions).
    pub dev: f64,
    /// Rotation applied to the field.
    pub s: Matrix2<f64>,
    /// Scaling applied to the field (positive definite).
    pub r: Matrix2<f64>,
    q: Matrix2<f64>,
    source: [f64; 2],
}

impl Default for SigmaGauss {
    fn default() -> Self {
        Self::new([0.0, 0.0], 100.0, 10.0).expect("defaults are valid")
    }
}

impl SigmaGauss {
    /// An isotropic Gaussian.
    pub fn new(mu: [f64; 2], max_intensity: f64, dev: f64) -> Result<Self> {
        Self::with_shape(
            mu,
            max_intensity,
            dev,
            Matrix2::identity(),
            Matrix2::identity(),
        )
    }

    /// A Gaussian rotated by `s` and scaled by `r`.
    pub fn with_shape(
        mu: [f64; 2],
        max_intensity: f64,
        dev: f64,
        s: Matrix2<f64>,
        r: Matrix2<f64>,
    ) -> Result<Self> {
        check_center(mu)?;
        if !(dev.is_finite() && dev > 0.0) {
            return Err(MathError::Invalid(format!(
                "dev must be positive, got {dev}"
            )));
        }
        if !max_intensity.is_finite() {
            return Err(MathError::Invalid(format!(
                "max_intensity must be finite, got {max_intensity}"
            )));
        }
        if !(s.iter().all(|x| x.is_finite()) && r.iter().all(|x| x.is_finite())) {
            return Err(MathError::Invalid("S and R must be finite".into()));
        }
        if r.cholesky().is_none() {
            return Err(MathError::Invalid(
                "R must be symmetric positive definite".into(),
            ));
        }
        let q = sym(&(-(s.transpose() * r * s) / (2.0 * dev * dev)));
        let mut g = SigmaGauss {
            mu,
            max_intensity,
            dev,
            s,
            r,
            q,
            source: mu,
        };
        // Q is negative definite, so the maximum is at the centre for a
        // positive intensity; the ascent confirms it (one Newton step).
        if max_intensity > 0.0 {
            g.source = ascend(&g, mu, dev);
        }
        Ok(g)
    }

    fn norm(&self) -> f64 {
        self.max_intensity / (2.0 * PI * self.dev * self.dev).sqrt()
    }
}

impl Smooth for SigmaGauss {
    fn f(&self, p: [f64; 2]) -> f64 {
        let d = v(p) - v(self.mu);
        self.norm() * d.dot(&(self.q * d)).exp()
    }
    fn df(&self, p: [f64; 2]) -> Vector2<f64> {
        let d = v(p) - v(self.mu);
        self.q * d * (2.0 * self.f(p))
    }
    fn d2f(&self, p: [f64; 2]) -> Matrix2<f64> {
        let d = v(p) - v(self.mu);
        let qd = self.q * d;
        (self.q * 2.0 + qd * qd.transpose() * 4.0) * self.f(p)
    }
}

impl ScalarField for SigmaGauss {
    fn value(&self, p: [f64; 2]) -> f64 {
        self.f(p)
    }
    fn gradient(&self, p: [f64; 2]) -> [f64; 2] {
        self.df(p).into()
    }
    fn hessian(&self, p: [f64; 2]) -> [[f64; 2]; 2] {
        m_out(self.d2f(p))
    }
    fn source(&self) -> [f64; 2] {
        self.source
    }
    fn center(&self) -> [f64; 2] {
        self.mu
    }
    fn get_config(&self) -> Value {
        json!({
            "field": "SigmaGauss",
            "mu": self.mu,
            "source": self.source,
            "max_intensity": self.max_intensity,
            "dev": self.dev,
            "S": rows(&self.s),
            "R": rows(&self.r),
        })
    }
}
