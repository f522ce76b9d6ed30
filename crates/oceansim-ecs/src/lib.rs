//! # oceansim-ecs
//!
//! A data-oriented simulation core. Data lives in a [`World`]: named
//! component arrays over N entities (struct of arrays). Behaviour lives in
//! [`System`]s that declare what they read and write and mutate whole arrays
//! in place; [`build_schedule`] orders them by that dataflow; the [`Engine`]
//! ticks them, integrates state on its [`Manifold`], ticks [`Monitor`]s and
//! streams frames to loggers ([`loggers`]).
//!
//! ## Conventions
//!
//! * A component has shape (N, *dim) and is stored row-major: the entity in
//!   row `i` of a component with stride `s = prod(dim)` is
//!   `data[i*s .. (i+1)*s]`. Elements are `f64` by default; `i64` and `bool`
//!   components exist. Per-entity data that is not a fixed array of numbers
//!   (a vehicle model, a name) is an object component (`Option<T>` per row);
//!   world-wide values (a scene, a clock) are resources. Systems declare all
//!   three by name, and the schedule orders them alike.
//! * Entities come and go: [`World::spawn`] appends a row, [`World::despawn`]
//!   moves the last row into the gap, so arrays stay dense. Each entity keeps
//!   a stable [`Entity`] id, never reused, found in O(1) by [`World::row`].
//!   Systems queue despawns ([`World::defer_despawn`]); they land at the end
//!   of the tick.
//! * Integrated state `x` advances each tick by `x ⊞ dt·ẋ` on its manifold
//!   (explicit Euler, every derivative taken from the same snapshot). Its
//!   derivative component is `{x}_dot` unless named otherwise. Reading state
//!   creates no schedule edge: it is loop-carried.
//! * Time is in seconds, `t_k = t_0 + k·dt`. Units of components are the
//!   model's; the swarm models use SI.
//! * Large loops split across threads with the `parallel` feature
//!   (bit-identical to the serial run), and column math has vectorised
//!   kernels ([`kernels`]: sine and cosine within 1 ulp, several times
//!   faster than per-element calls).
//!
//! ## Example: unicycles
//!
//! ```
//! use oceansim_ecs::{Access, Engine, FnSystem, World};
//!
//! let n = 4;
//! let mut world = World::new(n);
//! let p = world.add_state("p", &[2], None, None).unwrap();
//! let theta = world.add_state("theta", &[], Some(&[0.0, 0.5, 1.0, 1.5]), None).unwrap();
//! let speed = world.add("speed", &[], Some(&[1.0])).unwrap();
//! let p_dot = world.add("p_dot", &[2], None).unwrap();
//! let omega = world.add("theta_dot", &[], None).unwrap();
//!
//! // Controller: a time-driven turn rate.
//! world.add_system(FnSystem::new("controller", Access::new().write("theta_dot"), move |w, step| {
//!     let rate = 0.2 * step.time.sin();
//!     w.write(omega).iter_mut().for_each(|o| *o = rate);
//! })).unwrap();
//! // Dynamics: p_dot = s [cos θ, sin θ].
//! world.add_system(FnSystem::new(
//!     "dynamics",
//!     Access::new().reads(["theta", "speed"]).write("p_dot"),
//!     move |w, _| {
//!         let (th, s) = (w.read(theta), w.read(speed));
//!         for (i, pd) in w.write(p_dot).chunks_exact_mut(2).enumerate() {
//!             let (sin, cos) = th[i].sin_cos();
//!             pd[0] = s[i] * cos;
//!             pd[1] = s[i] * sin;
//!         }
//!     },
//! )).unwrap();
//!
//! assert!(world.check().is_empty());
//! let summary = Engine::new(0.01).run_for(&mut world, 1.0).unwrap();
//! assert_eq!(summary.steps, 100);
//! // The first unicycle heads along +x at 1 m/s (ω stays tiny over 1 s).
//! assert!((world.read(p)[0] - 1.0).abs() < 0.01);
//! ```
#![warn(missing_docs)]

mod engine;
mod error;
mod integration;
mod introspect;
pub mod kernels;
pub mod loggers;
mod manifold;
pub mod par;
mod per_entity;
mod scheduler;
mod system;
mod world;

pub use engine::{Engine, MonitorReport, RunSummary};
pub use error::{EcsError, Result};
pub use integration::{IntegrationSystem, INTEGRATION};
pub use introspect::{check_world, describe_world, Issue, IssueKind};
pub use manifold::{so3_exp, Flat, Manifold, UnitQuaternion, SO3};
pub use per_entity::map_entities;
pub use scheduler::build_schedule;
pub use system::{Access, FnSystem, Step, System};
pub use system::{Monitor, MonitorSystem, Probe, Reduce, Tracked, MONITORS};
pub use world::{
    Component, Element, Entity, Handle, ObjectHandle, ResourceHandle, StateSpec, World,
};
