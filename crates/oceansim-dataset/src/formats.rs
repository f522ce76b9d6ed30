//! Trajectory formats other tools read, written from `(time, position,
//! quaternion, velocity)` rows (user frame; quaternion `[x, y, z, w]`,
//! body FLU → user frame).
//!
//! * TUM: one pose per line, `timestamp tx ty tz qx qy qz qw` separated by
//!   spaces, `#` comments; seconds, metres (the TUM RGB-D benchmark's
//!   ground-truth format, read by `evo` and most SLAM tools).
//! * EuRoC: the MAV dataset's ground-truth CSV
//!   (`state_groundtruth_estimate0/data.csv`): integer nanoseconds,
//!   position, quaternion w first, velocity, then the IMU's gyro and
//!   accelerometer biases in the body frame S (FLU here); zeros for an
//!   agent whose biases are not known.

use crate::TrajectoryPoint;
use std::io::Write;

/// The TUM header.
pub const TUM_HEADER: &str = "# timestamp tx ty tz qx qy qz qw";
/// The EuRoC header.
pub const EUROC_HEADER: &str = "#timestamp [ns],p_RS_R_x [m],p_RS_R_y [m],p_RS_R_z [m],q_RS_w [],q_RS_x [],q_RS_y [],q_RS_z [],v_RS_R_x [m s^-1],v_RS_R_y [m s^-1],v_RS_R_z [m s^-1],b_w_RS_S_x [rad s^-1],b_w_RS_S_y [rad s^-1],b_w_RS_S_z [rad s^-1],b_a_RS_S_x [m s^-2],b_a_RS_S_y [m s^-2],b_a_RS_S_z [m s^-2]";

/// Writes `points` as a TUM trajectory.
pub fn write_tum(
    w: &mut impl Write,
    points: impl IntoIterator<Item = TrajectoryPoint>,
) -> std::io::Result<()> {
    writeln!(w, "{TUM_HEADER}")?;
    for p in points {
        write_tum_row(w, &p)?;
    }
    Ok(())
}

/// Writes one TUM row (after [`TUM_HEADER`]), for writers that stream.
pub fn write_tum_row(w: &mut impl Write, p: &TrajectoryPoint) -> std::io::Result<()> {
    let [x, y, z] = p.position;
    let [qx, qy, qz, qw] = p.quaternion_xyzw;
    writeln!(w, "{} {x} {y} {z} {qx} {qy} {qz} {qw}", p.time)
}

/// Writes `points` as EuRoC ground truth.
pub fn write_euroc(
    w: &mut impl Write,
    points: impl IntoIterator<Item = TrajectoryPoint>,
) -> std::io::Result<()> {
    writeln!(w, "{EUROC_HEADER}")?;
    for p in points {
        write_euroc_row(w, &p)?;
    }
    Ok(())
}

/// Writes one EuRoC row (after [`EUROC_HEADER`]), for writers that stream.
pub fn write_euroc_row(w: &mut impl Write, p: &TrajectoryPoint) -> std::io::Result<()> {
    // Frames fall on whole ticks; rounding removes the float residue.
    let ns = (p.time * 1e9).round() as i64;
    let [x, y, z] = p.position;
    let [qx, qy, qz, qw] = p.quaternion_xyzw;
    let [vx, vy, vz] = p.velocity;
    let b = p.imu_bias.unwrap_or(crate::ImuBias {
        gyro_rad_s: [0.0; 3],
        accel_m_s2: [0.0; 3],
    });
    let ([wx, wy, wz], [ax, ay, az]) = (b.gyro_rad_s, b.accel_m_s2);
    writeln!(
        w,
        "{ns},{x},{y},{z},{qw},{qx},{qy},{qz},{vx},{vy},{vz},{wx},{wy},{wz},{ax},{ay},{az}"
    )
}
