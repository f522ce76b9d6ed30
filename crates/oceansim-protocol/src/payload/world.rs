//! Payloads of the map, world, agent, overlay, export and acoustic actions
//! (Godot world coordinates unless a field says otherwise).

use super::*;

/// `set_scenario`: load a named scenario and regenerate the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetScenario {
    /// Scenario name (`Static_Map`, `Dynamic_Map`, `NarrowMap`, `PaleMap`).
    pub scenario: String,
    /// Terrain seed; 0 when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
impl Validate for SetScenario {
    fn validate(&self) -> Result<()> {
        check_id("scenario", &self.scenario)
    }
}

/// `generate_map`: regenerate terrain for a named or the current scenario.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerateMap {
    /// Scenario name; the current one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Terrain seed; the current one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
impl Validate for GenerateMap {
    fn validate(&self) -> Result<()> {
        self.scenario
            .as_deref()
            .map_or(Ok(()), |s| check_id("scenario", s))
    }
}

/// `get_terrain_grid`: a 2-D occupancy grid (1 = blocked, 0 = free).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TerrainGridRequest {
    /// Cell edge (m), > 0; simulator default when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_size: Option<f64>,
    /// Height of the horizontal slice (Godot Y, m); the AUV's when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auv_y: Option<f64>,
    /// Mark static obstacles as blocked (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_static_obstacles: Option<bool>,
    /// Mark dynamic agents as blocked (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_dynamic_agents: Option<bool>,
    /// Grow blocked cells by this radius (m), >= 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inflation_radius: Option<f64>,
}
impl Validate for TerrainGridRequest {
    fn validate(&self) -> Result<()> {
        check_opt(self.cell_size, |x| check_range("cell_size", x, 1e-3, 1e3))?;
        check_opt(self.auv_y, |x| check_finite("auv_y", x))?;
        check_opt(self.inflation_radius, |x| {
            check_range("inflation_radius", x, 0.0, 1e3)
        })
    }
}

/// Geometry of a static obstacle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObstacleShape {
    /// Needs `radius`.
    Sphere,
    /// Needs `size` (full extents, m).
    Box,
    /// Vertical (Godot Y) axis; needs `radius` and `height`.
    Cylinder,
}

/// `spawn_obstacle`: create a static obstacle (Godot world coordinates, m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpawnObstacle {
    /// Identifier; the simulator assigns one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Geometry.
    pub shape: ObstacleShape,
    /// Centre (m, Godot world).
    #[serde(alias = "location")]
    pub position: Vector<3>,
    /// Box extents (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Vector<3>>,
    /// Sphere or cylinder radius (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Cylinder height (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Euler rotation (degrees, Godot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Vector<3>>,
}
impl Validate for SpawnObstacle {
    fn validate(&self) -> Result<()> {
        if let Some(id) = &self.id {
            check_id("id", id)?;
        }
        let need = |field: &str, v: Option<f64>| match v {
            Some(x) => check_range(field, x, 1e-6, 1e4),
            None => Err(ProtocolError::invalid(format!(
                "a {:?} obstacle needs `{field}`",
                self.shape
            ))),
        };
        match self.shape {
            ObstacleShape::Sphere => need("radius", self.radius),
            ObstacleShape::Cylinder => {
                need("radius", self.radius)?;
                need("height", self.height)
            }
            ObstacleShape::Box => match self.size {
                Some(s) if s.0.iter().all(|x| *x > 0.0 && *x <= 1e4) => Ok(()),
                Some(_) => Err(ProtocolError::invalid(
                    "box `size` entries must be in (0, 1e4] m",
                )),
                None => Err(ProtocolError::invalid("a Box obstacle needs `size`")),
            },
        }
    }
}

/// An action that names one object by `id`: `remove_obstacle`,
/// `remove_agent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectId {
    /// The object's identifier.
    #[serde(alias = "agent_name", alias = "name", alias = "obstacle_id")]
    pub id: String,
}
impl Validate for ObjectId {
    fn validate(&self) -> Result<()> {
        check_id("id", &self.id)
    }
}

/// `spawn_agent`: create a dynamic proxy agent. The typed fields are those of
/// an agent definition (aliases `id`/`name` and `position` accepted);
/// anything else is kept in `extra` for the simulator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpawnAgent {
    /// Stable runtime identifier.
    #[serde(alias = "id", alias = "name")]
    pub agent_name: String,
    /// Logical type, e.g. `proxy_auv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Initial position (m, Godot world).
    #[serde(default, alias = "position", skip_serializing_if = "Option::is_none")]
    pub location: Option<Vector<3>>,
    /// Initial Euler rotation (degrees, Godot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Vector<3>>,
    /// Initial velocity (m/s, Godot world).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Vector<3>>,
    /// Control scheme name (normalised by the simulator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_scheme: Option<String>,
    /// Motion mode, e.g. `external_velocity` or `patrol`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Patrol speed (m/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// Footprint radius (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_m: Option<f64>,
    /// Shallowest allowed depth (m, positive down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_min: Option<f64>,
    /// Deepest allowed depth (m, positive down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_max: Option<f64>,
    /// Any other definition fields (metadata, sensors, profile, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
