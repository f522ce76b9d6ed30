//! # oceansim-record
//!
//! The run recorder: one frame per recording period (by default the control
//! period), kept for export. The `recorder` system writes it; export reads
//! it, never live state.
//!
//! A frame holds every agent's full state (pose, attitude, world and body
//! velocity), a link to the last command it accepted, and the sequence
//! numbers of every sensor sample its sensors took since the previous
//! frame. Accepted commands are logged once each, with an id the frames
//! link to, the time, the agent and the request id they came with.
//!
//! Memory is bounded ([`RecordLimits`]: by default [`MAX_RECORDED_SAMPLES`]
//! frames, [`MAX_RECORDED_BYTES`] and [`MAX_RECORDED_COMMANDS`]). Past the
//! bounds the oldest frames and commands *spill*: they are appended, as
//! JSON Lines, to files in a private directory under the export root
//! ([`spill`]), and exports read them back before those still in memory,
//! so a long run exports whole. Only if the spill cannot be written (no
//! spill directory, the disk, or [`MAX_SPILL_BYTES`]) are the oldest
//! dropped instead; they are counted, and exports say so.
//!
//! A frame may be recorded while sensor samples it holds still render on
//! worker threads ([`oceansim_sensors::SampleSlot`]): it waits beside the
//! record ([`Recorder::push_with_slots`]) and joins it, in order, once they
//! are done ([`Recorder::land_ready`], which the clock calls, lands them
//! while nobody records). At most [`RecordLimits::renders_in_flight`]
//! renders and [`RecordLimits::in_flight_bytes`] of frames wait; past
//! either, recording waits for the oldest, so no sample is ever lost.
//! What reads the whole record ([`Recorder::frames`], an export) first
//! waits for every render ([`Recorder::settle`]); a server first lets them
//! catch up elsewhere ([`Recorder::oldest_waiting`]).
//!
//! Also here, as what the recorder and the exporters write through: the
//! export root's confined file system ([`safe_fs`]: every path inside the
//! root, no links followed, files written whole or not at all) and its
//! disk budget ([`disk`]), which the spill and every export draw on.
//!
//! ## Conventions
//!
//! - Frames are in the user frame (x east, y north, z up; m, m/s), body
//!   velocities in Fossen's body frame (x forward, y starboard, z down),
//!   attitudes as `[x, y, z, w]` body (FLU) to user frame; times are
//!   simulated seconds.
//! - Frames and commands are shared (`Arc`): an export takes the record in
//!   pointer copies and writes it on another thread.
//! - Errors: [`RecordError`] where the export root refuses a client's path
//!   or name or a write under it fails (it converts into the protocol's
//!   `invalid_message`, [`oceansim_protocol::ProtocolError`], text
//!   unchanged), and [`std::io::Error`] where the recorder's own disk
//!   reads and writes fail; the caller, which knows the request, turns
//!   the latter into the protocol's answer.
//!
//! ## Example
//!
//! A recorder that keeps three frames in memory and spills the rest to a
//! directory, then reads the whole run back, oldest first:
//!
//! ```
//! use oceansim_record::{AgentFrame, Payloads, RecordLimits, Recorder, Sample};
//!
//! let root = std::env::temp_dir().join(format!("oceansim-record-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&root)?;
//! let limits = RecordLimits {
//!     memory_frames: 3,
//!     spill_root: Some(root.clone()),
//!     ..RecordLimits::default()
//! };
//! let mut recorder = Recorder::with_limits(false, limits);
//! for k in 0..10u32 {
//!     let frame = recorder.next_frame();
//!     let agent = AgentFrame {
//!         name: "auv/main".into(),
//!         vehicle: true,
//!         position: [f64::from(k), 0.0, -2.0],
//!         quaternion_xyzw: [0.0, 0.0, 0.0, 1.0],
//!         velocity: [1.0, 0.0, 0.0],
//!         body_velocity: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
//!         heading_deg: 90.0,
//!         fin_angles_rad: Vec::new(),
//!         propeller_rpm: Vec::new(),
//!         imu_bias: None,
//!         command: None,
//!         sensor_sequences: Vec::new(),
//!         sensors: Vec::new(),
//!     };
//!     recorder.push(Sample { frame, time: f64::from(k), agents: vec![agent] });
//! }
//! let frames = recorder.frames();
//! assert_eq!((frames.len(), frames.spilled()), (10, 7));
//! let xs: Vec<f64> = frames
//!     .iter(Payloads::Skip)
//!     .map(|s| s.map(|s| s.agents[0].position[0]))
//!     .collect::<std::io::Result<_>>()?;
//! assert_eq!(xs, (0..10).map(f64::from).collect::<Vec<_>>());
//! drop((frames, recorder));
//! std::fs::remove_dir_all(&root)?;
//! # Ok::<(), std::io::Error>(())
//! ```

