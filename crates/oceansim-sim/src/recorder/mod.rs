//! The run recorder: one frame per recording period (by default the control
//! period), kept for export. The `recorder` system writes it; export reads
//! it, never live state.
//!
//! A frame holds every agent's full state (pose, attitude, world and body
//! velocity), a link to the last command it accepted, and the sequence
//! numbers of every sensor sample its sensors took since the previous
//! frame. Accepted commands are logged once each, with an id the frames
//! link to, the time, the agent and the request id they came with. Both
//! are bounded ([`MAX_RECORDED_SAMPLES`], [`MAX_RECORDED_BYTES`],
//! [`MAX_RECORDED_COMMANDS`]); when full, the oldest go first.

use crate::sensors::SensorSample;
use oceansim_agents::CommandRecord;
use oceansim_protocol::RequestId;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Most recorded frames kept for export (10 Hz: about 2.8 h); the oldest
/// are dropped first.
pub const MAX_RECORDED_SAMPLES: usize = 100_000;
/// Most memory the recorded frames may take (an estimate of their heap and
/// inline bytes, the sensor samples they keep included: the default sensor
/// set takes about 0.2 MB per simulated second, so this holds about
/// 1.5 h); the oldest are dropped first.
pub const MAX_RECORDED_BYTES: usize = 1 << 30;
/// Most logged commands kept; the oldest are dropped first (a frame may
/// then link to a command no longer in the log).
pub const MAX_RECORDED_COMMANDS: usize = 100_000;

/// One recorded frame (user frame: x east, y north, z up).
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Frame number, counting from 0 for each simulation.
    pub frame: u64,
    /// Simulation time (s).
    pub time: f64,
    /// Every agent: the main AUV first, then the others in joining order.
    pub agents: Vec<AgentFrame>,
}

/// One agent in a recorded frame.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentFrame {
    /// Agent name.
    pub name: Arc<str>,
    /// Whether it is a vehicle (dynamics and sensors) rather than a proxy.
    pub vehicle: bool,
    /// Position (m).
    pub position: [f64; 3],
    /// Attitude, body (x forward, y left, z up) to user frame.
    pub quaternion_xyzw: [f64; 4],
    /// Velocity (m/s, user frame).
    pub velocity: [f64; 3],
    /// Fossen body velocity ν = [u, v, w, p, q, r] (m/s, rad/s; FRD).
    pub body_velocity: [f64; 6],
    /// Compass heading (deg, 0 = north, clockwise).
    pub heading_deg: f64,
    /// The last command the agent accepted, if any.
    pub command: Option<Arc<CommandEntry>>,
    /// Per sensor (declaration order), the sequence numbers of the samples
    /// it took since the previous frame.
    pub sensor_sequences: Vec<(Arc<str>, Vec<u64>)>,
    /// Per sensor, those samples themselves (shared with the sensor's
    /// buffer) when the recorder keeps sensor data, else empty.
    pub sensors: Vec<(Arc<str>, Vec<Arc<SensorSample>>)>,
}

/// A logged command.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandEntry {
    /// Id, counting from 0 for each simulation.
    pub id: u64,
    /// When it was accepted (s, simulated).
    pub time: f64,
    /// The agent it was for.
    pub agent: String,
    /// The request id it arrived with.
    pub request_id: Option<RequestId>,
    /// Action, payload as applied, and frame.
    pub record: CommandRecord,
}

/// What [`Recorder::take_sensors`] gives: per sensor its sequence numbers,
/// and per sensor its samples when they are kept.
pub type SensorTake = (
    Vec<(Arc<str>, Vec<u64>)>,
    Vec<(Arc<str>, Vec<Arc<SensorSample>>)>,
);

/// What the recorder knows of one sensor between frames.
#[derive(Debug, Clone, Default)]
struct SensorTrack {
    name: Arc<str>,
    /// Latest sequence number seen.
    last: Option<u64>,
    /// Sequence numbers seen since the last frame.
    pending_seqs: Vec<u64>,
    /// Their samples, when the recorder keeps sensor data.
    pending: Vec<Arc<SensorSample>>,
}

