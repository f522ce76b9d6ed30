//! Scalar fields for source seeking: value, true gradient and true Hessian,
//! single point or batched; and the swarm's ascent-direction estimates.
//!
//! Points are 2-D, in the field's units (m in the examples). Every gradient
//! and Hessian here is the exact derivative of `value` (checked against
//! finite differences in the tests) — unlike a common shortcut that drops
//! the factor 2 of d/dx exp(xᵀQx).

use crate::error::{MathError, Result};
use nalgebra::{Matrix2, Vector2};

/// A differentiable scalar field σ: ℝ² → ℝ.
pub trait ScalarField {
    /// σ(p).
    fn value(&self, p: [f64; 2]) -> f64;
    /// ∇σ(p).
    fn gradient(&self, p: [f64; 2]) -> [f64; 2];
    /// ∇²σ(p), row-major.
    fn hessian(&self, p: [f64; 2]) -> [[f64; 2]; 2];
    /// Where the field is maximal (the source).
    fn source(&self) -> [f64; 2];

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

fn v(p: [f64; 2]) -> Vector2<f64> {
    Vector2::new(p[0], p[1])
}

fn m_out(m: Matrix2<f64>) -> [[f64; 2]; 2] {
    [[m[(0, 0)], m[(0, 1)]], [m[(1, 0)], m[(1, 1)]]]
}

fn sym(m: &Matrix2<f64>) -> Matrix2<f64> {
    (m + m.transpose()) * 0.5
}

/// A Gaussian: σ(p) = I · exp(dᵀ Q d), d = p − μ, Q = −Sᵀ R S / (2 dev²).
///
/// `max_intensity` I is the value at the source μ (ssl_simulator divides by
/// √(2π)·dev as well; here I is what the name says). `s` is a rotation and
/// `r` a positive-definite scaling; defaults μ = 0, I = 100, dev = 10,
/// S = R = I.
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaGauss {
    /// Source position.
    pub mu: [f64; 2],
    /// σ(μ).
    pub max_intensity: f64,
    /// Width (same units as positions).
    pub dev: f64,
    /// Rotation applied to the field.
    pub s: Matrix2<f64>,
    /// Scaling applied to the field (positive definite).
    pub r: Matrix2<f64>,
    q: Matrix2<f64>,
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
        if !(dev.is_finite() && dev > 0.0) {
            return Err(MathError::Invalid(format!(
                "dev must be positive, got {dev}"
            )));
        }
        if r.cholesky().is_none() {
            return Err(MathError::Invalid(
                "R must be symmetric positive definite".into(),
            ));
        }
        let q = sym(&(-(s.transpose() * r * s) / (2.0 * dev * dev)));
        Ok(SigmaGauss {
            mu,
            max_intensity,
            dev,
            s,
            r,
            q,
        })
    }
}

impl ScalarField for SigmaGauss {
    fn value(&self, p: [f64; 2]) -> f64 {
        let d = v(p) - v(self.mu);
        self.max_intensity * d.dot(&(self.q * d)).exp()
    }
    fn gradient(&self, p: [f64; 2]) -> [f64; 2] {
        let d = v(p) - v(self.mu);
        (self.q * d * (2.0 * self.value(p))).into()
    }
    fn hessian(&self, p: [f64; 2]) -> [[f64; 2]; 2] {
        let d = v(p) - v(self.mu);
        let qd = self.q * d;
        m_out((self.q * 2.0 + qd * qd.transpose() * 4.0) * self.value(p))
    }
    fn source(&self) -> [f64; 2] {
        self.mu
    }
}

/// exp(−(x − c)ᵀ Q (x − c)) and its x-derivatives.
fn bump(x: Vector2<f64>, c: [f64; 2], q: &Matrix2<f64>) -> (f64, Vector2<f64>, Matrix2<f64>) {
    let d = x - v(c);
    let qd = q * d;
    let g = (-d.dot(&qd)).exp();
    (
        g,
        -qd * (2.0 * g),
        (qd * qd.transpose() * 4.0 - q * 2.0) * g,
    )
}

