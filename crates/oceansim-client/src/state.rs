//! [`AuvState`]: a typed view of a `get_state` / `step` reply.

use crate::error::{ClientError, Result};
use oceansim_protocol::reply::StateData;
use oceansim_vehicles::frames::{oceansim_to_godot, oceansim_to_ros_ned};
use serde_json::{Map, Value};

/// The main AUV's state as the simulator reports it, with the frame
/// conversions a controller needs.
///
/// `position` and `velocity` are in the OceanSim user frame (x east/right,
/// y north/forward, z up; m, m/s), which is numerically ROS ENU.
/// Everything else of the reply is in [`AuvState::data`].
#[derive(Debug, Clone, PartialEq)]
pub struct AuvState {
    /// The reply's state, typed.
    pub data: StateData,
}

impl AuvState {
    /// Parses a state reply's `data`. A reply that is not a full state
    /// (missing or mistyped fields) is a protocol error `invalid_state`.
    pub fn from_value(data: Value) -> Result<AuvState> {
        serde_json::from_value::<StateData>(data.clone())
            .map(|data| AuvState { data })
            .map_err(|e| {
                ClientError::protocol(
                    "invalid_state",
                    format!("not a full AUV state: {e}"),
                    "get_state",
                    Some(data),
                )
            })
    }

    /// Reads the state in a `state` reply's line with its sensor payloads
    /// skipped, not built ([`AuvState::sensors`] is then empty): what a
    /// caller that parses the line itself needs of the state, at a
    /// fraction of a full parse.
    pub fn from_line_without_sensors(line: &str) -> Result<AuvState> {
        #[derive(serde::Deserialize)]
        struct Envelope {
            data: StateData<serde::de::IgnoredAny>,
        }
        serde_json::from_str::<Envelope>(line)
            .map(|e| AuvState {
                data: e.data.with_sensors(Map::new()),
            })
            .map_err(|e| {
                ClientError::protocol(
                    "invalid_state",
                    format!("not a full AUV state: {e}"),
                    "get_state",
                    None,
                )
            })
    }

    /// Position (m, OceanSim user frame = ROS ENU).
    pub fn position(&self) -> [f64; 3] {
        self.data.position
    }
    /// Position in Godot world coordinates (Y up; = `[x, z, -y]`).
    pub fn position_godot_xyz(&self) -> [f64; 3] {
        oceansim_to_godot(self.data.position)
    }
    /// Position in ROS ENU (the user frame itself).
    pub fn position_ros_enu(&self) -> [f64; 3] {
        self.data.position
    }
    /// Position in ROS NED (x north, y east, z down).
    pub fn position_ros_ned(&self) -> [f64; 3] {
        oceansim_to_ros_ned(self.data.position)
    }
    /// Velocity (m/s, user frame).
    pub fn velocity(&self) -> [f64; 3] {
        self.data.velocity
    }
    /// Depth below the surface (m, positive down).
    pub fn depth(&self) -> f64 {
        self.data.depth
    }
    /// |velocity| (m/s).
    pub fn speed(&self) -> f64 {
        self.data.speed
    }
    /// Compass heading (deg, 0 = north, clockwise, in [0, 360)).
    pub fn heading(&self) -> f64 {
        self.data.heading_deg
    }
    /// Simulation time (s).
    pub fn sim_time(&self) -> f64 {
        self.data.sim_time
    }
    /// East (m, user x).
    pub fn x(&self) -> f64 {
        self.data.position[0]
    }
    /// North (m, user y).
    pub fn y(&self) -> f64 {
        self.data.position[1]
    }
    /// Up (m, user z; = −depth).
    pub fn z(&self) -> f64 {
        self.data.position[2]
    }
    /// `true` while the AUV touches the seabed, an obstacle, an agent, the
    /// map's edge or the surface.
    pub fn in_contact(&self) -> bool {
        !self.data.contacts.is_empty()
    }
    /// Every embedded sensor payload, by name.
    pub fn sensors(&self) -> &Map<String, Value> {
        &self.data.sensors
    }
    /// One embedded sensor payload.
    pub fn sensor(&self, name: &str) -> Option<&Value> {
        self.data.sensors.get(name)
    }
    /// The 2D lidar scan.
    pub fn lidar_2d(&self) -> Option<&Value> {
        self.sensor("lidar_2d")
    }
    /// The 3D lidar cloud.
    pub fn lidar_3d(&self) -> Option<&Value> {
        self.sensor("lidar_3d")
    }
    /// The Doppler velocity log.
    pub fn dvl(&self) -> Option<&Value> {
        self.sensor("dvl")
    }
    /// The camera frame.
    pub fn camera(&self) -> Option<&Value> {
        self.sensor("camera")
    }
}
