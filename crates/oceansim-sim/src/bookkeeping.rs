//! What the simulation keeps beside its world: revisions, the command
//! sequence with the request being answered, and the exports' counter and
//! cancel flag. Each is a value of its own so that a handler borrows only
//! the ones it touches, beside the world (as rapier's pipeline takes each
//! set it mutates as its own argument).
//!
//! They are not world resources: no system reads them, and a resource is
//! reachable through any `&World` (its cells), so a handler's signature
//! would no longer say what it touches.

use crate::components::Handles;
use crate::control::{Command, CommandSlot};
use oceansim_agents::{CommandRecord, ControlScheme};
use oceansim_ecs::{Entity, World};
use oceansim_protocol::RequestId;

/// Counters that say what changed, for the caches and views keyed by them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Revisions {
    /// Bumped by every tick and every change; keys the rendered state.
    pub state: u64,
    /// Bumped by every rebuild (reset, new scenario).
    pub generation: u64,
    /// Bumped by every navigation-overlay request.
    pub overlays: u64,
}

/// Commands written into the world for the next tick, and the request
/// they answer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Commands {
    /// The sequence number of the last command written (a waypoint PID
    /// keeps the one it was engaged for).
    seq: u64,
    /// The id of the request being answered (logged with its command).
    pub request: Option<RequestId>,
}

impl Commands {
    /// Writes `command` for entity `e`; it takes effect at the next tick.
    pub fn set(&mut self, world: &mut World, h: &Handles, e: Entity, command: Command) {
        self.seq += 1;
        if let Some(row) = world.row(e) {
            world.objects_mut(h.command_in)[row] = Some(CommandSlot {
                command,
                seq: self.seq,
            });
        }
    }

    /// Logs a command accepted for the agent in `row` (with the request id
    /// being answered) and makes it the agent's last command.
    pub fn record(
        &self,
        world: &mut World,
        h: &Handles,
        row: usize,
        scheme: ControlScheme,
        record: CommandRecord,
        saturated: bool,
    ) {
        let time = world.resource(h.clock).time();
        let mut agents = world.objects_mut(h.agent);
        let Some(meta) = agents.get_mut(row).and_then(Option::as_mut) else {
            return;
        };
        let entry = world.resource_mut(h.recorder).log_command(
            &meta.def.agent_name,
            record,
            time,
            self.request.clone(),
        );
        meta.record(scheme, entry, saturated);
    }
}

/// What exports and snapshots share across rebuilds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exports {
    /// Exports and snapshots written so far (names the next default run).
    pub counter: u64,
    /// Stops the exports this simulation prepared
    /// ([`crate::Simulation::export_cancel`]).
    pub cancel: oceansim_record::Cancel,
}
