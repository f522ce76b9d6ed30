//! Vehicle control laws as plain data and functions: the commands a vehicle
//! can be under, the waypoint PID, and the wrench each command asks for.
//! The `vehicle_control` system applies them to every vehicle each tick.
//!
//! Frames: world forces are in the user frame (x east, y north, z up),
//! body forces in the user body convention (x starboard, y forward, z up),
//! wrenches and velocity targets in the Fossen body frame; every output is
//! a Fossen body wrench `[X, Y, Z, K, M, N]` (N, N·m), clipped to the
//! vehicle's [`CommandLimits`].

use crate::frames::{Attitude, FossenBody, Ned, User, UserBody};
use nalgebra::{Vector3, Vector6};
use oceansim_protocol::reply::ControllerState;
use oceansim_vehicles::{Actuators, CommandLimits, Drive, Vehicle, VehicleModel, VehicleState};
use serde_json::{Map, Value};

/// What drives a vehicle.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Command {
    /// Nothing: τ = 0.
    #[default]
    Idle,
    /// Force in the user/world frame (N).
    ForceWorld([f64; 3]),
    /// Force in the user body convention (N).
    ForceBody([f64; 3]),
    /// Fossen body wrench.
    Wrench([f64; 6]),
    /// Fossen body velocity target, tracked by computed torque.
    BodyVelocity([f64; 6]),
    /// Normalised thruster commands in profile order.
    Thrusters(Vec<f64>),
    /// Fin angles (rad) then propeller speeds (rpm), profile order, within
    /// the profile's limits.
    Fins(Vec<f64>),
    /// Waypoint PID on a user-frame target.
    Waypoint(WaypointTarget),
}

/// A command with the sequence number of the request that gave it, so a
/// controller knows when its memory belongs to an older command.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CommandSlot {
    /// The command.
    pub command: Command,
    /// Increases with every command the simulation accepts.
    pub seq: u64,
}

/// A waypoint PID's target and gains.
#[derive(Debug, Clone, PartialEq)]
pub struct WaypointTarget {
    /// `[world_x, world_z, depth]` as sent (Godot map plane, depth down).
    pub target_godot: [f64; 3],
    /// The target in the user frame.
    pub target_user: [f64; 3],
    /// Proportional gain (N/m).
    pub kp: f64,
    /// Integral gain (N/(m·s)).
    pub ki: f64,
    /// Derivative (velocity) gain (N·s/m).
    pub kd: f64,
    /// Per-axis output limit (N), before the vehicle's own limits.
    pub max_force_n: f64,
    /// Distance counting as arrived (m).
    pub arrival_dist_m: f64,
}

impl WaypointTarget {
    /// A target at Godot X/Z and `depth`; `controller` may set `kp`, `ki`,
    /// `kd`, `max_force_n`, `arrival_dist_m` (each a number ≥ 0).
    pub fn new(
        world_x: f64,
        world_z: f64,
        depth: f64,
        controller: Option<&Map<String, Value>>,
    ) -> Result<Self, String> {
        let get = |k: &str, d: f64| -> Result<f64, String> {
            match controller.and_then(|c| c.get(k)) {
                None => Ok(d),
                Some(v) => match v.as_f64() {
                    Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
                    _ => Err(format!("controller.{k} must be a number >= 0, got {v}")),
                },
            }
        };
        Ok(WaypointTarget {
            target_godot: [world_x, world_z, depth],
            target_user: [world_x, -world_z, -depth],
            kp: get("kp", 20.0)?,
            ki: get("ki", 1.0)?,
            kd: get("kd", 40.0)?,
            max_force_n: get("max_force_n", 60.0)?.max(1e-3),
            arrival_dist_m: get("arrival_dist_m", 1.0)?,
        })
    }
}

/// A waypoint PID's memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PidState {
    /// The command sequence number the memory belongs to.
    pub seq: u64,
    integral: [f64; 3],
    last_error: [f64; 3],
    last_output: [f64; 3],
    saturated: [bool; 3],
}

