//! The threads that render samples taken for a recording: one queue, oldest
//! job first, and waiters that help. A thread that needs a sample still
//! queued runs that sample's job itself, however long the queue (a
//! `get_sensors` does not wait behind a backlog of recorded renders); one
//! that needs every sample (the simulation past its bound of renders in
//! flight, an export) runs the oldest queued jobs itself rather than
//! sleep, so a wait lasts at most the render already running on a worker,
//! and the waiting core renders too.
//!
//! Each job renders on one thread (see [`crate::serial`]); the workers
//! are one fewer than the cores (at least one), so that with the thread
//! that takes the samples the process keeps to the cores it has.

use crate::pending::{PendingSample, RenderJob};
use crate::serial::run_serial;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// How far from the newest end [`RenderPool::run_for`] looks for a job.
const RECENT: usize = 1024;

/// The process's render pool.
#[derive(Debug)]
pub struct RenderPool {
    queue: Mutex<VecDeque<RenderJob>>,
    queued: Condvar,
    /// Worker threads started: with none (the system refused them), jobs
    /// run where they are submitted.
    workers: std::sync::atomic::AtomicUsize,
}

impl RenderPool {
    /// The pool, its workers started on first use.
    pub fn global() -> &'static RenderPool {
        static POOL: OnceLock<&'static RenderPool> = OnceLock::new();
        POOL.get_or_init(|| {
            let pool: &'static RenderPool = Box::leak(Box::new(RenderPool {
                queue: Mutex::new(VecDeque::new()),
                queued: Condvar::new(),
                workers: std::sync::atomic::AtomicUsize::new(0),
            }));
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            for k in 0..cores.saturating_sub(1).max(1) {
                let spawned = std::thread::Builder::new()
                    .name(format!("oceansim-render-{k}"))
                    .spawn(move || pool.work());
                match spawned {
                    Ok(_) => {
                        pool.workers
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    Err(e) => tracing::warn!("cannot start a render thread: {e}"),
                }
            }
            pool
        })
    }

    /// A pool with no threads that still queues what is submitted (as if
    /// its one worker were busy), for tests of the queue itself.
    #[cfg(test)]
    pub(crate) fn queue_only() -> RenderPool {
        RenderPool {
            queue: Mutex::new(VecDeque::new()),
            queued: Condvar::new(),
            workers: std::sync::atomic::AtomicUsize::new(1),
        }
    }

    /// Queues `job` behind those queued before it.
    pub fn submit(&self, job: RenderJob) {
        if self.workers.load(std::sync::atomic::Ordering::Relaxed) == 0 {
            run_serial(|| job.run());
            return;
        }
        self.lock().push_back(job);
        self.queued.notify_one();
    }

    /// Runs the oldest queued job on this thread, if there is one; whether
    /// it ran one.
    pub fn run_one(&self) -> bool {
        let job = self.lock().pop_front();
        match job {
            Some(job) => {
                run_serial(|| job.run());
                true
            }
            None => false,
        }
    }

    /// Runs on this thread the queued job that fills `sample`, if it is
    /// the oldest queued or among the [`RECENT`] newest; whether it did.
    /// (A reader wants a recent sample, or, settling a record, the oldest:
    /// the search stays short however long the queue.)
    pub(crate) fn run_for(&self, sample: &PendingSample) -> bool {
        let fills = |j: &RenderJob| std::ptr::eq(Arc::as_ptr(&j.out), sample);
        let job = {
            let mut q = self.lock();
            let at = if q.front().is_some_and(fills) {
                Some(0)
            } else {
                let newer = q.iter().rev().take(RECENT).position(fills);
                newer.map(|k| q.len() - 1 - k)
            };
            at.and_then(|i| q.remove(i))
        };
        match job {
            Some(job) => {
                run_serial(|| job.run());
                true
            }
            None => false,
        }
    }

    /// Runs queued jobs, oldest first, on this thread for about `slice` of
    /// wall time (at least one, if any is queued); whether it ran any. For
    /// a thread beside the simulation that helps the pool catch up (an
    /// export waiting for a recording's renders).
    pub fn help_for(&self, slice: std::time::Duration) -> bool {
        let start = std::time::Instant::now();
        let mut any = false;
        while self.run_one() {
            any = true;
            if start.elapsed() >= slice {
                break;
            }
        }
        any
    }

    /// Jobs queued and not yet started.
    pub fn queued(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<RenderJob>> {
        // A job never runs under the lock, so a poisoned lock only means a
        // panic between push and pop: the queue itself is whole.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self) {
        loop {
            let job = {
                let mut q = self.lock();
                loop {
                    if let Some(job) = q.pop_front() {
                        break job;
                    }
                    q = self.queued.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            run_serial(|| job.run());
        }
    }
}

/// Waits for `done`, running queued jobs (oldest first) meanwhile.
pub(crate) fn help_until(pool: &RenderPool, done: impl Fn() -> bool) {
    while !done() {
        if !pool.run_one() {
            return;
        }
    }
}
