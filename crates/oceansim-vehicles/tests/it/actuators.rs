//! The actuator model, stage by stage: bounds, deadband, rate limit,
//! failure modes, thrust mapping and allocation.

use nalgebra::{Unit, Vector3, Vector6};
use oceansim_vehicles::{FailureMode, Thruster, ThrusterBank};

fn thruster() -> Thruster {
    Thruster {
        name: "t".into(),
        position_m: Vector3::new(-0.5, 0.2, 0.1),
        direction: Unit::new_normalize(Vector3::new(1.0, 0.0, 0.0)),
        max_thrust_n: 10.0,
        max_reverse_thrust_n: 5.0,
        command_bounds: [-1.0, 1.0],
        rate_limit_per_s: None,
        deadband: 0.0,
        failure_mode: FailureMode::Healthy,
        failure_scale: 1.0,
    }
}

fn one(t: Thruster) -> ThrusterBank {
    ThrusterBank::new(vec![t])
}

fn run(bank: &mut ThrusterBank, cmd: f64, steps: usize, dt: f64) -> f64 {
    bank.set_commands(&[cmd]).unwrap();
    for _ in 0..steps {
        bank.step(dt);
    }
    bank.outputs()[0]
}

#[test]
fn commands_are_clamped_to_their_bounds() {
    let mut b = one(Thruster {
        command_bounds: [-0.5, 0.8],
        ..thruster()
    });
    assert_eq!(run(&mut b, 2.0, 1, 0.01), 0.8);
    assert_eq!(run(&mut b, -3.0, 1, 0.01), -0.5);
}

#[test]
fn deadband_zeroes_small_commands() {
    let mut b = one(Thruster {
        deadband: 0.05,
        ..thruster()
    });
    assert_eq!(run(&mut b, 0.049, 1, 0.01), 0.0);
    assert_eq!(run(&mut b, -0.049, 1, 0.01), 0.0);
    assert_eq!(run(&mut b, 0.06, 1, 0.01), 0.06);
}

#[test]
fn rate_limit_bounds_the_change_per_second() {
    let mut b = one(Thruster {
        rate_limit_per_s: Some(5.0),
        ..thruster()
    });
    let after_one = run(&mut b, 1.0, 1, 0.01);
    assert!((after_one - 0.05).abs() < 1e-12);
    let after_ten = run(&mut b, 1.0, 9, 0.01);
    assert!((after_ten - 0.5).abs() < 1e-12);
    assert!((run(&mut b, 1.0, 10, 0.01) - 1.0).abs() < 1e-12);
    // Going down is limited too.
    assert!((run(&mut b, -1.0, 1, 0.01) - 0.95).abs() < 1e-12);
}

#[test]
fn failure_modes() {
    let mut b = one(thruster());
    run(&mut b, 0.6, 1, 0.01);
    b.set_failure(0, FailureMode::Stuck, 1.0);
    assert_eq!(
        run(&mut b, -1.0, 3, 0.01),
        0.6,
        "stuck holds the last healthy command"
    );
    assert_eq!(b.thrusts_n()[0], 6.0);
    b.set_failure(0, FailureMode::Disabled, 1.0);
    assert_eq!(run(&mut b, 1.0, 1, 0.01), 0.0);
    assert_eq!(b.step(0.01), Vector6::zeros());
    b.set_failure(0, FailureMode::Scaled, 0.25);
    assert_eq!(
        run(&mut b, 0.8, 1, 0.01),
        0.2,
        "scaled multiplies by failure_scale"
    );
    assert_eq!(b.thrusts_n()[0], 2.0);
    b.set_failure(0, FailureMode::Healthy, 1.0);
    assert_eq!(run(&mut b, 0.8, 1, 0.01), 0.8);
    // A thruster stuck from the start holds zero.
    let mut s = one(Thruster {
        failure_mode: FailureMode::Stuck,
        ..thruster()
    });
    assert_eq!(run(&mut s, 1.0, 5, 0.01), 0.0);
}

#[test]
fn thrust_maps_forward_and_reverse_and_allocates_to_the_wrench() {
    let t = thruster();
    let col = t.allocation_column();
    let mut b = one(t);
    b.set_commands(&[0.5]).unwrap();
    let tau = b.step(0.01);
    assert_eq!(b.thrusts_n()[0], 5.0);
    // [d; r x d] with r = (-0.5, 0.2, 0.1), d = x: moment = (0, 0.1, -0.2).
    assert_eq!(col, Vector6::new(1.0, 0.0, 0.0, 0.0, 0.1, -0.2));
    assert!((tau - col * 5.0).amax() < 1e-15);
    b.set_commands(&[-1.0]).unwrap();
    b.step(0.01);
    assert_eq!(b.thrusts_n()[0], -5.0, "reverse uses max_reverse_thrust_n");
}

#[test]
fn pipeline_order_is_bounds_deadband_rate_failure() {
    // A command above the bound, rate limited, then scaled.
    let mut b = one(Thruster {
        command_bounds: [-0.4, 0.4],
        deadband: 0.1,
        rate_limit_per_s: Some(10.0),
        failure_mode: FailureMode::Scaled,
        failure_scale: 0.5,
        ..thruster()
    });
    // 0.05 is inside the deadband: nothing moves.
    assert_eq!(run(&mut b, 0.05, 1, 0.01), 0.0);
    // 5.0 -> clamp 0.4 -> rate 0.1 per step -> scale 0.5.
    assert!((run(&mut b, 5.0, 1, 0.01) - 0.05).abs() < 1e-12);
    assert!((run(&mut b, 5.0, 10, 0.01) - 0.2).abs() < 1e-12);
}

#[test]
fn bad_command_vectors_are_rejected_without_changing_state() {
    let mut b = ThrusterBank::new(vec![thruster(), thruster()]);
    b.set_commands(&[0.3, 0.3]).unwrap();
    let e = b.set_commands(&[1.0]).unwrap_err();
    assert_eq!(e.code(), "invalid_action_shape");
    assert!(b.set_commands(&[f64::NAN, 0.0]).is_err());
    assert_eq!(b.commands(), &[0.3, 0.3]);
}
