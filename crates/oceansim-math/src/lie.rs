//! SO(3): rotation matrices from Euler angles, hat/vee, and the exact
//! exponential and logarithm with their Jacobians.

use nalgebra::{Matrix3, Vector3};
use std::f64::consts::PI;

/// R = Rz(yaw) Ry(pitch) Rx(roll) (Z-Y-X intrinsic), rad.
pub fn rot_3d_matrix(roll: f64, pitch: f64, yaw: f64) -> Matrix3<f64> {
    let (sr, cr) = roll.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let (sy, cy) = yaw.sin_cos();
    Matrix3::new(
        cy * cp,
        cy * sp * sr - sy * cr,
        cy * sp * cr + sy * sr,
        sy * cp,
        sy * sp * sr + cy * cr,
        sy * sp * cr - cy * sr,
        -sp,
        cp * sr,
        cp * cr,
    )
}

/// [`rot_3d_matrix`] for each `[roll, pitch, yaw]` row.
pub fn rot_3d_matrices(rpy: &[[f64; 3]]) -> Vec<Matrix3<f64>> {
    rpy.iter()
        .map(|a| rot_3d_matrix(a[0], a[1], a[2]))
        .collect()
}

/// Rotation angle of R, arccos((tr R − 1)/2) with the argument clipped.
pub fn rotation_angle(r: &Matrix3<f64>) -> f64 {
    ((r.trace() - 1.0) / 2.0).clamp(-1.0, 1.0).acos()
}

/// ω̂ ∈ so(3): the skew matrix with ω̂ v = ω × v.
pub fn so3_hat(w: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -w.z, w.y, w.z, 0.0, -w.x, -w.y, w.x, 0.0)
}

/// ω from ω̂ (reads the skew part, so it also accepts a nearly skew matrix).
pub fn so3_vee(m: &Matrix3<f64>) -> Vector3<f64> {
    Vector3::new(
        m[(2, 1)] - m[(1, 2)],
        m[(0, 2)] - m[(2, 0)],
        m[(1, 0)] - m[(0, 1)],
    ) * 0.5
}

/// (sin θ/θ, (1 − cos θ)/θ², (θ − sin θ)/θ³), by series near 0.
fn coefficients(th: f64) -> (f64, f64, f64) {
    let t2 = th * th;
    if th < 1e-4 {
        (
            1.0 - t2 / 6.0 + t2 * t2 / 120.0,
            0.5 - t2 / 24.0 + t2 * t2 / 720.0,
            1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0,
        )
    } else {
        (
            th.sin() / th,
            (1.0 - th.cos()) / t2,
            (th - th.sin()) / (t2 * th),
        )
    }
}

/// exp(ω̂), exactly (Rodrigues), with series near θ = 0.
pub fn so3_exp(w: &Vector3<f64>) -> Matrix3<f64> {
    let (a, b, _) = coefficients(w.norm());
    let k = so3_hat(w);
    Matrix3::identity() + k * a + k * k * b
}

/// The rotation vector ω with exp(ω̂) = R, |ω| ∈ [0, π]. Correct near π,
/// where the skew part vanishes: the axis then comes from the symmetric part
/// (R + Rᵀ)/2 = cos θ I + (1 − cos θ) n nᵀ, its sign from the skew part.
pub fn so3_log(r: &Matrix3<f64>) -> Vector3<f64> {
    let skew = so3_vee(r); // sin θ · n
    let s = skew.norm();
    let c = ((r.trace() - 1.0) / 2.0).clamp(-1.0, 1.0);
    let th = s.atan2(c);
    if th < 1e-4 {
        // θ / sin θ ≈ 1 + θ²/6.
        return skew * (1.0 + th * th / 6.0);
    }
    if th < PI - 1e-2 {
        return skew * (th / s);
    }
    let sym = (r + r.transpose()) * 0.5;
    let nn = (sym - Matrix3::identity() * c) / (1.0 - c);
    let col = (0..3)
        .max_by(|&i, &j| nn[(i, i)].total_cmp(&nn[(j, j)]))
        .unwrap_or(0);
    let mut n: Vector3<f64> = nn.column(col).into_owned() / nn[(col, col)].max(1e-300).sqrt();
    n /= n.norm();
    if skew.dot(&n) < 0.0 {
        n = -n;
    }
    n * th
}

/// Left Jacobian J_l(ω) = I + (1 − cos θ)/θ² ω̂ + (θ − sin θ)/θ³ ω̂².
pub fn so3_left_jacobian(w: &Vector3<f64>) -> Matrix3<f64> {
    let (_, b, c) = coefficients(w.norm());
    let k = so3_hat(w);
    Matrix3::identity() + k * b + k * k * c
}

/// Right Jacobian J_r(ω) = J_l(−ω).
pub fn so3_right_jacobian(w: &Vector3<f64>) -> Matrix3<f64> {
    so3_left_jacobian(&-w)
}

/// Inverse left Jacobian I − ½ ω̂ + (1/θ² − (1 + cos θ)/(2 θ sin θ)) ω̂².
pub fn so3_left_jacobian_inv(w: &Vector3<f64>) -> Matrix3<f64> {
    let th = w.norm();
    let k = so3_hat(w);
    let d = if th < 1e-4 {
        1.0 / 12.0 + th * th / 720.0
    } else {
        1.0 / (th * th) - (1.0 + th.cos()) / (2.0 * th * th.sin())
    };
    Matrix3::identity() - k * 0.5 + k * k * d
}

/// Inverse right Jacobian, J_r⁻¹(ω) = J_l⁻¹(−ω).
pub fn so3_right_jacobian_inv(w: &Vector3<f64>) -> Matrix3<f64> {
    so3_left_jacobian_inv(&-w)
}