mod codec;
pub mod disk;
mod error;
mod frames;
mod in_flight;
pub mod safe_fs;
mod sample;
pub mod spill;

pub use error::RecordError;
pub use frames::{Cancel, RecordedFrames};
pub use in_flight::{
    LIVE_VIEW_RENDERS_IN_FLIGHT, MAX_RENDERS_IN_FLIGHT, MAX_RENDER_BACKLOG_BYTES,
    PENDING_RENDER_BYTES,
};
pub use sample::{AgentFrame, CommandEntry, Sample};
pub use spill::{Payloads, SpillHead, SpillView, SPILL_DIR};

use in_flight::InFlight;
use oceansim_agents::CommandRecord;
use oceansim_protocol::RequestId;
use oceansim_sensors::SampleSlot;
use spill::Spill;
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

/// Most recorded frames kept in memory by default (10 Hz: about 2.8 h);
/// older ones spill to disk.
pub const MAX_RECORDED_SAMPLES: usize = 100_000;
/// Most memory the recorded frames may take by default (an estimate of
/// their heap and inline bytes, the sensor samples they keep included):
/// 96 MiB, so that a long default recording and its packed export stay
/// within 256 MiB of a server's memory (the export's own buffers and the
/// rest of the server take the remainder). The default sensor set with
/// its images takes about 1.6 MB per simulated second, so about a minute
/// of it stays in memory; older frames spill to disk.
pub const MAX_RECORDED_BYTES: usize = 96 << 20;
/// Most logged commands kept in memory by default; older ones spill to
/// disk.
pub const MAX_RECORDED_COMMANDS: usize = 100_000;
/// Most bytes a spill may hold by default (64 GiB); past it, evicted
/// frames are dropped.
pub const MAX_SPILL_BYTES: u64 = 64 << 30;

/// How much the recorder keeps in memory, and where the rest goes.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordLimits {
    /// Most frames in memory.
    pub memory_frames: usize,
    /// Most bytes of frames in memory ([`Sample::approx_bytes`]).
    pub memory_bytes: usize,
    /// Most logged commands in memory.
    pub memory_commands: usize,
    /// The directory under which the spill is made (the export root), or
    /// `None` to drop what does not fit.
    pub spill_root: Option<PathBuf>,
    /// Most bytes the spill may hold.
    pub spill_bytes: u64,
    /// Most sensor samples still rendering that the frames waiting for
    /// them may hold; past it, recording a frame waits (it never drops a
    /// sample).
    pub renders_in_flight: usize,
    /// Most bytes the frames waiting for renders may hold: their own
    /// ([`Sample::approx_bytes`]), their samples already taken (the
    /// lidars', the navigation sensors') and [`PENDING_RENDER_BYTES`] per
    /// render not yet done. These frames wait outside
    /// [`RecordLimits::memory_bytes`] (they cannot spill before their
    /// renders are done); past this bound recording waits, as past
    /// [`RecordLimits::renders_in_flight`].
    pub in_flight_bytes: usize,
}

impl Default for RecordLimits {
    fn default() -> Self {
        RecordLimits {
            memory_frames: MAX_RECORDED_SAMPLES,
            memory_bytes: MAX_RECORDED_BYTES,
            memory_commands: MAX_RECORDED_COMMANDS,
            spill_root: None,
            spill_bytes: MAX_SPILL_BYTES,
            renders_in_flight: MAX_RENDERS_IN_FLIGHT,
            in_flight_bytes: MAX_RENDER_BACKLOG_BYTES,
        }
    }
}

