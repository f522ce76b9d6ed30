//! Guiding vector fields (GVF): paths as zero sets of φ: ℝ² → ℝ, and the
//! field that steers onto and along them.
//!
//! χ(p) = s E ∇φ − k_e φ ∇φ, with E = [[0, 1], [−1, 0]] (a −90° turn).
//! The first term runs along the level set, the second pulls onto φ = 0.
//! For an ellipse (φ < 0 inside) s = +1 circulates clockwise.

use nalgebra::{Matrix2, Vector2};
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
        (0..pts)
            .map(|i| {
                let t = if pts > 1 {
                    2.0 * PI * i as f64 / (pts - 1) as f64
                } else {
                    0.0
                };
                let v = self.r * Vector2::new(self.a * t.cos(), self.b * t.sin());
                [self.xy_off[0] + v[0], self.xy_off[1] + v[1]]
            })
            .collect()
    }
}

/// A straight line through `point` along unit `direction`:
/// φ = nᵀ(p − point), n = (−d_y, d_x) (φ > 0 on the left).
#[derive(Debug, Clone, PartialEq)]
pub struct GvfLine {
    /// A point of the line.
    pub point: [f64; 2],
    /// Unit direction.
    pub direction: [f64; 2],
    /// Half-length used by `gen_param_points`.
    pub half_length: f64,
}

impl GvfLine {
    /// A line through `point` along `direction` (normalised; a zero
    /// direction falls back to +x).
    pub fn new(point: [f64; 2], direction: [f64; 2]) -> Self {
        let n = direction[0].hypot(direction[1]);
        let direction = if n > 0.0 {
            [direction[0] / n, direction[1] / n]
        } else {
            [1.0, 0.0]
        };
        GvfLine {
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

impl GvfTrajectory for GvfLine {
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
        (0..pts)
            .map(|i| {
                let t = if pts > 1 {
                    -self.half_length + 2.0 * self.half_length * i as f64 / (pts - 1) as f64
                } else {
                    0.0
                };
                [
                    self.point[0] + t * self.direction[0],
                    self.point[1] + t * self.direction[1],
                ]
            })
            .collect()
    }
}
