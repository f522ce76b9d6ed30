//! SE(3) poses as 4×4 homogeneous matrices, and the frame changes built on
//! them. A pose is the frame expressed in world: it maps frame-local
//! coordinates to world coordinates (`from_frame`), and its inverse maps
//! back (`to_frame`).

use crate::error::{MathError, Result};
use nalgebra::{Matrix3, Matrix4, Vector3};

/// A pose [[R, t], [0, 1]] from a rotation and a translation.
pub fn make_pose(r: &Matrix3<f64>, t: &Vector3<f64>) -> Matrix4<f64> {
    let mut m = Matrix4::identity();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(r);
    m.fixed_view_mut::<3, 1>(0, 3).copy_from(t);
    m
}

/// (R, t) of a pose.
pub fn pose_parts(pose: &Matrix4<f64>) -> (Matrix3<f64>, Vector3<f64>) {
    (
        pose.fixed_view::<3, 3>(0, 0).into_owned(),
        pose.fixed_view::<3, 1>(0, 3).into_owned(),
    )
}

/// a · b: apply b first, then a.
pub fn compose(a: &Matrix4<f64>, b: &Matrix4<f64>) -> Matrix4<f64> {
    a * b
}

/// T⁻¹ = [[Rᵀ, −Rᵀ t], [0, 1]] (never a generic solve).
pub fn invert(pose: &Matrix4<f64>) -> Matrix4<f64> {
    let (r, t) = pose_parts(pose);
    let rt = r.transpose();
    make_pose(&rt, &(-(rt * t)))
}

/// Frame-local points → world, one pose for all points.
pub fn from_frame(points: &[[f64; 3]], pose: &Matrix4<f64>) -> Vec<[f64; 3]> {
    let (r, t) = pose_parts(pose);
    points
        .iter()
        .map(|p| (r * Vector3::from(*p) + t).into())
        .collect()
}

/// World points → frame-local, one pose for all points.
pub fn to_frame(points: &[[f64; 3]], pose: &Matrix4<f64>) -> Vec<[f64; 3]> {
    from_frame(points, &invert(pose))
}

/// Frame-local points → world, pose `i` for point `i`.
pub fn from_frames(points: &[[f64; 3]], poses: &[Matrix4<f64>]) -> Result<Vec<[f64; 3]>> {
    pair_check(points.len(), poses.len())?;
    Ok(points
        .iter()
        .zip(poses)
        .map(|(p, pose)| {
            let (r, t) = pose_parts(pose);
            (r * Vector3::from(*p) + t).into()
        })
        .collect())
}

/// World points → frame-local, pose `i` for point `i`.
pub fn to_frames(points: &[[f64; 3]], poses: &[Matrix4<f64>]) -> Result<Vec<[f64; 3]>> {
    let inv: Vec<Matrix4<f64>> = poses.iter().map(invert).collect();
    from_frames(points, &inv)
}

fn pair_check(points: usize, poses: usize) -> Result<()> {
    if points != poses {
        return Err(MathError::Shape {
            name: "poses".into(),
            expected: format!("({points}, 4, 4) to pair with {points} points"),
            got: format!("({poses}, 4, 4)"),
        });
    }
    Ok(())
}

/// Kabsch/Procrustes: the proper rigid motion T (rotation with det = +1,
/// reflections corrected; no scaling) minimising Σ ‖T·srcᵢ − dstᵢ‖².
/// Needs at least 3 pairs that are not collinear.
pub fn rigid_transform(src: &[[f64; 3]], dst: &[[f64; 3]]) -> Result<Matrix4<f64>> {
    if src.len() != dst.len() {
        return Err(MathError::Shape {
            name: "dst".into(),
            expected: format!("({}, 3)", src.len()),
            got: format!("({}, 3)", dst.len()),
        });
    }
    if src.len() < 3 {
        return Err(MathError::Degenerate(format!(
            "needs at least 3 point pairs, got {}",
            src.len()
        )));
    }
    let n = src.len() as f64;
    let cs: Vector3<f64> = src.iter().map(|p| Vector3::from(*p)).sum::<Vector3<f64>>() / n;
    let cd: Vector3<f64> = dst.iter().map(|p| Vector3::from(*p)).sum::<Vector3<f64>>() / n;
    let mut h = Matrix3::zeros();
    for (s, d) in src.iter().zip(dst) {
        h += (Vector3::from(*s) - cs) * (Vector3::from(*d) - cd).transpose();
    }
    // Rank < 2 (all points on a line or one point): the rotation about the
    // line is undetermined.
    let sv = h.singular_values();
    let mut sorted = [sv[0], sv[1], sv[2]];
    sorted.sort_by(f64::total_cmp);
    if sorted[1] <= 1e-12 * sorted[2].max(1e-300) {
        return Err(MathError::Degenerate(
            "the points are collinear or coincident".into(),
        ));
    }
    // Horn's closed form: the rotation is the unit quaternion of N's largest
    // eigenvalue. It is proper by construction (no reflection fix) and the
    // symmetric eigensolver keeps it accurate to rounding over the problem's
    // own conditioning; nalgebra's SVD lost 1e-7 on planar 3-point clouds.
    let (sxx, sxy, sxz) = (h[(0, 0)], h[(0, 1)], h[(0, 2)]);
    let (syx, syy, syz) = (h[(1, 0)], h[(1, 1)], h[(1, 2)]);
    let (szx, szy, szz) = (h[(2, 0)], h[(2, 1)], h[(2, 2)]);
    #[rustfmt::skip]
    let n_mat = nalgebra::Matrix4::new(
        sxx + syy + szz, syz - szy,        szx - sxz,        sxy - syx,
        syz - szy,       sxx - syy - szz,  sxy + syx,        szx + sxz,
        szx - sxz,       sxy + syx,        -sxx + syy - szz, syz + szy,
        sxy - syx,       szx + sxz,        syz + szy,        -sxx - syy + szz,
    );
    let eig = n_mat.symmetric_eigen();
    let best = eig.eigenvalues.imax();
    let q = eig.eigenvectors.column(best);
    let r = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
        q[0], q[1], q[2], q[3],
    ))
    .to_rotation_matrix()
    .into_inner();
    let t = cd - r * cs;
    Ok(make_pose(&r, &t))
}
