//! The synchronous link of the blocking clients: the calling thread writes
//! its request line and reads reply lines until its `request_id` comes
//! back. No runtime, no task, no channel between the caller and the socket.
//!
//! One request is on the wire at a time (callers on other threads wait for
//! the link); a reply to a line sent without waiting, or to a request that
//! timed out, is read past and dropped when it arrives. Lines are routed by
//! their header alone ([`crate::header::peek`]): the caller gets the line
//! whole, to parse once.

use crate::error::{ClientError, Result};
use crate::header::{self, Header};
use crate::transport::{ConnectOptions, MAX_REPLY_BYTES};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The socket of a blocking client.
#[derive(Debug)]
pub(crate) struct DirectLink {
    conn: Mutex<Conn>,
    /// A handle on the same socket, so a disconnect need not wait for a
    /// caller blocked in a read.
    closer: TcpStream,
    connected: AtomicBool,
    /// Ids of requests whose replies nobody waits for any more.
    unawaited: Mutex<HashSet<String>>,
}

#[derive(Debug)]
struct Conn {
    write: TcpStream,
    read: BufReader<TcpStream>,
    /// The bytes of a line read so far (kept across a timed-out read); a
    /// complete line stays here, borrowed by whoever reads it, until the
    /// next read (so the buffer is reused, not allocated per reply).
    partial: Vec<u8>,
    /// Whether `partial` holds a complete line already handed out.
    handed_out: bool,
    /// The read timeout last set on the socket (saves a system call per
    /// request when it does not change).
    read_timeout: Option<Duration>,
}

