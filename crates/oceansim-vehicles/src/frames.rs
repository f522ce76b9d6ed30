//! Frames and every conversion between them, in one place.
//!
//! | frame | type | axes |
//! |---|---|---|
//! | OceanSim user / world | [`User`] | x east/right, y north/forward, z up; depth = -z |
//! | ROS ENU | [`RosEnu`] | x east, y north, z up (numerically the user frame) |
//! | NED (Fossen world, ROS NED) | [`Ned`] | x north, y east, z down |
//! | Godot world | [`Godot`] | Y up: OceanSim = [X, -Z, Y], Godot = [x, z, -y] |
//! | OceanSim body (user convention) | [`UserBody`] | x starboard, y forward, z up |
//! | Fossen body | [`FossenBody`] | x forward (surge), y starboard (sway), z down (heave) |
//!
//! Rotations: an [`Attitude`] is the body (FRD) → NED unit quaternion the
//! dynamics integrate; a [`GodotRotation`] is a Godot Euler rotation in
//! degrees (order YXZ, R = Ry·Rx·Rz about Godot axes, forward = −Z): yaw
//! `rotation[1]` turns the nose from north toward west, pitch `rotation[0]`
//! raises it, and `rotation[2]` turns about +Z, the *backward* axis, so a
//! positive value lifts the starboard side (Fossen roll φ = −`rotation[2]`).
//!
//! The types are distinct so that a Godot position cannot be passed where a
//! user-frame one is expected; `From` converts between world frames and
//! between body frames. ENU ↔ NED and user body ↔ Fossen body are the same
//! involution: swap x and y, negate z.
//!
//! ```
//! use oceansim_vehicles::frames::{Godot, Ned, User};
//! let start = Godot([0.0, -6.0, -17.0]); // Static_Map's AUV, 6 m deep
//! let user = User::from(start);
//! assert_eq!(user.0, [0.0, 17.0, -6.0]);
//! assert_eq!(Ned::from(user).0.z, 6.0);
//! assert_eq!(Godot::from(user), start);
//! ```

use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};

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

/// A point or vector in the OceanSim user frame (x east, y north, z up).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct User(pub [f64; 3]);

/// A point or vector in ROS ENU (x east, y north, z up).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RosEnu(pub [f64; 3]);

/// A point or vector in NED (x north, y east, z down): Fossen's world frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ned(pub Vector3<f64>);

/// A point or vector in Godot world coordinates (Y up).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Godot(pub [f64; 3]);

/// A body-frame vector in the user convention (x starboard, y forward, z up).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UserBody(pub [f64; 3]);

/// A body-frame vector in Fossen's convention (x forward, y starboard, z down).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FossenBody(pub Vector3<f64>);

impl From<Godot> for User {
    fn from(g: Godot) -> Self {
        User(godot_to_oceansim(g.0))
    }
}
impl From<User> for Godot {
    fn from(u: User) -> Self {
        Godot(oceansim_to_godot(u.0))
    }
}
impl From<User> for Ned {
    fn from(u: User) -> Self {
        Ned(enu_to_ned(&Vector3::from(u.0)))
    }
}
impl From<Ned> for User {
    fn from(n: Ned) -> Self {
        User(ned_to_enu(&n.0).into())
    }
}
impl From<Godot> for Ned {
    fn from(g: Godot) -> Self {
        Ned::from(User::from(g))
    }
}
impl From<Ned> for Godot {
    fn from(n: Ned) -> Self {
        Godot::from(User::from(n))
    }
}
impl From<User> for RosEnu {
    fn from(u: User) -> Self {
        RosEnu(u.0)
    }
}
impl From<RosEnu> for User {
    fn from(r: RosEnu) -> Self {
        User(r.0)
    }
}
impl From<UserBody> for FossenBody {
    fn from(b: UserBody) -> Self {
        FossenBody(user_body_to_fossen(&Vector3::from(b.0)))
    }
}
impl From<FossenBody> for UserBody {
    fn from(b: FossenBody) -> Self {
        UserBody(fossen_to_user_body(&b.0).into())
    }
}

/// Body (FRD) → NED attitude, the dynamics' orientation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attitude(pub UnitQuaternion<f64>);

impl Default for Attitude {
    fn default() -> Self {
        Attitude(UnitQuaternion::identity())
    }
}

/// A Godot Euler rotation (degrees, see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GodotRotation(pub [f64; 3]);

impl From<GodotRotation> for Attitude {
    fn from(r: GodotRotation) -> Self {
        let [x, y, z] = r.0;
        let yaw = -y.to_radians();
        let pitch = x.to_radians();
        let roll = -z.to_radians();
        Attitude(UnitQuaternion::from_euler_angles(roll, pitch, yaw))
    }
}

