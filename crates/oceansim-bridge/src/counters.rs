//! The counters a running bridge keeps, shared by its thread and the
//! [`Bridge`](crate::Bridge) handle that reads them.

use std::sync::atomic::AtomicU64;

/// Counters the bridge keeps ([`crate::BridgeStats`] reads them).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) published: AtomicU64,
    pub(crate) dropped_batches: AtomicU64,
    pub(crate) received: AtomicU64,
    pub(crate) bad_messages: AtomicU64,
    pub(crate) commands_dropped: AtomicU64,
    pub(crate) writes_refused: AtomicU64,
}
