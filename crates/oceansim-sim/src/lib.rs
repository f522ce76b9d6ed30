//! # oceansim-sim
//!
//! The simulation runtime behind the OceanSim-compatible server: scenarios
//! ([`scenario`]), seeded terrain and obstacles ([`geometry`]), the main AUV
//! as a Fossen 6-DOF entity of an ECS world ([`auv`]), kinematic proxy
//! agents ([`proxies`]), sensors ([`sensors`]), acoustic messages
//! ([`comms`]), export ([`export`]) and the [`Simulation`] that answers every
//! protocol action.
//!
//! ## Conventions
//!
//! * Protocol state is in the OceanSim user frame (x east, y north, z up;
//!   depth = −z); `heading_deg` is the compass heading (0 = north,
//!   clockwise). Scenario files, `spawn_agent`/`move_agent` locations,
//!   `set_agent_velocity`, obstacles and overlays use Godot coordinates (Y
//!   up). Dynamics run in NED / Fossen body frame. Conversions: [`frames`].
//! * Time: a fixed physics tick (default 0.01 s). `step` applies its command
//!   and advances one control period (default 0.1 s) synchronously, paused
//!   or not. With the clock paused, the same scenario, seed and command
//!   sequence give byte-identical responses.
//! * A rejected request leaves the world untouched.
//!
//! ## Example
//!
//! ```
//! use oceansim_protocol::Request;
//! use oceansim_sim::{SimConfig, Simulation};
//!
//! let mut sim = Simulation::new(SimConfig { paused: true, ..SimConfig::default() }).unwrap();
//! let Request::Single(step) = Request::decode(
//!     r#"{"type":"command","action":"step","data":{"force":[0,60,0]}}"#).unwrap() else { panic!() };
//! let reply = sim.handle(step).to_value();
//! assert_eq!(reply["type"], "state");
//! assert!((reply["sim_time"].as_f64().unwrap() - 0.1).abs() < 1e-12);
//! assert!(reply["data"]["velocity"][1].as_f64().unwrap() > 0.0, "pushed north");
//! ```
#![warn(missing_docs)]

pub mod auv;
pub mod comms;
mod error;
pub mod export;
pub mod frames;
pub mod geometry;
pub mod proxies;
pub mod scenario;
pub mod sensors;
mod sim;

pub use error::{Problem, Result, SimError};
pub use sim::{
    SimConfig, Simulation, MAX_AGENTS, MAX_GRID_CELLS, MAX_OBSTACLES, MAX_RECORDED_SAMPLES,
    MAX_TICKS_PER_ADVANCE,
};
