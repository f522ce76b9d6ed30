//! Fossen's building blocks, named after the functions of his MSS toolbox and
//! Python Vehicle Simulator (`gnc.py`) so results compare one to one.
//!
//! Conventions: NED world, body x forward / y starboard / z down,
//! ν = [u, v, w, p, q, r], η = [x, y, z, φ, θ, ψ] (ZYX Euler, rad),
//! 6×6 matrices in [linear; angular] block order.

use std::f64::consts::PI;

use nalgebra::{Matrix3, Matrix6, Quaternion, UnitQuaternion, Vector3, Vector6};

/// Skew-symmetric matrix S(a) with S(a) b = a × b.
pub fn smtrx(a: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// The 6×6 system transformation matrix H(r) = [[I, S(r)ᵀ], [0, I]] that
/// moves a point of reference by r (Fossen 2021, eq. 3.42).
pub fn hmtrx(r: &Vector3<f64>) -> Matrix6<f64> {
    let mut h = Matrix6::identity();
    h.fixed_view_mut::<3, 3>(0, 3)
        .copy_from(&smtrx(r).transpose());
    h
}

/// Rotation matrix R = Rz(ψ) Ry(θ) Rx(φ), body → NED.
pub fn rzyx(phi: f64, theta: f64, psi: f64) -> Matrix3<f64> {
    let (sphi, cphi) = phi.sin_cos();
    let (sth, cth) = theta.sin_cos();
    let (spsi, cpsi) = psi.sin_cos();
    Matrix3::new(
        cpsi * cth,
        -spsi * cphi + cpsi * sth * sphi,
        spsi * sphi + cpsi * cphi * sth,
        spsi * cth,
        cpsi * cphi + sphi * sth * spsi,
        -cpsi * sphi + sth * spsi * cphi,
        -sth,
        cth * sphi,
        cth * cphi,
    )
}

/// Euler-angle attitude transformation T(φ, θ) with Θ̇ = T ω_body.
/// Singular at θ = ±90° (entries become infinite); the dynamics use unit
/// quaternions for that reason.
pub fn tzyx(phi: f64, theta: f64) -> Matrix3<f64> {
    let (sphi, cphi) = phi.sin_cos();
    let (sth, cth) = theta.sin_cos();
    Matrix3::new(
        1.0,
        sphi * sth / cth,
        cphi * sth / cth,
        0.0,
        cphi,
        -sphi,
        0.0,
        sphi / cth,
        cphi / cth,
    )
}

/// Coriolis–centripetal matrix C(ν) of a 6×6 mass matrix (symmetrised
/// first), skew-symmetric by construction (Fossen 2021, eq. 3.46):
/// C = [[0, -S(M11 ν1 + M12 ν2)], [-S(M11 ν1 + M12 ν2), -S(M21 ν1 + M22 ν2)]].
pub fn m2c(m: &Matrix6<f64>, nu: &Vector6<f64>) -> Matrix6<f64> {
    let ms = 0.5 * (m + m.transpose());
    let dt = ms * nu;
    let s1 = smtrx(&dt.fixed_rows::<3>(0).into_owned());
    let s2 = smtrx(&dt.fixed_rows::<3>(3).into_owned());
    let mut c = Matrix6::zeros();
    c.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-s1));
    c.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-s1));
    c.fixed_view_mut::<3, 3>(3, 3).copy_from(&(-s2));
    c
}

/// C(ν) ν without forming C: with h = M ν (M symmetric),
/// C(ν) ν = [ν2 × h1; ν1 × h1 + ν2 × h2]. `m_sym` must be symmetric.
pub fn coriolis_times(m_sym: &Matrix6<f64>, nu: &Vector6<f64>) -> Vector6<f64> {
    let h = m_sym * nu;
    let h1 = h.fixed_rows::<3>(0);
    let h2 = h.fixed_rows::<3>(3);
    let nu1 = nu.fixed_rows::<3>(0);
    let nu2 = nu.fixed_rows::<3>(3);
    let top = nu2.cross(&h1);
    let bottom = nu1.cross(&h1) + nu2.cross(&h2);
    Vector6::new(top.x, top.y, top.z, bottom.x, bottom.y, bottom.z)
}

