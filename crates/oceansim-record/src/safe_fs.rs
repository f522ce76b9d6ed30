//! Files under the export root, confined by the filesystem rather than by
//! the path string.
//!
//! A client names paths relative to the export root. Checking the string
//! (no `..`, not absolute) is not enough: a symbolic link inside the root
//! would carry a write anywhere. So on Unix every directory below the root
//! is opened relative to its parent's descriptor with `O_NOFOLLOW`, a link
//! anywhere on the way is refused, and files are created as a temporary
//! name with `O_CREAT | O_EXCL | O_NOFOLLOW` and renamed into place, so a
//! reader never sees half a file and an existing link at the target name
//! is replaced, not followed. Elsewhere the same checks run on paths (a
//! narrower guarantee: a link swapped in between check and write wins).

use crate::disk::{Charged, DiskBudget};
use crate::RecordError;
use oceansim_scene::files::read_open_text as read_capped;
pub use oceansim_scene::files::{read_text_file, read_text_nofollow};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What export writers write to: a buffered file under the export root,
/// charged to the root's [`DiskBudget`] as it grows.
pub type ExportWriter = BufWriter<Charged<File>>;

fn refuse(msg: String) -> RecordError {
    RecordError::Refused(msg)
}

fn io_err(what: &Path, e: std::io::Error) -> RecordError {
    RecordError::Write {
        path: what.display().to_string(),
        source: e,
    }
}

/// Most components of a client-given path.
pub const MAX_PATH_PARTS: usize = 16;
/// Most bytes of a client-given path.
pub const MAX_PATH_BYTES: usize = 1024;

/// Splits a client-given path into its components: relative, no `..`,
/// nothing but plain names (`.` is dropped), and not inside the recorder's
/// spill ([`crate::SPILL_DIR`]), which is the simulator's own.
pub fn split_rel(rel: &str) -> Result<Vec<String>, RecordError> {
    // Each component is a directory made and opened: a path of thousands
    // would be thousands of directories from one request.
    if rel.len() > MAX_PATH_BYTES || rel.split('/').count() > MAX_PATH_PARTS {
        return Err(refuse(format!(
            "a path under the export root has at most {MAX_PATH_PARTS} parts and {MAX_PATH_BYTES} bytes"
        )));
    }
    let p = Path::new(rel);
    if rel.is_empty() || rel.contains('\0') || p.is_absolute() {
        return Err(refuse(format!(
            "path `{rel}` must be relative to the export root, without `..`"
        )));
    }
    let mut out = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => {
                return Err(refuse(format!(
                    "path `{rel}` must be relative to the export root, without `..`"
                )))
            }
        }
    }
    if out.first().is_some_and(|f| f == crate::SPILL_DIR) {
        return Err(refuse(format!(
            "path `{rel}` is inside `{}`, the recorder's spill",
            crate::SPILL_DIR
        )));
    }
    Ok(out)
}

/// A directory inside the export root, opened without following links.
#[derive(Debug)]
pub struct SafeDir {
    path: PathBuf,
    #[cfg(unix)]
    fd: rustix::fd::OwnedFd,
    /// The budget of the export root this directory is under.
    budget: Arc<DiskBudget>,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file being written under a temporary name (see [`SafeDir::begin`]).
#[derive(Debug)]
pub struct PendingFile<'a> {
    w: ExportWriter,
    tmp: TempName<'a>,
}

/// The temporary name of a [`PendingFile`], removed unless it was renamed.
#[derive(Debug)]
struct TempName<'a> {
    dir: &'a SafeDir,
    tmp: String,
    name: String,
    renamed: bool,
}

impl Drop for TempName<'_> {
    fn drop(&mut self) {
        if !self.renamed {
            self.dir.remove(&self.tmp);
        }
    }
}

