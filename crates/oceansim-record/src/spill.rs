//! The recorder's spill: frames and commands that no longer fit in memory,
//! appended as JSON Lines to two files in a private directory, and read
//! back, oldest first, by exports.
//!
//! `frames.jsonl` holds one recorded frame per line (every agent's state,
//! its last command inline and its sensor sequence numbers);
//! `samples.jsonl` the same frame's sensor samples, line for line (per
//! agent, per sensor, the samples with their family; empty lists when the
//! recorder keeps no sensor data), apart so that the exports that need no
//! payload never read them; `commands.jsonl` one logged command per line.
//! Floats are written in their shortest exact form, so a frame read back
//! equals the frame written, bit for bit (save an imaging sonar's decoded
//! `intensity` matrix, which no export reads); request ids keep the text
//! they arrived with. An agent's last command is written whole in the
//! first frame that links to it and by id after that. A frame's lines are
//! counted only once both are written: a reader stops at the last counted
//! byte, so it never meets a torn line, even while the simulation appends,
//! and it fails, rather than stop short, if the files hold less than was
//! counted.
//!
//! A frame with a non-finite number in an agent's state is not spilled
//! (JSON has no such numbers): the spill stops there, as when it is full.
//!
//! The directory is removed when the recorder that made it and every
//! export still reading it are gone. A process that dies first (killed,
//! out of memory) cannot remove it; its directory then holds an `owner.lock`
//! that no process holds any more (the kernel drops a dead process's
//! `flock`s), and the next spill made under the same export root on the
//! same machine and boot removes it (on a thread of its own). A directory
//! of another boot, or whose lock is held, missing or cannot be tried (NFS)
//! is never touched.

use super::codec::{CommandIn, CommandOut, FrameIn, FrameOut, SamplesIn, SamplesOut};
use super::{CommandEntry, Sample};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Name of the directory, under the export root, that holds spills.
pub const SPILL_DIR: &str = ".oceansim-spill";

/// A directory this process created (exclusively), removed when dropped;
/// the open `owner.lock` holds its `flock` for as long as it lives.
#[derive(Debug)]
struct SpillDir(PathBuf, Option<File>, Charge);

/// What a spill has charged to its export root's disk budget, refunded
/// when its directory goes.
#[derive(Debug)]
struct Charge {
    budget: Arc<crate::disk::DiskBudget>,
    bytes: AtomicU64,
}

/// The file in a spill directory whose `flock` says its process is alive.
const OWNER_LOCK: &str = "owner.lock";

/// Takes the owner lock of a new spill directory: locked under a temporary
/// name, then renamed, so that no sweeper ever sees `owner.lock` unlocked
/// while its process lives. `None` where `flock` is not to be had: the
/// directory is then never swept, only removed by its own process.
fn lock_owner(dir: &Path) -> Option<File> {
    lock_owner_as(dir, OWNER_LOCK)
}

/// Takes the owner lock of a new directory `dir`, as a spill directory's
/// own is taken, with the lock file named `name` (an export's partial
/// directory uses a hidden one, removed before the directory is renamed).
#[cfg(unix)]
pub fn lock_owner_as(dir: &Path, name: &str) -> Option<File> {
    let tmp = dir.join(format!("{name}.tmp"));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .ok()?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).ok()?;
    std::fs::rename(&tmp, dir.join(name)).ok()?;
    Some(file)
}

#[cfg(not(unix))]
pub fn lock_owner_as(_dir: &Path, _name: &str) -> Option<File> {
    None
}

/// This kernel's boot, as the first 16 hex digits of its boot id, where
/// the system has one (Linux). Spill directories are named after it, and
/// only those of this boot are swept: an `flock` says nothing about a
/// process on another machine (cluster filesystems may keep locks per
/// node), and every process of one kernel sees its locks.
pub fn boot_tag() -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let tag: String = id
            .chars()
            .filter(char::is_ascii_hexdigit)
            .take(16)
            .collect();
        (tag.len() == 16).then_some(tag)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Removes the spill directories of this boot under `parent` whose process
