//! Side-by-side benchmark of the ECS engine on N unicycles: the engine
//! (its systems use the batched `kernels::polar`), a hand-written loop over
//! plain vectors calling `f64::sin_cos`, and numpy (when python3 with numpy
//! is available), for 1000 steps at each N, printing agent-steps/s and the
//! ratios measured in this one run.
//!
//! ```text
//! cargo run --release -p oceansim-ecs --example unicycle_bench
//! cargo run --release -p oceansim-ecs --example unicycle_bench -- --sizes 10,100000 --steps 500
//! ```

#[path = "../benches/support/unicycle.rs"]
mod workload;

use oceansim_ecs::Engine;
use std::io::Write;
use std::process::Command;
use std::time::Instant;

/// Total agent-steps per measurement, so small N repeat enough to time.
const WORK: f64 = 5e6;

struct Args {
    sizes: Vec<usize>,
    steps: u64,
    numpy: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        sizes: vec![10, 100, 10_000, 100_000, 1_000_000],
        steps: 1000,
        numpy: true,
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
            }
            "--steps" => {
                a.steps = it
                    .next()
                    .ok_or("--steps needs a number")?
                    .parse()
                    .map_err(|_| "bad --steps")?
            }
            "--no-numpy" => a.numpy = false,
            "-h" | "--help" => {
                println!("unicycle_bench [--sizes 10,100,...] [--steps 1000] [--no-numpy]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    Ok(a)
}

/// Repetitions (best of) per measurement: enough for `WORK` agent-steps,
/// and at least 3 while a run is short enough (≤ 1e8 agent-steps) that one
/// scheduling hiccup could decide it.
fn reps(n: usize, steps: u64) -> u64 {
    let work = n as f64 * steps as f64;
    let floor = if work <= 1e8 { 3 } else { 1 };
    ((WORK / work).ceil() as u64).max(floor)
}

/// Best-of-`reps` seconds for `steps` engine ticks, and the checksum.
fn time_engine(n: usize, steps: u64) -> (f64, f64) {
    let mut world = workload::engine_world(n);
    let mut engine = Engine::new(workload::DT);
    engine.run(&mut world, 0).expect("valid world");
    let mut best = f64::INFINITY;
    let mut first_checksum = None;
    for _ in 0..reps(n, steps) {
        let t = Instant::now();
        engine.run(&mut world, steps).expect("valid world");
        best = best.min(t.elapsed().as_secs_f64());
        first_checksum.get_or_insert_with(|| {
            workload::checksum(
                &world.get::<f64>("p").expect("p"),
                &world.get::<f64>("theta").expect("theta"),
            )
        });
    }
    (best, first_checksum.unwrap_or(f64::NAN))
}

fn time_hand(n: usize, steps: u64) -> (f64, f64) {
    let mut h = workload::HandLoop::new(n);
    let mut best = f64::INFINITY;
    let mut first = None;
    for _ in 0..reps(n, steps) {
        let t = Instant::now();
        h.run(steps);
        best = best.min(t.elapsed().as_secs_f64());
        first.get_or_insert_with(|| workload::checksum(&h.p, &h.theta));
    }
    (best, first.unwrap_or(f64::NAN))
}

fn time_numpy(n: usize, steps: u64) -> Option<(f64, String)> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/unicycle_numpy.py");
    let out = Command::new("python3")
        .args([
            script,
            &n.to_string(),
            &steps.to_string(),
            &reps(n, steps).min(50).to_string(),
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some((
        v["best_seconds"].as_f64()?,
        v["numpy"].as_str().unwrap_or("?").to_owned(),
    ))
}

fn rate(n: usize, steps: u64, secs: f64) -> f64 {
    n as f64 * steps as f64 / secs
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let threads = if oceansim_ecs::par::is_parallel(usize::MAX) {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        1
    };
    println!("unicycle workload, {} steps per run, dt = {} s; engine uses up to {threads} thread(s) from N >= {}", args.steps, workload::DT, oceansim_ecs::par::PAR_THRESHOLD);
    println!(
        "{:>9} | {:>14} {:>14} {:>14} | {:>12} {:>12}",
        "N", "engine/s", "hand loop/s", "numpy/s", "eng/numpy", "eng/hand"
    );
    println!("{}", "-".repeat(88));
    let mut numpy_version = None;
    for &n in &args.sizes {
        let (te, ce) = time_engine(n, args.steps);
        let (th, ch) = time_hand(n, args.steps);
        let numpy = if args.numpy {
            time_numpy(n, args.steps)
        } else {
            None
        };
        let (re, rh) = (rate(n, args.steps, te), rate(n, args.steps, th));
        let (rn, ratio_n) = match &numpy {
            Some((tn, v)) => {
                numpy_version = Some(v.clone());
                let rn = rate(n, args.steps, *tn);
                (format!("{rn:>14.3e}"), format!("{:>11.1}x", re / rn))
            }
            None => (format!("{:>14}", "n/a"), format!("{:>12}", "n/a")),
        };
        println!(
            "{n:>9} | {re:>14.3e} {rh:>14.3e} {rn} | {ratio_n} {:>11.2}x",
            re / rh
        );
        if (ce - ch).abs() > 1e-9 * ce.abs().max(1.0) {
            println!("          (checksums differ: engine {ce}, hand loop {ch})");
        }
        let _ = std::io::stdout().flush();
    }
    match numpy_version {
        Some(v) => println!("numpy {v}: best of up to 50 runs per N; engine and hand loop best of {} agent-steps of work (at least 3 runs up to N·steps = 1e8)", WORK),
        None => println!("numpy column: python3 with numpy not found (pip install numpy to include it)"),
    }
}
