//! Server benchmark, measured side by side in one run:
//!
//! * round trips per second on one loopback connection each, against a
//!   minimal tokio NDJSON echo server on the same kind of runtime:
//!   `get_state` (target >= 0.85x the echo rate), default `step`, compact
//!   `step`, a 64-child `get_state` batch, and a `step` whose 3-D lidar
//!   sees the seabed at close range (a reply of ~20 KB);
//! * the same steps answered in process (no socket: the request decoded,
//!   answered and its reply rendered to its wire line), so that a step's
//!   **time beyond its own work** is the TCP round trip minus the
//!   in-process time (target: at most 1.2x a bare echo round trip);
//! * the server as it runs by default, awake for
//!   [`oceansim_server::DEFAULT_SPIN`] after each reply, and the same
//!   server asleep at once ("no spin"), as the echo server is;
//! * the CPU time the serving thread spends per request (from the
//!   kernel's per-thread accounting, Linux), which machine noise does not
//!   inflate the way it does wall time;
//! * simulation speed in paused + step mode over TCP, as a multiple of
//!   real time (target >= 1,000x for the default scenario with its
//!   sensors), and the cost of reply bytes (µs per KB, from the lidar-heavy
//!   step against the default one).
//!
//! Every kind of request has its own connection, and all the kinds take
//! turns in quarter-second slices, so a machine's drift (clock frequency,
//! idle states, neighbours) lands on all of them alike. The in-process
//! steps run on a thread of their own, in the same turns. The client
//! reads up to 64 KiB at a time.
//!
//! ```text
//! cargo run --release -p oceansim-server --example server_bench [-- SECONDS]
//! ```

use futures::{SinkExt, StreamExt};
use oceansim_protocol::{NdjsonCodec, Request};
use oceansim_server::{run_blocking, ServerConfig};
use oceansim_sim::{SimConfig, Simulation};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tokio_util::codec::{FramedRead, FramedWrite};

// The same allocator as the `oceansim` binary, so the figures are the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const STEP: &[u8] = b"{\"type\":\"command\",\"protocol_version\":2,\"request_id\":1,\"action\":\"step\",\"data\":{\"force\":[0,20,0]}}\n";
const COMPACT: &[u8] = b"{\"type\":\"command\",\"protocol_version\":2,\"request_id\":1,\"action\":\"step\",\"data\":{\"force\":[0,20,0],\"detail\":\"compact\"}}\n";
const GET_STATE: &[u8] =
    b"{\"type\":\"command\",\"protocol_version\":2,\"request_id\":1,\"action\":\"get_state\"}\n";
/// Down (+z is up) onto the seabed and held there: the 3-D lidar's
/// returns are all close and its payload is at its largest.
const PRESSED: &[u8] = b"{\"type\":\"command\",\"protocol_version\":2,\"request_id\":1,\"action\":\"step\",\"data\":{\"force\":[0,0,-60]}}\n";

/// CPU time a thread of this process has run (ns), from
/// `/proc/self/task/TID/schedstat`; 0 where that does not exist.
fn cpu_ns(tid: Option<i32>) -> u64 {
    let Some(tid) = tid else { return 0 };
    std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat"))
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn this_tid() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        Some(rustix::thread::gettid().as_raw_nonzero().get())
    }
    #[cfg(not(target_os = "linux"))]
    None
}

fn sim_config() -> SimConfig {
    SimConfig {
        paused: true,
        // The request path (or tick) is measured, not imaging renders for
        // a recording (record_bench measures those).
        record_sensor_data: false,
        export_root: std::env::temp_dir().join("oceansim-bench-exports"),
        ..SimConfig::default()
    }
}

/// A server on its own thread, keeping itself awake for `spin` after each
/// reply ([`ServerConfig::spin`]); returns its address and thread id.
fn start_server(spin: Duration) -> (SocketAddr, Option<i32>) {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("server".into())
        .spawn(move || {
            let sim = Simulation::new(sim_config()).expect("default scenario loads");
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            tx.send((listener.local_addr().expect("addr"), this_tid()))
                .expect("main thread waits");
            run_blocking(
                listener,
                sim,
                ServerConfig {
                    spin,
                    ..ServerConfig::default()
                },
                std::future::pending(),
            )
            .expect("serve");
        })
        .expect("thread");
    rx.recv().expect("server starts")
}

