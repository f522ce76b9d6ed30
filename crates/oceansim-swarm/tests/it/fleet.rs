//! Fleets of Fossen vehicles: the vectorised step against the vehicles
//! crate's own, the autopilot's steady states, the current's drift,
//! formations over ideal and acoustic links, and thread-count determinism.

use nalgebra::{Vector3, Vector6};
use oceansim_ecs::{Engine, World};
use oceansim_math::graphs::{gen_z_ring, Graph};
use oceansim_swarm::fleet::{
    fossen_fleet, names, AcousticBeacons, Autopilot, AutopilotGains, CurrentField,
    DistanceFormation, FleetModels, FormationConsensus, MediumConfig, Neighbours, OceanCurrent,
    VelocityGuidance, WaypointFollow,
};
use oceansim_vehicles::{VehicleModel, VehicleProfile, VehicleState};
use std::f64::consts::PI;

fn torpedo() -> VehicleProfile {
    VehicleProfile::builtin("oceansim_torpedo_auv").unwrap()
}
fn bluerov() -> VehicleProfile {
    VehicleProfile::builtin("bluerov2_heavy").unwrap()
}

/// A fleet world of `n` vehicles at `p` with yaw 0; the dynamics system
/// added; returns the models.
fn fleet(n: usize, profiles: &[VehicleProfile], p: &[f64]) -> (World, FleetModels) {
    let mut w = World::new(n);
    let models = FleetModels::cycle(profiles, n);
    let sys = fossen_fleet(&mut w, models.clone(), p, &vec![0.0; n]).unwrap();
    w.add_system(sys).unwrap();
    (w, models)
}

#[test]
fn one_vehicle_equals_the_vehicles_crate_rk4_and_mixed_rows_their_own() {
    let (t, b) = (torpedo(), bluerov());
    let p0 = [1.0, -2.0, 10.0, 4.0, 5.0, 12.0];
    let (mut w, _) = fleet(2, &[t.clone(), b.clone()], &p0);
    let tau = [
        40.0, 3.0, -5.0, 0.2, -1.0, 2.0, 10.0, 20.0, 5.0, 0.5, 0.3, -2.0,
    ];
    w.set(names::TAU, &tau).unwrap();
    w.set(names::CURRENT, &[0.2, -0.1, 0.0, 0.0, 0.3, 0.05])
        .unwrap();
    let dt = 0.01;
    Engine::new(dt).run(&mut w, 500).unwrap();
    for (row, prof) in [(0, &t), (1, &b)] {
        let m = VehicleModel::from_profile(prof);
        let mut s = VehicleState::at_rest(
            Vector3::new(p0[3 * row], p0[3 * row + 1], p0[3 * row + 2]),
            0.0,
            0.0,
            0.0,
        );
        let tv = Vector6::from_column_slice(&tau[6 * row..6 * row + 6]);
        let cur = [[0.2, -0.1, 0.0], [0.0, 0.3, 0.05]][row];
        for _ in 0..500 {
            s = m.rk4_step(&s, &tv, &Vector3::from(cur), dt);
        }
        let p = w.get::<f64>(names::P).unwrap();
        let nu = w.get::<f64>(names::NU).unwrap();
        for k in 0..3 {
            assert!((p[3 * row + k] - s.position_ned[k]).abs() <= 1e-12);
        }
        for k in 0..6 {
            assert!(
                (nu[6 * row + k] - s.nu[k]).abs() <= 1e-12,
                "row {row} nu[{k}]"
            );
        }
    }
}

