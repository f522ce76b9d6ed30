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
//! * [`FossenFleet`] advances every vehicle one vehicle step of its own
//!   profile (the simulator's `Vehicle::step`; mixed profiles), split
//!   across threads above a size threshold;
//! * [`AcousticBeacons`] broadcasts positions over a shared
//!   [`AcousticMedium`], so formation controllers can run on what arrived.
//!
//! In another world (the simulator's), a [`FleetLayout`] names the
//! components and the member entities; there the autopilot, guidance,
//! waypoint and formation systems run (formation on true positions: the
//! beacons, current and dynamics systems are for fleet worlds).
//!
//! ## Example: two vehicles of different profiles dive to 8 m
//!
//! ```
//! use oceansim_ecs::{Engine, World};
//! use oceansim_swarm::fleet::{fossen_fleet, names, Autopilot, AutopilotGains, FleetModels};
//! use oceansim_vehicles::VehicleProfile;
//!
//! let profiles = ["oceansim_torpedo_auv", "bluerov2_heavy"].map(|n| VehicleProfile::builtin(n).unwrap());
//! let mut world = World::new(2);
//! let models = FleetModels::cycle(&profiles, 2);
//! // NED positions (m) and yaw (rad).
//! let dynamics = fossen_fleet(&mut world, models.clone(), &[0.0, 0.0, 2.0, 10.0, 0.0, 3.0], &[0.0, 1.0]).unwrap();
//! world.add_system(dynamics).unwrap();
//! world.add_system(Autopilot::new(models, AutopilotGains::default())).unwrap();
//! world.set(names::DEPTH_REF, &[8.0, 8.0]).unwrap();
//! Engine::new(0.02).run_for(&mut world, 60.0).unwrap();
//! let p = world.get::<f64>(names::P).unwrap();
//! assert!((p[2] - 8.0).abs() < 0.05 && (p[5] - 8.0).abs() < 0.05);
//! ```

mod acoustic;
mod autopilot;
mod current;
mod dynamics;
mod formation;
pub mod ring;

pub use acoustic::{heard_links, HeardPosition, HEARD_VIEW_S};
pub use acoustic::{
    AcousticBeacons, AcousticMedium, Heard, MediumConfig, Transmission, MAX_PENDING_RECEPTIONS,
};
pub use autopilot::{Autopilot, AutopilotGains, VelocityGuidance, WaypointFollow};
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

/// Where a fleet's controllers find their vehicles: the component names,
/// and which entities are the fleet's members.
///
/// In a fleet world ([`fossen_fleet`]) member k is row k and the names are
/// [`names`]. In a world with other entities, such as the simulator's
/// (where rows move as entities come and go), `members` lists the fleet's
/// entities; member k's row is looked up each tick, and every per-member
/// list a controller takes (models, offsets, waypoints, graph nodes) is
/// indexed by k.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetLayout {
    /// Position (N, 3), m, NED.
    pub p: String,
    /// Attitude (N, 4), `[w, x, y, z]` body → NED.
    pub q: String,
    /// Body velocity (N, 6).
    pub nu: String,
    /// Body wrench the autopilot writes (N, 6).
    pub tau: String,
    /// Current at the vehicle (N, 3), NED.
    pub current: String,
    /// Depth reference (N,).
    pub depth_ref: String,
    /// Heading reference (N,).
    pub heading_ref: String,
    /// Speed reference (N,).
    pub speed_ref: String,
    /// Desired horizontal velocity (N, 2).
    pub v_des: String,
    /// The members' entities; `None`: every row, in order.
    pub members: Option<std::sync::Arc<[oceansim_ecs::Entity]>>,
    /// Systems the autopilot must run after (in the simulator: the one
    /// that writes the protocol command's wrench, which it overrides).
    pub after: Vec<String>,
}

impl Default for FleetLayout {
    /// A fleet world's: [`names`], every row a member.
    fn default() -> Self {
        FleetLayout {
            p: names::P.into(),
            q: names::Q.into(),
            nu: names::NU.into(),
            tau: names::TAU.into(),
            current: names::CURRENT.into(),
            depth_ref: names::DEPTH_REF.into(),
            heading_ref: names::HEADING_REF.into(),
            speed_ref: names::SPEED_REF.into(),
            v_des: names::V_DES.into(),
            members: None,
            after: Vec::new(),
        }
    }
}

impl FleetLayout {
    /// Number of members in `w`.
    pub fn len(&self, w: &oceansim_ecs::World) -> usize {
        self.members.as_ref().map_or(w.len(), |m| m.len())
    }

    /// Whether the fleet has no members in `w`.
    pub fn is_empty(&self, w: &oceansim_ecs::World) -> bool {
        self.len(w) == 0
    }

    /// Member k's row now (`None` once its entity is gone).
    pub fn row(&self, w: &oceansim_ecs::World, k: usize) -> Option<usize> {
        match &self.members {
            None => (k < w.len()).then_some(k),
            Some(m) => w.row(*m.get(k)?),
        }
    }

    /// Checks that a per-member list has one entry per member.
    pub(crate) fn check_len(
        &self,
        w: &oceansim_ecs::World,
        who: &str,
        what: &str,
        got: usize,
    ) -> oceansim_ecs::Result<()> {
        let want = self.len(w);
        if got == want {
            Ok(())
        } else {
            Err(oceansim_ecs::EcsError::Shape {
                name: who.into(),
                expected: format!("{want} {what} (one per member)"),
                got: got.to_string(),
            })
        }
    }
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
