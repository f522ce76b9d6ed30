//! Scalar fields for source seeking: value, true gradient and true Hessian,
//! single point or batched; and the swarm's ascent-direction estimates.
//!
//! Points are 2-D, in the field's units (m in the examples). Every gradient
//! and Hessian here is the exact derivative of `value` (checked against
//! finite differences in the tests) — unlike a common shortcut that drops
//! the factor 2 of d/dx exp(xᵀQx).
//!
//! As in ssl_simulator, a field is built around a centre (`center`) and
//! reports as its source (`source`) the local maximum reached from that
//! centre: for the non-convex fields the bumps can pull the maximum away
//! from the centre. Ours is found by Newton ascent on the exact
//! derivatives ([`maximum`]) where the reference runs BFGS on numerical
//! gradients; the two agree to its tolerance (about 1e-6).

mod bumps;
mod gauss;
pub mod maximum;
mod transform;

pub use bumps::{SigmaFract, SigmaNonconvex};
pub use gauss::SigmaGauss;
pub use transform::Transformed;

use crate::error::{MathError, Result};
use nalgebra::{Matrix2, Vector2};
use serde_json::Value;

/// A differentiable scalar field σ: ℝ² → ℝ.
pub trait ScalarField {
    /// σ(p).
    fn value(&self, p: [f64; 2]) -> f64;
    /// ∇σ(p).
    fn gradient(&self, p: [f64; 2]) -> [f64; 2];
    /// ∇²σ(p), row-major.
    fn hessian(&self, p: [f64; 2]) -> [[f64; 2]; 2];
    /// The field's maximum reached from its centre (its source, what
    /// ssl_simulator reports as `mu`).
    fn source(&self) -> [f64; 2];
    /// The centre the field was built around.
    fn center(&self) -> [f64; 2];
    /// The parameters that rebuild the field under ssl_simulator's keys
    /// (`mu` is the given centre, as in its `SigmaNonconvex.get_config`)
    /// and the found maximum as `source`.
    fn get_config(&self) -> Value;

    /// σ at each point.
    fn values(&self, ps: &[[f64; 2]]) -> Vec<f64> {
        ps.iter().map(|p| self.value(*p)).collect()
    }
    /// ∇σ at each point.
    fn gradients(&self, ps: &[[f64; 2]]) -> Vec<[f64; 2]> {
        ps.iter().map(|p| self.gradient(*p)).collect()
    }
    /// ∇²σ at each point.
    fn hessians(&self, ps: &[[f64; 2]]) -> Vec<[[f64; 2]; 2]> {
        ps.iter().map(|p| self.hessian(*p)).collect()
    }
    /// The first-order part of L_σ about the centroid `pc` for agents at
    /// `ps`: L¹ = (1/(N D²)) Σ xᵢ xᵢᵀ ∇σ(pc), xᵢ = pᵢ − pc, D = max ‖xᵢ‖.
    fn l1(&self, pc: [f64; 2], ps: &[[f64; 2]]) -> Result<[f64; 2]> {
        let g = Vector2::from(self.gradient(pc));
        let (_, d2) = spread(pc, ps)?;
        let n = ps.len() as f64;
        let mut out = Vector2::zeros();
        for p in ps {
            let x = Vector2::new(p[0] - pc[0], p[1] - pc[1]);
            out += x * x.dot(&g);
        }
        Ok((out / (n * d2)).into())
    }
}

fn spread(pc: [f64; 2], ps: &[[f64; 2]]) -> Result<(usize, f64)> {
    if ps.is_empty() {
        return Err(MathError::Invalid("no agents".into()));
    }
    let d2 = ps
        .iter()
        .map(|p| (p[0] - pc[0]).powi(2) + (p[1] - pc[1]).powi(2))
        .fold(0.0, f64::max);
    if d2 <= 0.0 {
        return Err(MathError::Invalid(
            "all agents sit on the centroid (D = 0)".into(),
        ));
    }
    Ok((ps.len(), d2))
}

pub(crate) fn v(p: [f64; 2]) -> Vector2<f64> {
    Vector2::new(p[0], p[1])
}

pub(crate) fn m_out(m: Matrix2<f64>) -> [[f64; 2]; 2] {
    [[m[(0, 0)], m[(0, 1)]], [m[(1, 0)], m[(1, 1)]]]
}

pub(crate) fn sym(m: &Matrix2<f64>) -> Matrix2<f64> {
    (m + m.transpose()) * 0.5
}

/// Refuses a non-finite centre (no maximum can be found from it).
pub(crate) fn check_center(mu: [f64; 2]) -> Result<()> {
    if mu.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(MathError::Invalid(format!("mu must be finite, got {mu:?}")))
    }
}

/// A 2x2 matrix as nested rows, for configs.
pub(crate) fn rows(m: &Matrix2<f64>) -> Value {
    serde_json::json!(m_out(*m))
}

/// Σ σᵢ xᵢ, after checking one σ per agent and at least one agent.
fn sigma_x(x: &[[f64; 2]], sigma: &[f64]) -> Result<[f64; 2]> {
    if x.len() != sigma.len() {
        return Err(MathError::Shape {
            name: "sigma".into(),
            expected: format!("({},)", x.len()),
            got: format!("({},)", sigma.len()),
        });
    }
    if x.is_empty() {
        return Err(MathError::Invalid("no agents".into()));
    }
    Ok(x.iter().zip(sigma).fold([0.0, 0.0], |acc, (xi, s)| {
        [acc[0] + s * xi[0], acc[1] + s * xi[1]]
    }))
}

/// The swarm's ascent estimate L_σ = (1/(N D²)) Σ σᵢ xᵢ, for agents at
/// `x` relative to their centroid, with measurements σᵢ and D = max ‖xᵢ‖.
/// For a symmetric formation it points up the gradient at the centroid.
pub fn l_sigma(x: &[[f64; 2]], sigma: &[f64]) -> Result<[f64; 2]> {
    let sum = sigma_x(x, sigma)?;
    let (n, d2) = spread([0.0, 0.0], x)?;
    let k = 1.0 / (n as f64 * d2);
    Ok([sum[0] * k, sum[1] * k])
}

/// ssl_simulator's centralised μ: σᵀX / N (the mean of σᵢ xᵢ, neither
/// normalised nor divided by D²), for agents at `x` relative to their
/// centroid with measurements σᵢ.
pub fn calc_mu_centralized(x: &[[f64; 2]], sigma: &[f64]) -> Result<[f64; 2]> {
    let sum = sigma_x(x, sigma)?;
    let n = x.len() as f64;
    Ok([sum[0] / n, sum[1] / n])
}

/// The unit ascent direction L_σ / ‖L_σ‖ (zero when L_σ is zero).
pub fn ascent_direction(x: &[[f64; 2]], sigma: &[f64]) -> Result<[f64; 2]> {
    let l = l_sigma(x, sigma)?;
    let n = l[0].hypot(l[1]);
    Ok(if n > 0.0 {
        [l[0] / n, l[1] / n]
    } else {
        [0.0, 0.0]
    })
}
