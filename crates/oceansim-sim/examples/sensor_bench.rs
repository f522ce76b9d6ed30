//! What each sensor family costs, and how fast rays are cast, on the
//! default scenario (Static_Map, seed 0) with the default vehicle's mounts:
//! the AUV at its start pose, every family sampled back to back.
//!
//! ```sh
//! cargo run --release -p oceansim-sim --example sensor_bench            # 0.5 s per measurement
//! cargo run --release -p oceansim-sim --example sensor_bench -- 2.0     # longer
//! ```
//!
//! Per family: µs per sample, its rate, and its share of one second of
//! simulated time (µs per sample × rate): what the family costs a run at
//! one times real time, so 10,000 µs/s is 1 % of a core. Cameras and
//! sonars render on demand: a run pays for them while a client asks for
//! them or while a recording keeps sensor data (the default; see the
//! server's `record_bench`), so the totals are given without and with them. Then ray casts per
//! second against the same scene from the same pose, in random downward
//! and horizontal directions to 60 m, on one core.

use nalgebra::{Rotation3, Vector3, Vector6};
use oceansim_sim::frames::{Godot, User};
use oceansim_sim::{load_scenario, SampleCtx, Scene, SceneView, Sensor, SensorFamily};
use oceansim_vehicles::{VehicleProfile, VehicleState};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(0.5);
    let loaded = Arc::new(load_scenario("Static_Map").expect("the default scenario loads"));
    let start = User::from(Godot(loaded.main_agent().location));
    let scene = Scene::new(loaded.clone(), 0, start);
    let profile =
        VehicleProfile::builtin("oceansim_torpedo_auv").expect("the default profile loads");
    let ned = Vector3::new(start.0[1], start.0[0], -start.0[2]);
    let state = VehicleState::at_rest(ned, 0.0, 0.0, 0.0);
    let ctx = SampleCtx {
        time: 0.0,
        wall_time: 0.0,
        state: &state,
        nu_dot: Vector6::zeros(),
        water_density: 1025.0,
        scene: SceneView {
            terrain: &scene.terrain,
            obstacles: &scene.obstacles,
            bodies: &[],
        },
        mount: (&Vector3::zeros(), &Rotation3::identity()),
    };
    println!(
        "sensor cost on {} (seed 0), {} at its start pose, {secs} s per family",
        loaded.scenario.id, profile.name
    );
    println!(
        "{:<18} {:>12} {:>8} {:>16} {:>10}",
        "family", "us/sample", "Hz", "us per sim-s", "% core"
    );
    println!("{}", "-".repeat(68));
    // Always-on families, and on-demand ones (cameras, sonars) that cost
    // only while consumed.
    let (mut total, mut demanded) = (0.0, 0.0);
    for mount in &profile.sensors {
        let Some(family) = SensorFamily::parse(&mount.sensor_type) else {
            continue;
        };
        let mut sensor = Sensor::new("auv/main", &mount.name, family, Some(mount), 7);
        let mut t = 0.0;
        let started = Instant::now();
        let mut n = 0u64;
        while started.elapsed().as_secs_f64() < secs {
            t += 0.01;
            sensor.sample(&SampleCtx { time: t, ..ctx });
            n += 1;
        }
        let us = started.elapsed().as_secs_f64() * 1e6 / n as f64;
        let rate = sensor.rate_hz();
        let on_demand = sensor.on_demand();
        if on_demand {
            demanded += us * rate;
        } else {
            total += us * rate;
        }
        println!(
            "{:<18} {us:>12.1} {rate:>8.0} {:>16.0} {:>9.2}%{}",
            mount.name,
            us * rate,
            us * rate / 1e4,
            if on_demand { "  (on demand)" } else { "" }
        );
    }
    println!("{}", "-".repeat(68));
    for (label, cost) in [("always on", total), ("all consumed", total + demanded)] {
        println!(
            "{label:<18} {:>12} {:>8} {cost:>16.0} {:>9.2}%",
            "",
            "",
            cost / 1e4
        );
    }

    // Ray casts: a fixed set of 4,096 directions (a seeded spiral over the
    // lower hemisphere and the horizontal band), cast over and over.
    let o = Vector3::from(start.0);
    let dirs: Vec<Vector3<f64>> = (0..4096)
        .map(|i| {
            let f = (i as f64 + 0.5) / 4096.0;
            let z = -f; // 0 (horizontal) to -1 (straight down)
            let az = i as f64 * 2.399_963; // golden angle
            let r = (1.0 - z * z).sqrt();
            Vector3::new(r * az.cos(), r * az.sin(), z)
        })
        .collect();
    let view = ctx.scene;
    let near = view.candidates(&o, 60.0);
    let started = Instant::now();
    let mut casts = 0u64;
    let mut hits = 0u64;
    while started.elapsed().as_secs_f64() < secs {
        for d in &dirs {
            let (t, h) = view.raycast_among(&o, d, 60.0, &near);
            hits += u64::from(h != oceansim_sim::Hit::None);
            black_box(t);
        }
        casts += dirs.len() as u64;
    }
    let per_s = casts as f64 / started.elapsed().as_secs_f64();
    println!(
        "ray casts: {:.2} million/s on one core ({:.0} % hit within 60 m; {} obstacles in the scene; target >= 5 million/s)",
        per_s / 1e6,
        100.0 * hits as f64 / casts as f64,
        scene.obstacles.len()
    );
}
