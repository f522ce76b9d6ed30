//! # oceansim-client
//!
//! The Rust client of the OceanSim TCP protocol v2 (newline-delimited JSON,
//! default `127.0.0.1:9876`), with the surface of the OceanSim Python SDK:
//!
//! - [`OceanSimClient`]: async on tokio, many requests in flight on one
//!   connection, each reply matched to its request by `request_id`;
//!   `send_command`, `send_sim_control`, `send_batch`, `request_state`, a
//!   cached latest state; connect with retries; per-request timeouts
//!   (default 5 s, 60 s for `export_dataset` and `save_snapshot_json`).
//! - [`Auv`] and [`AuvState`]: typed state with frame conversions, force
//!   and wrench commands, PD depth and heading steps, waypoint tracking, a
//!   Gym-style `step` with pluggable reward and termination, sensors, maps,
//!   agents, overlays and datasets.
//! - [`OceanSimAgent`] and [`AgentFactory`]: agents built from
//!   [`AgentDefinition`]s whose actions are validated against their action
//!   space before any byte is sent.
//! - [`schema`] and [`cloud`]: the sensor-payload envelope checks and
//!   point-cloud helpers.
//! - [`blocking`]: the same client, AUV and agents for plain scripts, with
//!   no runtime underneath: the calling thread writes its request line and
//!   reads until its reply comes back (a plain socket's cost), replies
//!   routed by the envelope's header and parsed once; the `*_text` methods
//!   hand over the server's line for a caller that parses it itself.
//!
//! ## Conventions
//!
//! Frames are the protocol's: [`AuvState`] positions and velocities and
//! `set_force`/`set_force_world`/`step` forces are in the OceanSim user
//! frame (x east/right, y north/forward, z up); `set_force_body` in the
//! AUV body frame of the same convention; `set_body_wrench` and
//! `set_body_velocity` in Fossen's body frame (x forward, y starboard,
//! z down); agents, waypoints and overlays in Godot world coordinates
//! (Y up, OceanSim = `[X, −Z, Y]`). SI units. Errors are [`ClientError`]s
//! whose [`ClientError::code`] is stable: the server's own `error_code`
//! for protocol errors.
//!
//! ## Example
//!
//! A server in this process on a free port, then the SDK's first steps:
//!
//! ```
//! use oceansim_client::{AgentDefinition, AgentFactory, Auv, ControlScheme};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = oceansim_sim::SimConfig { paused: true, ..Default::default() };
//! let server = oceansim_server::spawn("127.0.0.1:0", sim, Default::default())?;
//!
//! let auv = Auv::connect(&server.addr().to_string()).await?;
//! let state = auv.get_state().await?;
//! println!("AUV at {:?}, depth {:.2} m", state.position(), state.depth());
//!
//! // Gym-style: 100 N forward for one control period.
//! let step = auv.step(&[0.0, 100.0, 0.0]).await?;
//! assert!(step.observation.velocity()[1] > 0.0);
//!
//! // A typed agent: its action is checked before it is sent.
//! let main = AgentDefinition::new("auv/main").with_control_scheme(ControlScheme::Thrusters);
//! let agent = AgentFactory::build_agent(&auv, main, true).await?;
//! let err = agent.act(&[2.0, 0.0, 0.0, 0.0, 0.0, 0.0]).await.unwrap_err();
//! assert_eq!(err.code(), "invalid_message"); // above the high bound 1.0
//! agent.act(&[0.5, 0.5, 0.0, 0.0, 0.0, 0.0]).await?;
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

pub mod agents;
pub mod auv;
pub mod blocking;
pub mod cloud;
mod direct;
mod error;
mod header;
pub mod schema;
mod state;
pub mod transport;

pub use agents::{AgentFactory, Binding, OceanSimAgent};
pub use auv::{Auv, DepthHold, HeadingHold, StepResult, WaypointStep};
pub use cloud::{filter_by_range, intensity_from_cloud, organized_range_image, xyz_from_cloud};
pub use error::{ClientError, Result};
pub use oceansim_agents::{list_control_schemes, ActionSpace, AgentDefinition, ControlScheme};
pub use schema::{normalize_sensor_payload, validate_sensor_payload, validate_sensor_set};
pub use state::AuvState;
pub use transport::{
    ConnectOptions, OceanSimClient, Reply, DEFAULT_ADDR, DEFAULT_TIMEOUT, EXPORT_TIMEOUT,
};
