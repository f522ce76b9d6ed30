//! # oceansim-vehicles
//!
//! The physical model of a marine vehicle, from a JSON profile to one step
//! of its motion: vehicle profiles ([`VehicleProfile`]), Fossen's building
//! blocks ([`fossen`]), the dynamics ([`VehicleModel`]), thrusters
//! ([`ThrusterBank`]), control surfaces and propellers ([`appendages`]),
//! and [`Vehicle::step`], the one step every path that moves a vehicle
//! calls (the simulator, the gym lanes, the swarm fleets): actuators,
//! forces evaluated at every integrator stage, the profile's integrator
//! (RK4 or Fossen's semi-implicit Euler), the plausibility guard. Command
//! vectors saturate with [`saturate::clip_norm`], finite for every finite
//! input. [`remus100`] is Fossen's REMUS 100 AUV of his Python Vehicle
//! Simulator, reproduced to roundoff; the shipped `remus100` profile is it.
//!
//! ## Frames and units
//!
//! Dynamics run in Fossen's conventions: NED world (x north, y east, z down)
//! and the body frame x forward (surge), y starboard (sway), z down (heave),
//! about the body origin (CO). ν = [u, v, w, p, q, r] (m/s, rad/s),
//! τ = [X, Y, Z, K, M, N] (N, N·m), attitude a unit quaternion body → NED
//! (no gimbal lock; ZYX Euler angles φ, θ, ψ reported in rad); fin angles
//! in rad, propeller speeds in rpm. Conversions to the OceanSim user frame
//! (ENU, x east, y north, z up) and Godot live in [`frames`]. Everything
//! else is SI.
//!
//! ## The equation
//!
//! M ν̇_r + C(ν_r) ν_r + D(ν_r) ν_r + g(η) = τ_act + τ_hull,  η̇ = J(η) ν,
//!
//! with M = M_RB + M_A, C(ν) the Coriolis–centripetal matrix of M (Fossen's
//! `m2c`), D(ν) = diag(d_lin ⊙ e^(−k U_r)) + diag(d_quad ⊙ |ν|), g(η) the
//! restoring forces of weight W at r_g and buoyancy B at r_b, ν_r = ν − ν_c
//! the velocity through a uniform current given in NED (ν̇_c = ν_c × ω),
//! τ_hull the hull's lift and cross-flow drag, and τ_act what thrusters,
//! fins and propellers produce in the flow of the moment.
//!
//! ## Example: Fossen's REMUS 100 in a 5° turn
//!
//! ```
//! use nalgebra::Vector3;
//! use oceansim_vehicles::{Drive, Vehicle, VehicleProfile, VehicleState};
//!
//! let profile = VehicleProfile::builtin("remus100").unwrap();
//! let vehicle = Vehicle::from_profile(&profile);
//! let mut actuators = vehicle.actuators();
//! // Rudder 5° (rad), stern plane level, propeller 1525 rpm.
//! let fins = [5f64.to_radians(), 0.0, 1525.0];
//! let mut state = VehicleState::default();
//! for _ in 0..20_000 {
//!     // 200 s at 0.01 s: the turn settles.
//!     state = vehicle
//!         .step(&state, &mut actuators, Drive::Fins(&fins), &Vector3::zeros(), 0.01)
//!         .expect("a plausible step");
//! }
//! let (u, r) = (state.nu[0], state.nu[5]);
//! assert!((r - 0.063).abs() < 0.002, "yaw rate {r} rad/s (Fossen: 0.063)");
//! let diameter = 2.0 * u / r;
//! assert!((diameter - 80.7).abs() < 2.0, "turning circle {diameter} m (Fossen: 80.7)");
//! ```
#![warn(missing_docs)]

mod actuator;
pub mod appendages;
mod error;
pub mod fossen;
pub mod frames;
mod limits;
mod model;
mod mount;
mod options;
mod profile;
pub mod remus100;
pub mod saturate;
mod vehicle;

pub use actuator::{Thruster, ThrusterBank};
pub use appendages::{AsternFlow, FinAxis, FinProfile, HullTerms, PropellerProfile};
pub use error::{Problem, Result, VehicleError};
pub use model::{DynamicsReport, SingularMass, StateDerivative, VehicleModel, VehicleState};
pub use mount::{CameraParams, ImuNoise, SensorMount, SonarParams};
pub use profile::{
    AddedMass, CommandLimits, CurrentModel, FailureMode, Integrator, ThrusterProfile,
    VehicleProfile, DEFAULT_MAX_RATE_RAD_S, DEFAULT_MAX_SPEED_M_S, DEFAULT_PROFILE, MAX_THRUSTERS,
    PROFILE_SCHEMA_VERSION,
};
pub use saturate::clip_norm;
pub use vehicle::{
    plausible, Actuators, Drive, Vehicle, MAX_PLAUSIBLE_RATE_RAD_S, MAX_PLAUSIBLE_SPEED_M_S,
};
