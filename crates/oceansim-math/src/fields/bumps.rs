//! The non-convex fields: two Gaussian bumps and a cone.

use super::maximum::{ascend, Smooth};
use super::{check_center, m_out, rows, sym, v, ScalarField};
use crate::error::{MathError, Result};
use nalgebra::{Matrix2, Vector2};
use serde_json::{json, Value};

/// The two bumps e_a(y) + e_b(y), e_c(y) = exp((y − c)ᵀ Q_c (y − c)), with
/// Q_c negative definite: ssl_simulator's convention, so its matrices can
/// be passed unchanged.
#[derive(Debug, Clone, PartialEq)]
struct Bumps {
    a: [f64; 2],
    b: [f64; 2],
    qa: Matrix2<f64>,
    qb: Matrix2<f64>,
}

impl Bumps {
    fn new(a: [f64; 2], b: [f64; 2], qa: Matrix2<f64>, qb: Matrix2<f64>) -> Result<Self> {
        // Only the symmetric part enters yᵀQy; keeping it makes the
        // Hessian formula below exact.
        let (qa, qb) = (sym(&qa), sym(&qb));
        let finite = |c: &[f64; 2]| c.iter().all(|x| x.is_finite());
        if !(finite(&a) && finite(&b)) {
            return Err(MathError::Invalid("bump centres must be finite".into()));
        }
        if (-qa).cholesky().is_none() || (-qb).cholesky().is_none() {
            return Err(MathError::Invalid(
                "Qa and Qb must be negative definite (a bump exp((y-c)^T Q (y-c)) \
                 with another Q grows without bound)"
                    .into(),
            ));
        }
        Ok(Bumps { a, b, qa, qb })
    }

    /// Value, gradient and Hessian in y.
    fn eval(&self, y: Vector2<f64>) -> (f64, Vector2<f64>, Matrix2<f64>) {
        let one = |c: [f64; 2], q: &Matrix2<f64>| {
            let d = y - v(c);
            let qd = q * d;
            let g = d.dot(&qd).exp();
            (g, qd * (2.0 * g), (q * 2.0 + qd * qd.transpose() * 4.0) * g)
        };
        let (ga, da, ha) = one(self.a, &self.qa);
        let (gb, db, hb) = one(self.b, &self.qb);
        (ga + gb, da + db, ha + hb)
    }

    fn config(&self) -> Value {
        json!({"a": self.a, "b": self.b, "Qa": rows(&self.qa), "Qb": rows(&self.qb)})
    }
}

/// ssl_simulator's default bumps: a = (1, 0), b = (0, −1.5),
/// Qa = −0.9 diag(1/√30, 1), Qb = −Aᵀ (0.9 diag(1, 1/√15)) A with A the
/// +45° rotation.
fn default_bumps() -> ([f64; 2], [f64; 2], Matrix2<f64>, Matrix2<f64>) {
    let qa = Matrix2::new(-0.9 / 30f64.sqrt(), 0.0, 0.0, -0.9);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let rot = Matrix2::new(h, -h, h, h);
    let s2 = Matrix2::new(0.9, 0.0, 0.0, 0.9 / 15f64.sqrt());
    let qb = -(rot.transpose() * s2 * rot);
    ([1.0, 0.0], [0.0, -1.5], qa, qb)
}

/// −k‖x‖, its gradient and Hessian in x (zero at the tip, where it is not
/// differentiable).
fn cone(x: Vector2<f64>, k: f64) -> (f64, Vector2<f64>, Matrix2<f64>) {
    let r = x.norm();
    if r == 0.0 {
        return (0.0, Vector2::zeros(), Matrix2::zeros());
    }
    let u = x / r;
    (
        -k * r,
        -u * k,
        (Matrix2::identity() - u * u.transpose()) * (-k / r),
    )
}

fn check_k(k: f64) -> Result<()> {
    if !(k.is_finite() && k >= 0.0) {
        return Err(MathError::Invalid(format!(
            "k must be >= 0 (a field with an upward cone has no maximum), got {k}"
        )));
    }
    Ok(())
}