impl PidState {
    /// Fresh memory for command `seq`.
    pub fn new(seq: u64) -> Self {
        PidState {
            seq,
            ..PidState::default()
        }
    }

    /// One update: the world force (N, user frame) toward the target.
    pub fn update(
        &mut self,
        t: &WaypointTarget,
        pos_user: [f64; 3],
        vel_user: [f64; 3],
        dt: f64,
    ) -> [f64; 3] {
        let mut out = [0.0; 3];
        for k in 0..3 {
            let e = t.target_user[k] - pos_user[k];
            let raw = t.kp * e + t.ki * self.integral[k] - t.kd * vel_user[k];
            let clipped = raw.clamp(-t.max_force_n, t.max_force_n);
            self.saturated[k] = clipped != raw;
            // Anti-windup: integrate only while the output is not saturated.
            if !self.saturated[k] {
                self.integral[k] += e * dt;
            }
            self.last_error[k] = e;
            out[k] = clipped;
        }
        self.last_output = out;
        out
    }

    /// The recordable diagnostics, in the target's layout
    /// (`[world_x, world_z, depth]`).
    pub fn report(&self, t: &WaypointTarget) -> ControllerState {
        let to_target = |v: [f64; 3]| vec![v[0], -v[1], -v[2]];
        let e = self.last_error;
        ControllerState {
            mode: "waypoint_pid".into(),
            target: t.target_godot.to_vec(),
            error: to_target(e),
            integral: to_target(self.integral),
            saturation: self.saturated.to_vec(),
            output: self.last_output.to_vec(),
            arrived: (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt() <= t.arrival_dist_m,
        }
    }
}

/// Everything a control law reads of one vehicle.
#[derive(Debug, Clone, Copy)]
pub struct Plant<'a> {
    /// The vehicle's state.
    pub state: &'a VehicleState,
    /// Ocean current at the vehicle (m/s, NED).
    pub current_ned: Vector3<f64>,
    /// Its dynamics, actuators and limits.
    pub vehicle: &'a Vehicle,
}

impl Command {
    /// What this command asks of the actuators, given the wrench in the
    /// control column (the control law's, or a fleet autopilot's written
    /// over it: so `Idle` passes it on too).
    pub fn drive(&self, wrench: Vector6<f64>) -> Drive<'_> {
        match self {
            Command::Thrusters(c) => Drive::Thrusters(c),
            Command::Fins(v) => Drive::Fins(v),
            _ => Drive::Wrench(wrench),
        }
    }
}

fn force_wrench(body: FossenBody) -> Vector6<f64> {
    Vector6::new(body.0.x, body.0.y, body.0.z, 0.0, 0.0, 0.0)
}

/// The body wrench `command` asks for (zero for thrusters and fins, which
/// the actuator model turns into a wrench), clipped to the vehicle's
/// limits and to what its thrusters can produce.
pub fn control_wrench(
    command: &Command,
    pid: &mut PidState,
    p: Plant<'_>,
    dt: f64,
) -> Vector6<f64> {
    let asked = asked_wrench(command, pid, p, dt);
    p.vehicle.achievable_wrench(&asked).0
}

/// The body wrench `command` asks for, clipped to the vehicle's limits
/// but not yet to its thrusters: the first half of [`control_wrench`].
pub fn asked_wrench(command: &Command, pid: &mut PidState, p: Plant<'_>, dt: f64) -> Vector6<f64> {
    let att = Attitude(p.state.attitude);
    let tau = match command {
        Command::Idle | Command::Thrusters(_) | Command::Fins(_) => return Vector6::zeros(),
        Command::ForceWorld(f) => force_wrench(att.to_body(Ned::from(User(*f)))),
        Command::ForceBody(f) => force_wrench(FossenBody::from(UserBody(*f))),
        Command::Wrench(w) => Vector6::from_column_slice(w),
        Command::BodyVelocity(target) => {
            // Computed torque (the fleet autopilot's law): cancel C, D and
            // g, and close the gap to the target with a 0.5 s time constant.
            let accel = (Vector6::from_column_slice(target) - p.state.nu) * 2.0;
            p.vehicle
                .model
                .computed_torque(&p.state.attitude, &p.state.nu, &p.current_ned, &accel)
        }
        Command::Waypoint(t) => {
            let pos = User::from(Ned(p.state.position_ned)).0;
            let vel = User::from(Ned(p.state.velocity_ned())).0;
            let f = pid.update(t, pos, vel, dt);
            force_wrench(att.to_body(Ned::from(User(f))))
        }
    };
    let mut w = [0.0; 6];
    w.copy_from_slice(tau.as_slice());
    Vector6::from(p.vehicle.limits.clamp_wrench(w).0)
}

