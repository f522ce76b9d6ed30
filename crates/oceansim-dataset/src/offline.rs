//! A recorder for your own control loop: state replies in, a run directory
//! out, in the layout the simulator's export uses, so [`RunReplay`],
//! `oceansim replay` and every tool that reads an export read it too (the
//! open-format counterpart of the OceanSim SDK's pickle recorder).

use crate::formats::{write_euroc, write_tum};
use crate::{unique_stems, AgentState, Command, DatasetError, RunReplay, TrajectoryPoint};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// One agent of a frame added by hand: name, state, last command, and per
/// sensor the sequence numbers of the samples taken since the last frame.
pub type AgentEntry = (
    String,
    AgentState,
    Option<Command>,
    BTreeMap<String, Vec<u64>>,
);

/// Frames added by hand or from `get_state`/`step` replies.
#[derive(Debug, Clone, Default)]
pub struct OfflineRecorder {
    scenario: String,
    seed: u64,
    lines: Vec<Value>,
    commands: Vec<Value>,
    /// The last command seen per agent: (action, data, time) → its id.
    last_command: BTreeMap<String, (String, Value, f64, u64)>,
    frames: u64,
    /// Per (agent, sensor), every distinct sample the replies carried, as
    /// the lines of its series.
    series: BTreeMap<(String, String), Vec<Value>>,
}

/// The envelope of a sensor payload: everything but the reading's own
/// fields (and the stamps and sequence a series line has by name).
const ENVELOPE: [&str; 17] = [
    "enabled",
    "status",
    "schema_name",
    "schema_version",
    "sensor_type",
    "frame_id",
    "sensor_frame_id",
    "parent_frame_id",
    "noise_seed",
    "extrinsic_xyz_rpy",
    "extrinsic_quat_xyzw",
    "covariance",
    "sim_time",
    "timestamp_sim",
    "timestamp_wall",
    "timestamp",
    "sequence",
];

/// A series line of a sensor payload (`status` ok): `sequence`, `time`,
/// `wall_time` and the reading's fields, as the simulator's export writes
/// them; `None` for a payload without a reading.
fn series_line(p: &Value) -> Option<(u64, Value)> {
    let seq = p["sequence"].as_u64()?;
    let obj = p.as_object()?;
    let mut line = serde_json::Map::new();
    line.insert("sequence".into(), seq.into());
    line.insert("time".into(), p["sim_time"].clone());
    line.insert("wall_time".into(), p["timestamp_wall"].clone());
    let before = line.len();
    for (k, v) in obj {
        if !ENVELOPE.contains(&k.as_str()) {
            line.insert(k.clone(), v.clone());
        }
    }
    (line.len() > before).then_some((seq, Value::Object(line)))
}

/// Hamilton product `a ⊗ b` of `[x, y, z, w]` quaternions.
fn mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// A state reply's attitude (body FRD → NED) as body FLU → user frame
/// (ENU), the convention of recorded frames; `w >= 0`.
pub fn flu_to_user(frd_to_ned_xyzw: [f64; 4]) -> [f64; 4] {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    // NED → ENU: half a turn about (x + y)/√2; FLU → FRD: half a turn
    // about x.
    let enu_from_ned = [h, h, 0.0, 0.0];
    let frd_from_flu = [1.0, 0.0, 0.0, 0.0];
    let q = mul(mul(enu_from_ned, frd_to_ned_xyzw), frd_from_flu);
    if q[3] < 0.0 {
        q.map(|c| -c)
    } else {
        q
    }
}

fn numbers<const N: usize>(v: &Value) -> Option<[f64; N]> {
    let a = v.as_array()?;
    if a.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x.as_f64()?;
    }
    Some(out)
}

/// Writes `lines` as JSON Lines into `b`.
fn jsonl(b: &mut Vec<u8>, lines: &[Value]) -> std::io::Result<()> {
    for l in lines {
        serde_json::to_writer(&mut *b, l).map_err(std::io::Error::from)?;
        b.write_all(b"\n")?;
    }
    Ok(())
}

