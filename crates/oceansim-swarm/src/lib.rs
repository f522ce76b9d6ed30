//! # oceansim-swarm
//!
//! Robot models and swarm controllers as systems of the
//! [`oceansim_ecs`] core, built on [`oceansim_math`]:
//!
//! * models: [`single_integrator`] (ẋ = u) and [`unicycle_2d`]
//!   (ṗ = s[cos θ, sin θ], θ̇ = ω clipped to optional turn-rate limits);
//! * controllers: [`Oscillator`], [`ConstantSignal`], [`Consensus`]
//!   (u = −k L x, sparse), [`GvfUnicycle`] (guiding-vector-field path
//!   following) and [`SourceSeeking`] (climb a field with the swarm's L_σ);
//! * [`fleet`]: fleets of Fossen 6-DOF vehicles (mixed profiles, one
//!   vectorised RK4 system split across threads), ocean current fields, an
//!   autopilot, waypoint following, formation keeping over a communication
//!   graph, and the shared acoustic medium (the simulator's too); in NED;
//! * [`scenarios`]: complete runs behind the examples.
//!
//! ## Conventions
//!
//! SI units (m, s, rad). 2-D headings are measured from +x,
//! counter-clockwise. Positions are (N, 2) components named `p`; commands
//! `u` (single integrator) or `omega` (unicycle turn rate).
//!
//! ## Example: consensus of single integrators on a ring
//!
//! ```
//! use oceansim_ecs::{Engine, World};
//! use oceansim_math::graphs::{gen_z_ring, Graph};
//! use oceansim_swarm::{single_integrator, Consensus};
//!
//! let n = 6;
//! let x0: Vec<f64> = (0..2 * n).map(|i| i as f64).collect();
//! let mut world = World::new(n);
//! single_integrator(&mut world, "p", "u", &[2], Some(&x0), None).unwrap();
//! world.add_system(Consensus::new(Graph::new(n, &gen_z_ring(n)).unwrap(), 1.0, "p", "u")).unwrap();
//! Engine::new(0.01).run_for(&mut world, 10.0).unwrap();
//! let p = world.get::<f64>("p").unwrap();
//! // Everyone meets at the (preserved) mean position.
//! let mean_x = (0..n).map(|i| x0[2 * i]).sum::<f64>() / n as f64;
//! assert!((0..n).all(|i| (p[2 * i] - mean_x).abs() < 1e-6));
//! ```
#![warn(missing_docs)]

mod controllers;
pub mod fleet;
mod models;
pub mod scenarios;

pub use controllers::{Consensus, ConstantSignal, GvfUnicycle, Oscillator, SourceSeeking};
pub use models::{single_integrator, unicycle, unicycle_2d, UnicycleDynamics};
