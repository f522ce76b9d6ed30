//! The disk budget of an export root: the bytes this process may hold
//! under it, exports, packs, snapshots and the recorder's spill together.
//!
//! Every file written under the root (through [`crate::safe_fs::SafeDir`]) and every
//! spilled line is charged as it is written; a write that would pass the
//! budget fails with an error that names it, and the export or the spill it
//! belongs to fails whole (an export then leaves nothing behind; a full
//! spill drops the oldest frames and says so in the export). Files this
//! process removes again (a replaced run, a failed export, a spill at its
//! end) are refunded. What other processes, or earlier runs, left under the
//! root is not counted: the budget bounds what one server writes, not the
//! disk (the spill also keeps to half the free space).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The budget of a root whose server set none (bytes): 4 GiB.
pub const DEFAULT_EXPORT_BUDGET_BYTES: u64 = 4 << 30;

/// The budget of one export root.
#[derive(Debug)]
pub struct DiskBudget {
    root: PathBuf,
    limit: AtomicU64,
    used: AtomicU64,
}

/// One budget per root, shared by every simulation of the process.
static BUDGETS: Mutex<Option<HashMap<PathBuf, Arc<DiskBudget>>>> = Mutex::new(None);

/// The root as an absolute path (lexically: the root may not exist yet).
fn key(root: &Path) -> PathBuf {
    std::path::absolute(root).unwrap_or_else(|_| root.to_owned())
}

impl DiskBudget {
    /// The budget of `root` (made on first use with
    /// [`DEFAULT_EXPORT_BUDGET_BYTES`]).
    pub fn of(root: &Path) -> Arc<DiskBudget> {
        let k = key(root);
        let mut all = BUDGETS.lock().unwrap_or_else(|p| p.into_inner());
        all.get_or_insert_with(HashMap::new)
            .entry(k.clone())
            .or_insert_with(|| {
                Arc::new(DiskBudget {
                    root: k,
                    limit: AtomicU64::new(DEFAULT_EXPORT_BUDGET_BYTES),
                    used: AtomicU64::new(0),
                })
            })
            .clone()
    }

    /// Sets the budget of `root` to `bytes` (what is already used stays
    /// counted).
    pub fn set_limit(root: &Path, bytes: u64) {
        Self::of(root).limit.store(bytes, Ordering::Relaxed);
    }

    /// The budget (bytes).
    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }

    /// Bytes charged now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Charges `n` bytes, or fails (charging nothing) if that would pass
    /// the budget.
    pub fn charge(&self, n: u64) -> std::io::Result<()> {
        let limit = self.limit();
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(n).filter(|&u| u <= limit)
            })
            .map(|_| ())
            .map_err(|used| {
                std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    format!(
                        "the export root's disk budget is spent ({} of {} MiB used under {}); remove old runs or raise --export-budget-mib",
                        used >> 20,
                        limit >> 20,
                        self.root.display()
                    ),
                )
            })
    }

    /// Gives back `n` bytes (files removed again).
    pub fn refund(&self, n: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(n))
            });
    }
}

/// Bytes of the files under `path` (links not followed), for a refund.
pub(crate) fn tree_bytes(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return if meta.is_file() { meta.len() } else { 0 };
    }
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| tree_bytes(&e.path()))
                .sum::<u64>()
        })
        .unwrap_or(0)
}

/// A file being written under an export root, charged to its budget as
/// it grows (seeks back count nothing twice: the charge is the file's
/// furthest end).
#[derive(Debug)]
pub struct Charged<W> {
    inner: W,
    budget: Arc<DiskBudget>,
    pos: u64,
    charged: u64,
    /// Whether the file stays (else its charge is refunded when dropped).
    kept: bool,
}

impl<W> Charged<W> {
    pub(crate) fn new(inner: W, budget: Arc<DiskBudget>) -> Self {
        Charged {
            inner,
            budget,
            pos: 0,
            charged: 0,
            kept: false,
        }
    }

    /// Keeps the file: its charge stays when this is dropped.
    pub(crate) fn keep(mut self) {
        self.kept = true;
    }

    pub(crate) fn get_ref(&self) -> &W {
        &self.inner
    }
}

impl<W> Drop for Charged<W> {
    fn drop(&mut self) {
        if !self.kept {
            self.budget.refund(self.charged);
        }
    }
}

impl<W: std::io::Write> std::io::Write for Charged<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let end = self.pos + buf.len() as u64;
        if end > self.charged {
            self.budget.charge(end - self.charged)?;
            self.charged = end;
        }
        let n = self.inner.write(buf)?;
        self.pos += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: std::io::Seek> std::io::Seek for Charged<W> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.pos = self.inner.seek(to)?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};

    #[test]
    fn charges_until_the_budget_and_refunds() {
        let tmp = tempfile::tempdir().unwrap();
        DiskBudget::set_limit(tmp.path(), 100);
        let b = DiskBudget::of(tmp.path());
        assert_eq!(b.limit(), 100);
        let mut w = Charged::new(std::io::Cursor::new(Vec::new()), b.clone());
        w.write_all(&[0; 60]).unwrap();
        // Rewriting what is there costs nothing more.
        w.seek(SeekFrom::Start(0)).unwrap();
        w.write_all(&[1; 60]).unwrap();
        assert_eq!(b.used(), 60);
        let e = w.write_all(&[2; 50]).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        assert!(e.to_string().contains("disk budget"), "{e}");
        assert_eq!(b.used(), 60, "a refused write charges nothing");
        drop(w);
        assert_eq!(b.used(), 0, "a file not kept is refunded");
        let mut kept = Charged::new(std::io::Cursor::new(Vec::new()), b.clone());
        kept.write_all(&[0; 10]).unwrap();
        kept.keep();
        assert_eq!(b.used(), 10);
        b.refund(10);
        b.refund(10);
        assert_eq!(b.used(), 0, "never below zero");
    }
}