impl OfflineRecorder {
    /// An empty recording of `scenario` with `seed` (for the metadata).
    pub fn new(scenario: &str, seed: u64) -> Self {
        OfflineRecorder {
            scenario: scenario.to_owned(),
            seed,
            ..OfflineRecorder::default()
        }
    }

    /// Number of frames added.
    pub fn frame_count(&self) -> u64 {
        self.frames
    }

    /// Adds a frame of `agents` (name, state, last command, sensor
    /// sequences) at `time` (s); the first agent is taken as the main one.
    /// A command equal to an agent's previous one keeps its id.
    pub fn add_frame(&mut self, time: f64, agents: Vec<AgentEntry>) -> Result<(), DatasetError> {
        if !time.is_finite() {
            return Err(DatasetError::Inconsistent(format!("frame time {time}")));
        }
        let frame = self.frames;
        for (agent, state, command, sensors) in agents {
            let command = command.map(|c| self.log(&agent, c));
            self.lines.push(value(&TimelineLine {
                frame,
                time,
                state: StateLine {
                    position: state.position,
                    quaternion_xyzw: state.quaternion_xyzw,
                    velocity: state.velocity,
                    body_velocity: state.body_velocity,
                    heading_deg: state.heading_deg,
                },
                command,
                sensor_sequences: sensors,
                frame_trace: FrameTrace {
                    world_frame: "world",
                    base_frame: format!("{agent}/base_link"),
                },
                agent,
            }));
        }
        self.frames += 1;
        Ok(())
    }

    /// Adds a frame from the `data` of a full `get_state` or `step` reply
    /// (the main AUV `agent`): its pose, velocities, heading, last command
    /// and the sequence of every sensor sample it carries.
    pub fn add_state(&mut self, agent: &str, data: &Value) -> Result<(), DatasetError> {
        let bad = |what: &str| DatasetError::Inconsistent(format!("state reply: {what}"));
        let time = data["sim_time"]
            .as_f64()
            .ok_or_else(|| bad("no sim_time"))?;
        let state = AgentState {
            position: numbers(&data["position"]).ok_or_else(|| bad("no position"))?,
            quaternion_xyzw: flu_to_user(
                numbers(&data["orientation"]["quaternion_xyzw"])
                    .ok_or_else(|| bad("no orientation.quaternion_xyzw"))?,
            ),
            velocity: numbers(&data["velocity"]).ok_or_else(|| bad("no velocity"))?,
            body_velocity: numbers(&data["body_velocity"]).unwrap_or([0.0; 6]),
            heading_deg: data["heading_deg"].as_f64().unwrap_or(0.0),
            // Replies carry readings, not the IMU's error state.
            imu_bias: None,
        };
        let control = &data["control"];
        let command = control["last_command"]["action"]
            .as_str()
            .map(|action| Command {
                command_id: 0,
                time: control["last_command_time"].as_f64().unwrap_or(time),
                agent: agent.to_owned(),
                request_id: None,
                action: action.to_owned(),
                data: control["last_command"]["data"].clone(),
                frame: control["last_command"]["frame"].as_str().map(str::to_owned),
            });
        let payloads: Vec<(&String, &Value)> = data["sensors"]
            .as_object()
            .map(|m| m.iter().filter(|(_, p)| p["status"] == "ok").collect())
            .unwrap_or_default();
        let sensors = payloads
            .iter()
            .filter_map(|(k, p)| Some(((*k).clone(), vec![p["sequence"].as_u64()?])))
            .collect();
        self.add_frame(time, vec![(agent.to_owned(), state, command, sensors)])?;
        // Each sample once, though replies repeat it until the next one.
        for (name, p) in payloads {
            let Some((seq, line)) = series_line(p) else {
                continue;
            };
            let series = self
                .series
                .entry((agent.to_owned(), name.clone()))
                .or_default();
            if series.last().and_then(|l| l["sequence"].as_u64()) != Some(seq) {
                series.push(line);
            }
        }
        Ok(())
    }

