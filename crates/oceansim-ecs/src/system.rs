//! Systems: behaviour over the world's component arrays; and what watches
//! them, monitors (running reductions with one-shot warnings) and tracked
//! scalars (one file: the world holds both, and both read the world).

use crate::error::Result;
use crate::world::World;
use serde_json::{Map, Value};
use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

/// Declared data access of a system: the components it reads and writes,
/// and optional ordering hints by system name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// Components read.
    pub reads: Vec<String>,
    /// Components written.
    pub writes: Vec<String>,
    /// Components read as the previous tick left them: the system runs
    /// before their writers, so they add no ordering edge (a setting the
    /// writer never changes in a tick, say). Checked like a read.
    pub carried: Vec<String>,
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
    /// Adds a read of what the previous tick left (see
    /// [`Access::carried`]).
    pub fn carried(mut self, name: impl Into<String>) -> Self {
        self.carried.push(name.into());
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
    /// What the system does, in a line (shown by `describe`; empty by
    /// default).
    fn doc(&self) -> &str {
        ""
    }
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

/// How a monitor folds its samples over a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    /// The latest sample.
    Last,
    /// The largest sample.
    Max,
    /// The smallest sample.
    Min,
    /// The mean of all samples.
    Mean,
    /// The sum of all samples.
    Sum,
}

type Source = Box<dyn FnMut(&World) -> f64>;

/// One tracked scalar with a running reduction and an optional one-shot
/// warning: the first time `warn_if(value)` holds in a run, the message
/// (with `{value}` and `{name}` substituted) is emitted once.
pub struct Monitor {
    name: String,
    source: Source,
    reduce: Reduce,
    warn_if: Option<Box<dyn Fn(f64) -> bool>>,
    warn_msg: String,
    value: f64,
    count: u64,
    sum: f64,
    tripped: Option<(f64, f64, String)>,
}

impl fmt::Debug for Monitor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Monitor")
            .field("name", &self.name)
            .field("reduce", &self.reduce)
            .field("value", &self.value)
            .field("tripped", &self.tripped)
            .finish()
    }
}

/// A shared scalar a system writes and a monitor reads (the Rust form of a
/// monitor over a system attribute).
#[derive(Debug, Clone, Default)]
pub struct Probe(Rc<Cell<f64>>);

impl Probe {
    /// A probe holding 0.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the value.
    pub fn set(&self, v: f64) {
        self.0.set(v)
    }
    /// Reads the value.
    pub fn get(&self) -> f64 {
        self.0.get()
    }
    /// A monitor source reading this probe.
    pub fn source(&self) -> impl FnMut(&World) -> f64 + 'static {
        let p = self.clone();
        move |_| p.get()
    }
}

impl Monitor {
    /// A monitor of `source` with reduction `reduce`.
    pub fn new(
        name: impl Into<String>,
        reduce: Reduce,
        source: impl FnMut(&World) -> f64 + 'static,
    ) -> Self {
        Monitor {
            name: name.into(),
            source: Box::new(source),
            reduce,
            warn_if: None,
            warn_msg: String::new(),
            value: f64::NAN,
            count: 0,
            sum: 0.0,
            tripped: None,
        }
    }

    /// Adds a one-shot warning; `msg` may use `{value}` and `{name}`.
    pub fn warn_if(
        mut self,
        predicate: impl Fn(f64) -> bool + 'static,
        msg: impl Into<String>,
    ) -> Self {
        self.warn_if = Some(Box::new(predicate));
        self.warn_msg = msg.into();
        self
    }

    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The reduced value so far (NaN before the first sample).
    pub fn value(&self) -> f64 {
        self.value
    }

    /// Samples folded so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// When the warning fired: (time, value, message).
    pub fn tripped(&self) -> Option<&(f64, f64, String)> {
        self.tripped.as_ref()
    }

