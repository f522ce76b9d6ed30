//! AUV-steps per second of the vectorised Fossen fleet (RK4, no sensors,
//! no controllers: the dynamics system alone, constant wrench), for
//! several fleet sizes on one thread and on every core, beside the
//! vehicles crate's bare RK4 step in a plain loop (the baseline), run side
//! by side in this one process.
//!
//! ```text
//! cargo run --release -p oceansim-swarm --example fleet_bench
//! cargo run --release -p oceansim-swarm --example fleet_bench -- --sizes 1,100,10000 --steps 200
//! ```

use nalgebra::{Vector3, Vector6};
use oceansim_ecs::{Engine, World};
use oceansim_swarm::fleet::{fossen_fleet, names, FleetModels};
use oceansim_vehicles::{VehicleModel, VehicleProfile, VehicleState};
use std::time::Instant;

const DT: f64 = 0.01;
/// AUV-steps per measurement (best of the repetitions).
const WORK: f64 = 2e6;

fn profiles() -> Vec<VehicleProfile> {
    ["oceansim_torpedo_auv", "bluerov2_heavy"]
        .iter()
        .map(|n| VehicleProfile::builtin(n).expect("built-in"))
        .collect()
}

fn reps(n: usize, steps: u64) -> u64 {
    ((WORK / (n as f64 * steps as f64)).ceil() as u64).clamp(3, 200)
}

/// Seconds per tick of one fleet run on `pool`.
fn fleet_once(n: usize, steps: u64, pool: &rayon::ThreadPool) -> f64 {
    pool.install(|| {
        let mut w = World::new(n);
        let p: Vec<f64> = (0..n).flat_map(|i| [i as f64, 0.0, 10.0]).collect();
        let sys = fossen_fleet(
            &mut w,
            FleetModels::cycle(&profiles(), n),
            &p,
            &vec![0.0; n],
        )
        .expect("fresh world");
        w.add_system(sys).expect("fresh world");
        let tau: Vec<f64> = (0..n)
            .flat_map(|_| [20.0, 0.0, 5.0, 0.0, 0.0, 0.5])
            .collect();
        w.set(names::TAU, &tau).expect("tau");
        let mut e = Engine::new(DT);
        e.run(&mut w, 1).expect("valid world");
        let t = Instant::now();
        e.run(&mut w, steps).expect("valid world");
        t.elapsed().as_secs_f64() / steps as f64
    })
}

/// Seconds per tick of one plain loop of `VehicleModel::rk4_step`.
fn bare_once(n: usize, steps: u64, models: &[VehicleModel]) -> f64 {
    let tau = Vector6::new(20.0, 0.0, 5.0, 0.0, 0.0, 0.5);
    let mut s: Vec<VehicleState> = (0..n)
        .map(|i| VehicleState::at_rest(Vector3::new(i as f64, 0.0, 10.0), 0.0, 0.0, 0.0))
        .collect();
    let t = Instant::now();
    for _ in 0..steps {
        for (i, s) in s.iter_mut().enumerate() {
            *s = models[i % models.len()].rk4_step(s, &tau, &Vector3::zeros(), DT);
        }
    }
    let secs = t.elapsed().as_secs_f64() / steps as f64;
    std::hint::black_box(&s);
    secs
}

/// Best seconds per tick of (bare loop, fleet on 1 thread, fleet on
/// `cores`), the three run in turn in every repetition so they share the
/// machine's moods.
fn time_all(n: usize, steps: u64, cores: usize) -> (f64, f64, f64) {
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .expect("thread pool")
    };
    let (one, all) = (pool(1), pool(cores));
    let models: Vec<VehicleModel> = profiles().iter().map(VehicleModel::from_profile).collect();
    let mut best = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..reps(n, steps) {
        best.0 = best.0.min(bare_once(n, steps, &models));
        best.1 = best.1.min(fleet_once(n, steps, &one));
        best.2 = best.2.min(fleet_once(n, steps, &all));
    }
    best
}

fn main() {
    let mut sizes = vec![1usize, 100, 10_000];
    let mut steps = 200u64;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sizes" => {
                sizes = it
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|s| s.trim().parse().ok())
                    .filter(|&n| n > 0)
                    .collect()
            }
            "--steps" => {
                steps = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(steps)
                    .max(1)
            }
            "-h" | "--help" => {
                println!("fleet_bench [--sizes 1,100,10000] [--steps 200]");
                return;
            }
            other => {
                eprintln!("unknown argument `{other}` (try --help)");
                std::process::exit(2);
            }
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "Fossen fleet (torpedo + BlueROV2 alternating), RK4 at dt = {DT} s, {steps} steps per run"
    );
    println!(
        "{:>7} | {:>14} {:>14} {:>14} | {:>8} {:>9} | {:>12}",
        "N",
        "bare RK4 /s",
        "1 thread /s",
        format!("{cores} threads /s"),
        "1t/bare",
        "speed-up",
        "x real time"
    );
    println!("{}", "-".repeat(96));
    for &n in &sizes {
        let (bare, one, all) = time_all(n, steps, cores);
        let rate = |t: f64| n as f64 / t;
        println!(
            "{n:>7} | {:>14.3e} {:>14.3e} {:>14.3e} | {:>7.2}x {:>8.2}x | {:>11.0}x",
            rate(bare),
            rate(one),
            rate(all),
            bare / one,
            one / all,
            DT / all.min(one)
        );
    }
    println!("AUV-steps/s = N / (seconds per tick); 1t/bare = the fleet system on one thread vs a plain rk4_step loop (1.00x = same speed); x real time = dt / tick time, best of the two thread counts");
}
