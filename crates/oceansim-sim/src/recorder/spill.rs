//! The recorder's spill: frames and commands that no longer fit in memory,
//! appended as JSON Lines to two files in a private directory, and read
//! back, oldest first, by exports.
//!
//! `frames.jsonl` holds one recorded frame per line (every agent's state,
//! its last command inline and its sensor sequence numbers);
//! `samples.jsonl` the same frame's sensor samples, line for line (per
//! agent, per sensor, the samples with their family; empty lists when the
//! recorder keeps no sensor data), apart so that the exports that need no
//! payload never read them; `commands.jsonl` one logged command per line.
//! Floats are written in their shortest exact form, so a frame read back
//! equals the frame written, bit for bit. Lines are written whole, one
//! write each, and counted only once written: a reader stops at the last
//! counted byte, so it never meets a torn line, even while the simulation
//! appends.
//!
//! The directory is removed when the recorder that made it and every
//! export still reading it are gone.

use super::{AgentFrame, CommandEntry, Sample};
use crate::sensors::{Family, Reading, SensorSample};
use oceansim_agents::CommandRecord;
use oceansim_protocol::RequestId;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Name of the directory, under the export root, that holds spills.
pub const SPILL_DIR: &str = ".oceansim-spill";

/// A private directory, removed when dropped.
#[derive(Debug)]
struct SpillDir(PathBuf);

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        // The shared parent goes too once no spill is left in it.
        if let Some(parent) = self.0.parent() {
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// What is known of the spilled frames without reading them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpillHead {
    /// Time of the first and the last spilled frame (s).
    pub time_span: Option<[f64; 2]>,
    /// The main AUV's position in the first spilled frame (m, user frame).
    pub first_main_position: Option<[f64; 3]>,
    /// Agents, in the order they first appear.
    pub agents: Vec<String>,
    /// `(agent, sensor)` pairs with at least one spilled sample, in the
    /// order they first appear.
    pub sensor_keys: Vec<(String, String)>,
}

/// The appending side, owned by the recorder.
#[derive(Debug)]
pub(crate) struct Spill {
    dir: Arc<SpillDir>,
    frames: File,
    samples: File,
    commands: File,
    /// Bytes and lines written whole to each file.
    frame_bytes: u64,
    sample_bytes: u64,
    command_bytes: u64,
    frame_count: u64,
    command_count: u64,
    /// Most bytes the files may hold together.
    limit: u64,
    head: SpillHead,
    line: Vec<u8>,
}

/// What an export reads: the spill as it was when the export was taken.
#[derive(Debug, Clone)]
pub struct SpillView {
    dir: Arc<SpillDir>,
    frame_bytes: u64,
    sample_bytes: u64,
    command_bytes: u64,
    frame_count: u64,
    command_count: u64,
    head: SpillHead,
}

/// The spill's files.
const FRAMES: &str = "frames.jsonl";
const SAMPLES: &str = "samples.jsonl";
const COMMANDS: &str = "commands.jsonl";

/// Numbers spill directories within a process.
static SPILLS: AtomicU64 = AtomicU64::new(0);

