//! The hostile suites' harness: the real `oceansim` binary on 127.0.0.1:0,
//! a raw line client, and a watcher that keeps asking `get_state` from
//! another connection while an attack runs, so every case checks that the
//! server stayed responsive (answers within [`RESPONSIVE`]) and small
//! (peak RSS ≤ [`RSS_BOUND_KIB`]), not only that it survived.

#![allow(dead_code)]

use crate::common;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "soak.rs"]
pub mod soak;

/// Most resident memory the server may reach in any case.
pub const RSS_BOUND_KIB: u64 = 256 * 1024;
/// Longest a `get_state` from another connection may wait during an attack.
pub const RESPONSIVE: Duration = Duration::from_millis(100);
/// Longest any single answer may wait: the test binary runs other tests
/// beside a hostile case on the same two cores, so one answer in fifty may
/// meet the scheduler rather than the server (an attack that blocks the
/// loop blocks every answer, for seconds).
pub const NEVER_LONGER: Duration = Duration::from_secs(1);

/// Whether the server has closed `s` (FIN or reset), without waiting.
pub fn closed(s: &TcpStream) -> bool {
    s.set_nonblocking(true).unwrap();
    let mut b = [0u8; 1024];
    let r = (&*s).read(&mut b);
    s.set_nonblocking(false).unwrap();
    match r {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != ErrorKind::WouldBlock,
    }
}

/// Hostile cases run one at a time: each measures the server's latency and
/// memory, which a neighbour's attack on the same two cores would blur.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Takes the hostile cases' turn: for a case that starts servers of its
/// own rather than a [`Server`].
pub fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// The binary, paused, with a short write-stall timeout and `extra` options.
pub struct Server {
    pub child: Child,
    pub addr: String,
    pub root: tempfile::TempDir,
    /// The viewer's `HOST:PORT`, when started with [`Opts::viewer`].
    pub viewer: Option<String>,
    /// Where its stderr goes, when started with [`Server::start_opts`].
    pub log: Option<std::path::PathBuf>,
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// How [`Server::start_opts`] starts the binary, beyond its options.
#[derive(Debug, Default, Clone, Copy)]
pub struct Opts {
    /// Serve the viewer too, on `127.0.0.1:0`.
    pub viewer: bool,
    /// Run under `prlimit --nofile=N:N` (soft and hard limit N).
    pub nofile: Option<u64>,
}

/// The hostile cases measure the protocol's walls (answers within 100 ms,
/// budgets, replays) on a debug build, where one tick rendering every
/// imaging sensor for a recording takes about that long: they run without
/// sensor data unless a case asks for it with `--record-sensor-data`
/// (`record_bench` measures what sensor data costs).
fn sensor_data(extra: &[&str]) -> Option<&'static str> {
    (!extra.contains(&"--record-sensor-data")).then_some("--no-sensor-data")
}

impl Server {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    pub fn start_with(extra: &[&str]) -> Self {
        let turn = exclusive();
        let root = tempfile::tempdir().unwrap();
        let mut args = vec!["--paused", "--write-stall-secs", "2"];
        args.extend_from_slice(extra);
        args.extend(sensor_data(extra));
        let (child, addr) = common::spawn_oceansim(&args, &root.path().join("exports"));
        Server {
            child,
            addr,
            root,
            viewer: None,
            log: None,
            _turn: turn,
        }
    }

    /// [`Server::start_with`], its stderr kept in a file ([`Server::log_bytes`]),
    /// and as `opts` say.
    pub fn start_opts(extra: &[&str], opts: Opts) -> Self {
        let turn = exclusive();
        let root = tempfile::tempdir().unwrap();
        let log = root.path().join("stderr.log");
        let bin = env!("CARGO_BIN_EXE_oceansim");
        let mut cmd = match opts.nofile {
            Some(n) => {
                let mut c = std::process::Command::new("prlimit");
                c.arg(format!("--nofile={n}:{n}")).arg(bin);
                c
            }
            None => std::process::Command::new(bin),
        };
        cmd.args([
            "serve",
            "--port",
            "0",
            "--paused",
            "--write-stall-secs",
            "2",
        ])
        .args(extra)
        .args(sensor_data(extra))
        .arg("--export-root")
        .arg(root.path().join("exports"));
        if opts.viewer {
            cmd.args(["--viewer", "127.0.0.1:0"]);
        }
        let mut child = cmd
            .env("MIMALLOC_PURGE_DELAY", "0")
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = |prefix: &str| {
            let mut l = String::new();
            out.read_line(&mut l).unwrap();
            l.trim()
                .strip_prefix(prefix)
                .unwrap_or_else(|| panic!("expected `{prefix}...`, got {l:?}"))
                .to_owned()
        };
        let addr = line("listening on ");
        let viewer = opts.viewer.then(|| {
            let url = line("viewer on ");
            url.trim_start_matches("http://")
                .trim_end_matches('/')
                .to_owned()
        });
        Server {
            child,
            addr,
            root,
            viewer,
            log: Some(log),
            _turn: turn,
        }
    }

