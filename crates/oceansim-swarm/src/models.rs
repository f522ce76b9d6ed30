//! Robot models: they register their components on a world and return the
//! systems that compute their state derivatives.

use oceansim_ecs::par::par_rows_mut;
use oceansim_ecs::{Access, Handle, Manifold, Result, Step, System, World};
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
    /// Turn-rate command (N,), rad/s: the derivative of `theta`.
    pub const OMEGA: &str = "omega";
    /// Velocity (N, 2), m/s: the derivative of `p`.
    pub const P_DOT: &str = "p_dot";
}

/// 2-D unicycle: ṗ = s [cos θ, sin θ], θ̇ = ω, ṡ = 0.
///
/// Registers `p` (N,2) and `theta` (N,) as state, `speed` (N,), `omega`
/// (N,) command and `p_dot` (N,2); returns the dynamics system (integration
/// then advances p by p_dot and theta by omega, positions from the old
/// heading). Missing inits are zeros; `speed` may be one value broadcast.
pub fn unicycle_2d(
    world: &mut World,
    p: Option<&[f64]>,
    theta: Option<&[f64]>,
    speed: Option<&[f64]>,
) -> Result<UnicycleDynamics> {
    use unicycle::*;
    world.add_state_with_derivative(P, &[2], p, None, P_DOT)?;
    world.add_state_with_derivative(THETA, &[], theta, None, OMEGA)?;
    world.add(SPEED, &[], speed)?;
    world.add(OMEGA, &[], None)?;
    world.add(P_DOT, &[2], None)?;
    Ok(UnicycleDynamics::default())
}

/// The unicycle dynamics system (writes `p_dot` from `theta` and `speed`).
#[derive(Debug, Default)]
pub struct UnicycleDynamics {
    h: Option<(Handle<f64>, Handle<f64>, Handle<f64>)>,
}

impl System for UnicycleDynamics {
    fn name(&self) -> &str {
        "unicycle_dynamics"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([unicycle::THETA, unicycle::SPEED])
            .write(unicycle::P_DOT)
    }
    fn init(&mut self, w: &World) -> Result<()> {
        self.h = Some((
            w.handle(unicycle::THETA)?,
            w.handle(unicycle::SPEED)?,
            w.handle(unicycle::P_DOT)?,
        ));
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some((th, sp, pd)) = self.h else { return };
        let (gt, gs) = (w.read(th), w.read(sp));
        let (theta, speed): (&[f64], &[f64]) = (&gt, &gs);
        par_rows_mut(&mut w.write(pd), 2, |first, rows| {
            for (k, r) in rows.chunks_exact_mut(2).enumerate() {
                let (s, c) = theta[first + k].sin_cos();
                r[0] = speed[first + k] * c;
                r[1] = speed[first + k] * s;
            }
        });
    }
}
