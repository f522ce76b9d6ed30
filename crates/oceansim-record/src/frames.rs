//! The record as exports read it: spilled frames first, then those in
//! memory.

use super::{CommandEntry, Payloads, Sample, SpillHead, SpillView};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A flag that stops whatever reads a [`RecordedFrames`] it was given to
/// ([`RecordedFrames::with_cancel`]): once set, iterating frames or
/// commands yields an error (kind [`std::io::ErrorKind::Other`]; not
/// `Interrupted`, which `std::io::copy` and `read_to_end` retry forever)
/// instead of the next item, so an export stops within a frame. Clones
/// share the flag. The server sets it when it stops with an export still
/// running past its grace.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not set.
    pub fn new() -> Self {
        Cancel::default()
    }

    /// Sets the flag: every reader holding it stops at its next frame.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Ok` while the flag is not set, then the error readers stop with.
    pub fn check(&self) -> std::io::Result<()> {
        if self.is_cancelled() {
            return Err(std::io::Error::other(
                "cancelled: the server is shutting down",
            ));
        }
        Ok(())
    }
}

/// Everything recorded, as an export reads it: the spilled frames (read
/// from disk as they are iterated) then those in memory; the same for
/// commands. Frames dropped because the spill could not take them are
/// counted, and missing from both.
#[derive(Debug, Clone, Default)]
pub struct RecordedFrames {
    pub(super) spill: Option<SpillView>,
    pub(super) memory: Vec<Arc<Sample>>,
    pub(super) commands: Vec<Arc<CommandEntry>>,
    pub(super) dropped_frames: u64,
    pub(super) dropped_commands: u64,
    pub(super) cancel: Option<Cancel>,
}

/// A frame (or a command) as iteration yields it: reading the spill can
/// fail.
pub type Recorded<T> = std::io::Result<Arc<T>>;

impl RecordedFrames {
    /// A record held wholly in memory.
    pub fn in_memory(frames: Vec<Arc<Sample>>, commands: Vec<Arc<CommandEntry>>) -> Self {
        RecordedFrames {
            memory: frames,
            commands,
            ..RecordedFrames::default()
        }
    }

    /// This record, read until `cancel` is set (see [`Cancel`]).
    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// The cancel flag this record is read under, if any.
    pub fn cancel(&self) -> Option<Cancel> {
        self.cancel.clone()
    }

