//! # oceansim
//!
//! oceansim-rs in one dependency: a headless, OceanSim-compatible
//! simulator for underwater vehicles and swarms, the client that drives
//! it, and the dynamics, ECS core and swarm mathematics underneath. Each
//! module is one of the workspace's crates, re-exported whole; the
//! [`prelude`] has the names most programs start from.
//!
//! | module | crate | what it is |
//! |---|---|---|
//! | [`protocol`] | `oceansim-protocol` | the TCP protocol v2 codec: envelopes, the typed action catalogue, stable error codes, batches, NDJSON framing |
//! | [`agents`] | `oceansim-agents` | control schemes, action spaces, agent definitions, runtime records, scheme → protocol mapping |
//! | [`vehicles`] | `oceansim-vehicles` | vehicle profiles and Fossen 6-DOF dynamics (M, C(ν), D(ν), g(η), thrusters, RK4); frame conversions |
//! | [`ecs`] | `oceansim-ecs` | the data-oriented core: struct-of-arrays world, scheduled systems, manifold integration, monitors, loggers |
//! | [`math`] | `oceansim-math` | graphs and Laplacians, SO(3)/SE(3), Kabsch, scalar fields, guiding vector fields, distributions |
//! | [`swarm`] | `oceansim-swarm` | robot models and controllers as ECS systems: consensus, GVF, source seeking, Fossen fleets, autopilots, formations, acoustic links |
//! | [`scene`] | `oceansim-scene` | the scene without the runtime: scenario files, seeded terrain, obstacles, occupancy slices, ray casting |
//! | [`sensors`] | `oceansim-sensors` | the sensor models without the simulator: depth, IMU, DVL, cameras, lidars, sonars; the payload envelope |
//! | [`record`] | `oceansim-record` | the run recorder: frames bounded in memory, spilled to disk, read back whole; the export root's confined file system |
//! | [`export`] | `oceansim-export` | the exporters: timelines, TUM/EuRoC, sensor series with PNG and PLY, MCAP for Foxglove, rosbag2, packed zips |
//! | [`sim`] | `oceansim-sim` | the simulation runtime on one ECS world: scenarios, terrain, vehicles, proxies, contacts, sensors, acoustics, export |
//! | [`server`] | `oceansim-server` | the tokio TCP server and the `oceansim` command; [`server::spawn`] runs one on a thread |
//! | [`client`] | `oceansim-client` | the Rust client: async and blocking transport, `Auv`, `OceanSimAgent`, `AgentFactory`, sensor schema and clouds |
//! | [`dataset`] | `oceansim-dataset` | reading exported runs: `RunReplay` (frames, trajectories, commands, sensor sequences, TUM/EuRoC rows, summary) |
//! | [`ros2`] | `oceansim-ros2` | ROS 2 messages without ROS: Jazzy types, CDR, `ros2msg` definitions, RIHS01 type hashes (the rosbag2 export writes with it) |
//! | [`gym`] | `oceansim-gym` | reinforcement-learning tasks (WaypointNav, DepthHold) and a vector environment with autoreset on the batched simulator, reproducible for a seed on any number of threads |
//! | [`viewer`] | `oceansim-viewer` | the live view in the browser: `Viewer` (HTTP + WebSocket, page embedded), the engine sink for swarms, recorded runs with a time slider |
//! | [`log`] | `oceansim-log` | logging presets on `tracing`, per-crate levels, `warn_once!` |
//!
//! ## Features
//!
//! Each feature brings its modules and what they need; `protocol`,
//! `agents` and `vehicles` are always there. The default is every feature
//! but `ros2-bridge`.
//!
//! | feature | modules | brings |
//! |---|---|---|
//! | `client` | [`client`], [`log`] | tokio; no simulator, HTTP server, Zenoh or MCAP |
//! | `swarm` | [`ecs`], [`math`], [`swarm`] | the ECS core and swarm control |
//! | `sim` | [`scene`], [`sensors`], [`record`], [`export`], [`sim`], [`dataset`] (and `swarm`) | the simulator in your process; PNG, zip, MCAP |
//! | `server` | [`server`] (and `sim`) | the TCP server, `server::spawn` |
//! | `viewer` | [`viewer`], the server's `--viewer` | axum |
//! | `ros2` | [`ros2`] | ROS 2 messages without ROS |
//! | `gym` | [`gym`] (and `sim`) | RL tasks, vector environments |
//! | `ros2-bridge` | `server::bridge` | Zenoh (~170 crates) |
//! | `full` | all of the above | |
//!
//! A client alone: `oceansim = { version = "0.1", default-features = false,
//! features = ["client"] }`.
//!
//! ## How the pieces fit
//!
//! A controller (yours, in Rust through [`client`], or in Python through
//! the OceanSim SDK) sends newline-delimited JSON requests ([`protocol`])
//! over TCP to the [`server`], which hands each to the [`sim`]ulation. The
//! simulation is one [`ecs`] world: every vehicle is an entity integrated
//! under Fossen dynamics from its [`vehicles`] profile; proxies, acoustic
//! messages and sensors are entities and systems of the same schedule.
//! [`agents`] gives both ends one vocabulary for what an agent may be
//! commanded with. Swarm experiments that need no server run their own
//! [`ecs`] engines with [`swarm`] models and controllers over [`math`]
//! graphs and fields.
//!
//! ## Conventions
//!
//! SI units throughout. Frames are named wherever a vector appears: the
//! OceanSim user frame (x east, y north, z up) for protocol state and
//! world forces; Fossen's body frame (x forward, y starboard, z down) for
//! dynamics and body wrenches; NED inside the dynamics; Godot world
//! coordinates (Y up) in scenario files and map-side actions. Errors carry
//! stable machine-readable codes, the protocol's own where a client can see
//! them. Each module's documentation says more.
//!
//! ## Example
//!
//! A simulator in this process, driven through the client:
//!
//! ```
//! use oceansim::client::{AgentDefinition, AgentFactory, Auv, ControlScheme};
//! use oceansim::sim::SimConfig;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The default scenario (Static_Map), paused: it moves only when stepped.
//! let config = SimConfig { paused: true, ..SimConfig::default() };
//! let server = oceansim::server::spawn("127.0.0.1:0", config, Default::default())?;
//!
//! let auv = Auv::connect(&server.addr().to_string()).await?;
//! let before = auv.get_state().await?;
//!
//! // A typed agent on the main AUV, commanded by body wrench (Fossen body
//! // frame: 60 N of surge), then ten control periods of 0.1 s.
//! let def = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::BodyWrench6dof);
//! let agent = AgentFactory::build_agent(&auv, def, true).await?;
//! agent.act(&[60.0, 0.0, 0.0, 0.0, 0.0, 0.0]).await?;
//! for _ in 0..10 {
//!     auv.client().send_command("step", Some(serde_json::json!({})), None).await?;
//! }
//! let after = auv.get_state().await?;
//! assert!((after.sim_time() - before.sim_time() - 1.0).abs() < 1e-9);
//! assert!(after.y() > before.y(), "heading north, it moved north");
//!
//! // The same vehicle model, offline: its profile and dynamics.
//! let profile = oceansim::vehicles::VehicleProfile::builtin("oceansim_torpedo_auv")?;
//! assert!(profile.mass_kg > 0.0);
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