/// is gone: those whose `owner.lock` this process can lock. Links,
/// directories without a lock, locks that cannot be tried and a `parent`
/// that is not a directory of `uid` (this process's, read off the spill
/// directory it just made) are left alone.
///
/// The lock is opened read-only on purpose: on NFS, where `flock` is
/// emulated with byte-range locks, an exclusive lock then fails (EBADF)
/// and nothing is swept, which is safe; opened for writing, it would
/// succeed even against another spill of this very process, whose
/// emulated locks are per process.
#[cfg(unix)]
pub(super) fn sweep_orphans(parent: &Path, tag: &str, uid: u32) {
    let prefix = format!("{tag}.");
    sweep_locked(parent, uid, OWNER_LOCK, "spill", &|name| {
        name.starts_with(&prefix)
    });
}

/// Removes the directories under `parent` whose name `candidate` accepts
/// and whose lock file `lock` this process can lock (their process is
/// gone), with the same care as the spill's own sweep of orphaned spill
/// directories (links, lockless directories and a `parent` not of `uid`
/// are left alone).
#[cfg(unix)]
pub fn sweep_locked(
    parent: &Path,
    uid: u32,
    lock: &str,
    what: &str,
    candidate: &dyn Fn(&str) -> bool,
) {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let mine =
        std::fs::symlink_metadata(parent).is_ok_and(|m| m.file_type().is_dir() && m.uid() == uid);
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    if !mine {
        return;
    }
    for entry in entries.flatten() {
        // `file_type` does not follow links: only real directories.
        if !candidate(&entry.file_name().to_string_lossy())
            || !entry.file_type().is_ok_and(|t| t.is_dir())
        {
            continue;
        }
        let dir = entry.path();
        let lock = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(dir.join(lock));
        let Ok(lock) = lock else { continue };
        if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok() {
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => tracing::info!(
                    path = %dir.display(),
                    "removed a {what} directory left by a run that ended without removing it"
                ),
                Err(e) => {
                    tracing::debug!(path = %dir.display(), "could not remove an orphaned {what}: {e}")
                }
            }
        }
    }
}

/// Sweeps `parent` on a thread of its own: an orphan may be gigabytes,
/// and the simulation thread that makes a spill must not wait for it.
fn sweep_in_background(leaf: &Path, tag: Option<&str>) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (Some(tag), Some(parent), Ok(meta)) = (tag, leaf.parent(), std::fs::metadata(leaf))
        else {
            return;
        };
        let (parent, tag, uid) = (parent.to_path_buf(), tag.to_owned(), meta.uid());
        let _ = std::thread::Builder::new()
            .name("oceansim-spill-sweep".into())
            .spawn(move || sweep_orphans(&parent, &tag, uid));
    }
    #[cfg(not(unix))]
    let _ = (leaf, tag);
}

