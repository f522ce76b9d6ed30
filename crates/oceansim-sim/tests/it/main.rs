//! The integration tests of `oceansim-sim`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

mod acoustic;
mod batch;
mod bounds;
mod common;
mod contacts;
mod euroc;
mod export;
mod fleet;
mod foxglove;
mod limits;
mod projection;
mod replies;
mod rosbag2;
mod snapshot;
mod spill;
mod sweep;
mod view;
mod world;
