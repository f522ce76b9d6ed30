//! Hostile sockets (issue #26, items 4, 5, 8 and the first part of 15):
//! the viewer's HTTP and WebSocket server and the protocol port against
//! slowloris crowds, descriptor exhaustion and ping floods, and the
//! process against SIGTERM mid-export. Each case ran against the unfixed
//! binary and failed there (the figures are in each case's comment); here
//! the server keeps answering `get_state` from another connection within
//! 100 ms and its peak RSS stays under 256 MiB.

use crate::support::attack::{closed, soak, Opts, Server};
use serde_json::{json, Value};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The viewer's constants the cases count on.
const VIEWER_CAP: usize = oceansim_viewer::MAX_CONNECTIONS;
const HEADER_TIMEOUT: Duration = oceansim_viewer::HEADER_TIMEOUT;

/// `GET path` on the viewer, the response's body.
fn http_get(viewer: &str, path: &str) -> String {
    let mut s = TcpStream::connect(viewer).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {viewer}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    text.split_once("\r\n\r\n")
        .map_or(String::new(), |(_, body)| body.to_owned())
}

fn healthz(viewer: &str) -> Value {
    let body = http_get(viewer, "/healthz");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("/healthz: {e}: {body:?}"))
}

/// Item 4: 1,030 viewer connections that each send half a header. Before:
/// all 1,030 held for as long as the test ran, and (at the default 1,024
/// descriptors) the protocol port stopped accepting while the log grew
/// 67 MB. Now: past 128 they are closed as soon as accepted, the rest
/// after the 5 s header timeout, and protocol clients are served all along.
#[test]
fn a_viewer_slowloris_crowd_is_capped_and_timed_out() {
    let _host = crate::support::host();
    // The crowd's 1,030 sockets are this process's descriptors too.
    let _ = oceansim_server::raise_open_file_limit();
    let server = Server::start_opts(
        &[],
        Opts {
            viewer: true,
            ..Opts::default()
        },
    );
    let viewer = server.viewer.clone().unwrap();
    let watch = server.watch();
    // Telling the cap from the timeout needs the whole crowd open within
    // the header timeout (after that, the first ones time out and free
    // their slots) and the server given the CPU to close the rest. When
    // tests beside this one starve the host, either can fall short: then
    // the crowd is dropped and opened again, up to three times, rather
    // than failing for the neighbours' load. A server without the cap
    // fails all three.
    let mut attempt = 0;
    let (crowd, started, early, refused_before) = loop {
        attempt += 1;
        let refused_before = healthz(&viewer)["refused_connections"].as_u64().unwrap();
        let started = Instant::now();
        let crowd: Vec<TcpStream> = (0..1030)
            .map(|_| {
                let mut s = TcpStream::connect(&viewer).unwrap();
                s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: sl")
                    .unwrap();
                s
            })
            .collect();
        let opened = started.elapsed();
        // Those past the cap are closed at once: wait for them, but only
        // while no accepted one can have reached its header timeout, so
        // every close counted here is the cap's.
        let window_end = started + HEADER_TIMEOUT - Duration::from_millis(500);
        let mut early = 0;
        while Instant::now() < window_end {
            early = crowd.iter().filter(|s| closed(s)).count();
            if early >= 1030 - VIEWER_CAP {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if early < 1030 - VIEWER_CAP && attempt < 3 {
            eprintln!(
                "slowloris: {early} closed within the window, the crowd opened in {opened:?} \
                 (attempt {attempt}); again"
            );
            drop(crowd);
            std::thread::sleep(HEADER_TIMEOUT + Duration::from_secs(1));
            continue;
        }
        // A host so loaded that the crowd took the whole window to open,
        // three times over, leaves nothing to count in it: the cap is then
        // told from the timeout by the viewer's own count of refusals,
        // checked below, which no load changes.
        let window = HEADER_TIMEOUT - Duration::from_millis(500);
        assert!(
            early >= 1030 - VIEWER_CAP || opened >= window,
            "{early} of 1030 closed within {window:?} of opening (cap {VIEWER_CAP}; opened in {opened:?})"
        );
        break (crowd, started, early, refused_before);
    };
    // A protocol client arriving now is served.
    assert_eq!(
        server.conn().cmd("get_state", json!({}))["status"],
        "ok",
        "a new protocol client"
    );
    // The rest go when their headers have not come in time.
    let deadline = started + HEADER_TIMEOUT + Duration::from_secs(10);
    let mut held = crowd.len();
    while Instant::now() < deadline {
        held = crowd.iter().filter(|s| !closed(s)).count();
        if held == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "slowloris: {early} closed at once, all closed after {:?}",
        started.elapsed()
    );
    assert_eq!(held, 0, "half-header connections still held");
    drop(crowd);
    // The viewer counted those closed at once as refused by the cap, not
    // timed out (its /healthz is itself refused while the crowd is held).
    let h = healthz(&viewer);
    let refused = h["refused_connections"].as_u64().unwrap() - refused_before;
    assert!(
        refused >= (1030 - VIEWER_CAP) as u64,
        "{refused} refused by the cap of {early} closed at once: {h}"
    );
    assert!(
        h["connections"].as_u64().unwrap() <= 2,
        "only this request's socket (and one closing): {h}"
    );
    let page = http_get(&viewer, "/");
    assert!(page.contains("<html"), "the page is served again");
    watch.finish();
    let log = server.log_bytes();
    eprintln!("slowloris: log {log} bytes");
    assert!(log < 16 << 10, "the log grew {log} bytes");
    server.assert_alive();
}

/// Item 4, the accept loops: with the descriptors exhausted (here 100 of
/// them, held by viewer connections and protocol clients), every accept
/// fails at once. Before: both loops retried at once, 100 % of a core and
/// 143 MB of "accept failed" in 4 s. Now: they back off to a second and
/// log once a second with a count.
#[test]
fn accept_loops_back_off_when_descriptors_run_out() {
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: prlimit (util-linux) is not installed");
        return;
    }
    let server = Server::start_opts(
        &[],
        Opts {
            viewer: true,
            nofile: Some(100),
        },
    );
    let viewer = server.viewer.clone().unwrap();
    let watch = server.watch();
    let mut held: Vec<TcpStream> = Vec::new();
    for _ in 0..120 {
        let mut s = TcpStream::connect(&viewer).unwrap();
        let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        held.push(s);
    }
    // Protocol clients wait in the queue the server cannot accept from.
    for _ in 0..20 {
        held.push(TcpStream::connect(&server.addr).unwrap());
    }
    std::thread::sleep(Duration::from_millis(500));
    let (cpu0, log0, t0) = (server.cpu(), server.log_bytes(), Instant::now());
    std::thread::sleep(Duration::from_secs(3));
    let (cpu, log) = (server.cpu() - cpu0, server.log_bytes() - log0);
    eprintln!(
        "EMFILE: {cpu:?} of CPU and {log} log bytes in {:?}",
        t0.elapsed()
    );
    // A few lines a second at most (each loop logs once a second).
    assert!(log < 8 << 10, "the log grew {log} bytes in 3 s");
    // Backed off, not spinning: a loop that retried at once took a whole
    // core (2.99 s of CPU in 3 s) even when its log was throttled.
    assert!(
        cpu < Duration::from_millis(1500),
        "{cpu:?} of CPU in 3 s: the accept loops spin"
    );
    watch.finish();
    drop(held);
    // Descriptors free again: accepting resumes within the longest pause.
    std::thread::sleep(oceansim_log::AcceptErrors::LONGEST_PAUSE);
    server.assert_alive();
    assert!(
        healthz(&viewer)["mode"] == "live",
        "the viewer accepts again"
    );
}

/// A WebSocket handshake on `viewer` from a non-browser client.
fn ws_connect(viewer: &str) -> TcpStream {
    let mut s = TcpStream::connect(viewer).unwrap();
    write!(
        s,
        "GET /ws HTTP/1.1\r\nHost: {viewer}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).unwrap();
        head.push(b[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    s
}

/// Item 5: a page that pings as fast as it can and never reads. Before:
/// the server queued a pong per ping, growing by what the client sent
/// (250 MB/s in the issue; here 74 MB more after 40 MiB of pings in 10 s).
/// Now: a page's unsent bytes are bounded (8 MiB), past that its pongs are
/// coalesced, and its socket is closed once it passes the bound or has
/// taken nothing for 10 s.
#[test]
fn a_ping_flood_that_never_reads_is_bounded_and_closed() {
    let server = Server::start_opts(
        &[],
        Opts {
            viewer: true,
            ..Opts::default()
        },
    );
    let viewer = server.viewer.clone().unwrap();
    let watch = server.watch();
    let mut ws = ws_connect(&viewer);
    let base = soak::rss_kib(server.child.id()).unwrap().0;
    // Masked pings of 125 bytes (the most a control frame carries), with
    // a zero mask so the payload goes as is.
    let mut ping = vec![0x89, 0x80 | 125, 0, 0, 0, 0];
    ping.extend_from_slice(&[b'p'; 125]);
    let burst: Vec<u8> = ping
        .iter()
        .copied()
        .cycle()
        .take(ping.len() * 8192)
        .collect();
    ws.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
    let (started, mut sent, mut peak) = (Instant::now(), 0usize, 0u64);
    let closed_after = loop {
        match ws.write(&burst) {
            Ok(n) => sent += n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break Some(started.elapsed()),
        }
        peak = peak.max(soak::rss_kib(server.child.id()).unwrap().0);
        // Sent enough to show the old growth, and given the stall timeout.
        if started.elapsed() > oceansim_viewer::PAGE_SEND_TIMEOUT + Duration::from_secs(5) {
            break None;
        }
    };
    let grew = peak.saturating_sub(base);
    eprintln!(
        "ping flood: {} MiB sent, closed after {closed_after:?}, RSS +{grew} KiB",
        sent >> 20
    );
    assert!(
        closed_after.is_some(),
        "the server still takes pings after {:?}",
        started.elapsed()
    );
    assert!(
        grew < (oceansim_viewer::MAX_PAGE_UNSENT_BYTES as u64 >> 10) * 3,
        "the server grew {grew} KiB for {} MiB of pings",
        sent >> 20
    );
    drop(ws);
    let deadline = Instant::now() + Duration::from_secs(5);
    while healthz(&viewer)["clients"] != 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(healthz(&viewer)["clients"], 0, "the page's loop ended");
    watch.finish();
    server.assert_alive();
}

/// Slowloris on the protocol port: before, a half-sent line held its
/// connection for as long as the client liked (the option did not exist).
/// Now a line must be complete within `--partial-line-timeout-secs` of its
/// first byte (default 30 s); an idle connection keeps its slot unless
/// `--idle-timeout-secs` is set.
#[test]
fn a_half_sent_line_is_closed_an_idle_connection_is_not() {
    let server = Server::start_with(&["--partial-line-timeout-secs", "1"]);
    let watch = server.watch();
    let mut idle = server.conn();
    let mut half = server.conn();
    half.send(b"{\"type\":\"command\",\"action\":\"get_st");
    let t = Instant::now();
    let r = half.recv();
    assert_eq!(r["error_code"], "invalid_message", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("not finished"),
        "{r}"
    );
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(half.line(), "", "then closed");
    // The idle one, quiet for longer than that, is still served.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(idle.cmd("get_state", json!({}))["status"], "ok");
    watch.finish();
    server.assert_alive();
    drop(server);

    let server = Server::start_with(&["--idle-timeout-secs", "1"]);
    let mut idle = server.conn();
    assert_eq!(idle.cmd("get_state", json!({}))["status"], "ok");
    let r = idle.recv();
    assert!(
        r["message"].as_str().unwrap().contains("idle timeout"),
        "{r}"
    );
    assert_eq!(idle.line(), "", "then closed");
    server.assert_alive();
}

/// Item 15, first part: `--max-connections 0` behaved as 1; it is refused
/// with a message naming the range.
#[test]
fn max_connections_zero_is_refused() {
    for bad in ["0", "65537", "-1"] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_oceansim"))
            .args(["serve", "--port", "0"])
            .arg(format!("--max-connections={bad}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > until {
                let _ = child.kill();
                let _ = child.wait();
                panic!("--max-connections={bad} was accepted: the server ran");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--max-connections"), "{bad}: {err}");
        if bad != "-1" {
            assert!(
                err.contains("1..=65536"),
                "{bad}: the range is named: {err}"
            );
        }
    }
}

/// `n` steps of 10 s recorded every tick with their sensor data: an export
/// of them takes seconds.
fn record_a_long_run(server: &Server, n: usize) -> crate::support::attack::Conn {
    let mut c = server.conn();
    for _ in 0..n {
        let r = c.cmd("step", json!({"detail": "compact"}));
        assert_eq!(r["status"], "ok", "{r}");
    }
    c
}

fn signal(server: &Server, sig: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(server.child.id() as i32).unwrap();
    rustix::process::kill_process(pid, sig).unwrap();
}

/// Waits up to `limit` for the server to exit.
fn exit_within(server: &mut Server, limit: Duration) -> std::process::ExitStatus {
    let until = Instant::now() + limit;
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < until, "still running after {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every `.partial` entry under `dir`, at any depth.
fn partials(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.file_name()
            .is_some_and(|n| n.to_string_lossy().contains(".partial"))
        {
            found.push(p.clone());
        }
        if p.is_dir() {
            found.extend(partials(&p));
        }
    }
    found
}

/// A recording whose export lasts long enough to signal into: a frame
/// every tick over 10 s control periods, [`LONG_STEPS`] of them (100,001
/// frames; their export takes over a second in a debug build). No sensor
/// data: rendering it made the recording, not the export, take half a
/// minute.
const LONG_RUN: [&str; 4] = ["--record-period", "0.01", "--step-period", "10"];
const LONG_STEPS: usize = 100;

/// Waits `wait`, then asserts that `c` has no reply yet (`why` if it has).
fn still_unanswered_after(c: &mut crate::support::attack::Conn, wait: Duration, why: &str) {
    std::thread::sleep(wait);
    c.out.set_nonblocking(true).unwrap();
    let mut peek = [0u8; 1];
    assert!(
        matches!(c.out.peek(&mut peek), Err(e) if e.kind() == ErrorKind::WouldBlock),
        "{why}"
    );
    c.out.set_nonblocking(false).unwrap();
}

/// The server's grace for an export once it is stopping
/// (`ServerConfig::export_grace`), past which the export is cancelled.
const EXPORT_GRACE: Duration = Duration::from_secs(2);

/// Item 8: SIGTERM mid-export. Before: the process died at once (killed
/// by the signal), leaving `.runA.partial.*` (63 MB here); SIGINT finished
/// the export on disk but closed the connection without its reply. Now
/// both are one orderly stop: the reply is written, then the process
/// exits 0, leaving no partial directory. This export (about 1.7 s here)
/// ends within the grace and is whole; on a host so loaded that it does
/// not, it is cancelled as the next case's is, and nothing is left.
#[test]
fn sigterm_mid_export_answers_then_exits() {
    let _host = crate::support::host();
    let mut server = Server::start_with(&LONG_RUN);
    let mut c = record_a_long_run(&server, LONG_STEPS);
    c.send(b"{\"type\":\"command\",\"action\":\"export_dataset\",\"request_id\":\"last\",\"data\":{\"export_dir\":\"runA\"}}\n");
    still_unanswered_after(
        &mut c,
        Duration::from_millis(300),
        "the export ended before the signal: record a longer run",
    );
    signal(&server, rustix::process::Signal::TERM);
    let r = c.recv();
    assert_eq!(r["request_id"], "last");
    assert_eq!(c.line(), "", "then the connection closes");
    let status = exit_within(&mut server, Duration::from_secs(30));
    assert_eq!(status.code(), Some(0), "{status:?}");
    let exports = server.exports();
    if r["status"] == "ok" {
        assert_eq!(r["data"]["samples"], LONG_STEPS * 1000 + 1, "{r}");
        assert!(exports.join("runA/metadata.json").is_file());
    } else {
        let m = r["message"].as_str().unwrap_or_default();
        assert!(m.contains("cancelled"), "{r}");
        eprintln!("the export outlasted the grace on this host and was cancelled");
        assert!(!exports.join("runA").exists());
    }
    assert_eq!(partials(&exports), Vec::<std::path::PathBuf>::new());
}

/// Hardening III, item 6: a signal mid-export is answered within seconds.
/// Before: the stopping server let an export run to its end (a 960 s
/// default recording's: no reply within 23 s, the process still running
/// 20 s later). Now an export still running after the grace is cancelled
/// at its next frame: it answers `invalid_message` saying so, removes what
/// it wrote, and the process exits 0. This export takes about 7 s.
#[test]
fn sigterm_cancels_a_long_export_and_answers_within_seconds() {
    let _host = crate::support::host();
    let mut server = Server::start_with(&LONG_RUN);
    let mut c = record_a_long_run(&server, 4 * LONG_STEPS);
    c.send(b"{\"type\":\"command\",\"action\":\"export_dataset\",\"request_id\":\"long\",\"data\":{\"export_dir\":\"runC\",\"pack_dataset\":true}}\n");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    signal(&server, rustix::process::Signal::TERM);
    let r = c.recv();
    let answered = t.elapsed();
    eprintln!("a long export, SIGTERM: answered after {answered:?}: {r}");
    assert_cancelled_in_grace(&mut server, &r, answered, "long", "cancelled", "runC");
    assert!(!server.exports().join("runC.zip").exists());
}

/// A stop while an export waits for the recording's renders (the
/// simulation ran ahead of them) cancels it there as it would mid-write:
/// the export answers `invalid_message` saying so within the grace, writes
/// nothing, and the process exits 0, not after rendering the backlog.
#[test]
fn sigterm_while_an_export_waits_for_renders_answers_cancelled() {
    let _host = crate::support::host();
    let mut server = Server::start_with(&["--record-sensor-data", "--step-period", "1"]);
    // 300 simulated seconds of the five imaging sensors at 5 Hz: 7,500
    // renders, several seconds more than a debug build renders in the
    // grace (3,000 took it about 2.5 s on two cores).
    let mut c = record_a_long_run(&server, 300);
    c.send(b"{\"type\":\"command\",\"action\":\"export_dataset\",\"request_id\":\"w\",\"data\":{\"export_dir\":\"runW\"}}\n");
    still_unanswered_after(
        &mut c,
        Duration::from_millis(300),
        "the renders caught up before the signal: record a longer run",
    );
    let t = Instant::now();
    signal(&server, rustix::process::Signal::TERM);
    let r = c.recv();
    let answered = t.elapsed();
    // Cancelled where it waited, not after rendering the backlog.
    let says = "cancelled while the recording's sensor renders caught up";
    assert_cancelled_in_grace(&mut server, &r, answered, "w", says, "runW");
}

/// Asserts that `r`, the reply to export `id` `answered` after a SIGTERM,
/// is `invalid_message` saying `says`, within the grace and a margin; that
/// the server then exits 0; and that neither `dir` nor a partial is left.
fn assert_cancelled_in_grace(
    server: &mut Server,
    r: &Value,
    answered: Duration,
    id: &str,
    says: &str,
    dir: &str,
) {
    assert_eq!(r["request_id"], id, "{r}");
    assert_eq!(r["status"], "error", "{r}");
    assert_eq!(r["error_code"], "invalid_message", "{r}");
    let m = r["message"].as_str().unwrap_or_default();
    assert!(m.contains(says), "{r}");
    assert!(
        answered < EXPORT_GRACE + Duration::from_secs(3),
        "answered after {answered:?}"
    );
    let status = exit_within(server, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "{status:?}");
    let exports = server.exports();
    assert!(!exports.join(dir).exists());
    assert_eq!(partials(&exports), Vec::<std::path::PathBuf>::new());
}

/// Issue 49 item 6: the recording is bounded in bytes, not frames. With
/// every imaging sensor's samples kept (the default), frames carry images
/// and clouds: before, memory held 100,000 frames or 1 GiB of them, and a
/// 960 s run's packed export peaked at 1.15 GiB. Now past
/// `--record-memory-mib` (96 by default) the oldest frames spill to disk,
/// the export reads them back, and the pack streams each file. At full
/// scale that is 175 MiB recording and 221 MiB packing a 960 s run
/// (`record_bench` measures it in release); here the bound is 2 MiB over
/// a run of about ten times that, so that a debug build records it in
/// seconds: the spill must take most frames, the export must hold every
/// one, a `get_state` from another connection must be answered while it
/// packs, and the server's peak memory must stay within 256 MiB.
#[test]
fn a_sensor_recording_is_bounded_in_bytes_and_packs_in_flat_memory() {
    // Twelve seconds of every imaging sensor rendered on both cores, then
    // a packed export: the slowloris crowd beside it (its neighbour in
    // the harness's order) failed to open its sockets in time.
    let _host = crate::support::host();
    const STEPS: usize = 12;
    let server = Server::start_with(&[
        "--record-sensor-data",
        "--record-memory-mib",
        "2",
        "--step-period",
        "1",
    ]);
    let mut c = server.conn();
    for _ in 0..STEPS {
        let r = c.cmd("step", json!({"force": [0, 20, 0], "detail": "compact"}));
        assert_eq!(r["status"], "ok", "{r}");
    }
    let watch = server.watch();
    let t = Instant::now();
    let r = c.cmd(
        "export_dataset",
        json!({"export_dir": "bounded", "pack_dataset": true}),
    );
    let took = t.elapsed();
    watch.finish();
    assert_eq!(r["status"], "ok", "{r}");
    let run = server.exports().join("bounded");
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("metadata.json")).unwrap()).unwrap();
    let rec = &meta["recording"];
    eprintln!("{STEPS} s with sensor data, packed in {took:?}: {rec}");
    assert_eq!(rec["memory_bytes_limit"], 2 << 20, "{rec}");
    assert_eq!(rec["frames_dropped"], 0, "{rec}");
    let (memory, spilled) = (
        rec["frames_in_memory"].as_u64().unwrap(),
        rec["frames_spilled"].as_u64().unwrap(),
    );
    // A frame a control period (a step of 1 s here), and the first.
    assert_eq!(memory + spilled, STEPS as u64 + 1, "{rec}");
    assert!(
        spilled > 4 * memory,
        "the byte bound spilled too little: {rec}"
    );
    // Every camera image of the run is exported, spilled ones included:
    // 5 Hz from t = 0.
    let camera = std::fs::read_to_string(run.join("sensors/auv_main/camera.jsonl")).unwrap();
    assert_eq!(camera.lines().count(), STEPS * 5 + 1);
    assert!(server.exports().join("bounded.zip").is_file());
    server.assert_alive();
}

/// A second signal during the orderly stop exits at once (130).
#[test]
fn a_second_signal_exits_at_once() {
    let _host = crate::support::host();
    let mut server = Server::start_with(&LONG_RUN);
    let mut c = record_a_long_run(&server, LONG_STEPS);
    c.send(b"{\"type\":\"command\",\"action\":\"export_dataset\",\"data\":{\"export_dir\":\"runB\"}}\n");
    std::thread::sleep(Duration::from_millis(300));
    signal(&server, rustix::process::Signal::INT);
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    signal(&server, rustix::process::Signal::TERM);
    let status = exit_within(&mut server, Duration::from_secs(5));
    eprintln!("second signal: exited {status:?} after {:?}", t.elapsed());
    assert_eq!(status.code(), Some(130), "{status:?}");
}