/// What [`Recorder::take_sensors`] gives: per sensor its sequence numbers,
/// and per sensor its samples when they are kept.
pub type SensorTake = (Vec<(Arc<str>, Vec<u64>)>, Vec<(Arc<str>, Vec<SampleSlot>)>);

/// What the recorder knows of one sensor between frames.
#[derive(Debug, Clone, Default)]
struct SensorTrack {
    name: Arc<str>,
    /// Latest sequence number seen.
    last: Option<u64>,
    /// Sequence numbers seen since the last frame.
    pending_seqs: Vec<u64>,
    /// Their samples (rendered or rendering), when the recorder keeps
    /// sensor data.
    pending: Vec<SampleSlot>,
}

/// The recorder resource. Frames are shared, so an export can take the
/// whole record in O(N) pointer copies and write it on another thread.
#[derive(Debug, Default)]
pub struct Recorder {
    limits: RecordLimits,
    /// Frames and commands evicted from memory, once the first is.
    spill: Option<Spill>,
    /// Why the spill stopped taking frames, once it has.
    spill_failure: Option<String>,
    dropped_frames: u64,
    dropped_commands: u64,
    samples: VecDeque<Arc<Sample>>,
    /// Frames waiting for sensor renders, oldest first: they come after
    /// every frame in `samples`.
    in_flight: VecDeque<InFlight>,
    /// Their renders still running when they were recorded.
    renders_in_flight: usize,
    /// What they count against [`RecordLimits::in_flight_bytes`].
    in_flight_bytes: usize,
    /// Sum of the frames' [`Sample::approx_bytes`].
    bytes: usize,
    commands: VecDeque<Arc<CommandEntry>>,
    next_command: u64,
    next_frame: u64,
    /// Per entity id, its sensors.
    sensors: HashMap<u64, Vec<SensorTrack>>,
    /// Per entity id, its name, shared by every frame.
    names: HashMap<u64, Arc<str>>,
    /// Whether frames keep the sensor samples, not only their numbers.
    keep_sensor_data: bool,
    /// When the recording began on the Unix clock (ns): exports place the
    /// run's simulated times after it (simulated time 0 is this instant).
    started_unix_ns: u64,
}

impl Recorder {
    /// A recorder whose frames keep the sensor samples themselves
    /// (`keep_sensor_data`) or only their sequence numbers. Keeping them
    /// costs memory (about 0.14 MB per simulated second for the default
    /// sensor set) and, at hundreds of times real time, speed.
    #[cfg(test)]
    pub fn new(keep_sensor_data: bool) -> Self {
        Recorder::with_limits(keep_sensor_data, RecordLimits::default())
    }

    /// A recorder with the given memory bounds and spill.
    pub fn with_limits(keep_sensor_data: bool, limits: RecordLimits) -> Self {
        Recorder {
            keep_sensor_data,
            limits,
            started_unix_ns: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            ..Recorder::default()
        }
    }

    /// When the recording began (ns since the Unix epoch): an export's log
    /// times are this plus the simulated time.
    pub fn started_unix_ns(&self) -> u64 {
        self.started_unix_ns
    }

    /// Sets when the recording began (a restored simulation takes the
    /// saved one's, so that its exports are the saved one's to the byte).
    pub fn set_started_unix_ns(&mut self, ns: u64) {
        self.started_unix_ns = ns;
    }

    /// Raises (or lowers, for frames recorded from now on) the most frames
    /// and commands kept in memory.
    pub fn set_memory_frames(&mut self, n: usize) {
        self.limits.memory_frames = n;
        self.limits.memory_commands = n;
    }

    /// The spill, made on first use; `None` once it has failed (or when
    /// there is nowhere to make it).
    fn spill(&mut self) -> Option<&mut Spill> {
        if self.spill.is_none() && self.spill_failure.is_none() {
            match &self.limits.spill_root {
                None => self.spill_failure = Some("no spill directory".into()),
                Some(root) => match Spill::create(root, self.limits.spill_bytes) {
                    Ok(s) => {
                        tracing::info!(path = %s.path().display(), "recorder spilling to disk");
                        self.spill = Some(s);
                    }
                    Err(e) => {
                        self.fail(format!("cannot create a spill in {}: {e}", root.display()))
                    }
                },
            }
        }
        if self.spill_failure.is_some() {
            return None;
        }
        self.spill.as_mut()
    }

