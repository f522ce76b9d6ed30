//! The spill's lines: what a frame, its samples and a command are written
//! as, and how they are read back (see [`super::spill`] for the files).

use super::{AgentFrame, CommandEntry, Sample};
use oceansim_agents::CommandRecord;
use oceansim_dataset::ImuBias;
use oceansim_protocol::RequestId;
use oceansim_sensors::{Family, Reading, SensorSample};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::Arc;

/// A logged command as a spill line (and inline in a frame line), one
/// definition for both directions: borrowed when written
/// ([`CommandOut`]), owned when read ([`CommandIn`]), so writer and reader
/// cannot disagree on the format.
#[derive(Serialize, Deserialize)]
pub(super) struct CommandLine<S, R, C> {
    id: u64,
    time: f64,
    agent: S,
    request_id: Option<R>,
    record: C,
}

/// A command as written.
pub(super) type CommandOut<'a> = CommandLine<&'a str, &'a RequestId, &'a CommandRecord>;

/// A command read back: the request id raw, so that a number kept as the
/// text it arrived as (`1.50`, `1e400`) comes back as that text.
pub(super) type CommandIn = CommandLine<String, Box<RawValue>, CommandRecord>;

impl<'a> CommandOut<'a> {
    pub(super) fn of(c: &'a CommandEntry) -> Self {
        CommandLine {
            id: c.id,
            time: c.time,
            agent: &c.agent,
            request_id: c.request_id.as_ref(),
            record: &c.record,
        }
    }
}

impl CommandIn {
    pub(super) fn into_entry(self) -> serde_json::Result<CommandEntry> {
        let request_id = match self.request_id {
            None => None,
            Some(raw) => Some(RequestId::from_raw(&raw).ok_or_else(|| {
                serde::de::Error::custom(format!("`{}` is not a request id", raw.get()))
            })?),
        };
        Ok(CommandEntry {
            id: self.id,
            time: self.time,
            agent: self.agent,
            request_id,
            record: self.record,
        })
    }
}

/// A frame line, one definition for both directions (as for commands):
/// [`FrameOut`] borrows the frame it writes, [`FrameIn`] owns what it read.
#[derive(Serialize, Deserialize)]
pub(super) struct FrameLine<A> {
    frame: u64,
    time: f64,
    agents: Vec<A>,
}

/// An agent in a frame line: `N` its name (and sensor names), `C` its
/// last command, `Q` a sensor's sequence numbers.
#[derive(Serialize, Deserialize)]
pub(super) struct AgentLine<N, C, Q> {
    name: N,
    vehicle: bool,
    position: [f64; 3],
    quaternion_xyzw: [f64; 4],
    velocity: [f64; 3],
    body_velocity: [f64; 6],
    heading_deg: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    fin_angles_rad: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    propeller_rpm: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    imu_bias: Option<ImuBias>,
    /// The last command's id, and the command itself the first time.
    command_id: Option<u64>,
    // Absent when the command was written whole before: read as None.
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<C>,
    sensor_sequences: Vec<(N, Q)>,
}

type AgentOut<'a> = AgentLine<&'a str, CommandOut<'a>, &'a [u64]>;
type AgentIn = AgentLine<String, CommandIn, Vec<u64>>;

/// A frame as written.
pub(super) type FrameOut<'a> = FrameLine<AgentOut<'a>>;

/// A frame line read back.
pub(super) type FrameIn = FrameLine<AgentIn>;

/// A frame's sensor samples: per agent, per sensor.
#[derive(Serialize)]
pub(super) struct SamplesOut<'a>(Vec<Vec<(&'a str, Vec<SampleOut<'a>>)>>);

#[derive(Serialize)]
pub(super) struct SampleOut<'a> {
    time: f64,
    wall_time: f64,
    sequence: u64,
    family: &'static str,
    reading: &'a Reading,
}

