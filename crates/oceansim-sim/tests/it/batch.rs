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
        ControlScheme::Fins => ("set_fins", json!({"fins": a})),
        ControlScheme::WaypointPid => (
            "set_waypoint",
            json!({"world_x": a[0], "world_z": a[1], "depth": a[2], "control_scheme": "waypoint_pid"}),
        ),
        other => panic!("{other:?} drives no vehicle"),
    }
}

#[test]
fn a_lane_follows_the_simulations_main_auv_bit_for_bit() {
    // Every scheme of every shipped profile, with actions that saturate,
    // turn, dive and (the BlueROV2's) drive into the seabed, so contacts
    // are exercised too.
    let d = std::f64::consts::PI / 180.0;
    for profile in ["oceansim_torpedo_auv", "bluerov2_heavy", "remus100"] {
        let cases: Vec<(ControlScheme, Vec<Vec<f64>>)> = match profile {
            "remus100" => vec![(
                ControlScheme::Fins,
                vec![
                    vec![10.0 * d, -5.0 * d, 1525.0],
                    vec![-40.0 * d, 20.0 * d, 900.0],
                ],
            )],
            _ => {
                let n = if profile == "bluerov2_heavy" { 8 } else { 6 };
                let mut t1 = vec![1.0, 0.8, 0.2, -0.2, 0.5, 0.0];
                t1.resize(n, -0.4);
                vec![
                    (
                        ControlScheme::Force3d,
                        if n == 8 {
                            // Down all the way, onto the seabed.
                            vec![vec![0.0, 0.0, -900.0]]
                        } else {
                            vec![vec![30.0, 80.0, -40.0], vec![0.0, 0.0, -900.0]]
                        },
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
                    (ControlScheme::Thrusters, vec![t1, vec![0.3; n]]),
                    (
                        ControlScheme::WaypointPid,
                        vec![vec![8.0, -5.0, 12.0], vec![-3.0, 4.0, 30.0]],
                    ),
                ]
            }
        };
        let touched: Vec<bool> = cases
            .iter()
            .map(|(scheme, actions)| follow(profile, *scheme, actions))
            .collect();
        if profile == "bluerov2_heavy" {
            assert!(touched.contains(&true), "some push reaches the seabed");
        }
    }
}

/// Drives a simulation's main AUV and a lane alike; returns whether the
/// lane touched the seabed or an obstacle.
fn follow(profile: &str, scheme: ControlScheme, actions: &[Vec<f64>]) -> bool {
    let mut s = oceansim_sim::Simulation::new(oceansim_sim::SimConfig {
        scenario: "Static_Map".into(),
        profile: Some(profile.into()),
        paused: true,
        deterministic: true,
        // Poses only: no imaging sensor need render (the sensors' test
        // below compares samples).
        record_sensor_data: false,
        ..oceansim_sim::SimConfig::default()
    })
    .unwrap();
    let spec = BatchSpec {
        profile: Some(profile.into()),
        ..BatchSpec::default()
    };
    let mut batch = Batch::new(&spec, 1).unwrap();
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
            "{profile} {scheme:?}, period {k}"
        );
    }
    touched
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

