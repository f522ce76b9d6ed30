//! The hostile-client suite: the real `oceansim` binary on 127.0.0.1:0,
//! driven as an attacker would. Every case checks the reply's error code,
//! that the server still answers `get_state` correctly afterwards, and the
//! server's peak resident memory (≤ 256 MiB).

use crate::support::attack::{soak, Conn, Server};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Each malformed line gets `invalid_message` and the connection lives on.
#[test]
fn malformed_input_costs_one_error_line() {
    let server = Server::start();
    let mut c = server.conn();
    let deep = format!("{}\n", "[".repeat(100_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("malformed JSON", b"{\"type\": \"command\",\n".to_vec()),
        (
            "NaN",
            b"{\"type\":\"command\",\"action\":\"set_force\",\"data\":{\"force\":[NaN,0,0]}}\n"
                .to_vec(),
        ),
        (
            "1e400",
            b"{\"type\":\"command\",\"action\":\"set_force\",\"data\":{\"force\":[1e400,0,0]}}\n"
                .to_vec(),
        ),
        ("100k-deep nesting", deep.into_bytes()),
        (
            "invalid UTF-8",
            b"{\"type\":\"command\",\"action\":\"get_state\",\"x\":\"\xff\xfe\"}\n".to_vec(),
        ),
        ("3 MiB line", [vec![b'x'; 3 << 20], b"\n".to_vec()].concat()),
        (
            "nested batch",
            br#"{"type":"batch","requests":[{"type":"batch","requests":[]}]}"#
                .iter()
                .chain(b"\n")
                .copied()
                .collect(),
        ),
    ];
    for (what, bytes) in cases {
        c.send(&bytes);
        let r = c.recv();
        let code = r["error_code"].as_str().map(str::to_owned).or_else(|| {
            // A batch answers per child.
            r["data"]["responses"][0]["error_code"]
                .as_str()
                .map(str::to_owned)
        });
        assert_eq!(code.as_deref(), Some("invalid_message"), "{what}: {r}");
        assert_eq!(
            c.request(&json!({"type": "command", "action": "get_state"}))["status"],
            "ok",
            "{what}"
        );
    }
    let children: Vec<Value> = (0..65)
        .map(|_| json!({"type": "command", "action": "get_state"}))
        .collect();
    let r = c.request(&json!({"type": "batch", "requests": children}));
    assert_eq!(r["error_code"], "batch_limit");
    // A 50 MiB line is refused without holding it in memory.
    let mut big = server.conn();
    let chunk = vec![b'y'; 1 << 20];
    for _ in 0..50 {
        big.send(&chunk);
    }
    big.send(b"\n");
    assert_eq!(big.recv()["error_code"], "invalid_message");
    server.assert_alive();
}

/// Half lines, resets and 300 connections harm nobody else.
#[test]
fn vanishing_and_crowding_clients() {
    let server = Server::start();
    for _ in 0..20 {
        let mut c = server.conn();
        c.send(b"{\"type\":\"command\",\"action\":\"set_force\",\"data\":{\"force\":[1,");
    }
    for _ in 0..20 {
        let c = TcpStream::connect(&server.addr).unwrap();
        // SO_LINGER 0 would send a reset; closing mid-request is the same
        // for the server: the read fails or ends.
        let _ = (&c).write_all(b"{\"type\":\"command\",\"action\":\"step\"}\n");
        let _ = c.shutdown(std::net::Shutdown::Both);
    }
    let crowd: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    // Past the connection limit (64) each gets one error line, then EOF;
    // the rest wait to be served.
    std::thread::sleep(Duration::from_secs(1));
    let mut refused = 0;
    for s in &crowd {
        s.set_nonblocking(true).unwrap();
        let mut text = Vec::new();
        let _ = (&*s).read_to_end(&mut text);
        let text = String::from_utf8_lossy(&text);
        if text.contains("invalid_message") && text.contains("at most 64 connections") {
            refused += 1;
        }
    }
    assert!(
        (236..=300).contains(&refused),
        "{refused} of 300 refused with a clear error"
    );
    drop(crowd);
    std::thread::sleep(Duration::from_millis(200));
    server.assert_alive();
}

/// Finding 1 and 2: a batch of 64 fine grids is bounded by the line's
/// budget, and clients that send such batches and never read are cut off
/// while the server stays small and keeps serving others.
#[test]
fn grid_batches_and_clients_that_never_read_are_bounded() {
    let server = Server::start();
    let grids: Vec<Value> = (0..64)
        .map(|i| json!({"type": "command", "action": "get_terrain_grid", "request_id": i, "data": {"cell_size": 0.04}}))
        .collect();
    let batch = json!({"type": "batch", "request_id": "grids", "requests": grids});
    let mut c = server.conn();
    c.send(format!("{batch}\n").as_bytes());
    let line = c.line();
    assert!(
        line.len() <= oceansim_sim::budget::REPLY_BYTES + 65_536,
        "{} bytes",
        line.len()
    );
    let r: Value = serde_json::from_str(&line).unwrap();
    let children = r["data"]["responses"].as_array().unwrap();
    assert_eq!(children.len(), 64);
    assert_eq!(children[0]["status"], "ok");
    for ch in &children[1..] {
        assert_eq!(ch["error_code"], "invalid_message");
        assert!(ch["message"].as_str().unwrap().contains("budget"), "{ch}");
    }
    // Four clients send three such batches each and read nothing.
    let hogs: Vec<Conn> = (0..4)
        .map(|_| {
            let mut h = server.conn();
            for _ in 0..3 {
                h.send(format!("{batch}\n").as_bytes());
            }
            h
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    server.assert_alive();
    // Past the 2 s write stall they are dropped: their reads end.
    std::thread::sleep(Duration::from_secs(3));
    for mut h in hogs {
        let mut sink = Vec::new();
        let _ = h.lines.read_to_end(&mut sink);
        assert!(
            sink.len() < 3 * line.len(),
            "a hog received {} bytes",
            sink.len()
        );
    }
    server.assert_alive();
}

/// Finding 3: a pack stays inside the export root, `"."` is refused, and links
/// inside the root are never followed.
#[test]
fn exports_stay_inside_the_root() {
    let server = Server::start();
    let root = server.root.path().join("exports");
    let mut c = server.conn();
    // The root itself is no run directory.
    let r = c.request(&json!({"type": "command", "action": "export_dataset", "data": {"export_dir": ".", "pack_dataset": true}}));
    assert_eq!(r["error_code"], "invalid_message", "{r}");
    let r = c.request(&json!({"type": "command", "action": "export_dataset", "data": {"export_dir": "run", "pack_dataset": true}}));
    assert_eq!(r["status"], "ok", "{r}");
    let packed = std::path::PathBuf::from(r["data"]["packed"]["path"].as_str().unwrap());
    assert!(packed.starts_with(&root), "{}", packed.display());
    let beside: Vec<_> = std::fs::read_dir(server.root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["exports"], "nothing beside the export root");
    #[cfg(unix)]
    {
        let outside = server.root.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        for (action, data) in [
            ("export_dataset", json!({"export_dir": "link/x"})),
            ("save_snapshot_json", json!({"path": "link/y"})),
            (
                "export_dataset",
                json!({"export_dir": "link", "pack_dataset": true}),
            ),
        ] {
            let r = c.request(&json!({"type": "command", "action": action, "data": data}));
            assert_eq!(r["error_code"], "invalid_message", "{action} {data}: {r}");
        }
        assert_eq!(
            std::fs::read_dir(&outside).unwrap().count(),
            0,
            "nothing written through the link"
        );
    }
    server.assert_alive();
}

/// Finding 4: ids come back exactly as sent.
#[test]
fn request_ids_are_exact() {
    let server = Server::start();
    let mut c = server.conn();
    for id in ["18446744073709551617", "1.50", "-0", "1e400", "\"x\""] {
        c.send(
            format!("{{\"type\":\"command\",\"request_id\":{id},\"action\":\"get_map_info\"}}\n")
                .as_bytes(),
        );
        let line = c.line();
        assert!(
            line.contains(&format!("\"request_id\":{id},")),
            "{id}: {}",
            &line[..120.min(line.len())]
        );
    }
    server.assert_alive();
}

/// A bounded soak (the full one is `cargo run --release -p oceansim-server
/// --example soak`): no mismatched id, no unexpected error, and memory
/// back where it was.
#[test]
fn bounded_soak() {
    let server = Server::start();
    // Two rounds warm the allocator, thread pools and caches; then memory at
    // rest (after a reset, which drops the run's recording and agents: what
    // a soak legitimately grows) must not grow over a third.
    let (before, warm_errors) = soak::warm_baseline(&server.addr, server.child.id(), 16, 200);
    assert!(warm_errors.is_empty(), "{warm_errors:?}");
    let report = soak::soak(&server.addr, 16, 200);
    // The bottom of the noise band after (the smaller of two readings)
    // against its top before: a leak lifts the bottom too, noise does not.
    let after = soak::rss_at_rest(&server.addr, server.child.id())
        .min(soak::rss_at_rest(&server.addr, server.child.id()));
    let peak = server.peak_kib();
    eprintln!(
        "soak: {} requests in {:?}, p50 {:?}, p99 {:?}, RSS {before} -> {after} KiB (peak {peak})",
        report.requests,
        report.elapsed,
        report.quantile(0.5),
        report.quantile(0.99)
    );
    assert_eq!(report.mismatched_ids, 0);
    assert!(
        report.unexpected.is_empty(),
        "{:?}",
        &report.unexpected[..report.unexpected.len().min(5)]
    );
    assert!(
        after as f64 <= before as f64 * 1.10,
        "RSS grew from {before} to {after} KiB"
    );
    server.assert_alive();
}
