//! The frame tree every export writes: one world frame, each agent's base
//! link, each sensor on its base link and each camera's optical frame.
//!
//! | frame | axes | parent |
//! |---|---|---|
//! | `world` | x east, y north, z up (REP 103's ENU) | — |
//! | `<agent>/base_link` | body FLU: x forward, y left, z up | `world`, per frame (`/tf`) |
//! | `<agent>/<sensor>` | the sensor's own FLU axes | its base link, fixed (`/tf_static`) |
//! | `<agent>/<sensor>_optical` | cameras only: z along the optical axis, x right, y down | its sensor frame, fixed |
//!
//! Vehicle profiles give mounts in Fossen's body frame (FRD: x forward, y
//! starboard, z down); with `F = diag(1, −1, −1)` a mount at `t` turned by
//! `R` (sensor FRD → body FRD) is the transform `F t`, `F R F` between the
//! FLU frames.

use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};

/// The world frame's one name, in every file an export writes.
pub const WORLD_FRAME: &str = "world";

/// A sensor's place on its agent.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorFrame {
    /// Agent name.
    pub agent: String,
    /// Sensor name (unique per agent).
    pub sensor: String,
    /// Sensor family (`camera`, `lidar_3d`, ...).
    pub family: &'static str,
    /// Position of the sensor frame in the base link (m, FLU).
    pub translation_m: [f64; 3],
    /// Rotation sensor FLU → base link FLU `[x, y, z, w]`.
    pub rotation_xyzw: [f64; 4],
    /// Whether it images through a pinhole (camera, RGB-D): it then has an
    /// optical frame.
    pub optical: bool,
}

/// `diag(1, −1, −1)`: FRD ↔ FLU (its own inverse).
fn flip() -> Matrix3<f64> {
    Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, -1.0))
}

impl SensorFrame {
    /// The frame of sensor `sensor` of `family` on `agent`, mounted at
    /// `xyz_frd` (m) turned by `rot_frd` (sensor FRD → body FRD).
    pub fn from_mount(
        agent: &str,
        sensor: &str,
        family: &'static str,
        xyz_frd: Vector3<f64>,
        rot_frd: Rotation3<f64>,
    ) -> Self {
        let f = flip();
        let t = f * xyz_frd;
        let r = Rotation3::from_matrix_unchecked(f * rot_frd.matrix() * f);
        let q = UnitQuaternion::from_rotation_matrix(&r);
        SensorFrame {
            agent: agent.to_owned(),
            sensor: sensor.to_owned(),
            family,
            translation_m: [t.x, t.y, t.z],
            rotation_xyzw: [q.i, q.j, q.k, q.w],
            optical: matches!(family, "camera" | "rgbd_dense_cloud"),
        }
    }

    /// `<agent>/base_link`.
    pub fn parent_id(&self) -> String {
        base_link(&self.agent)
    }

    /// `<agent>/<sensor>`: what the sensor's payloads name
    /// `sensor_frame_id`.
    pub fn frame_id(&self) -> String {
        format!("{}/{}", self.agent, self.sensor)
    }

    /// `<agent>/<sensor>_optical`.
    pub fn optical_id(&self) -> String {
        format!("{}/{}_optical", self.agent, self.sensor)
    }
}

/// A fixed edge of the tree: `(parent, child, translation (m), rotation
/// child → parent [x, y, z, w])`.
pub type StaticEdge = (String, String, [f64; 3], [f64; 4]);

/// What `/tf_static` carries, in both files that have one: each sensor on
/// its base link, then (cameras) its optical frame on it.
pub fn static_edges(frames: &[SensorFrame]) -> Vec<StaticEdge> {
    let mut edges = Vec::new();
    for f in frames {
        edges.push((
            f.parent_id(),
            f.frame_id(),
            f.translation_m,
            f.rotation_xyzw,
        ));
        if f.optical {
            edges.push((
                f.frame_id(),
                f.optical_id(),
                [0.0; 3],
                optical_rotation_xyzw(),
            ));
        }
    }
    edges
}

/// `<agent>/base_link`.
pub fn base_link(agent: &str) -> String {
    format!("{agent}/base_link")
}

/// Rotation optical → sensor FLU `[x, y, z, w]`: the optical axes (x right,
/// y down, z forward) are, in FLU, −y, −z and +x.
pub fn optical_rotation_xyzw() -> [f64; 4] {
    let m = Matrix3::from_columns(&[
        Vector3::new(0.0, -1.0, 0.0),
        Vector3::new(0.0, 0.0, -1.0),
        Vector3::new(1.0, 0.0, 0.0),
    ]);
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(m));
    [q.i, q.j, q.k, q.w]
}

/// A vector in a sensor's FRD axes (as readings give them) in its FLU axes.
#[cfg(test)]
fn frd_to_flu(v: [f64; 3]) -> [f64; 3] {
    [v[0], -v[1], -v[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rot(q: [f64; 4]) -> UnitQuaternion<f64> {
        UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[0], q[1], q[2]))
    }

    #[test]
    fn the_optical_frame_looks_along_the_sensors_forward_axis() {
        let q = rot(optical_rotation_xyzw());
        // Optical z (forward), x (right), y (down) in sensor FLU.
        assert!((q * Vector3::z() - Vector3::x()).norm() < 1e-12);
        assert!((q * Vector3::x() + Vector3::y()).norm() < 1e-12);
        assert!((q * Vector3::y() + Vector3::z()).norm() < 1e-12);
        // ROS's camera optical convention, up to the quaternion's sign.
        let q = optical_rotation_xyzw();
        let s = q[3].signum();
        let want = [-0.5, 0.5, -0.5, 0.5];
        assert!(
            q.iter().zip(want).all(|(a, b)| (s * a - b).abs() < 1e-12),
            "{q:?}"
        );
    }

    #[test]
    fn a_mount_in_frd_becomes_the_same_mount_in_flu() {
        // 0.4 m forward, 0.1 m to starboard, 0.2 m down, pitched 30° down
        // (FRD pitch is nose-up positive: −30°... here +30° about FRD y).
        let r = Rotation3::from_euler_angles(0.0, 30f64.to_radians(), 0.0);
        let f = SensorFrame::from_mount("auv", "cam", "camera", Vector3::new(0.4, 0.1, 0.2), r);
        assert_eq!(f.translation_m, [0.4, -0.1, -0.2]);
        // The sensor's forward axis, in body FRD and then in FLU, agree.
        let fwd_frd = r * Vector3::x();
        let fwd_flu = rot(f.rotation_xyzw) * Vector3::x();
        let back = frd_to_flu([fwd_frd.x, fwd_frd.y, fwd_frd.z]);
        assert!((fwd_flu - Vector3::from(back)).norm() < 1e-12);
        assert!(f.optical);
        assert_eq!(f.optical_id(), "auv/cam_optical");
        assert_eq!(f.parent_id(), "auv/base_link");
    }
}