    /// Whether the reading of this record was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
    }

    /// `items`, stopped by the cancel flag when there is one.
    fn cancellable<'a, T: 'a>(
        &self,
        items: Box<dyn Iterator<Item = std::io::Result<T>> + 'a>,
    ) -> Box<dyn Iterator<Item = std::io::Result<T>> + 'a> {
        match self.cancel.clone() {
            None => items,
            Some(c) => Box::new(until_error(items.map(move |r| c.check().and(r)))),
        }
    }

    /// Frames recorded and kept (spilled and in memory).
    pub fn len(&self) -> u64 {
        self.spilled() + self.memory.len() as u64
    }

    /// Whether no frame is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frames read from the spill.
    pub fn spilled(&self) -> u64 {
        self.spill.as_ref().map_or(0, SpillView::frame_count)
    }

    /// Frames dropped (neither spilled nor in memory).
    pub fn dropped_frames(&self) -> u64 {
        self.dropped_frames
    }

    /// Commands dropped.
    pub fn dropped_commands(&self) -> u64 {
        self.dropped_commands
    }

    /// The spill, if anything spilled.
    pub fn spill(&self) -> Option<&SpillView> {
        self.spill.as_ref()
    }

    fn head(&self) -> Option<&SpillHead> {
        self.spill.as_ref().map(SpillView::head)
    }

    /// Times of the first and the last frame (s).
    pub fn time_span(&self) -> Option<[f64; 2]> {
        let first = self
            .head()
            .and_then(|h| h.time_span)
            .map(|[t0, _]| t0)
            .or_else(|| self.memory.first().map(|s| s.time))?;
        let last = self
            .memory
            .last()
            .map(|s| s.time)
            .or_else(|| self.head().and_then(|h| h.time_span).map(|[_, t1]| t1))?;
        Some([first, last])
    }

    /// The main AUV's position in the first frame (m, user frame).
    pub fn first_main_position(&self) -> Option<[f64; 3]> {
        self.head()
            .and_then(|h| h.first_main_position)
            .or_else(|| Some(self.memory.first()?.main()?.position))
    }

    /// Agent names in the order they first appear (the main AUV first).
    pub fn agents(&self) -> Vec<String> {
        let mut names: Vec<String> = self.head().map(|h| h.agents.clone()).unwrap_or_default();
        for a in self.memory.iter().flat_map(|s| s.agents.iter()) {
            if !names.iter().any(|n| **n == *a.name) {
                names.push(a.name.to_string());
            }
        }
        names
    }

    /// `(agent, sensor)` pairs with at least one kept sample, in the order
    /// they first appear.
    pub fn sensor_keys(&self) -> Vec<(String, String)> {
        let mut keys: Vec<(String, String)> = self
            .head()
            .map(|h| h.sensor_keys.clone())
            .unwrap_or_default();
        let mut seen: HashMap<String, HashSet<String>> = HashMap::new();
        for (agent, sensor) in &keys {
            seen.entry(agent.clone())
                .or_default()
                .insert(sensor.clone());
        }
        for a in self.memory.iter().flat_map(|s| s.agents.iter()) {
            for (sensor, _) in a.sensors.iter().filter(|(_, t)| !t.is_empty()) {
                if !seen.get(&*a.name).is_some_and(|s| s.contains(&**sensor)) {
                    let set = seen.entry(a.name.to_string()).or_default();
                    set.insert(sensor.to_string());
                    keys.push((a.name.to_string(), sensor.to_string()));
                }
            }
        }
        keys
    }

    /// Logged commands kept.
    pub fn command_count(&self) -> u64 {
        self.spill.as_ref().map_or(0, SpillView::command_count) + self.commands.len() as u64
    }

    /// Every frame, oldest first (spilled frames with or without their
    /// sensor samples, per `payloads`; frames in memory as they are). An
    /// error reading the spill is the last item.
    pub fn iter(&self, payloads: Payloads) -> Box<dyn Iterator<Item = Recorded<Sample>> + '_> {
        self.cancellable(self.iter_all(payloads))
    }

    fn iter_all(&self, payloads: Payloads) -> Box<dyn Iterator<Item = Recorded<Sample>> + '_> {
        let memory = self.memory.iter().cloned().map(Ok);
        match &self.spill {
            None => Box::new(memory),
            Some(spill) => match spill.frames(payloads) {
                Ok(spilled) => {
                    Box::new(until_error(spilled.map(|r| r.map(Arc::new)).chain(memory)))
                }
                Err(e) => Box::new(std::iter::once(Err(e))),
            },
        }
    }

    /// Runs `f` on every frame, oldest first, stopping at the first error.
    pub fn try_for_each(
        &self,
        payloads: Payloads,
        mut f: impl FnMut(&Sample) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        for s in self.iter(payloads) {
            let s = s?;
            f(&s)?;
        }
        Ok(())
    }

    /// Every logged command, oldest first.
    pub fn commands(&self) -> Box<dyn Iterator<Item = Recorded<CommandEntry>> + '_> {
        self.cancellable(self.commands_all())
    }

    fn commands_all(&self) -> Box<dyn Iterator<Item = Recorded<CommandEntry>> + '_> {
        let memory = self.commands.iter().cloned().map(Ok);
        match &self.spill {
            None => Box::new(memory),
            Some(spill) => match spill.commands() {
                Ok(spilled) => {
                    Box::new(until_error(spilled.map(|r| r.map(Arc::new)).chain(memory)))
                }
                Err(e) => Box::new(std::iter::once(Err(e))),
            },
        }
    }
}

/// `items` up to and including the first error.
fn until_error<T>(
    items: impl Iterator<Item = std::io::Result<T>>,
) -> impl Iterator<Item = std::io::Result<T>> {
    items.scan(false, |failed, r| {
        if *failed {
            return None;
        }
        *failed = r.is_err();
        Some(r)
    })
}
