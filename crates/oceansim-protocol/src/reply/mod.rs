//! Typed reply payloads: the `data` of every successful response.
//!
//! The simulator builds these structs and serialises each once; clients
//! deserialise the same structs. Field names and units are the wire's.
//! Frames: `position`, `velocity`, `current` and everything named `_user`
//! are in the OceanSim user frame (x east, y north, z up, m and m/s);
//! `_godot` fields are Godot world coordinates (Y up); `body_velocity`,
//! `body_wrench` and `angular_velocity` are in the Fossen body frame (x
//! forward, y starboard, z down). Angles named `_deg` are degrees.
//!
//! Two payloads carry data produced elsewhere and are generic over it: the
//! sensor map of a state (`S`: pre-rendered payloads on the server, a JSON
//! map on a client) and the agent records of `get_agents` (`R`: the agents
//! crate's runtime record).

use crate::payload::{ObstacleShape, PathPoint};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The coordinate frame of a vector in a request or reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Frame {
    /// OceanSim user/world frame, ENU-compatible: x east/right, y north/forward, z up.
    OceansimWorld,
    /// AUV body frame in the user convention: x right/starboard, y forward, z up.
    OceansimBody,
    /// Fossen body frame: x forward (surge), y starboard (sway), z down (heave).
    FossenBody,
    /// Godot world frame, Y up (OceanSim = [X, -Z, Y]).
    GodotWorld,
    /// Godot X/Z map plane plus depth (m, positive down).
    GodotMapPlane,
    /// Actuator commands in vehicle-profile order: normalised for
    /// thrusters; rad (control surfaces) then rpm (propellers) for fins.
    Actuator,
}

/// The sensor map of a state when nothing is known of its payloads.
pub type SensorMap = Map<String, Value>;

/// The last command an agent received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandRecord {
    /// Protocol action, e.g. `set_force_world`.
    pub action: String,
    /// Its payload, as applied (after saturation).
    pub data: Value,
    /// Frame of the command vector, when it has one.
    pub frame: Option<Frame>,
}

/// Recordable controller diagnostics (waypoint PID and similar).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControllerState {
    /// Controller kind, e.g. `waypoint_pid`.
    pub mode: String,
    /// Target (for `waypoint_pid`: `[world_x, world_z, depth]`, m).
    pub target: Vec<f64>,
    /// Target minus measurement, same layout as `target`.
    pub error: Vec<f64>,
    /// Integral of the error (unit·s), same layout.
    pub integral: Vec<f64>,
    /// Per-axis output saturation flags.
    pub saturation: Vec<bool>,
    /// The command the controller produced (for `waypoint_pid`: world force, N).
    pub output: Vec<f64>,
    /// Whether the target has been reached.
    pub arrived: bool,
}

/// What an agent touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactClass {
    /// The seabed.
    Terrain,
    /// A static obstacle.
    StaticObstacle,
    /// Another agent.
    Agent,
    /// The edge of the map.
    MapEdge,
    /// The sea surface.
    Surface,
}

/// One contact of an agent this tick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// The other body: an obstacle or agent id, or `seabed`, `map_edge`, `surface`.
    pub id: String,
    /// What kind of body it is.
    pub class: ContactClass,
    /// Unit normal pointing away from the other body (user frame).
    pub normal_user: [f64; 3],
    /// How far the agent had entered it before being pushed out (m).
    pub depth_m: f64,
}

/// Attitude of the main AUV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Orientation {
    /// Roll (deg, Fossen: starboard down positive).
    pub roll_deg: f64,
    /// Pitch (deg, nose up positive).
    pub pitch_deg: f64,
    /// Compass heading (deg, 0 = north, clockwise, [0, 360)).
    pub heading_deg: f64,
    /// Body → NED attitude quaternion `[x, y, z, w]`.
    pub quaternion_xyzw: [f64; 4],
    /// The same attitude as a Godot Euler rotation (deg).
    pub rotation_godot_deg: [f64; 3],
    /// What the quaternion maps (`body FRD to NED`).
    pub frame: String,
}

/// Control diagnostics of the main AUV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlReport {
    /// Active control scheme.
    pub control_scheme: String,
    /// The last command received.
    pub last_command: Option<CommandRecord>,
    /// When (s).
    pub last_command_time: Option<f64>,
    /// Whether the last command was clipped to the vehicle's limits.
    pub command_saturated: bool,
    /// Body wrench of the last tick `[X, Y, Z, K, M, N]` (N, N·m, Fossen body).
    pub body_wrench: [f64; 6],
    /// Thruster outputs after the actuator model (normalised).
    pub thruster_outputs: Vec<f64>,
    /// Thrust of each thruster (N).
    pub thrust_n: Vec<f64>,
    /// Control-surface angles (rad), profile order, for vehicles with fins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fin_angles_rad: Vec<f64>,
    /// Propeller shaft speeds (rpm), profile order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub propeller_rpm: Vec<f64>,
    /// Controller diagnostics when a controller is engaged.
    pub controller_state: Option<ControllerState>,
}

