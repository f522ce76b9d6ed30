//! # oceansim-dataset
//!
//! Reads a run directory written by oceansim-rs (`export_dataset`,
//! `oceansim run`): [`RunReplay::open`] loads `metadata.json`,
//! `agent_timeline.jsonl` and `commands.jsonl`, and gives the frames, each
//! agent's trajectory, the logged commands, the sensor sample sequences
//! recorded with each frame, TUM and EuRoC rows (from the run's own
//! `trajectories/` files) and a [`Summary`].
//!
//! ## Conventions
//!
//! * Positions and velocities are in the user frame (m, m/s; x east,
//!   y north, z up); quaternions are `[x, y, z, w]` and turn the body FLU
//!   frame (x forward, y left, z up) into it; body velocities are Fossen's
//!   ν = `[u, v, w, p, q, r]` (FRD).
//! * Times are simulated seconds; a frame is one control period.
//! * Numbers read back exactly as the simulator wrote them (shortest
//!   round-trip decimal text), so a replayed trajectory equals the recorded
//!   one bit for bit.
//!
//! ## Example
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! # std::fs::write(dir.path().join("metadata.json"), r#"{"scenario": "Static_Map", "seed": 0}"#).unwrap();
//! # std::fs::write(dir.path().join("agent_timeline.jsonl"), concat!(
//! #   r#"{"frame":0,"time":0.0,"agent":"auv/main","state":{"position":[0.0,0.0,-6.0],"quaternion_xyzw":[0.0,0.0,0.7071067811865476,0.7071067811865476],"velocity":[0.0,0.0,0.0],"body_velocity":[0.0,0.0,0.0,0.0,0.0,0.0],"heading_deg":0.0},"command":null,"sensor_sequences":{"imu":[0]}}"#, "\n",
//! #   r#"{"frame":1,"time":0.1,"agent":"auv/main","state":{"position":[0.0,0.1,-6.0],"quaternion_xyzw":[0.0,0.0,0.7071067811865476,0.7071067811865476],"velocity":[0.0,1.0,0.0],"body_velocity":[1.0,0.0,0.0,0.0,0.0,0.0],"heading_deg":0.0},"command":null,"sensor_sequences":{"imu":[1,2,3,4,5,6,7,8,9,10]}}"#, "\n")).unwrap();
//! use oceansim_dataset::RunReplay;
//!
//! let run = RunReplay::open(dir.path())?;
//! assert_eq!(run.frame_count(), 2);
//! let track = run.trajectory("auv/main");
//! assert_eq!(track[1].position, [0.0, 0.1, -6.0]);
//! assert_eq!(run.sensor_frames("auv/main", "imu").len(), 2);
//! assert!((run.summary().distance_m["auv/main"] - 0.1).abs() < 1e-12);
//! # Ok::<(), oceansim_dataset::DatasetError>(())
//! ```
#![warn(missing_docs)]

mod error;
pub mod formats;
mod offline;
mod read;
mod summary;

pub use error::DatasetError;
pub use offline::{flu_to_user, AgentEntry, OfflineRecorder};
pub use read::{read_run_file, MAX_METADATA_BYTES, MAX_RUN_FILE_BYTES};
pub use summary::Summary;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An agent's state in one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentState {
    /// Position (m, user frame).
    pub position: [f64; 3],
    /// Attitude, body FLU → user frame, `[x, y, z, w]`.
    pub quaternion_xyzw: [f64; 4],
    /// Velocity (m/s, user frame).
    pub velocity: [f64; 3],
    /// Fossen body velocity `[u, v, w, p, q, r]` (m/s, rad/s).
    pub body_velocity: [f64; 6],
    /// Compass heading (deg).
    pub heading_deg: f64,
    /// The true biases of the agent's IMU at this frame, for vehicles
    /// that carry one and runs that know them (the simulator's; not a
    /// recorder fed by a client, which sees only readings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imu_bias: Option<ImuBias>,
}

