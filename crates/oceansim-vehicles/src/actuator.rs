//! Thrusters and the actuator model.
//!
//! Each step, every thruster's normalised command goes through, in order:
//!
//! 1. **bounds**: clamp to `command_bounds` [lo, hi];
//! 2. **deadband**: |c| < `deadband` → 0;
//! 3. **rate limit**: move from the previous value by at most
//!    `rate_limit_per_s` · dt;
//! 4. **failure mode**: `healthy` passes it (and remembers it), `disabled`
//!    gives 0, `stuck` holds the last value produced while healthy (0 if it
//!    never was), `scaled` multiplies by `failure_scale`;
//! 5. **thrust**: c ≥ 0 → c · `max_thrust_n`, c < 0 → c · `max_reverse_thrust_n` (N);
//! 6. **allocation**: τ = Σ Tᵢ [dᵢ; rᵢ × dᵢ], the body wrench (N, N·m).

use crate::error::{Result, VehicleError};
use crate::profile::{FailureMode, VehicleProfile};
use nalgebra::{Unit, Vector3, Vector6};

/// One thruster's fixed parameters (Fossen body frame, SI).
#[derive(Debug, Clone, PartialEq)]
pub struct Thruster {
    /// Name from the profile.
    pub name: String,
    /// Position (m), body.
    pub position_m: Vector3<f64>,
    /// Unit thrust direction for a positive command, body.
    pub direction: Unit<Vector3<f64>>,
    /// Thrust at command +1 (N).
    pub max_thrust_n: f64,
    /// Thrust magnitude at command -1 (N).
    pub max_reverse_thrust_n: f64,
    /// [lo, hi] normalised command range.
    pub command_bounds: [f64; 2],
    /// Largest command change per second, if limited.
    pub rate_limit_per_s: Option<f64>,
    /// Commands below this magnitude are zero.
    pub deadband: f64,
    /// Health.
    pub failure_mode: FailureMode,
    /// Multiplier of the `scaled` mode.
    pub failure_scale: f64,
}

impl Thruster {
    /// The allocation column [d; r × d] (per newton of thrust).
    pub fn allocation_column(&self) -> Vector6<f64> {
        let d = self.direction.into_inner();
        let m = self.position_m.cross(&d);
        Vector6::new(d.x, d.y, d.z, m.x, m.y, m.z)
    }
}

/// A vehicle's thrusters with their dynamic state.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrusterBank {
    thrusters: Vec<Thruster>,
    columns: Vec<Vector6<f64>>,
    commands: Vec<f64>,
    rate_limited: Vec<f64>,
    last_healthy: Vec<f64>,
    output: Vec<f64>,
    thrust_n: Vec<f64>,
}

impl ThrusterBank {
    /// The thrusters of a validated profile, at rest.
    pub fn from_profile(p: &VehicleProfile) -> Self {
        let thrusters = p
            .thrusters
            .iter()
            .map(|t| Thruster {
                name: t.name.clone(),
                position_m: t.position_m.into(),
                direction: Unit::new_normalize(t.direction.into()),
                max_thrust_n: t.max_thrust_n,
                max_reverse_thrust_n: t.max_reverse_thrust_n.unwrap_or(t.max_thrust_n),
                command_bounds: t.command_bounds,
                rate_limit_per_s: t.rate_limit_per_s,
                deadband: t.deadband,
                failure_mode: FailureMode::parse(&t.failure_mode).unwrap_or(FailureMode::Healthy),
                failure_scale: t.failure_scale,
            })
            .collect();
        Self::new(thrusters)
    }

    /// A bank of the given thrusters, at rest.
    pub fn new(thrusters: Vec<Thruster>) -> Self {
        let n = thrusters.len();
        let columns = thrusters.iter().map(Thruster::allocation_column).collect();
        ThrusterBank {
            thrusters,
            columns,
            commands: vec![0.0; n],
            rate_limited: vec![0.0; n],
            last_healthy: vec![0.0; n],
            output: vec![0.0; n],
            thrust_n: vec![0.0; n],
        }
    }