fn connection(addr: &str, reason: impl Into<String>) -> ClientError {
    ClientError::Connection {
        addr: addr.to_owned(),
        reason: reason.into(),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl DirectLink {
    /// Connects to `addr` (`host:port`), retrying as `options` say.
    pub fn connect(addr: &str, options: ConnectOptions) -> Result<DirectLink> {
        let mut attempt = 0;
        let stream = loop {
            match connect_once(addr, options.timeout) {
                Ok(s) => break s,
                Err(e) if attempt >= options.retries => {
                    return Err(connection(
                        addr,
                        format!("{e} (after {} attempts)", attempt + 1),
                    ))
                }
                Err(e) => {
                    tracing::debug!(addr, attempt, "connect failed: {e}; retrying");
                    attempt += 1;
                    std::thread::sleep(options.interval);
                }
            }
        };
        // Small request lines are latency-bound; do not let Nagle hold them.
        let _ = stream.set_nodelay(true);
        let io = |e: std::io::Error| connection(addr, e.to_string());
        let closer = stream.try_clone().map_err(io)?;
        let read = stream.try_clone().map_err(io)?;
        Ok(DirectLink {
            conn: Mutex::new(Conn {
                write: stream,
                // One read takes a whole reply of the usual sizes.
                read: BufReader::with_capacity(1 << 16, read),
                partial: Vec::new(),
                handed_out: false,
                read_timeout: None,
            }),
            closer,
            connected: AtomicBool::new(true),
            unawaited: Mutex::new(HashSet::new()),
        })
    }

    /// `true` until the connection closed or failed.
    pub fn is_connected(&self) -> bool {
        self.connected.load(Ordering::SeqCst)
    }

    /// Closes the socket; a caller blocked on it gets a connection error.
    pub fn disconnect(&self) {
        self.connected.store(false, Ordering::SeqCst);
        let _ = self.closer.shutdown(Shutdown::Both);
    }

    /// Notes that the reply to `id` is not awaited (dropped when it comes).
    pub fn forget(&self, id: String) {
        lock(&self.unawaited).insert(id);
    }

    /// Writes `line` (newline-terminated) without waiting for a reply.
    pub fn send(&self, addr: &str, line: &str) -> Result<()> {
        let mut conn = lock(&self.conn);
        self.write(&mut conn, addr, line)
    }

    fn write(&self, conn: &mut Conn, addr: &str, line: &str) -> Result<()> {
        if !self.is_connected() {
            return Err(connection(addr, "the connection is closed"));
        }
        conn.write.write_all(line.as_bytes()).map_err(|e| {
            self.connected.store(false, Ordering::SeqCst);
            connection(addr, format!("cannot send: {e}"))
        })
    }

    /// Writes `line` and reads until the reply to `id` (or an error the
    /// server could not address, which can only be this request's: it is
    /// the only one on the wire), and returns what `ours` makes of that
    /// reply's line and header (the line is borrowed from the read buffer).
    /// `on_other` sees every other line read on the way (replies to lines
    /// sent without waiting).
    #[allow(clippy::too_many_arguments)]
    pub fn round_trip<T>(
        &self,
        addr: &str,
        line: &str,
        id: &str,
        action: &str,
        timeout: Duration,
        mut on_other: impl FnMut(&str),
        ours: impl FnOnce(&str, &Header<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut conn = lock(&self.conn);
        self.write(&mut conn, addr, line)?;
        let deadline = Instant::now() + timeout;
        loop {
            let len = match self.next_line(&mut conn, deadline) {
                Ok(t) => t,
                Err(Failure::TimedOut) => {
                    self.forget(id.to_owned());
                    return Err(ClientError::Timeout {
                        action: action.to_owned(),
                        timeout,
                    });
                }
                Err(Failure::Closed(why)) => {
                    self.connected.store(false, Ordering::SeqCst);
                    return Err(connection(
                        addr,
                        format!("the connection closed before `{action}` was answered{why}"),
                    ));
                }
            };
            let Ok(text) = std::str::from_utf8(&conn.partial[..len]) else {
                tracing::warn!("unreadable reply line: not UTF-8");
                continue;
            };
            let Some(h) = header::peek(text) else {
                tracing::warn!("reply is not a JSON object; dropped");
                continue;
            };
            let mine = match h.request_id.as_deref() {
                Some(got) => got == id,
                None => !h.has_request_id && h.kind.as_deref() == Some("error"),
            };
            if mine {
                return ours(text, &h);
            }
            let quiet = h
                .request_id
                .as_deref()
                .is_some_and(|got| lock(&self.unawaited).remove(got));
            if !quiet {
                tracing::warn!(request_id = ?h.request_id, "a reply matches no request in flight (timed out, or not ours); dropped");
            }
            on_other(text);
        }
    }

    /// Reads the next complete line into `conn.partial` and returns its
    /// length without the newline, waiting until `deadline`; an over-long
    /// line is dropped with a warning.
    fn next_line(&self, conn: &mut Conn, deadline: Instant) -> std::result::Result<usize, Failure> {
        if std::mem::take(&mut conn.handed_out) {
            conn.partial.clear();
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Failure::TimedOut);
            }
            // The timeout is per read: re-armed only when it changed by
            // more than a millisecond, so a steady caller sets it once.
            if conn
                .read_timeout
                .is_none_or(|t| t.abs_diff(left) > Duration::from_millis(1))
            {
                conn.read
                    .get_ref()
                    .set_read_timeout(Some(left))
                    .map_err(|e| Failure::Closed(format!(": {e}")))?;
                conn.read_timeout = Some(left);
            }
            let room = (MAX_REPLY_BYTES + 1).saturating_sub(conn.partial.len()) as u64;
            let Conn {
                read,
                partial,
                handed_out,
                ..
            } = &mut *conn;
            match Read::take(&mut *read, room).read_until(b'\n', partial) {
                Ok(0) if partial.is_empty() => return Err(Failure::Closed(String::new())),
                Ok(_) if partial.last() == Some(&b'\n') => {
                    *handed_out = true;
                    return Ok(partial.len() - 1);
                }
                Ok(_) if partial.len() > MAX_REPLY_BYTES => {
                    tracing::warn!("unreadable reply line: longer than {MAX_REPLY_BYTES} bytes");
                    partial.clear();
                    // Drop the rest of it up to its newline.
                    let mut sink = Vec::new();
                    loop {
                        sink.clear();
                        match Read::take(&mut *read, 1 << 20).read_until(b'\n', &mut sink) {
                            Ok(0) => return Err(Failure::Closed(String::new())),
                            Ok(_) if sink.last() == Some(&b'\n') => break,
                            Ok(_) => continue,
                            Err(e) => return Err(Failure::of(e)),
                        }
                    }
                }
                // End of stream inside a line.
                Ok(_) => return Err(Failure::Closed(" (mid-line)".into())),
                Err(e) => return Err(Failure::of(e)),
            }
        }
    }
}

enum Failure {
    TimedOut,
    Closed(String),
}

impl Failure {
    fn of(e: std::io::Error) -> Failure {
        match e.kind() {
            ErrorKind::WouldBlock | ErrorKind::TimedOut => Failure::TimedOut,
            _ => Failure::Closed(format!(": {e}")),
        }
    }
}

fn connect_once(addr: &str, timeout: Duration) -> std::io::Result<TcpStream> {
    let mut last = None;
    let addrs: Vec<SocketAddr> = addr.to_socket_addrs()?.collect();
    for a in addrs {
        // An unreachable host must not wait for the OS's own timeout.
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(ErrorKind::NotFound, "the address resolves to nothing")
    }))
}
