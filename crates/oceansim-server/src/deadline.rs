//! Read deadlines of a protocol connection: a line must be complete within
//! [`crate::ServerConfig::partial_line_timeout`] of its first byte, and an
//! operator may bound how long a connection idles between requests
//! ([`crate::ServerConfig::idle_timeout`]).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::time::{Instant, Sleep};

/// Why a connection's read timed out (the error's message says it too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expired {
    /// Part of a line came, and not the rest in time.
    PartialLine(Duration),
    /// No request came in time.
    Idle(Duration),
}

impl std::fmt::Display for Expired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expired::PartialLine(d) => write!(
                f,
                "a line was begun and not finished within {} s; closing",
                d.as_secs_f64()
            ),
            Expired::Idle(d) => write!(
                f,
                "no request for {} s (the server's idle timeout); closing",
                d.as_secs_f64()
            ),
        }
    }
}

impl std::error::Error for Expired {}

impl Expired {
    /// The reason behind a read error, if it is a deadline's.
    pub(crate) fn of(e: &io::Error) -> Option<Expired> {
        e.get_ref()?.downcast_ref::<Expired>().copied()
    }
}

/// A read half whose reads fail with [`Expired`] once the line being read
/// (or, with an idle timeout, the wait for one) has taken too long. The
/// connection calls [`Deadline::next_line`] each time it goes back to
/// reading after a reply.
#[derive(Debug)]
pub(crate) struct Deadline<R> {
    inner: R,
    partial: Duration,
    idle: Option<Duration>,
    /// When the wait for the next line began (the last reply written).
    waiting_since: Instant,
    /// The first byte of the line being read, if one has come.
    line_since: Option<Instant>,
    sleep: Pin<Box<Sleep>>,
    /// The instant `sleep` is set for.
    armed: Option<Instant>,
}

impl<R> Deadline<R> {
    pub(crate) fn new(inner: R, partial: Duration, idle: Option<Duration>) -> Self {
        let now = Instant::now();
        Deadline {
            inner,
            partial,
            idle,
            waiting_since: now,
            line_since: None,
            sleep: Box::pin(tokio::time::sleep_until(now)),
            armed: None,
        }
    }

    /// Reading resumes for the next line; `begun` when bytes of it are
    /// already buffered (a client that sent lines back to back).
    pub(crate) fn next_line(&mut self, begun: bool) {
        let now = Instant::now();
        self.waiting_since = now;
        self.line_since = begun.then_some(now);
    }

    fn deadline(&self) -> Option<(Instant, Expired)> {
        match self.line_since {
            Some(t) => Some((t + self.partial, Expired::PartialLine(self.partial))),
            None => self
                .idle
                .map(|d| (self.waiting_since + d, Expired::Idle(d))),
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Deadline<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let filled = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > filled && this.line_since.is_none() {
                    this.line_since = Some(Instant::now());
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                let Some((at, why)) = this.deadline() else {
                    return Poll::Pending;
                };
                if this.armed != Some(at) {
                    this.sleep.as_mut().reset(at);
                    this.armed = Some(at);
                }
                match this.sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, why)))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    const PARTIAL: Duration = Duration::from_millis(300);

    #[test]
    fn a_begun_line_must_end_in_time_an_idle_wait_need_not() {
        rt().block_on(async {
            let (mut client, server) = tokio::io::duplex(64);
            let mut r = Deadline::new(server, PARTIAL, None);
            let mut buf = [0u8; 16];
            // Idle for twice the allowance: nothing expires without an
            // idle timeout.
            let idle = tokio::time::timeout(PARTIAL * 2, r.read(&mut buf)).await;
            assert!(idle.is_err(), "still waiting");
            client.write_all(b"{\"type\"").await.unwrap();
            assert_eq!(r.read(&mut buf).await.unwrap(), 7);
            let t = Instant::now();
            let e = r.read(&mut buf).await.unwrap_err();
            assert_eq!(Expired::of(&e), Some(Expired::PartialLine(PARTIAL)));
            assert!(t.elapsed() >= PARTIAL - Duration::from_millis(5));
            assert!(e.to_string().contains("not finished"), "{e}");
        });
    }

    #[test]
    fn the_clock_restarts_for_each_line_and_an_idle_timeout_closes_a_quiet_peer() {
        rt().block_on(async {
            let (mut client, server) = tokio::io::duplex(64);
            let idle = PARTIAL * 2;
            let mut r = Deadline::new(server, PARTIAL, Some(idle));
            let mut buf = [0u8; 16];
            for _ in 0..3 {
                // A line that takes most of its allowance, three times over.
                client.write_all(b"{}").await.unwrap();
                assert_eq!(r.read(&mut buf).await.unwrap(), 2);
                tokio::time::sleep(PARTIAL / 2).await;
                client.write_all(b"\n").await.unwrap();
                assert_eq!(r.read(&mut buf).await.unwrap(), 1);
                // The reply is written; the next line has a fresh allowance.
                r.next_line(false);
            }
            let t = Instant::now();
            let e = r.read(&mut buf).await.unwrap_err();
            assert_eq!(Expired::of(&e), Some(Expired::Idle(idle)));
            assert!(t.elapsed() >= idle - Duration::from_millis(5));
            assert!(e.to_string().contains("idle timeout"), "{e}");
        });
    }
}
