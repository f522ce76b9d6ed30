//! What a request's handler, or a reply built from the world, is lent
//! instead of the whole `Simulation`: the parts it touches, borrowed apart
//! (as rapier's pipeline takes each set it mutates as its own argument).
//!
//! A handler that changes the world takes `&mut World` even where the
//! world's cells would let a shared borrow write, so that its signature
//! says what it does; one that only reads takes shared borrows.

use crate::agents::{Profiles, Registry};
use crate::bookkeeping::{Commands, Exports, Revisions};
use crate::components::Handles;
use crate::config::SimConfig;
use crate::journal::Journal;
use crate::state_cache::StateCache;
use oceansim_ecs::World;

/// A command's context: the world with its handles, the agents by name
/// (read), and the command book that commands are written and logged
/// through. The motion commands, `set_waypoint` and `set_agent_velocity`
/// take it.
pub(crate) struct Ctx<'a> {
    pub world: &'a mut World,
    pub h: &'a Handles,
    pub agents: &'a Registry,
    pub commands: &'a mut Commands,
}

/// A read-only context: the world with its handles and the agents by
/// name. Checks and replies that change nothing take it.
#[derive(Clone, Copy)]
pub(crate) struct ReadCtx<'a> {
    pub world: &'a World,
    pub h: &'a Handles,
    pub agents: &'a Registry,
}

/// The context of the requests that add or remove agents: the world,
/// the agents by name and the vehicle profiles, all to change.
pub(crate) struct Roster<'a> {
    pub world: &'a mut World,
    pub h: &'a Handles,
    pub agents: &'a mut Registry,
    pub profiles: &'a mut Profiles,
}

/// What a state reply reads: the world, the revisions its caches are
/// keyed by, and the cache of the rendered full state it keeps.
pub(crate) struct StateView<'a> {
    pub read: ReadCtx<'a>,
    pub revs: &'a Revisions,
    pub cache: &'a mut StateCache,
    /// Whether wall-clock figures stay out of replies
    /// ([`crate::SimConfig::deterministic`]).
    pub deterministic: bool,
}

/// What an export reads and counts: the world, the configuration (its
/// root, its recording bounds) and the exports' counter and cancel flag.
// Without the exporters `export_dataset` is refused and reads none of it.
#[cfg_attr(not(feature = "export"), allow(dead_code))]
pub(crate) struct ExportCtx<'a> {
    pub read: ReadCtx<'a>,
    pub config: &'a SimConfig,
    pub exports: &'a mut Exports,
}

/// What a snapshot's `restore` section is written from: the world read,
/// the configuration, the profiles (those that were files travel as their
/// documents), the journal and the ticks run since creation.
#[derive(Clone, Copy)]
pub(crate) struct JournalCtx<'a> {
    pub read: ReadCtx<'a>,
    pub config: &'a SimConfig,
    pub profiles: &'a Profiles,
    pub journal: &'a Journal,
    pub ticks_run: u64,
}

impl Ctx<'_> {
    /// The same parts, read-only.
    pub fn read(&self) -> ReadCtx<'_> {
        ReadCtx {
            world: self.world,
            h: self.h,
            agents: self.agents,
        }
    }
}

impl Roster<'_> {
    /// The same parts, read-only.
    pub fn read(&self) -> ReadCtx<'_> {
        ReadCtx {
            world: self.world,
            h: self.h,
            agents: self.agents,
        }
    }
}
