//! Bounded reads of files a user names (a scenario on the command line)
//! or a run holds: only a regular file, at most a given size, opened
//! without waiting (a FIFO would block `open` until a writer came), and
//! read no further than the cap, so a link to `/dev/zero` or a 100 GB file
//! is refused before it is read into memory.

use std::fs::File;
use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// Reads the UTF-8 text file `path`, refusing anything but a regular file
/// of at most `max` bytes (a link is followed).
pub fn read_text_file(path: &Path, max: u64) -> std::io::Result<String> {
    read_open_text(open_nonblocking(path, false)?, max)
}

/// Reads `path` as [`read_text_file`] does, refusing a link at its last
/// component too (on Unix).
pub fn read_text_nofollow(path: &Path, max: u64) -> std::io::Result<String> {
    read_open_text(open_nonblocking(path, true)?, max)
}

/// Reads a UTF-8 text file of at most `max` bytes from an already opened
/// `file`: anything but a regular file (a device, a FIFO, a directory) and
/// anything longer is refused before it is read into memory.
pub fn read_open_text(file: File, max: u64) -> std::io::Result<String> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > max {
        return Err(too_large(max));
    }
    let mut text = String::new();
    // A file that grows after the size check is still read no further.
    file.take(max + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        return Err(too_large(max));
    }
    Ok(text)
}

fn too_large(max: u64) -> Error {
    Error::new(
        ErrorKind::InvalidData,
        format!("larger than {} MiB", max >> 20),
    )
}

/// Opens `path` for reading without waiting (non-blocking has no effect on
/// a regular file).
fn open_nonblocking(path: &Path, nofollow: bool) -> std::io::Result<File> {
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = rustix::fs::OFlags::NONBLOCK;
        if nofollow {
            flags |= rustix::fs::OFlags::NOFOLLOW;
        }
        open.custom_flags(flags.bits() as i32);
    }
    #[cfg(not(unix))]
    let _ = nofollow;
    open.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.json");
        std::fs::write(&small, "{}").unwrap();
        assert_eq!(read_text_file(&small, 2).unwrap(), "{}");
        let err = read_text_file(&small, 1).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        let err = read_text_file(dir.path(), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "a directory");
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_links_are_refused() {
        let err = read_text_file(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "a device");
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.json");
        std::fs::write(&target, "{}").unwrap();
        let link = dir.path().join("l.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(read_text_file(&link, 16).unwrap(), "{}");
        assert!(
            read_text_nofollow(&link, 16).is_err(),
            "a link, not followed"
        );
    }
}