    /// Logs `c` for `agent` unless it repeats the agent's last command;
    /// returns the timeline's link to it.
    fn log(&mut self, agent: &str, c: Command) -> Value {
        let id = match self.last_command.get(agent) {
            Some((action, data, time, id))
                if *action == c.action && *data == c.data && *time == c.time =>
            {
                *id
            }
            _ => {
                let id = self.commands.len() as u64;
                self.commands.push(value(&CommandLine {
                    command_id: id,
                    time: c.time,
                    agent,
                    request_id: &c.request_id,
                    action: &c.action,
                    data: &c.data,
                    frame: &c.frame,
                }));
                self.last_command.insert(
                    agent.to_owned(),
                    (c.action.clone(), c.data.clone(), c.time, id),
                );
                id
            }
        };
        let mut link = self.commands[id as usize].clone();
        link["command_id"] = id.into();
        link
    }

    /// The recording as one JSON value: `metadata` (scenario, seed, frame
    /// count), `timeline` (the rows `agent_timeline.jsonl` gets) and
    /// `commands` (the command log).
    pub fn to_value(&self) -> Value {
        value(&Recording {
            metadata: RecordingMeta {
                scenario: &self.scenario,
                seed: self.seed,
                frame_count: self.frames,
                commands: self.commands.len(),
            },
            timeline: &self.lines,
            commands: &self.commands,
        })
    }

