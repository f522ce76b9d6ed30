//! The integration system: advances every (state, derivative) pair by one
//! tick on its manifold.

use crate::error::{EcsError, Result};
use crate::manifold::Manifold;
use crate::system::{Access, Step, System};
use crate::world::{Handle, StateSpec, World};
use std::sync::Arc;

/// Advances each integrated state by retraction, `state ⊞ dt·derivative`,
/// explicit Euler with every derivative taken from the same snapshot. The
/// engine adds it once and runs it after every other system: it writes the
/// loop-carried state the next tick's controllers read.
#[derive(Debug, Default)]
pub struct IntegrationSystem {
    specs: Vec<StateSpec>,
    resolved: Vec<Resolved>,
}

/// One state with its handles resolved.
#[derive(Debug)]
struct Resolved {
    state: Handle<f64>,
    derivative: Handle<f64>,
    manifold: Arc<dyn Manifold>,
    stride: usize,
}

/// Name of the integration system in schedules and descriptions.
pub const INTEGRATION: &str = "integrate";

impl IntegrationSystem {
    /// Integration of the given states.
    pub fn new(specs: Vec<StateSpec>) -> Self {
        IntegrationSystem {
            specs,
            resolved: Vec::new(),
        }
    }
}

impl System for IntegrationSystem {
    fn name(&self) -> &str {
        INTEGRATION
    }

    fn access(&self) -> Access {
        Access::new()
            .reads(self.specs.iter().map(|s| s.derivative.clone()))
            .writes(self.specs.iter().map(|s| s.state.clone()))
    }

    fn init(&mut self, world: &World) -> Result<()> {
        self.resolved.clear();
        for s in &self.specs {
            let state = world.handle::<f64>(&s.state)?;
            let deriv = world
                .handle::<f64>(&s.derivative)
                .map_err(|_| EcsError::State {
                    state: s.state.clone(),
                    message: format!("derivative component `{}` does not exist", s.derivative),
                })?;
            let dim = world.component(&s.state)?.dim().to_vec();
            let want = s.manifold.tangent_stride(&dim);
            if deriv.stride() != want {
                return Err(EcsError::State {
                    state: s.state.clone(),
                    message: format!(
                        "derivative `{}` has {} values per entity; the {} manifold needs {want}",
                        s.derivative,
                        deriv.stride(),
                        s.manifold.name()
                    ),
                });
            }
            self.resolved.push(Resolved {
                state,
                derivative: deriv,
                manifold: s.manifold.clone(),
                stride: state.stride(),
            });
        }
        Ok(())
    }

    fn run(&mut self, world: &World, step: &Step) {
        for r in &self.resolved {
            let d = world.read(r.derivative);
            let mut x = world.write(r.state);
            r.manifold.retract_scaled(&mut x, &d, step.dt, r.stride);
        }
    }
}
