//! The run recorder: one sample per control period, kept for export. The
//! `recorder` system writes it; export reads it, never live state.

use oceansim_agents::CommandRecord;
use std::collections::VecDeque;
use std::sync::Arc;

/// Most recorded samples kept for export (10 Hz: about 2.8 h); the oldest
/// are dropped first.
pub const MAX_RECORDED_SAMPLES: usize = 100_000;
/// Most memory the recorded samples may take (an estimate: with 64 agents
/// each sample carries 64 names and positions, so the sample bound alone
/// would allow ~300 MB); the oldest are dropped first.
pub const MAX_RECORDED_BYTES: usize = 64 << 20;

/// One recorded sample (user frame).
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Simulation time (s).
    pub time: f64,
    /// Main AUV position (m).
    pub position: [f64; 3],
    /// Main AUV velocity (m/s).
    pub velocity: [f64; 3],
    /// Main AUV compass heading (deg).
    pub heading_deg: f64,
    /// The main AUV's last command.
    pub command: Option<CommandRecord>,
    /// Every other agent's name and position (m).
    pub agents: Vec<(String, [f64; 3])>,
}

/// The recorder resource. Samples are shared, so an export can take the
/// whole record in O(N) pointer copies and write it on another thread.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    samples: VecDeque<Arc<Sample>>,
    /// Sum of the samples' [`Sample::approx_bytes`].
    bytes: usize,
}

impl Sample {
    /// Approximate heap and inline bytes of this sample.
    pub fn approx_bytes(&self) -> usize {
        let agents: usize = self
            .agents
            .iter()
            .map(|(name, _)| std::mem::size_of::<(String, [f64; 3])>() + name.len())
            .sum();
        // A command's payload is a small JSON object.
        let command = self.command.as_ref().map_or(0, |c| 256 + c.action.len());
        std::mem::size_of::<Sample>() + 16 + agents + command
    }
}

impl Recorder {
    /// Appends a sample, dropping the oldest past [`MAX_RECORDED_SAMPLES`]
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

    /// The samples, oldest first, shared.
    pub fn shared(&self) -> Vec<Arc<Sample>> {
        self.samples.iter().cloned().collect()
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(agents: usize) -> Sample {
        Sample {
            time: 0.0,
            position: [0.0; 3],
            velocity: [0.0; 3],
            heading_deg: 0.0,
            command: None,
            agents: (0..agents)
                .map(|i| (format!("agent_{i:03}"), [0.0; 3]))
                .collect(),
        }
    }

    #[test]
    fn bounded_by_count_and_by_bytes() {
        let mut r = Recorder::default();
        for _ in 0..MAX_RECORDED_SAMPLES + 10 {
            r.push(sample(0));
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
}