/// The baseline: reads NDJSON lines and writes each back, nothing else,
/// on the same single-threaded runtime as the server.
fn start_echo() -> (SocketAddr, Option<i32>) {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("echo".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                tx.send((listener.local_addr().expect("addr"), this_tid()))
                    .expect("main thread waits");
                while let Ok((stream, _)) = listener.accept().await {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(async move {
                        let (rd, wr) = stream.into_split();
                        let mut lines = FramedRead::new(rd, NdjsonCodec::new());
                        let mut out = FramedWrite::new(wr, NdjsonCodec::new());
                        while let Some(Ok(Ok(line))) = lines.next().await {
                            if out.send(line.as_str()).await.is_err() {
                                break;
                            }
                        }
                    });
                }
            })
        })
        .expect("thread");
    rx.recv().expect("echo starts")
}

/// Steps answered in process on a thread of their own: told to run for a
/// slice (`Some(seconds)`), it answers `line` back to back until the slice
/// ends and reports how many; told `None`, it answers one and reports, so
/// that each request costs a wakeup of the engine and of its caller, as a
/// request over a socket does, without the socket.
struct Engine {
    go: mpsc::Sender<Option<f64>>,
    done: mpsc::Receiver<(u64, usize)>,
    tid: Option<i32>,
    woken: bool,
}

impl Engine {
    fn start(line: &'static [u8], settle: usize, woken: bool) -> Engine {
        let (go, slices) = mpsc::channel::<Option<f64>>();
        let (report, done) = mpsc::channel();
        let (tid_tx, tid_rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("engine".into())
            .spawn(move || {
                let mut sim = Simulation::new(sim_config()).expect("loads");
                let decode = |l: &[u8]| match Request::decode(
                    std::str::from_utf8(l).expect("utf8").trim(),
                ) {
                    Ok(Request::Single(r)) => r,
                    _ => unreachable!("a valid single request"),
                };
                for _ in 0..settle {
                    sim.handle(decode(line));
                }
                let _ = tid_tx.send(this_tid());
                while let Ok(slice) = slices.recv() {
                    let start = Instant::now();
                    let (mut n, mut bytes) = (0u64, 0usize);
                    while n == 0 || slice.is_some_and(|secs| start.elapsed().as_secs_f64() < secs) {
                        // Decoded from its bytes as the server does.
                        let line = sim.handle(decode(line)).to_line();
                        bytes += std::hint::black_box(line).len() + 1;
                        n += 1;
                    }
                    let _ = report.send((n, bytes));
                }
            })
            .expect("thread");
        let tid = tid_rx.recv().expect("engine starts");
        Engine {
            go,
            done,
            tid,
            woken,
        }
    }
}

struct Conn {
    w: TcpStream,
    r: BufReader<TcpStream>,
    buf: String,
}

impl Conn {
    fn new(addr: SocketAddr) -> Self {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_nodelay(true).expect("nodelay");
        Conn {
            w: s.try_clone().expect("clone"),
            // Read up to 64 KiB at a time, as socket clients commonly do: one
            // read per reply, so the client costs the same for any reply size.
            r: BufReader::with_capacity(1 << 16, s),
            buf: String::new(),
        }
    }
    /// One round trip; returns the reply length in bytes.
    fn round_trip(&mut self, line: &[u8]) -> usize {
        self.w.write_all(line).expect("write");
        self.buf.clear();
        self.r.read_line(&mut self.buf).expect("read")
    }
}

/// How a probe reaches its answerer.
enum Via {
    Tcp(Conn),
    Engine(Engine),
}

/// One measured request kind: where it goes, its line, and what it did.
struct Probe {
    name: &'static str,
    via: Via,
    line: &'static [u8],
    /// The thread whose CPU time is charged to this probe.
    tid: Option<i32>,
    n: u64,
    bytes: usize,
    busy_s: f64,
    cpu_ns: u64,
}

impl Probe {
    fn tcp(name: &'static str, addr: (SocketAddr, Option<i32>), line: &'static [u8]) -> Self {
        Self::tcp_after(name, addr, line, 0)
    }

