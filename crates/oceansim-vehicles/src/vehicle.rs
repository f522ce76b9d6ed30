//! The vehicle step: the one function every path that moves a vehicle
//! calls (the simulator's systems, the gym lanes, the divergence check and
//! the swarm fleets).
//!
//! One [`Vehicle::step`] of `dt` seconds:
//!
//! 1. **command → actuators**: a [`Drive`] sets the thruster, fin and
//!    propeller commands (anything else returns them to rest);
//! 2. **thrusters** run their actuator model (bounds, deadband, rate
//!    limit, failures) into a wrench held over the step;
//! 3. **forces at every stage**: the integrator evaluates the propellers'
//!    thrust (on the advance speed), the fins' lift (on the flow), the hull
//!    terms, C, D, g and the current from each stage's own velocity, with
//!    the fin angles and shaft speeds at the start of the step;
//! 4. **integration** by the profile's [`Integrator`] (RK4 or Fossen's
//!    semi-implicit Euler);
//! 5. **actuator lag**: fin angles and shaft speeds move toward their
//!    commands, δ ← δ + dt (δ_c − δ)/T (forward Euler, Fossen's; the step
//!    never overshoots the command);
//! 6. **the plausibility guard**: a result that is not finite, or faster
//!    than any vehicle moves ([`plausible`]), is not taken.

use crate::actuator::ThrusterBank;
use crate::appendages::{Fin, Propeller};
use crate::model::{VehicleModel, VehicleState};
use crate::profile::{CommandLimits, Integrator, VehicleProfile};
use nalgebra::{DMatrix, Vector3, Vector6};

/// Fastest body speed a step may produce (m/s). No underwater vehicle
/// comes near it; only a diverging integration does.
pub const MAX_PLAUSIBLE_SPEED_M_S: f64 = 100.0;
/// Fastest body rate a step may produce (rad/s).
pub const MAX_PLAUSIBLE_RATE_RAD_S: f64 = 100.0;

/// Whether a state is one the dynamics can have produced: finite, and
/// within [`MAX_PLAUSIBLE_SPEED_M_S`] and [`MAX_PLAUSIBLE_RATE_RAD_S`].
pub fn plausible(s: &VehicleState) -> bool {
    let finite = s.position_ned.iter().all(|x| x.is_finite())
        && s.nu.iter().all(|x| x.is_finite())
        && s.attitude.coords.iter().all(|x| x.is_finite());
    finite
        && s.nu.fixed_rows::<3>(0).norm() <= MAX_PLAUSIBLE_SPEED_M_S
        && s.nu.fixed_rows::<3>(3).norm() <= MAX_PLAUSIBLE_RATE_RAD_S
}

