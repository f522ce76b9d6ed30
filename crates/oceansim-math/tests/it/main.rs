//! The integration tests of `oceansim-math`, one binary: each module was its own
//! test crate, linking everything again; together they build once.

mod identities;
mod ssl_parity;
mod ssl_reference;
