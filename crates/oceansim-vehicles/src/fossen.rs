//! Fossen's building blocks, named after the functions of his MSS toolbox and
//! Python Vehicle Simulator (`gnc.py`) so results compare one to one.
//!
//! Conventions: NED world, body x forward / y starboard / z down,
//! ν = [u, v, w, p, q, r], η = [x, y, z, φ, θ, ψ] (ZYX Euler, rad),
//! 6×6 matrices in [linear; angular] block order.

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
}
