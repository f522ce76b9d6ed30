//! The viewer's socket bounds, in process: the connection cap and the
//! header timeout, and a page that pings without reading while the viewer
//! has nothing to send (so only the write-stall timeout can end it). The
//! same attacks on the `oceansim` binary, with its memory and log
//! measured, are in `crates/oceansim-server/tests/it/hostile_sockets.rs`.

use oceansim_viewer::{
    Mode, Viewer, ViewerConfig, HEADER_TIMEOUT, MAX_CONNECTIONS, PAGE_SEND_TIMEOUT,
};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn start() -> Viewer {
    Viewer::start(ViewerConfig::new(
        "127.0.0.1:0".parse().unwrap(),
        Mode::Swarm,
    ))
    .unwrap()
}

/// Waits up to `limit` for `done`.
fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

#[test]
fn past_the_cap_connections_close_at_once_and_half_headers_time_out() {
    let v = start();
    let crowd: Vec<TcpStream> = (0..MAX_CONNECTIONS + 20)
        .map(|_| {
            let mut s = TcpStream::connect(v.addr()).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .unwrap();
            s
        })
        .collect();
    assert!(
        within(Duration::from_secs(3), || v.refused_connections() >= 20),
        "{} refused",
        v.refused_connections()
    );
    assert_eq!(v.connections(), MAX_CONNECTIONS);
    let t = Instant::now();
    assert!(
        within(HEADER_TIMEOUT + Duration::from_secs(10), || v.connections()
            == 0),
        "{} still open after {:?}",
        v.connections(),
        t.elapsed()
    );
    for mut s in crowd {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut b = Vec::new();
        // Closed by the server: the read ends (with nothing, or a 408).
        assert!(s.read_to_end(&mut b).is_ok() || b.is_empty());
    }
    // A whole request is served as before.
    let mut s = TcpStream::connect(v.addr()).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("\"refused_connections\":20"), "{text}");
}

#[test]
fn a_page_that_pings_and_never_reads_is_closed_by_the_stall_timeout() {
    let v = start();
    let mut s = TcpStream::connect(v.addr()).unwrap();
    write!(
        s,
        "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        v.addr()
    )
    .unwrap();
    let mut b = [0u8; 1];
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).unwrap();
        head.push(b[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    assert!(within(Duration::from_secs(5), || v.clients() == 1));
    let mut ping = vec![0x89, 0x80 | 125, 0, 0, 0, 0];
    ping.extend_from_slice(&[b'p'; 125]);
    let burst: Vec<u8> = ping
        .iter()
        .copied()
        .cycle()
        .take(ping.len() * 4096)
        .collect();
    s.set_write_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let t = Instant::now();
    let limit = PAGE_SEND_TIMEOUT + Duration::from_secs(10);
    let cut = loop {
        match s.write(&burst) {
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break true,
        }
        if t.elapsed() > limit {
            break false;
        }
    };
    assert!(cut, "the page was still read after {:?}", t.elapsed());
    assert!(
        t.elapsed() >= PAGE_SEND_TIMEOUT - Duration::from_secs(1),
        "closed by the stall timeout, not before ({:?})",
        t.elapsed()
    );
    assert!(within(Duration::from_secs(5), || v.clients() == 0));
}