impl Validate for SpawnAgent {
    fn validate(&self) -> Result<()> {
        check_id("agent_name", &self.agent_name)?;
        check_opt(self.speed, |x| check_range("speed", x, 0.0, 100.0))?;
        check_opt(self.size_m, |x| check_range("size_m", x, 1e-3, 100.0))?;
        check_opt(self.depth_min, |x| check_finite("depth_min", x))?;
        check_opt(self.depth_max, |x| check_finite("depth_max", x))?;
        if let (Some(lo), Some(hi)) = (self.depth_min, self.depth_max) {
            if lo > hi {
                let (lo, hi) = (crate::Num(lo), crate::Num(hi));
                return Err(ProtocolError::invalid(format!(
                    "`depth_min` ({lo}) is greater than `depth_max` ({hi})"
                )));
            }
        }
        Ok(())
    }
}

/// `move_agent`: teleport an agent (Godot world coordinates, m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveAgent {
    /// Agent identifier.
    #[serde(alias = "agent_name", alias = "name")]
    pub id: String,
    /// New position (m).
    #[serde(alias = "location")]
    pub position: Vector<3>,
    /// New Euler rotation (degrees), kept when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Vector<3>>,
}
impl Validate for MoveAgent {
    fn validate(&self) -> Result<()> {
        check_id("id", &self.id)
    }
}

/// `set_agent_velocity`: drive a proxy with an external velocity (m/s,
/// Godot world frame).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAgentVelocity {
    /// Agent identifier.
    #[serde(alias = "agent_name", alias = "name")]
    pub id: String,
    /// `[vx, vy, vz]` (m/s).
    pub velocity: Vector<3>,
}
impl Validate for SetAgentVelocity {
    fn validate(&self) -> Result<()> {
        check_id("id", &self.id)
    }
}

/// `set_nav_path`: a planned path overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NavPath {
    /// Points, `[x, z]` or `[x, y, z]` (m, Godot).
    #[serde(alias = "points")]
    pub path: Vec<PathPoint>,
}
impl Validate for NavPath {
    fn validate(&self) -> Result<()> {
        path_len_ok(&self.path, "path")
    }
}

/// `set_pred_trajectory`: a predicted trajectory overlay (e.g. an MPC
/// horizon).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredTrajectory {
    /// Points, `[x, z]` or `[x, y, z]` (m, Godot).
    #[serde(alias = "path", alias = "trajectory")]
    pub points: Vec<PathPoint>,
}
impl Validate for PredTrajectory {
    fn validate(&self) -> Result<()> {
        path_len_ok(&self.points, "points")
    }
}

/// `set_waypoints`: a waypoint list overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Waypoints {
    /// Waypoints, `[x, z]` or `[x, y, z]` (m, Godot).
    #[serde(alias = "points", alias = "path")]
    pub waypoints: Vec<PathPoint>,
}
impl Validate for Waypoints {
    fn validate(&self) -> Result<()> {
        path_len_ok(&self.waypoints, "waypoints")
    }
}

/// `set_waypoint`: one target waypoint on the Godot X/Z map plane; with
/// `control_scheme: "waypoint_pid"` it also becomes the PID controller's
/// target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetWaypoint {
    /// Godot X (m).
    pub world_x: f64,
    /// Godot Z (m).
    pub world_z: f64,
    /// Target depth (m, positive down); current depth when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    /// Agent the waypoint is for; the main AUV when omitted.
    #[serde(default, alias = "agent_name", skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// `waypoint_pid` to engage the simulator-side controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_scheme: Option<String>,
    /// Controller metadata (gains, arrival distance, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<Map<String, Value>>,
}
impl Validate for SetWaypoint {
    fn validate(&self) -> Result<()> {
        check_finite("world_x", self.world_x)?;
        check_finite("world_z", self.world_z)?;
        check_opt(self.depth, |x| check_finite("depth", x))?;
        if let Some(id) = &self.agent_id {
            check_id("agent_id", id)?;
        }
        Ok(())
    }
}

/// `export_dataset`: export run artifacts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportDataset {
    /// Directory under the export root; a fresh one when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export_dir: Option<String>,
    /// Also render an image of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_image: Option<bool>,
    /// Also pack the export into one archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack_dataset: Option<bool>,
    /// Also write the run as a ROS 2 bag (`rosbag2/`); on when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rosbag2: Option<bool>,
}
impl Validate for ExportDataset {
    fn validate(&self) -> Result<()> {
        self.export_dir
            .as_deref()
            .map_or(Ok(()), |d| check_id("export_dir", d))
    }
}