    fn tcp_after(
        name: &'static str,
        (addr, tid): (SocketAddr, Option<i32>),
        line: &'static [u8],
        settle: usize,
    ) -> Self {
        let mut conn = Conn::new(addr);
        for _ in 0..settle {
            conn.round_trip(line);
        }
        for _ in 0..50 {
            conn.round_trip(line);
        }
        Self::new(name, Via::Tcp(conn), line, tid)
    }

    fn engine(name: &'static str, line: &'static [u8], settle: usize, woken: bool) -> Self {
        let engine = Engine::start(line, settle, woken);
        let tid = engine.tid;
        Self::new(name, Via::Engine(engine), line, tid)
    }

    fn new(name: &'static str, via: Via, line: &'static [u8], tid: Option<i32>) -> Self {
        Probe {
            name,
            via,
            line,
            tid,
            n: 0,
            bytes: 0,
            busy_s: 0.0,
            cpu_ns: 0,
        }
    }

    /// Round trips for `secs` seconds.
    fn run(&mut self, secs: f64) {
        let cpu0 = cpu_ns(self.tid);
        let start = Instant::now();
        match &mut self.via {
            Via::Tcp(conn) => {
                while start.elapsed().as_secs_f64() < secs {
                    self.bytes += conn.round_trip(self.line);
                    self.n += 1;
                }
            }
            Via::Engine(e) if e.woken => {
                while start.elapsed().as_secs_f64() < secs {
                    e.go.send(None).expect("engine runs");
                    let (n, bytes) = e.done.recv().expect("engine reports");
                    self.n += n;
                    self.bytes += bytes;
                }
            }
            Via::Engine(e) => {
                e.go.send(Some(secs)).expect("engine runs");
                let (n, bytes) = e.done.recv().expect("engine reports");
                self.n += n;
                self.bytes += bytes;
            }
        }
        self.busy_s += start.elapsed().as_secs_f64();
        self.cpu_ns += cpu_ns(self.tid).saturating_sub(cpu0);
    }

    /// Mean time per request (µs).
    fn us(&self) -> f64 {
        self.busy_s / self.n.max(1) as f64 * 1e6
    }

    fn rate(&self) -> f64 {
        self.n as f64 / self.busy_s
    }

    fn reply_bytes(&self) -> f64 {
        self.bytes as f64 / self.n.max(1) as f64
    }

    /// CPU time of the answering thread per request (µs).
    fn cpu_us(&self) -> f64 {
        self.cpu_ns as f64 / 1e3 / self.n.max(1) as f64
    }
}

/// Measures every probe for `secs` seconds in all, interleaved in slices of
/// a quarter second.
fn measure(probes: &mut [Probe], secs: f64) {
    let rounds = (secs / 0.25).ceil().max(1.0) as usize;
    for _ in 0..rounds {
        for p in probes.iter_mut() {
            p.run(secs / rounds as f64);
        }
    }
}

fn batch_line() -> &'static [u8] {
    let children: Vec<String> = (0..64)
        .map(|i| format!("{{\"type\":\"command\",\"request_id\":{i},\"action\":\"get_state\"}}"))
        .collect();
    let line = format!(
        "{{\"type\":\"batch\",\"protocol_version\":2,\"request_id\":\"b\",\"requests\":[{}]}}\n",
        children.join(",")
    );
    Box::leak(line.into_boxed_str()).as_bytes()
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let echo = start_echo();
    let server = start_server(oceansim_server::DEFAULT_SPIN);
    // The same server letting its thread sleep between requests, as the
    // echo server does.
    let asleep = start_server(Duration::ZERO);
    // A world for the lidar-heavy case: pressed onto the seabed (40 s of
    // sim time at the force first, then the same step measured).
    let seabed = start_server(oceansim_server::DEFAULT_SPIN);
    const SETTLE: usize = 400;
    std::thread::sleep(Duration::from_millis(100));