#[test]
fn autopilot_reaches_speed_depth_and_heading_and_holds_them() {
    let (mut w, models) = fleet(2, &[torpedo(), bluerov()], &[0.0, 0.0, 5.0, 0.0, 20.0, 5.0]);
    w.add_system(Autopilot::new(models, AutopilotGains::default()))
        .unwrap();
    w.set(names::DEPTH_REF, &[10.0, 8.0]).unwrap();
    w.set(names::HEADING_REF, &[PI / 2.0, -PI / 4.0]).unwrap();
    w.set(names::SPEED_REF, &[1.5, 0.5]).unwrap();
    Engine::new(0.01).run_for(&mut w, 120.0).unwrap();
    let (p, q, nu) = (
        w.get::<f64>(names::P).unwrap().to_vec(),
        w.get::<f64>(names::Q).unwrap().to_vec(),
        w.get::<f64>(names::NU).unwrap().to_vec(),
    );
    for (i, (depth, psi, u)) in [(10.0, PI / 2.0, 1.5), (8.0, -PI / 4.0, 0.5)]
        .into_iter()
        .enumerate()
    {
        let yaw = {
            let q = &q[4 * i..4 * i + 4];
            (2.0 * (q[0] * q[3] + q[1] * q[2])).atan2(1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]))
        };
        assert!(
            (p[3 * i + 2] - depth).abs() < 0.05,
            "row {i} depth {}",
            p[3 * i + 2]
        );
        assert!((yaw - psi).abs() < 0.01, "row {i} yaw {yaw}");
        // Drag is fed forward, so the speed error decays to zero.
        assert!((nu[6 * i] - u).abs() < 0.01, "row {i} surge {}", nu[6 * i]);
    }
}

#[test]
fn an_unpowered_vehicle_drifts_with_a_uniform_current() {
    // With no thrust the relative velocity decays: the ground velocity
    // tends to the current's (horizontal here; the torpedo is buoyant).
    let (mut w, _) = fleet(1, &[torpedo()], &[0.0, 0.0, 50.0]);
    w.add_system(OceanCurrent::new(CurrentField::Uniform([0.3, -0.2, 0.0])))
        .unwrap();
    let engine_dt = 0.02;
    let mut e = Engine::new(engine_dt);
    e.run_for(&mut w, 400.0).unwrap();
    let p0 = w.get::<f64>(names::P).unwrap().to_vec();
    e.run_for(&mut w, 10.0).unwrap();
    let p1 = w.get::<f64>(names::P).unwrap().to_vec();
    let v = [(p1[0] - p0[0]) / 10.0, (p1[1] - p0[1]) / 10.0];
    assert!(
        (v[0] - 0.3).abs() < 3e-3 && (v[1] + 0.2).abs() < 3e-3,
        "{v:?}"
    );
}

#[test]
fn waypoints_are_visited_in_order() {
    let (mut w, models) = fleet(1, &[torpedo()], &[0.0, 0.0, 2.0]);
    let wps = [[30.0, 0.0, 5.0], [30.0, 30.0, 8.0], [0.0, 30.0, 8.0]];
    w.add_system(WaypointFollow::new(vec![wps.to_vec()], 1.2, 2.0))
        .unwrap();
    w.add_system(VelocityGuidance::new(1.5)).unwrap();
    w.add_system(Autopilot::new(models, AutopilotGains::default()))
        .unwrap();
    // Each waypoint is passed within its acceptance radius, in order.
    let mut e = Engine::new(0.02);
    let mut next = 0;
    for _ in 0..200 {
        e.run_for(&mut w, 1.0).unwrap();
        let p = w.get::<f64>(names::P).unwrap();
        if next < wps.len() && (p[0] - wps[next][0]).hypot(p[1] - wps[next][1]) < 2.5 {
            next += 1;
        }
    }
    assert_eq!(next, 3, "waypoints passed in order");
    let p = w.get::<f64>(names::P).unwrap();
    assert!(
        (p[0] - 0.0).hypot(p[1] - 30.0) < 2.0,
        "ends at {:?}",
        &p[..3]
    );
    assert!((p[2] - 8.0).abs() < 0.3);
}

/// A hexagon's offsets ([north, east], m).
fn polygon(n: usize, r: f64) -> Vec<[f64; 2]> {
    (0..n)
        .map(|i| {
            let a = 2.0 * PI * i as f64 / n as f64;
            [r * a.cos(), r * a.sin()]
        })
        .collect()
}