/// What drives a vehicle's actuators for one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drive<'a> {
    /// Nothing: actuators return to rest.
    Idle,
    /// A body wrench `[X, Y, Z, K, M, N]` (N, N·m) applied as it is (a
    /// force-level command, already within what the vehicle can produce);
    /// actuators return to rest.
    Wrench(Vector6<f64>),
    /// Normalised thruster commands in profile order.
    Thrusters(&'a [f64]),
    /// Fin angles (rad) in profile order, then propeller speeds (rpm),
    /// within [`Vehicle::fin_bounds`].
    Fins(&'a [f64]),
}

/// Everything of a vehicle that does not change as it moves: its
/// dynamics, its fins and propellers, its thrusters' layout, its limits
/// and its integrator. Build once per profile, share between vehicles.
#[derive(Debug, Clone)]
pub struct Vehicle {
    /// The rigid-body and hydrodynamic model.
    pub model: VehicleModel,
    /// Control surfaces, in `fins` order.
    pub fins: Vec<Fin>,
    /// Propellers, after the fins in `fins` order.
    pub propellers: Vec<Propeller>,
    /// Where motion commands saturate.
    pub limits: CommandLimits,
    /// The integration scheme.
    pub integrator: Integrator,
    thrusters: ThrusterBank,
    /// [`Self::fin_bounds`], from the profile.
    fin_bounds: Vec<[f64; 2]>,
    /// Pseudo-inverse of the thruster allocation (thrusters × 6), for
    /// wrench saturation; empty without thrusters.
    allocation_pinv: Vec<[f64; 6]>,
}

/// The changing state of a vehicle's actuators: its thruster bank, fin
/// angles (rad) and shaft speeds (rpm), with their commands.
#[derive(Debug, Clone, PartialEq)]
pub struct Actuators {
    /// Thrusters with their dynamic state.
    pub thrusters: ThrusterBank,
    /// Fin angles (rad), profile order.
    pub fin_angles_rad: Vec<f64>,
    /// Shaft speeds (rpm), profile order.
    pub propeller_rpm: Vec<f64>,
    /// Commanded fin angles (rad).
    pub fin_commands_rad: Vec<f64>,
    /// Commanded shaft speeds (rpm).
    pub propeller_commands_rpm: Vec<f64>,
    /// The wrench every actuator together put on the hull at the start of
    /// the last step (N, N·m, body): thrusters or the force-level wrench,
    /// plus propellers and fins in the flow of that moment.
    pub wrench: Vector6<f64>,
}

impl Actuators {
    /// Every actuator at rest.
    pub fn reset(&mut self) {
        self.thrusters.reset();
        for v in [
            &mut self.fin_angles_rad,
            &mut self.propeller_rpm,
            &mut self.fin_commands_rad,
            &mut self.propeller_commands_rpm,
        ] {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
        self.wrench = Vector6::zeros();
    }

    /// Fin angles then shaft speeds, the layout of a `fins` command.
    pub fn fin_state(&self) -> Vec<f64> {
        self.fin_angles_rad
            .iter()
            .chain(&self.propeller_rpm)
            .copied()
            .collect()
    }
}

impl Vehicle {
    /// The vehicle of a validated profile.
    pub fn from_profile(p: &VehicleProfile) -> Self {
        Self::with_model(p, VehicleModel::from_profile(p))
    }

    /// A profile's actuators and limits around a given model.
    pub fn with_model(p: &VehicleProfile, model: VehicleModel) -> Self {
        let thrusters = ThrusterBank::from_profile(p);
        let allocation_pinv = pseudo_inverse(thrusters.allocation_columns());
        Vehicle {
            model,
            fins: p.control_surfaces.iter().map(Fin::new).collect(),
            propellers: p.propellers.iter().map(Propeller::new).collect(),
            limits: p.command_limits(),
            integrator: p.integrator,
            fin_bounds: crate::appendages::fin_bounds(&p.control_surfaces, &p.propellers),
            thrusters,
            allocation_pinv,
        }
    }

    /// Actuators at rest.
    pub fn actuators(&self) -> Actuators {
        let mut thrusters = self.thrusters.clone();
        thrusters.reset();
        Actuators {
            thrusters,
            fin_angles_rad: vec![0.0; self.fins.len()],
            propeller_rpm: vec![0.0; self.propellers.len()],
            fin_commands_rad: vec![0.0; self.fins.len()],
            propeller_commands_rpm: vec![0.0; self.propellers.len()],
            wrench: Vector6::zeros(),
        }
    }

    /// Number of thrusters.
    pub fn thruster_count(&self) -> usize {
        self.thrusters.len()
    }

    /// Length of a `fins` command: control surfaces plus propellers.
    pub fn fin_count(&self) -> usize {
        self.fins.len() + self.propellers.len()
    }

    /// Names of the `fins` command's values, profile order.
    pub fn fin_names(&self) -> Vec<String> {
        self.fins
            .iter()
            .map(|f| f.profile.name.clone())
            .chain(self.propellers.iter().map(|p| p.profile.name.clone()))
            .collect()
    }

    /// Bounds `[low, high]` of each `fins` value: ±max angle (rad) per
    /// surface, then the shaft speed range (rpm) per propeller.
    pub fn fin_bounds(&self) -> &[[f64; 2]] {
        &self.fin_bounds
    }

    /// Clips a `fins` command to [`Self::fin_bounds`]; returns it and
    /// whether anything was clipped. `None` when the length is wrong or a
    /// value is not finite.
    pub fn clamp_fins(&self, values: &[f64]) -> Option<(Vec<f64>, bool)> {
        if values.len() != self.fin_count() || values.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let out: Vec<f64> = values
            .iter()
            .zip(self.fin_bounds.iter())
            .map(|(x, &[lo, hi])| x.clamp(lo, hi))
            .collect();
        let clipped = out != values;
        Some((out, clipped))
    }

    /// The part of `tau` the thrusters can produce: the least-squares
    /// allocation u = B⁺ τ, each thruster's share clipped to its thrust
    /// (as the thrusters themselves saturate when driven by that
    /// allocation), mapped back to B u. A thruster that saturates takes
    /// from the axes it serves only: the torpedo's depth hold keeps its
    /// vertical thrusters while its stern pair is at full ahead. Returns it
    /// and whether it was reduced (by more than 1e-9 relative; otherwise
    /// `tau` itself is returned). Without thrusters `tau` is returned as it
    /// is; a non-finite `tau` gives zero.
    pub fn achievable_wrench(&self, tau: &Vector6<f64>) -> (Vector6<f64>, bool) {
        if !tau.iter().all(|x| x.is_finite()) {
            return (Vector6::zeros(), true);
        }
        let n = self.allocation_pinv.len();
        if n == 0 || n > crate::profile::MAX_THRUSTERS {
            return (*tau, false);
        }
        let mut u = [0.0; crate::profile::MAX_THRUSTERS];
        for (ui, row) in u.iter_mut().zip(&self.allocation_pinv) {
            *ui = (0..6).map(|k| row[k] * tau[k]).sum();
        }
        // Roundoff in B⁺τ (about 1e-16 of the largest share) is not a
        // demand: a forward-only thruster must not cut the wrench for it.
        let tiny = 1e-12 * u[..n].iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        for (ui, t) in u.iter_mut().zip(self.thrusters.thrusters()) {
            if ui.abs() <= tiny {
                *ui = 0.0;
                continue;
            }
            let [lo, hi] = t.command_bounds;
            let (low, high) = (
                lo.min(0.0) * t.max_reverse_thrust_n,
                hi.max(0.0) * t.max_thrust_n,
            );
            *ui = ui.clamp(low, high);
        }
        let mut out = Vector6::zeros();
        for (i, col) in self.thrusters.allocation_columns().iter().enumerate() {
            out += col * u[i];
        }
        // Within roundoff of the request: keep it exactly, so an achievable
        // wrench passes unchanged.
        if (out - tau).norm() > 1e-9 * tau.norm().max(1e-12) {
            (out, true)
        } else {
            (*tau, false)
        }
    }

    /// Per body axis `[X, Y, Z, K, M, N]`, the largest force (N) or
    /// torque (N·m) the vehicle can hold along that axis alone in both
    /// directions: the thrusters' allocation where it has thrusters, then
    /// the command limits. What a force-level command can get.
    pub fn axis_capacity(&self) -> [f64; 6] {
        let l = &self.limits;
        let limit = |k: usize| {
            if k < 3 {
                l.max_force_n[k]
            } else {
                l.max_torque_n_m[k - 3]
            }
        };
        std::array::from_fn(|k| {
            let cap = limit(k);
            if self.allocation_pinv.is_empty() {
                return cap;
            }
            let along = |sign: f64| {
                let mut e = Vector6::zeros();
                e[k] = sign * cap;
                (self.achievable_wrench(&e).0[k] * sign).max(0.0)
            };
            along(1.0).min(along(-1.0))
        })
    }

    /// One step of `dt` seconds: `drive` through the actuators, the
    /// dynamics with the forces evaluated at every stage, the integrator,
    /// the actuator lag and the guard. Returns the new state, or `None`
    /// (the actuators advanced, the state to be kept) when it would not be
    /// [`plausible`]. `current_ned` is the water's velocity (m/s, NED).
    /// Allocation-free.
    pub fn step(
        &self,
        s: &VehicleState,
        act: &mut Actuators,
        drive: Drive<'_>,
        current_ned: &Vector3<f64>,
        dt: f64,
    ) -> Option<VehicleState> {
        let nf = self.fins.len();
        let fixed = match drive {
            Drive::Thrusters(cmd) => {
                // Lengths were checked when the command came.
                let _ = act.thrusters.set_commands(cmd);
                act.thrusters.step(dt)
            }
            other => {
                if !act.thrusters.at_rest() {
                    act.thrusters.rest();
                    act.thrusters.step(dt);
                }
                match other {
                    Drive::Wrench(w) => w,
                    _ => Vector6::zeros(),
                }
            }
        };
        match drive {
            Drive::Fins(v)
                if v.len() == self.fin_count()
                    && act.fin_commands_rad.len() == nf
                    && act.propeller_commands_rpm.len() + nf == v.len() =>
            {
                act.fin_commands_rad.copy_from_slice(&v[..nf]);
                act.propeller_commands_rpm.copy_from_slice(&v[nf..]);
            }
            _ => {
                act.fin_commands_rad.iter_mut().for_each(|x| *x = 0.0);
                act.propeller_commands_rpm.iter_mut().for_each(|x| *x = 0.0);
            }
        }
        let (fins, props) = (&act.fin_angles_rad, &act.propeller_rpm);
        act.wrench = if fins.is_empty() && props.is_empty() {
            fixed
        } else {
            let (vc, _) = self.model.current_in_body(
                &s.attitude,
                &s.nu.fixed_rows::<3>(3).into_owned(),
                current_ned,
            );
            self.actuator_wrench(fixed, fins, props, &s.nu, &(s.nu - vc))
        };
        let next = self.advance(s, fixed, fins, props, current_ned, dt);
        // (zip: actuators of another vehicle are not indexed past their end)
        for ((x, c), f) in act
            .fin_angles_rad
            .iter_mut()
            .zip(&act.fin_commands_rad)
            .zip(&self.fins)
        {
            *x = lag(*x, *c, f.profile.time_constant_s, dt);
        }
        for ((x, c), p) in act
            .propeller_rpm
            .iter_mut()
            .zip(&act.propeller_commands_rpm)
            .zip(&self.propellers)
        {
            *x = lag(*x, *c, p.profile.time_constant_s, dt);
        }
        plausible(&next).then_some(next)
    }
}

impl Vehicle {
    /// One step of a vehicle whose actuators stay at rest, under the body
    /// wrench `tau` alone (a fleet row under its autopilot): the same
    /// integration and guard as [`Self::step`] with `Drive::Wrench` on
    /// actuators at rest, without carrying their state. Allocation-free.
    pub fn step_at_rest(
        &self,
        s: &VehicleState,
        tau: &Vector6<f64>,
        current_ned: &Vector3<f64>,
        dt: f64,
    ) -> Option<VehicleState> {
        let next = self.advance(s, *tau, &[], &[], current_ned, dt);
        plausible(&next).then_some(next)
    }

    /// The actuators' wrench at velocity `nu` (relative `nu_r`): `fixed`
    /// (thrusters or a force-level wrench) plus the propellers at `props`
    /// rpm and the fins at `fins` rad in that flow.
    fn actuator_wrench(
        &self,
        fixed: Vector6<f64>,
        fins: &[f64],
        props: &[f64],
        nu: &Vector6<f64>,
        nu_r: &Vector6<f64>,
    ) -> Vector6<f64> {
        let mut tau = fixed;
        if !props.is_empty() || !fins.is_empty() {
            let rho = self.model.water_density_kg_m3;
            let u = (nu[0] * nu[0] + nu[1] * nu[1] + nu[2] * nu[2]).sqrt();
            let u_r = (nu_r[0] * nu_r[0] + nu_r[1] * nu_r[1] + nu_r[2] * nu_r[2]).sqrt();
            for (p, rpm) in self.propellers.iter().zip(props) {
                tau += p.wrench(*rpm, u, u_r, rho);
            }
            for (f, angle) in self.fins.iter().zip(fins) {
                tau += f.wrench(*angle, nu_r, rho, self.model.hull.astern);
            }
        }
        tau
    }

    /// The integration of one step by the profile's integrator, the
    /// actuators' wrench evaluated at every stage.
    fn advance(
        &self,
        s: &VehicleState,
        fixed: Vector6<f64>,
        fins: &[f64],
        props: &[f64],
        current_ned: &Vector3<f64>,
        dt: f64,
    ) -> VehicleState {
        let tau_of = |nu: &Vector6<f64>, nu_r: &Vector6<f64>| {
            self.actuator_wrench(fixed, fins, props, nu, nu_r)
        };
        match self.integrator {
            Integrator::Rk4 => self.model.rk4_step_with(s, current_ned, dt, &tau_of),
            Integrator::FossenEuler => {
                self.model
                    .fossen_euler_step_with(s, current_ned, dt, &tau_of)
            }
        }
    }
}

/// First-order lag, forward Euler, never past the command.
fn lag(x: f64, target: f64, tau_s: f64, dt: f64) -> f64 {
    let k = dt / tau_s;
    if k >= 1.0 {
        target
    } else {
        x + k * (target - x)
    }
}

/// Rows of the Moore–Penrose pseudo-inverse of the 6 × n allocation whose
/// columns are `cols` (n rows of 6), by SVD.
fn pseudo_inverse(cols: &[Vector6<f64>]) -> Vec<[f64; 6]> {
    if cols.is_empty() {
        return Vec::new();
    }
    let b = DMatrix::from_fn(6, cols.len(), |i, j| cols[j][i]);
    let Ok(pinv) = b.pseudo_inverse(1e-9) else {
        return Vec::new();
    };
    (0..cols.len())
        .map(|i| {
            let mut r = [0.0; 6];
            for (k, x) in r.iter_mut().enumerate() {
                *x = pinv[(i, k)];
            }
            r
        })
        .collect()
}