/// The recorder resource. Frames are shared, so an export can take the
/// whole record in O(N) pointer copies and write it on another thread.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    samples: VecDeque<Arc<Sample>>,
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
}

impl Sample {
    /// Approximate heap and inline bytes of this frame.
    pub fn approx_bytes(&self) -> usize {
        let agents: usize = self
            .agents
            .iter()
            .map(|a| {
                // Each sample counted whole: the recorder is what keeps it
                // alive once it leaves the sensor's short buffer.
                let sensors: usize = a
                    .sensors
                    .iter()
                    .map(|(_, taken)| {
                        40 + taken.iter().map(|s| 8 + s.approx_bytes()).sum::<usize>()
                    })
                    .sum();
                std::mem::size_of::<AgentFrame>() + sensors
            })
            .sum();
        std::mem::size_of::<Sample>() + agents
    }

    /// The main AUV's frame (the first agent).
    pub fn main(&self) -> Option<&AgentFrame> {
        self.agents.first()
    }
}

impl Recorder {
    /// A recorder whose frames keep the sensor samples themselves
    /// (`keep_sensor_data`) or only their sequence numbers. Keeping them
    /// costs memory (about 0.14 MB per simulated second for the default
    /// sensor set) and, at hundreds of times real time, speed.
    pub fn new(keep_sensor_data: bool) -> Self {
        Recorder {
            keep_sensor_data,
            ..Recorder::default()
        }
    }

    /// Whether frames keep the sensor samples.
    pub fn keeps_sensor_data(&self) -> bool {
        self.keep_sensor_data
    }