    /// Number of thrusters.
    pub fn len(&self) -> usize {
        self.thrusters.len()
    }

    /// Whether the bank has no thrusters.
    pub fn is_empty(&self) -> bool {
        self.thrusters.is_empty()
    }

    /// The thrusters.
    pub fn thrusters(&self) -> &[Thruster] {
        &self.thrusters
    }

    /// The allocation matrix as columns [dᵢ; rᵢ × dᵢ], one per thruster.
    pub fn allocation_columns(&self) -> &[Vector6<f64>] {
        &self.columns
    }

    /// Sets the raw commands (one per thruster, finite).
    pub fn set_commands(&mut self, commands: &[f64]) -> Result<()> {
        if commands.len() != self.len() {
            return Err(VehicleError::ThrusterCommand {
                expected: self.len(),
                got: format!("{} values", commands.len()),
            });
        }
        if let Some(i) = commands.iter().position(|c| !c.is_finite()) {
            return Err(VehicleError::ThrusterCommand {
                expected: self.len(),
                got: format!("a non-finite value at index {i}"),
            });
        }
        self.commands.copy_from_slice(commands);
        Ok(())
    }

    /// The raw commands last set.
    pub fn commands(&self) -> &[f64] {
        &self.commands
    }

    /// Changes a thruster's health at run time. A thruster that becomes
    /// `stuck` holds what it produced while last healthy.
    pub fn set_failure(&mut self, index: usize, mode: FailureMode, scale: f64) {
        if let Some(t) = self.thrusters.get_mut(index) {
            t.failure_mode = mode;
            t.failure_scale = scale.clamp(0.0, 1.0);
        }
    }

    /// Normalised outputs after the failure stage of the last step.
    pub fn outputs(&self) -> &[f64] {
        &self.output
    }

    /// Thrusts (N) of the last step.
    pub fn thrusts_n(&self) -> &[f64] {
        &self.thrust_n
    }

    /// Runs the actuator pipeline for one step of `dt` seconds and returns
    /// the body wrench τ (N, N·m). Allocation-free.
    pub fn step(&mut self, dt: f64) -> Vector6<f64> {
        let mut tau = Vector6::zeros();
        for i in 0..self.thrusters.len() {
            let t = &self.thrusters[i];
            let [lo, hi] = t.command_bounds;
            let mut c = self.commands[i].clamp(lo, hi);
            if c.abs() < t.deadband {
                c = 0.0;
            }
            if let Some(rate) = t.rate_limit_per_s {
                let max = rate * dt.max(0.0);
                let prev = self.rate_limited[i];
                c = prev + (c - prev).clamp(-max, max);
            }
            self.rate_limited[i] = c;
            let out = match t.failure_mode {
                FailureMode::Healthy => {
                    self.last_healthy[i] = c;
                    c
                }
                FailureMode::Disabled => 0.0,
                FailureMode::Stuck => self.last_healthy[i],
                FailureMode::Scaled => c * t.failure_scale,
            };
            self.output[i] = out;
            let thrust = if out >= 0.0 {
                out * t.max_thrust_n
            } else {
                out * t.max_reverse_thrust_n
            };
            self.thrust_n[i] = thrust;
            tau += self.columns[i] * thrust;
        }
        tau
    }

    /// Whether a step would produce nothing and change nothing: every
    /// command, rate-limited value, remembered value and thrust is zero.
    pub fn at_rest(&self) -> bool {
        [
            &self.commands,
            &self.rate_limited,
            &self.last_healthy,
            &self.thrust_n,
        ]
        .iter()
        .all(|v| v.iter().all(|x| *x == 0.0))
    }

    /// Sets every command to zero (the actuator model then brings the
    /// outputs down at their rate limits). Allocation-free.
    pub fn rest(&mut self) {
        self.commands.iter_mut().for_each(|c| *c = 0.0);
    }

    /// Returns every thruster to rest (commands, rate limiter and memory).
    pub fn reset(&mut self) {
        for v in [
            &mut self.commands,
            &mut self.rate_limited,
            &mut self.last_healthy,
            &mut self.output,
            &mut self.thrust_n,
        ] {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
    }
}
