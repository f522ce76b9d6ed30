//! The run's tables: `agent_timeline.jsonl` (one line per agent per
//! recorded frame, per the export trace contract), `commands.jsonl` (one
//! line per logged command) and `trajectory.csv` (the main AUV). Each is
//! written in one pass over the record, spilled frames included, so memory
//! stays flat whatever the run's length.

use oceansim_record::{CommandEntry, Payloads, RecordedFrames};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// A line of `agent_timeline.jsonl`: one agent in one recorded frame.
#[derive(Debug, Serialize)]
struct TimelineRow<'a> {
    frame: u64,
    time: f64,
    agent: &'a str,
    state: TimelineState<'a>,
    command: Option<CommandLink<'a>>,
    sensor_sequences: BTreeMap<&'a str, &'a [u64]>,
    frame_trace: FrameTrace,
}

#[derive(Debug, Serialize)]
struct TimelineState<'a> {
    position: [f64; 3],
    quaternion_xyzw: [f64; 4],
    velocity: [f64; 3],
    body_velocity: [f64; 6],
    heading_deg: f64,
    /// Control-surface angles (rad), for vehicles with fins.
    #[serde(skip_serializing_if = "<[f64]>::is_empty")]
    fin_angles_rad: &'a [f64],
    /// Propeller shaft speeds (rpm).
    #[serde(skip_serializing_if = "<[f64]>::is_empty")]
    propeller_rpm: &'a [f64],
    /// Its IMU's true biases (body FLU), when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    imu_bias: Option<oceansim_dataset::ImuBias>,
}

/// A logged command, as a line of `commands.jsonl` and inside a timeline
/// row (which links to it by `command_id`).
#[derive(Debug, Serialize)]
pub(crate) struct CommandLink<'a> {
    command_id: u64,
    time: f64,
    agent: &'a str,
    request_id: Option<&'a oceansim_protocol::RequestId>,
    action: &'a str,
    data: &'a serde_json::Value,
    frame: Option<oceansim_protocol::Frame>,
}

impl<'a> CommandLink<'a> {
    pub(crate) fn of(c: &'a CommandEntry) -> Self {
        CommandLink {
            command_id: c.id,
            time: c.time,
            agent: &c.agent,
            request_id: c.request_id.as_ref(),
            action: &c.record.action,
            data: &c.record.data,
            frame: c.record.frame,
        }
    }
}

#[derive(Debug, Serialize)]
struct FrameTrace {
    world_frame: &'static str,
    base_frame: String,
    sensor_frames: Vec<String>,
    command_frame: Option<oceansim_protocol::Frame>,
}

/// Writes one JSON line.
fn line<T: Serialize>(w: &mut impl Write, v: &T) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, v)?;
    w.write_all(b"\n")
}

/// Writes `trajectory.csv`: the main AUV in every frame.
pub fn write_trajectory(frames: &RecordedFrames, w: &mut impl Write) -> std::io::Result<()> {
    writeln!(w, "time,x,y,z,vx,vy,vz,heading_deg,qx,qy,qz,qw")?;
    frames.try_for_each(Payloads::Skip, |s| {
        let Some(m) = s.main() else {
            return Ok(());
        };
        let [x, y, z] = m.position;
        let [vx, vy, vz] = m.velocity;
        let [qx, qy, qz, qw] = m.quaternion_xyzw;
        writeln!(
            w,
            "{},{x},{y},{z},{vx},{vy},{vz},{},{qx},{qy},{qz},{qw}",
            s.time, m.heading_deg
        )
    })
}

/// Writes `agent_timeline.jsonl`.
pub fn write_timeline(frames: &RecordedFrames, w: &mut impl Write) -> std::io::Result<()> {
    frames.try_for_each(Payloads::Skip, |s| {
        for a in &s.agents {
            let name: &str = &a.name;
            line(
                w,
                &TimelineRow {
                    frame: s.frame,
                    time: s.time,
                    agent: name,
                    state: TimelineState {
                        position: a.position,
                        quaternion_xyzw: a.quaternion_xyzw,
                        velocity: a.velocity,
                        body_velocity: a.body_velocity,
                        heading_deg: a.heading_deg,
                        fin_angles_rad: &a.fin_angles_rad,
                        propeller_rpm: &a.propeller_rpm,
                        imu_bias: a.imu_bias,
                    },
                    command: a.command.as_deref().map(CommandLink::of),
                    sensor_sequences: a
                        .sensor_sequences
                        .iter()
                        .map(|(n, seqs)| (&**n, seqs.as_slice()))
                        .collect(),
                    frame_trace: FrameTrace {
                        world_frame: oceansim_sensors::frame_tree::WORLD_FRAME,
                        base_frame: format!("{name}/base_link"),
                        sensor_frames: a
                            .sensor_sequences
                            .iter()
                            .map(|(n, _)| format!("{name}/{n}"))
                            .collect(),
                        command_frame: a.command.as_ref().and_then(|c| c.record.frame),
                    },
                },
            )?;
        }
        Ok(())
    })
}

/// Writes `commands.jsonl`.
pub fn write_commands(frames: &RecordedFrames, w: &mut impl Write) -> std::io::Result<()> {
    for c in frames.commands() {
        let c = c?;
        line(w, &CommandLink::of(&c))?;
    }
    Ok(())
}