/// Creates a fresh spill directory under `root/.oceansim-spill`: the leaf
/// is created exclusively (never one left by a crashed run, or another
/// process's), owner-only on Unix, and a link in the way is refused.
fn make_dir(root: &Path) -> std::io::Result<SpillDir> {
    // The root may not exist yet (a server's first spill comes before its
    // first export): make it, or every evicted frame would be lost.
    std::fs::create_dir_all(root)?;
    let parent = root.join(SPILL_DIR);
    for attempt in 0..16 {
        match std::fs::create_dir(&parent) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        if std::fs::symlink_metadata(&parent)?.file_type().is_symlink() {
            return Err(std::io::Error::other(format!(
                "{} is a link; refusing to spill through it",
                parent.display()
            )));
        }
        let n = SPILLS.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tag = boot_tag();
        let pid = std::process::id();
        let leaf = parent.join(match &tag {
            Some(t) => format!("{t}.{pid}.{n}.{nanos:09}"),
            None => format!("{pid}.{n}.{nanos:09}"),
        });
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&leaf) {
            Ok(()) => {
                let lock = lock_owner(&leaf);
                sweep_in_background(&leaf, tag.as_deref());
                let charge = Charge {
                    budget: crate::disk::DiskBudget::of(root),
                    bytes: AtomicU64::new(0),
                };
                return Ok(SpillDir(leaf, lock, charge));
            }
            // Taken, or the parent removed by a spill ending meanwhile.
            Err(e)
                if attempt < 15
                    && matches!(
                        e.kind(),
                        std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::NotFound
                    ) => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free spill directory name"))
}

/// Bytes free for this user on the filesystem of `path`, where known.
fn free_bytes(path: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        let s = rustix::fs::statvfs(path).ok()?;
        Some(s.f_bavail.saturating_mul(s.f_frsize))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        if std::fs::remove_dir_all(&self.0).is_ok() {
            self.2.budget.refund(self.2.bytes.load(Ordering::Relaxed));
        }
        // The lock goes only once the directory has: until then no sweeper
        // can take the directory for an orphan.
        drop(self.1.take());
        // The shared parent goes too once no spill is left in it.
        if let Some(parent) = self.0.parent() {
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// What is known of the spilled frames without reading them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpillHead {
    /// Time of the first and the last spilled frame (s).
    pub time_span: Option<[f64; 2]>,
    /// The main AUV's position in the first spilled frame (m, user frame).
    pub first_main_position: Option<[f64; 3]>,
    /// Agents, in the order they first appear.
    pub agents: Vec<String>,
    /// `(agent, sensor)` pairs with at least one spilled sample, in the
    /// order they first appear.
    pub sensor_keys: Vec<(String, String)>,
}

/// The appending side, owned by the recorder.
#[derive(Debug)]
pub(crate) struct Spill {
    frames: File,
    samples: File,
    commands: File,
    /// Bytes and lines written whole to each file.
    frame_bytes: u64,
    sample_bytes: u64,
    command_bytes: u64,
    frame_count: u64,
    command_count: u64,
    /// Most bytes the files may hold together.
    limit: u64,
    head: SpillHead,
    /// Lookups for `head` (the sim thread spills every evicted frame).
    agents_seen: HashSet<String>,
    sensors_seen: HashMap<String, HashSet<String>>,
    /// Per agent, the id of the command last written whole.
    inline_command: HashMap<String, u64>,
    line: Vec<u8>,
    /// Last, so that the files are closed before the directory goes.
    dir: Arc<SpillDir>,
}

/// What an export reads: the spill as it was when the export was taken.
#[derive(Debug, Clone)]
pub struct SpillView {
    frame_bytes: u64,
    sample_bytes: u64,
    command_bytes: u64,
    frame_count: u64,
    command_count: u64,
    head: SpillHead,
    dir: Arc<SpillDir>,
}

/// The spill's files.
const FRAMES: &str = "frames.jsonl";
const SAMPLES: &str = "samples.jsonl";
const COMMANDS: &str = "commands.jsonl";

/// Numbers spill directories within a process.
static SPILLS: AtomicU64 = AtomicU64::new(0);

impl Spill {
    /// A new spill in a fresh directory under `root/.oceansim-spill`,
    /// holding at most `limit` bytes, and at most half the space free when
    /// it starts (the export that reads it back needs room too).
    pub fn create(root: &Path, limit: u64) -> std::io::Result<Spill> {
        let dir = Arc::new(make_dir(root)?);
        let limit = free_bytes(&dir.0).map_or(limit, |free| limit.min(free / 2));
        let open = |name: &str| {
            std::fs::OpenOptions::new()
                .create_new(true)
                .append(true)
                .open(dir.0.join(name))
        };
        Ok(Spill {
            frames: open(FRAMES)?,
            samples: open(SAMPLES)?,
            commands: open(COMMANDS)?,
            dir,
            frame_bytes: 0,
            sample_bytes: 0,
            command_bytes: 0,
            frame_count: 0,
            command_count: 0,
            limit,
            head: SpillHead::default(),
            agents_seen: HashSet::new(),
            sensors_seen: HashMap::new(),
            inline_command: HashMap::new(),
            line: Vec::new(),
        })
    }

    /// Where the spill is.
    pub fn path(&self) -> &Path {
        &self.dir.0
    }

    /// Frames written.
    pub fn frame_count(&self) -> u64 {
        self.frame_count
    }

    /// Charges `n` bytes about to be written to the export root's budget.
    fn charge(&self, n: u64) -> std::io::Result<()> {
        let c = &self.dir.2;
        c.budget.charge(n)?;
        c.bytes.fetch_add(n, Ordering::Relaxed);
        Ok(())
    }

    fn room(&self) -> u64 {
        self.limit
            .saturating_sub(self.frame_bytes + self.sample_bytes + self.command_bytes)
    }

    /// Appends a frame; an error (the limit reached, or the disk) leaves
    /// the counted lines as they were.
    pub fn frame(&mut self, s: &Sample) -> std::io::Result<()> {
        let finite = s.agents.iter().all(|a| {
            let state = a
                .position
                .iter()
                .chain(&a.quaternion_xyzw)
                .chain(&a.velocity);
            state.chain(&a.body_velocity).all(|x| x.is_finite()) && a.heading_deg.is_finite()
        });
        if !(finite && s.time.is_finite()) {
            return Err(std::io::Error::other(format!(
                "frame {} has a non-finite state, which JSON cannot hold",
                s.frame
            )));
        }
        // Both lines first: a frame is counted whole or not at all.
        self.line.clear();
        serde_json::to_writer(&mut self.line, &SamplesOut::of(s))?;
        self.line.push(b'\n');
        let samples_len = self.line.len();
        let frame = FrameOut::of(s, &self.inline_command);
        serde_json::to_writer(&mut self.line, &frame)?;
        self.line.push(b'\n');
        if self.line.len() as u64 > self.room() {
            return Err(std::io::Error::other(format!(
                "the spill is full ({} bytes)",
                self.limit
            )));
        }
        self.charge(self.line.len() as u64)?;
        let (samples, frame) = self.line.split_at(samples_len);
        self.samples.write_all(samples)?;
        self.frames.write_all(frame)?;
        self.sample_bytes += samples.len() as u64;
        self.frame_bytes += frame.len() as u64;
        self.frame_count += 1;
        for a in &s.agents {
            if let Some(c) = &a.command {
                self.inline_command.insert(a.name.to_string(), c.id);
            }
        }
        let h = &mut self.head;
        h.time_span = Some(match h.time_span {
            Some([t0, _]) => [t0, s.time],
            None => [s.time, s.time],
        });
        if h.first_main_position.is_none() {
            h.first_main_position = s.main().map(|m| m.position);
        }
        for a in &s.agents {
            if !self.agents_seen.contains(&*a.name) {
                self.agents_seen.insert(a.name.to_string());
                h.agents.push(a.name.to_string());
            }
            for (sensor, _) in a.sensors.iter().filter(|(_, t)| !t.is_empty()) {
                let seen = self.sensors_seen.entry(a.name.to_string()).or_default();
                if !seen.contains(&**sensor) {
                    seen.insert(sensor.to_string());
                    h.sensor_keys.push((a.name.to_string(), sensor.to_string()));
                }
            }
        }
        Ok(())
    }

    /// Appends a logged command.
    pub fn command(&mut self, c: &CommandEntry) -> std::io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, &CommandOut::of(c))?;
        self.line.push(b'\n');
        if self.line.len() as u64 > self.room() {
            return Err(std::io::Error::other(format!(
                "the spill is full ({} bytes)",
                self.limit
            )));
        }
        self.charge(self.line.len() as u64)?;
        self.commands.write_all(&self.line)?;
        self.command_bytes += self.line.len() as u64;
        self.command_count += 1;
        Ok(())
    }

    /// The spill as it is now, for an export to read.
    pub fn view(&self) -> SpillView {
        SpillView {
            dir: self.dir.clone(),
            frame_bytes: self.frame_bytes,
            sample_bytes: self.sample_bytes,
            command_bytes: self.command_bytes,
            frame_count: self.frame_count,
            command_count: self.command_count,
            head: self.head.clone(),
        }
    }
}

