//! Runtime settings and the bounds every client-controlled quantity has.

use crate::error::{Result, SimError};
use oceansim_scene::scenario;
use std::path::PathBuf;

/// The least [`SimConfig::record_memory_bytes`]: 1 MiB (a frame with
/// every imaging sensor's samples is a few hundred KiB).
pub const MIN_RECORD_MEMORY_BYTES: usize = 1 << 20;
/// Most agents besides the main AUV.
pub const MAX_AGENTS: usize = 64;
/// Most cells in one occupancy grid.
pub const MAX_GRID_CELLS: usize = 1_000_000;
/// Shortest physics tick (s): 0.1 ms.
pub const MIN_TICK_S: f64 = 1e-4;
/// Longest physics tick (s).
pub const MAX_TICK_S: f64 = 0.1;
/// Most ticks one `step` (one control period) may run, so that a step
/// answers within about a second and a signal is heard between steps.
pub const MAX_STEP_TICKS: u64 = 10_000;

/// Runtime settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Scenario name or path.
    pub scenario: String,
    /// Terrain and noise seed.
    pub seed: u64,
    /// Vehicle profile override for the main AUV (default: the scenario's).
    pub profile: Option<String>,
    /// Physics tick (s).
    pub tick_s: f64,
    /// Control period advanced by `step` (s).
    pub step_period_s: f64,
    /// Start paused.
    pub paused: bool,
    /// Multiple of real time.
    pub time_scale: f64,
    /// Where exports may be written.
    pub export_root: PathBuf,
    /// Sensor `timestamp_wall` is the simulated time instead of the wall
    /// clock, so that replies are byte-identical from run to run.
    pub deterministic: bool,
    /// Recorded frames keep every sensor sample (exported as per-sensor
    /// series, PNG images, PLY clouds, MCAP and rosbag2 channels), not only
    /// their sequence numbers, and imaging sensors (cameras, sonars)
    /// render at their rates whoever asks. On by default; turn it off for
    /// long runs that need only trajectories (docs/datasets.md gives the
    /// memory and speed it costs).
    pub record_sensor_data: bool,
    /// Simulated seconds between recorded frames: a whole number of ticks,
    /// at most an hour; `None` records once per control period.
    pub record_period_s: Option<f64>,
    /// Most recorded frames (and logged commands) kept in memory; older
    /// ones spill to disk under the export root and are still exported
    /// (see [`crate::RecordLimits`]). At least 1.
    pub record_memory_frames: usize,
    /// Most bytes of recorded frames kept in memory (sensor samples
    /// included: images and clouds); older frames spill as above. At
    /// least 1 MiB; default [`crate::MAX_RECORDED_BYTES`] (96 MiB).
    pub record_memory_bytes: usize,
    /// Bytes this process may write under `export_root`: exports, packs,
    /// snapshots and the recorder's spill together (see
    /// [`crate::DiskBudget`]); default 4 GiB.
    pub export_budget_bytes: u64,
    /// Most sensor samples waiting for their render: while a recording
    /// keeps sensor data, the imaging sensors' samples that no request
    /// asked for render beside the simulation (the process's
    /// [`oceansim_sensors::RenderPool`], on the cores the simulation and
    /// its clients leave idle) and join the record once done; past this
    /// many, or past [`crate::MAX_RENDER_BACKLOG_BYTES`] of frames waiting for
    /// them, the simulation waits for the oldest (none is dropped). 0
    /// renders them on the simulation thread. Either way the samples, and
    /// the exports, are the same to the byte. At most
    /// [`crate::MAX_RENDERS_IN_FLIGHT_LIMIT`]; default
    /// [`crate::MAX_RENDERS_IN_FLIGHT`] (16,384: the simulation may run
    /// about 11 simulated minutes of the default vehicle ahead of its
    /// renders; an export then waits for them, without holding the
    /// world).
    pub renders_in_flight: usize,
}

