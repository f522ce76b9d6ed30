//! The soak workload, shared by the hostile suite (a bounded run) and the
//! `soak` example (the full one): C clients, each sending R mixed requests
//! one at a time, checking every reply's id and status.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// What a soak run measured.
#[derive(Debug, Default)]
pub struct SoakReport {
    pub requests: usize,
    pub mismatched_ids: usize,
    pub unexpected: Vec<String>,
    pub latencies: Vec<Duration>,
    pub elapsed: Duration,
}

impl SoakReport {
    /// The q-quantile latency (0 ≤ q ≤ 1).
    pub fn quantile(&self, q: f64) -> Duration {
        let mut l = self.latencies.clone();
        l.sort();
        l.get(((l.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or_default()
    }
}

/// Resident and peak resident set of process `pid`, in KiB (Linux).
pub fn rss_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Memory at rest before a soak: two warm-up rounds (allocator, thread
/// pools, caches), and the larger of the two resident sets after them.
/// One reading alone wanders by ±1–2 MiB with where the allocator's
/// retained pages happen to fall; the larger of two is the top of that band,
/// so "after" ≤ 1.1 × "before" catches growth, not noise.
pub fn warm_baseline(addr: &str, pid: u32, clients: usize, requests: usize) -> (u64, Vec<String>) {
    let mut unexpected = Vec::new();
    let mut before = 0;
    for _ in 0..2 {
        let warm = soak(addr, clients, requests);
        unexpected.extend(warm.unexpected);
        before = before.max(rss_at_rest(addr, pid));
    }
    (before, unexpected)
}

/// Resets the simulation (dropping its recording and agents), lets the
/// allocator settle, and reads the server's resident set (KiB).
pub fn rss_at_rest(addr: &str, pid: u32) -> u64 {
    let mut s = TcpStream::connect(addr).expect("server accepts");
    s.write_all(b"{\"type\":\"sim_control\",\"action\":\"reset\"}\n")
        .expect("send reset");
    let mut line = String::new();
    BufReader::new(&s)
        .read_line(&mut line)
        .expect("reset answered");
    std::thread::sleep(Duration::from_millis(500));
    rss_kib(pid).map_or(0, |(rss, _)| rss)
}

/// Request `i` of client `k`: a deterministic mix of steps, states,
/// grids, spawns and removals, acoustic messages, exports and batches.
/// Each client owns agent `c{k}` (spawned on even rounds, removed on odd
/// ones), placed on its own cell so no spawn can collide.
fn request(k: usize, i: usize) -> (Value, &'static str) {
    let agent = format!("c{k}");
    let (x, z) = (
        -14.0 + 4.0 * (k % 8) as f64,
        -14.0 + 4.0 * ((k / 8) % 8) as f64,
    );
    match i % 20 {
        0 | 5 | 10 | 15 => (json!({"type": "command", "action": "step"}), "step"),
        1 | 6 | 11 | 16 => (
            json!({"type": "command", "action": "get_state", "data": {"detail": "compact"}}),
            "get_state",
        ),
        2 => (
            json!({"type": "command", "action": "get_terrain_grid", "data": {"cell_size": 1.0}}),
            "grid",
        ),
        3 => (
            json!({"type": "command", "action": "spawn_agent",
                   "data": {"agent_name": agent, "location": [x, -3.0, z]}}),
            "spawn",
        ),
        4 | 9 => (
            json!({"type": "command", "action": "send_acoustic_message",
                   "data": {"sender_id": "auv/main", "receiver_id": agent, "payload": {"seq": i}}}),
            "acoustic",
        ),
        12 => (
            json!({"type": "command", "action": "remove_agent", "data": {"id": agent}}),
            "remove",
        ),
        // An export writes the whole recording (up to 64 MiB), one at a
        // time: one per client per 1,000 requests, every other one packed.
        13 if i % 1000 == 13 => (
            json!({"type": "command", "action": "export_dataset",
                   "data": {"export_dir": format!("soak/c{k}"), "pack_dataset": i % 2000 == 13}}),
            "export",
        ),
        7 | 17 => (
            json!({"type": "batch", "requests": [
                {"type": "command", "action": "get_state", "request_id": 1},
                {"type": "command", "action": "get_agents", "request_id": 2},
                {"type": "command", "action": "step", "request_id": 3},
            ]}),
            "batch",
        ),
        _ => (
            json!({"type": "command", "action": "get_agents"}),
            "get_agents",
        ),
    }
}

/// Runs one client; returns its report.
fn client(addr: &str, k: usize, requests: usize) -> SoakReport {
    let mut report = SoakReport::default();
    let stream = TcpStream::connect(addr).expect("server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(60))).ok();
    // One write per request, sent at once (no Nagle wait for an ACK).
    stream.set_nodelay(true).ok();
    let mut out = stream.try_clone().expect("clone stream");
    let mut lines = BufReader::new(stream);
    let mut line = String::new();
    for i in 0..requests {
        let (mut req, what) = request(k, i);
        // Ids alternate between strings and numbers beyond 2^53.
        let id: Value = if i % 2 == 0 {
            json!(format!("c{k}-{i}"))
        } else {
            serde_json::from_str(&format!(
                "{}",
                9_007_199_254_740_993u64 + (k * 100_000 + i) as u64
            ))
            .expect("integer")
        };
        req["request_id"] = id.clone();
        let t = Instant::now();
        let sent = out.write_all(format!("{req}\n").as_bytes());
        line.clear();
        let got = sent.is_ok() && lines.read_line(&mut line).map(|n| n > 0).unwrap_or(false);
        report.latencies.push(t.elapsed());
        report.requests += 1;
        if !got {
            report
                .unexpected
                .push(format!("client {k} request {i} ({what}): connection lost"));
            return report;
        }
        let reply: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                report
                    .unexpected
                    .push(format!("client {k} request {i}: bad reply line: {e}"));
                continue;
            }
        };
        if reply["request_id"] != id {
            report.mismatched_ids += 1;
        }
        let bad_child = reply["data"]["responses"]
            .as_array()
            .is_some_and(|c| c.iter().any(|r| r["status"] != "ok"));
        if reply["status"] != "ok" || bad_child {
            report.unexpected.push(format!(
                "client {k} request {i} ({what}): {}",
                reply["message"].as_str().unwrap_or("a batch child failed")
            ));
        }
    }
    report
}

/// `clients` clients × `requests` requests each against `addr`.
pub fn soak(addr: &str, clients: usize, requests: usize) -> SoakReport {
    let t = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|k| {
            let addr = addr.to_owned();
            std::thread::spawn(move || client(&addr, k, requests))
        })
        .collect();
    let mut all = SoakReport::default();
    for h in handles {
        let r = h.join().expect("client thread");
        all.requests += r.requests;
        all.mismatched_ids += r.mismatched_ids;
        all.unexpected.extend(r.unexpected);
        all.latencies.extend(r.latencies);
    }
    all.elapsed = t.elapsed();
    all
}
