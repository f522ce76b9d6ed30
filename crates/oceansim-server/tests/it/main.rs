//! The integration tests of `oceansim-server`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

#[cfg(feature = "viewer")]
mod browser;
mod cli;
mod common;
mod fleet;
mod golden;
mod hostile;
mod hostile_contacts;
mod hostile_files;
mod hostile_replay;
mod hostile_sockets;
mod hostile_world;
#[cfg(feature = "viewer")]
mod panels;
mod python_example;
mod remus100;
#[cfg(feature = "ros2")]
mod ros2_bridge;
#[cfg(feature = "ros2")]
mod ros2_dds;
mod server;
mod support;
mod world;