/// Restoring forces g(η) of weight `w` and buoyancy `b` (both N) acting at
/// r_bg (CG) and r_bb (CB), body frame — note θ before φ, as in `gnc.py`.
pub fn gvect(
    w: f64,
    b: f64,
    theta: f64,
    phi: f64,
    r_bg: &Vector3<f64>,
    r_bb: &Vector3<f64>,
) -> Vector6<f64> {
    let (sth, cth) = theta.sin_cos();
    let (sphi, cphi) = phi.sin_cos();
    Vector6::new(
        (w - b) * sth,
        -(w - b) * cth * sphi,
        -(w - b) * cth * cphi,
        -(r_bg.y * w - r_bb.y * b) * cth * cphi + (r_bg.z * w - r_bb.z * b) * cth * sphi,
        (r_bg.z * w - r_bb.z * b) * sth + (r_bg.x * w - r_bb.x * b) * cth * cphi,
        -(r_bg.x * w - r_bb.x * b) * cth * sphi - (r_bg.y * w - r_bb.y * b) * sth,
    )
}

/// Restoring forces from an attitude quaternion (body → NED): the same as
/// [`gvect`] without Euler angles, so it holds at any attitude.
pub fn restoring_force_torque(
    attitude: &UnitQuaternion<f64>,
    w: f64,
    b: f64,
    r_g: &Vector3<f64>,
    r_b: &Vector3<f64>,
) -> Vector6<f64> {
    // Down (NED +z) expressed in body axes: third row of R.
    let down_body = attitude.inverse_transform_vector(&Vector3::z());
    let f_g = w * down_body;
    let f_b = -b * down_body;
    let force = f_g + f_b;
    let torque = r_g.cross(&f_g) + r_b.cross(&f_b);
    -Vector6::new(force.x, force.y, force.z, torque.x, torque.y, torque.z)
}

/// Quaternion kinematics q̇ = ½ q ⊗ [0, ω] for a body → NED attitude and
/// body angular velocity ω = [p, q, r] (rad/s).
pub fn quat_derivative(q: &Quaternion<f64>, omega: &Vector3<f64>) -> Quaternion<f64> {
    q * Quaternion::from_imag(*omega) * 0.5
}

/// Euler angles (φ, θ, ψ) of a body → NED attitude (ZYX convention).
pub fn euler_from_quat(q: &UnitQuaternion<f64>) -> (f64, f64, f64) {
    q.euler_angles()
}

/// Smallest signed angle: `angle` (rad) wrapped into [−π, π), computed as
/// `gnc.py`'s `ssa`: (angle + π) mod 2π − π with Python's float modulo
/// (the remainder takes the sign of the divisor). Non-finite input gives NaN.
pub fn ssa(angle: f64) -> f64 {
    let two_pi = 2.0 * PI;
    // Python's float `%`: fmod, then moved into [0, 2π) when signs differ.
    let mut m = (angle + PI) % two_pi;
    if m != 0.0 {
        if m < 0.0 {
            m += two_pi;
        }
    } else {
        m = 0.0;
    }
    m - PI
}

/// Hoerner's curve, B/(2T) (its abscissae), digitised in `gnc.py`.
const HOERNER_B_2T: [f64; 20] = [
    0.0109, 0.1766, 0.3530, 0.4519, 0.4728, 0.4929, 0.4933, 0.5585, 0.6464, 0.8336, 0.9880, 1.3081,
    1.6392, 1.8600, 2.3129, 2.6000, 3.0088, 3.4508, 3.7379, 4.0031,
];
/// Hoerner's curve, the 2-D cross-flow drag coefficient C_D at each abscissa.
const HOERNER_CD: [f64; 20] = [
    1.9661, 1.9657, 1.8976, 1.7872, 1.5837, 1.2786, 1.2108, 1.0836, 0.9986, 0.8796, 0.8284, 0.7599,
    0.6914, 0.6571, 0.6307, 0.5962, 0.5868, 0.5859, 0.5599, 0.5593,
];

/// Hoerner's 2-D cross-flow drag coefficient C_Y,2D (dimensionless) of a
/// section of beam `b` (m) and draft `t` (m): Hoerner's curve, digitised in
/// `gnc.py`, interpolated linearly in B/(2T) as `numpy.interp` does (held
/// at the end values outside the table). Fossen 2021, Section 6.7.
pub fn hoerner(b: f64, t: f64) -> f64 {
    let x = b / (2.0 * t);
    let (xp, fp) = (&HOERNER_B_2T, &HOERNER_CD);
    let last = xp.len() - 1;
    if x.is_nan() {
        return x;
    }
    if x < xp[0] {
        return fp[0];
    }
    if x > xp[last] {
        return fp[last];
    }
    // The last abscissa ≤ x, as numpy's binary search finds it.
    let j = xp.partition_point(|&v| v <= x).saturating_sub(1);
    if j == last || xp[j] == x {
        return fp[j];
    }
    let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    slope * (x - xp[j]) + fp[j]
}