/// A delivered acoustic message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcousticDelivery {
    /// Sequence number of the message.
    pub message_id: u64,
    /// Sender.
    pub sender_id: String,
    /// Receiver.
    pub receiver_id: String,
    /// Body.
    pub payload: Value,
    /// When it was sent (s).
    pub sent_at: f64,
    /// When it arrived (s).
    pub delivered_at: f64,
}

/// The main AUV's acoustic inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcousticView {
    /// Delivered messages, oldest first.
    pub inbox: Vec<AcousticDelivery>,
    /// Messages in flight.
    pub pending: usize,
}

/// `get_state` / `step` with `detail: compact`: pose, velocity and the
/// sensors that changed since the connection last saw them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactState<S = SensorMap> {
    /// Simulation time (s).
    pub sim_time: f64,
    /// Position (m, user frame).
    pub position: [f64; 3],
    /// Velocity (m/s, user frame).
    pub velocity: [f64; 3],
    /// Depth (m).
    pub depth: f64,
    /// |velocity| (m/s).
    pub speed: f64,
    /// Compass heading (deg).
    pub heading_deg: f64,
    /// Body → NED attitude `[x, y, z, w]`.
    pub quaternion_xyzw: [f64; 4],
    /// ν (Fossen body).
    pub body_velocity: [f64; 6],
    /// Number of current contacts.
    pub contacts: usize,
    /// Sensor payloads whose sequence changed since this connection's last
    /// compact reply.
    pub sensors: S,
}

/// `get_sensors`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensorsData<S = SensorMap> {
    /// Simulation time (s).
    pub sim_time: f64,
    /// Payloads by name.
    pub sensors: S,
}

/// `reset`, `pause`, `resume`, `set_time_scale`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockData {
    /// Whether the clock is paused.
    pub paused: bool,
    /// Clock speed (multiple of real time).
    pub time_scale: f64,
    /// Simulation time (s).
    pub sim_time: f64,
    /// Scenario id.
    pub scenario: String,
    /// Seed of terrain, noise and drops.
    pub seed: u64,
}

/// The answer to a motion command (`set_force*`, `set_body_*`,
/// `set_thrust*`, `set_fins`): what was applied, to whom, in which frame.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MotionAck {
    /// The agent commanded.
    pub agent_id: String,
    /// Applied force (N), for `set_force*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<[f64; 3]>,
    /// Applied wrench (N, N·m), for `set_body_wrench`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrench: Option<[f64; 6]>,
    /// Applied body velocity target (m/s, rad/s), for `set_body_velocity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 6]>,
    /// Applied thruster commands in profile order, for `set_thrust*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thrusters: Option<Vec<f64>>,
    /// Applied fin command in profile order, for `set_fins`: control
    /// surfaces (rad) then propellers (rpm), after clipping to the profile's
    /// limits (`saturated` and `requested` say when it was clipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fins: Option<Vec<f64>>,
    /// Frame of the vector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Frame>,
    /// Whether any component was clipped to the vehicle's limits.
    pub saturated: bool,
    /// The vector as sent, when it was clipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<Vec<f64>>,
}

/// `set_agent_velocity`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentVelocityAck {
    /// The proxy.
    pub id: String,
    /// Velocity as applied (m/s, Godot world).
    pub velocity: [f64; 3],
    /// `godot_world`.
    pub frame: Frame,
    /// Whether the speed was clipped to the proxy's limit.
    pub saturated: bool,
}

/// `set_current`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurrentAck {
    /// Current as applied (m/s, user frame).
    pub current: [f64; 3],
    /// `oceansim_world`.
    pub frame: Frame,
    /// Whether its magnitude was clipped.
    pub saturated: bool,
}

/// Map bounds in the user frame (m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundsUser {
    /// `[min, max]` east.
    pub x: [f64; 2],
    /// `[min, max]` north.
    pub y: [f64; 2],
}

/// Map bounds in Godot coordinates (m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundsGodot {
    /// `[min, max]` Godot X.
    pub x: [f64; 2],
    /// `[min, max]` Godot Z.
    pub z: [f64; 2],
}