/// An upper estimate of λ·dt, the damping's largest rate times the tick:
/// per degree of freedom, (d_lin + 2 d_quad |ν|) / M_ii (d_quad with what
/// the hull's drag and cross-flow terms add) at the fastest
/// relative speed the limits allow (the speed a limit force or torque
/// holds against the damping, or the velocity-target limit, plus the
/// strongest current). RK4 is stable for λ·dt up to about 2.8; below 1
/// no command within the limits can make a step diverge, so steps need
/// no check.
pub fn stiffness(model: &VehicleModel, limits: &CommandLimits, dt: f64) -> f64 {
    let hull = model.hull.quadratic_equivalent(model.water_density_kg_m3);
    (0..6)
        .map(|k| {
            let (dl, dq) = (
                model.linear_damping[k],
                model.quadratic_damping[k] + hull[k],
            );
            let push = if k < 3 {
                limits.max_force_n[k]
            } else {
                limits.max_torque_n_m[k - 3]
            };
            let held = if dq > 0.0 {
                (push / dq).sqrt()
            } else if dl > 0.0 {
                push / dl
            } else {
                f64::INFINITY
            };
            let target = if k < 3 {
                limits.max_speed_m_s
            } else {
                limits.max_rate_rad_s
            };
            let current = if k < 3 {
                oceansim_scene::MAX_CURRENT_M_S
            } else {
                0.0
            };
            let v = held.max(target) + current;
            let m = model.mass[(k, k)].max(1e-12);
            (dl + 2.0 * dq * v) / m * dt
        })
        .fold(0.0, f64::max)
}

/// One tick of one vehicle: its control law, then [`Vehicle::step`]
/// (actuators, dynamics, guard). `None` when the step would not be
/// plausible (the actuators advanced, the state to be kept). The gym lanes
/// and the divergence check call it; the world runs the same two halves as
/// the `vehicle_control` and `fossen_dynamics` systems (a fleet autopilot
/// may write its wrench between them), and a test pins them equal.
pub fn vehicle_tick(
    command: &Command,
    pid: &mut PidState,
    actuators: &mut Actuators,
    p: Plant<'_>,
    dt: f64,
) -> Option<VehicleState> {
    let wrench = control_wrench(command, pid, p, dt);
    p.vehicle.step(
        p.state,
        actuators,
        command.drive(wrench),
        &p.current_ned,
        dt,
    )
}