    fn fail(&mut self, why: String) {
        tracing::warn!("recorder: {why}; the oldest frames and commands are dropped from now on");
        self.spill_failure = Some(why);
    }

    /// Moves an evicted frame to the spill, or drops it.
    fn evict_frame(&mut self, old: &Sample) {
        if !self.spill_write(|s| s.frame(old)) {
            self.dropped_frames += 1;
        }
    }

    /// Moves an evicted command to the spill, or drops it.
    fn evict_command(&mut self, old: &CommandEntry) {
        if !self.spill_write(|s| s.command(old)) {
            self.dropped_commands += 1;
        }
    }

    /// Writes to the spill; whether it took the write.
    fn spill_write(&mut self, write: impl FnOnce(&mut Spill) -> std::io::Result<()>) -> bool {
        match self.spill().map(write) {
            Some(Ok(())) => true,
            Some(Err(e)) => {
                self.fail(format!("spill write failed: {e}"));
                false
            }
            None => false,
        }
    }

    /// Whether frames keep the sensor samples.
    pub fn keeps_sensor_data(&self) -> bool {
        self.keep_sensor_data
    }

    /// Its bounds.
    pub fn limits(&self) -> &RecordLimits {
        &self.limits
    }

    /// Appends a frame; past the memory bounds the oldest spill to disk
    /// (or, if they cannot, are dropped).
    pub fn push(&mut self, s: Sample) {
        self.push_with_slots(s, Vec::new());
    }

    /// The number the next frame recorded will take (every frame recorded
    /// so far is below it).
    pub fn frames_taken(&self) -> u64 {
        self.next_frame
    }

    fn store(&mut self, s: Sample) {
        self.bytes += s.approx_bytes();
        self.samples.push_back(Arc::new(s));
        while self.samples.len() > self.limits.memory_frames
            || self.bytes > self.limits.memory_bytes
        {
            let Some(old) = self.samples.pop_front() else {
                break;
            };
            self.bytes = self.bytes.saturating_sub(old.approx_bytes());
            self.evict_frame(&old);
        }
    }

    /// The next frame number (taken).
    pub fn next_frame(&mut self) -> u64 {
        self.next_frame += 1;
        self.next_frame - 1
    }

    /// Logs an accepted command; returns its entry, for the agent to keep.
    pub fn log_command(
        &mut self,
        agent: &str,
        record: CommandRecord,
        time: f64,
        request_id: Option<RequestId>,
    ) -> Arc<CommandEntry> {
        let entry = Arc::new(CommandEntry {
            id: self.next_command,
            time,
            agent: agent.to_owned(),
            request_id,
            record,
        });
        self.next_command += 1;
        self.commands.push_back(entry.clone());
        if self.commands.len() > self.limits.memory_commands {
            // Frames and commands spill in the order they were recorded
            // (they share the spill's budget): the frames waiting for
            // renders go first, as they would have without the wait.
            self.land(true);
        }
        while self.commands.len() > self.limits.memory_commands {
            let Some(old) = self.commands.pop_front() else {
                break;
            };
            self.evict_command(&old);
        }
        entry
    }

