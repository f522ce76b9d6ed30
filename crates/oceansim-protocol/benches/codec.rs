//! Decode + encode throughput of the protocol codec: a `step` request (the
//! online-training hot path) and a 64-child batch.
//!
//! Target (issue #2): >= 1,000,000 `step` request decodes per second on one
//! core, i.e. <= 1 µs per decode.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oceansim_protocol::{ActionName, Data, Reply, Request, ResponseType};
use serde_json::json;
use std::hint::black_box;

const STEP: &str = r#"{"type":"command","protocol_version":2,"request_id":"r-1024","action":"step","data":{"force":[12.5,100.0,-3.25]}}"#;

fn batch_line() -> String {
    let children: Vec<String> = (0..64)
        .map(|i| format!(r#"{{"type":"command","request_id":{i},"action":"get_state"}}"#))
        .collect();
    format!(
        r#"{{"type":"batch","protocol_version":2,"request_id":"b","requests":[{}]}}"#,
        children.join(",")
    )
}

fn state_data() -> serde_json::Value {
    json!({
        "position": [1.25, -3.5, -6.0], "velocity": [0.1, 1.2, 0.0], "depth": 6.0,
        "speed": 1.204, "heading_deg": 12.5, "sim_time": 10.25,
        "orientation_rpy_deg": [0.1, -0.2, 12.5], "body_velocity": [1.2, 0.0, 0.0, 0.0, 0.0, 0.01],
    })
}

/// A state reply carrying `data`.
fn state(
    id: Option<oceansim_protocol::RequestId>,
    action: ActionName,
    t: f64,
    data: &serde_json::Value,
) -> Reply {
    let data = Data::typed(data.clone());
    Reply::ok(ResponseType::State, id, action, Some(t), data)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("step");
    g.throughput(Throughput::Elements(1));
    g.bench_function("decode", |b| {
        b.iter(|| Request::decode(black_box(STEP)).expect("valid"))
    });
    let data = state_data();
    g.bench_function("decode+encode_state_reply", |b| {
        b.iter(|| {
            let req = Request::decode(black_box(STEP)).expect("valid");
            let reply = req.respond(|r| state(r.request_id, ActionName::Step, 10.25, &data));
            black_box(reply.to_line())
        })
    });
    g.finish();

    let line = batch_line();
    let mut g = c.benchmark_group("batch64");
    g.throughput(Throughput::Elements(64));
    g.bench_with_input(BenchmarkId::new("decode", 64), &line, |b, line| {
        b.iter(|| Request::decode(black_box(line)).expect("valid"))
    });
    g.bench_with_input(BenchmarkId::new("decode+encode", 64), &line, |b, line| {
        b.iter(|| {
            let req = Request::decode(black_box(line)).expect("valid");
            let reply = req.respond(|r| state(r.request_id, ActionName::GetState, 1.0, &data));
            black_box(reply.to_line())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