impl From<Attitude> for GodotRotation {
    fn from(a: Attitude) -> Self {
        let (roll, pitch, yaw) = a.0.euler_angles();
        GodotRotation([pitch.to_degrees(), -yaw.to_degrees(), -roll.to_degrees()])
    }
}

impl Attitude {
    /// Rotates a body vector into NED.
    pub fn to_ned(&self, v: FossenBody) -> Ned {
        Ned(self.0 * v.0)
    }
    /// Rotates a NED vector into the body.
    pub fn to_body(&self, v: Ned) -> FossenBody {
        FossenBody(self.0.inverse_transform_vector(&v.0))
    }
    /// Compass heading (deg, [0, 360)).
    pub fn heading_deg(&self) -> f64 {
        heading_deg(&self.0)
    }
    /// `[x, y, z, w]`.
    pub fn quaternion_xyzw(&self) -> [f64; 4] {
        let q = self.0.quaternion();
        [q.i, q.j, q.k, q.w]
    }
    /// Roll, pitch, yaw (deg, Fossen ZYX; yaw unwrapped to (−180, 180]).
    pub fn euler_deg(&self) -> [f64; 3] {
        let (r, p, y) = self.0.euler_angles();
        [r.to_degrees(), p.to_degrees(), y.to_degrees()]
    }
    /// User-body → user-world rotation matrix.
    pub fn user_matrix(&self) -> Matrix3<f64> {
        user_rotation(&self.0)
    }
}

impl GodotRotation {
    /// Local → user-world rotation of an object whose local axes follow the
    /// user body convention (x right, y forward, z up), built directly from
    /// Godot's axes: R = Ry(y)·Rx(x)·Rz(z) conjugated by the axis map Godot
    /// [X, Y, Z] → user [X, −Z, Y]. The same pose as `Attitude::from`,
    /// without going through NED (the two are checked against each other).
    pub fn user_matrix(&self) -> Matrix3<f64> {
        let [x, y, z] = self.0.map(f64::to_radians);
        let r = Rotation3::from_axis_angle(&Vector3::y_axis(), y)
            * Rotation3::from_axis_angle(&Vector3::x_axis(), x)
            * Rotation3::from_axis_angle(&Vector3::z_axis(), z);
        let p = Matrix3::new(1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0);
        p * r.matrix() * p.transpose()
    }
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
    fn typed_frames_round_trip() {
        let samples = [[1.0, -2.5, 3.25], [0.0, 17.0, -6.0], [-1e3, 4e-3, 77.0]];
        for p in samples {
            let u = User(p);
            assert_eq!(User::from(Godot::from(u)), u);
            assert_eq!(User::from(Ned::from(u)), u);
            assert_eq!(User::from(RosEnu::from(u)), u);
            assert_eq!(Godot::from(Ned::from(Godot(p))), Godot(p));
            let b = UserBody(p);
            assert_eq!(UserBody::from(FossenBody::from(b)), b);
        }
        // Axes: user north is NED x and Godot -Z; up is Godot +Y and NED -z.
        assert_eq!(Ned::from(User([0.0, 1.0, 0.0])).0, Vector3::x());
        assert_eq!(Godot::from(User([0.0, 1.0, 0.0])).0, [0.0, 0.0, -1.0]);
        assert_eq!(Godot::from(User([0.0, 0.0, 1.0])).0, [0.0, 1.0, 0.0]);
        assert_eq!(
            FossenBody::from(UserBody([0.0, 1.0, 0.0])).0,
            Vector3::x(),
            "user-body forward is surge"
        );
    }

    #[test]
    fn rotations_round_trip_and_agree() {
        for r in [
            [0.0, 90.0, 0.0],
            [10.0, -30.0, 5.0],
            [-40.0, 170.0, 75.0],
            [0.0, 0.0, 0.0],
        ] {
            let a = Attitude::from(GodotRotation(r));
            let back = GodotRotation::from(a).0;
            for k in 0..3 {
                assert!((back[k] - r[k]).abs() < 1e-9, "{r:?} -> {back:?}");
            }
            let direct = GodotRotation(r).user_matrix();
            assert!((direct - a.user_matrix()).abs().max() < 1e-12, "{r:?}");
            // Body and NED vectors round trip through the attitude.
            let v = FossenBody(Vector3::new(0.3, -1.0, 2.0));
            assert!((a.to_body(a.to_ned(v)).0 - v.0).norm() < 1e-12);
        }
        // Godot yaw +90 turns the nose west; roll +30 about Godot +Z is a
        // negative Fossen roll (starboard up).
        let west = Attitude::from(GodotRotation([0.0, 90.0, 0.0]));
        assert!((west.heading_deg() - 270.0).abs() < 1e-9);
        let rolled = Attitude::from(GodotRotation([0.0, 0.0, 30.0]));
        assert!((rolled.euler_deg()[0] + 30.0).abs() < 1e-9);
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
