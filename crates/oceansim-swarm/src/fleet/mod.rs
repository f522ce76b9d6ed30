//! Fleets of Fossen 6-DOF vehicles as one vectorised system, with the
//! controllers, ocean current and acoustic links a fleet needs.
//!
//! Rows are vehicles. Every component is in Fossen's conventions: world
//! NED (x north, y east, z down, m), attitude as a unit quaternion body →
//! NED stored `[w, x, y, z]`, body velocity ν = [u, v, w, p, q, r] (m/s,
//! rad/s, x forward, y starboard, z down), body wrench τ = [X, Y, Z, K, M,
//! N] (N, N·m). Headings ψ are yaw angles in rad from north towards east.
//!
//! The layers, each a system, each usable alone:
//!
//! * guidance writes a desired horizontal velocity [`names::V_DES`]
//!   ([`WaypointFollow`], [`FormationConsensus`], [`DistanceFormation`]);
//! * [`VelocityGuidance`] turns it into heading and speed references;
//! * [`Autopilot`] holds depth, heading and speed, writing the body wrench;
//! * [`OceanCurrent`] samples a [`CurrentField`] at each vehicle;
//! * [`FossenFleet`] advances every vehicle one RK4 step of its own model
//!   (mixed profiles), split across threads above a size threshold;
//! * [`AcousticBeacons`] broadcasts positions over a shared
//!   [`AcousticMedium`], so formation controllers can run on what arrived.

mod acoustic;
mod autopilot;
mod current;
mod dynamics;
mod formation;
pub mod ring;

pub use acoustic::{AcousticBeacons, AcousticMedium, Heard, MediumConfig, Transmission};
pub use autopilot::{computed_torque, Autopilot, AutopilotGains, VelocityGuidance, WaypointFollow};
pub use current::{CurrentField, CurrentGrid, OceanCurrent};
pub use dynamics::{fossen_fleet, step_vehicle, FleetModels, FossenFleet};
pub use formation::{DistanceFormation, FormationConsensus, Neighbours};

/// Component names of a fleet world.
pub mod names {
    /// Position (N, 3), m, NED.
    pub const P: &str = "p_ned";
    /// Attitude (N, 4), unit quaternion body → NED, `[w, x, y, z]`.
    pub const Q: &str = "q_body_ned";
    /// Body velocity ν (N, 6), m/s and rad/s.
    pub const NU: &str = "nu";
    /// Body wrench τ (N, 6), N and N·m, held over the tick.
    pub const TAU: &str = "tau";
    /// Ocean current at the vehicle (N, 3), m/s, NED.
    pub const CURRENT: &str = "current_ned";
    /// Depth reference (N,), m below the surface.
    pub const DEPTH_REF: &str = "depth_ref";
    /// Heading reference (N,), rad from north towards east.
    pub const HEADING_REF: &str = "heading_ref";
    /// Surge speed reference (N,), m/s.
    pub const SPEED_REF: &str = "speed_ref";
    /// Desired horizontal velocity (N, 2), m/s, [north, east].
    pub const V_DES: &str = "v_des";
    /// The acoustic medium resource ([`super::AcousticMedium`]).
    pub const MEDIUM: &str = "acoustic_medium";
    /// What each vehicle has heard of the others ([`super::Heard`]).
    pub const HEARD: &str = "heard";
}

/// Wraps an angle to (−π, π].
pub(crate) fn wrap_pi(a: f64) -> f64 {
    let t = std::f64::consts::TAU;
    let r = a.rem_euclid(t);
    if r > std::f64::consts::PI {
        r - t
    } else {
        r
    }
}

/// Yaw ψ (rad) of a `[w, x, y, z]` quaternion, ZYX convention.
pub(crate) fn yaw(q: &[f64]) -> f64 {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z))
}
