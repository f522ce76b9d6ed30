//! # oceansim-vehicles
//!
//! The physical model of a marine vehicle, from a JSON profile to a 6-DOF
//! state derivative: vehicle profiles ([`VehicleProfile`]), Fossen's building
//! blocks ([`fossen`]), the dynamics ([`VehicleModel`]) and the actuator
//! model ([`ThrusterBank`]); command vectors saturate with
//! [`saturate::clip_norm`], finite for every finite input. [`remus100`] is
//! Fossen's REMUS 100 AUV of his Python Vehicle Simulator, reproduced to
//! roundoff as a reference model.
//!
//! ## Frames and units
//!
//! Dynamics run in Fossen's conventions: NED world (x north, y east, z down)
//! and the body frame x forward (surge), y starboard (sway), z down (heave),
//! about the body origin (CO). ν = [u, v, w, p, q, r] (m/s, rad/s),
//! τ = [X, Y, Z, K, M, N] (N, N·m), attitude a unit quaternion body → NED
//! (no gimbal lock; ZYX Euler angles φ, θ, ψ reported in rad). Conversions
//! to the OceanSim user frame (ENU, x east, y north, z up) and Godot live in
//! [`frames`]. Everything is SI.
//!
//! ## The equation
//!
//! M ν̇ + C(ν_r) ν_r + D(ν_r) ν_r + g(η) = τ,  η̇ = J(η) ν,
//!
//! with M = M_RB + M_A, C(ν) the Coriolis–centripetal matrix of M (Fossen's
//! `m2c`), D(ν) = diag(d_lin) + diag(d_quad ⊙ |ν|), g(η) the restoring forces
//! of weight W at r_g and buoyancy B at r_b, and ν_r = ν − ν_c the velocity
//! relative to a uniform current given in NED and rotated to the body.
//!
//! ## Example: 10 s of surge
//!
//! ```
//! use nalgebra::{Vector3, Vector6};
//! use oceansim_vehicles::{ThrusterBank, VehicleModel, VehicleProfile, VehicleState};
//!
//! let profile = VehicleProfile::default_profile(); // oceansim_torpedo_auv
//! let model = VehicleModel::from_profile(&profile);
//! let mut thrusters = ThrusterBank::from_profile(&profile);
//! // Both stern thrusters full ahead; the tunnel thrusters idle.
//! thrusters.set_commands(&[1.0, 1.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
//!
//! let mut state = VehicleState::default();
//! let dt = 0.01;
//! for _ in 0..1000 {
//!     let tau: Vector6<f64> = thrusters.step(dt);
//!     state = model.rk4_step(&state, &tau, &Vector3::zeros(), dt);
//! }
//! let u = state.nu[0];
//! assert!(u > 1.0 && u < 2.5, "surge speed after 10 s: {u} m/s");
//! assert!(state.position_ned.x > 5.0, "travelled north: {}", state.position_ned.x);
//! ```
#![warn(missing_docs)]

mod actuator;
pub mod appendages;
mod error;
pub mod fossen;
pub mod frames;
mod model;
mod mount;
mod profile;
pub mod remus100;
pub mod saturate;
mod vehicle;

pub use actuator::{Thruster, ThrusterBank};
pub use appendages::{FinAxis, FinProfile, HullTerms, PropellerProfile};
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
