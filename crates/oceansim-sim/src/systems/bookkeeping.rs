//! The tick's own bookkeeping as systems: the clock counts the tick
//! first, so every system after it reads the time at the tick's end; a
//! vehicle whose dynamics failed goes idle at the tick's end, its idle
//! command applied by `apply_commands` at the next tick like any other.

use crate::components::{names, Handles};
use crate::control::{Command, CommandSlot};
use oceansim_ecs::{Access, Step, System, World};

/// `advance_clock`.
pub struct AdvanceClock(pub Handles);

impl System for AdvanceClock {
    fn name(&self) -> &str {
        "advance_clock"
    }
    fn access(&self) -> Access {
        Access::new().write(names::CLOCK)
    }
    fn run(&mut self, w: &World, _: &Step) {
        w.resource_mut(self.0.clock).tick += 1;
    }
}

/// `idle_faulted`.
pub struct IdleFaulted(pub Handles);

impl System for IdleFaulted {
    fn name(&self) -> &str {
        "idle_faulted"
    }
    fn access(&self) -> Access {
        Access::new().writes([names::FAULTS, names::COMMAND_IN])
    }
    fn run(&mut self, w: &World, _: &Step) {
        let mut faults = w.resource_mut(self.0.faults);
        if faults.to_idle.is_empty() {
            return;
        }
        let mut pending = w.objects_mut(self.0.command_in);
        for row in faults.to_idle.drain(..) {
            if let Some(slot) = pending.get_mut(row) {
                // No request's sequence number: an idle vehicle has no
                // controller state to keep or reset.
                *slot = Some(CommandSlot {
                    command: Command::Idle,
                    seq: 0,
                });
            }
        }
    }
}
