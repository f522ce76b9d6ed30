//! The main AUV's rendered state, kept between requests.

use std::sync::Arc;

/// The main AUV's state as JSON text, keyed by the simulation's revision.
#[derive(Debug, Default, Clone)]
pub struct StateCache {
    pub(crate) revision: u64,
    pub(crate) text: Option<Arc<str>>,
}