impl Spill {
    /// A new spill in a fresh directory under `root/.oceansim-spill`,
    /// holding at most `limit` bytes.
    pub fn create(root: &Path, limit: u64) -> std::io::Result<Spill> {
        let n = SPILLS.fetch_add(1, Ordering::Relaxed);
        let path = root
            .join(SPILL_DIR)
            .join(format!("{}.{n}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        let dir = Arc::new(SpillDir(path));
        let open = |name: &str| {
            std::fs::OpenOptions::new()
                .create_new(true)
                .append(true)
                .open(dir.0.join(name))
        };
        Ok(Spill {
            frames: open(FRAMES)?,
            samples: open(SAMPLES)?,
            commands: open(COMMANDS)?,
            dir,
            frame_bytes: 0,
            sample_bytes: 0,
            command_bytes: 0,
            frame_count: 0,
            command_count: 0,
            limit,
            head: SpillHead::default(),
            line: Vec::new(),
        })
    }

    /// Where the spill is.
    pub fn path(&self) -> &Path {
        &self.dir.0
    }

    fn room(&self) -> u64 {
        self.limit
            .saturating_sub(self.frame_bytes + self.sample_bytes + self.command_bytes)
    }

    /// Appends a frame; an error (the limit reached, or the disk) leaves
    /// the counted lines as they were.
    pub fn frame(&mut self, s: &Sample) -> std::io::Result<()> {
        // Both lines first: a frame is counted whole or not at all.
        self.line.clear();
        serde_json::to_writer(&mut self.line, &SamplesOut::of(s))?;
        self.line.push(b'\n');
        let samples_len = self.line.len();
        serde_json::to_writer(&mut self.line, &FrameOut::of(s))?;
        self.line.push(b'\n');
        if self.line.len() as u64 > self.room() {
            return Err(std::io::Error::other("the spill is full"));
        }
        let (samples, frame) = self.line.split_at(samples_len);
        self.samples.write_all(samples)?;
        self.frames.write_all(frame)?;
        self.sample_bytes += samples.len() as u64;
        self.frame_bytes += frame.len() as u64;
        self.frame_count += 1;
        let h = &mut self.head;
        h.time_span = Some(match h.time_span {
            Some([t0, _]) => [t0, s.time],
            None => [s.time, s.time],
        });
        if h.first_main_position.is_none() {
            h.first_main_position = s.main().map(|m| m.position);
        }
        for a in &s.agents {
            if !h.agents.iter().any(|n| **n == *a.name) {
                h.agents.push(a.name.to_string());
            }
            for (sensor, taken) in &a.sensors {
                let seen = h
                    .sensor_keys
                    .iter()
                    .any(|(ag, se)| **ag == *a.name && **se == **sensor);
                if !taken.is_empty() && !seen {
                    h.sensor_keys.push((a.name.to_string(), sensor.to_string()));
                }
            }
        }
        Ok(())
    }

    /// Appends a logged command.
    pub fn command(&mut self, c: &CommandEntry) -> std::io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, &CommandLine::of(c))?;
        self.line.push(b'\n');
        if self.line.len() as u64 > self.room() {
            return Err(std::io::Error::other("the spill is full"));
        }
        self.commands.write_all(&self.line)?;
        self.command_bytes += self.line.len() as u64;
        self.command_count += 1;
        Ok(())
    }

    /// The spill as it is now, for an export to read.
    pub fn view(&self) -> SpillView {
        SpillView {
            dir: self.dir.clone(),
            frame_bytes: self.frame_bytes,
            sample_bytes: self.sample_bytes,
            command_bytes: self.command_bytes,
            frame_count: self.frame_count,
            command_count: self.command_count,
            head: self.head.clone(),
        }
    }
}

/// Whether a spilled frame is read with its sensor samples or without
/// (cheaper: the exports that need no payload skip them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payloads {
    /// Read the samples back.
    Keep,
    /// Leave them out (`AgentFrame::sensors` is empty).
    Skip,
}

impl SpillView {
    /// Frames in the spill.
    pub fn frame_count(&self) -> u64 {
        self.frame_count
    }

    /// Commands in the spill.
    pub fn command_count(&self) -> u64 {
        self.command_count
    }

    /// Bytes in the spill.
    pub fn bytes(&self) -> u64 {
        self.frame_bytes + self.sample_bytes + self.command_bytes
    }

    /// What is known of the frames without reading them.
    pub fn head(&self) -> &SpillHead {
        &self.head
    }

    /// Where the spill is.
    pub fn path(&self) -> &Path {
        &self.dir.0
    }

    fn lines(&self, name: &str, bytes: u64) -> std::io::Result<Lines> {
        let file = File::open(self.dir.0.join(name))?;
        Ok(Lines {
            read: BufReader::with_capacity(1 << 16, file.take(bytes)),
            line: String::new(),
            number: 0,
        })
    }

