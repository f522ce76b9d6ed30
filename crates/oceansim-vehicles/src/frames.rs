//! Frame conversions, all in one place.
//!
//! | frame | axes |
//! |---|---|
//! | OceanSim user / world (ENU) | x east/right, y north/forward, z up; depth = -z |
//! | NED (Fossen world) | x north, y east, z down |
//! | OceanSim body (user convention) | x starboard, y forward, z up |
//! | Fossen body | x forward (surge), y starboard (sway), z down (heave) |
//! | Godot world | Y up: OceanSim = [X, -Z, Y], Godot = [x, z, -y] |
//!
//! ENU ↔ NED and user-body ↔ Fossen-body are the same involution: swap x and
//! y, negate z.

use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// OceanSim user/world (ENU) vector → NED.
pub fn enu_to_ned(v: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(v.y, v.x, -v.z)
}

/// NED vector → OceanSim user/world (ENU).
pub fn ned_to_enu(v: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(v.y, v.x, -v.z)
}

/// OceanSim body vector (x starboard, y forward, z up) → Fossen body
/// (x forward, y starboard, z down).
pub fn user_body_to_fossen(v: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(v.y, v.x, -v.z)
}

/// Fossen body vector → OceanSim body vector.
pub fn fossen_to_user_body(v: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(v.y, v.x, -v.z)
}

/// Godot world `[X, Y, Z]` (Y up) → OceanSim user `[X, -Z, Y]`.
pub fn godot_to_oceansim(v: [f64; 3]) -> [f64; 3] {
    [v[0], -v[2], v[1]]
}

/// OceanSim user `[x, y, z]` → Godot world `[x, z, -y]`.
pub fn oceansim_to_godot(v: [f64; 3]) -> [f64; 3] {
    [v[0], v[2], -v[1]]
}

/// OceanSim/ENU → ROS NED `[y, x, -z]` (the same map as [`enu_to_ned`]).
pub fn oceansim_to_ros_ned(v: [f64; 3]) -> [f64; 3] {
    [v[1], v[0], -v[2]]
}

/// Compass heading in degrees, [0, 360): 0 = north, clockwise, from a
/// body → NED attitude.
pub fn heading_deg(attitude: &UnitQuaternion<f64>) -> f64 {
    let (_, _, yaw) = attitude.euler_angles();
    yaw.to_degrees().rem_euclid(360.0)
}

/// Body → ENU rotation of a body → NED attitude, in the user conventions
/// (user body axes to user world axes).
pub fn user_rotation(attitude_ned: &UnitQuaternion<f64>) -> Matrix3<f64> {
    // P swaps x/y and negates z; P = P^T = P^-1. R_user = P R_ned P.
    let p = Matrix3::new(0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0);
    p * attitude_ned.to_rotation_matrix().matrix() * p
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    #[test]
    fn conversions_are_involutions_and_match_the_spec() {
        let v = Vector3::new(1.0, 2.0, 3.0);
        assert_eq!(ned_to_enu(&enu_to_ned(&v)), v);
        assert_eq!(enu_to_ned(&v), Vector3::new(2.0, 1.0, -3.0));
        assert_eq!(fossen_to_user_body(&user_body_to_fossen(&v)), v);
        assert_eq!(godot_to_oceansim([1.0, 2.0, 3.0]), [1.0, -3.0, 2.0]);
        assert_eq!(
            oceansim_to_godot(godot_to_oceansim([1.0, 2.0, 3.0])),
            [1.0, 2.0, 3.0]
        );
        assert_eq!(oceansim_to_ros_ned([1.0, 2.0, 3.0]), [2.0, 1.0, -3.0]);
    }

    #[test]
    fn heading_is_compass_clockwise_from_north() {
        let north = UnitQuaternion::identity();
        assert!((heading_deg(&north) - 0.0).abs() < 1e-12);
        let east = UnitQuaternion::from_euler_angles(0.0, 0.0, FRAC_PI_2);
        assert!((heading_deg(&east) - 90.0).abs() < 1e-9);
        let west = UnitQuaternion::from_euler_angles(0.0, 0.0, -FRAC_PI_2);
        assert!((heading_deg(&west) - 270.0).abs() < 1e-9);
    }

    #[test]
    fn user_rotation_of_a_yaw_to_east_points_forward_to_east() {
        // Facing east (NED yaw 90°): the user body's forward axis (+y body)
        // maps to user world +x (east).
        let east = UnitQuaternion::from_euler_angles(0.0, 0.0, FRAC_PI_2);
        let fwd = user_rotation(&east) * Vector3::new(0.0, 1.0, 0.0);
        assert!((fwd - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-12);
    }
}