/// Whether a spilled frame is read with its sensor samples or without
/// (cheaper: the exports that need no payload skip them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payloads {
    /// Read the samples back.
    Keep,
    /// Leave them out (`AgentFrame::sensors` is empty).
    Skip,
}

impl SpillView {
    /// Frames in the spill.
    pub fn frame_count(&self) -> u64 {
        self.frame_count
    }

    /// Commands in the spill.
    pub fn command_count(&self) -> u64 {
        self.command_count
    }

    /// Bytes in the spill.
    pub fn bytes(&self) -> u64 {
        self.frame_bytes + self.sample_bytes + self.command_bytes
    }

    /// What is known of the frames without reading them.
    pub fn head(&self) -> &SpillHead {
        &self.head
    }

    /// Where the spill is.
    pub fn path(&self) -> &Path {
        &self.dir.0
    }

    fn lines(&self, name: &str, bytes: u64, expected: u64) -> std::io::Result<Lines> {
        let path = self.dir.0.join(name);
        let file = File::open(&path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        Ok(Lines {
            read: BufReader::with_capacity(1 << 16, file.take(bytes)),
            line: String::new(),
            number: 0,
            expected,
            path,
            failed: false,
        })
    }

    /// The spilled frames, oldest first.
    pub fn frames(
        &self,
        payloads: Payloads,
    ) -> std::io::Result<impl Iterator<Item = std::io::Result<Sample>>> {
        let mut frames = self.lines(FRAMES, self.frame_bytes, self.frame_count)?;
        let mut samples = match payloads {
            Payloads::Keep => Some(self.lines(SAMPLES, self.sample_bytes, self.frame_count)?),
            Payloads::Skip => None,
        };
        // Per agent, the command last written whole (later lines give its id).
        let mut commands: HashMap<String, Arc<CommandEntry>> = HashMap::new();
        Ok(std::iter::from_fn(move || {
            let frame = match frames.next_with(|text| serde_json::from_str::<FrameIn>(text))? {
                Ok(f) => f,
                Err(e) => return Some(Err(e)),
            };
            let taken = match samples.as_mut() {
                None => Vec::new(),
                // One samples line per frame line, written before it.
                Some(samples) => match samples.next_with(SamplesIn::parse) {
                    Some(Ok(t)) => t,
                    Some(Err(e)) => return Some(Err(e)),
                    None => return Some(Err(frames.short("a frame without its samples"))),
                },
            };
            Some(
                frame
                    .into_sample(taken, &mut commands)
                    .map_err(|e| frames.invalid(e)),
            )
        }))
    }

    /// The spilled commands, oldest first.
    pub fn commands(&self) -> std::io::Result<impl Iterator<Item = std::io::Result<CommandEntry>>> {
        let mut lines = self.lines(COMMANDS, self.command_bytes, self.command_count)?;
        Ok(std::iter::from_fn(move || {
            lines.next_with(|text| serde_json::from_str::<CommandIn>(text)?.into_entry())
        }))
    }
}

/// Whole lines of a spill file, up to its counted length.
struct Lines {
    read: BufReader<std::io::Take<File>>,
    line: String,
    number: u64,
    /// Lines counted when written.
    expected: u64,
    path: PathBuf,
    /// Set by the first error: nothing is read after it.
    failed: bool,
}

impl Lines {
    fn next_with<T>(
        &mut self,
        parse: impl FnOnce(&str) -> serde_json::Result<T>,
    ) -> Option<std::io::Result<T>> {
        if self.failed {
            return None;
        }
        let next = self.read_next(parse);
        self.failed = matches!(next, Some(Err(_)));
        next
    }

    fn read_next<T>(
        &mut self,
        parse: impl FnOnce(&str) -> serde_json::Result<T>,
    ) -> Option<std::io::Result<T>> {
        self.line.clear();
        match self.read.read_line(&mut self.line) {
            Ok(0) if self.number < self.expected => Some(Err(self.short("it ends early"))),
            Ok(0) => None,
            Ok(_) => {
                self.number += 1;
                Some(parse(self.line.trim_end()).map_err(|e| self.invalid(e)))
            }
            Err(e) => Some(Err(std::io::Error::new(
                e.kind(),
                format!("reading {}: {e}", self.path.display()),
            ))),
        }
    }

    /// The file holds less than was written to it.
    fn short(&self, why: &str) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!(
                "{}: {why} ({} of {} lines)",
                self.path.display(),
                self.number,
                self.expected
            ),
        )
    }

    /// The current line does not read back.
    fn invalid(&self, e: impl std::fmt::Display) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} line {}: {e}", self.path.display(), self.number),
        )
    }
}
