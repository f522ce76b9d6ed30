//! Clock control: `reset`, `pause`, `resume`, `set_time_scale`.

use super::{Outcome, Reply};
use crate::components::Handles;
use crate::replies::clock_data;
use crate::simulation::Simulation;
use oceansim_ecs::World;
use oceansim_protocol::payload::{Reset, SetTimeScale};
use oceansim_protocol::ProtocolError;

/// `reset`: the scenario's initial state, optionally with a new seed.
pub(super) fn reset(sim: &mut Simulation, p: Reset) -> Outcome {
    sim.reset(p.seed)
        .map_err(|e| ProtocolError::InvalidMessage(e.to_string()))?;
    Reply::ok(clock_data(&sim.world, &sim.h))
}

/// `pause` (`true`) and `resume` (`false`).
pub(super) fn pause(world: &mut World, h: &Handles, paused: bool) -> Outcome {
    world.resource_mut(h.clock).set_paused(paused);
    Reply::ok(clock_data(world, h))
}

/// `set_time_scale` (validated by the codec: (0, 1e6]).
pub(super) fn time_scale(world: &mut World, h: &Handles, p: SetTimeScale) -> Outcome {
    world.resource_mut(h.clock).set_time_scale(p.time_scale);
    Reply::ok(clock_data(world, h))
}
