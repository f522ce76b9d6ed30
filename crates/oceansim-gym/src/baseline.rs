//! Hand-written controllers for the tasks: the bar a learned policy
//! should clear, and the proof (as tests) that each task can be solved
//! from its observation alone. Each reads one lane's raw observation and
//! writes an action in the task's default scheme and units, within its
//! bounds.

use crate::sensed::wrap;
use crate::{Task, TaskKind};

/// TerrainFollow's surge speed (m/s).
pub const TERRAIN_FOLLOW_SPEED_M_S: f64 = 0.45;
/// SonarAvoid: range under which an echo steers the vehicle away (m).
pub const SONAR_SAFE_RANGE_M: f64 = 6.0;

/// The baseline action of `task` for the raw observation `obs`, in the
/// task's default scheme; `None` for a scheme the baseline does not speak.
pub fn baseline_action(task: &Task, obs: &[f32]) -> Option<Vec<f64>> {
    if task.scheme() != task.kind().default_scheme() || obs.len() != task.observation_len() {
        return None;
    }
    let o: Vec<f64> = obs.iter().map(|x| f64::from(*x)).collect();
    let a = match task.kind() {
        TaskKind::WaypointNav => {
            // body_force_3d [starboard, forward, up] (N): PD on goal − vehicle.
            let (kp, kd) = (20.0, 60.0);
            vec![
                kp * o[1] - kd * o[4],
                kp * o[0] - kd * o[3],
                -(kp * o[2] - kd * o[5]),
            ]
        }
        TaskKind::DepthHold => vec![0.0, 0.0, -(20.0 * o[0] - 60.0 * o[1])],
        TaskKind::TerrainFollow => terrain_follow(&o),
        TaskKind::SonarAvoid => sonar_avoid(&o, task.sonar().0),
        TaskKind::Remus100Heading => remus_heading(&o),
    };
    let (lo, hi) = task.action_bounds();
    Some(
        a.iter()
            .zip(lo.iter().zip(hi))
            .map(|(x, (l, h))| x.clamp(*l, *h))
            .collect(),
    )
}

/// `body_force_3d` (N): surge held at [`TERRAIN_FOLLOW_SPEED_M_S`] over
/// ground, sway damped, and a PD law on the DVL's altitude error and
/// vertical velocity; without bottom lock, level and slow.
fn terrain_follow(o: &[f64]) -> Vec<f64> {
    let (e, lock, u, v, w) = (o[1], o[2] > 0.5, o[3], o[4], o[5]);
    if !lock {
        return vec![0.0, 10.0, 0.0];
    }
    let forward = 60.0 * (TERRAIN_FOLLOW_SPEED_M_S - u) + 10.0;
    // e > 0: below the target altitude, go up; w > 0 sinks.
    vec![-40.0 * v, forward, 60.0 * e + 80.0 * w]
}

/// `body_velocity_6dof` [u, v, w, p, q, r]: turn towards the goal, away
/// from the echoes nearer than [`SONAR_SAFE_RANGE_M`] (to the side with
/// more room when one is dead ahead), slow down near them, hold the
/// goal's depth.
fn sonar_avoid(o: &[f64], beams: usize) -> Vec<f64> {
    let (x, y, z) = (o[0], o[1], o[2]);
    let ranges = &o[13..13 + beams];
    let fov = 130f64.to_radians();
    let azimuth = |i: usize| fov * ((i as f64 + 0.5) / beams as f64 - 0.5);
    let bearing = y.atan2(x);
    let safe = SONAR_SAFE_RANGE_M;
    // Nearest echo ahead (±35°) and the room on either side.
    let ahead = (0..beams)
        .filter(|&i| azimuth(i).abs() < 35f64.to_radians())
        .map(|i| ranges[i])
        .fold(f64::INFINITY, f64::min);
    let side = |port: bool| {
        let r: Vec<f64> = (0..beams)
            .filter(|&i| (azimuth(i) < 0.0) == port)
            .map(|i| ranges[i].min(safe))
            .collect();
        r.iter().sum::<f64>() / r.len().max(1) as f64
    };
    let mut turn = 0.0;
    for (i, d) in ranges.iter().enumerate() {
        let a = azimuth(i);
        if *d < safe && a.abs() < 60f64.to_radians() {
            // Push away from the echo's side, more the nearer and the more
            // ahead it is.
            let away = if a.abs() < 5f64.to_radians() {
                if side(true) > side(false) {
                    -1.0
                } else {
                    1.0
                }
            } else {
                -a.signum()
            };
            turn += away * (safe - d) / safe * a.cos();
        }
    }
    // On the scale of the default 64 beams: a boulder filling eight beams
    // at half the safe range turns at the full rate.
    turn *= 8.0 / beams as f64;
    let clear = ((ahead - 1.5) / safe).clamp(0.0, 1.0);
    let r = (0.8 * bearing * clear + turn).clamp(-0.5, 0.5);
    let u = if bearing.abs() > 1.2 && clear > 0.9 {
        0.2
    } else {
        0.2 + 0.8 * clear
    };
    vec![u, 0.0, (0.5 * z).clamp(-0.3, 0.3), 0.0, 0.0, r]
}

/// `fins` [rudder, stern plane (rad), propeller (rpm)]: full propeller; a
/// PD heading law on the rudder; depth through a pitch reference (nose
/// down to go deeper, within ±20°) held by a PD law on the stern plane.
fn remus_heading(o: &[f64]) -> Vec<f64> {
    let (dz, dpsi) = (o[0], o[1].atan2(o[2]));
    let (q, r, pitch) = (o[7], o[8], o[10]);
    let rudder = RUDDER_SIGN * (1.2 * wrap(dpsi) - 1.5 * r);
    let pitch_ref = (-0.08 * dz).clamp(-0.35, 0.35);
    let stern = STERN_SIGN * (2.0 * (pitch_ref - pitch) - 1.5 * q);
    vec![rudder, stern, 1525.0]
}

/// The rudder angle that turns the REMUS 100 to starboard (yaw rate up).
const RUDDER_SIGN: f64 = 1.0;
/// The stern-plane angle that pitches the REMUS 100's nose up.
const STERN_SIGN: f64 = -1.0;