impl<'a> FrameOut<'a> {
    /// The frame's line; `inline` has, per agent, the command already
    /// written whole.
    pub(super) fn of(s: &'a Sample, inline: &HashMap<String, u64>) -> Self {
        FrameLine {
            frame: s.frame,
            time: s.time,
            agents: s
                .agents
                .iter()
                .map(|a| AgentLine {
                    name: &*a.name,
                    vehicle: a.vehicle,
                    position: a.position,
                    quaternion_xyzw: a.quaternion_xyzw,
                    velocity: a.velocity,
                    body_velocity: a.body_velocity,
                    heading_deg: a.heading_deg,
                    fin_angles_rad: a.fin_angles_rad.clone(),
                    propeller_rpm: a.propeller_rpm.clone(),
                    imu_bias: a.imu_bias,
                    command_id: a.command.as_ref().map(|c| c.id),
                    command: a
                        .command
                        .as_deref()
                        .filter(|c| inline.get(&*a.name) != Some(&c.id))
                        .map(CommandOut::of),
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
    pub(super) fn of(s: &'a Sample) -> Self {
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

/// A samples line read back (readings stay raw until their family is
/// known).
#[derive(Deserialize)]
pub(super) struct SamplesIn<'a>(#[serde(borrow)] Vec<Vec<(String, Vec<SampleIn<'a>>)>>);

#[derive(Deserialize)]
pub(super) struct SampleIn<'a> {
    time: f64,
    wall_time: f64,
    sequence: u64,
    family: String,
    #[serde(borrow)]
    reading: &'a RawValue,
}

/// Per agent, per sensor, its samples.
pub(super) type Taken = Vec<Vec<(Arc<str>, Vec<Arc<SensorSample>>)>>;

impl SamplesIn<'_> {
    pub(super) fn parse(text: &str) -> serde_json::Result<Taken> {
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
    fn into_frame(
        self,
        sensors: Vec<(Arc<str>, Vec<Arc<SensorSample>>)>,
        commands: &mut HashMap<String, Arc<CommandEntry>>,
    ) -> Result<AgentFrame, String> {
        let command = match (self.command_id, self.command) {
            (None, _) => None,
            (Some(_), Some(whole)) => {
                let entry = Arc::new(whole.into_entry().map_err(|e| e.to_string())?);
                commands.insert(self.name.clone(), entry.clone());
                Some(entry)
            }
            (Some(id), None) => match commands.get(&self.name) {
                Some(c) if c.id == id => Some(c.clone()),
                _ => return Err(format!("{}: command {id} was never written", self.name)),
            },
        };
        Ok(AgentFrame {
            name: self.name.into(),
            vehicle: self.vehicle,
            position: self.position,
            quaternion_xyzw: self.quaternion_xyzw,
            velocity: self.velocity,
            body_velocity: self.body_velocity,
            heading_deg: self.heading_deg,
            fin_angles_rad: self.fin_angles_rad,
            propeller_rpm: self.propeller_rpm,
            imu_bias: self.imu_bias,
            command,
            sensor_sequences: self
                .sensor_sequences
                .into_iter()
                .map(|(n, q)| (n.into(), q))
                .collect(),
            sensors,
        })
    }
}

impl FrameIn {
    /// The frame with its agents' samples (`taken`, per agent, or none at
    /// all when payloads are skipped).
    pub(super) fn into_sample(
        self,
        taken: Taken,
        commands: &mut HashMap<String, Arc<CommandEntry>>,
    ) -> Result<Sample, String> {
        if !taken.is_empty() && taken.len() != self.agents.len() {
            return Err(format!(
                "{} agents but samples for {}",
                self.agents.len(),
                taken.len()
            ));
        }
        let mut taken = taken.into_iter();
        let agents = self
            .agents
            .into_iter()
            .map(|a| a.into_frame(taken.next().unwrap_or_default(), commands))
            .collect::<Result<_, _>>()?;
        Ok(Sample {
            frame: self.frame,
            time: self.time,
            agents,
        })
    }
}

/// The bytes a frame takes in the spill (for tests that size one).
#[cfg(test)]
pub(crate) fn tests_bytes(s: &Sample) -> u64 {
    let len = |v: serde_json::Result<Vec<u8>>| v.map_or(0, |v| v.len() as u64 + 1);
    let frame = FrameOut::of(s, &HashMap::new());
    len(serde_json::to_vec(&frame)) + len(serde_json::to_vec(&SamplesOut::of(s)))
}
