//! The batched simulator is the world's physics: a lane driven by the same
//! actions as a simulation's main AUV follows it bit for bit, and stepping
//! lanes on more threads changes nothing.

use crate::common::{ok, sim};
use oceansim_agents::ControlScheme;
use oceansim_sim::batch::{Batch, BatchSpec};
use serde_json::json;

/// The request that gives `scheme`'s action to the main AUV.
fn request(scheme: ControlScheme, a: &[f64]) -> (&'static str, serde_json::Value) {
    match scheme {
        ControlScheme::Force3d => ("set_force_world", json!({"force": a})),
        ControlScheme::BodyForce3d => ("set_force_body", json!({"force": a})),
        ControlScheme::BodyWrench6dof => ("set_body_wrench", json!({"wrench": a})),
        ControlScheme::BodyVelocity6dof => ("set_body_velocity", json!({"velocity": a})),
        ControlScheme::Thrusters => ("set_thrusters", json!({"thrusters": a})),
        ControlScheme::WaypointPid => (
            "set_waypoint",
            json!({"world_x": a[0], "world_z": a[1], "depth": a[2], "control_scheme": "waypoint_pid"}),
        ),
        other => panic!("{other:?} drives no vehicle"),
    }
}

#[test]
fn a_lane_follows_the_simulations_main_auv_bit_for_bit() {
    // Every scheme, with actions that saturate, turn, dive and (for the
    // force pushes) drive into the seabed, so contacts are exercised too.
    let cases: Vec<(ControlScheme, Vec<Vec<f64>>)> = vec![
        (
            ControlScheme::Force3d,
            vec![vec![30.0, 80.0, -40.0], vec![0.0, 0.0, -900.0]],
        ),
        (
            ControlScheme::BodyForce3d,
            vec![vec![10.0, 60.0, 5.0], vec![0.0, 90.0, -200.0]],
        ),
        (
            ControlScheme::BodyWrench6dof,
            vec![
                vec![40.0, 0.0, 10.0, 0.0, 2.0, 5.0],
                vec![1e4, 0.0, 0.0, 0.0, 0.0, -1e4],
            ],
        ),
        (
            ControlScheme::BodyVelocity6dof,
            vec![
                vec![1.0, 0.0, 0.2, 0.0, 0.0, 0.2],
                vec![3.0, 0.0, 0.0, 0.0, 0.0, -0.3],
            ],
        ),
        (
            ControlScheme::Thrusters,
            vec![vec![1.0, 0.8, 0.2, -0.2, 0.5, 0.0], vec![0.3; 6]],
        ),
        (
            ControlScheme::WaypointPid,
            vec![vec![8.0, -5.0, 12.0], vec![-3.0, 4.0, 30.0]],
        ),
    ];
    for (scheme, actions) in cases {
        let mut s = sim("Static_Map");
        let mut batch = Batch::new(&BatchSpec::default(), 1).unwrap();
        assert_eq!(
            batch.lanes()[0].state(),
            &s.vehicle_state(Some("auv/main")).unwrap(),
            "same start"
        );
        let mut touched = false;
        for (k, a) in actions.iter().cycle().take(240).enumerate() {
            // A new action every 60 control periods.
            if k % 60 == 0 {
                let (action, data) = request(scheme, a);
                ok(&mut s, action, data);
                let (shared, lanes) = batch.split_mut();
                lanes[0].set_action(shared, scheme, a).unwrap();
            }
            s.tick(10);
            batch.step_all(None);
            touched |= batch.lanes()[0].touches().collided();
            assert_eq!(
                batch.lanes()[0].state(),
                &s.vehicle_state(Some("auv/main")).unwrap(),
                "{scheme:?}, period {k}"
            );
        }
        if scheme == ControlScheme::Force3d {
            assert!(touched, "the downward push reaches the seabed");
        }
    }
}

#[test]
fn stepping_on_more_threads_changes_nothing() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut batch = Batch::new(&BatchSpec::default(), 64).unwrap();
        for k in 0..50 {
            let (shared, lanes) = batch.split_mut();
            for (i, lane) in lanes.iter_mut().enumerate() {
                let a = [
                    (i as f64 * 7.0 + k as f64).sin() * 80.0,
                    60.0,
                    -(i as f64) % 30.0,
                ];
                lane.set_action(shared, ControlScheme::BodyForce3d, &a)
                    .unwrap();
            }
            batch.step_all(Some(&pool));
        }
        batch.lanes().iter().map(|l| *l.state()).collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(2));
    assert_eq!(run(1), run(3));
}

#[test]
fn bad_actions_are_refused_and_leave_the_lane_as_it_was() {
    let mut batch = Batch::new(&BatchSpec::default(), 1).unwrap();
    let (shared, lanes) = batch.split_mut();
    lanes[0]
        .set_action(shared, ControlScheme::BodyForce3d, &[0.0, 50.0, 0.0])
        .unwrap();
    let before = format!("{:?}", lanes[0].command());
    for (scheme, a) in [
        (ControlScheme::BodyForce3d, vec![1.0, 2.0]),
        (ControlScheme::BodyForce3d, vec![f64::NAN, 0.0, 0.0]),
        (ControlScheme::Thrusters, vec![0.0; 5]),
        (ControlScheme::ExternalVelocity, vec![0.0; 3]),
        (ControlScheme::CustomDynamics6dof, vec![0.0; 6]),
    ] {
        let e = lanes[0].set_action(shared, scheme, &a).unwrap_err();
        assert_eq!(e.code(), "invalid_action", "{scheme:?} {a:?}: {e}");
    }
    assert_eq!(format!("{:?}", lanes[0].command()), before);
    // Oversized forces are clamped as the simulator clamps them.
    assert!(lanes[0]
        .set_action(shared, ControlScheme::BodyForce3d, &[0.0, 1e9, 0.0])
        .unwrap());
}
