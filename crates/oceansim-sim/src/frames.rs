//! Pose conversions between scenario files (Godot), the protocol's user
//! frame (ENU: x east, y north, z up) and the dynamics (NED / Fossen body).
//! Vector conversions live in [`oceansim_vehicles::frames`]; this module
//! adds rotations.
//!
//! Godot rotations are Euler angles in degrees about Godot's axes (default
//! order YXZ: R = Ry·Rx·Rz) with forward = −Z: yaw `rotation[1]` turns the
//! nose from north toward west (counter-clockwise seen from above), pitch
//! `rotation[0]` raises the nose, and `rotation[2]` turns about +Z, the
//! *backward* axis, so a positive value lifts the starboard side (Fossen roll
//! φ = −`rotation[2]`).

use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};
pub use oceansim_vehicles::frames::{
    enu_to_ned, godot_to_oceansim, heading_deg, ned_to_enu, oceansim_to_godot,
};

/// Body → NED attitude of a Godot rotation (degrees).
pub fn godot_rotation_to_attitude(rotation_deg: [f64; 3]) -> UnitQuaternion<f64> {
    let yaw = -rotation_deg[1].to_radians();
    let pitch = rotation_deg[0].to_radians();
    let roll = -rotation_deg[2].to_radians();
    UnitQuaternion::from_euler_angles(roll, pitch, yaw)
}

/// Local → user-world rotation of a Godot Euler rotation (degrees), for
/// objects whose local axes follow the user body convention (x right,
/// y forward, z up). Godot's default order: R = Ry(y)·Rx(x)·Rz(z) about Godot
/// axes, conjugated by the axis map Godot [X, Y, Z] → user [X, −Z, Y]. The
/// same pose as [`godot_rotation_to_attitude`], without going through NED.
pub fn godot_rotation_to_user_matrix(rotation_deg: [f64; 3]) -> Matrix3<f64> {
    let [x, y, z] = rotation_deg.map(f64::to_radians);
    let r = Rotation3::from_axis_angle(&Vector3::y_axis(), y)
        * Rotation3::from_axis_angle(&Vector3::x_axis(), x)
        * Rotation3::from_axis_angle(&Vector3::z_axis(), z);
    let p = Matrix3::new(1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0);
    p * r.matrix() * p.transpose()
}

/// Godot rotation (degrees) of a body → NED attitude.
pub fn attitude_to_godot_rotation(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let (roll, pitch, yaw) = q.euler_angles();
    [pitch.to_degrees(), -yaw.to_degrees(), -roll.to_degrees()]
}

/// User-frame position [x, y, z] of a NED position.
pub fn ned_to_user(p: &Vector3<f64>) -> [f64; 3] {
    ned_to_enu(p).into()
}

/// NED position of a user-frame position.
pub fn user_to_ned(p: [f64; 3]) -> Vector3<f64> {
    enu_to_ned(&Vector3::from(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn godot_yaw_turns_the_nose_west() {
        let q = godot_rotation_to_attitude([0.0, 90.0, 0.0]);
        assert!((heading_deg(&q) - 270.0).abs() < 1e-9);
        let back = attitude_to_godot_rotation(&q);
        assert!((back[1] - 90.0).abs() < 1e-9);
        let q = godot_rotation_to_attitude([10.0, -30.0, 5.0]);
        let r = attitude_to_godot_rotation(&q);
        assert!(
            (r[0] - 10.0).abs() < 1e-9 && (r[1] + 30.0).abs() < 1e-9 && (r[2] - 5.0).abs() < 1e-9
        );
    }

    #[test]
    fn godot_matrix_agrees_with_the_attitude_convention() {
        for r in [[0.0, 90.0, 0.0], [10.0, -30.0, 5.0], [-40.0, 170.0, 75.0]] {
            let direct = godot_rotation_to_user_matrix(r);
            let via_ned = oceansim_vehicles::frames::user_rotation(&godot_rotation_to_attitude(r));
            assert!((direct - via_ned).abs().max() < 1e-12, "{r:?}");
        }
        // Yaw 90° turns the local forward axis (user y) toward west (−x).
        let fwd = godot_rotation_to_user_matrix([0.0, 90.0, 0.0]) * Vector3::y();
        assert!((fwd - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-12);
        // Godot +Z rotation (about the backward axis) lifts the right side:
        // a negative Fossen roll.
        let right = godot_rotation_to_user_matrix([0.0, 0.0, 30.0]) * Vector3::x();
        assert!(right.z > 0.49);
        let (roll, _, _) = godot_rotation_to_attitude([0.0, 0.0, 30.0]).euler_angles();
        assert!((roll.to_degrees() + 30.0).abs() < 1e-9);
    }

    #[test]
    fn positions_round_trip() {
        let u = [1.0, 2.0, -3.0];
        assert_eq!(ned_to_user(&user_to_ned(u)), u);
        assert_eq!(
            user_to_ned([1.0, 2.0, -3.0]),
            Vector3::new(2.0, 1.0, 3.0),
            "3 m deep"
        );
    }
}
