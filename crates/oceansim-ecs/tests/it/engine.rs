//! Engine behaviour: scheduling through the engine, integration timing
//! against the ssl_simulator reference, monitors, introspection, sinks.

use oceansim_ecs::{Access, Engine, FnSystem, IssueKind, Monitor, Probe, Reduce, World};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

fn ssl_entry(name: &str) -> Value {
    let all: Value = serde_json::from_str(include_str!(
        "../../../../assets/reference-data/ssl_reference.json"
    ))
    .unwrap();
    all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
        .clone()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// A single integrator driven by the oscillator u(t) = [√(s² − g²), g],
/// g = A ω cos(ω t), explicit Euler from the same snapshot: the engine's
/// trajectory matches ssl_simulator's to rounding.
#[test]
fn single_integrator_with_oscillator_matches_the_reference() {
    let e = ssl_entry("traj_singleintegrator_oscillator");
    let inp = &e["inputs"];
    let p0: Vec<f64> = inp["p0"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(floats)
        .collect();
    let (a, w, s) = (
        floats(&inp["A"]),
        floats(&inp["omega"]),
        floats(&inp["speed"]),
    );
    let n = a.len();
    let mut world = World::new(n);
    let p = world
        .add_state_with_derivative("p", &[2], Some(&p0), None, "u")
        .unwrap();
    let u = world.add("u", &[2], None).unwrap();
    world
        .add_system(FnSystem::new(
            "osc",
            Access::new().write("u"),
            move |wd, step| {
                let mut u = wd.write(u);
                for i in 0..n {
                    let g = a[i] * w[i] * (w[i] * step.time).cos();
                    u[2 * i] = (s[i] * s[i] - g * g).sqrt();
                    u[2 * i + 1] = g;
                }
            },
        ))
        .unwrap();
    let rows = floats(&e["outputs"]["sample_rows"]);
    let expected = e["outputs"]["robot.p"].as_array().unwrap();
    let mut engine = Engine::new(inp["dt"].as_f64().unwrap());
    let mut done = 0u64;
    let mut worst = 0.0f64;
    for (k, row) in rows.iter().enumerate() {
        let target = *row as u64;
        engine.run(&mut world, target - done).unwrap();
        done = target;
        let want: Vec<f64> = expected[k]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(floats)
            .collect();
        for (got, want) in world.read(p).iter().zip(&want) {
            worst = worst.max((got - want).abs());
        }
    }
    assert!(worst < 1e-12, "max deviation {worst:e}");
    assert!((world.time() - 2.0).abs() < 1e-12);
}

#[test]
fn engine_orders_controller_dynamics_integration() {
    let mut world = World::new(1);
    world.add_state("x", &[], Some(&[0.0]), None).unwrap();
    world.add("x_dot", &[], None).unwrap();
    world.add("u", &[], None).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    world
        .add_system(FnSystem::new(
            "dynamics",
            Access::new().read("u").write("x_dot"),
            move |_, _| l.borrow_mut().push("dynamics"),
        ))
        .unwrap();
    let l = log.clone();
    world
        .add_system(FnSystem::new(
            "controller",
            Access::new().read("x").write("u"),
            move |_, _| l.borrow_mut().push("controller"),
        ))
        .unwrap();
    let mut engine = Engine::new(0.1);
    assert_eq!(
        engine.schedule_names(&mut world).unwrap(),
        ["controller", "dynamics", "integrate"]
    );
    engine.run(&mut world, 2).unwrap();
    assert_eq!(
        *log.borrow(),
        ["controller", "dynamics", "controller", "dynamics"]
    );
    let d = world.describe();
    assert!(
        d.contains("1. controller") && d.contains("3. integrate") && d.contains("4. monitors"),
        "{d}"
    );
}

#[test]
fn check_reports_a_misspelt_component_first_and_the_engine_refuses_it() {
    let mut world = World::new(2);
    world.add_state("p", &[2], None, None).unwrap();
    world.add("p_dot", &[2], None).unwrap();
    world.add("gain", &[], None).unwrap();
    world
        .add_system(FnSystem::new(
            "dyn",
            Access::new().read("gian").read("gain").write("p_dot"),
            |_, _| {},
        ))
        .unwrap();
    world
        .add_system(FnSystem::new(
            "other",
            Access::new().write("p_dot"),
            |_, _| {},
        ))
        .unwrap();
    let issues = world.check();
    assert_eq!(issues[0].kind, IssueKind::UnknownComponent);
    assert!(
        issues[0].message.contains("`gian`") && issues[0].message.contains("did you mean `gain`"),
        "{}",
        issues[0]
    );
    let kinds: Vec<IssueKind> = issues.iter().map(|i| i.kind).collect();
    assert!(kinds.contains(&IssueKind::MultipleWriters), "{kinds:?}");
    assert!(kinds.contains(&IssueKind::ReadNeverWritten), "{kinds:?}");
    let e = Engine::new(0.1).run(&mut world, 1).unwrap_err();
    assert_eq!(e.code(), "unknown_declared_component");
    assert!(e.to_string().contains("did you mean `gain`"), "{e}");
}

#[test]
fn a_state_without_derivative_is_reported() {
    let mut world = World::new(1);
    world.add_state("x", &[], None, None).unwrap();
    assert_eq!(world.check()[0].kind, IssueKind::StateWithoutDerivative);
    let e = Engine::new(0.1).run(&mut world, 1).unwrap_err();
    assert_eq!(e.code(), "invalid_state");
    assert!(e.to_string().contains("x_dot"), "{e}");
}

#[test]
fn monitors_observe_the_integrated_step_and_warn_once_per_run() {
    let mut world = World::new(1);
    let x = world.add_state("x", &[], Some(&[0.0]), None).unwrap();
    world.add("x_dot", &[], Some(&[1.0])).unwrap();
    world.add_monitor(
        Monitor::new("x_max", Reduce::Max, move |w| w.read(x)[0])
            .warn_if(|v| v > 0.25, "{name} reached {value}"),
    );
    let probe = Probe::new();
    let p = probe.clone();
    world
        .add_system(FnSystem::new(
            "count",
            Access::new().read("x"),
            move |_, s| p.set(s.index as f64),
        ))
        .unwrap();
    world.add_monitor(Monitor::new("steps", Reduce::Sum, probe.source()));
    let mut engine = Engine::new(0.1);
    let s = engine.run(&mut world, 5).unwrap();
    let max = &s.monitors[0];
    // After the 5th step x = 0.5 (monitors run after integration).
    assert!((max.value - 0.5).abs() < 1e-12);
    let (t, v, msg) = max.tripped.clone().unwrap();
    assert!(
        (t - 0.3).abs() < 1e-12 && (v - 0.3).abs() < 1e-12,
        "fired at {t} with {v}"
    );
    assert_eq!(msg, "x_max reached 0.300000");
    assert_eq!(s.tripped().len(), 1);
    assert_eq!(s.monitors[1].value, 0.0 + 1.0 + 2.0 + 3.0 + 4.0);
    // A new run resets the reduction and the one-shot warning.
    let s2 = engine.run(&mut world, 1).unwrap();
    assert!((s2.monitors[0].value - 0.6).abs() < 1e-12);
    assert!(s2.monitors[0].tripped.is_some());
    assert_eq!(s2.monitors[1].value, 0.0);
}

#[test]
fn sink_streams_at_the_log_cadence_with_scalars() {
    let mut world = World::new(2);
    world.add_state("x", &[], Some(&[0.0, 10.0]), None).unwrap();
    world.add("x_dot", &[], Some(&[1.0, -1.0])).unwrap();
    world.track("mean_x", |w| {
        w.get::<f64>("x").unwrap().iter().sum::<f64>() / 2.0
    });
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    let mut engine = Engine::new(0.1)
        .with_log_time_step(0.5)
        .with_sink(move |t, frame| {
            let x = frame.get("x").unwrap();
            s.borrow_mut()
                .push((t, x.data.get_f64(0), frame.scalars[0].1));
        });
    engine.run_for(&mut world, 1.0).unwrap();
    let seen = seen.borrow();
    assert_eq!(seen.len(), 3, "t = 0, 0.5, 1.0: {seen:?}");
    assert!((seen[1].0 - 0.5).abs() < 1e-12 && (seen[1].1 - 0.5).abs() < 1e-12);
    assert!(seen.iter().all(|(_, _, m)| (m - 5.0).abs() < 1e-12));
}

#[test]
fn bad_engine_arguments_are_errors() {
    let mut world = World::new(1);
    assert_eq!(
        Engine::new(0.0).run(&mut world, 1).unwrap_err().code(),
        "invalid_argument"
    );
    assert!(Engine::new(0.1).run_for(&mut world, -1.0).is_err());
    assert!(Engine::new(f64::NAN).run(&mut world, 1).is_err());
}

#[test]
fn self_integrated_state_is_loop_carried() {
    // A controller reads a pose that a dynamics system advances itself
    // (e.g. RK4): no cycle, controller first.
    let mut world = World::new(1);
    world
        .add_self_integrated_state("pose", &[], Some(&[0.0]))
        .unwrap();
    world.add("force", &[], None).unwrap();
    world
        .add_system(FnSystem::new(
            "dynamics",
            Access::new().reads(["force", "pose"]).write("pose"),
            |w, s| {
                let f = w.get::<f64>("force").unwrap()[0];
                w.get_mut::<f64>("pose").unwrap()[0] += f * s.dt;
            },
        ))
        .unwrap();
    world
        .add_system(FnSystem::new(
            "control",
            Access::new().read("pose").write("force"),
            |w, _| {
                let p = w.get::<f64>("pose").unwrap()[0];
                w.get_mut::<f64>("force").unwrap()[0] = 1.0 - p;
            },
        ))
        .unwrap();
    assert!(world.check().is_empty(), "{:?}", world.check());
    let mut engine = Engine::new(0.5);
    assert_eq!(
        engine.schedule_names(&mut world).unwrap(),
        ["control", "dynamics", "integrate"]
    );
    engine.run(&mut world, 2).unwrap();
    assert_eq!(world.get::<f64>("pose").unwrap()[0], 0.75);
}

/// Entities come and go between runs and from inside a tick: integration
/// follows the live rows, ids stay stable, and a despawn queued by a system
/// lands at the end of its tick.
#[test]
fn entities_spawn_between_runs_and_despawn_from_a_system() {
    use oceansim_ecs::Entity;
    let mut world = World::new(2);
    let x = world.add_state("x", &[], Some(&[0.0]), None).unwrap();
    let v = world.add("x_dot", &[], Some(&[1.0])).unwrap();
    let ttl = world.add("ttl", &[], Some(&[1e9])).unwrap();
    world
        .add_system(FnSystem::new(
            "expire",
            Access::new().reads(["x", "ttl"]),
            move |w, _| {
                let (x, ttl) = (w.read(x), w.read(ttl));
                for row in 0..w.len() {
                    if x[row] >= ttl[row] {
                        w.defer_despawn(w.entity(row));
                    }
                }
            },
        ))
        .unwrap();
    let mut engine = Engine::new(0.5);
    engine.run(&mut world, 2).unwrap();
    assert_eq!(&*world.read(x), &[1.0, 1.0]);
    // A third entity, faster, that expires at x >= 2.
    let e = world.spawn();
    world.set_row(v, e, &[2.0]).unwrap();
    world.set_row(ttl, e, &[2.0]).unwrap();
    engine.run(&mut world, 1).unwrap();
    assert_eq!(world.get_row(x, e), Some(vec![1.0]));
    engine.run(&mut world, 1).unwrap();
    assert_eq!(world.get_row(x, e), Some(vec![2.0]));
    // Seen at x = 2 in the next tick's `expire`, gone at that tick's end.
    engine.run(&mut world, 1).unwrap();
    assert!(!world.contains(e));
    assert_eq!(
        world.entities(),
        &[Entity::from_raw(0), Entity::from_raw(1)]
    );
    assert_eq!(&*world.read(x), &[2.5, 2.5]);
    assert_eq!(world.spawn().id(), 3, "ids are never reused");
}

/// Two systems may write one component when their order is declared.
#[test]
fn explicitly_ordered_writers_are_not_flagged() {
    let mut world = World::new(1);
    world.add("a", &[], Some(&[0.0])).unwrap();
    world
        .add_system(FnSystem::new("first", Access::new().write("a"), |_, _| {}))
        .unwrap();
    world
        .add_system(FnSystem::new(
            "second",
            Access::new().write("a").after("first"),
            |_, _| {},
        ))
        .unwrap();
    assert!(world.check().is_empty(), "{:?}", world.check());
    world
        .add_system(FnSystem::new("third", Access::new().write("a"), |_, _| {}))
        .unwrap();
    let issues = world.check();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].kind, IssueKind::MultipleWriters);
}
