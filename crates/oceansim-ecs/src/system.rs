//! Systems: behaviour over the world's component arrays.

use crate::error::Result;
use crate::monitor::{Monitor, Tracked};
use crate::world::World;
use serde_json::{Map, Value};

/// Declared data access of a system: the components it reads and writes,
/// and optional ordering hints by system name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// Components read.
    pub reads: Vec<String>,
    /// Components written.
    pub writes: Vec<String>,
    /// Systems this one must run after.
    pub after: Vec<String>,
    /// Systems this one must run before.
    pub before: Vec<String>,
}

impl Access {
    /// No access.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds a read.
    pub fn read(mut self, name: impl Into<String>) -> Self {
        self.reads.push(name.into());
        self
    }
    /// Adds reads.
    pub fn reads<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.reads.extend(names.into_iter().map(Into::into));
        self
    }
    /// Adds a write.
    pub fn write(mut self, name: impl Into<String>) -> Self {
        self.writes.push(name.into());
        self
    }
    /// Adds writes.
    pub fn writes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.writes.extend(names.into_iter().map(Into::into));
        self
    }
    /// Runs after system `name`.
    pub fn after(mut self, name: impl Into<String>) -> Self {
        self.after.push(name.into());
        self
    }
    /// Runs before system `name`.
    pub fn before(mut self, name: impl Into<String>) -> Self {
        self.before.push(name.into());
        self
    }
}

/// The tick a system runs in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Index of the tick in the run (0-based).
    pub index: u64,
    /// Time at the start of the tick (s).
    pub time: f64,
    /// Tick length (s).
    pub dt: f64,
}

/// A scheduled system: declared access plus a `run` that mutates component
/// arrays in place, vectorised over all N entities.
///
/// `init` runs once when the schedule is built (resolve handles there, so
/// `run` never looks names up); `run` runs once per tick and must not
/// allocate on the hot path.
pub trait System {
    /// Unique name.
    fn name(&self) -> &str;
    /// Declared reads, writes and ordering hints.
    fn access(&self) -> Access;
    /// One-time setup against the world (resolve handles, check shapes).
    fn init(&mut self, world: &World) -> Result<()> {
        let _ = world;
        Ok(())
    }
    /// One tick.
    fn run(&mut self, world: &World, step: &Step);
    /// Diagnostics collected when the system is registered.
    fn monitors(&mut self) -> Vec<Monitor> {
        Vec::new()
    }
    /// Scalars logged each log step, collected at registration.
    fn tracked(&mut self) -> Vec<Tracked> {
        Vec::new()
    }
    /// Static run metadata merged into the world's params (logged as settings).
    fn params(&self) -> Map<String, Value> {
        Map::new()
    }
}

/// A plain closure with declared access, as a system.
pub struct FnSystem<F> {
    name: String,
    access: Access,
    f: F,
}

impl<F: FnMut(&World, &Step)> FnSystem<F> {
    /// A system named `name` that runs `f` with the given access.
    pub fn new(name: impl Into<String>, access: Access, f: F) -> Self {
        FnSystem {
            name: name.into(),
            access,
            f,
        }
    }
}

impl<F> std::fmt::Debug for FnSystem<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnSystem")
            .field("name", &self.name)
            .field("access", &self.access)
            .finish()
    }
}

impl<F: FnMut(&World, &Step)> System for FnSystem<F> {
    fn name(&self) -> &str {
        &self.name
    }
    fn access(&self) -> Access {
        self.access.clone()
    }
    fn run(&mut self, world: &World, step: &Step) {
        (self.f)(world, step)
    }
}
