//! Guiding vector fields (GVF): paths as zero sets of φ: ℝ² → ℝ, and the
//! field that steers onto and along them.
//!
//! χ(p) = s E ∇φ − k_e φ ∇φ, with E = [[0, 1], [−1, 0]] (a −90° turn).
//! The first term runs along the level set, the second pulls onto φ = 0.
//! For an ellipse (φ < 0 inside) s = +1 circulates clockwise.

use nalgebra::{Matrix2, Vector2};
use serde_json::{json, Value};
use std::f64::consts::PI;

/// A path given implicitly by φ(p) = 0.
pub trait GvfTrajectory {
    /// φ(p).
    fn phi(&self, p: [f64; 2]) -> f64;
    /// ∇φ(p).
    fn grad_phi(&self, p: [f64; 2]) -> [f64; 2];
    /// ∇²φ(p), row-major.
    fn hess_phi(&self, p: [f64; 2]) -> [[f64; 2]; 2];
    /// `pts` points on the path (for plots), evenly spaced in its parameter
    /// including both ends.
    fn gen_param_points(&self, pts: usize) -> Vec<[f64; 2]>;
    /// The parameters that rebuild the path (ssl_simulator's keys).
    fn get_config(&self) -> Value;

    /// φ at each point.
    fn phi_vec(&self, ps: &[[f64; 2]]) -> Vec<f64> {
        ps.iter().map(|p| self.phi(*p)).collect()
    }
    /// ∇φ at each point.
    fn grad_vec(&self, ps: &[[f64; 2]]) -> Vec<[f64; 2]> {
        ps.iter().map(|p| self.grad_phi(*p)).collect()
    }
    /// ∇²φ at each point.
    fn hess_vec(&self, ps: &[[f64; 2]]) -> Vec<[[f64; 2]; 2]> {
        ps.iter().map(|p| self.hess_phi(*p)).collect()
    }
}

/// E = [[0, 1], [−1, 0]].
pub fn gvf_e() -> Matrix2<f64> {
    Matrix2::new(0.0, 1.0, -1.0, 0.0)
}

/// The guiding vector field χ(p) = s E ∇φ − k_e φ ∇φ.
pub fn gvf_field(path: &dyn GvfTrajectory, p: [f64; 2], ke: f64, s: f64) -> [f64; 2] {
    let n = Vector2::from(path.grad_phi(p));
    (gvf_e() * n * s - n * (ke * path.phi(p))).into()
}

/// An ellipse with semi-axes `a`, `b`, centred at `xy_off` and rotated by
/// `alpha` (rad), as in ssl_simulator: with R = [[c, s], [−s, c]]
/// (c = cos α), q = Rᵀ(p − off), φ = (q₀/a)² + (q₁/b)² − 1.
#[derive(Debug, Clone, PartialEq)]
pub struct GvfEllipse {
    /// Centre.
    pub xy_off: [f64; 2],
    /// Rotation (rad).
    pub alpha: f64,
    /// Semi-axis along the rotated x.
    pub a: f64,
    /// Semi-axis along the rotated y.
    pub b: f64,
    r: Matrix2<f64>,
}

impl GvfEllipse {
    /// An ellipse.
    pub fn new(xy_off: [f64; 2], alpha: f64, a: f64, b: f64) -> Self {
        let (s, c) = alpha.sin_cos();
        GvfEllipse {
            xy_off,
            alpha,
            a,
            b,
            r: Matrix2::new(c, s, -s, c),
        }
    }
    fn q(&self, p: [f64; 2]) -> Vector2<f64> {
        self.r.transpose() * Vector2::new(p[0] - self.xy_off[0], p[1] - self.xy_off[1])
    }
}

impl GvfTrajectory for GvfEllipse {
    fn phi(&self, p: [f64; 2]) -> f64 {
        let q = self.q(p);
        (q[0] / self.a).powi(2) + (q[1] / self.b).powi(2) - 1.0
    }
    fn grad_phi(&self, p: [f64; 2]) -> [f64; 2] {
        let q = self.q(p);
        (self.r
            * Vector2::new(
                2.0 * q[0] / (self.a * self.a),
                2.0 * q[1] / (self.b * self.b),
            ))
        .into()
    }
    fn hess_phi(&self, _p: [f64; 2]) -> [[f64; 2]; 2] {
        let d = Matrix2::new(2.0 / (self.a * self.a), 0.0, 0.0, 2.0 / (self.b * self.b));
        let h = self.r * d * self.r.transpose();
        [[h[(0, 0)], h[(0, 1)]], [h[(1, 0)], h[(1, 1)]]]
    }
    fn gen_param_points(&self, pts: usize) -> Vec<[f64; 2]> {
        linspace(0.0, 2.0 * PI, pts)
            .map(|t| {
                let v = self.r * Vector2::new(self.a * t.cos(), self.b * t.sin());
                [self.xy_off[0] + v[0], self.xy_off[1] + v[1]]
            })
            .collect()
    }
    fn get_config(&self) -> Value {
        json!({"XYoff": self.xy_off, "alpha": self.alpha, "a": self.a, "b": self.b})
    }
}

