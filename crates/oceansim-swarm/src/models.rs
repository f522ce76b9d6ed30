//! Robot models: they register their components on a world and return the
//! systems that compute their state derivatives.

use oceansim_ecs::kernels::polar;
use oceansim_ecs::par::par_rows_mut;
use oceansim_ecs::{Access, EcsError, Handle, Manifold, Result, Step, System, World};
use std::sync::Arc;

/// Single integrator ẋ = u: registers `state` (integrated state, its
/// derivative being `cmd`) and `cmd` (zeros), shape (N, *dim). `init` seeds
/// the state (N·stride values, or one entity's values broadcast).
///
/// Returns no system: the command is the derivative, so the engine's
/// integration advances the state directly.
pub fn single_integrator(
    world: &mut World,
    state: &str,
    cmd: &str,
    dim: &[usize],
    init: Option<&[f64]>,
    manifold: Option<Arc<dyn Manifold>>,
) -> Result<Vec<Box<dyn System>>> {
    world.add_state_with_derivative(state, dim, init, manifold, cmd)?;
    world.add(cmd, dim, None)?;
    Ok(Vec::new())
}

/// Component names of a 2-D unicycle swarm.
pub mod unicycle {
    /// Position (N, 2), m, integrated state.
    pub const P: &str = "p";
    /// Heading (N,), rad from +x, counter-clockwise, integrated state.
    pub const THETA: &str = "theta";
    /// Forward speed (N,), m/s, constant.
    pub const SPEED: &str = "speed";
    /// Turn-rate command (N,), rad/s, written by a controller.
    pub const OMEGA: &str = "omega";
    /// Velocity (N, 2), m/s: the derivative of `p`.
    pub const P_DOT: &str = "p_dot";
    /// Applied turn rate (N,), rad/s: `omega` clipped to the limits, the
    /// derivative of `theta`.
    pub const THETA_DOT: &str = "theta_dot";
}

/// 2-D unicycle: ṗ = s [cos θ, sin θ], θ̇ = clip(ω, ω_min, ω_max), ṡ = 0.
///
/// The initial state comes in ssl_simulator's order: position, speed,
/// heading. Registers `p` (N,2) and `theta` (N,) as state, `speed` (N,), `omega`
/// (N,) command, and their derivatives `p_dot` (N,2) and `theta_dot` (N,);
/// returns the dynamics system, which writes both derivatives (integration
/// then advances p and theta, positions from the old heading). Missing
/// inits are zeros; `speed` may be one value broadcast.
///
/// `omega_lims` = (ω_min, ω_max) in rad/s clips the applied turn rate, as
/// ssl_simulator's `omega_lims`; `omega` keeps the controller's command, so
/// logs show both. Refused unless ω_min ≤ ω_max (infinite bounds allowed).
pub fn unicycle_2d(
    world: &mut World,
    p: Option<&[f64]>,
    speed: Option<&[f64]>,
    theta: Option<&[f64]>,
    omega_lims: Option<(f64, f64)>,
) -> Result<UnicycleDynamics> {
    use unicycle::*;
    let lims = match omega_lims {
        Some((lo, hi)) if lo.is_nan() || hi.is_nan() || lo > hi => {
            return Err(EcsError::Invalid(format!(
                "omega_lims: need omega_min <= omega_max, got ({lo}, {hi})"
            )))
        }
        l => l,
    };
    world.add_state_with_derivative(P, &[2], p, None, P_DOT)?;
    world.add_state_with_derivative(THETA, &[], theta, None, THETA_DOT)?;
    world.add(SPEED, &[], speed)?;
    world.add(OMEGA, &[], None)?;
    world.add(P_DOT, &[2], None)?;
    world.add(THETA_DOT, &[], None)?;
    Ok(UnicycleDynamics { h: None, lims })
}

type Handles = (
    Handle<f64>,
    Handle<f64>,
    Handle<f64>,
    Handle<f64>,
    Handle<f64>,
);

/// The unicycle dynamics system: writes `p_dot` from `theta` and `speed`,
/// and `theta_dot` from `omega` within the turn-rate limits.
#[derive(Debug, Default)]
pub struct UnicycleDynamics {
    h: Option<Handles>,
    lims: Option<(f64, f64)>,
}

impl UnicycleDynamics {
    /// The turn-rate limits (ω_min, ω_max), rad/s.
    pub fn omega_lims(&self) -> Option<(f64, f64)> {
        self.lims
    }
}

impl System for UnicycleDynamics {
    fn name(&self) -> &str {
        "unicycle_dynamics"
    }
    fn access(&self) -> Access {
        use unicycle::*;
        Access::new()
            .reads([THETA, SPEED, OMEGA])
            .writes([P_DOT, THETA_DOT])
    }
    fn init(&mut self, w: &World) -> Result<()> {
        use unicycle::*;
        self.h = Some((
            w.handle(THETA)?,
            w.handle(SPEED)?,
            w.handle(OMEGA)?,
            w.handle(P_DOT)?,
            w.handle(THETA_DOT)?,
        ));
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some((th, sp, om, pd, td)) = self.h else {
            return;
        };
        let (gt, gs, go) = (w.read(th), w.read(sp), w.read(om));
        let (theta, speed, omega): (&[f64], &[f64], &[f64]) = (&gt, &gs, &go);
        par_rows_mut(&mut w.write(pd), 2, |first, rows| {
            let n = rows.len() / 2;
            polar(&speed[first..first + n], &theta[first..first + n], rows);
        });
        let mut out = w.write(td);
        match self.lims {
            Some((lo, hi)) => {
                for (o, cmd) in out.iter_mut().zip(omega) {
                    *o = cmd.clamp(lo, hi);
                }
            }
            None => out.copy_from_slice(omega),
        }
    }
}