/// An IMU's error state: the biases a ground-truth file records (EuRoC's
/// `b_w_RS_S`, `b_a_RS_S`), in the body FLU frame (x forward, y left,
/// z up), whose attitude the trajectory gives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ImuBias {
    /// Gyro bias (rad/s, body FLU).
    pub gyro_rad_s: [f64; 3],
    /// Accelerometer bias (m/s², body FLU).
    pub accel_m_s2: [f64; 3],
}

impl ImuBias {
    /// From an IMU's biases in Fossen's body FRD frame (x forward, y
    /// starboard, z down), `[ax, ay, az, gx, gy, gz]` (m/s², rad/s):
    /// FRD → FLU flips y and z.
    pub fn from_frd(b: [f64; 6]) -> Self {
        let flu = |v: [f64; 3]| [v[0], -v[1], -v[2]];
        ImuBias {
            accel_m_s2: flu([b[0], b[1], b[2]]),
            gyro_rad_s: flu([b[3], b[4], b[5]]),
        }
    }
}

/// A logged command (a line of `commands.jsonl`, and what a timeline row
/// links to).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Command {
    /// Id, counting from 0 in the run.
    pub command_id: u64,
    /// When it was accepted (s).
    pub time: f64,
    /// The agent it was for.
    pub agent: String,
    /// The request id it came with.
    #[serde(default)]
    pub request_id: Option<Value>,
    /// Protocol action.
    pub action: String,
    /// Payload as applied.
    #[serde(default)]
    pub data: Value,
    /// Frame of the command vector.
    #[serde(default)]
    pub frame: Option<String>,
}

/// One line of `agent_timeline.jsonl`: one agent in one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineRow {
    /// Frame number.
    pub frame: u64,
    /// Time (s).
    pub time: f64,
    /// Agent name.
    pub agent: String,
    /// State.
    pub state: AgentState,
    /// The last command the agent accepted, if any.
    #[serde(default)]
    pub command: Option<Command>,
    /// Per sensor, the sequence numbers of samples taken since the
    /// previous frame.
    #[serde(default)]
    pub sensor_sequences: BTreeMap<String, Vec<u64>>,
}

/// One recorded frame: every agent in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Frame number.
    pub index: u64,
    /// Time (s).
    pub time: f64,
    /// The rows, the main AUV first.
    pub agents: Vec<TimelineRow>,
}

/// A point of a trajectory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrajectoryPoint {
    /// Time (s).
    pub time: f64,
    /// Position (m, user frame).
    pub position: [f64; 3],
    /// Attitude `[x, y, z, w]`.
    pub quaternion_xyzw: [f64; 4],
    /// Velocity (m/s, user frame).
    pub velocity: [f64; 3],
    /// The IMU's true biases, when known (EuRoC writes zeros otherwise).
    pub imu_bias: Option<ImuBias>,
}

/// A run directory, loaded.
#[derive(Debug, Clone)]
pub struct RunReplay {
    dir: PathBuf,
    metadata: Value,
    frames: Vec<Frame>,
    commands: Vec<Command>,
}