    /// Writes the run directory `dir` (metadata, timeline, command log,
    /// TUM and EuRoC trajectories) and reads it back.
    pub fn save(&self, dir: impl AsRef<Path>) -> Result<RunReplay, DatasetError> {
        let dir = dir.as_ref();
        let io = |p: &Path, e| DatasetError::io(p, e);
        std::fs::create_dir_all(dir.join("trajectories")).map_err(|e| io(dir, e))?;
        let write = |name: &str, fill: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
            let mut buf = Vec::new();
            fill(&mut buf)
                .and_then(|()| std::fs::write(dir.join(name), &buf))
                .map_err(|e| io(&dir.join(name), e))
        };
        let mut agents: Vec<&str> = Vec::new();
        for l in &self.lines {
            if let Some(a) = l["agent"].as_str().filter(|a| !agents.contains(a)) {
                agents.push(a);
            }
        }
        let meta = value(&RunMetadata {
            schema: "oceansim_dataset",
            schema_version: 2,
            trajectory_files: unique_stems(agents.iter().copied()),
            agents: &agents,
            scenario: &self.scenario,
            seed: self.seed,
            software: Software {
                name: "oceansim-dataset offline recorder",
                version: env!("CARGO_PKG_VERSION"),
            },
            frame_count: self.frames,
            commands: self.commands.len(),
            sensor_data_recorded: !self.series.is_empty(),
        });
        write("metadata.json", &|b| {
            serde_json::to_writer_pretty(&mut *b, &meta).map_err(std::io::Error::from)
        })?;
        write("agent_timeline.jsonl", &|b| jsonl(b, &self.lines))?;
        write("commands.jsonl", &|b| jsonl(b, &self.commands))?;
        self.write_series(dir)?;
        let run = RunReplay::open(dir)?;
        for agent in run.agents() {
            let track: Vec<TrajectoryPoint> = run.trajectory(agent);
            let s = run.stem_of(agent);
            write(&format!("trajectories/{s}.tum"), &|b| {
                write_tum(b, track.iter().copied())
            })?;
            write(&format!("trajectories/{s}.euroc.csv"), &|b| {
                write_euroc(b, track.iter().copied())
            })?;
        }
        Ok(run)
    }

    /// Writes `sensors/<agent>/<sensor>.jsonl` for every sensor whose
    /// samples the replies carried, images (`<name>_png_base64`) as PNG
    /// files `<sensor>/<sequence>_<name>.png` beside it, named under
    /// `<name>_png`, as the simulator's export lays them out.
    fn write_series(&self, dir: &Path) -> Result<(), DatasetError> {
        use base64::Engine as _;
        let io = |p: &Path, e| DatasetError::io(p, e);
        let agents = unique_stems(self.series.keys().map(|(a, _)| a.as_str()));
        for ((agent, sensor), lines) in &self.series {
            let sensor_stem = unique_stems([sensor.as_str()])
                .remove(sensor)
                .unwrap_or_else(|| "sensor".into());
            let at = dir.join("sensors").join(&agents[agent]);
            std::fs::create_dir_all(&at).map_err(|e| io(&at, e))?;
            let mut out = Vec::new();
            for line in lines {
                let mut line = line.clone();
                let images: Vec<String> = line
                    .as_object()
                    .map(|m| {
                        m.keys()
                            .filter(|k| k.ends_with("_png_base64"))
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                for key in images {
                    let text = line[&key].as_str().unwrap_or_default().to_owned();
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .map_err(|e| DatasetError::Inconsistent(format!("{sensor}: {key}: {e}")))?;
                    let name = key.trim_end_matches("_png_base64");
                    let file = format!(
                        "{sensor_stem}/{:06}_{name}.png",
                        line["sequence"].as_u64().unwrap_or(0)
                    );
                    let path = at.join(&file);
                    std::fs::create_dir_all(at.join(&sensor_stem)).map_err(|e| io(&path, e))?;
                    std::fs::write(&path, bytes).map_err(|e| io(&path, e))?;
                    if let Some(m) = line.as_object_mut() {
                        m.remove(&key);
                        m.insert(format!("{name}_png"), Value::String(file));
                    }
                }
                serde_json::to_writer(&mut out, &line)
                    .map_err(std::io::Error::from)
                    .map_err(|e| io(&at, e))?;
                out.push(b'\n');
            }
            let path = at.join(format!("{sensor_stem}.jsonl"));
            std::fs::write(&path, out).map_err(|e| io(&path, e))?;
        }
        Ok(())
    }

    /// Reads a run directory (saved or exported).
    pub fn load(dir: impl AsRef<Path>) -> Result<RunReplay, DatasetError> {
        RunReplay::open(dir)
    }
}

/// `message` as a JSON value: its keys sorted, as every line of a run's
/// files has them (plain data: serialising it cannot fail).
fn value<T: Serialize>(message: &T) -> Value {
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// One line of `agent_timeline.jsonl` as the recorder writes it.
#[derive(Serialize)]
struct TimelineLine {
    frame: u64,
    time: f64,
    agent: String,
    state: StateLine,
    /// The command's log entry (with its id), if the agent has one.
    command: Option<Value>,
    sensor_sequences: BTreeMap<String, Vec<u64>>,
    frame_trace: FrameTrace,
}

/// A timeline line's `state` (user frame: m, m/s, deg; body velocity
/// Fossen's `[u, v, w, p, q, r]`).
#[derive(Serialize)]
struct StateLine {
    position: [f64; 3],
    quaternion_xyzw: [f64; 4],
    velocity: [f64; 3],
    body_velocity: [f64; 6],
    heading_deg: f64,
}

/// The frames a timeline line's pose relates.
#[derive(Serialize)]
struct FrameTrace {
    world_frame: &'static str,
    base_frame: String,
}

/// One line of `commands.jsonl`.
#[derive(Serialize)]
struct CommandLine<'a> {
    command_id: u64,
    time: f64,
    agent: &'a str,
    request_id: &'a Option<Value>,
    action: &'a str,
    data: &'a Value,
    frame: &'a Option<String>,
}

/// [`OfflineRecorder::to_value`].
#[derive(Serialize)]
struct Recording<'a> {
    metadata: RecordingMeta<'a>,
    timeline: &'a [Value],
    commands: &'a [Value],
}

/// [`Recording`]'s `metadata`.
#[derive(Serialize)]
struct RecordingMeta<'a> {
    scenario: &'a str,
    seed: u64,
    frame_count: u64,
    commands: usize,
}

/// `metadata.json` of a run the recorder saves.
#[derive(Serialize)]
struct RunMetadata<'a> {
    schema: &'static str,
    schema_version: u32,
    agents: &'a [&'a str],
    trajectory_files: BTreeMap<String, String>,
    scenario: &'a str,
    seed: u64,
    software: Software,
    frame_count: u64,
    commands: usize,
    sensor_data_recorded: bool,
}