/// Cross-flow drag τ_crossflow = [0, Y_h, 0, 0, 0, N_h] (N, N·m) of a hull of
/// length `l`, beam `b` and draft `t` (m) at the relative body velocity
/// `nu_r` = ν − ν_c (m/s, rad/s; body x fwd, y stbd, z down), by strip
/// theory (Fossen 2021, Section 6.7) as `gnc.py`'s `crossFlowDrag`:
/// ρ = 1026 kg/m³, C_D from [`hoerner`], and — as in Fossen's code — 21
/// strips of width L/20 at x = −L/2, −L/2 + dx, …, L/2 (x accumulated).
/// Add it to τ: M ν̇_r + C ν_r + D ν_r + g = τ + τ_crossflow.
pub fn cross_flow_drag(l: f64, b: f64, t: f64, nu_r: &[f64; 6]) -> [f64; 6] {
    let rho = 1026.0;
    let n = 20;
    let dx = l / 20.0;
    let cd_2d = hoerner(b, t);
    let (v_r, r) = (nu_r[1], nu_r[5]);
    let mut yh = 0.0;
    let mut nh = 0.0;
    let mut x_l = -l / 2.0;
    for _ in 0..=n {
        let ucf = (v_r + x_l * r).abs() * (v_r + x_l * r);
        yh -= 0.5 * rho * t * cd_2d * ucf * dx;
        nh -= 0.5 * rho * t * cd_2d * x_l * ucf * dx;
        x_l += dx;
    }
    [0.0, yh, 0.0, 0.0, 0.0, nh]
}

/// Lift and drag of a submerged "wing profile" (Beard and McLain 2012) as
/// `gnc.py`'s `forceLiftDrag`, in body axes (x fwd, z down): span `b` (m),
/// area `s` (m²), parasitic drag `cd_0` (at α = 0), angle of attack `alpha`
/// (rad, atan2(w_r, u_r)) and relative speed `u_r` (m/s; enters squared).
/// Linear lift C_L = C_Lα α with C_Lα = π AR / (1 + √(1 + (AR/2)²)),
/// AR = b²/S; drag C_D = C_D0 + C_L²/(π e AR), Oswald e = 0.7, ρ = 1026
/// (Fossen's stall blending has σ = 0 here, so it drops out). Returns
/// [X, 0, Z, 0, 0, 0] (N), the flow-axes forces −F_drag, −F_lift rotated
/// by α.
pub fn force_lift_drag(b: f64, s: f64, cd_0: f64, alpha: f64, u_r: f64) -> [f64; 6] {
    let rho = 1026.0;
    let e = 0.7;
    let ar = b * b / s;
    let cl_alpha = PI * ar / (1.0 + (1.0 + (ar / 2.0) * (ar / 2.0)).sqrt());
    let cl = cl_alpha * alpha;
    let cd = cd_0 + cl * cl / (PI * e * ar);
    let f_drag = 0.5 * rho * (u_r * u_r) * s * cd;
    let f_lift = 0.5 * rho * (u_r * u_r) * s * cl;
    let (sa, ca) = (alpha.sin(), alpha.cos());
    [
        ca * (-f_drag) - sa * (-f_lift),
        0.0,
        sa * (-f_drag) + ca * (-f_lift),
        0.0,
        0.0,
        0.0,
    ]
}

/// One forward-Euler step of the kinematics η̇ = J(η) ν as `gnc.py`'s
/// `attitudeEuler`: position (NED, m) advanced by dt · Rzyx(φ, θ, ψ) ν₁,
/// Euler angles (rad) by dt · Tzyx(φ, θ) ν₂ (Fossen 2021, eq. 2.40 and
/// 2.41). `eta` = [x, y, z, φ, θ, ψ], `nu` = [u, v, w, p, q, r] (body),
/// `dt` in s. Angles are not wrapped. Singular at θ = ±90°, as Tzyx.
pub fn attitude_euler(eta: &[f64; 6], nu: &[f64; 6], dt: f64) -> [f64; 6] {
    let r = rzyx(eta[3], eta[4], eta[5]);
    let t = tzyx(eta[3], eta[4]);
    let mut out = *eta;
    for i in 0..3 {
        let p_dot = r[(i, 0)] * nu[0] + r[(i, 1)] * nu[1] + r[(i, 2)] * nu[2];
        let a_dot = t[(i, 0)] * nu[3] + t[(i, 1)] * nu[4] + t[(i, 2)] * nu[5];
        out[i] = eta[i] + dt * p_dot;
        out[i + 3] = eta[i + 3] + dt * a_dot;
    }
    out
}

