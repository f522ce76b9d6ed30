//! Action and observation bounds: what a scheme can command of the
//! batch's vehicle, and the finite range and typical scale of each
//! observation value.

use crate::task::{TaskKind, CLEARANCE_M, DEPTH_STEP_M};
use crate::{GymError, Result};
use oceansim_agents::ControlScheme;
use oceansim_sim::batch::Shared;

/// Observation bounds and scales of `kind` in the batch's scene: `D` the
/// deepest seabed, `L` the map's diagonal with `D` (m). Positions and
/// distances ±`L` (scale √(20² + (D − 6)²): the largest goal offset, 20 m
/// across and the depths between the clearances), linear velocities ±10 m/s
/// (scale 2), rates ±π rad/s (scale 1), roll ±π and pitch ±π/2 (their
/// scales), depth and altitude 0..`D` (scale `D`), DepthHold's depth error
/// ±`D` (scale [`DEPTH_STEP_M`], its largest start). The sensed tasks:
/// altitudes 0..`D` (scale 5), altitude errors ±`D` (scale 1.5), bottom
/// lock 0..1, DVL ranges 0..30 m (scale 10), specific force ±50 m/s²
/// (scale 10: gravity dominates), sines and cosines ±1, sonar ranges
/// 0..`R` (scale `R`) and intensities 0..1.
pub(crate) fn observation_bounds(
    kind: TaskKind,
    shared: &Shared,
    (beams, bins, sonar_range): (usize, usize, f64),
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    use std::f64::consts::{FRAC_PI_2, PI};
    let scene = shared.scene();
    let [x0, x1, y0, y1] = scene.bounds();
    let deep = (-scene.terrain.min_height()).max(1.0);
    let diag = ((x1 - x0).powi(2) + (y1 - y0).powi(2) + deep * deep).sqrt();
    let reach = (20.0f64.powi(2) + (deep - 2.0 * CLEARANCE_M).max(0.0).powi(2)).sqrt();
    // (low, high, scale) per value.
    let pos = (-diag, diag, reach);
    let vel = (-10.0, 10.0, 2.0);
    let rate = (-PI, PI, 1.0);
    let roll = (-PI, PI, PI);
    let pitch = (-FRAC_PI_2, FRAC_PI_2, FRAC_PI_2);
    let range = (0.0, deep, deep);
    let rows: Vec<(f64, f64, f64)> = match kind {
        TaskKind::WaypointNav => vec![
            pos,
            pos,
            pos,
            vel,
            vel,
            vel,
            rate,
            rate,
            rate,
            roll,
            pitch,
            range,
            range,
            (0.0, diag, reach),
        ],
        TaskKind::DepthHold => vec![
            (-deep, deep, DEPTH_STEP_M),
            vel,
            vel,
            pitch,
            roll,
            rate,
            rate,
            range,
        ],
        TaskKind::TerrainFollow => {
            let dvl = oceansim_sim::DVL_MAX_RANGE_M;
            let acc = (-50.0, 50.0, 10.0);
            let mut rows = vec![
                (0.0, deep, 5.0),
                (-deep, deep, DEPTH_STEP_M),
                (0.0, 1.0, 1.0),
            ];
            rows.extend([vel; 3]);
            rows.extend([(0.0, dvl, 10.0); 4]);
            rows.extend([acc; 3]);
            rows.extend([rate; 3]);
            rows.extend([roll, pitch]);
            rows
        }
        TaskKind::SonarAvoid => {
            let mut rows = vec![
                pos, pos, pos, vel, vel, vel, rate, rate, rate, roll, pitch, range,
            ];
            rows.push((0.0, diag, reach));
            rows.extend(std::iter::repeat_n((0.0, sonar_range, sonar_range), beams));
            rows.extend(std::iter::repeat_n((0.0, 1.0, 1.0), beams * bins));
            rows
        }
        TaskKind::Remus100Heading => {
            let unit = (-1.0, 1.0, 1.0);
            vec![
                (-deep, deep, 8.0),
                unit,
                unit,
                vel,
                vel,
                vel,
                rate,
                rate,
                rate,
                roll,
                pitch,
                range,
            ]
        }
    };
    let col = |f: fn(&(f64, f64, f64)) -> f64| rows.iter().map(|r| f(r) as f32).collect();
    (col(|r| r.0), col(|r| r.1), col(|r| r.2))
}

/// Action bounds of `scheme` for the batch's vehicle.
pub(crate) fn bounds(scheme: ControlScheme, shared: &Shared) -> Result<(Vec<f64>, Vec<f64>)> {
    let l = shared.limits();
    let v = shared.vehicle();
    if v.thruster_count() == 0 && scheme != ControlScheme::Fins {
        return Err(GymError::Config(format!(
            "profile `{}` has no thrusters for {}; use the fins control scheme",
            shared.profile().name,
            scheme.as_str()
        )));
    }
    // What the vehicle's thrusters (or limits) give along each body axis.
    let cap = shared.vehicle().axis_capacity();
    let sym = |v: Vec<f64>| (v.iter().map(|x| -x).collect(), v);
    Ok(match scheme {
        ControlScheme::Force3d | ControlScheme::BodyForce3d => {
            // A 3-D force points anywhere in the body: the weakest axis it
            // can push along at all.
            let f = cap[..3]
                .iter()
                .copied()
                .filter(|c| *c > 0.0)
                .fold(f64::INFINITY, f64::min);
            let f = if f.is_finite() { f } else { l.max_force_n[0] };
            sym(vec![f; 3])
        }
        ControlScheme::BodyWrench6dof => {
            // An axis the thrusters cannot drive at all (the torpedo's roll)
            // keeps the limit: whatever is asked there is dropped.
            let limit = l.max_force_n.iter().chain(&l.max_torque_n_m);
            sym(cap
                .iter()
                .zip(limit)
                .map(|(c, m)| if *c > 0.0 { *c } else { *m })
                .collect())
        }
        ControlScheme::Fins => {
            let b = shared.vehicle().fin_bounds();
            (
                b.iter().map(|x| x[0]).collect(),
                b.iter().map(|x| x[1]).collect(),
            )
        }
        ControlScheme::BodyVelocity6dof => {
            let mut v = vec![l.max_speed_m_s; 3];
            v.extend([l.max_rate_rad_s; 3]);
            sym(v)
        }
        ControlScheme::Thrusters => {
            let t = &shared.profile().thrusters;
            (
                t.iter().map(|t| t.command_bounds[0]).collect(),
                t.iter().map(|t| t.command_bounds[1]).collect(),
            )
        }
        ControlScheme::WaypointPid => {
            // [world_x, world_z, depth]: Godot X = user x, Godot Z = −user y.
            let [x0, x1, y0, y1] = shared.scene().bounds();
            let floor = -shared.scene().terrain.min_height();
            (vec![x0, -y1, 0.0], vec![x1, -y0, floor.max(1.0)])
        }
        other => {
            return Err(GymError::Config(format!(
                "control scheme {} does not drive the vehicle; use force_3d, \
                 body_force_3d, thrusters, waypoint_pid, body_wrench_6dof or body_velocity_6dof",
                other.as_str()
            )))
        }
    })
}