/// Reads a JSON Lines file into `T`s, naming the file and line of any
/// problem; a missing optional file is empty.
fn read_jsonl<T: serde::de::DeserializeOwned>(
    path: &Path,
    optional: bool,
) -> Result<Vec<T>, DatasetError> {
    let text = match read_run_file(path, MAX_RUN_FILE_BYTES) {
        Ok(t) => t,
        Err(DatasetError::Io { source, .. })
            if optional && source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Ok(Vec::new())
        }
        Err(e) => return Err(e),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| DatasetError::Parse {
                file: path.display().to_string(),
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

/// Latest time a run's frame may have (s): a thousand years, far past any
/// run the simulator records; a forged time past it is refused.
pub const MAX_FRAME_TIME_S: f64 = 3.2e10;
/// Largest coordinate a run's position may have (m, any axis); a forged
/// position past it (1e308, say, whose arithmetic overflows to infinity) is
/// refused.
pub const MAX_POSITION_M: f64 = 1e9;

/// A row's numbers are what a simulator writes: a finite time from 0 to
/// [`MAX_FRAME_TIME_S`], finite positions within [`MAX_POSITION_M`],
/// finite attitudes and velocities.
fn check_row(row: &TimelineRow) -> Result<(), DatasetError> {
    let bad = |what: String| {
        Err(DatasetError::Inconsistent(format!(
            "frame {}, agent {:?}: {what}",
            row.frame, row.agent
        )))
    };
    if !(0.0..=MAX_FRAME_TIME_S).contains(&row.time) {
        return bad(format!(
            "time {} s is not from 0 to {} s",
            oceansim_protocol::Num(row.time),
            oceansim_protocol::Num(MAX_FRAME_TIME_S)
        ));
    }
    let s = &row.state;
    if !s
        .position
        .iter()
        .all(|x| x.is_finite() && x.abs() <= MAX_POSITION_M)
    {
        let [x, y, z] = s.position.map(oceansim_protocol::Num);
        return bad(format!(
            "position [{x}, {y}, {z}] is not finite within {} m",
            oceansim_protocol::Num(MAX_POSITION_M)
        ));
    }
    let finite = s
        .quaternion_xyzw
        .iter()
        .chain(&s.velocity)
        .chain(&s.body_velocity)
        .chain(std::iter::once(&s.heading_deg))
        .all(|x| x.is_finite());
    if !finite {
        return bad("attitude or velocity is not finite".into());
    }
    Ok(())
}

impl RunReplay {
    /// Opens the run directory `dir`: its files are read only as regular
    /// files, never through a link, each at most [`MAX_METADATA_BYTES`]
    /// or [`MAX_RUN_FILE_BYTES`] ([`read_run_file`]); frames must count
    /// up in time, with finite numbers in range ([`MAX_FRAME_TIME_S`],
    /// [`MAX_POSITION_M`]).
    pub fn open(dir: impl AsRef<Path>) -> Result<RunReplay, DatasetError> {
        let dir = dir.as_ref().to_path_buf();
        let meta_path = dir.join("metadata.json");
        let metadata: Value = serde_json::from_str(&read_run_file(&meta_path, MAX_METADATA_BYTES)?)
            .map_err(|e| DatasetError::Parse {
                file: meta_path.display().to_string(),
                line: e.line(),
                message: e.to_string(),
            })?;
        let rows: Vec<TimelineRow> = read_jsonl(&dir.join("agent_timeline.jsonl"), false)?;
        let commands = read_jsonl(&dir.join("commands.jsonl"), true)?;
        let mut frames: Vec<Frame> = Vec::new();
        for row in rows {
            check_row(&row)?;
            match frames.last_mut() {
                Some(f) if f.index == row.frame => f.agents.push(row),
                Some(f) if f.index > row.frame => {
                    return Err(DatasetError::Inconsistent(format!(
                        "frame {} after frame {}",
                        row.frame, f.index
                    )))
                }
                Some(f) if row.time < f.time => {
                    return Err(DatasetError::Inconsistent(format!(
                        "frame {} at {} s, before frame {} at {} s: time runs backwards",
                        row.frame,
                        oceansim_protocol::Num(row.time),
                        f.index,
                        oceansim_protocol::Num(f.time)
                    )))
                }
                _ => frames.push(Frame {
                    index: row.frame,
                    time: row.time,
                    agents: vec![row],
                }),
            }
        }
        Ok(RunReplay {
            dir,
            metadata,
            frames,
            commands,
        })
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The run's `metadata.json`.
    pub fn metadata(&self) -> &Value {
        &self.metadata
    }

    /// Number of frames.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// The frames, in order.
    pub fn frames(&self) -> impl Iterator<Item = &Frame> {
        self.frames.iter()
    }

    /// Agent names, in order of first appearance (the main AUV first).
    pub fn agents(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for r in self.frames.iter().flat_map(|f| &f.agents) {
            if !names.contains(&r.agent.as_str()) {
                names.push(&r.agent);
            }
        }
        names
    }

    /// The trajectory of `agent` (empty for an unknown agent).
    pub fn trajectory(&self, agent: &str) -> Vec<TrajectoryPoint> {
        self.rows(agent)
            .map(|r| TrajectoryPoint {
                time: r.time,
                position: r.state.position,
                quaternion_xyzw: r.state.quaternion_xyzw,
                velocity: r.state.velocity,
                imu_bias: r.state.imu_bias,
            })
            .collect()
    }

    /// The rows of `agent`, in frame order.
    pub fn rows<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a TimelineRow> + 'a {
        self.frames
            .iter()
            .flat_map(|f| &f.agents)
            .filter(move |r| r.agent == agent)
    }

    /// Per frame of `agent`: (frame, the sequence numbers of `sensor`'s
    /// samples recorded with it).
    pub fn sensor_frames(&self, agent: &str, sensor: &str) -> Vec<(u64, Vec<u64>)> {
        self.rows(agent)
            .filter_map(|r| Some((r.frame, r.sensor_sequences.get(sensor)?.clone())))
            .collect()
    }

    /// The logged commands.
    pub fn commands(&self) -> &[Command] {
        &self.commands
    }

    /// The logged command `id`.
    pub fn command(&self, id: u64) -> Option<&Command> {
        self.commands.iter().find(|c| c.command_id == id)
    }

    /// The file stem of `agent`'s files: the run's own map
    /// (`trajectory_files` in its metadata), else [`stem`].
    pub fn stem_of(&self, agent: &str) -> String {
        // Only a plain file name: a forged metadata.json cannot point the
        // readers outside the run (`../..`, an absolute path).
        let plain =
            |s: &&str| !s.is_empty() && *s != "." && *s != ".." && !s.contains(['/', '\\', '\0']);
        self.metadata["trajectory_files"][agent]
            .as_str()
            .filter(plain)
            .map_or_else(|| stem(agent), str::to_owned)
    }

    /// The rows of `trajectories/<stem>.tum` for `agent`: `[t, x, y, z,
    /// qx, qy, qz, qw]`.
    pub fn tum_rows(&self, agent: &str) -> Result<Vec<[f64; 8]>, DatasetError> {
        let path = self
            .dir
            .join("trajectories")
            .join(format!("{}.tum", self.stem_of(agent)));
        self.numeric_rows(&path, ' ', '#')
    }

    /// The rows of `trajectories/<stem>.euroc.csv` for `agent`:
    /// `(timestamp_ns, [px, py, pz, qw, qx, qy, qz, vx, vy, vz, bwx, bwy,
    /// bwz, bax, bay, baz])` (the EuRoC columns of
    /// [`formats::EUROC_HEADER`]). A file of an older export, without the
    /// six bias columns, reads with zero biases.
    pub fn euroc_rows(&self, agent: &str) -> Result<Vec<(i64, [f64; 16])>, DatasetError> {
        read::check_run_subdir(&self.dir.join("trajectories"))?;
        let path = self
            .dir
            .join("trajectories")
            .join(format!("{}.euroc.csv", self.stem_of(agent)));
        let text = read_run_file(&path, MAX_RUN_FILE_BYTES)?;
        let bad = |line: usize, message: String| DatasetError::Parse {
            file: path.display().to_string(),
            line,
            message,
        };
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
            .map(|(i, l)| {
                let cells: Vec<&str> = l.split(',').collect();
                if cells.len() != 17 && cells.len() != 11 {
                    return Err(bad(i + 1, format!("{} columns, not 17", cells.len())));
                }
                let ns = cells[0]
                    .trim()
                    .parse::<i64>()
                    .map_err(|e| bad(i + 1, format!("timestamp: {e}")))?;
                let mut v = [0.0; 16];
                for (k, c) in cells[1..].iter().enumerate() {
                    v[k] = c
                        .trim()
                        .parse()
                        .map_err(|e| bad(i + 1, format!("column {}: {e}", k + 2)))?;
                }
                Ok((ns, v))
            })
            .collect()
    }

    fn numeric_rows<const N: usize>(
        &self,
        path: &Path,
        sep: char,
        comment: char,
    ) -> Result<Vec<[f64; N]>, DatasetError> {
        if let Some(parent) = path.parent().filter(|p| *p != self.dir) {
            read::check_run_subdir(parent)?;
        }
        let text = read_run_file(path, MAX_RUN_FILE_BYTES)?;
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.starts_with(comment) && !l.trim().is_empty())
            .map(|(i, l)| {
                let bad = |message: String| DatasetError::Parse {
                    file: path.display().to_string(),
                    line: i + 1,
                    message,
                };
                let cells: Vec<&str> = l.split(sep).filter(|c| !c.is_empty()).collect();
                if cells.len() != N {
                    return Err(bad(format!("{} columns, not {N}", cells.len())));
                }
                let mut v = [0.0; N];
                for (k, c) in cells.iter().enumerate() {
                    v[k] = c
                        .parse()
                        .map_err(|e| bad(format!("column {}: {e}", k + 1)))?;
                }
                Ok(v)
            })
            .collect()
    }

    /// What the run holds, in numbers.
    pub fn summary(&self) -> Summary {
        Summary::of(self)
    }
}

/// The file stem of a name (`auv/main` → `auv_main`): letters, digits
/// and `-` kept, anything else `_`, at most 64 characters. Two names can
/// share one; [`unique_stems`] tells them apart.
pub fn stem(agent: &str) -> String {
    agent
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A distinct file stem for each of `names` (in order): [`stem`], with
/// `_2`, `_3`, ... added to a stem already taken. A run's metadata keeps
/// the map (`trajectory_files`), so a reader finds each agent's files.
pub fn unique_stems<'a>(names: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut taken = std::collections::BTreeSet::new();
    for name in names {
        if out.contains_key(name) {
            continue;
        }
        let base = stem(name);
        let mut s = base.clone();
        let mut k = 2;
        while !taken.insert(s.clone()) {
            s = format!("{base}_{k}");
            k += 1;
        }
        out.insert(name.to_owned(), s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROW: &str = r#"{"frame":0,"time":0.0,"agent":"a","state":{"position":[0.0,0.0,0.0],"quaternion_xyzw":[0.0,0.0,0.0,1.0],"velocity":[0.0,0.0,0.0],"body_velocity":[0.0,0.0,0.0,0.0,0.0,0.0],"heading_deg":0.0},"command":null,"sensor_sequences":{}}"#;

    fn dir_with(timeline: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("metadata.json"), "{}").unwrap();
        std::fs::write(d.path().join("agent_timeline.jsonl"), timeline).unwrap();
        d
    }

    #[test]
    fn problems_name_the_file_and_line_with_a_code() {
        let d = dir_with(&format!("{ROW}\n{{\"frame\": 1}}\n"));
        let e = RunReplay::open(d.path()).unwrap_err();
        assert_eq!(e.code(), "dataset_parse");
        assert!(e.to_string().contains("agent_timeline.jsonl:2:"), "{e}");
        let e = RunReplay::open(d.path().join("missing")).unwrap_err();
        assert_eq!(e.code(), "dataset_io");
        let back = ROW.replace("\"frame\":0", "\"frame\":1");
        let d = dir_with(&format!("{back}\n{ROW}\n"));
        let e = RunReplay::open(d.path()).unwrap_err();
        assert_eq!(e.code(), "dataset_inconsistent");
    }

    #[test]
    fn a_run_without_commands_or_trajectory_files_still_opens() {
        let d = dir_with(&format!("{ROW}\n"));
        let run = RunReplay::open(d.path()).unwrap();
        assert_eq!(run.frame_count(), 1);
        assert!(run.commands().is_empty());
        assert_eq!(run.tum_rows("a").unwrap_err().code(), "dataset_io");
        assert!(run.trajectory("nobody").is_empty());
        assert_eq!(stem("auv/main"), "auv_main");
        let m = unique_stems(["auv/main", "auv_main", "auv/main", "auv.main"]);
        assert_eq!(m["auv/main"], "auv_main");
        assert_eq!(m["auv_main"], "auv_main_2");
        assert_eq!(m["auv.main"], "auv_main_3");
        assert_eq!(stem(&"x".repeat(500)).len(), 64);
        let m = unique_stems(["auv/main", "auv_main", "auv/main", "auv.main"]);
        assert_eq!(m["auv/main"], "auv_main");
        assert_eq!(m["auv_main"], "auv_main_2");
        assert_eq!(m["auv.main"], "auv_main_3");
        assert_eq!(stem(&"x".repeat(500)).len(), 64);
    }
}