/// Seabed summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerrainSummary {
    /// Shallowest seabed depth (m).
    pub min_depth_m: f64,
    /// Deepest seabed depth (m).
    pub max_depth_m: f64,
    /// Height sample spacing (m).
    pub cell_m: f64,
}

/// A static obstacle as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObstacleInfo {
    /// Identifier.
    pub id: String,
    /// Geometry.
    pub shape: ObstacleShape,
    /// Centre (m, user frame).
    pub center_user: [f64; 3],
    /// Centre (m, Godot).
    pub center_godot: [f64; 3],
    /// Half extents in the obstacle's axes (m); sphere/cylinder `[r, r, r or h/2]`.
    pub half_extents_user: [f64; 3],
    /// Godot Euler rotation as sent (deg).
    pub rotation_godot_deg: Option<[f64; 3]>,
}

/// The navigation overlays (Godot coordinates, as sent).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OverlaysInfo {
    /// `set_nav_path`.
    pub nav_path: Vec<PathPoint>,
    /// `set_waypoint`: `[world_x, world_z, depth]`.
    pub waypoint: Option<[f64; 3]>,
    /// `set_pred_trajectory`.
    pub pred_trajectory: Vec<PathPoint>,
    /// `set_waypoints`.
    pub waypoints: Vec<PathPoint>,
}

/// `get_map_info`, `set_scenario`, `generate_map`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapInfo {
    /// Scenario id.
    pub scenario: String,
    /// Human-readable name.
    pub display_name: String,
    /// What the scenario is for.
    pub description: String,
    /// Terrain generator.
    pub generator: String,
    /// Active seed.
    pub seed: u64,
    /// Benchmark seeds.
    pub seeds: Vec<u64>,
    /// Semantic tags.
    pub tags: Vec<String>,
    /// Recommended vehicle profile.
    pub recommended_profile: Option<String>,
    /// Extent (m) east and north.
    pub map_size_m: [f64; 2],
    /// Bounds, user frame.
    pub bounds_user: BoundsUser,
    /// Bounds, Godot.
    pub bounds_godot: BoundsGodot,
    /// Mean seabed depth (m).
    pub floor_depth_m: f64,
    /// Seabed summary.
    pub terrain: TerrainSummary,
    /// Static obstacles.
    pub obstacles: Vec<ObstacleInfo>,
    /// A survey route over the map, Godot `[x, z]`.
    pub path_points: Vec<[f64; 2]>,
    /// Frame of `path_points`.
    pub path_frame: String,
    /// Navigation overlays.
    pub overlays: OverlaysInfo,
    /// Number of agents (main AUV included).
    pub agents: usize,
}

/// `get_terrain_grid`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerrainGrid {
    /// Columns (east).
    pub width: usize,
    /// Rows (north).
    pub height: usize,
    /// Cell edge (m).
    pub cell_size: f64,
    /// South-west corner `[x, y]` (m, user frame).
    pub origin_user: [f64; 2],
    /// Height of the slice (m, user z).
    pub slice_z: f64,
    /// Inflation (m).
    pub inflation_radius: f64,
    /// How to index the grids.
    pub layout: String,
    /// 1 = blocked, 0 = free, `grid[row][col]`.
    pub grid: Vec<Vec<u8>>,
    /// Class of each cell (see `classes`).
    pub class_grid: Vec<Vec<u8>>,
    /// Class id → name.
    pub classes: BTreeMap<String, String>,
    /// Cells per class name.
    pub counts: BTreeMap<String, usize>,
    /// Whether static obstacles were marked.
    pub include_static_obstacles: bool,
    /// Whether dynamic agents were marked.
    pub include_dynamic_agents: bool,
}

/// `spawn_obstacle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObstacleSpawned {
    /// Its id.
    pub id: String,
    /// What was placed.
    pub obstacle: ObstacleInfo,
    /// Obstacles now in the scene.
    pub count: usize,
}

/// `remove_obstacle`, `remove_agent` (`T` = the id), `clear_agents` (`T` =
/// how many).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Removed<T> {
    /// What was removed.
    pub removed: T,
    /// How many remain.
    pub count: usize,
}

/// `spawn_agent`, `move_agent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentPlaced {
    /// The agent.
    pub id: String,
    /// Its stable entity id in the simulation world.
    pub entity: u64,
    /// `proxy` (kinematic) or `vehicle` (Fossen dynamics).
    pub kind: String,
    /// Position (m, user frame).
    pub position: [f64; 3],
    /// Position (m, Godot).
    pub position_godot: [f64; 3],
    /// Agents other than the main AUV, after the change.
    pub count: usize,
}