    /// The spilled frames, oldest first.
    pub fn frames(
        &self,
        payloads: Payloads,
    ) -> std::io::Result<impl Iterator<Item = std::io::Result<Sample>>> {
        let mut frames = self.lines(FRAMES, self.frame_bytes)?;
        let mut samples = match payloads {
            Payloads::Keep => Some(self.lines(SAMPLES, self.sample_bytes)?),
            Payloads::Skip => None,
        };
        Ok(std::iter::from_fn(move || {
            let frame = match frames.next_with(|text| serde_json::from_str::<FrameIn>(text))? {
                Ok(f) => f,
                Err(e) => return Some(Err(e)),
            };
            let Some(samples) = samples.as_mut() else {
                return Some(Ok(frame.into_sample(Vec::new())));
            };
            // One samples line per frame line, written before it.
            let taken = samples.next_with(SamplesIn::parse).unwrap_or_else(|| {
                Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "spill: a frame without its samples",
                ))
            });
            Some(taken.map(|t| frame.into_sample(t)))
        }))
    }

    /// The spilled commands, oldest first.
    pub fn commands(&self) -> std::io::Result<impl Iterator<Item = std::io::Result<CommandEntry>>> {
        let mut lines = self.lines(COMMANDS, self.command_bytes)?;
        Ok(std::iter::from_fn(move || {
            lines.next_with(|text| Ok(serde_json::from_str::<CommandLine>(text)?.into_entry()))
        }))
    }
}

/// Whole lines of a spill file, up to its counted length.
struct Lines {
    read: BufReader<std::io::Take<File>>,
    line: String,
    number: u64,
}

impl Lines {
    fn next_with<T>(
        &mut self,
        parse: impl FnOnce(&str) -> serde_json::Result<T>,
    ) -> Option<std::io::Result<T>> {
        self.line.clear();
        match self.read.read_line(&mut self.line) {
            Ok(0) => None,
            Ok(_) => {
                self.number += 1;
                Some(parse(self.line.trim_end()).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("spill line {}: {e}", self.number),
                    )
                }))
            }
            Err(e) => Some(Err(e)),
        }
    }
}

/// A logged command as a spill line.
#[derive(Debug, Serialize, Deserialize)]
struct CommandLine {
    id: u64,
    time: f64,
    agent: String,
    request_id: Option<RequestId>,
    record: CommandRecord,
}

impl CommandLine {
    fn of(c: &CommandEntry) -> Self {
        CommandLine {
            id: c.id,
            time: c.time,
            agent: c.agent.clone(),
            request_id: c.request_id.clone(),
            record: c.record.clone(),
        }
    }

    fn into_entry(self) -> CommandEntry {
        CommandEntry {
            id: self.id,
            time: self.time,
            agent: self.agent,
            request_id: self.request_id,
            record: self.record,
        }
    }
}

#[derive(Serialize)]
struct FrameOut<'a> {
    frame: u64,
    time: f64,
    agents: Vec<AgentOut<'a>>,
}

#[derive(Serialize)]
struct AgentOut<'a> {
    name: &'a str,
    vehicle: bool,
    position: [f64; 3],
    quaternion_xyzw: [f64; 4],
    velocity: [f64; 3],
    body_velocity: [f64; 6],
    heading_deg: f64,
    command: Option<CommandLine>,
    sensor_sequences: Vec<(&'a str, &'a [u64])>,
}

/// A frame's sensor samples: per agent, per sensor.
#[derive(Serialize)]
struct SamplesOut<'a>(Vec<Vec<(&'a str, Vec<SampleOut<'a>>)>>);

#[derive(Serialize)]
struct SampleOut<'a> {
    time: f64,
    wall_time: f64,
    sequence: u64,
    family: &'static str,
    reading: &'a Reading,
}

impl<'a> FrameOut<'a> {
    fn of(s: &'a Sample) -> Self {
        FrameOut {
            frame: s.frame,
            time: s.time,
            agents: s
                .agents
                .iter()
                .map(|a| AgentOut {
                    name: &a.name,
                    vehicle: a.vehicle,
                    position: a.position,
                    quaternion_xyzw: a.quaternion_xyzw,
                    velocity: a.velocity,
                    body_velocity: a.body_velocity,
                    heading_deg: a.heading_deg,
                    command: a.command.as_deref().map(CommandLine::of),
                    sensor_sequences: a
                        .sensor_sequences
                        .iter()
                        .map(|(n, q)| (&**n, q.as_slice()))
                        .collect(),
                })
                .collect(),
        }
    }
}

