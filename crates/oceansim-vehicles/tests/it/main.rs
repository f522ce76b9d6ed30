//! The integration tests of `oceansim-vehicles`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

mod actuators;
mod fossen_reference;
mod physics;
mod profiles;
mod remus100_generic;
mod remus100_physics;
mod remus100_reference;
mod vehicle_step;