impl PendingFile<'_> {
    /// Where to write.
    pub fn writer(&mut self) -> &mut ExportWriter {
        &mut self.w
    }

    /// Flushes the file and renames it into place; returns its length.
    /// The file it replaces, if any, is refunded to the budget.
    pub fn finish(self) -> Result<u64, RecordError> {
        let PendingFile { mut w, mut tmp } = self;
        let done = w.flush().and_then(|()| {
            let charged = w.into_inner().map_err(|e| e.into_error())?;
            let len = charged.get_ref().metadata()?.len();
            let replaced = crate::disk::tree_bytes(&tmp.dir.file_path(&tmp.name));
            tmp.dir.rename(&tmp.tmp, &tmp.name)?;
            tmp.renamed = true;
            charged.keep();
            tmp.dir.budget.refund(replaced);
            Ok(len)
        });
        done.map_err(|e| io_err(&tmp.dir.file_path(&tmp.name), e))
    }
}

impl SafeDir {
    /// Opens `root/parts...`, creating what is missing. The root itself is
    /// the operator's choice and may be a link; nothing below it may.
    pub fn open(root: &Path, parts: &[String]) -> Result<SafeDir, RecordError> {
        std::fs::create_dir_all(root).map_err(|e| io_err(root, e))?;
        let mut dir = SafeDir::open_root(root)?;
        for part in parts {
            dir = dir.child(part)?;
        }
        Ok(dir)
    }

    /// The directory's path (for replies).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of a file in this directory (for replies).
    pub fn file_path(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Writes `name` atomically: `fill` writes a temporary file, which is
    /// then renamed over `name`. Returns the bytes written.
    pub fn write(
        &self,
        name: &str,
        fill: impl FnOnce(&mut ExportWriter) -> std::io::Result<()>,
    ) -> Result<u64, RecordError> {
        let mut f = self.begin(name)?;
        fill(f.writer()).map_err(|e| io_err(&self.file_path(name), e))?;
        f.finish()
    }

    /// Starts writing `name` atomically, for a writer that fills it over
    /// time: a temporary file, renamed over `name` by
    /// [`PendingFile::finish`] and removed if dropped unfinished.
    pub fn begin(&self, name: &str) -> Result<PendingFile<'_>, RecordError> {
        check_name(name)?;
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = format!(".{name}.{}.{n}.tmp", std::process::id());
        let file = self
            .create_new(&tmp)
            .map_err(|e| io_err(&self.file_path(name), e))?;
        Ok(PendingFile {
            w: BufWriter::new(Charged::new(file, self.budget.clone())),
            tmp: TempName {
                dir: self,
                tmp,
                name: name.to_owned(),
                renamed: false,
            },
        })
    }

    /// Opens (creating it if missing) the subdirectory `name`, refusing a
    /// link.
    pub fn child_dir(&self, name: &str) -> Result<SafeDir, RecordError> {
        check_name(name)?;
        self.child(name)
    }

    /// Opens the subdirectory path `rel` (`a/b/c`, each part checked),
    /// creating what is missing, refusing links.
    pub fn child_dir_path(&self, rel: &str) -> Result<SafeDir, RecordError> {
        let mut parts = rel.split('/');
        let first = parts.next().unwrap_or_default();
        let mut d = self.child_dir(first)?;
        for p in parts {
            d = d.child_dir(p)?;
        }
        Ok(d)
    }

