//! The main AUV's rendered state, kept between requests.

use std::sync::Arc;

/// The main AUV's state as JSON text, keyed by the simulation's revision
/// and by what the recording's renders cost (they go on, on the render
/// pool, while the world is paused). `text` is `None` while only one
/// reader has read the revision (its reply was written without a copy).
#[derive(Debug, Default, Clone)]
pub struct StateCache {
    pub(crate) revision: u64,
    pub(crate) recording: Option<oceansim_protocol::reply::RecordingCost>,
    pub(crate) text: Option<Arc<str>>,
}