impl<'a> SamplesOut<'a> {
    fn of(s: &'a Sample) -> Self {
        SamplesOut(
            s.agents
                .iter()
                .map(|a| {
                    a.sensors
                        .iter()
                        .map(|(n, taken)| {
                            let out = taken
                                .iter()
                                .map(|s| SampleOut {
                                    time: s.time,
                                    wall_time: s.wall_time,
                                    sequence: s.sequence,
                                    family: s.reading.family().name(),
                                    reading: &s.reading,
                                })
                                .collect();
                            (&**n, out)
                        })
                        .collect()
                })
                .collect(),
        )
    }
}

/// A frame line read back.
#[derive(Deserialize)]
struct FrameIn {
    frame: u64,
    time: f64,
    agents: Vec<AgentIn>,
}

#[derive(Deserialize)]
struct AgentIn {
    name: String,
    vehicle: bool,
    position: [f64; 3],
    quaternion_xyzw: [f64; 4],
    velocity: [f64; 3],
    body_velocity: [f64; 6],
    heading_deg: f64,
    command: Option<CommandLine>,
    sensor_sequences: Vec<(String, Vec<u64>)>,
}

/// A samples line read back (readings stay raw until their family is
/// known).
#[derive(Deserialize)]
struct SamplesIn<'a>(#[serde(borrow)] Vec<Vec<(String, Vec<SampleIn<'a>>)>>);

#[derive(Deserialize)]
struct SampleIn<'a> {
    time: f64,
    wall_time: f64,
    sequence: u64,
    family: String,
    #[serde(borrow)]
    reading: &'a RawValue,
}

/// Per agent, per sensor, its samples.
type Taken = Vec<Vec<(Arc<str>, Vec<Arc<SensorSample>>)>>;

impl SamplesIn<'_> {
    fn parse(text: &str) -> serde_json::Result<Taken> {
        let SamplesIn(agents) = serde_json::from_str(text)?;
        agents
            .into_iter()
            .map(|sensors| {
                sensors
                    .into_iter()
                    .map(|(name, taken)| {
                        let samples = taken
                            .into_iter()
                            .map(|s| {
                                let family = Family::parse(&s.family).ok_or_else(|| {
                                    serde::de::Error::custom(format!(
                                        "unknown family `{}`",
                                        s.family
                                    ))
                                })?;
                                Ok(Arc::new(SensorSample {
                                    time: s.time,
                                    wall_time: s.wall_time,
                                    sequence: s.sequence,
                                    reading: Reading::from_json(family, s.reading.get())?,
                                }))
                            })
                            .collect::<serde_json::Result<Vec<_>>>()?;
                        Ok((name.into(), samples))
                    })
                    .collect()
            })
            .collect()
    }
}

impl AgentIn {
    fn into_frame(self, sensors: Vec<(Arc<str>, Vec<Arc<SensorSample>>)>) -> AgentFrame {
        AgentFrame {
            name: self.name.into(),
            vehicle: self.vehicle,
            position: self.position,
            quaternion_xyzw: self.quaternion_xyzw,
            velocity: self.velocity,
            body_velocity: self.body_velocity,
            heading_deg: self.heading_deg,
            command: self.command.map(|c| Arc::new(c.into_entry())),
            sensor_sequences: self
                .sensor_sequences
                .into_iter()
                .map(|(n, q)| (n.into(), q))
                .collect(),
            sensors,
        }
    }
}

impl FrameIn {
    /// The frame with its agents' samples (`taken`, per agent; missing
    /// agents get none).
    fn into_sample(self, taken: Taken) -> Sample {
        let mut taken = taken.into_iter();
        Sample {
            frame: self.frame,
            time: self.time,
            agents: self
                .agents
                .into_iter()
                .map(|a| a.into_frame(taken.next().unwrap_or_default()))
                .collect(),
        }
    }
}

/// The bytes a frame takes in the spill (for tests that size one).
#[cfg(test)]
pub(super) fn tests_bytes(s: &Sample) -> u64 {
    let len = |v: serde_json::Result<Vec<u8>>| v.map_or(0, |v| v.len() as u64 + 1);
    len(serde_json::to_vec(&FrameOut::of(s))) + len(serde_json::to_vec(&SamplesOut::of(s)))
}