    let mut probes = [
        Probe::tcp("echo server", echo, STEP),
        Probe::tcp("get_state", server, GET_STATE),
        Probe::tcp("step", server, STEP),
        Probe::engine("step in process", STEP, 0, false),
        Probe::engine("  same, woken each", STEP, 0, true),
        Probe::tcp("get_state, no spin", asleep, GET_STATE),
        Probe::tcp("step, no spin", asleep, STEP),
        Probe::tcp("step, compact", server, COMPACT),
        Probe::tcp("batch of 64", server, batch_line()),
        Probe::tcp_after("step on the seabed", seabed, PRESSED, SETTLE),
        Probe::engine("  same, in process", PRESSED, SETTLE, false),
    ];
    measure(&mut probes, secs);
    let p = |name: &str| probes.iter().find(|p| p.name == name).expect("probe");
    let (echo, state, step, local) = (
        p("echo server"),
        p("get_state"),
        p("step"),
        p("step in process"),
    );
    let (seabed, seabed_local) = (p("step on the seabed"), p("  same, in process"));
    let woken = p("  same, woken each");
    let (state_asleep, step_asleep) = (p("get_state, no spin"), p("step, no spin"));

    println!("oceansim server bench: default scenario (Static_Map, 10 sensors), paused, {secs} s per kind, interleaved, loopback;");
    println!(
        "the server awake for {} us after each reply (its default), \"no spin\": asleep at once as the echo server is",
        oceansim_server::DEFAULT_SPIN.as_micros()
    );
    println!(
        "  {:<22} {:>11} {:>9} {:>10} {:>14}",
        "", "per second", "us each", "reply B", "cpu us/request"
    );
    for p in &probes {
        println!(
            "  {:<22} {:>11.0} {:>9.1} {:>10.0} {:>14.1}",
            p.name,
            p.rate(),
            p.us(),
            p.reply_bytes(),
            p.cpu_us()
        );
    }
    let beyond = step.us() - local.us();
    println!();
    println!(
        "  get_state               {:.2}x the echo rate (target >= 0.85x); no spin {:.2}x",
        state.rate() / echo.rate(),
        state_asleep.rate() / echo.rate()
    );
    println!(
        "  step beyond its work    {beyond:.1} us = {:.2}x an echo round trip (target <= 1.2x); no spin {:.1} us = {:.2}x; on the seabed {:.1} us = {:.2}x",
        beyond / echo.us(),
        step_asleep.us() - local.us(),
        (step_asleep.us() - local.us()) / echo.us(),
        seabed.us() - seabed_local.us(),
        (seabed.us() - seabed_local.us()) / echo.us()
    );
    println!(
        "  serving cpu beyond work {:.1} us per step, spin included ({:.1} us no spin; echo's own: {:.1} us)",
        step.cpu_us() - local.cpu_us(),
        step_asleep.cpu_us() - local.cpu_us(),
        echo.cpu_us()
    );
    println!(
        "  of which waiting        {:.1} us per step: the same in-process step, woken for each request, beside back to back ({:.1} us more engine cpu)",
        woken.us() - local.us(),
        woken.cpu_us() - local.cpu_us()
    );
    println!(
        "  socket and server path  {:.1} us per step beyond that (no spin) = {:.2}x an echo round trip",
        step_asleep.us() - woken.us(),
        (step_asleep.us() - woken.us()) / echo.us()
    );
    let extra_kb = (seabed.reply_bytes() - step.reply_bytes()) / 1024.0;
    if extra_kb > 0.5 {
        println!(
            "  reply bytes             {:.1} us per KB over TCP, {:.1} us per KB in process ({:.1} KB more on the seabed)",
            (seabed.us() - step.us()) / extra_kb,
            (seabed_local.us() - local.us()) / extra_kb,
            extra_kb
        );
    }
    println!(
        "  sim speed               {:.0}x real time over TCP ({:.0}x no spin), {:.0}x in process (0.1 s per step; target >= 1000x over TCP)",
        step.rate() * 0.1,
        step_asleep.rate() * 0.1,
        local.rate() * 0.1
    );
}
