//! # oceansim-sim
//!
//! The simulation runtime behind the OceanSim-compatible server, built on
//! one [`oceansim_ecs::World`]: the main AUV and every other vehicle
//! (Fossen 6-DOF dynamics, each from its own vehicle profile), kinematic
//! proxy agents and acoustic messages in flight are its entities; the
//! clock, control, actuators, dynamics, proxy motion, contacts, acoustic
//! delivery, sensors, the recorder and the idling of failed vehicles are
//! the systems of one schedule, declared once ([`TICK`]; each system's
//! access is checked in debug builds); the
//! scene, clock, acoustic channel and recorder are its resources. Requests
//! are answered by a thin dispatch table that writes commands into the
//! world (applied at the next tick) and replies with the protocol crate's
//! typed structs. The scene it runs in (scenario files, seeded terrain,
//! obstacles, occupancy slices, ray casting) is [`oceansim_scene`]; the
//! sensor models its vehicles carry are [`oceansim_sensors`]; the recorder
//! and the export root's file system are [`oceansim_record`]; the writers
//! behind `export_dataset` are `oceansim_export` (the `export` feature, on
//! by default; without it `export_dataset` is refused, naming the
//! feature); each is re-exported here where the runtime's API names it.
//!
//! ## Conventions
//!
//! * Protocol state is in the OceanSim user frame (x east, y north, z up;
//!   depth = −z); `heading_deg` is the compass heading (0 = north,
//!   clockwise). Scenario files, `spawn_agent`/`move_agent` locations,
//!   `set_agent_velocity`, obstacles and overlays use Godot coordinates (Y
//!   up). The world stores NED positions and Fossen body velocities. Every
//!   conversion: [`frames`].
//! * Time: a fixed physics tick (default 0.01 s); `step` applies its command
//!   and advances one control period (default 0.1 s), paused or not. A tick
//!   is the same call whether the clock runs in real time or is stepped, so
//!   the same scenario, seed and command sequence give byte-identical
//!   replies.
//! * Commands saturate at the vehicle's limits (the reply says so); a step
//!   whose dynamics would not stay finite is refused and the vehicle keeps
//!   its last finite state. A rejected request leaves the world untouched.
//!
//! ## Example
//!
//! ```
//! use oceansim_protocol::Request;
//! use oceansim_sim::{SimConfig, Simulation};
//!
//! let mut sim = Simulation::new(SimConfig { paused: true, ..SimConfig::default() }).unwrap();
//! let Request::Single(push) = Request::decode(
//!     r#"{"type":"command","action":"set_force","data":{"force":[0,60,0]}}"#).unwrap() else { panic!() };
//! assert!(sim.handle(push).is_ok());
//! sim.tick(10); // 0.1 s: the command applies at the first tick
//! let Request::Single(get) = Request::decode(r#"{"type":"command","action":"get_state"}"#).unwrap() else { panic!() };
//! let state = sim.handle(get).to_value();
//! assert!((state["sim_time"].as_f64().unwrap() - 0.1).abs() < 1e-12);
//! assert!(state["data"]["velocity"][1].as_f64().unwrap() > 0.0, "pushed north");
//! ```
#![warn(missing_docs)]

mod acoustic;
mod agents;
pub mod batch;
mod bookkeeping;
pub mod budget;
mod clock;
mod components;
mod config;
mod control;
mod ctx;
mod deferred;
mod error;
pub mod fleet;
pub mod frames;
mod handlers;
mod journal;
pub mod live_view;
pub mod panels;
mod replies;
pub mod ros;
mod setup;
mod simulation;
mod state_cache;
mod systems;

pub use acoustic::{
    default_channel, payload_size, AcousticChannel, ChannelConfig, HeardLink, MAX_INBOX,
    MAX_INBOXES_BYTES, MAX_INBOX_BYTES, MAX_IN_FLIGHT, MAX_IN_FLIGHT_BYTES, RECENT_LINKS,
    SOUND_SPEED_M_S,
};
pub use clock::{Clock, MAX_ADVANCE_WALL_S, MAX_TICKS_PER_ADVANCE};
pub use components::{names, Kind};
pub use components::{ProxyMode, MAX_PROXY_SPEED_M_S, PROXY_SIZE_RANGE_M};
pub use config::{
    SimConfig, MAX_AGENTS, MAX_GRID_CELLS, MAX_RENDERS_IN_FLIGHT_LIMIT, MAX_STEP_TICKS, MAX_TICK_S,
    MIN_RECORD_MEMORY_BYTES, MIN_TICK_S,
};
pub use control::{Command, WaypointTarget};
pub use deferred::{Answer, PendingRestore, PreparedExport};
pub use error::{Problem, Result, SimError};
pub use journal::MAX_SNAPSHOT_BYTES;
pub use journal::{
    Replay, JOURNAL_SCHEMA, MAX_JOURNAL_BYTES, MAX_RESTORE_TICKS, RESTORE_TIME_LIMIT,
};
pub use oceansim_record::disk::{Charged, DiskBudget, DEFAULT_EXPORT_BUDGET_BYTES};
pub use oceansim_record::safe_fs::{read_text_file, split_rel, ExportWriter, PendingFile, SafeDir};
pub use oceansim_record::{
    AgentFrame, Cancel, CommandEntry, Payloads, RecordLimits, RecordedFrames, Sample, SpillHead,
    SpillView, LIVE_VIEW_RENDERS_IN_FLIGHT, MAX_RECORDED_BYTES, MAX_RECORDED_COMMANDS,
    MAX_RECORDED_SAMPLES, MAX_RENDERS_IN_FLIGHT, MAX_RENDER_BACKLOG_BYTES, MAX_SPILL_BYTES,
    SPILL_DIR,
};
pub use oceansim_scene::body::Body;
pub use oceansim_scene::obstacle::Obstacle;
pub use oceansim_scene::occupancy;
pub use oceansim_scene::scenario::{
    builtin_names, load as load_scenario, parse as parse_scenario, LoadedScenario, Scenario,
    DEFAULT_SCENARIO, MAX_SCENARIO_BYTES,
};
pub use oceansim_scene::terrain::{splitmix64, Terrain, TerrainSpec};
pub use oceansim_scene::Scene;
pub use oceansim_scene::{MAX_CURRENT_M_S, MAX_OBSTACLES};
pub use oceansim_sensors::image;
pub use oceansim_sensors::{
    check_mounts as check_sensor_mounts, mount_problem as sensor_mount_problem,
};
pub use oceansim_sensors::{
    CameraReading, Candidates, DepthReading, DvlReading, Family as SensorFamily, Hit,
    ImagingSonarReading, ImuReading, Intrinsics, Lidar2dReading, Lidar3dReading, MultibeamReading,
    Reading as SensorReading, RenderPool, RgbdReading, SampleCtx, SceneView, Sensor, SensorModel,
    SensorSample, SideScanReading, DVL_MAX_RANGE_M, SENSOR_BUFFER,
};
pub use simulation::{Session, Simulation};
pub use systems::{Stage, SCHEDULE, TICK};
