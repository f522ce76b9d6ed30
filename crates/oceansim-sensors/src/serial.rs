//! Whether the render running on this thread must stay on it: the render
//! pool's jobs cast and shade on their own thread (the pool runs several at
//! once, and a job split across rayon's threads could wait there behind
//! newer ones). The values are the same either way.

use std::cell::Cell;

thread_local! {
    static SERIAL: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is running a render pool's job.
pub(crate) fn serial() -> bool {
    SERIAL.with(Cell::get)
}

/// Runs `f` with this thread marked [`serial`].
pub(crate) fn run_serial(f: impl FnOnce()) {
    let was = SERIAL.with(|s| s.replace(true));
    f();
    SERIAL.with(|s| s.set(was));
}
