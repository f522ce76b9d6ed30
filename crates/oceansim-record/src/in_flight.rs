//! Frames waiting for their sensor renders: the bounds on them, how a
//! frame joins the record once its renders are done (in order), and the
//! waits past the bounds, before an export and for the clock.

use crate::{Recorder, Sample};
use oceansim_sensors::{SampleSlot, SensorSample};
use std::sync::Arc;

/// Most sensor renders the frames waiting for them may count by default
/// (about 11 simulated minutes of the default vehicle's five imaging
/// sensors at 5 Hz): past it, recording a frame waits for the oldest
/// waiting frame's renders. A render waiting to start holds only what it
/// reads (about 1 KiB: the vehicle's state, the scene shared), so the
/// simulation can run far ahead of its renders, which catch up on the
/// cores it leaves idle, or before an export.
pub const MAX_RENDERS_IN_FLIGHT: usize = 16_384;
/// The bound on renders waiting a server takes by default when a live
/// view (the browser viewer, the ROS 2 bridge) is attached: a view shows
/// a frame once its renders are done, so a small backlog keeps it within
/// a few simulated seconds of the present (about 13 periods of the
/// default vehicle's five imaging sensors).
pub const LIVE_VIEW_RENDERS_IN_FLIGHT: usize = 64;
/// Most bytes the frames waiting for renders may hold by default
/// ([`crate::RecordLimits::in_flight_bytes`]): with [`crate::MAX_RECORDED_BYTES`] and
/// the rest of the server, a recording server stays within 256 MiB. The
/// default vehicle's frames hold about 0.1 MB per simulated second
/// (navigation sensors and lidars sampled at their rates), so this is
/// also about 11 simulated minutes.
pub const MAX_RENDER_BACKLOG_BYTES: usize = 64 << 20;
/// What a render not yet done counts against
/// [`crate::RecordLimits::in_flight_bytes`]: its job (the inputs it reads, the
/// model's copy, the slot), measured at about 1 KiB.
pub const PENDING_RENDER_BYTES: usize = 1 << 10;

/// A frame recorded while some of its sensor samples still render: it
/// joins the record, in order, once they are done.
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(crate) sample: Sample,
    /// Per agent of `sample`, per sensor, its samples' slots.
    pub(crate) slots: Vec<Vec<(Arc<str>, Vec<SampleSlot>)>>,
    /// Slots that were still rendering when the frame was recorded.
    pub(crate) renders: usize,
    /// What it counts against [`crate::RecordLimits::in_flight_bytes`].
    pub(crate) bytes: usize,
}

impl Recorder {
    /// Sets [`crate::RecordLimits::renders_in_flight`] from now on (0: samples
    /// render in the tick; frames already waiting land as their renders
    /// finish).
    pub fn set_renders_in_flight(&mut self, n: usize) {
        self.limits.renders_in_flight = n;
    }

    /// Appends a frame whose agents' sensor samples are `slots` (per agent
    /// in the frame's order, per sensor; agents past its end have none):
    /// the frame joins the record once every slot is rendered, after the
    /// frames recorded before it. Past [`crate::RecordLimits::renders_in_flight`]
    /// renders waiting, this waits for the oldest frame's.
    pub fn push_with_slots(&mut self, s: Sample, slots: Vec<Vec<(Arc<str>, Vec<SampleSlot>)>>) {
        let renders = slots
            .iter()
            .flatten()
            .flat_map(|(_, v)| v)
            .filter(|s| !s.is_ready())
            .count();
        if renders == 0 && self.in_flight.is_empty() {
            self.store(fill(s, slots));
            return;
        }
        let bytes = s.approx_bytes()
            + slots
                .iter()
                .flatten()
                .flat_map(|(_, v)| v)
                .map(|slot| match slot {
                    SampleSlot::Ready(s) => 8 + s.approx_bytes(),
                    SampleSlot::Pending(_) => PENDING_RENDER_BYTES,
                })
                .sum::<usize>();
        self.renders_in_flight += renders;
        self.in_flight_bytes += bytes;
        self.in_flight.push_back(InFlight {
            sample: s,
            slots,
            renders,
            bytes,
        });
        self.land(false);
    }

    /// Moves waiting frames into the record, oldest first: those whose
    /// renders are done, then, while more renders than the bound wait (or
    /// every one when `all`), the oldest, waiting for its renders.
    pub(crate) fn land(&mut self, all: bool) {
        while let Some(front) = self.in_flight.front() {
            let ready = front
                .slots
                .iter()
                .flatten()
                .flat_map(|(_, v)| v)
                .all(SampleSlot::is_ready);
            let over = self.renders_in_flight > self.limits.renders_in_flight
                || self.in_flight_bytes > self.limits.in_flight_bytes;
            if !(ready || all || over) {
                break;
            }
            let Some(f) = self.in_flight.pop_front() else {
                break;
            };
            self.renders_in_flight -= f.renders;
            self.in_flight_bytes -= f.bytes;
            self.store(fill(f.sample, f.slots));
        }
    }

    /// Moves the frames whose renders are done into the record, oldest
    /// first, without waiting for any (the clock calls it between ticks).
    pub fn land_ready(&mut self) {
        if !self.in_flight.is_empty() {
            self.land(false);
        }
    }

    /// The number of the oldest frame still waiting for sensor renders
    /// (after landing those done), if any.
    pub fn oldest_waiting(&mut self) -> Option<u64> {
        self.land_ready();
        self.in_flight.front().map(|f| f.sample.frame)
    }

    /// Waits for every sensor render the recorded frames wait for, and
    /// moves those frames into the record: what an export or a snapshot
    /// reads must be complete.
    pub fn settle(&mut self) {
        self.land(true);
    }

    /// Frames recorded whose sensor renders are still running.
    pub fn frames_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Sensor renders those frames still wait for.
    pub fn renders_in_flight(&self) -> usize {
        self.renders_in_flight
    }
}

/// `s` with its agents' sensor samples taken from their rendered `slots`
/// (waiting for any still rendering).
fn fill(mut s: Sample, slots: Vec<Vec<(Arc<str>, Vec<SampleSlot>)>>) -> Sample {
    for (agent, sensors) in s.agents.iter_mut().zip(slots) {
        agent.sensors = sensors
            .into_iter()
            .map(|(name, v)| {
                let samples: Vec<Arc<SensorSample>> = v.iter().map(|s| s.get().clone()).collect();
                (name, samples)
            })
            .collect();
    }
    s
}