/// Running counters of the acoustic channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcousticStats {
    /// Messages accepted by `send` (queued or dropped).
    pub sent: u64,
    /// Messages lost to range or packet drop.
    pub dropped: u64,
    /// Messages that reached an inbox.
    pub delivered: u64,
    /// Delivered messages later pushed out of a full inbox, oldest first.
    pub inbox_overflow: u64,
}

/// The acoustic summary in `get_agents`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcousticSummary {
    /// Messages in flight.
    pub pending: usize,
    /// Messages waiting in each agent's inbox.
    pub inbox_sizes: BTreeMap<String, usize>,
    /// Counters since the channel was created.
    pub stats: AcousticStats,
}

/// `get_agents` (`R` is the runtime record, see the agents crate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentsData<R = Value> {
    /// Runtime record format version.
    pub schema_version: u64,
    /// Number of agents.
    pub count: usize,
    /// The records, main AUV first.
    pub agents: Vec<R>,
    /// The acoustic channel.
    pub acoustic: AcousticSummary,
}

/// `set_nav_path`, `set_pred_trajectory`, `set_waypoints`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverlayAck {
    /// Points stored.
    pub points: usize,
}

/// `clear_nav`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavCleared {
    /// Always true.
    pub cleared: bool,
}

/// `set_waypoint`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaypointAck {
    /// `[world_x, world_z, depth]` (m).
    pub waypoint: [f64; 3],
    /// The agent it is for.
    pub agent_id: String,
    /// Whether the waypoint PID now drives the agent.
    pub controller_engaged: bool,
}

/// `send_acoustic_message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SendOutcome {
    /// Sequence number.
    pub message_id: u64,
    /// Whether it will arrive.
    pub queued: bool,
    /// Why it will not (`out_of_range`, `packet_drop`).
    pub dropped_reason: Option<String>,
    /// Sender–receiver distance (m).
    pub distance_m: f64,
    /// Arrival time (s) if queued.
    pub deliver_at: Option<f64>,
}

/// `read_acoustic_inbox`: what had arrived for the agent, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcousticInbox {
    /// The receiving agent.
    pub agent_id: String,
    /// Delivered messages, in arrival order.
    pub messages: Vec<AcousticDelivery>,
    /// Whether the inbox was emptied by this read.
    pub cleared: bool,
}

/// `configure_acoustic_comm`: the channel's parameters after the change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelConfig {
    /// One-way latency (s).
    pub latency_s: f64,
    /// Bandwidth (bit/s).
    pub bandwidth_bps: f64,
    /// Maximum range (m).
    pub range_m: f64,
    /// Drop probability.
    pub packet_drop_rate: f64,
    /// Seed of the drop process.
    pub seed: u64,
}

/// A packed archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Packed {
    /// The zip file.
    pub path: String,
    /// Its size.
    pub bytes: u64,
}

/// `export_dataset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportResult {
    /// `ok`.
    pub status: String,
    /// The directory written.
    pub export_dir: String,
    /// Files written.
    pub files: Vec<String>,
    /// Recorded samples exported.
    pub samples: usize,
    /// The archive, when packing was asked for.
    pub packed: Option<Packed>,
    /// What the recording lost before this export (frames the recorder's
    /// spill could not take: the disk or its budget was full); absent when
    /// the run is whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Incomplete>,
}

/// What an exported run is missing, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Incomplete {
    /// Recorded frames dropped (the oldest, evicted from memory).
    pub frames_dropped: u64,
    /// Logged commands dropped.
    pub commands_dropped: u64,
    /// Why the spill stopped taking them.
    pub reason: String,
}

/// `save_snapshot_json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotSaved {
    /// `ok`.
    pub status: String,
    /// The file written.
    pub path: String,
    /// Its size.
    pub bytes: u64,
}

/// `load_snapshot` (fields in the order replies have always had them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotLoaded {
    /// The file read.
    pub loaded: String,
    /// Its scenario.
    pub scenario: String,
    /// Simulation time of the restored world (s).
    pub sim_time: f64,
    /// Ticks the restored world has run.
    pub ticks: u64,
}

/// The file `save_snapshot_json` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot<S = SensorMap, R = Value> {
    /// `oceansim_snapshot`.
    pub schema: String,
    /// Format version.
    pub schema_version: u32,
    /// Simulation time (s).
    pub sim_time: f64,
    /// Scenario id.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// The main AUV's state.
    pub state: StateData<S>,
    /// Every agent.
    pub agents: AgentsData<R>,
    /// The map.
    pub map: MapInfo,
    /// The clock.
    pub clock: ClockData,
}

mod sensor;
mod state;
pub use sensor::*;
pub use state::{RecordingCost, StateData};
