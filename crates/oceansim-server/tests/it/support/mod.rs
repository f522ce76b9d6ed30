//! Shared harnesses of the integration tests.

pub mod attack;

/// Held by the tests that load the host hard (the long recordings and
/// exports) and by those whose own timing needs the host (the viewer's
/// slowloris crowd must open 1,030 sockets within the 5 s header
/// timeout): they never run beside each other, whatever the harness's
/// threads. A poisoned lock (a failed holder) is still a lock.
pub static HOST: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes [`HOST`].
pub fn host() -> std::sync::MutexGuard<'static, ()> {
    HOST.lock().unwrap_or_else(|e| e.into_inner())
}