/// Runs one vehicle's control law, actuators and dynamics alone (no
/// contacts, no other agents) for `ticks` ticks on copies, and returns the
/// first tick whose state would not be [`plausible`]. Used to refuse a
/// `step` before it changes anything.
pub fn predict_divergence(
    command: &Command,
    mut pid: PidState,
    mut actuators: Actuators,
    p: Plant<'_>,
    dt: f64,
    ticks: u64,
) -> Option<u64> {
    let mut state = *p.state;
    for k in 0..ticks {
        let plant = Plant { state: &state, ..p };
        match vehicle_tick(command, &mut pid, &mut actuators, plant, dt) {
            // Read back normalised, as the world stores and reads it.
            Some(next) => {
                state = VehicleState {
                    attitude: nalgebra::UnitQuaternion::new_normalize(next.attitude.into_inner()),
                    ..next
                }
            }
            None => return Some(k + 1),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_vehicles::VehicleProfile;

    #[test]
    fn every_command_gives_a_bounded_body_wrench_in_its_frame() {
        let profile = VehicleProfile::default_profile();
        let vehicle = Vehicle::from_profile(&profile);
        // Facing east (NED yaw 90°).
        let state = VehicleState::at_rest(Vector3::zeros(), 0.0, 0.0, std::f64::consts::FRAC_PI_2);
        let plant = Plant {
            state: &state,
            current_ned: Vector3::zeros(),
            vehicle: &vehicle,
        };
        let mut pid = PidState::new(1);
        let w = |c: Command, pid: &mut PidState| control_wrench(&c, pid, plant, 0.01);
        // World east force on an east-facing vehicle is surge.
        let t = w(Command::ForceWorld([10.0, 0.0, 0.0]), &mut pid);
        assert!((t[0] - 10.0).abs() < 1e-9 && t[1].abs() < 1e-9, "{t:?}");
        // User-body forward is surge whatever the heading.
        let t = w(Command::ForceBody([0.0, 10.0, 0.0]), &mut pid);
        assert!((t[0] - 10.0).abs() < 1e-12);
        // Up in the user body is −Z in Fossen's.
        let t = w(Command::ForceBody([0.0, 0.0, 5.0]), &mut pid);
        assert!((t[2] + 5.0).abs() < 1e-12);
        // Oversized wrenches are clipped per axis, then to what the six
        // thrusters give along the same direction: the two stern
        // thrusters make 12 N ahead at most.
        let t = w(Command::Wrench([1e9, 0.0, 0.0, 0.0, 0.0, -1e9]), &mut pid);
        assert!((t[0] - 12.0).abs() < 1e-9, "{t:?}");
        assert!(t[5] < 0.0 && t.fixed_rows::<4>(1).amax() < 1e-9, "{t:?}");
        assert_eq!(
            w(Command::Thrusters(vec![1.0; 6]), &mut pid),
            Vector6::zeros()
        );
        // The PID pushes toward a target 10 m north (Godot −Z).
        let target = WaypointTarget::new(0.0, -10.0, 0.0, None).unwrap();
        let t = w(Command::Waypoint(target.clone()), &mut pid);
        // North is the body's port side when facing east: −Y, at most the
        // 8 N of the two lateral thrusters.
        assert!(t[1] < -7.0 && t[1] >= -8.0 - 1e-9, "{t:?}");
        assert!(
            pid.report(&target).saturation[1],
            "200 N asked, 60 N allowed"
        );
    }

    #[test]
    fn stiffness_bounds_the_shipped_profiles_inside_rk4s_stable_region() {
        let at = |name: &str, dt: f64| {
            let p = VehicleProfile::builtin(name).unwrap();
            stiffness(&VehicleModel::from_profile(&p), &p.command_limits(), dt)
        };
        let _ = VehicleState::default();
        // The torpedo: far inside, so its steps need no check.
        assert!(at("oceansim_torpedo_auv", 0.01) < 1.0);
        // The light BlueROV2 sliding sideways at 10 m/s through a 5 m/s
        // current: stable (< 2.8) but checked.
        let rov = at("bluerov2_heavy", 0.01);
        assert!(rov > 1.0 && rov < 2.7, "{rov}");
        assert!(at("oceansim_torpedo_auv", 0.1) > 1.0);
        // The REMUS 100, its cross-flow and hull drag counted: inside.
        let remus = at("remus100", 0.01);
        assert!(remus > 0.1 && remus < 1.0, "{remus}");
    }

    #[test]
    fn pid_gains_are_validated() {
        let mut c = Map::new();
        c.insert("kp".into(), Value::from(-1.0));
        assert!(WaypointTarget::new(0.0, 0.0, 1.0, Some(&c)).is_err());
        c.insert("kp".into(), Value::from(5.0));
        assert_eq!(
            WaypointTarget::new(0.0, 0.0, 1.0, Some(&c)).unwrap().kp,
            5.0
        );
    }
}
