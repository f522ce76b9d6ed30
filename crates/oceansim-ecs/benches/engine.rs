//! Criterion bench of one engine tick of the unicycle workload against the
//! hand-written loop (see `examples/unicycle_bench.rs` for the full table
//! with numpy).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oceansim_ecs::Engine;

#[path = "support/unicycle.rs"]
mod workload;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("unicycle_tick");
    for n in [10usize, 10_000, 100_000] {
        g.throughput(Throughput::Elements(n as u64));
        let mut world = workload::engine_world(n);
        let mut engine = Engine::new(workload::DT);
        engine.run(&mut world, 1).expect("valid world");
        g.bench_with_input(BenchmarkId::new("engine", n), &n, |b, _| {
            b.iter(|| engine.run(&mut world, 1).expect("valid world"))
        });
        let mut hand = workload::HandLoop::new(n);
        g.bench_with_input(BenchmarkId::new("hand_loop", n), &n, |b, _| {
            b.iter(|| hand.run(1))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
