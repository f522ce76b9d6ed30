//! Reading a run directory's files as a hostile one may hold them: only
//! regular files reached without following a link, and only so many bytes.
//!
//! A forged run can put a link to `/dev/zero` where `metadata.json` should
//! be (read whole, it grows without end), a FIFO where the timeline should
//! be (read, it never ends), or a link out of the run. Each file is opened
//! with `O_NOFOLLOW | O_NONBLOCK` (a link is refused, a FIFO does not wait
//! for a writer), checked to be a regular file on the descriptor itself,
//! and read up to its cap; one byte more is an error, not a truncation.

use crate::DatasetError;
use std::io::Read;
use std::path::Path;

/// Most bytes of a run's `metadata.json` (an export's is a few KiB).
pub const MAX_METADATA_BYTES: u64 = 64 << 20;
/// Most bytes of any other file of a run that is read whole: the timeline,
/// the command log, a trajectory file (an hour at 10 Hz of ten agents
/// is about 400 MB of timeline).
pub const MAX_RUN_FILE_BYTES: u64 = 1 << 30;

/// The text of the file at `path`: a regular file (not a link, device,
/// FIFO or socket) of at most `max_bytes` bytes, valid UTF-8. Errors are
/// [`DatasetError::Io`] (`dataset_io`), naming the file and what it is.
pub fn read_run_file(path: &Path, max_bytes: u64) -> Result<String, DatasetError> {
    let bad = |what: String| {
        DatasetError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, what),
        )
    };
    let file = open_no_follow(path).map_err(|e| {
        if e.raw_os_error() == Some(eloop()) {
            bad("a symbolic link, not a regular file of the run".into())
        } else {
            DatasetError::io(path, e)
        }
    })?;
    let meta = file.metadata().map_err(|e| DatasetError::io(path, e))?;
    if !meta.is_file() {
        return Err(bad(format!(
            "not a regular file ({}), refused",
            kind_of(&meta.file_type())
        )));
    }
    if meta.len() > max_bytes {
        return Err(bad(format!(
            "{} bytes, over the {max_bytes}-byte cap on a run's file",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The size can grow after the check: read one byte past the cap at most.
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| DatasetError::io(path, e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(bad(format!(
            "grew past the {max_bytes}-byte cap on a run's file"
        )));
    }
    String::from_utf8(bytes).map_err(|e| bad(format!("not UTF-8 text: {e}")))
}

/// Whether `path` is a directory reached without following a link (for
/// the run's own subdirectories, such as `trajectories/`).
pub(crate) fn check_run_subdir(path: &Path) -> Result<(), DatasetError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| DatasetError::io(path, e))?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(DatasetError::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}, not a directory of the run", kind_of(&meta.file_type())),
            ),
        ));
    }
    Ok(())
}

fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading without following a link (`ELOOP` if it is
/// one) and without waiting for a FIFO's writer.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(std::io::Error::from)?;
    Ok(std::fs::File::from(fd))
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    // Elsewhere: refuse a link by its own metadata, then open (a narrow
    // race remains).
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(std::io::Error::from_raw_os_error(eloop()));
    }
    std::fs::File::open(path)
}

/// ELOOP, what `open` with `O_NOFOLLOW` says of a link.
fn eloop() -> i32 {
    #[cfg(unix)]
    {
        rustix::io::Errno::LOOP.raw_os_error()
    }
    #[cfg(not(unix))]
    {
        -1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_read_and_everything_else_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("metadata.json");
        std::fs::write(&ok, "{}").unwrap();
        assert_eq!(read_run_file(&ok, 2).unwrap(), "{}");
        let e = read_run_file(&ok, 1).unwrap_err();
        assert_eq!(e.code(), "dataset_io");
        assert!(
            e.to_string().contains("2 bytes, over the 1-byte cap"),
            "{e}"
        );
        assert!(read_run_file(&dir.path().join("missing"), 9).is_err());
        assert!(read_run_file(dir.path(), 9)
            .unwrap_err()
            .to_string()
            .contains("a directory"));
        #[cfg(unix)]
        {
            let link = dir.path().join("zero.json");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            let e = read_run_file(&link, 1 << 20).unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{e}");
            let inner = dir.path().join("inner.json");
            std::os::unix::fs::symlink(&ok, &inner).unwrap();
            assert!(
                read_run_file(&inner, 9).is_err(),
                "not even to a file of the run"
            );
            let e = read_run_file(Path::new("/dev/zero"), 1 << 20).unwrap_err();
            assert!(e.to_string().contains("a device"), "{e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("agent_timeline.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("mkfifo not available: skipped");
            return;
        }
        let t = std::time::Instant::now();
        let e = read_run_file(&fifo, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
    }
}