#[test]
fn a_lane_the_main_auv_and_a_fleet_row_under_one_wrench_stay_equal_bit_for_bit() {
    // The three paths that move a vehicle (the simulator's system, a gym
    // lane, a swarm fleet row) call one vehicle step: under the same body
    // wrench, in open water, they stay equal to the last bit.
    let mut s = sim("Static_Map");
    let asked = [6.0, 0.5, -3.0, 0.0, 0.2, 0.5];
    let ack = ok(&mut s, "set_body_wrench", json!({"wrench": asked}));
    let applied: Vec<f64> = ack["wrench"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let mut batch = Batch::new(&BatchSpec::default(), 1).unwrap();
    {
        let (shared, lanes) = batch.split_mut();
        lanes[0]
            .set_action(shared, ControlScheme::BodyWrench6dof, &asked)
            .unwrap();
    }
    let vehicle = batch.shared().vehicle().clone();
    let start = s.vehicle_state(Some("auv/main")).unwrap();
    let mut p = start.position_ned.as_slice().to_vec();
    let a = start.attitude.quaternion();
    let mut q = vec![a.w, a.i, a.j, a.k];
    let mut nu = vec![0.0; 6];
    let dt = batch.shared().tick_s();
    for k in 0..50 {
        s.tick(10);
        batch.step_all(None);
        for _ in 0..10 {
            let stepped = oceansim_swarm::fleet::step_vehicle(
                &vehicle, &mut p, &mut q, &mut nu, &applied, &[0.0; 3], dt,
            );
            assert!(stepped);
        }
        let main = s.vehicle_state(Some("auv/main")).unwrap();
        assert_eq!(batch.lanes()[0].state(), &main, "lane, period {k}");
        assert!(!batch.lanes()[0].touches().collided(), "open water");
        assert_eq!(
            p.as_slice(),
            main.position_ned.as_slice(),
            "fleet p, period {k}"
        );
        // Both store the step's quaternion and read it back normalised.
        let fq = nalgebra::UnitQuaternion::new_normalize(nalgebra::Quaternion::new(
            q[0], q[1], q[2], q[3],
        ));
        assert_eq!(fq, main.attitude, "fleet q, period {k}");
        assert_eq!(nu.as_slice(), main.nu.as_slice(), "fleet ν, period {k}");
    }
    assert!(nu[0] > 0.3, "it moved: {nu:?}");
}

#[test]
fn a_lanes_sensors_read_what_the_simulations_main_auv_reads() {
    // Same scene, seed and commands: the lane's depth, IMU, DVL and imaging
    // sonar give the main AUV's samples, sequence for sequence, noise
    // included (the sonar's intensity array; lanes encode no PNG). The
    // sonar is reduced as a task reduces it, in both, through the profile.
    use oceansim_sim::batch::LaneSensorSpec;
    use oceansim_sim::{SensorFamily as F, SensorReading};
    let dir = std::env::temp_dir().join(format!("oceansim-lane-sensors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut profile = oceansim_vehicles::VehicleProfile::builtin("oceansim_torpedo_auv").unwrap();
    for m in &mut profile.sensors {
        if m.sensor_type == "imaging_sonar" {
            m.sonar = Some(oceansim_vehicles::SonarParams {
                beams: Some(32),
                bins: Some(48),
                max_range_m: Some(20.0),
            });
        }
    }
    let path = dir.join("reduced_sonar.json");
    std::fs::write(&path, serde_json::to_string(&profile).unwrap()).unwrap();
    let path = path.to_string_lossy().into_owned();
    let mut s = oceansim_sim::Simulation::new(oceansim_sim::SimConfig {
        scenario: "Static_Map".into(),
        profile: Some(path.clone()),
        paused: true,
        deterministic: true,
        // Sonars sample at their rate unasked, as a lane's do.
        record_sensor_data: true,
        export_root: dir.clone(),
        ..oceansim_sim::SimConfig::default()
    })
    .unwrap();
    let families = [F::Depth, F::Imu, F::Dvl, F::ImagingSonar];
    let spec = BatchSpec {
        profile: Some(path),
        sensors: families.iter().map(|f| LaneSensorSpec::new(*f)).collect(),
        // The simulator's history, so every sample of a period compares.
        sensor_buffer: oceansim_sim::SENSOR_BUFFER,
        ..BatchSpec::default()
    };
    let mut batch = Batch::new(&spec, 1).unwrap();
    let mut compared = [0usize; 4];
    for k in 0..60 {
        if k % 20 == 0 {
            let a = [[10.0, 60.0, -20.0], [-30.0, 40.0, 30.0], [0.0, -50.0, 0.0]][k / 20];
            ok(&mut s, "set_force_body", json!({ "force": a }));
            let (shared, lanes) = batch.split_mut();
            lanes[0]
                .set_action(shared, ControlScheme::BodyForce3d, &a)
                .unwrap();
        }
        s.tick(10);
        batch.step_all(None);
        let lane = &batch.lanes()[0];
        for (i, f) in families.iter().enumerate() {
            let theirs = s.sensor_samples("auv/main", f.name());
            let ours: Vec<_> = lane.sensor(*f).unwrap().samples().cloned().collect();
            assert!(!ours.is_empty(), "{f:?} sampled");
            let n = ours.len().min(theirs.len());
            let (ours, theirs) = (&ours[ours.len() - n..], &theirs[theirs.len() - n..]);
            for (a, b) in ours.iter().zip(theirs) {
                assert_eq!(
                    (a.time, a.sequence),
                    (b.time, b.sequence),
                    "{f:?} period {k}"
                );
                match (&a.reading, &b.reading) {
                    (SensorReading::ImagingSonar(x), SensorReading::ImagingSonar(y)) => {
                        assert_eq!((x.beams, x.bins), (32, 48));
                        assert_eq!(x.intensity, y.intensity, "sonar at period {k}");
                        assert!(x.intensity_png_base64.is_empty());
                    }
                    (x, y) => assert_eq!(x, y, "{f:?} at period {k}"),
                }
                compared[i] += 1;
            }
        }
    }
    // 6 s: every sample of the buffers compared at each period, the
    // sonar's (5 Hz) among them, and the walls of the field seen.
    assert!(compared.iter().all(|c| *c >= 60), "{compared:?}");
    let sonar = batch.lanes()[0].sensor(F::ImagingSonar).unwrap();
    assert_eq!(
        sonar.latest().unwrap().sequence,
        30,
        "5 Hz for 6 s, and one at the start"
    );
    std::fs::remove_dir_all(&dir).ok();
}
