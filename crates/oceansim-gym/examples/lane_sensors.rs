//! What each lane sensor costs per control period (0.1 s, ten ticks):
//! 1,024 lanes of the batched simulator on one thread, each sensor alone
//! and all together, against the sensorless lanes side by side (five
//! interleaved rounds, medians), then the environments' own steps:
//! `cargo run --release -p oceansim-gym --example lane_sensors`.

use oceansim_agents::ControlScheme;
use oceansim_sim::batch::{Batch, BatchSpec, LaneSensorSpec};
use oceansim_sim::SensorFamily as F;
use std::time::Instant;

fn rate(sensors: Vec<LaneSensorSpec>, pool: &rayon::ThreadPool) -> f64 {
    let spec = BatchSpec {
        sensors,
        ..BatchSpec::default()
    };
    let mut batch = Batch::new(&spec, 1024).expect("default scenario");
    let (shared, lanes) = batch.split_mut();
    for (i, l) in lanes.iter_mut().enumerate() {
        let a = [(i % 7) as f64 - 3.0, 6.0, (i % 3) as f64 - 1.0];
        l.set_action(shared, ControlScheme::BodyForce3d, &a)
            .expect("valid action");
    }
    batch.step_all(Some(pool));
    let (steps, t) = (20, Instant::now());
    for _ in 0..steps {
        batch.step_all(Some(pool));
    }
    (steps * 1024) as f64 / t.elapsed().as_secs_f64()
}

/// Env-steps per second of `task` (1,024 lanes, one thread).
fn env_rate(cfg: &oceansim_gym::EnvConfig) -> f64 {
    let mut env = oceansim_gym::VecEnv::new(cfg, 1024, 1).expect("default task");
    env.reset(Some(0)).expect("reset");
    let a = env.action_len();
    let (lo, hi) = env.task().action_bounds();
    let actions: Vec<f64> = (0..1024 * a)
        .map(|i| lo[i % a] + (hi[i % a] - lo[i % a]) * ((i * 37 % 17) as f64 / 16.0))
        .collect();
    env.step(&actions).expect("step");
    let (steps, t) = (20, Instant::now());
    for _ in 0..steps {
        env.step(&actions).expect("step");
    }
    (steps * 1024) as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("one thread");
    let sonar =
        || LaneSensorSpec::sonar(F::ImagingSonar, Some(64), Some(32), Some(15.0)).rotated([0.0; 3]);
    let rows: Vec<(&str, Vec<LaneSensorSpec>)> = vec![
        ("none", vec![]),
        ("depth", vec![LaneSensorSpec::new(F::Depth)]),
        ("imu", vec![LaneSensorSpec::new(F::Imu)]),
        ("dvl", vec![LaneSensorSpec::new(F::Dvl)]),
        (
            "depth+imu+dvl",
            [F::Depth, F::Imu, F::Dvl].map(LaneSensorSpec::new).to_vec(),
        ),
        ("imaging sonar 64x32", vec![sonar()]),
    ];
    // Rounds interleaved, so that a slow moment of the machine is every
    // row's; the median of each row.
    let mut runs: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    for _ in 0..5 {
        for (k, (_, s)) in rows.iter().enumerate() {
            runs[k].push(rate(s.clone(), &pool));
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let rates: Vec<f64> = runs.iter_mut().map(median).collect();
    println!(
        "{:<22} {:>14} {:>20}",
        "lane sensors", "periods/s", "µs per period added"
    );
    for ((name, _), r) in rows.iter().zip(&rates) {
        println!("{name:<22} {r:>14.0} {:>20.2}", 1e6 / r - 1e6 / rates[0]);
    }
    use oceansim_gym::{EnvConfig, TaskKind};
    let mut tf_depth = EnvConfig::new(TaskKind::TerrainFollow);
    tf_depth.extra_sensors.push(LaneSensorSpec::new(F::Depth));
    let envs = [
        ("WaypointNav", EnvConfig::new(TaskKind::WaypointNav)),
        ("TerrainFollow", EnvConfig::new(TaskKind::TerrainFollow)),
        ("TerrainFollow+depth", tf_depth),
        ("SonarAvoid", EnvConfig::new(TaskKind::SonarAvoid)),
        ("Remus100Heading", EnvConfig::new(TaskKind::Remus100Heading)),
    ];
    println!(
        "{:<22} {:>14} {:>16}",
        "environment", "env-steps/s", "µs per step"
    );
    for (name, cfg) in envs {
        let r = env_rate(&cfg);
        println!("{name:<22} {r:>14.0} {:>16.2}", 1e6 / r);
    }
}
