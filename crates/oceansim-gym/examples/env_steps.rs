//! Environment steps per second of the vector environment in Rust, for
//! K = 1, 64 and 1024 lanes on 1 and 2 threads (WaypointNav, body_force_3d,
//! dt = 0.1 s, no sensors): `cargo run --release -p oceansim-gym --example env_steps`.
//! The Python binding's overhead is measured by `python/bench/env_steps.py`.

use oceansim_gym::{EnvConfig, TaskKind, VecEnv};
use std::time::Instant;

fn main() {
    println!("{:>6} {:>8} {:>14}", "K", "threads", "env-steps/s");
    for k in [1usize, 64, 1024] {
        for threads in [1usize, 2] {
            let mut env = VecEnv::new(&EnvConfig::new(TaskKind::WaypointNav), k, threads)
                .expect("default environment");
            env.reset(Some(0)).expect("default environment");
            let a = env.action_len();
            let actions: Vec<f64> = (0..k * a)
                .map(|i| ((i * 37 % 17) as f64 - 8.0) * 10.0)
                .collect();
            let steps = (200_000 / k).max(20);
            let t = Instant::now();
            for _ in 0..steps {
                env.step(&actions).expect("valid actions");
            }
            let rate = (steps * k) as f64 / t.elapsed().as_secs_f64();
            println!("{k:>6} {threads:>8} {rate:>14.0}");
        }
    }
}