    /// [`Server::start_with`], its stderr (the log) kept: see
    /// [`Server::log`].
    pub fn start_logged(extra: &[&str]) -> Self {
        Self::start_opts(extra, Opts::default())
    }

    /// What the server has logged (empty unless started with
    /// [`Server::start_opts`] or [`Server::start_logged`]).
    pub fn log(&self) -> String {
        self.log
            .as_ref()
            .and_then(|l| std::fs::read_to_string(l).ok())
            .unwrap_or_default()
    }

    /// Bytes the server has logged so far (0 unless started with
    /// [`Server::start_opts`]).
    pub fn log_bytes(&self) -> u64 {
        self.log
            .as_ref()
            .and_then(|l| std::fs::metadata(l).ok())
            .map_or(0, |m| m.len())
    }

    /// The CPU time (user + system) the server has used.
    pub fn cpu(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // Fields after the command's closing parenthesis; utime and stime
        // are the 12th and 13th of those, in clock ticks (100 a second).
        let ticks: u64 = stat
            .rsplit_once(')')
            .map(|(_, rest)| {
                rest.split_whitespace()
                    .skip(11)
                    .take(2)
                    .filter_map(|f| f.parse::<u64>().ok())
                    .sum()
            })
            .unwrap_or(0);
        Duration::from_millis(ticks * 10)
    }

    /// The export root the server writes to.
    pub fn exports(&self) -> std::path::PathBuf {
        self.root.path().join("exports")
    }

    pub fn conn(&self) -> Conn {
        Conn::new(&self.addr)
    }

    pub fn peak_kib(&self) -> u64 {
        soak::rss_kib(self.child.id()).map_or(0, |(_, peak)| peak)
    }

    /// Starts asking `get_state` every 20 ms from a connection of its own.
    pub fn watch(&self) -> Watch {
        Watch::start(&self.addr)
    }