/// The maximum of a bumps-plus-cone field: the cone's tip `center` when
/// the bumps' slope there (`smooth_slope`) is no steeper than the cone's
/// (`cone_slope`), since then every direction descends; otherwise the
/// ascent from just beside the tip, up the bumps.
fn find_source(
    f: &dyn Smooth,
    center: [f64; 2],
    smooth_slope: Vector2<f64>,
    cone_slope: f64,
    scale: f64,
) -> [f64; 2] {
    let s = smooth_slope.norm();
    if s <= cone_slope {
        return center;
    }
    let start = v(center) + smooth_slope * (1e-3 * scale / s);
    ascend(f, start.into(), scale)
}

/// The non-convex field, with x = (p − c)/dev:
/// σ(p) = 2 + e_a(x) + e_b(x) − k‖x‖.
///
/// Defaults: k = 1, c = 0, dev = 1, the default bumps. With k = 1 the bumps
/// bend the level sets (non-convex superlevel sets) but their slope at the
/// centre (0.734) is below the cone's: the maximum is the centre, where the
/// cone makes σ non-differentiable (gradient reported 0). With a small k
/// the maximum moves toward bump a: to (0.7626, −0.2942)·dev from the
/// centre for k = 0.04.
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaNonconvex {
    /// Norm factor.
    pub k: f64,
    /// Scale of the distribution.
    pub dev: f64,
    center: [f64; 2],
    bumps: Bumps,
    source: [f64; 2],
}

impl Default for SigmaNonconvex {
    fn default() -> Self {
        Self::new(1.0, [0.0, 0.0], 1.0).expect("defaults are valid")
    }
}

impl SigmaNonconvex {
    /// Norm factor `k`, centre `mu`, scale `dev`, default bumps.
    pub fn new(k: f64, mu: [f64; 2], dev: f64) -> Result<Self> {
        let (a, b, qa, qb) = default_bumps();
        Self::with_bumps(k, mu, dev, a, b, qa, qb)
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
        check_k(k)?;
        check_center(mu)?;
        if !(dev.is_finite() && dev > 0.0) {
            return Err(MathError::Invalid(format!(
                "dev must be positive, got {dev}"
            )));
        }
        let mut f = SigmaNonconvex {
            k,
            dev,
            center: mu,
            bumps: Bumps::new(a, b, qa, qb)?,
            source: mu,
        };
        let (_, slope, _) = f.bumps.eval(Vector2::zeros());
        f.source = find_source(&f, mu, slope / dev, k / dev, dev);
        Ok(f)
    }

    fn parts(&self, p: [f64; 2]) -> (f64, Vector2<f64>, Matrix2<f64>) {
        let x = (v(p) - v(self.center)) / self.dev;
        let (g, dg, hg) = self.bumps.eval(x);
        let (c, dc, hc) = cone(x, self.k);
        (
            2.0 + g + c,
            (dg + dc) / self.dev,
            (hg + hc) / (self.dev * self.dev),
        )
    }
}

/// The "fractal" field, as ssl_simulator defines it: with X = p − c and
/// dev = (d0, d1),
/// σ(p) = 2 + 2·[e_a(X/d0) + e_b(X/d0)] + [e_a(X/d1) + e_b(X/d1)] − k‖X‖:
/// two scales of the same bumps, the first counted twice, the cone unscaled.
/// Defaults: k = 1, c = 0, dev = (1, 1), the default bumps.
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaFract {
    /// Norm factor.
    pub k: f64,
    /// The two scales (d0, d1).
    pub dev: [f64; 2],
    center: [f64; 2],
    bumps: Bumps,
    source: [f64; 2],
}

impl Default for SigmaFract {
    fn default() -> Self {
        Self::new(1.0, [0.0, 0.0], [1.0, 1.0]).expect("defaults are valid")
    }
}

