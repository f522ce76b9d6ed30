//! The integration tests of `oceansim-ecs`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

mod engine;
mod loggers;
mod parallel;