    /// The server still answers `get_state` with the documented state,
    /// and its peak memory stayed within the bound.
    pub fn assert_alive(&self) {
        let r = self
            .conn()
            .request(&json!({"type": "command", "action": "get_state", "request_id": "alive"}));
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["request_id"], "alive");
        assert!(r["data"]["scenario"].is_string(), "{r}");
        let peak = self.peak_kib();
        assert!(
            peak <= RSS_BOUND_KIB,
            "peak RSS {peak} KiB > {RSS_BOUND_KIB} KiB"
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // `cargo test -- --nocapture` shows each case's peak.
        let case = std::thread::current().name().unwrap_or("?").to_owned();
        eprintln!("peak RSS of the server in {case}: {} KiB", self.peak_kib());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A raw newline-delimited JSON connection.
pub struct Conn {
    pub out: TcpStream,
    pub lines: BufReader<TcpStream>,
}

impl Conn {
    pub fn new(addr: &str) -> Self {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.set_nodelay(true).unwrap();
        Conn {
            out: s.try_clone().unwrap(),
            lines: BufReader::new(s),
        }
    }
    pub fn send(&mut self, bytes: &[u8]) {
        self.out.write_all(bytes).unwrap();
    }
    pub fn line(&mut self) -> String {
        let mut l = String::new();
        self.lines.read_line(&mut l).unwrap();
        l
    }
    pub fn recv(&mut self) -> Value {
        let l = self.line();
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    }
    pub fn request(&mut self, v: &Value) -> Value {
        self.send(format!("{v}\n").as_bytes());
        self.recv()
    }
    /// A `command` with `action` and `data`.
    pub fn cmd(&mut self, action: &str, data: Value) -> Value {
        self.request(&json!({"type": "command", "action": action, "data": data}))
    }
}

/// `get_state` asked again and again from its own connection while an
/// attack runs; [`Watch::finish`] reports the slowest answer.
pub struct Watch {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<Duration>>>,
}

impl Watch {
    pub fn start(addr: &str) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let (addr, flag) = (addr.to_owned(), stop.clone());
        let mut conn = Conn::new(&addr);
        // The first answer before the attack starts: the connection is up.
        assert_eq!(
            conn.cmd("get_state", json!({}))["status"],
            "ok",
            "the watcher connects"
        );
        let thread = std::thread::spawn(move || {
            let mut times = Vec::new();
            // At least one answer, however soon the case stops the watch
            // (a fast case on a loaded host could end before this thread
            // first ran).
            loop {
                let t = Instant::now();
                conn.send(b"{\"type\":\"command\",\"action\":\"get_state\"}\n");
                let line = conn.line();
                times.push(t.elapsed());
                assert!(line.contains("\"status\":\"ok\""), "{line}");
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            times
        });
        Watch {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops watching; asserts the answers came within [`RESPONSIVE`]
    /// (all but one in fifty, at least one allowed, and none past
    /// [`NEVER_LONGER`]). Returns the answers' times.
    pub fn finish(self) -> Vec<Duration> {
        self.finish_allowing(1.0 / 50.0)
    }

    /// [`Watch::finish`] allowing `fraction` of the answers past
    /// [`RESPONSIVE`] (none past [`NEVER_LONGER`]): for a case whose
    /// legitimate requests hold the loop tens of milliseconds each.
    pub fn finish_allowing(mut self, fraction: f64) -> Vec<Duration> {
        let times = self.stop_and_join();
        assert!(!times.is_empty(), "the watcher asked nothing");
        let worst = times.iter().max().copied().unwrap_or_default();
        let slow = times.iter().filter(|t| **t > RESPONSIVE).count();
        eprintln!(
            "watcher: {} get_state answers, slowest {worst:?}, {slow} past {RESPONSIVE:?}",
            times.len()
        );
        assert!(
            worst <= NEVER_LONGER && slow as f64 <= (times.len() as f64 * fraction).max(1.0),
            "{slow} of {} get_state answers from another connection waited past {RESPONSIVE:?} (slowest {worst:?})",
            times.len()
        );
        times
    }

    /// Stops watching; asserts the watcher never waited behind more than
    /// one of the attacker's requests: every answer (all but one in fifty,
    /// at least one allowed) within `longest`, the attacker's slowest
    /// request, plus half of [`RESPONSIVE`], and none past
    /// [`NEVER_LONGER`]. For legitimate requests whose own cost depends on
    /// the machine (renders in a crowded scene): what is tested is that the
    /// loop serves others between them, not how fast this host renders.
    pub fn finish_behind_one(mut self, longest: Duration) -> Vec<Duration> {
        let times = self.stop_and_join();
        assert!(!times.is_empty(), "the watcher asked nothing");
        let bound = longest + RESPONSIVE / 2;
        let worst = times.iter().max().copied().unwrap_or_default();
        let slow = times.iter().filter(|t| **t > bound).count();
        eprintln!(
            "watcher: {} get_state answers, slowest {worst:?}, {slow} past {bound:?} (the attacker's slowest request {longest:?} + {:?})",
            times.len(),
            RESPONSIVE / 2
        );
        assert!(
            worst <= NEVER_LONGER && slow as f64 <= (times.len() as f64 / 50.0).max(1.0),
            "{slow} of {} get_state answers from another connection waited past {bound:?}, longer than one of the attacker's requests (slowest {worst:?})",
            times.len()
        );
        times
    }

    fn stop_and_join(&mut self) -> Vec<Duration> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .map(|t| t.join().expect("the watcher's connection held"))
            .unwrap_or_default()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.stop_and_join();
        }
    }
}

/// Bytes of the regular files under `path` (links not followed).
pub fn tree_bytes(path: &std::path::Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(path)
            .map(|d| d.flatten().map(|e| tree_bytes(&e.path())).sum())
            .unwrap_or(0)
    } else if meta.is_file() {
        meta.len()
    } else {
        0
    }
}