pub use oceansim_agents as agents;
pub use oceansim_protocol as protocol;
pub use oceansim_vehicles as vehicles;

#[cfg(feature = "client")]
pub use oceansim_client as client;
#[cfg(feature = "client")]
pub use oceansim_log as log;

#[cfg(feature = "swarm")]
pub use oceansim_ecs as ecs;
#[cfg(feature = "swarm")]
pub use oceansim_math as math;
#[cfg(feature = "swarm")]
pub use oceansim_swarm as swarm;

#[cfg(feature = "sim")]
pub use oceansim_dataset as dataset;
#[cfg(feature = "sim")]
pub use oceansim_export as export;
#[cfg(feature = "sim")]
pub use oceansim_record as record;
#[cfg(feature = "sim")]
pub use oceansim_scene as scene;
#[cfg(feature = "sim")]
pub use oceansim_sensors as sensors;
#[cfg(feature = "sim")]
pub use oceansim_sim as sim;

#[cfg(feature = "server")]
pub use oceansim_server as server;

#[cfg(feature = "viewer")]
pub use oceansim_viewer as viewer;

#[cfg(feature = "ros2")]
pub use oceansim_ros2 as ros2;

#[cfg(feature = "gym")]
pub use oceansim_gym as gym;

/// The names most programs start from, for `use oceansim::prelude::*`:
/// agent definitions and control schemes, vehicle profiles, and, with
/// their features, the client, the simulator, the server, the ECS world
/// and the vector environment.
pub mod prelude {
    pub use oceansim_agents::{ActionSpace, AgentDefinition, ControlScheme};
    pub use oceansim_vehicles::VehicleProfile;

    #[cfg(feature = "client")]
    pub use oceansim_client::{AgentFactory, Auv, AuvState, OceanSimAgent};
    #[cfg(feature = "swarm")]
    pub use oceansim_ecs::{Engine, World};
    #[cfg(feature = "gym")]
    pub use oceansim_gym::VecEnv;
    #[cfg(feature = "server")]
    pub use oceansim_server::{spawn, ServerConfig, ServerHandle};
    #[cfg(feature = "sim")]
    pub use oceansim_sim::{SimConfig, Simulation};
}