/// Largest distance of a vehicle from its slot around the fleet's
/// common reference point (the mean of p − o).
fn formation_error(p: &[f64], o: &[[f64; 2]]) -> f64 {
    let n = o.len();
    let c = (0..n).fold([0.0, 0.0], |c, i| {
        [
            c[0] + (p[3 * i] - o[i][0]) / n as f64,
            c[1] + (p[3 * i + 1] - o[i][1]) / n as f64,
        ]
    });
    (0..n)
        .map(|i| (p[3 * i] - o[i][0] - c[0]).hypot(p[3 * i + 1] - o[i][1] - c[1]))
        .fold(0.0, f64::max)
}

fn scattered(n: usize, spread: f64, depth: f64) -> Vec<f64> {
    (0..n)
        .flat_map(|i| {
            let a = (i * 7919 % 97) as f64 / 97.0;
            let b = (i * 104_729 % 89) as f64 / 89.0;
            [spread * (a - 0.5), spread * (b - 0.5), depth]
        })
        .collect()
}

fn formation_world(n: usize, source: Neighbours) -> (World, Vec<[f64; 2]>) {
    let (mut w, models) = fleet(n, &[torpedo()], &scattered(n, 60.0, 5.0));
    let offsets = polygon(n, 15.0);
    let g = Graph::new(n, &gen_z_ring(n)).unwrap();
    if source == Neighbours::Heard {
        let cfg = MediumConfig {
            bandwidth_bps: 9600.0,
            ..MediumConfig::default()
        };
        let beacons = AcousticBeacons::install(&mut w, cfg, 1.0, 256.0).unwrap();
        w.add_system(beacons).unwrap();
    }
    w.add_system(FormationConsensus::new(
        &g,
        offsets.clone(),
        0.1,
        1.0,
        source,
    ))
    .unwrap();
    w.add_system(VelocityGuidance::new(1.0)).unwrap();
    w.set(names::DEPTH_REF, &vec![10.0; n]).unwrap();
    w.add_system(Autopilot::new(models, AutopilotGains::default()))
        .unwrap();
    (w, offsets)
}

#[test]
fn offset_consensus_forms_a_hexagon_over_ideal_and_acoustic_links() {
    for source in [Neighbours::Truth, Neighbours::Heard] {
        let (mut w, o) = formation_world(6, source);
        let p0 = w.get::<f64>(names::P).unwrap().to_vec();
        let e0 = formation_error(&p0, &o);
        Engine::new(0.02).run_for(&mut w, 400.0).unwrap();
        let p = w.get::<f64>(names::P).unwrap();
        let e = formation_error(&p, &o);
        assert!(e < 1.0, "{source:?}: error {e0:.1} m -> {e:.2} m");
        assert!((0..6).all(|i| (p[3 * i + 2] - 10.0).abs() < 0.1));
    }
}

#[test]
fn distance_formation_reaches_its_distances() {
    let n = 4;
    let (mut w, models) = fleet(
        n,
        &[bluerov()],
        &[0.0, 0.0, 5.0, 3.0, 1.0, 5.0, 1.0, 4.0, 5.0, -2.0, 2.0, 5.0],
    );
    // A square of side 6 m, braced by one diagonal.
    let z = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)];
    let g = Graph::new(n, &z).unwrap();
    let d = |i: usize, j: usize| {
        if (i + j).is_multiple_of(2) {
            6.0 * 2f64.sqrt()
        } else {
            6.0
        }
    };
    w.add_system(DistanceFormation::new(&g, d, 0.002, 0.5, Neighbours::Truth))
        .unwrap();
    w.add_system(VelocityGuidance::new(0.5)).unwrap();
    w.add_system(Autopilot::new(models, AutopilotGains::default()))
        .unwrap();
    Engine::new(0.02).run_for(&mut w, 300.0).unwrap();
    let p = w.get::<f64>(names::P).unwrap();
    for &(i, j) in &z {
        let r = (p[3 * i] - p[3 * j]).hypot(p[3 * i + 1] - p[3 * j + 1]);
        assert!(
            (r - d(i, j)).abs() < 0.3,
            "{i}-{j}: {r:.2} m, want {:.2}",
            d(i, j)
        );
    }
}

