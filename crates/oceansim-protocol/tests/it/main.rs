//! The integration tests of `oceansim-protocol`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

mod properties;
mod replies;
mod spec_examples;
mod tokio_framing;
