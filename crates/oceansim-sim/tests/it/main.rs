//! The integration tests of `oceansim-sim`, one binary: each module was its own
//! test crate, linking everything again; together they build once. Those
//! that export a run need the `export` feature (on by default).

mod acoustic;
mod batch;
mod bounds;
mod common;
mod contacts;
#[cfg(feature = "export")]
mod euroc;
#[cfg(feature = "export")]
mod export;
mod fleet;
#[cfg(feature = "export")]
mod foxglove;
mod limits;
#[cfg(feature = "export")]
mod pipeline;
#[cfg(feature = "export")]
mod projection;
mod replies;
#[cfg(feature = "export")]
mod rosbag2;
#[cfg(feature = "export")]
mod snapshot;
#[cfg(feature = "export")]
mod spill;
mod sweep;
#[cfg(feature = "export")]
mod view;
mod world;