/// `pts` evenly spaced values from `lo` to `hi` inclusive (numpy's
/// `linspace`; one point gives `lo`).
fn linspace(lo: f64, hi: f64, pts: usize) -> impl Iterator<Item = f64> {
    let step = if pts > 1 {
        (hi - lo) / (pts - 1) as f64
    } else {
        0.0
    };
    (0..pts).map(move |i| {
        if i + 1 == pts && pts > 1 {
            hi
        } else {
            lo + step * i as f64
        }
    })
}

/// The line y = m x + b, as ssl_simulator's `GvfLine`:
/// φ(p) = p_y − (m p_x + b), ∇φ = (−m, 1), ∇²φ = 0 (φ > 0 above the
/// line). φ is a vertical offset, not a distance: for a steep line the
/// convergence term grows with |m|. [`GvfDirectedLine`] has the distance
/// form and any direction, vertical included.
#[derive(Debug, Clone, PartialEq)]
pub struct GvfLine {
    /// Slope.
    pub m: f64,
    /// Intercept (φ = 0 at (0, b)).
    pub b: f64,
    /// `gen_param_points` spans x ∈ [−line_length, line_length].
    pub line_length: f64,
}

impl GvfLine {
    /// y = m x + b, plotted over x ∈ [−30, 30].
    pub fn new(m: f64, b: f64) -> Self {
        Self::with_length(m, b, 30.0)
    }
    /// y = m x + b, plotted over x ∈ [−line_length, line_length].
    pub fn with_length(m: f64, b: f64, line_length: f64) -> Self {
        GvfLine { m, b, line_length }
    }
}

impl GvfTrajectory for GvfLine {
    fn phi(&self, p: [f64; 2]) -> f64 {
        p[1] - (self.m * p[0] + self.b)
    }
    fn grad_phi(&self, _p: [f64; 2]) -> [f64; 2] {
        [-self.m, 1.0]
    }
    fn hess_phi(&self, _p: [f64; 2]) -> [[f64; 2]; 2] {
        [[0.0; 2]; 2]
    }
    fn gen_param_points(&self, pts: usize) -> Vec<[f64; 2]> {
        linspace(-self.line_length, self.line_length, pts)
            .map(|x| [x, self.m * x + self.b])
            .collect()
    }
    fn get_config(&self) -> Value {
        json!({"m": self.m, "b": self.b, "line_length": self.line_length})
    }
}

/// A straight line through `point` along unit `direction`:
/// φ = nᵀ(p − point), n = (−d_y, d_x) (φ > 0 on the left), so φ is the
/// signed distance to the line and |∇φ| = 1 in every direction.
///
/// This is what ssl_simulator's `GvfLineHeading` and `GvfLineAB` aim at;
/// unlike them it passes through the given point (they keep only its y as
/// the intercept) and handles vertical lines.
#[derive(Debug, Clone, PartialEq)]
pub struct GvfDirectedLine {
    /// A point of the line.
    pub point: [f64; 2],
    /// Unit direction.
    pub direction: [f64; 2],
    /// Half-length used by `gen_param_points`.
    pub half_length: f64,
}

impl GvfDirectedLine {
    /// A line through `point` along `direction` (normalised; a zero
    /// direction falls back to +x).
    pub fn new(point: [f64; 2], direction: [f64; 2]) -> Self {
        let n = direction[0].hypot(direction[1]);
        let direction = if n > 0.0 {
            [direction[0] / n, direction[1] / n]
        } else {
            [1.0, 0.0]
        };
        GvfDirectedLine {
            point,
            direction,
            half_length: 10.0,
        }
    }
    /// The line through A and B (directed A → B).
    pub fn through(a: [f64; 2], b: [f64; 2]) -> Self {
        let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
        let mut l = Self::new(mid, [b[0] - a[0], b[1] - a[1]]);
        l.half_length = (b[0] - a[0]).hypot(b[1] - a[1]) / 2.0;
        l
    }
    /// The line through `point` with heading `heading` (rad from +x, CCW).
    pub fn with_heading(point: [f64; 2], heading: f64) -> Self {
        Self::new(point, [heading.cos(), heading.sin()])
    }
}

impl GvfTrajectory for GvfDirectedLine {
    fn phi(&self, p: [f64; 2]) -> f64 {
        let n = self.grad_phi(p);
        n[0] * (p[0] - self.point[0]) + n[1] * (p[1] - self.point[1])
    }
    fn grad_phi(&self, _p: [f64; 2]) -> [f64; 2] {
        [-self.direction[1], self.direction[0]]
    }
    fn hess_phi(&self, _p: [f64; 2]) -> [[f64; 2]; 2] {
        [[0.0; 2]; 2]
    }
    fn gen_param_points(&self, pts: usize) -> Vec<[f64; 2]> {
        linspace(-self.half_length, self.half_length, pts)
            .map(|t| {
                [
                    self.point[0] + t * self.direction[0],
                    self.point[1] + t * self.direction[1],
                ]
            })
            .collect()
    }
    fn get_config(&self) -> Value {
        json!({"point": self.point, "direction": self.direction, "half_length": self.half_length})
    }
}
