//! The main AUV: a Fossen vehicle as an entity of an ECS world, ticked by a
//! control system (command → body wrench τ) and a dynamics system (RK4).

use crate::frames::{enu_to_ned, user_to_ned};
use nalgebra::{UnitQuaternion, Vector3, Vector6};
use oceansim_agents::ControllerState;
use oceansim_ecs::{Access, Engine, Handle, Step, System, World};
use oceansim_vehicles::frames::user_body_to_fossen;
use oceansim_vehicles::{ThrusterBank, VehicleModel, VehicleProfile, VehicleState};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// What drives the AUV.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Nothing: τ = 0.
    Idle,
    /// Force in the user/world frame (N): x east, y north, z up.
    ForceWorld([f64; 3]),
    /// Force in the AUV body frame, user convention (x starboard, y forward, z up), N.
    ForceBody([f64; 3]),
    /// Fossen body wrench [X, Y, Z, K, M, N].
    Wrench([f64; 6]),
    /// Fossen body velocity target [u, v, w, p, q, r], tracked by computed torque.
    BodyVelocity([f64; 6]),
    /// Normalised thruster commands in profile order.
    Thrusters(Vec<f64>),
    /// Waypoint PID on a user-frame target.
    Waypoint(WaypointPid),
}

/// A PID on position error in the user frame, producing a world force.
#[derive(Debug, Clone, PartialEq)]
pub struct WaypointPid {
    /// Target [world_x, world_z, depth] as sent (Godot map plane, depth down).
    pub target_godot: [f64; 3],
    /// Target in the user frame.
    pub target_user: [f64; 3],
    /// Gains.
    pub kp: f64,
    /// Integral gain.
    pub ki: f64,
    /// Derivative (velocity) gain.
    pub kd: f64,
    /// Per-axis force limit (N).
    pub max_force_n: f64,
    /// Distance counting as arrived (m).
    pub arrival_dist_m: f64,
    integral: [f64; 3],
    last_error: [f64; 3],
    last_output: [f64; 3],
    saturated: [bool; 3],
}

