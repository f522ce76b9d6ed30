//! Commands are data: a request writes its command into the `command_in`
//! component; this system, first in the tick, makes it the active
//! `command`, so every system downstream sees one consistent command.

use crate::components::{names, Handles};
use oceansim_ecs::{Access, Step, System, World};

/// `apply_commands`.
pub struct ApplyCommands(pub Handles);

impl System for ApplyCommands {
    fn name(&self) -> &str {
        "apply_commands"
    }
    fn access(&self) -> Access {
        Access::new().writes([names::COMMAND_IN, names::COMMAND])
    }
    fn run(&mut self, w: &World, _: &Step) {
        let mut pending = w.objects_mut(self.0.command_in);
        let mut active = w.objects_mut(self.0.command);
        for (p, a) in pending.iter_mut().zip(active.iter_mut()) {
            if let Some(cmd) = p.take() {
                *a = Some(cmd);
            }
        }
    }
}
