//! Models and controllers: the oscillator against ssl_simulator's reference
//! trajectory, consensus, the unicycle model, constant signals.

use oceansim_ecs::{Engine, World};
use oceansim_math::graphs::{gen_z_ring, Graph};
use oceansim_swarm::{single_integrator, unicycle_2d, Consensus, ConstantSignal, Oscillator};
use serde_json::Value;

fn reference() -> Value {
    let all: Value = serde_json::from_str(include_str!(
        "../../../../assets/reference-data/ssl_reference.json"
    ))
    .unwrap();
    all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "traj_singleintegrator_oscillator")
        .unwrap()
        .clone()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .flat_map(|x| match x {
            Value::Array(_) => floats(x),
            _ => vec![x.as_f64().unwrap()],
        })
        .collect()
}

#[test]
fn oscillator_on_single_integrators_matches_the_reference() {
    let e = reference();
    let i = &e["inputs"];
    let n = 3;
    let mut world = World::new(n);
    single_integrator(&mut world, "p", "u", &[2], Some(&floats(&i["p0"])), None).unwrap();
    let osc = Oscillator::new(
        "u",
        n,
        &floats(&i["A"]),
        &floats(&i["omega"]),
        &floats(&i["speed"]),
    )
    .unwrap();
    let gamma = osc.gamma();
    world.add_system(osc).unwrap();
    let mut engine = Engine::new(i["dt"].as_f64().unwrap());
    let rows = floats(&e["outputs"]["sample_rows"]);
    let (want_p, want_u) = (&e["outputs"]["robot.p"], &e["outputs"]["robot.u"]);
    let mut done = 0;
    for (k, r) in rows.iter().enumerate() {
        let r = *r as u64;
        engine.run(&mut world, r - done).unwrap();
        done = r;
        let p = world.get::<f64>("p").unwrap();
        for (a, b) in p.iter().zip(floats(&want_p[k])) {
            assert!((a - b).abs() < 1e-12, "p at row {r}: {a} vs {b}");
        }
        if r >= 1 {
            // Row r holds the control used for step r, u(t_{r-1}).
            let u = world.get::<f64>("u").unwrap();
            for (a, b) in u.iter().zip(floats(&want_u[k])) {
                assert!((a - b).abs() < 1e-12, "u at row {r}: {a} vs {b}");
            }
        }
    }
    // gamma is the followed offset A sin(ω t) at the last tick, t = (done − 1) dt.
    let t = (done - 1) as f64 * i["dt"].as_f64().unwrap();
    let g = gamma.borrow();
    for (k, (a, w)) in floats(&i["A"]).iter().zip(floats(&i["omega"])).enumerate() {
        assert!((g[k] - a * (w * t).sin()).abs() < 1e-12, "gamma {k}");
    }
    assert!(
        Oscillator::new("u", 1, &[2.0], &[1.0], &[1.0]).is_err(),
        "A*omega > speed is refused"
    );
}

#[test]
fn consensus_meets_at_the_mean() {
    let n = 10;
    let x0: Vec<f64> = (0..n).map(|i| (i * i) as f64).collect();
    let mut world = World::new(n);
    single_integrator(&mut world, "x", "u", &[], Some(&x0), None).unwrap();
    world
        .add_system(Consensus::new(
            Graph::new(n, &gen_z_ring(n)).unwrap(),
            2.0,
            "x",
            "u",
        ))
        .unwrap();
    Engine::new(0.01).run_for(&mut world, 30.0).unwrap();
    let mean = x0.iter().sum::<f64>() / n as f64;
    let x = world.get::<f64>("x").unwrap();
    assert!(x.iter().all(|v| (v - mean).abs() < 1e-6), "{x:?} vs {mean}");
    // The sum is invariant (1ᵀL = 0) to rounding.
    assert!((x.iter().sum::<f64>() - mean * n as f64).abs() < 1e-9);
}

#[test]
fn unicycle_moves_along_its_heading_and_turns_at_omega() {
    let mut world = World::new(2);
    let dynamics = unicycle_2d(
        &mut world,
        Some(&[0.0, 0.0, 1.0, 1.0]),
        Some(&[2.0]),
        Some(&[0.0, std::f64::consts::FRAC_PI_2]),
        None,
    )
    .unwrap();
    world.add_system(dynamics).unwrap();
    world
        .add_system(ConstantSignal::new("turn", "omega", &[0.0]))
        .unwrap();
    Engine::new(0.01).run_for(&mut world, 1.0).unwrap();
    let p = world.get::<f64>("p").unwrap();
    assert!((p[0] - 2.0).abs() < 1e-12 && p[1].abs() < 1e-12);
    assert!((p[2] - 1.0).abs() < 1e-12 && (p[3] - 3.0).abs() < 1e-12);
    // A constant turn rate drives a circle of radius s/ω.
    let mut world = World::new(1);
    let dynamics = unicycle_2d(&mut world, None, Some(&[1.0]), None, None).unwrap();
    world.add_system(dynamics).unwrap();
    world
        .add_system(ConstantSignal::new("turn", "omega", &[0.5]))
        .unwrap();
    let mut engine = Engine::new(0.001);
    engine
        .run_for(&mut world, 2.0 * std::f64::consts::PI / 0.5)
        .unwrap();
    let p = world.get::<f64>("p").unwrap();
    assert!(
        p[0].abs() < 1e-2 && p[1].abs() < 1e-2,
        "closed the circle: {p:?}"
    );
    // A value of the wrong length is refused when the schedule is built.
    let mut world = World::new(2);
    world.add("omega", &[], None).unwrap();
    world
        .add_system(ConstantSignal::new("bad", "omega", &[1.0, 2.0, 3.0]))
        .unwrap();
    assert_eq!(
        Engine::new(0.1).run(&mut world, 1).unwrap_err().code(),
        "shape_mismatch"
    );
}

#[test]
fn unicycle_turn_rate_is_clipped_to_its_limits() {
    // ω = 2 rad/s commanded, limits (−0.5, 0.25): the first unicycle turns
    // at 0.25 rad/s, the second (ω = −3) at −0.5, the third (0.1) as told.
    let mut world = World::new(3);
    let dynamics = unicycle_2d(&mut world, None, Some(&[1.0]), None, Some((-0.5, 0.25))).unwrap();
    assert_eq!(dynamics.omega_lims(), Some((-0.5, 0.25)));
    world.add_system(dynamics).unwrap();
    world
        .add_system(ConstantSignal::new("turn", "omega", &[2.0, -3.0, 0.1]))
        .unwrap();
    Engine::new(0.01).run(&mut world, 100).unwrap();
    let theta = world.get::<f64>("theta").unwrap();
    let want = [0.25, -0.5, 0.1];
    for (t, w) in theta.iter().zip(want) {
        assert!((t - w).abs() < 1e-12, "{theta:?}");
    }
    // The command stays as the controller wrote it; the applied rate is
    // theta_dot.
    assert_eq!(
        world.get::<f64>("omega").unwrap().to_vec(),
        vec![2.0, -3.0, 0.1]
    );
    assert_eq!(
        world.get::<f64>("theta_dot").unwrap().to_vec(),
        want.to_vec()
    );
    for bad in [(1.0, -1.0), (f64::NAN, 1.0), (0.0, f64::NAN)] {
        let mut world = World::new(1);
        let e = unicycle_2d(&mut world, None, None, None, Some(bad)).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
    }
    // Infinite bounds are no limit.
    let mut world = World::new(1);
    assert!(unicycle_2d(
        &mut world,
        None,
        None,
        None,
        Some((f64::NEG_INFINITY, f64::INFINITY))
    )
    .is_ok());
}
