//! Side-by-side benchmark of the consensus step u = −k L x, x += dt u on a
//! ring (each edge listed both ways, as ssl_simulator's generator): the
//! engine (the `Consensus` system plus integration), a loop over the
//! edge-list product `Graph::laplacian_times`, and scipy's sparse L @ x
//! (when python3 with scipy is available), printing steps/s and the ratios
//! measured in this one run.
//!
//! ```text
//! cargo run --release -p oceansim-swarm --example consensus_bench
//! cargo run --release -p oceansim-swarm --example consensus_bench -- --sizes 100000 --steps 200
//! ```

use oceansim_ecs::{Engine, World};
use oceansim_math::graphs::{gen_z_ring, Graph};
use oceansim_swarm::{single_integrator, Consensus};
use std::io::Write;
use std::process::Command;
use std::time::Instant;

const K: f64 = 0.5;
const DT: f64 = 0.01;
/// Agent-steps per measurement (best of the repetitions that fit).
const WORK: f64 = 2e7;

struct Args {
    sizes: Vec<usize>,
    steps: u64,
    scipy: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        sizes: vec![1_000, 10_000, 100_000, 1_000_000],
        steps: 200,
        scipy: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--sizes" => {
                let v = it.next().ok_or("--sizes needs a list")?;
                a.sizes = v
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("bad size `{s}`")))
                    .collect::<Result<_, _>>()?;
                if a.sizes.iter().any(|&n| n < 3) {
                    return Err("a ring needs at least 3 agents".into());
                }
            }
            "--steps" => {
                a.steps = it
                    .next()
                    .ok_or("--steps needs a number")?
                    .parse()
                    .map_err(|_| "bad --steps")?
            }
            "--no-scipy" => a.scipy = false,
            "-h" | "--help" => {
                println!("consensus_bench [--sizes 1000,100000,...] [--steps 200] [--no-scipy]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    Ok(a)
}

fn x0(n: usize) -> Vec<f64> {
    (0..2 * n)
        .map(|i| ((i * 7919) % 1000) as f64 * 0.01)
        .collect()
}

fn reps(n: usize, steps: u64) -> u64 {
    ((WORK / (n as f64 * steps as f64)).ceil() as u64).max(5)
}

/// Best seconds for `steps` engine ticks, and the final sum of x.
fn time_engine(n: usize, steps: u64) -> (f64, f64) {
    let mut best = f64::INFINITY;
    let mut sum = f64::NAN;
    for _ in 0..reps(n, steps) {
        let mut world = World::new(n);
        single_integrator(&mut world, "p", "u", &[2], Some(&x0(n)), None).expect("fresh world");
        let graph = Graph::new(n, &gen_z_ring(n)).expect("valid ring");
        world
            .add_system(Consensus::new(graph, K, "p", "u"))
            .expect("fresh world");
        let mut engine = Engine::new(DT);
        engine.run(&mut world, 0).expect("valid world");
        let t = Instant::now();
        engine.run(&mut world, steps).expect("valid world");
        best = best.min(t.elapsed().as_secs_f64());
        sum = world.get::<f64>("p").expect("p").iter().sum();
    }
    (best, sum)
}

/// The same step as a plain loop over `Graph::laplacian_times`.
fn time_edge_list(n: usize, steps: u64) -> f64 {
    let graph = Graph::new(n, &gen_z_ring(n)).expect("valid ring");
    let mut best = f64::INFINITY;
    let mut u = vec![0.0; 2 * n];
    for _ in 0..reps(n, steps) {
        let mut x = x0(n);
        let t = Instant::now();
        for _ in 0..steps {
            graph.laplacian_times(&x, 2, &mut u);
            for (xi, ui) in x.iter_mut().zip(&u) {
                *xi += DT * (-K * ui);
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&x);
    }
    best
}

/// scipy's (product, step) seconds and version.
fn time_scipy(n: usize, steps: u64) -> Option<(f64, f64, String)> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/consensus_scipy.py");
    let out = Command::new("python3")
        .args([
            script,
            &n.to_string(),
            &steps.to_string(),
            &reps(n, steps).min(20).to_string(),
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some((
        v["product_seconds"].as_f64()?,
        v["step_seconds"].as_f64()?,
        v["scipy"].as_str().unwrap_or("?").to_owned(),
    ))
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    println!(
        "consensus on a ring, u = -{K} L x, dt = {DT} s, {} steps per run; times per step",
        args.steps
    );
    println!(
        "{:>9} | {:>11} {:>11} {:>11} {:>11} | {:>10} {:>10} {:>10}",
        "N", "engine", "edge list", "scipy L@x", "scipy step", "vs L@x", "vs step", "vs edges"
    );
    println!("{}", "-".repeat(102));
    let mut version = None;
    for &n in &args.sizes {
        let per = |s: f64| s / args.steps as f64;
        let (te, sum) = time_engine(n, args.steps);
        let tl = time_edge_list(n, args.steps);
        let sc = if args.scipy {
            time_scipy(n, args.steps)
        } else {
            None
        };
        let us = |s: f64| format!("{:>9.1}us", per(s) * 1e6);
        let (cols, ratios) = match &sc {
            Some((tp, ts, v)) => {
                version = Some(v.clone());
                (
                    format!("{} {}", us(*tp), us(*ts)),
                    format!("{:>9.1}x {:>9.1}x", tp / te, ts / te),
                )
            }
            None => (
                format!("{:>11} {:>11}", "n/a", "n/a"),
                format!("{:>10} {:>10}", "n/a", "n/a"),
            ),
        };
        println!(
            "{n:>9} | {} {} {cols} | {ratios} {:>9.1}x",
            us(te),
            us(tl),
            tl / te
        );
        // Sum of x is preserved by consensus (1ᵀL = 0).
        let want: f64 = x0(n).iter().sum();
        if (sum - want).abs() > 1e-9 * want.abs() {
            println!("          (sum of x drifted: {sum} vs {want})");
        }
        let _ = std::io::stdout().flush();
    }
    match version {
        Some(v) => println!("scipy {v}: best of up to 20 runs; ratios are scipy time / engine time (higher: engine faster)"),
        None => println!("scipy columns: python3 with scipy not found (pip install numpy scipy to include them)"),
    }
}
