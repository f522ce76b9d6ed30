//! The run recorder: one sample per control period, kept for export. The
//! `recorder` system writes it; export reads it, never live state.

use oceansim_agents::CommandRecord;
use std::collections::VecDeque;

/// Most recorded samples kept for export (10 Hz: about 2.8 h); the oldest
/// are dropped first.
pub const MAX_RECORDED_SAMPLES: usize = 100_000;

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

/// The recorder resource.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    samples: VecDeque<Sample>,
}

impl Recorder {
    /// Appends a sample, dropping the oldest past [`MAX_RECORDED_SAMPLES`].
    pub fn push(&mut self, s: Sample) {
        if self.samples.len() >= MAX_RECORDED_SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back(s);
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = &Sample> {
        self.samples.iter()
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples.len()
    }
}