impl SigmaFract {
    /// The default Qa, −0.9 diag(1/√30, 1) (the same as [`SigmaNonconvex`]'s).
    pub fn create_qa() -> Matrix2<f64> {
        default_bumps().2
    }

    /// The default Qb, −Aᵀ (0.9 diag(1, 1/√15)) A, A the +45° rotation.
    pub fn create_qb() -> Matrix2<f64> {
        default_bumps().3
    }

    /// Norm factor `k`, centre `mu`, scales `dev`, default bumps.
    pub fn new(k: f64, mu: [f64; 2], dev: [f64; 2]) -> Result<Self> {
        let (a, b, qa, qb) = default_bumps();
        Self::with_bumps(k, mu, dev, a, b, qa, qb)
    }

    /// Full control of the bumps.
    pub fn with_bumps(
        k: f64,
        mu: [f64; 2],
        dev: [f64; 2],
        a: [f64; 2],
        b: [f64; 2],
        qa: Matrix2<f64>,
        qb: Matrix2<f64>,
    ) -> Result<Self> {
        check_k(k)?;
        check_center(mu)?;
        if !dev.iter().all(|d| d.is_finite() && *d > 0.0) {
            return Err(MathError::Invalid(format!(
                "both scales in dev must be positive, got {dev:?}"
            )));
        }
        let mut f = SigmaFract {
            k,
            dev,
            center: mu,
            bumps: Bumps::new(a, b, qa, qb)?,
            source: mu,
        };
        let (_, slope, _) = f.bumps.eval(Vector2::zeros());
        let smooth = slope * (2.0 / dev[0] + 1.0 / dev[1]);
        f.source = find_source(&f, mu, smooth, k, dev[0].max(dev[1]));
        Ok(f)
    }

    fn parts(&self, p: [f64; 2]) -> (f64, Vector2<f64>, Matrix2<f64>) {
        let x = v(p) - v(self.center);
        let [d0, d1] = self.dev;
        let (g0, dg0, hg0) = self.bumps.eval(x / d0);
        let (g1, dg1, hg1) = self.bumps.eval(x / d1);
        let (c, dc, hc) = cone(x, self.k);
        (
            2.0 + 2.0 * g0 + g1 + c,
            dg0 * (2.0 / d0) + dg1 / d1 + dc,
            hg0 * (2.0 / (d0 * d0)) + hg1 / (d1 * d1) + hc,
        )
    }
}

/// [`Smooth`] and [`ScalarField`] for a field with `parts`.
macro_rules! bump_field {
    ($t:ty, $name:literal, $dev:expr) => {
        impl Smooth for $t {
            fn f(&self, p: [f64; 2]) -> f64 {
                self.parts(p).0
            }
            fn df(&self, p: [f64; 2]) -> Vector2<f64> {
                self.parts(p).1
            }
            fn d2f(&self, p: [f64; 2]) -> Matrix2<f64> {
                self.parts(p).2
            }
        }

        impl ScalarField for $t {
            fn value(&self, p: [f64; 2]) -> f64 {
                self.parts(p).0
            }
            fn gradient(&self, p: [f64; 2]) -> [f64; 2] {
                self.parts(p).1.into()
            }
            fn hessian(&self, p: [f64; 2]) -> [[f64; 2]; 2] {
                m_out(self.parts(p).2)
            }
            fn source(&self) -> [f64; 2] {
                self.source
            }
            fn center(&self) -> [f64; 2] {
                self.center
            }
            fn get_config(&self) -> Value {
                let mut c = self.bumps.config();
                let extra = json!({"field": $name, "k": self.k, "mu": self.center, "source": self.source, "dev": $dev(self)});
                if let (Value::Object(m), Value::Object(e)) = (&mut c, extra) {
                    m.extend(e);
                }
                c
            }
        }
    };
}

bump_field!(
    SigmaNonconvex,
    "SigmaNonconvex",
    |f: &SigmaNonconvex| json!(f.dev)
);
bump_field!(SigmaFract, "SigmaFract", |f: &SigmaFract| json!(f.dev));