/// −k ‖x‖^α and its x-derivatives (gradient and Hessian taken as 0 at x = 0,
/// where the cone is not differentiable).
fn cone(x: Vector2<f64>, k: f64, alpha: f64) -> (f64, Vector2<f64>, Matrix2<f64>) {
    let r = x.norm();
    if r == 0.0 {
        return (0.0, Vector2::zeros(), Matrix2::zeros());
    }
    let u = x / r;
    let val = -k * r.powf(alpha);
    let g = -k * alpha * r.powf(alpha - 1.0) * u;
    // d²(r^α) = α r^(α−2) [I + (α − 2) u uᵀ].
    let h = (Matrix2::identity() + u * u.transpose() * (alpha - 2.0))
        * (-k * alpha * r.powf(alpha - 2.0));
    (val, g, h)
}

/// Shared form of the two-bump fields: with x = (p − μ)/dev,
/// σ(p) = 2 + exp(−(x−a)ᵀQa(x−a)) + exp(−(x−b)ᵀQb(x−b)) − k ‖x‖^α.
#[derive(Debug, Clone, PartialEq)]
struct TwoBumps {
    k: f64,
    mu: [f64; 2],
    dev: f64,
    a: [f64; 2],
    b: [f64; 2],
    qa: Matrix2<f64>,
    qb: Matrix2<f64>,
    alpha: f64,
}

impl TwoBumps {
    fn check(&self) -> Result<()> {
        if !(self.dev.is_finite() && self.dev > 0.0) {
            return Err(MathError::Invalid(format!(
                "dev must be positive, got {}",
                self.dev
            )));
        }
        if self.qa.cholesky().is_none() || self.qb.cholesky().is_none() {
            return Err(MathError::Invalid(
                "Qa and Qb must be symmetric positive definite".into(),
            ));
        }
        Ok(())
    }
    fn parts(&self, p: [f64; 2]) -> (f64, Vector2<f64>, Matrix2<f64>) {
        let x = (v(p) - v(self.mu)) / self.dev;
        let (ga, dga, hga) = bump(x, self.a, &self.qa);
        let (gb, dgb, hgb) = bump(x, self.b, &self.qb);
        let (c, dc, hc) = cone(x, self.k, self.alpha);
        (
            2.0 + ga + gb + c,
            (dga + dgb + dc) / self.dev,
            (hga + hgb + hc) / (self.dev * self.dev),
        )
    }
}

/// `ScalarField` for a newtype over [`TwoBumps`].
macro_rules! two_bump_field {
    ($t:ty) => {
        impl ScalarField for $t {
            fn value(&self, p: [f64; 2]) -> f64 {
                self.0.parts(p).0
            }
            fn gradient(&self, p: [f64; 2]) -> [f64; 2] {
                self.0.parts(p).1.into()
            }
            fn hessian(&self, p: [f64; 2]) -> [[f64; 2]; 2] {
                m_out(self.0.parts(p).2)
            }
            fn source(&self) -> [f64; 2] {
                self.0.mu
            }
        }
    };
}

/// The non-convex field: two Gaussian bumps and a cone,
/// σ(p) = 2 + e^(−(x−a)ᵀQa(x−a)) + e^(−(x−b)ᵀQb(x−b)) − k‖x‖, x = (p − μ)/dev.
///
/// Defaults: k = 1, μ = 0, dev = 1, a = (1, 0), b = (0, −2),
/// Qa = diag(1, 4), Qb = diag(4, 1). With k = 1 the bumps bend the level
/// sets (non-convex superlevel sets) but, since a bump's slope never exceeds
/// 0.86 < k along the way to μ, create no other local maximum: the source
/// is μ, where the cone makes σ non-differentiable (gradient reported 0).
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaNonconvex(TwoBumps);

impl Default for SigmaNonconvex {
    fn default() -> Self {
        Self::new(1.0, [0.0, 0.0], 1.0).expect("defaults are valid")
    }
}

impl SigmaNonconvex {
    /// Norm factor `k`, source `mu`, scale `dev`, default bumps.
    pub fn new(k: f64, mu: [f64; 2], dev: f64) -> Result<Self> {
        Self::with_bumps(
            k,
            mu,
            dev,
            [1.0, 0.0],
            [0.0, -2.0],
            Matrix2::new(1.0, 0.0, 0.0, 4.0),
            Matrix2::new(4.0, 0.0, 0.0, 1.0),
        )
    }