    /// Appends a frame, dropping the oldest past [`MAX_RECORDED_SAMPLES`]
    /// or [`MAX_RECORDED_BYTES`].
    pub fn push(&mut self, s: Sample) {
        self.bytes += s.approx_bytes();
        self.samples.push_back(Arc::new(s));
        while self.samples.len() > MAX_RECORDED_SAMPLES || self.bytes > MAX_RECORDED_BYTES {
            let Some(old) = self.samples.pop_front() else {
                break;
            };
            self.bytes = self.bytes.saturating_sub(old.approx_bytes());
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
        if self.commands.len() > MAX_RECORDED_COMMANDS {
            self.commands.pop_front();
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
        samples: impl Iterator<Item = &'a Arc<SensorSample>>,
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
            if t.last.is_none_or(|l| s.sequence > l) {
                t.pending_seqs.push(s.sequence);
                if keep {
                    t.pending.push(s.clone());
                }
                t.last = Some(s.sequence);
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

    /// The frames, oldest first, shared.
    pub fn shared(&self) -> Vec<Arc<Sample>> {
        self.samples.iter().cloned().collect()
    }

    /// The newest frame, shared.
    pub fn latest(&self) -> Option<Arc<Sample>> {
        self.samples.back().cloned()
    }

    /// The logged commands, oldest first, shared.
    pub fn commands(&self) -> Vec<Arc<CommandEntry>> {
        self.commands.iter().cloned().collect()
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.samples.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imu(sequence: u64) -> Arc<SensorSample> {
        Arc::new(SensorSample {
            time: sequence as f64 * 0.01,
            wall_time: 0.0,
            sequence,
            reading: crate::sensors::Reading::Depth(crate::sensors::DepthReading {
                depth_m: 0.0,
                pressure_pa: 0.0,
            }),
        })
    }

    fn seqs(v: &SensorTake) -> Vec<u64> {
        assert_eq!(
            v.0[0].1,
            v.1[0].1.iter().map(|s| s.sequence).collect::<Vec<_>>(),
            "numbers and kept samples agree"
        );
        v.0[0].1.clone()
    }

    fn sample(agents: usize) -> Sample {
        let agent = AgentFrame {
            name: "auv/main".into(),
            vehicle: true,
            position: [0.0; 3],
            quaternion_xyzw: [0.0, 0.0, 0.0, 1.0],
            velocity: [0.0; 3],
            body_velocity: [0.0; 6],
            heading_deg: 0.0,
            command: None,
            sensor_sequences: vec![("imu".into(), (0..10).collect())],
            sensors: vec![("imu".into(), (0..10).map(imu).collect())],
        };
        Sample {
            frame: 0,
            time: 0.0,
            agents: vec![agent; agents.max(1)],
        }
    }

    #[test]
    fn bounded_by_count_and_by_bytes() {
        let mut r = Recorder::default();
        for _ in 0..MAX_RECORDED_SAMPLES + 10 {
            r.push(sample(1));
        }
        assert_eq!(r.len(), MAX_RECORDED_SAMPLES);
        let mut r = Recorder::default();
        let per = sample(64).approx_bytes();
        for _ in 0..MAX_RECORDED_BYTES / per + 100 {
            r.push(sample(64));
        }
        assert_eq!(r.len(), MAX_RECORDED_BYTES / per);
        assert!(r.bytes <= MAX_RECORDED_BYTES);
    }

    #[test]
    fn a_frame_counts_the_sensor_data_it_keeps() {
        let scan = Arc::new(SensorSample {
            time: 0.0,
            wall_time: 0.0,
            sequence: 0,
            reading: crate::sensors::Reading::Lidar2d(crate::sensors::Lidar2dReading {
                angle_min_rad: 0.0,
                angle_increment_rad: 0.0,
                range_min_m: 0.0,
                range_max_m: 0.0,
                ranges: vec![0.0; 100_000],
                intensities: Vec::new(),
            }),
        });
        let mut f = sample(1);
        let bare = f.approx_bytes();
        f.agents[0].sensors.push(("lidar_2d".into(), vec![scan]));
        assert!(f.approx_bytes() >= bare + 800_000, "{}", f.approx_bytes());
    }

    #[test]
    fn sensor_sequences_are_taken_once_each_and_restart_after_a_reset() {
        let mut r = Recorder::new(true);
        let buf: Vec<_> = (0..8).map(imu).collect();
        r.note_sensor(1, "imu", Some(4), buf[0..5].iter());
        r.note_sensor(1, "imu", Some(4), buf[0..5].iter());
        r.note_sensor(1, "imu", Some(7), buf[3..8].iter());
        assert_eq!(seqs(&r.take_sensors(1)), (0..8).collect::<Vec<_>>());
        assert!(r.take_sensors(1).0[0].1.is_empty(), "taken once");
        // A rebuilt sensor counts from 0 again.
        r.note_sensor(1, "imu", Some(1), buf[0..2].iter());
        assert_eq!(seqs(&r.take_sensors(1)), vec![0, 1]);
        assert!(r.take_sensors(2).0.is_empty(), "unknown entity");
        // Without sensor data: the numbers, no samples.
        let mut r = Recorder::new(false);
        r.note_sensor(1, "imu", Some(4), buf[0..5].iter());
        let (numbers, samples) = r.take_sensors(1);
        assert_eq!(numbers[0].1, (0..5).collect::<Vec<_>>());
        assert!(samples.is_empty());
    }

    #[test]
    fn commands_get_increasing_ids_and_the_log_is_bounded() {
        let mut r = Recorder::default();
        let rec = CommandRecord {
            action: "set_force".into(),
            data: serde_json::json!({}),
            frame: None,
        };
        for i in 0..MAX_RECORDED_COMMANDS as u64 + 3 {
            let e = r.log_command("auv/main", rec.clone(), 0.1, None);
            assert_eq!(e.id, i);
        }
        let log = r.commands();
        assert_eq!(log.len(), MAX_RECORDED_COMMANDS);
        assert_eq!(log[0].id, 3, "oldest dropped");
    }
}