    /// Renames the directory `from` to `to` (both in this directory). An
    /// existing directory `to` is set aside first and removed once the
    /// rename is done (put back if it fails); anything else in the way is
    /// an error.
    pub fn replace_dir(&self, from: &str, to: &str, n: u64) -> Result<(), RecordError> {
        check_name(from)?;
        check_name(to)?;
        let target = self.file_path(to);
        let Err(first) = self.rename(from, to) else {
            return Ok(());
        };
        let is_dir = std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir());
        if !is_dir {
            return Err(io_err(&target, first));
        }
        let aside = format!(".{to}.replaced.{}.{n}", std::process::id());
        self.rename(to, &aside).map_err(|e| io_err(&target, e))?;
        // The run set aside is removed below (and refunded there).
        if let Err(e) = self.rename(from, to) {
            // Keep the earlier run rather than nothing.
            let _ = self.rename(&aside, to);
            return Err(io_err(&target, e));
        }
        self.remove_tree(&aside);
        Ok(())
    }

    /// Removes the directory tree `name`, best effort (links inside are
    /// removed, not followed).
    /// What it held is refunded to the budget.
    pub fn remove_tree(&self, name: &str) {
        if check_name(name).is_ok() {
            let path = self.file_path(name);
            let bytes = crate::disk::tree_bytes(&path);
            if std::fs::remove_dir_all(&path).is_ok() {
                self.budget.refund(bytes);
            }
        }
    }

    /// Removes the file `name`, best effort (a link is removed, not
    /// followed).
    pub fn remove_file(&self, name: &str) {
        if check_name(name).is_ok() {
            self.remove(name);
        }
    }

    /// The disk budget of the export root this directory is under.
    pub fn budget(&self) -> &Arc<DiskBudget> {
        &self.budget
    }

    /// Opens `name` for reading, refusing a link.
    pub fn open_read(&self, name: &str) -> std::io::Result<File> {
        check_name(name).map_err(|e| std::io::Error::other(e.to_string()))?;
        self.open_file(name)
    }

    /// Reads the text file `name`: a regular file of at most `max` bytes,
    /// never through a link. The error says only that it cannot be read
    /// and why, without the host's path.
    pub fn read_text(&self, name: &str, max: u64) -> std::io::Result<String> {
        read_capped(self.open_read(name)?, max)
    }

    /// Reads `name`, refusing a link.
    pub fn read(&self, name: &str) -> Result<Vec<u8>, RecordError> {
        check_name(name)?;
        let mut out = Vec::new();
        self.open_file(name)
            .and_then(|mut f| f.read_to_end(&mut out))
            .map_err(|e| io_err(&self.file_path(name), e))?;
        Ok(out)
    }
}

/// A file name: one plain component.
fn check_name(name: &str) -> Result<(), RecordError> {
    if split_rel(name)?.len() != 1 || name.contains('/') {
        return Err(refuse(format!("`{name}` is not a plain file name")));
    }
    Ok(())
}

#[cfg(unix)]
mod imp {
    use super::*;
    use rustix::fs::{mkdirat, openat, renameat, unlinkat, AtFlags, Mode, OFlags, CWD};
    use rustix::io::Errno;

    fn dir_flags() -> OFlags {
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
    }

    impl SafeDir {
        pub(super) fn open_root(root: &Path) -> Result<SafeDir, RecordError> {
            let fd = openat(
                CWD,
                root,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| io_err(root, e.into()))?;
            Ok(SafeDir {
                path: root.to_owned(),
                fd,
                budget: DiskBudget::of(root),
            })
        }

        pub(super) fn child(&self, part: &str) -> Result<SafeDir, RecordError> {
            let path = self.path.join(part);
            let opened = match openat(&self.fd, part, dir_flags(), Mode::empty()) {
                Err(Errno::NOENT) => match mkdirat(&self.fd, part, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => {
                        openat(&self.fd, part, dir_flags(), Mode::empty())
                    }
                    Err(e) => Err(e),
                },
                other => other,
            };
            match opened {
                Ok(fd) => Ok(SafeDir {
                    path,
                    fd,
                    budget: self.budget.clone(),
                }),
                Err(Errno::LOOP | Errno::NOTDIR) => Err(refuse(format!(
                    "`{}` is a symbolic link or not a directory: writes stay inside the export root",
                    path.display()
                ))),
                Err(e) => Err(io_err(&path, e.into())),
            }
        }

        pub(super) fn create_new(&self, name: &str) -> std::io::Result<File> {
            let flags =
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = openat(&self.fd, name, flags, Mode::from_raw_mode(0o644))?;
            Ok(File::from(fd))
        }

        pub(super) fn open_file(&self, name: &str) -> std::io::Result<File> {
            // Non-blocking: a FIFO would hold `open` until a writer came.
            let fd = openat(
                &self.fd,
                name,
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
                Mode::empty(),
            )?;
            Ok(File::from(fd))
        }

        pub(super) fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
            Ok(renameat(&self.fd, from, &self.fd, to)?)
        }