    /// Full control of the bumps (centres in units of `dev`).
    pub fn with_bumps(
        k: f64,
        mu: [f64; 2],
        dev: f64,
        a: [f64; 2],
        b: [f64; 2],
        qa: Matrix2<f64>,
        qb: Matrix2<f64>,
    ) -> Result<Self> {
        let t = TwoBumps {
            k,
            mu,
            dev,
            a,
            b,
            qa: sym(&qa),
            qb: sym(&qb),
            alpha: 1.0,
        };
        t.check()?;
        Ok(SigmaNonconvex(t))
    }
}

two_bump_field!(SigmaNonconvex);

/// The "fractal" field: the same two bumps with a fractional-power cone,
/// σ = 2 + bumps − k‖x‖^α (default α = 0.5: sharp at the source, flat far
/// away), with rotated default bump shapes ([`SigmaFract::create_qa`],
/// [`SigmaFract::create_qb`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaFract(TwoBumps);

impl Default for SigmaFract {
    fn default() -> Self {
        Self::new(1.0, [0.0, 0.0], 1.0).expect("defaults are valid")
    }
}

impl SigmaFract {
    /// Default Qa: diag(1, 4) rotated by +30°.
    pub fn create_qa() -> Matrix2<f64> {
        let r = crate::algebra::r_2d_matrix(30f64.to_radians());
        r * Matrix2::new(1.0, 0.0, 0.0, 4.0) * r.transpose()
    }

    /// Default Qb: diag(4, 1) rotated by −30°.
    pub fn create_qb() -> Matrix2<f64> {
        let r = crate::algebra::r_2d_matrix(-30f64.to_radians());
        r * Matrix2::new(4.0, 0.0, 0.0, 1.0) * r.transpose()
    }

    /// Norm factor `k`, source `mu`, scale `dev`, α = 0.5, default bumps.
    pub fn new(k: f64, mu: [f64; 2], dev: f64) -> Result<Self> {
        Self::with_params(
            k,
            mu,
            dev,
            [1.0, 0.0],
            [0.0, -2.0],
            Self::create_qa(),
            Self::create_qb(),
            0.5,
        )
    }

    /// Full control, including the cone exponent `alpha` in (0, 2].
    #[allow(clippy::too_many_arguments)]
    pub fn with_params(
        k: f64,
        mu: [f64; 2],
        dev: f64,
        a: [f64; 2],
        b: [f64; 2],
        qa: Matrix2<f64>,
        qb: Matrix2<f64>,
        alpha: f64,
    ) -> Result<Self> {
        if !(alpha > 0.0 && alpha <= 2.0) {
            return Err(MathError::Invalid(format!(
                "alpha must be in (0, 2], got {alpha}"
            )));
        }
        let t = TwoBumps {
            k,
            mu,
            dev,
            a,
            b,
            qa: sym(&qa),
            qb: sym(&qb),
            alpha,
        };
        t.check()?;
        Ok(SigmaFract(t))
    }
}

two_bump_field!(SigmaFract);

/// The swarm's ascent estimate L_σ = (1/(N D²)) Σ σᵢ xᵢ, for agents at
/// `x` relative to their centroid, with measurements σᵢ and D = max ‖xᵢ‖.
/// For a symmetric formation it points up the gradient at the centroid.
pub fn l_sigma(x: &[[f64; 2]], sigma: &[f64]) -> Result<[f64; 2]> {
    if x.len() != sigma.len() {
        return Err(MathError::Shape {
            name: "sigma".into(),
            expected: format!("({},)", x.len()),
            got: format!("({},)", sigma.len()),
        });
    }
    let (n, d2) = spread([0.0, 0.0], x)?;
    let mut out = [0.0, 0.0];
    for (xi, s) in x.iter().zip(sigma) {
        out[0] += s * xi[0];
        out[1] += s * xi[1];
    }
    let k = 1.0 / (n as f64 * d2);
    Ok([out[0] * k, out[1] * k])
}

/// The ascent direction μ = L_σ / ‖L_σ‖ (zero when L_σ is zero).
pub fn calc_mu_centralized(x: &[[f64; 2]], sigma: &[f64]) -> Result<[f64; 2]> {
    let l = l_sigma(x, sigma)?;
    let n = l[0].hypot(l[1]);
    Ok(if n > 0.0 {
        [l[0] / n, l[1] / n]
    } else {
        [0.0, 0.0]
    })
}
