//! One consensus tick (u = −k L x, then integration) for 10,000 agents on a
//! ring graph, using the sparse edge-list product, never the dense L.
//!
//! ```text
//! cargo bench -p oceansim-swarm --bench consensus
//! ```

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use oceansim_ecs::{Engine, World};
use oceansim_math::graphs::{gen_z_ring, Graph};
use oceansim_swarm::{single_integrator, Consensus};

fn bench(c: &mut Criterion) {
    let n = 10_000;
    let x0: Vec<f64> = (0..2 * n)
        .map(|i| ((i * 7919) % 1000) as f64 * 0.01)
        .collect();
    let mut world = World::new(n);
    single_integrator(&mut world, "p", "u", &[2], Some(&x0), None).expect("fresh world");
    let graph = Graph::new(n, &gen_z_ring(n)).expect("valid ring");
    world
        .add_system(Consensus::new(graph, 0.5, "p", "u"))
        .expect("fresh world");
    let mut engine = Engine::new(0.01);
    engine.run(&mut world, 1).expect("valid world");
    let mut g = c.benchmark_group("consensus_ring");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("tick_10000_agents", |b| {
        b.iter(|| engine.run(&mut world, 1).expect("valid world"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