/// `save_snapshot_json`: write the current snapshot as JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveSnapshot {
    /// File path under the export root; a fresh name when omitted.
    #[serde(default, alias = "filename", skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}
impl Validate for SaveSnapshot {
    fn validate(&self) -> Result<()> {
        self.path.as_deref().map_or(Ok(()), |d| check_id("path", d))
    }
}

/// `load_snapshot`: replace the world with the one a `save_snapshot_json`
/// file holds, so the run continues from there bit for bit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadSnapshot {
    /// File path under the export root (as `save_snapshot_json` wrote it).
    #[serde(alias = "filename")]
    pub path: String,
}
impl Validate for LoadSnapshot {
    fn validate(&self) -> Result<()> {
        check_id("path", &self.path)
    }
}

/// `set_current`: a uniform ocean current (m/s, user frame: x east, y north,
/// z up).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SetCurrent {
    /// Current velocity (m/s).
    #[serde(alias = "current")]
    pub velocity: Vector<3>,
}
impl Validate for SetCurrent {}

/// `send_acoustic_message`: queue a message through the simulated acoustic
/// channel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcousticMessage {
    /// Sending agent id.
    pub sender_id: String,
    /// Receiving agent id.
    pub receiver_id: String,
    /// Message body (any JSON; its serialised size counts against bandwidth).
    pub payload: Value,
}
impl Validate for AcousticMessage {
    fn validate(&self) -> Result<()> {
        check_id("sender_id", &self.sender_id)?;
        check_id("receiver_id", &self.receiver_id)
    }
}

/// `read_acoustic_inbox`: the messages that have arrived for an agent,
/// oldest first; by default the inbox is cleared, so each message is read
/// once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadAcousticInbox {
    /// Receiving agent id.
    #[serde(alias = "id")]
    pub agent_id: String,
    /// Empty the inbox after reading (default true); false peeks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear: Option<bool>,
}
impl Validate for ReadAcousticInbox {
    fn validate(&self) -> Result<()> {
        check_id("agent_id", &self.agent_id)
    }
}

/// `configure_acoustic_comm`: channel parameters; omitted fields keep their
/// value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct AcousticConfig {
    /// One-way latency (s), >= 0.
    #[serde(default, alias = "latency", skip_serializing_if = "Option::is_none")]
    pub latency_s: Option<f64>,
    /// Bandwidth (bit/s) in [1e-6, 1e15], shared by every sender: messages
    /// that overlap in time queue behind each other.
    #[serde(default, alias = "bandwidth", skip_serializing_if = "Option::is_none")]
    pub bandwidth_bps: Option<f64>,
    /// Maximum range (m), > 0.
    #[serde(default, alias = "range", skip_serializing_if = "Option::is_none")]
    pub range_m: Option<f64>,
    /// Probability in [0, 1] that a packet is dropped.
    #[serde(default, alias = "drop_rate", skip_serializing_if = "Option::is_none")]
    pub packet_drop_rate: Option<f64>,
    /// Seed of the drop process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
impl Validate for AcousticConfig {
    fn validate(&self) -> Result<()> {
        check_opt(self.latency_s, |x| check_range("latency_s", x, 0.0, 3600.0))?;
        // Bounded below so a message's air time stays finite.
        check_opt(self.bandwidth_bps, |x| {
            check_range("bandwidth_bps", x, 1e-6, 1e15)
        })?;
        check_opt(self.range_m, |x| check_positive("range_m", x))?;
        check_opt(self.packet_drop_rate, |x| {
            check_range("packet_drop_rate", x, 0.0, 1.0)
        })
    }
}

/// Deserialises and validates a payload from a request's `data` object.
pub(crate) fn parse_payload<T: DeserializeOwned + Validate>(data: Value) -> Result<T> {
    let payload: T = serde_json::from_value(data).map_err(|e| {
        let msg = e.to_string();
        match msg.find(SHAPE_MARK) {
            Some(at) => {
                let rest = &msg[at + SHAPE_MARK.len()..];
                ProtocolError::shape(format!("invalid action shape: {rest}"))
            }
            None => ProtocolError::invalid(format!("invalid payload: {msg}")),
        }
    })?;
    payload.validate()?;
    Ok(payload)
}

/// Serialises a payload back to its `data` object.
pub(crate) fn payload_value<T: Serialize>(payload: &T) -> Value {
    // Payload types serialise to JSON objects by construction (plain structs
    // of finite numbers, strings and maps), so this cannot fail.
    serde_json::to_value(payload).unwrap_or_else(|_| Value::Object(Map::new()))
}