/// Who wrote a run.
#[derive(Serialize)]
struct Software {
    name: &'static str,
    version: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn attitude_conversion_matches_the_frames() {
        // Level, heading north: body forward is user +y, so FLU → ENU is a
        // quarter turn about z.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let q = flu_to_user([0.0, 0.0, 0.0, 1.0]);
        for (a, b) in q.iter().zip([0.0, 0.0, h, h]) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
        // Heading east (yaw +90° about NED down): forward is user +x, so
        // FLU → ENU is the identity.
        let q = flu_to_user([0.0, 0.0, h, h]);
        for (a, b) in q.iter().zip([0.0, 0.0, 0.0, 1.0]) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
    }

    #[test]
    fn state_replies_become_a_run_that_replays() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = OfflineRecorder::new("Static_Map", 3);
        for k in 0..5 {
            let t = f64::from(k) * 0.1;
            let data = json!({
                "sim_time": t, "position": [0.0, t, -6.0], "velocity": [0.0, 1.0, 0.0],
                "orientation": {"quaternion_xyzw": [0.0, 0.0, 0.0, 1.0]},
                "body_velocity": [1.0, 0.0, 0.0, 0.0, 0.0, 0.0], "heading_deg": 0.0,
                "control": {"last_command": {"action": "set_force", "data": {"force": [0, 1, 0]},
                                              "frame": "user_world"},
                            "last_command_time": 0.0},
                "sensors": {"imu": {"status": "ok", "sequence": 10 * k, "sim_time": t,
                                    "timestamp_wall": t, "sensor_type": "imu",
                                    "angular_velocity": [0.0, 0.0, 0.1]},
                            // The same sample in two replies is kept once.
                            "camera": {"status": "ok", "sequence": k / 2, "sim_time": t,
                                       "rgb_png_base64": "iVBORw0K"},
                            "sonar": {"status": "on_demand", "sequence": 0}}});
            r.add_state("auv/main", &data).unwrap();
        }
        let run = r.save(dir.path()).unwrap();
        assert_eq!(run.frame_count(), 5);
        assert_eq!(run.commands().len(), 1, "one command, repeated by link");
        assert_eq!(run.trajectory("auv/main")[4].position, [0.0, 0.4, -6.0]);
        assert_eq!(run.sensor_frames("auv/main", "imu")[2], (2, vec![20]));
        assert!(
            run.sensor_frames("auv/main", "sonar").is_empty(),
            "stubs skipped"
        );
        let imu = std::fs::read_to_string(dir.path().join("sensors/auv_main/imu.jsonl")).unwrap();
        let lines: Vec<Value> = imu
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[2]["sequence"], 20);
        assert_eq!(lines[2]["angular_velocity"], json!([0.0, 0.0, 0.1]));
        assert!(
            lines[2].get("sensor_type").is_none(),
            "the envelope stays out"
        );
        let cam =
            std::fs::read_to_string(dir.path().join("sensors/auv_main/camera.jsonl")).unwrap();
        let cam: Vec<Value> = cam
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(cam.len(), 3, "sequences 0, 1, 2 once each");
        assert_eq!(cam[1]["rgb_png"], "camera/000001_rgb.png");
        assert_eq!(
            std::fs::read(dir.path().join("sensors/auv_main/camera/000001_rgb.png")).unwrap(),
            [0x89, b'P', b'N', b'G', 0x0d, 0x0a]
        );
        assert_eq!(run.tum_rows("auv/main").unwrap().len(), 5);
        assert_eq!(OfflineRecorder::load(dir.path()).unwrap().frame_count(), 5);
        let bad = r.add_state("auv/main", &json!({"sim_time": 1.0}));
        assert_eq!(bad.unwrap_err().code(), "dataset_inconsistent");
        assert_eq!(r.frame_count(), 5, "a refused frame adds nothing");
    }
}
