//! What the recorder keeps: frames of every agent's state, and the
//! commands they link to.

use oceansim_agents::CommandRecord;
use oceansim_dataset::ImuBias;
use oceansim_protocol::RequestId;
use oceansim_sensors::SensorSample;
use std::sync::Arc;

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
    /// Control-surface angles (rad), profile order; empty without fins.
    pub fin_angles_rad: Vec<f64>,
    /// Propeller shaft speeds (rpm), profile order; empty without.
    pub propeller_rpm: Vec<f64>,
    /// The true biases of its first IMU (body FLU), for a vehicle that
    /// carries one, once it has sampled.
    pub imu_bias: Option<ImuBias>,
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