        pub(super) fn remove(&self, name: &str) {
            let _ = unlinkat(&self.fd, name, AtFlags::empty());
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use super::*;

    fn no_link(path: &Path) -> Result<(), RecordError> {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => Err(refuse(format!(
                "`{}` is a symbolic link: writes stay inside the export root",
                path.display()
            ))),
            _ => Ok(()),
        }
    }

    impl SafeDir {
        pub(super) fn open_root(root: &Path) -> Result<SafeDir, RecordError> {
            Ok(SafeDir {
                path: root.to_owned(),
                budget: DiskBudget::of(root),
            })
        }

        pub(super) fn child(&self, part: &str) -> Result<SafeDir, RecordError> {
            let path = self.path.join(part);
            no_link(&path)?;
            std::fs::create_dir_all(&path).map_err(|e| io_err(&path, e))?;
            no_link(&path)?;
            Ok(SafeDir {
                path,
                budget: self.budget.clone(),
            })
        }

        pub(super) fn create_new(&self, name: &str) -> std::io::Result<File> {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.path.join(name))
        }

        pub(super) fn open_file(&self, name: &str) -> std::io::Result<File> {
            let p = self.path.join(name);
            no_link(&p).map_err(|e| std::io::Error::other(e.to_string()))?;
            File::open(p)
        }

        pub(super) fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
            std::fs::rename(self.path.join(from), self.path.join(to))
        }

        pub(super) fn remove(&self, name: &str) {
            let _ = std::fs::remove_file(self.path.join(name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_only() {
        assert_eq!(split_rel("runs/./a").unwrap(), ["runs", "a"]);
        assert!(split_rel(".").unwrap().is_empty());
        for bad in ["../etc", "a/../../b", "/etc/passwd", "", "a\0b"] {
            assert!(split_rel(bad).is_err(), "{bad:?}");
        }
        // The recorder's spill is not the client's to write.
        for spill in [".oceansim-spill", "./.oceansim-spill/1.0/frames.jsonl"] {
            assert!(split_rel(spill).is_err(), "{spill:?}");
        }
        assert!(
            split_rel("runs/.oceansim-spill").is_ok(),
            "only at the root"
        );
        assert!(split_rel(&"a/".repeat(MAX_PATH_PARTS - 1)).is_ok());
        assert!(split_rel(&"a/".repeat(MAX_PATH_PARTS + 1)).is_err());
        assert!(split_rel(&"x".repeat(MAX_PATH_BYTES + 1)).is_err());
    }

    #[test]
    fn writes_are_atomic_and_links_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        let dir = SafeDir::open(&root, &["a".into(), "b".into()]).unwrap();
        let n = dir.write("x.txt", |w| w.write_all(b"hello")).unwrap();
        assert_eq!(n, 5);
        assert_eq!(std::fs::read(root.join("a/b/x.txt")).unwrap(), b"hello");
        // A failed fill leaves neither the file nor a temporary.
        let err = dir.write("y.txt", |_| Err(std::io::Error::other("boom")));
        assert!(err.is_err());
        let names: Vec<_> = std::fs::read_dir(root.join("a/b"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x.txt"]);
        assert_eq!(dir.read("x.txt").unwrap(), b"hello");
        #[cfg(unix)]
        {
            let outside = tmp.path().join("outside");
            std::fs::create_dir(&outside).unwrap();
            std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
            let e = SafeDir::open(&root, &["link".into(), "x".into()]).unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{e}");
            // A link at the file's name is replaced, not written through.
            std::os::unix::fs::symlink(outside.join("victim"), root.join("a/b/z.txt")).unwrap();
            dir.write("z.txt", |w| w.write_all(b"safe")).unwrap();
            assert!(!outside.join("victim").exists());
            assert!(!std::fs::symlink_metadata(root.join("a/b/z.txt"))
                .unwrap()
                .file_type()
                .is_symlink());
            // Reading refuses a link.
            std::fs::write(outside.join("secret"), b"s").unwrap();
            std::os::unix::fs::symlink(outside.join("secret"), root.join("a/b/s.txt")).unwrap();
            assert!(dir.read("s.txt").is_err());
            assert!(std::fs::read_dir(&outside).unwrap().count() == 1);
        }
    }
}
