//! What one physics tick costs (`Simulation::tick`), with the contacts it
//! resolves: the default scenario alone, then with 64 proxies moving
//! slowly (the common case: millimetres per tick, resolved at the tick's
//! end), then with 64 small proxies at the 20 m/s limit and the 0.1 s tick
//! (2 m per tick, so every one of them is swept across its tick).
//!
//! ```sh
//! cargo run --release -p oceansim-sim --example tick_bench            # 1 s per case
//! cargo run --release -p oceansim-sim --example tick_bench -- 3.0     # longer
//! cargo run --release -p oceansim-sim --example tick_bench -- 3.0 2   # the third case only
//! cargo run --release -p oceansim-sim --example tick_bench -- n=2000 2 # 2,000 ticks, for `perf stat`
//! ```
//!
//! On a busy machine wall time is noisy; counting instructions over a
//! fixed number of ticks (`perf stat -e instructions:u`, minus a run of
//! `n=0`) is not.

use oceansim_protocol::Request;
use oceansim_sim::{SimConfig, Simulation};
use serde_json::{json, Value};
use std::time::Instant;

/// Sends a command; says whether it succeeded.
fn call(s: &mut Simulation, action: &str, data: Value) -> bool {
    let line = json!({"type": "command", "action": action, "data": data}).to_string();
    let Ok(Request::Single(r)) = Request::decode(&line) else {
        panic!("{line} decodes");
    };
    s.handle(r).to_value()["success"] == true
}

/// Static_Map at `tick_s`, with `n` proxies of radius `size_m` on a
/// lattice north of the AUV (spots inside a rock are skipped), each driven
/// at `speed` m/s in its own direction.
fn world(tick_s: f64, n: usize, size_m: f64, speed: f64) -> Simulation {
    let mut s = Simulation::new(SimConfig {
        scenario: "Static_Map".into(),
        tick_s,
        step_period_s: 0.1,
        paused: true,
        // The request path (or tick) is measured, not imaging renders for
        // a recording (record_bench measures those).
        record_sensor_data: false,
        deterministic: true,
        export_root: std::env::temp_dir().join("oceansim-tick-bench"),
        ..SimConfig::default()
    })
    .expect("Static_Map loads");
    let (mut k, mut spot) = (0, 0);
    while k < n {
        // Godot: X east, Y up, Z south; 8 columns 2 m apart, 5 m deep.
        let (x, z) = (
            -8.0 + 2.0 * (spot % 8) as f64,
            -4.0 - 2.0 * (spot / 8) as f64,
        );
        spot += 1;
        let id = format!("p{k}");
        let at = json!({"agent_name": id, "location": [x, -5.0, z], "size_m": size_m});
        if !call(&mut s, "spawn_agent", at) {
            continue;
        }
        let a = 2.399_963 * k as f64;
        let v = [speed * a.cos(), -0.2 * speed, speed * a.sin()];
        assert!(call(
            &mut s,
            "set_agent_velocity",
            json!({"id": id, "velocity": v})
        ));
        k += 1;
    }
    s
}

fn main() {
    let first = std::env::args().nth(1).unwrap_or_default();
    let fixed: Option<u64> = first.strip_prefix("n=").and_then(|n| n.parse().ok());
    let secs: f64 = first.parse().unwrap_or(1.0);
    let only: Option<usize> = std::env::args().nth(2).and_then(|a| a.parse().ok());
    println!("Simulation::tick on Static_Map, {secs} s per case");
    println!("{:<44} {:>10} {:>12}", "case", "ticks", "us/tick");
    println!("{}", "-".repeat(68));
    let cases = [
        ("AUV alone, tick 0.01 s", 0.01, 0, 0.5, 0.0),
        (
            "AUV + 64 proxies 0.5 m at 1 m/s, tick 0.01 s",
            0.01,
            64,
            0.5,
            1.0,
        ),
        (
            "AUV + 64 proxies 0.05 m at 20 m/s, tick 0.1 s",
            0.1,
            64,
            0.05,
            20.0,
        ),
    ];
    for (k, &(name, tick, n, size, speed)) in cases.iter().enumerate() {
        if only.is_some_and(|o| o != k) {
            continue;
        }
        let mut s = world(tick, n, size, speed);
        s.tick(100);
        let (started, mut ticks) = (Instant::now(), 0u64);
        if let Some(n) = fixed {
            s.tick(n);
            ticks = n.max(1);
        }
        while fixed.is_none() && started.elapsed().as_secs_f64() < secs {
            s.tick(100);
            ticks += 100;
        }
        let us = started.elapsed().as_secs_f64() * 1e6 / ticks as f64;
        println!("{name:<44} {ticks:>10} {us:>12.2}");
    }
}
