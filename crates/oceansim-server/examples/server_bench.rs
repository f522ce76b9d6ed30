//! Server benchmark, measured side by side in one run:
//!
//! * round trips per second on one loopback connection, against a minimal
//!   tokio NDJSON echo server: `get_state` (target >= 0.8x the echo rate),
//!   default `step` (target >= 0.6x) and compact `step` (`"detail":
//!   "compact"`, target >= 0.8x);
//! * round trips of a 64-child `get_state` batch;
//! * simulation speed in paused + step mode, as a multiple of real time
//!   (target: >= 1,000x for the default scenario with its sensors).
//!
//! Each kind of request has its own connection, and the kinds take turns in
//! quarter-second slices, so a machine's drift (clock frequency, idle
//! states, neighbours) lands on all of them alike: measured one after the
//! other, the echo server ran first on a cold machine and looked up to 2x
//! slower than it is. The client reads up to 64 KiB at a time.
//!
//! ```text
//! cargo run --release -p oceansim-server --example server_bench [-- SECONDS]
//! ```

use futures::{SinkExt, StreamExt};
use oceansim_protocol::NdjsonCodec;
use oceansim_server::{run_blocking, ServerConfig};
use oceansim_sim::SimConfig;
use oceansim_sim::Simulation;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use tokio_util::codec::{FramedRead, FramedWrite};

// The same allocator as the `oceansim` binary, so the figures are the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn start_server() -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let export = std::env::temp_dir().join("oceansim-bench-exports");
        let sim = Simulation::new(SimConfig {
            paused: true,
            export_root: export,
            ..SimConfig::default()
        })
        .expect("default scenario loads");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        tx.send(listener.local_addr().expect("addr"))
            .expect("main thread waits");
        run_blocking(
            listener,
            sim,
            ServerConfig::default(),
            std::future::pending(),
        )
        .expect("serve");
    });
    rx.recv().expect("server starts")
}

/// The baseline: reads NDJSON lines and writes each back, nothing else.
fn start_echo(rt: tokio::runtime::Runtime) -> SocketAddr {
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        rt.block_on(async move {
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
    });
    addr
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

/// One measured request kind: its connection and line, and what it did.
struct Probe<'a> {
    conn: Conn,
    line: &'a [u8],
    n: u64,
    bytes: usize,
    busy_s: f64,
}

impl<'a> Probe<'a> {
    fn new(addr: SocketAddr, line: &'a [u8]) -> Self {
        let mut conn = Conn::new(addr);
        for _ in 0..50 {
            conn.round_trip(line);
        }
        Probe {
            conn,
            line,
            n: 0,
            bytes: 0,
            busy_s: 0.0,
        }
    }

    /// Round trips for `secs` seconds.
    fn run(&mut self, secs: f64) {
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < secs {
            self.bytes += self.conn.round_trip(self.line);
            self.n += 1;
        }
        self.busy_s += start.elapsed().as_secs_f64();
    }

    /// Round trips per second and mean reply size.
    fn rate(&self) -> (f64, f64) {
        (
            self.n as f64 / self.busy_s,
            self.bytes as f64 / self.n.max(1) as f64,
        )
    }
}

/// Measures every probe for `secs` seconds in all, interleaved in slices of
/// a quarter second so that a machine's drift (frequency, neighbours)
/// lands on all of them alike.
fn measure(probes: &mut [Probe<'_>], secs: f64) {
    let rounds = (secs / 0.25).ceil().max(1.0) as usize;
    for _ in 0..rounds {
        for p in probes.iter_mut() {
            p.run(secs / rounds as f64);
        }
    }
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    // The echo baseline gets the same single-threaded runtime as the server.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = start_server();
    let echo = start_echo(rt);
    std::thread::sleep(Duration::from_millis(100));

    let step = b"{\"type\":\"command\",\"protocol_version\":2,\"request_id\":1,\"action\":\"step\",\"data\":{\"force\":[0,20,0]}}\n";
    let compact = b"{\"type\":\"command\",\"protocol_version\":2,\"request_id\":1,\"action\":\"step\",\"data\":{\"force\":[0,20,0],\"detail\":\"compact\"}}\n";
    let get_state = b"{\"type\":\"command\",\"protocol_version\":2,\"request_id\":1,\"action\":\"get_state\"}\n";
    let children: Vec<String> = (0..64)
        .map(|i| format!("{{\"type\":\"command\",\"request_id\":{i},\"action\":\"get_state\"}}"))
        .collect();
    let batch = format!(
        "{{\"type\":\"batch\",\"protocol_version\":2,\"request_id\":\"b\",\"requests\":[{}]}}\n",
        children.join(",")
    );

    println!("oceansim server bench: default scenario (Static_Map, 10 sensors), paused, {secs} s per measurement, interleaved, loopback");
    let mut probes = [
        Probe::new(echo, step),
        Probe::new(server, get_state),
        Probe::new(server, step),
        Probe::new(server, compact),
        Probe::new(server, batch.as_bytes()),
    ];
    measure(&mut probes, secs);
    let [(echo_rate, echo_bytes), (state_rate, state_bytes), (step_rate, step_bytes), (compact_rate, compact_bytes), (batch_rate, batch_bytes)] =
        [0, 1, 2, 3, 4].map(|i| probes[i].rate());
    println!("  echo server        {echo_rate:>10.0} round trips/s   ({echo_bytes:.0} B replies)");
    println!("  get_state          {state_rate:>10.0} round trips/s   ({state_bytes:.0} B replies)   {:.2}x echo (target >= 0.8x)", state_rate / echo_rate);
    println!("  step               {step_rate:>10.0} round trips/s   ({step_bytes:.0} B replies)   {:.2}x echo (target >= 0.6x)", step_rate / echo_rate);
    println!("  step, compact      {compact_rate:>10.0} round trips/s   ({compact_bytes:.0} B replies)   {:.2}x echo (target >= 0.8x)", compact_rate / echo_rate);
    println!("  batch of 64        {batch_rate:>10.0} round trips/s   ({batch_bytes:.0} B replies) = {:.0} get_state/s", batch_rate * 64.0);
    println!("  sim speed (TCP)    {:>10.0}x real time in paused + step over the socket (0.1 s per step; target >= 1000x)", step_rate * 0.1);
    // The simulator's own speed: the same step requests answered in process,
    // reply rendered to its wire line, no socket.
    let mut sim = Simulation::new(SimConfig {
        paused: true,
        export_root: std::env::temp_dir().join("oceansim-bench-exports"),
        ..SimConfig::default()
    })
    .expect("loads");
    let oceansim_protocol::Request::Single(req) =
        oceansim_protocol::Request::decode(std::str::from_utf8(step).expect("utf8").trim())
            .expect("valid")
    else {
        unreachable!("a step is a single request")
    };
    let start = Instant::now();
    let mut steps = 0u64;
    while start.elapsed().as_secs_f64() < secs {
        std::hint::black_box(sim.handle(req.clone()).to_line());
        steps += 1;
    }
    let per_s = steps as f64 / start.elapsed().as_secs_f64();
    println!("  sim speed (engine) {:>10.0}x real time in paused + step in process ({per_s:.0} steps/s incl. sensors and reply rendering)", per_s * 0.1);
}