impl WaypointPid {
    /// A controller for a Godot X/Z + depth target; `controller` may set
    /// `kp`, `ki`, `kd`, `max_force_n`, `arrival_dist_m`.
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
        Ok(WaypointPid {
            target_godot: [world_x, world_z, depth],
            target_user: [world_x, -world_z, -depth],
            kp: get("kp", 20.0)?,
            ki: get("ki", 1.0)?,
            kd: get("kd", 40.0)?,
            max_force_n: get("max_force_n", 60.0)?.max(1e-3),
            arrival_dist_m: get("arrival_dist_m", 1.0)?,
            integral: [0.0; 3],
            last_error: [0.0; 3],
            last_output: [0.0; 3],
            saturated: [false; 3],
        })
    }

    fn update(&mut self, pos_user: [f64; 3], vel_user: [f64; 3], dt: f64) -> [f64; 3] {
        let mut out = [0.0; 3];
        for k in 0..3 {
            let e = self.target_user[k] - pos_user[k];
            let raw = self.kp * e + self.ki * self.integral[k] - self.kd * vel_user[k];
            let clipped = raw.clamp(-self.max_force_n, self.max_force_n);
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

    /// The recordable controller diagnostics, in the target's layout
    /// ([world_x, world_z, depth]).
    pub fn state(&self) -> ControllerState {
        let to_target = |v: [f64; 3]| vec![v[0], -v[1], -v[2]];
        let e = self.last_error;
        ControllerState {
            mode: "waypoint_pid".into(),
            target: self.target_godot.to_vec(),
            error: to_target(e),
            integral: to_target(self.integral),
            saturation: self.saturated.to_vec(),
            output: self.last_output.to_vec(),
            arrived: (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt() <= self.arrival_dist_m,
        }
    }
}

/// Everything the control system needs, shared with the simulation.
#[derive(Debug)]
pub struct ControlState {
    /// Active command.
    pub command: Command,
    /// Dynamics model (for computed torque and reports).
    pub model: VehicleModel,
    /// Thrusters and the actuator model.
    pub bank: ThrusterBank,
    /// The wrench of the last tick (N, N·m).
    pub tau: Vector6<f64>,
    /// Ocean current, NED (m/s).
    pub current_ned: Vector3<f64>,
}

struct Handles {
    p: Handle<f64>,
    q: Handle<f64>,
    nu: Handle<f64>,
    tau: Handle<f64>,
}

fn state_of(w: &World, h: &Handles, i: usize) -> VehicleState {
    let (p, q, nu) = (w.read(h.p), w.read(h.q), w.read(h.nu));
    VehicleState {
        position_ned: Vector3::new(p[3 * i], p[3 * i + 1], p[3 * i + 2]),
        attitude: UnitQuaternion::new_normalize(nalgebra::Quaternion::new(
            q[4 * i],
            q[4 * i + 1],
            q[4 * i + 2],
            q[4 * i + 3],
        )),
        nu: Vector6::from_column_slice(&nu[6 * i..6 * i + 6]),
    }
}

fn handles(w: &World) -> oceansim_ecs::Result<Handles> {
    Ok(Handles {
        p: w.handle("position_ned")?,
        q: w.handle("attitude")?,
        nu: w.handle("nu")?,
        tau: w.handle("tau")?,
    })
}

/// Control system: command → τ for entity 0.
struct AuvControl {
    ctl: Rc<RefCell<ControlState>>,
    h: Option<Handles>,
}

impl System for AuvControl {
    fn name(&self) -> &str {
        "auv_control"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads(["position_ned", "attitude", "nu"])
            .write("tau")
    }
    fn init(&mut self, w: &World) -> oceansim_ecs::Result<()> {
        self.h = Some(handles(w)?);
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let Some(h) = &self.h else { return };
        let s = state_of(w, h, 0);
        let mut c = self.ctl.borrow_mut();
        let c = &mut *c;
        let r_t = |f: Vector3<f64>| s.attitude.inverse_transform_vector(&f);
        let tau = match &mut c.command {
            Command::Idle => Vector6::zeros(),
            Command::ForceWorld(f) => {
                let b = r_t(enu_to_ned(&Vector3::from(*f)));
                Vector6::new(b.x, b.y, b.z, 0.0, 0.0, 0.0)
            }
            Command::ForceBody(f) => {
                let b = user_body_to_fossen(&Vector3::from(*f));
                Vector6::new(b.x, b.y, b.z, 0.0, 0.0, 0.0)
            }
            Command::Wrench(wr) => Vector6::from_column_slice(wr),
            Command::BodyVelocity(target) => {
                // Computed torque: cancel C, D and g, and close the gap to the
                // target with a 0.5 s time constant.
                let nu_c = s.attitude.inverse_transform_vector(&c.current_ned);
                let nu_r = s.nu - Vector6::new(nu_c.x, nu_c.y, nu_c.z, 0.0, 0.0, 0.0);
                let accel = (Vector6::from_column_slice(target) - s.nu) * 2.0;
                c.model.mass * accel
                    + c.model.coriolis_force_torque(&nu_r)
                    + c.model.damping_force_torque(&nu_r)
                    + c.model.restoring_force_torque(&s.attitude)
            }
            Command::Thrusters(cmd) => {
                let _ = c.bank.set_commands(cmd);
                c.bank.step(step.dt)
            }
            Command::Waypoint(pid) => {
                let pos = crate::frames::ned_to_user(&s.position_ned);
                let vel = crate::frames::ned_to_user(&s.velocity_ned());
                let f = pid.update(pos, vel, step.dt);
                let b = r_t(user_to_ned(f));
                Vector6::new(b.x, b.y, b.z, 0.0, 0.0, 0.0)
            }
        };
        if !matches!(c.command, Command::Thrusters(_)) {
            // Keep the actuator memory moving toward rest when unused.
            let _ = c.bank.set_commands(&vec![0.0; c.bank.len()]);
            c.bank.step(step.dt);
        }
        c.tau = tau;
        w.write(h.tau).copy_from_slice(tau.as_slice());
    }
}

/// Dynamics system: one RK4 step of every Fossen entity.
struct FossenRk4 {
    ctl: Rc<RefCell<ControlState>>,
    h: Option<Handles>,
}

impl System for FossenRk4 {
    fn name(&self) -> &str {
        "fossen_rk4"
    }
    fn access(&self) -> Access {
        Access::new()
            .read("tau")
            .writes(["position_ned", "attitude", "nu"])
    }
    fn init(&mut self, w: &World) -> oceansim_ecs::Result<()> {
        self.h = Some(handles(w)?);
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let Some(h) = &self.h else { return };
        let c = self.ctl.borrow();
        for i in 0..w.len() {
            let s = state_of(w, h, i);
            let tau = Vector6::from_column_slice(&w.read(h.tau)[6 * i..6 * i + 6]);
            let next = c.model.rk4_step(&s, &tau, &c.current_ned, step.dt);
            w.write(h.p)[3 * i..3 * i + 3].copy_from_slice(next.position_ned.as_slice());
            let q = next.attitude.quaternion();
            w.write(h.q)[4 * i..4 * i + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
            w.write(h.nu)[6 * i..6 * i + 6].copy_from_slice(next.nu.as_slice());
        }
    }
}

/// The main AUV's world, engine and shared control state.
pub struct Auv {
    world: World,
    engine: Engine,
    /// Shared control state.
    pub control: Rc<RefCell<ControlState>>,
    /// Its vehicle profile.
    pub profile: VehicleProfile,
    h: Handles,
}

impl std::fmt::Debug for Auv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auv")
            .field("profile", &self.profile.name)
            .finish()
    }
}

impl Auv {
    /// An AUV of `profile` at rest in `state`, ticking at `dt`.
    pub fn new(
        profile: VehicleProfile,
        state: VehicleState,
        dt: f64,
    ) -> Result<Self, oceansim_ecs::EcsError> {
        let model = VehicleModel::from_profile(&profile);
        let bank = ThrusterBank::from_profile(&profile);
        let control = Rc::new(RefCell::new(ControlState {
            command: Command::Idle,
            model,
            bank,
            tau: Vector6::zeros(),
            current_ned: Vector3::zeros(),
        }));
        let mut world = World::new(1);
        // The pose is advanced by the RK4 system itself (loop-carried state).
        world.add_self_integrated_state(
            "position_ned",
            &[3],
            Some(state.position_ned.as_slice()),
        )?;
        let q = state.attitude.quaternion();
        world.add_self_integrated_state("attitude", &[4], Some(&[q.w, q.i, q.j, q.k]))?;
        world.add_self_integrated_state("nu", &[6], Some(state.nu.as_slice()))?;
        world.add("tau", &[6], None)?;
        world.add_system(AuvControl {
            ctl: control.clone(),
            h: None,
        })?;
        world.add_system(FossenRk4 {
            ctl: control.clone(),
            h: None,
        })?;
        let h = handles(&world)?;
        let mut engine = Engine::new(dt);
        engine.run(&mut world, 0)?;
        Ok(Auv {
            world,
            engine,
            control,
            profile,
            h,
        })
    }

    /// Advances `ticks` physics ticks.
    pub fn tick(&mut self, ticks: u64) {
        if ticks > 0 {
            // The world was validated when built; a failure here is a bug.
            if let Err(e) = self.engine.run(&mut self.world, ticks) {
                tracing::error!("AUV tick failed: {e}");
            }
        }
    }

    /// The current state.
    pub fn state(&self) -> VehicleState {
        state_of(&self.world, &self.h, 0)
    }

    /// Teleports the AUV, at rest.
    pub fn set_state(&mut self, s: &VehicleState) {
        self.world
            .write(self.h.p)
            .copy_from_slice(s.position_ned.as_slice());
        let q = s.attitude.quaternion();
        self.world
            .write(self.h.q)
            .copy_from_slice(&[q.w, q.i, q.j, q.k]);
        self.world.write(self.h.nu).copy_from_slice(s.nu.as_slice());
    }
}
