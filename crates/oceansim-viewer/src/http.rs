//! The viewer's accept loop: axum's router served by hyper's HTTP/1
//! connection, with the bounds `axum::serve` does not offer: a cap on open
//! sockets, a header-read (and keep-alive idle) timeout, a write-stall
//! timeout on every socket, and accept errors backed off and logged at a
//! bounded rate ([`AcceptErrors`]).

use crate::{Shared, HEADER_TIMEOUT, MAX_CONNECTIONS, MAX_REQUEST_HEAD_BYTES, PAGE_SEND_TIMEOUT};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use oceansim_log::{AcceptErrors, Throttle};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

/// How long open connections get to finish once the viewer stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// How often refused connections are reported at most.
const LOG_PERIOD: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `stop` turns true, then lets open
/// connections finish for [`SHUTDOWN_GRACE`].
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .max_buf_size(MAX_REQUEST_HEAD_BYTES);
    let http = Arc::new(http);
    let mut backoff = AcceptErrors::new();
    let mut refusals = Throttle::new(LOG_PERIOD);
    loop {
        let pause = backoff.pause();
        let accepted = tokio::select! {
            _ = stopped(&mut stop) => break,
            a = async {
                if !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
                listener.accept().await
            } => a,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                if let Some(held) = backoff.failed(&e) {
                    tracing::warn!(
                        "viewer: accept failed: {e}{}; next try in {:?}",
                        held_back(held),
                        backoff.pause()
                    );
                }
                continue;
            }
        };
        backoff.accepted();
        let Some(slot) = Slot::take(&shared) else {
            // Closed at once: a crowd of idle or half-sent connections
            // must not take the process's file descriptors.
            shared.refused.fetch_add(1, Ordering::Relaxed);
            if let Some(held) = refusals.admit() {
                tracing::warn!(
                    "viewer: refusing connections: {MAX_CONNECTIONS} open{}",
                    held_back(held)
                );
            }
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Guarded::new(stream, slot));
        let service = TowerToHyperService::new(router.clone());
        let (http, mut stop) = (http.clone(), stop.clone());
        tokio::spawn(async move {
            let conn = http.serve_connection(io, service).with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::debug!("viewer connection: {e}");
                    }
                    return;
                }
                _ = stopped(&mut stop) => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
    }
    // Each connection finishes its response (an upgraded page sees the
    // stop itself); one that does not is dropped with the runtime.
    let deadline = Instant::now() + SHUTDOWN_GRACE;
    while shared.connections.load(Ordering::Relaxed) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The tail of a rate-limited warning: how many like it were not logged.
fn held_back(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} more since the last report)")
    }
}

/// Resolves once `stop` is true (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        if stop.changed().await.is_err() {
            return;
        }
    }
}

/// One of [`MAX_CONNECTIONS`], held while its socket is open (an upgraded
/// page's socket too: the slot lives in the stream).
#[derive(Debug)]
struct Slot(Arc<Shared>);

impl Slot {
    fn take(shared: &Arc<Shared>) -> Option<Slot> {
        let before = shared.connections.fetch_add(1, Ordering::Relaxed);
        if before >= MAX_CONNECTIONS {
            shared.connections.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        Some(Slot(shared.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A socket whose writes fail once its peer has taken none of the bytes
/// waiting for it for [`PAGE_SEND_TIMEOUT`]: a client that requests a page
/// and never reads the answer, or pings a WebSocket and never reads the
/// pongs, is closed instead of holding its slot and its buffers.
#[derive(Debug)]
struct Guarded {
    stream: TcpStream,
    stall: Pin<Box<Sleep>>,
    /// Whether `stall` runs: a write is waiting for the peer.
    waiting: bool,
    _slot: Slot,
}

impl Guarded {
    fn new(stream: TcpStream, slot: Slot) -> Self {
        Guarded {
            stream,
            stall: Box::pin(tokio::time::sleep(PAGE_SEND_TIMEOUT)),
            waiting: false,
            _slot: slot,
        }
    }

    /// The peer took nothing this time: starts the stall clock, or fails
    /// once it has run out.
    fn blocked<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        if !self.waiting {
            self.waiting = true;
            self.stall
                .as_mut()
                .reset(Instant::now() + PAGE_SEND_TIMEOUT);
        }
        match self.stall.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the peer took no bytes for {PAGE_SEND_TIMEOUT:?}"),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progressed<T>(&mut self, r: io::Result<T>) -> Poll<io::Result<T>> {
        self.waiting = false;
        Poll::Ready(r)
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.stream).poll_write(cx, buf) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.blocked(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.stream).poll_write_vectored(cx, bufs) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.blocked(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.stream).poll_shutdown(cx) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.blocked(cx),
        }
    }
}
