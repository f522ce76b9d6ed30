//! The integration tests of `oceansim-swarm`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

mod controllers;
mod fleet;
mod scenarios;