/// FNV-1a over the bits of every state value.
fn state_hash(w: &World) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for name in [names::P, names::Q, names::NU, names::TAU] {
        for v in w.get::<f64>(name).unwrap().iter() {
            for b in v.to_bits().to_le_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    h
}

#[test]
fn a_fleet_world_is_bit_identical_on_one_and_two_threads_after_100k_steps() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let n = 16;
            let mut w = World::new(n);
            let models = FleetModels::cycle(&[torpedo(), bluerov()], n);
            let sys = fossen_fleet(
                &mut w,
                models.clone(),
                &scattered(n, 40.0, 5.0),
                &vec![0.3; n],
            )
            .unwrap()
            .with_par_threshold(2);
            w.add_system(sys).unwrap();
            w.add_system(OceanCurrent::new(CurrentField::Function(
                std::sync::Arc::new(|p: [f64; 3], t: f64| {
                    [0.1 * (0.01 * p[1] + 0.001 * t).sin(), 0.05, 0.0]
                }),
            )))
            .unwrap();
            let g = Graph::new(n, &gen_z_ring(n)).unwrap();
            let cfg = MediumConfig {
                bandwidth_bps: 4800.0,
                packet_drop_rate: 0.1,
                seed: 3,
                ..MediumConfig::default()
            };
            let beacons = AcousticBeacons::install(&mut w, cfg, 2.0, 256.0).unwrap();
            w.add_system(beacons).unwrap();
            w.add_system(FormationConsensus::new(
                &g,
                polygon(n, 20.0),
                0.1,
                1.0,
                Neighbours::Heard,
            ))
            .unwrap();
            w.add_system(VelocityGuidance::new(1.0)).unwrap();
            w.add_system(Autopilot::new(models, AutopilotGains::default()))
                .unwrap();
            Engine::new(0.01).run(&mut w, 100_000).unwrap();
            state_hash(&w)
        })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two, "thread count changed the result");
}

#[test]
fn the_ring_scenario_forms_within_its_bound_over_the_acoustic_channel() {
    use oceansim_swarm::fleet::ring::{run_ring_formation, RingFormationConfig};
    let cfg = RingFormationConfig {
        n: 24,
        radius_m: 30.0,
        spread_m: 120.0,
        duration_s: 300.0,
        ..RingFormationConfig::default()
    };
    let run = run_ring_formation(&cfg).unwrap();
    assert!(run.errors[0] > 20.0, "starts scattered: {}", run.errors[0]);
    assert!(
        run.final_error_m() < 0.5,
        "final error {}",
        run.final_error_m()
    );
    let [tx, delivered, lost, ..] = run.acoustic;
    // 24 vehicles every 3 s for 300 s, each heard by 23 others, 5% lost.
    assert_eq!(tx, 24 * 100);
    assert!(lost > 0 && delivered + lost <= tx * 23);
}

#[test]
fn the_autopilot_holds_station_against_a_current() {
    // Speed reference 0 in a 0.36 m/s current: drag is cancelled in
    // the water's frame, so the ground velocity loop settles at rest.
    let (mut w, models) = fleet(1, &[bluerov()], &[0.0, 0.0, 10.0]);
    w.add_system(OceanCurrent::new(CurrentField::Uniform([0.2, 0.3, 0.0])))
        .unwrap();
    w.add_system(Autopilot::new(models, AutopilotGains::default()))
        .unwrap();
    w.set(names::DEPTH_REF, &[10.0]).unwrap();
    let mut e = Engine::new(0.02);
    e.run_for(&mut w, 60.0).unwrap();
    let p0 = w.get::<f64>(names::P).unwrap().to_vec();
    e.run_for(&mut w, 100.0).unwrap();
    let p1 = w.get::<f64>(names::P).unwrap();
    let drift = (p1[0] - p0[0]).hypot(p1[1] - p0[1]);
    // An unpowered vehicle would have drifted 36 m in those 100 s.
    assert!(drift < 0.05, "drifted {drift} m");
    assert!((p1[2] - 10.0).abs() < 0.05);
}