/// The 3-DOF (surge, sway, yaw) Coriolis–centripetal matrix of `gnc.py`'s
/// `m2c` for `nu` = [u, v, r] (m/s, rad/s): M (3×3, kg and kg·m, rows
/// [surge, sway, yaw]) is symmetrised first, then
/// C = [[0, 0, −M₂₂v − M₂₃r], [0, 0, M₁₁u], [M₂₂v + M₂₃r, −M₁₁u, 0]]
/// (1-based indices; Fossen 2021, eq. 6.43).
pub fn m2c_3dof(m: &[[f64; 3]; 3], nu: &[f64; 3]) -> [[f64; 3]; 3] {
    let ms = |i: usize, j: usize| 0.5 * (m[i][j] + m[j][i]);
    let mut c = [[0.0; 3]; 3];
    c[0][2] = -ms(1, 1) * nu[1] - ms(1, 2) * nu[2];
    c[1][2] = ms(0, 0) * nu[0];
    c[2][0] = -c[0][2];
    c[2][1] = -c[1][2];
    c
}

/// The 6-DOF branch of `gnc.py`'s `m2c` on plain arrays, in its order of
/// operations (M symmetrised; M₁₁ν₁ and M₁₂ν₂ summed separately), so a
/// model built on it matches Fossen's code to roundoff. Same matrix as
/// [`m2c`] (eq. 3.46); `m` in [linear; angular] block order, `nu` body.
pub fn m2c_6dof(m: &[[f64; 6]; 6], nu: &[f64; 6]) -> [[f64; 6]; 6] {
    let ms = |i: usize, j: usize| 0.5 * (m[i][j] + m[j][i]);
    let block = |row: usize, col: usize, v: &[f64]| -> [f64; 3] {
        let mut out = [0.0; 3];
        for (i, o) in out.iter_mut().enumerate() {
            *o =
                ms(row + i, col) * v[0] + ms(row + i, col + 1) * v[1] + ms(row + i, col + 2) * v[2];
        }
        out
    };
    let (nu1, nu2) = (&nu[0..3], &nu[3..6]);
    let (a, b) = (block(0, 0, nu1), block(0, 3, nu2));
    let (c2, d) = (block(3, 0, nu1), block(3, 3, nu2));
    let dt1 = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
    let dt2 = [c2[0] + d[0], c2[1] + d[1], c2[2] + d[2]];
    let s1 = smtrx(&Vector3::from(dt1));
    let s2 = smtrx(&Vector3::from(dt2));
    let mut c = [[0.0; 6]; 6];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j + 3] = -s1[(i, j)];
            c[i + 3][j] = -s1[(i, j)];
            c[i + 3][j + 3] = -s2[(i, j)];
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtrx_is_the_cross_product() {
        let a = Vector3::new(0.3, -1.2, 2.0);
        let b = Vector3::new(-0.7, 0.4, 1.1);
        assert!((smtrx(&a) * b - a.cross(&b)).norm() < 1e-15);
        assert_eq!(smtrx(&a).transpose(), -smtrx(&a));
    }

    #[test]
    fn rzyx_matches_nalgebra_euler() {
        let r = rzyx(0.1, -0.2, 0.3);
        let q = UnitQuaternion::from_euler_angles(0.1, -0.2, 0.3);
        assert!((r - q.to_rotation_matrix().into_inner()).norm() < 1e-15);
    }

    #[test]
    fn quaternion_restoring_matches_gvect() {
        let (w, b) = (299.0, 306.0);
        let rg = Vector3::new(0.01, -0.02, 0.0196);
        let rb = Vector3::new(0.0, 0.005, -0.01);
        for &(phi, theta, psi) in &[(0.0, 0.0, 0.0), (0.3, -0.4, 1.0), (-2.0, 1.2, -3.0)] {
            let q = UnitQuaternion::from_euler_angles(phi, theta, psi);
            let a = restoring_force_torque(&q, w, b, &rg, &rb);
            let g = gvect(w, b, theta, phi, &rg, &rb);
            assert!((a - g).norm() < 1e-12, "{a} vs {g}");
        }
    }

    #[test]
    fn coriolis_times_matches_m2c() {
        let mut m = Matrix6::from_fn(|i, j| ((i * 7 + j * 3) % 5) as f64 * 0.3);
        m = m * m.transpose() + Matrix6::identity();
        let nu = Vector6::new(0.5, -0.2, 0.1, 0.05, -0.3, 0.2);
        assert!((m2c(&m, &nu) * nu - coriolis_times(&m, &nu)).norm() < 1e-13);
    }

    #[test]
    fn ssa_wraps_into_minus_pi_to_pi() {
        assert_eq!(ssa(PI), -PI);
        assert_eq!(ssa(-PI), -PI);
        assert_eq!(ssa(0.5), 0.5);
        assert!((ssa(2.0 * PI + 0.25) - 0.25).abs() < 1e-15);
        assert!((ssa(-3.0 * PI + 0.25) - (-PI + 0.25)).abs() < 1e-14);
        assert!(ssa(f64::INFINITY).is_nan());
    }

    #[test]
    fn hoerner_holds_its_table_and_ends() {
        assert_eq!(hoerner(2.0 * 0.4519, 1.0), 1.7872);
        assert_eq!(hoerner(0.0, 1.0), 1.9661);
        assert_eq!(hoerner(100.0, 1.0), 0.5593);
        let mid = hoerner(2.0 * 0.5, 1.0);
        assert!(mid < 1.2108 && mid > 1.0836, "{mid}");
    }

    #[test]
    fn cross_flow_drag_opposes_sway_and_is_odd() {
        let nu = [1.0, 0.4, 0.0, 0.0, 0.0, 0.1];
        let neg = [1.0, -0.4, 0.0, 0.0, 0.0, -0.1];
        let a = cross_flow_drag(1.6, 0.19, 0.19, &nu);
        let b = cross_flow_drag(1.6, 0.19, 0.19, &neg);
        assert!(a[1] < 0.0);
        assert_eq!(a[1], -b[1]);
        assert_eq!(a[5], -b[5]);
    }

    #[test]
    fn lift_does_no_work() {
        // Power of the flow forces is −U F_drag: lift is normal to the flow.
        let (b, s, cd_0) = (0.19, 0.2128, 0.056);
        for &(u, w) in &[(2.0_f64, 0.1_f64), (1.0, -0.4), (-0.5, 0.3)] {
            let alpha = w.atan2(u);
            let speed = u.hypot(w);
            let t = force_lift_drag(b, s, cd_0, alpha, speed);
            let t0 = force_lift_drag(b, s, cd_0, 0.0, speed);
            let ar = b * b / s;
            let cl_alpha = PI * ar / (1.0 + (1.0 + (ar / 2.0).powi(2)).sqrt());
            let cd = cd_0 + (cl_alpha * alpha).powi(2) / (PI * 0.7 * ar);
            let power = u * t[0] + w * t[2];
            assert!(
                (power + speed * (-t0[0]) * cd / cd_0).abs() < 1e-12,
                "{power}"
            );
        }
    }

    #[test]
    fn m2c_6dof_matches_m2c() {
        let mut m = Matrix6::from_fn(|i, j| ((i * 5 + j * 2) % 7) as f64 * 0.4);
        m += Matrix6::identity() * 3.0;
        let nu = Vector6::new(0.5, -0.2, 0.1, 0.05, -0.3, 0.2);
        let arr = std::array::from_fn(|i| std::array::from_fn(|j| m[(i, j)]));
        let c = m2c_6dof(&arr, &[0.5, -0.2, 0.1, 0.05, -0.3, 0.2]);
        let reference = m2c(&m, &nu);
        for (i, row) in c.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                assert!((x - reference[(i, j)]).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn m2c_3dof_is_skew_symmetric() {
        let m = [[30.0, 0.0, 0.0], [0.0, 45.0, 2.0], [0.0, 1.0, 7.0]];
        let c = m2c_3dof(&m, &[1.0, 0.2, -0.3]);
        for (i, row) in c.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                assert_eq!(*x, -c[j][i]);
            }
        }
        assert_eq!(c[0][2], -45.0 * 0.2 - 1.5 * -0.3);
    }

    #[test]
    fn attitude_euler_moves_along_the_heading() {
        let eta = [1.0, 2.0, 3.0, 0.0, 0.0, PI / 2.0];
        let next = attitude_euler(&eta, &[2.0, 0.0, 0.0, 0.0, 0.0, 0.1], 0.5);
        assert!((next[0] - 1.0).abs() < 1e-15 && (next[1] - 3.0).abs() < 1e-15);
        assert!((next[5] - (PI / 2.0 + 0.05)).abs() < 1e-15);
    }
}
