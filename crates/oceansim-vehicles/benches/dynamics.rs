//! Cost of the dynamics: for the default profile (`oceansim_torpedo_auv`)
//! the state derivative, one RK4 step, one RK4 step with the actuator
//! model in front of it, and one whole vehicle step (`Vehicle::step`,
//! thrusters driven); for Fossen's REMUS 100 the vehicle step under fins
//! (propeller and fins evaluated at every RK4 stage, and under Fossen's
//! integrator) and his reference `dynamics`.
//!
//! Target (issue #4): an RK4 step under 2 µs (>= 500,000 steps/s on one
//! core; 5,000x real time at dt = 0.01 s).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nalgebra::{Vector3, Vector6};
use oceansim_vehicles::remus100::Remus100;
use oceansim_vehicles::{
    Drive, Integrator, ThrusterBank, Vehicle, VehicleModel, VehicleProfile, VehicleState,
};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let profile = VehicleProfile::default_profile();
    let model = VehicleModel::from_profile(&profile);
    let mut bank = ThrusterBank::from_profile(&profile);
    bank.set_commands(&[0.8, 0.7, 0.1, -0.1, 0.05, 0.0])
        .expect("6 commands");
    let state = VehicleState {
        nu: Vector6::new(1.2, 0.05, -0.02, 0.01, 0.02, -0.03),
        ..VehicleState::at_rest(Vector3::new(3.0, -2.0, 10.0), 0.05, -0.1, 1.0)
    };
    let tau = Vector6::new(12.0, 0.5, -1.0, 0.0, 0.3, -0.2);
    let current = Vector3::new(0.1, 0.2, 0.0);

    let mut g = c.benchmark_group("torpedo");
    g.throughput(Throughput::Elements(1));
    g.bench_function("derivative", |b| {
        b.iter(|| model.derivative(black_box(&state), black_box(&tau), black_box(&current)))
    });
    g.bench_function("rk4_step", |b| {
        b.iter(|| {
            model.rk4_step(
                black_box(&state),
                black_box(&tau),
                black_box(&current),
                0.01,
            )
        })
    });
    g.bench_function("actuators+rk4_step", |b| {
        b.iter(|| {
            let tau = bank.step(0.01);
            model.rk4_step(black_box(&state), &tau, black_box(&current), 0.01)
        })
    });
    let vehicle = Vehicle::from_profile(&profile);
    let mut act = vehicle.actuators();
    let commands = [0.8, 0.7, 0.1, -0.1, 0.05, 0.0];
    g.bench_function("vehicle_step", |b| {
        b.iter(|| {
            vehicle.step(
                black_box(&state),
                &mut act,
                Drive::Thrusters(&commands),
                black_box(&current),
                0.01,
            )
        })
    });
    g.finish();

    let mut g = c.benchmark_group("remus100");
    g.throughput(Throughput::Elements(1));
    let fins = [0.05, -0.02, 1300.0];
    let moving = VehicleState {
        nu: Vector6::new(2.0, 0.05, -0.02, 0.01, 0.02, -0.03),
        ..state
    };
    for integrator in [Integrator::Rk4, Integrator::FossenEuler] {
        let mut p = VehicleProfile::builtin("remus100").expect("shipped");
        p.integrator = integrator;
        let v = Vehicle::from_profile(&p);
        let mut act = v.actuators();
        let name = match integrator {
            Integrator::Rk4 => "vehicle_step_rk4",
            Integrator::FossenEuler => "vehicle_step_fossen_euler",
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                v.step(
                    black_box(&moving),
                    &mut act,
                    Drive::Fins(&fins),
                    black_box(&current),
                    0.01,
                )
            })
        });
    }
    let reference = Remus100::reference().with_current(0.2, 30.0);
    let (eta, nu) = ([3.0, -2.0, 10.0, 0.05, -0.1, 1.0], [2.0, 0.05, -0.02, 0.01, 0.02, -0.03]);
    g.bench_function("fossen_reference_dynamics", |b| {
        b.iter(|| reference.dynamics(black_box(&eta), black_box(&nu), &[0.04, -0.01, 1290.0], &fins, 0.02))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
