//! The full state payload of `get_state` and `step`.

use super::*;

/// `get_state` / `step`: the main AUV's full state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateData<S = SensorMap> {
    /// Position (m, user frame).
    pub position: [f64; 3],
    /// Velocity (m/s, user frame).
    pub velocity: [f64; 3],
    /// Depth below the surface (m).
    pub depth: f64,
    /// |velocity| (m/s).
    pub speed: f64,
    /// Compass heading (deg).
    pub heading_deg: f64,
    /// Simulation time (s).
    pub sim_time: f64,
    /// Position in Godot coordinates (m).
    pub position_godot: [f64; 3],
    /// Height above the seabed (m).
    pub altitude: f64,
    /// Attitude.
    pub orientation: Orientation,
    /// ν = `[u, v, w, p, q, r]` (m/s, rad/s, Fossen body).
    pub body_velocity: [f64; 6],
    /// `[p, q, r]` (rad/s, Fossen body).
    pub angular_velocity: [f64; 3],
    /// Class of the first current contact, if any (compatibility summary of `contacts`).
    pub contact: Option<ContactClass>,
    /// Every current contact.
    pub contacts: Vec<Contact>,
    /// Ocean current at the AUV (m/s, user frame).
    pub current: [f64; 3],
    /// Control diagnostics.
    pub control: ControlReport,
    /// Whether the clock is paused.
    pub paused: bool,
    /// Clock speed (multiple of real time).
    pub time_scale: f64,
    /// While the clock runs: the multiple of real time the host achieved
    /// over the last second or so, below `time_scale` when it cannot
    /// follow (the backlog is dropped rather than run in one burst).
    /// Absent while paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub achieved_time_scale: Option<f64>,
    /// What recording sensor data costs on this host: present unless the
    /// server runs `--deterministic` (wall-clock figures differ from run
    /// to run, and deterministic replies must not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<RecordingCost>,
    /// Scenario id.
    pub scenario: String,
    /// Acoustic inbox.
    pub acoustic: AcousticView,
    /// Sensor payloads by name, in declaration order.
    pub sensors: S,
}

impl<S> StateData<S> {
    /// The same state with other sensor payloads (e.g. a state read with
    /// its sensors skipped, given an empty map).
    pub fn with_sensors<T>(self, sensors: T) -> StateData<T> {
        StateData {
            position: self.position,
            velocity: self.velocity,
            depth: self.depth,
            speed: self.speed,
            heading_deg: self.heading_deg,
            sim_time: self.sim_time,
            position_godot: self.position_godot,
            altitude: self.altitude,
            orientation: self.orientation,
            body_velocity: self.body_velocity,
            angular_velocity: self.angular_velocity,
            contact: self.contact,
            contacts: self.contacts,
            current: self.current,
            control: self.control,
            paused: self.paused,
            time_scale: self.time_scale,
            achieved_time_scale: self.achieved_time_scale,
            recording: self.recording,
            scenario: self.scenario,
            acoustic: self.acoustic,
            sensors,
        }
    }
}

/// What recording sensor data costs, as a state reply reports it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RecordingCost {
    /// Whether the recording keeps sensor data (every sensor rendered at
    /// its rate for the export); false under `--no-sensor-data`.
    pub sensor_data: bool,
    /// CPU time spent rendering imaging sensors (cameras, sonars, their
    /// images and clouds), on any thread, per simulated second since the
    /// simulation started (ms/s): on `n` cores the renders alone allow at
    /// most `n · 1000 / this` times real time.
    pub render_cpu_ms_per_sim_s: f64,
    /// Renders queued or running for the recording now: at the bound
    /// (`--renders-in-flight`) the simulation waits for them.
    pub renders_in_flight: u64,
}
