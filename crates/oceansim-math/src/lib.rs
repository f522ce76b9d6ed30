//! # oceansim-math
//!
//! The math of swarm control, batched over N entities: graphs and
//! Laplacians ([`graphs`]), small linear algebra ([`algebra`]), SO(3)
//! ([`lie`]), SE(3) poses and Kabsch fits ([`transforms`]), scalar fields and
//! source-seeking estimates ([`fields`]), guiding-vector-field paths
//! ([`gvf`]), seeded distributions ([`distributions`]) and Paparazzi log
//! utilities ([`pprz`]).
//!
//! ## Conventions
//!
//! * Incidence: edge `(tail, head)` has +1 at the tail and −1 at the head;
//!   L = B W Bᵀ; Lb = L ⊗ I₂ on stacked `[x0, y0, x1, y1, ...]`.
//! * 2-D angles are measured from +x, counter-clockwise, in radians.
//! * [`lie::rot_3d_matrix`] = Rz(yaw) Ry(pitch) Rx(roll).
//! * A pose (4×4) is the frame expressed in world: `from_frame` maps local
//!   to world; `invert` uses Rᵀ and −Rᵀt.
//! * Batched inputs are slices of fixed-size points (`&[[f64; 2]]`) or N×D
//!   matrices; every row is used.
//!
//! ## Example
//!
//! ```
//! use oceansim_math::graphs::{gen_z_ring, Graph};
//! use oceansim_math::fields::{ScalarField, SigmaGauss};
//!
//! // A ring of 6 agents: L·1 = 0 and the graph is connected.
//! let g = Graph::new(6, &gen_z_ring(6)).unwrap();
//! assert!(g.lambda2() > 0.0);
//! let ones = vec![1.0; 12];
//! let mut out = vec![0.0; 12];
//! g.laplacian_times(&ones, 2, &mut out);
//! assert!(out.iter().all(|x| x.abs() < 1e-12));
//!
//! // A Gaussian source: the gradient points towards it.
//! let field = SigmaGauss::new([2.0, 1.0], 100.0, 3.0).unwrap();
//! let g = field.gradient([0.0, 0.0]);
//! assert!(g[0] > 0.0 && g[1] > 0.0);
//! ```
#![warn(missing_docs)]

pub mod algebra;
pub mod distributions;
mod error;
pub mod fields;
pub mod graphs;
pub mod gvf;
pub mod lie;
pub mod pprz;
pub mod transforms;

pub use error::{MathError, Result};
