//! Soak: C clients × R mixed requests (steps, states, grids, spawns and
//! removals, acoustic messages, exports, batches) against one server,
//! repeated for a few rounds. Prints mismatched ids, unexpected errors,
//! p50/p99 latency and the resident memory at rest after each round.
//!
//! ```text
//! cargo run --release -p oceansim-server --example soak
//! cargo run --release -p oceansim-server --example soak -- --clients 64 --requests 2000 --rounds 3
//! ```
//!
//! The server runs in this process on its own thread (paused, exports in a
//! temporary directory), so the memory printed is the server's plus the
//! clients' small buffers. Exits non-zero if any id mismatched, any
//! request failed, or memory at rest grew more than 10 % over the warm-up.

#[path = "../tests/it/support/soak.rs"]
mod soak;

// The allocator the `oceansim` binary serves with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use oceansim_server::{disable_transparent_huge_pages, run_blocking, ServerConfig};
use oceansim_sim::{SimConfig, Simulation};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} takes a number"))
        })
        .unwrap_or(default)
}

fn main() {
    if std::env::args().any(|a| a == "-h" || a == "--help") {
        println!("soak [--clients 64] [--requests 2000] [--rounds 3]");
        return;
    }
    // mimalloc reads its options once, at start: run again with freed pages
    // handed back at once, so memory at rest is what the server holds.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        let status = std::process::Command::new(std::env::current_exe().expect("own path"))
            .args(std::env::args_os().skip(1))
            .env("MIMALLOC_PURGE_DELAY", "0")
            .status()
            .expect("re-run the soak");
        std::process::exit(status.code().unwrap_or(1));
    }
    disable_transparent_huge_pages();
    let (clients, requests, rounds) = (
        arg("--clients", 64),
        arg("--requests", 2000),
        arg("--rounds", 3),
    );
    let dir = tempfile::tempdir().expect("temporary export root");
    let config = SimConfig {
        paused: true,
        // The request path (or tick) is measured, not imaging renders for
        // a recording (record_bench measures those).
        record_sensor_data: false,
        export_root: dir.path().to_owned(),
        ..SimConfig::default()
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("address").to_string();
    std::thread::spawn(move || {
        let sim = Simulation::new(config).expect("default scenario loads");
        run_blocking(
            listener,
            sim,
            ServerConfig::default(),
            std::future::pending::<()>(),
        )
    });
    let pid = std::process::id();
    let (before, warm_errors) = soak::warm_baseline(&addr, pid, clients, requests);
    println!("{clients} clients x {requests} requests, {rounds} rounds after two warm-up rounds; at rest after warm-up: {} MiB", before / 1024);
    let mut failed = !warm_errors.is_empty();
    for round in 1..=rounds {
        let r = soak::soak(&addr, clients, requests);
        let rest = soak::rss_at_rest(&addr, pid);
        let peak = soak::rss_kib(pid).map_or(0, |(_, p)| p);
        println!(
            "round {round}: {} requests in {:.1} s ({:.0}/s), mismatched ids {}, unexpected errors {}, p50 {:.2} ms, p99 {:.2} ms, at rest {} MiB ({:+.1} %), peak {} MiB",
            r.requests,
            r.elapsed.as_secs_f64(),
            r.requests as f64 / r.elapsed.as_secs_f64(),
            r.mismatched_ids,
            r.unexpected.len(),
            r.quantile(0.5).as_secs_f64() * 1e3,
            r.quantile(0.99).as_secs_f64() * 1e3,
            rest / 1024,
            (rest as f64 / before as f64 - 1.0) * 100.0,
            peak / 1024
        );
        for u in r.unexpected.iter().take(5) {
            println!("  {u}");
        }
        let grew = rest as f64 > before as f64 * 1.10;
        if grew {
            println!("  resident memory at rest grew more than 10 %");
        }
        failed |= r.mismatched_ids > 0 || !r.unexpected.is_empty() || grew;
    }
    if failed {
        std::process::exit(1);
    }
}
