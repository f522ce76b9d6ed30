//! Clock control: `reset`, `pause`, `resume`, `set_time_scale`.

use super::{Outcome, Reply};
use crate::simulation::Simulation;
use oceansim_protocol::payload::{Reset, SetTimeScale};
use oceansim_protocol::ProtocolError;

/// `reset`: the scenario's initial state, optionally with a new seed.
pub(super) fn reset(sim: &mut Simulation, p: Reset) -> Outcome {
    sim.reset(p.seed)
        .map_err(|e| ProtocolError::InvalidMessage(e.to_string()))?;
    Reply::ok(&sim.clock_data())
}

/// `pause` (`true`) and `resume` (`false`).
pub(super) fn pause(sim: &mut Simulation, paused: bool) -> Outcome {
    sim.world.resource_mut(sim.h.clock).set_paused(paused);
    Reply::ok(&sim.clock_data())
}

/// `set_time_scale` (validated by the codec: (0, 1e6]).
pub(super) fn time_scale(sim: &mut Simulation, p: SetTimeScale) -> Outcome {
    sim.world
        .resource_mut(sim.h.clock)
        .set_time_scale(p.time_scale);
    Reply::ok(&sim.clock_data())
}