    /// Folds a sample into the running reduction and returns the reduced value.
    pub fn observe(&mut self, sample: f64) -> f64 {
        self.count += 1;
        self.sum += sample;
        self.value = match self.reduce {
            Reduce::Last => sample,
            Reduce::Max if self.count == 1 => sample,
            Reduce::Max => self.value.max(sample),
            Reduce::Min if self.count == 1 => sample,
            Reduce::Min => self.value.min(sample),
            Reduce::Mean => self.sum / self.count as f64,
            Reduce::Sum => self.sum,
        };
        self.value
    }

    /// Samples the source, updates the reduction, and fires the warning the
    /// first time it trips. Returns the message when it fires.
    pub fn tick(&mut self, world: &World, time: f64) -> Option<String> {
        let sample = (self.source)(world);
        let value = self.observe(sample);
        if self.tripped.is_none() && self.warn_if.as_ref().is_some_and(|p| p(value)) {
            let msg = self
                .warn_msg
                .replace("{value}", &format!("{value:.6}"))
                .replace("{name}", &self.name);
            self.tripped = Some((time, value, msg.clone()));
            return Some(msg);
        }
        None
    }

    /// Clears the reduction and the one-shot state (the engine calls this at
    /// the start of every run).
    pub fn reset(&mut self) {
        self.value = f64::NAN;
        self.count = 0;
        self.sum = 0.0;
        self.tripped = None;
    }
}

/// A global scalar logged at every log step.
pub struct Tracked {
    pub(crate) name: String,
    pub(crate) source: Source,
}

impl fmt::Debug for Tracked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tracked").field("name", &self.name).finish()
    }
}

impl Tracked {
    /// A tracked scalar.
    pub fn new(name: impl Into<String>, source: impl FnMut(&World) -> f64 + 'static) -> Self {
        Tracked {
            name: name.into(),
            source: Box::new(source),
        }
    }
    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Ticks every monitor once per step, after integration, so it observes
/// the fully computed step. The engine runs it last.
#[derive(Debug, Default)]
pub struct MonitorSystem;

/// Name of the monitor system.
pub const MONITORS: &str = "monitors";

impl System for MonitorSystem {
    fn name(&self) -> &str {
        MONITORS
    }
    fn access(&self) -> Access {
        Access::new()
    }
    fn run(&mut self, _world: &World, _step: &Step) {
        // The engine ticks monitors itself (they live in the world); this
        // system marks their place in the schedule for introspection.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(reduce: Reduce, samples: &[f64]) -> f64 {
        let mut m = Monitor::new("m", reduce, |_| 0.0);
        samples.iter().map(|s| m.observe(*s)).last().unwrap()
    }

    #[test]
    fn reductions() {
        let s = [3.0, -1.0, 4.0, 1.5];
        assert_eq!(run(Reduce::Last, &s), 1.5);
        assert_eq!(run(Reduce::Max, &s), 4.0);
        assert_eq!(run(Reduce::Min, &s), -1.0);
        assert_eq!(run(Reduce::Mean, &s), 7.5 / 4.0);
        assert_eq!(run(Reduce::Sum, &s), 7.5);
        assert_eq!(run(Reduce::Max, &[-5.0]), -5.0);
    }

    #[test]
    fn warning_fires_once_and_resets() {
        let w = World::new(0);
        let probe = Probe::new();
        let mut m = Monitor::new("max_step", Reduce::Max, probe.source())
            .warn_if(|v| v > 1.0, "cap engaged: raw step {value} > {name}");
        probe.set(0.5);
        assert_eq!(m.tick(&w, 0.0), None);
        probe.set(2.0);
        assert_eq!(
            m.tick(&w, 0.1).as_deref(),
            Some("cap engaged: raw step 2.000000 > max_step")
        );
        probe.set(3.0);
        assert_eq!(m.tick(&w, 0.2), None, "one-shot");
        assert_eq!(m.tripped().unwrap().0, 0.1);
        m.reset();
        assert!(m.tripped().is_none());
        assert!(m.value().is_nan());
        assert!(m.tick(&w, 0.0).is_some(), "fires again in a new run");
    }
}
