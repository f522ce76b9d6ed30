//! The integration tests of `oceansim-client`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

mod client;
mod cloud;
mod direct;
mod schema;
