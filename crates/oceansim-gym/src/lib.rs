//! # oceansim-gym
//!
//! Reinforcement-learning tasks on the batched simulator
//! ([`oceansim_sim::batch`]): what an agent observes, how it is rewarded,
//! when an episode ends, and a [`VecEnv`] that steps `K` independent
//! episodes in one call, split across threads, with automatic reset; and a
//! [`FleetEnv`], `N` vehicles holding a formation over one acoustic
//! channel, a multi-agent environment. The Python wheel's Gymnasium and
//! PettingZoo environments are this crate behind a thin binding; Rust
//! users can train or evaluate against it directly.
//!
//! Five tasks ([`TaskKind`]): WaypointNav and DepthHold observe the true
//! state; TerrainFollow (DVL and IMU), SonarAvoid (forward-looking imaging
//! sonar) and Remus100Heading (Fossen's REMUS 100 on its fins) observe
//! what the vehicle senses, through the simulator's own sensor models
//! carried by every lane ([`oceansim_sim::batch`]). Each has a
//! hand-written [`baseline_action`] that the tests hold to solving it.
//!
//! ## Conventions
//!
//! * Physics is the simulator's own (a lane follows a
//!   [`oceansim_sim::Simulation`]'s main AUV bit for bit): fixed tick
//!   (default 0.01 s), one environment step = one control period (default
//!   0.1 s). The scene (terrain, obstacles) comes from the scenario and
//!   `map_seed` and is shared by every lane; episodes differ in their start
//!   and goal, drawn from each lane's own random stream.
//! * Actions are the control scheme's vector in its documented units and
//!   frame (N, N·m, m/s, rad/s, normalised thruster commands, or a Godot
//!   waypoint), bounded by [`Task::action_bounds`] from the vehicle
//!   profile's limits. Values outside the bounds are clipped; a vector of
//!   the wrong length or with a non-finite value is refused
//!   ([`GymError::ActionShape`], [`GymError::Action`]).
//! * Observations are `f32` vectors, documented per task ([`TaskKind`]);
//!   rewards `f32`. Positions in observations are relative (goal − vehicle)
//!   in the Fossen body frame (x forward, y starboard, z down), metres.
//! * Episodes start in open water: the hull clear of the seabed, every
//!   obstacle and the surface by 1 m at the start, at the goal and (for
//!   DepthHold) on the way to it, and an idle first step touching nothing.
//!   A map where no such start is found fails at construction
//!   ([`GymError::Reset`]) rather than start in contact; once built, every
//!   reset and automatic restart succeeds (a lane whose own draws miss
//!   takes one of the starts verified at construction). Every step reports its [`Outcome`], the
//!   task's error (m) and whether the goal is met.
//! * Determinism: the same `seed` gives the same episodes, actions giving
//!   the same trajectories, whatever the number of threads.
//!
//! ## Example
//!
//! ```
//! use oceansim_gym::{EnvConfig, TaskKind, VecEnv};
//!
//! let mut env = VecEnv::new(&EnvConfig::new(TaskKind::WaypointNav), 8, 1).unwrap();
//! let obs = env.reset(Some(7)).unwrap();
//! assert_eq!(obs.len(), 8 * env.observation_len());
//! // Full ahead on every lane for one control period.
//! let a = env.action_len();
//! let mut actions = vec![0.0; 8 * a];
//! for lane in actions.chunks_mut(a) {
//!     lane[1] = 80.0; // body_force_3d: [fx starboard, fy forward, fz up] (N)
//! }
//! let out = env.step(&actions).unwrap();
//! assert_eq!(out.reward.len(), 8);
//! assert!(out.outcome.iter().all(|o| !o.terminated()), "no episode ends at its first step");
//! ```
#![warn(missing_docs)]

mod baseline;
mod bounds;
mod env;
mod episode;
pub mod fleet;
mod kind;
mod place;
pub mod sensed;
mod task;

pub use baseline::{baseline_action, SONAR_SAFE_RANGE_M, TERRAIN_FOLLOW_SPEED_M_S};
pub use env::{StepOut, VecEnv, MAX_SONAR_IMAGE};
pub use fleet::{FleetConfig, FleetEnv, FleetStep};
pub use task::{
    EnvConfig, Outcome, Task, TaskKind, ARRIVAL_RADIUS_M, CLEARANCE_M, DEPTH_STEP_M,
    DEPTH_TOLERANCE_M,
};

/// What can go wrong building or stepping an environment.
#[derive(Debug, thiserror::Error)]
pub enum GymError {
    /// The simulator refused the configuration (scenario, profile, tick).
    #[error(transparent)]
    Sim(#[from] oceansim_sim::SimError),
    /// An action vector of the wrong length.
    #[error("invalid action shape: expected {expected} values, got {got}")]
    ActionShape {
        /// Values the environment takes.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// An action the control scheme cannot take (not finite, or a scheme
    /// that does not drive a vehicle).
    #[error("invalid action: {0}")]
    Action(String),
    /// A configuration value out of its range.
    #[error("invalid environment config: {0}")]
    Config(String),
    /// No start clear of the seabed, obstacles and surface could be drawn
    /// (at construction: once built, an environment can always restart a
    /// lane).
    #[error("cannot start an episode: {0}")]
    Reset(String),
    /// A step failed part-way; the environment steps again after a reset.
    #[error("the environment needs a reset: {0}")]
    NeedsReset(String),
}

impl GymError {
    /// A stable machine-readable code (`invalid_action_shape` is the SDK's
    /// code for a vector of the wrong length).
    pub fn code(&self) -> &'static str {
        match self {
            GymError::Sim(e) => e.code(),
            GymError::ActionShape { .. } => "invalid_action_shape",
            GymError::Action(_) => "invalid_action",
            GymError::Config(_) => "config",
            GymError::Reset(_) => "reset",
            GymError::NeedsReset(_) => "needs_reset",
        }
    }
}

/// Result with [`GymError`].
pub type Result<T, E = GymError> = std::result::Result<T, E>;
