//! A run in numbers, printable.

use crate::RunReplay;
use std::collections::BTreeMap;
use std::fmt;

/// What a run holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Scenario id.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Frames.
    pub frames: usize,
    /// First and last frame time (s).
    pub time_span_s: [f64; 2],
    /// Per agent: distance travelled (m, along its recorded positions).
    pub distance_m: BTreeMap<String, f64>,
    /// Per agent: frames it appears in.
    pub agent_frames: BTreeMap<String, usize>,
    /// Logged commands.
    pub commands: usize,
    /// Per `agent/sensor`: samples recorded.
    pub sensor_samples: BTreeMap<String, usize>,
}

impl Summary {
    pub(crate) fn of(run: &RunReplay) -> Summary {
        let meta = run.metadata();
        let mut distance_m = BTreeMap::new();
        let mut agent_frames = BTreeMap::new();
        let mut sensor_samples: BTreeMap<String, usize> = BTreeMap::new();
        for agent in run.agents() {
            let track = run.trajectory(agent);
            let d: f64 = track
                .windows(2)
                .map(|w| {
                    let (a, b) = (w[0].position, w[1].position);
                    ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
                })
                .sum();
            distance_m.insert(agent.to_owned(), d);
            agent_frames.insert(agent.to_owned(), track.len());
            for row in run.rows(agent) {
                for (sensor, seqs) in &row.sensor_sequences {
                    *sensor_samples
                        .entry(format!("{agent}/{sensor}"))
                        .or_default() += seqs.len();
                }
            }
        }
        let frames: Vec<_> = run.frames().collect();
        Summary {
            scenario: meta["scenario"].as_str().unwrap_or("unknown").to_owned(),
            seed: meta["seed"].as_u64().unwrap_or(0),
            frames: frames.len(),
            time_span_s: [
                frames.first().map_or(0.0, |f| f.time),
                frames.last().map_or(0.0, |f| f.time),
            ],
            distance_m,
            agent_frames,
            commands: run.commands().len(),
            sensor_samples,
        }
    }
}

/// A name read from a run's files, as the table prints it: control and
/// reordering characters escaped (`\u{1b}`), so a forged name cannot move
/// the cursor, retitle the terminal or start a row of its own.
fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    oceansim_protocol::names::escape_unprintable(name)
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [t0, t1] = self.time_span_s;
        writeln!(
            f,
            "scenario {} (seed {}): {} frames, {t0:.2} s to {t1:.2} s, {} commands",
            shown(&self.scenario),
            self.seed,
            self.frames,
            self.commands
        )?;
        writeln!(f, "{:<24} {:>8} {:>12}", "agent", "frames", "distance_m")?;
        for (agent, d) in &self.distance_m {
            let frames = self.agent_frames.get(agent).copied().unwrap_or(0);
            writeln!(f, "{:<24} {frames:>8} {d:>12.2}", shown(agent))?;
        }
        if !self.sensor_samples.is_empty() {
            writeln!(f, "{:<36} {:>8}", "sensor", "samples")?;
            for (s, n) in &self.sensor_samples {
                writeln!(f, "{:<36} {n:>8}", shown(s))?;
            }
        }
        Ok(())
    }
}
