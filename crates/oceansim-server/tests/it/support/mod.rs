//! Shared harnesses of the integration tests.

pub mod attack;