/// Most sensor renders [`SimConfig::renders_in_flight`] may allow (what
/// they hold is bounded by [`crate::MAX_RENDER_BACKLOG_BYTES`] whatever the
/// count).
pub const MAX_RENDERS_IN_FLIGHT_LIMIT: usize = 1 << 20;

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            scenario: scenario::DEFAULT_SCENARIO.into(),
            seed: 0,
            profile: None,
            tick_s: 0.01,
            step_period_s: 0.1,
            paused: false,
            time_scale: 1.0,
            export_root: PathBuf::from("oceansim-exports"),
            deterministic: false,
            record_sensor_data: true,
            record_period_s: None,
            record_memory_frames: crate::MAX_RECORDED_SAMPLES,
            record_memory_bytes: crate::MAX_RECORDED_BYTES,
            export_budget_bytes: crate::DEFAULT_EXPORT_BUDGET_BYTES,
            renders_in_flight: crate::MAX_RENDERS_IN_FLIGHT,
        }
    }
}

impl SimConfig {
    /// Checks the tick, the control period and the time scale.
    pub fn check(&self) -> Result<()> {
        let ok = self.tick_s.is_finite() && (MIN_TICK_S..=MAX_TICK_S).contains(&self.tick_s);
        if !ok {
            return Err(SimError::Config(format!(
                "tick must be from {MIN_TICK_S} to {MAX_TICK_S} s, got {:?}",
                self.tick_s
            )));
        }
        let ratio = self.step_period_s / self.tick_s;
        if !(ratio.is_finite() && ratio >= 1.0 - 1e-9 && (ratio - ratio.round()).abs() < 1e-6) {
            return Err(SimError::Config(format!(
                "step period {:?} s must be a whole number of ticks of {:?} s",
                self.step_period_s, self.tick_s
            )));
        }
        if ratio.round() > MAX_STEP_TICKS as f64 {
            return Err(SimError::Config(format!(
                "step period {:?} s is {:.3e} ticks of {:?} s; at most {MAX_STEP_TICKS} ticks a step",
                self.step_period_s, ratio, self.tick_s
            )));
        }
        if self.renders_in_flight > MAX_RENDERS_IN_FLIGHT_LIMIT {
            return Err(SimError::Config(format!(
                "renders in flight must be at most {MAX_RENDERS_IN_FLIGHT_LIMIT}, got {}",
                self.renders_in_flight
            )));
        }
        if let Some(p) = self.record_period_s {
            let k = p / self.tick_s;
            let whole = k.is_finite() && k >= 1.0 - 1e-9 && (k - k.round()).abs() < 1e-6;
            if !(whole && p <= 3600.0) {
                return Err(SimError::Config(format!(
                    "record period {p:?} s must be a whole number of ticks of {:?} s, at most 3600 s",
                    self.tick_s
                )));
            }
        }
        if self.record_memory_frames == 0 {
            return Err(SimError::Config(
                "record_memory_frames must be at least 1".into(),
            ));
        }
        if self.record_memory_bytes < MIN_RECORD_MEMORY_BYTES {
            return Err(SimError::Config(format!(
                "record_memory_bytes must be at least {MIN_RECORD_MEMORY_BYTES} (1 MiB)"
            )));
        }
        if !(self.time_scale.is_finite()
            && self.time_scale > 0.0
            && self.time_scale <= oceansim_protocol::payload::MAX_TIME_SCALE)
        {
            return Err(SimError::Config(format!(
                "time scale must be in (0, 1e6], got {:?}",
                self.time_scale
            )));
        }
        Ok(())
    }

    /// Ticks per `step`.
    pub fn step_ticks(&self) -> u64 {
        (self.step_period_s / self.tick_s).round() as u64
    }

    /// Ticks per recorded frame.
    pub fn record_ticks(&self) -> u64 {
        self.record_period_s
            .map_or_else(|| self.step_ticks(), |p| (p / self.tick_s).round() as u64)
            .max(1)
    }
}