    /// Notes the buffered samples (oldest first, the latest numbered
    /// `latest`) of sensor `name` on entity `id`: those past the last seen
    /// wait for the next frame. A sequence below the last seen means the
    /// sensor was rebuilt (a reset): its count starts again. Runs every
    /// tick, so a sensor with nothing new costs one comparison.
    pub fn note_sensor<'a>(
        &mut self,
        id: u64,
        name: &str,
        latest: Option<u64>,
        samples: impl Iterator<Item = &'a SampleSlot>,
    ) {
        let tracks = self.sensors.entry(id).or_default();
        let at = match tracks.iter().position(|t| &*t.name == name) {
            Some(at) => at,
            None => {
                tracks.push(SensorTrack {
                    name: name.into(),
                    ..SensorTrack::default()
                });
                tracks.len() - 1
            }
        };
        let keep = self.keep_sensor_data;
        let t = &mut tracks[at];
        if latest.is_none() || latest == t.last {
            return;
        }
        if let (Some(last), Some(latest)) = (t.last, latest) {
            if latest < last {
                t.last = None;
            }
        }
        for s in samples {
            let sequence = s.sequence();
            if t.last.is_none_or(|l| sequence > l) {
                t.pending_seqs.push(sequence);
                if keep {
                    t.pending.push(s.clone());
                }
                t.last = Some(sequence);
            }
        }
    }

    /// The sequence numbers and (when kept) samples entity `id`'s sensors
    /// took since the last frame, taken.
    pub fn take_sensors(&mut self, id: u64) -> SensorTake {
        let Some(tracks) = self.sensors.get_mut(&id) else {
            return (Vec::new(), Vec::new());
        };
        let seqs = tracks
            .iter_mut()
            .map(|t| (t.name.clone(), std::mem::take(&mut t.pending_seqs)))
            .collect();
        let samples = if self.keep_sensor_data {
            tracks
                .iter_mut()
                .map(|t| (t.name.clone(), std::mem::take(&mut t.pending)))
                .collect()
        } else {
            Vec::new()
        };
        (seqs, samples)
    }

    /// Forgets entities no longer in the world.
    pub fn retain_entities(&mut self, alive: impl Fn(u64) -> bool) {
        self.sensors.retain(|id, _| alive(*id));
        self.names.retain(|id, _| alive(*id));
    }

    /// Entity `id`'s name as frames share it (allocated once per entity).
    pub fn name_of(&mut self, id: u64, name: &str) -> Arc<str> {
        match self.names.get(&id) {
            Some(n) if **n == *name => n.clone(),
            _ => {
                let n: Arc<str> = name.into();
                self.names.insert(id, n.clone());
                n
            }
        }
    }

    /// The frames in memory, oldest first, shared (see [`Recorder::frames`]
    /// for all of them), once every render they wait for is done
    /// ([`Recorder::settle`]).
    pub fn shared(&mut self) -> Vec<Arc<Sample>> {
        self.settle();
        self.samples.iter().cloned().collect()
    }

    /// Everything recorded, as it is now: spilled and in memory, once every
    /// render the frames wait for is done ([`Recorder::settle`]). Cheap
    /// (frames are shared, the spill is read later), and unaffected by
    /// what is recorded after.
    pub fn frames(&mut self) -> RecordedFrames {
        self.settle();
        RecordedFrames {
            spill: self.spill.as_ref().map(Spill::view),
            memory: self.shared(),
            commands: self.commands(),
            dropped_frames: self.dropped_frames,
            dropped_commands: self.dropped_commands,
            cancel: None,
        }
    }

    /// Why the spill stopped taking frames, if it has.
    pub fn spill_failure(&self) -> Option<&str> {
        self.spill_failure.as_deref()
    }

    /// The frames in memory newer than frame number `after` (all for
    /// `None`), oldest first, shared: with those whose renders are done
    /// since the last frame was recorded (a paused world records none),
    /// without waiting for the others (live views read this).
    pub fn after(&mut self, after: Option<u64>) -> Vec<Arc<Sample>> {
        self.land(false);
        let newer = self
            .samples
            .iter()
            .rev()
            .take_while(|s| after.is_none_or(|a| s.frame > a))
            .count();
        self.samples
            .iter()
            .skip(self.samples.len() - newer)
            .cloned()
            .collect()
    }

    /// The newest frame whose renders are done, shared (landing those
    /// done since the last frame was recorded, as [`Recorder::after`]).
    pub fn latest(&mut self) -> Option<Arc<Sample>> {
        self.land(false);
        self.samples.back().cloned()
    }

    /// The logged commands, oldest first, shared.
    pub fn commands(&self) -> Vec<Arc<CommandEntry>> {
        self.commands.iter().cloned().collect()
    }

    /// Number of frames in memory.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.samples.len()
    }

    /// Number of frames kept, spilled ones and those waiting for renders
    /// included.
    pub fn total_len(&self) -> usize {
        let spilled = self.spill.as_ref().map_or(0, Spill::frame_count);
        self.samples
            .len()
            .saturating_add(self.in_flight.len())
            .saturating_add(spilled as usize)
    }
}

#[cfg(test)]
mod tests;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
