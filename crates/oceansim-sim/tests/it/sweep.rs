//! Swept contacts: however far an agent travels in one tick, it never ends
//! the tick inside or beyond a thin wall, another agent, the seabed or the
//! map edge. The fast cases of issue #26 item 14: a 5 cm proxy at the
//! 20 m/s limit, the 0.1 s tick (2 m per tick), 0.2 m walls, walls turned
//! about the vertical, the main AUV held against a wall at full force, two
//! fast proxies head-on, a fast proxy into the AUV's hull, the seabed, a
//! canyon wall and the map edge; and a property test over random thin
//! walls, sizes, speeds, directions and ticks.

use crate::common::*;
use nalgebra::Vector3;
use oceansim_sim::{names, Scene, SimConfig, Simulation};
use proptest::prelude::*;
use serde_json::json;

/// A paused, deterministic simulation of `scenario` at `tick_s`, `step`
/// advancing 0.1 s.
fn sim_at(scenario: &str, tick_s: f64) -> Simulation {
    sim_stepping(scenario, tick_s, 0.1)
}

/// [`sim_at`] with `step` advancing `step_period_s`.
fn sim_stepping(scenario: &str, tick_s: f64, step_period_s: f64) -> Simulation {
    Simulation::new(SimConfig {
        scenario: scenario.into(),
        tick_s,
        step_period_s,
        paused: true,
        deterministic: true,
        export_root: std::env::temp_dir().join("oceansim-sim-tests"),
        // Contacts only: no imaging sensor need render.
        record_sensor_data: false,
        ..SimConfig::default()
    })
    .expect("scenario loads")
}

/// User frame (x east, y north, z up) to Godot (X east, Y up, Z south).
fn godot(u: [f64; 3]) -> [f64; 3] {
    [u[0], u[2], -u[1]]
}

fn with_scene<R>(s: &Simulation, f: impl FnOnce(&Scene) -> R) -> R {
    let h = s
        .world()
        .resource_handle::<Scene>(names::SCENE)
        .expect("the scene resource");
    f(&s.world().resource(h))
}

/// A proxy of radius `r` at `at`, driven at `vel` (user frame, m, m/s).
fn proxy(s: &mut Simulation, id: &str, at: [f64; 3], r: f64, vel: [f64; 3]) {
    ok(
        s,
        "spawn_agent",
        json!({"agent_name": id, "location": godot(at), "size_m": r}),
    );
    ok(
        s,
        "set_agent_velocity",
        json!({"id": id, "velocity": godot(vel)}),
    );
}

fn centre(s: &mut Simulation, id: &str) -> Vector3<f64> {
    Vector3::from(v3(&agent(s, id)["position"]))
}

/// A vertical box wall `thickness` m thick, `length` m long, from below
/// the seabed to above the surface, its mid-plane through `at` (user) and
/// turned `yaw` degrees about the vertical; returns its centre and the unit
/// normal of its thin axis (user frame).
fn wall(
    s: &mut Simulation,
    at: [f64; 2],
    yaw: f64,
    length: f64,
    thickness: f64,
) -> (Vector3<f64>, Vector3<f64>) {
    ok(
        s,
        "spawn_obstacle",
        json!({"id": "wall", "shape": "box", "position": godot([at[0], at[1], -10.0]),
               "size": [length, 80.0, thickness], "rotation": [0.0, yaw, 0.0]}),
    );
    with_scene(s, |sc| {
        let w = sc.obstacles.iter().find(|o| o.id == "wall").expect("wall");
        let n = w.rotation.map_or(Vector3::y(), |r| r * Vector3::y());
        (Vector3::from(w.center), n)
    })
}

/// How deep a sphere at `c` of radius `r` sinks into any obstacle (m).
fn obstacle_depth(s: &Simulation, c: &Vector3<f64>, r: f64) -> f64 {
    with_scene(s, |sc| {
        sc.obstacles
            .iter()
            .filter_map(|o| o.sphere_contact(c, r).map(|(_, d)| d))
            .fold(0.0, f64::max)
    })
}

/// How deep a sphere at `c` of radius `r` sinks into the seabed (m), and
/// how far its centre is above the seabed straight below it.
fn seabed(s: &Simulation, c: &Vector3<f64>, r: f64) -> (f64, f64) {
    with_scene(s, |sc| {
        let depth = sc.terrain.sphere_contact(c, r).map_or(0.0, |(_, d)| d);
        (depth, c.z - sc.terrain.height(c.x, c.y))
    })
}

/// What the seabed's tangent-plane model may leave of a push in concave
/// relief (its plane turns as the body moves out); the next tick takes it
/// up. A body that passed under the seabed would be metres off.
const SEABED_RESIDUE_M: f64 = 1e-4;

/// Static_Map: a 0.2 m wall across the whole map and water column, its
/// near (north) face at y = 11.3, the far one at 11.1.
const WALL_Y: f64 = 11.2;

/// The issue's repro at `tick_s`: a 5 cm proxy from y0 driven south at
/// 20 m/s into the wall for 3 s; it used to end at y = -19.95, against the
/// map's far edge. It must end on the near side, against the wall, not
/// moving into it.
fn fast_proxy_into_the_thin_wall(tick_s: f64, y0: f64) {
    let mut s = sim_at("Static_Map", tick_s);
    wall(&mut s, [0.0, WALL_Y], 0.0, 40.0, 0.2);
    proxy(&mut s, "dart", [5.0, y0, -5.0], 0.05, [0.0, -20.0, 0.0]);
    steps(&mut s, 30, json!({}));
    let a = agent(&mut s, "dart");
    let y = v3(&a["position"])[1];
    let near = WALL_Y + 0.1 + 0.05;
    assert!(
        (y - near).abs() < 1e-6,
        "tick {tick_s} s from y {y0}: ended at y = {y} (the near face is at {})",
        WALL_Y + 0.1
    );
    assert_eq!(a["contacts"], 1, "{a}");
    assert!(a["velocity"][1].as_f64().unwrap().abs() < 1e-9, "{a}");
}

#[test]
fn the_issue_repro_a_small_fast_proxy_stops_at_a_thin_wall() {
    // 0.2 m per tick: where the tick's end falls relative to the wall
    // decides which face the old projection chose, so try four phases.
    for y0 in [15.0, 15.05, 15.1, 15.15] {
        fast_proxy_into_the_thin_wall(0.01, y0);
    }
}

#[test]
fn at_the_largest_tick_a_small_fast_proxy_stops_at_a_thin_wall() {
    // 2 m per tick: ten times the wall's thickness.
    for y0 in [15.0, 15.5, 16.0, 16.5] {
        fast_proxy_into_the_thin_wall(0.1, y0);
    }
}

#[test]
fn turned_thin_walls_hold_a_fast_proxy() {
    for (yaw, tick) in [(30.0, 0.1), (-45.0, 0.1), (60.0, 0.05), (75.0, 0.01)] {
        let mut s = sim_at("PaleMap", tick);
        let (c, n) = wall(&mut s, [0.0, 15.0], yaw, 200.0, 0.2);
        // From 4 m north of the wall's centre, straight south.
        let start = c + Vector3::new(0.0, 4.0, 0.0);
        let side = n.dot(&(start - c)).signum();
        proxy(
            &mut s,
            "dart",
            [start.x, start.y, -5.0],
            0.05,
            [0.0, -20.0, 0.0],
        );
        steps(&mut s, 20, json!({}));
        let p = centre(&mut s, "dart");
        let d = side * n.dot(&(p - c));
        assert!(
            d >= 0.1 + 0.05 - 1e-6,
            "yaw {yaw}°, tick {tick} s: {d} m from the mid-plane, at {p:?}"
        );
        assert!(obstacle_depth(&s, &p, 0.05) < 1e-6, "{p:?}");
    }
}

/// The main AUV at Godot `at`, turned `rotation` (Godot degrees), pushed
/// north at full force for 30 s at the 0.1 s tick against a 0.2 m wall
/// with faces at user y 9.9 and 10.1, reaching the seabed and past both
/// map edges (it slides along to the edge): no point of its hull may pass
/// y 9.9 after any tick.
fn auv_held_against_the_wall(at: [f64; 3], rotation: [f64; 3]) {
    let mut s = sim_at("Static_Map", 0.1);
    ok(
        &mut s,
        "spawn_obstacle",
        json!({"id": "wall", "shape": "box", "position": [0.0, -6.0, -10.0], "size": [60.0, 40.0, 0.2]}),
    );
    ok(
        &mut s,
        "move_agent",
        json!({"id": "auv/main", "position": at, "rotation": rotation}),
    );
    // The torpedo's hull: radius 0.0955 m, 1.33 m long.
    let (r, half) = (0.0955, 0.665 - 0.0955);
    for k in 0..300 {
        ok(&mut s, "step", json!({"force": [0.0, 1e5, 0.0]}));
        let st = s.vehicle_state(None).expect("the AUV");
        // NED to user, and the hull's axis.
        let p = Vector3::new(st.position_ned.y, st.position_ned.x, -st.position_ned.z);
        let ax = st.attitude * Vector3::x();
        let ax = Vector3::new(ax.y, ax.x, -ax.z);
        let front = p.y + half * ax.y.abs() + r;
        assert!(
            front <= 9.9 + 1e-6,
            "{rotation:?}, step {k}: the hull reaches y = {front} (the wall's face is at 9.9), centre {p:?}"
        );
    }
    let st = ok(&mut s, "get_state", json!({}));
    let contacts = st["contacts"].as_array().unwrap();
    assert!(contacts.iter().any(|c| c["id"] == "wall"), "{contacts:?}");
}

#[test]
fn the_main_auv_nose_first_at_full_force_and_the_largest_tick_stays_behind_a_thin_wall() {
    // The hull lies along y.
    auv_held_against_the_wall([10.0, -6.0, -6.0], [0.0, 0.0, 0.0]);
}

#[test]
fn the_main_auv_sideways_at_full_force_and_the_largest_tick_stays_behind_a_thin_wall() {
    // Turned to lie along x, it slides along the wall into the corner with
    // the map's edge. A guard for the sweep of the hull's side samples:
    // this one held before too (sway damping keeps it under a hull radius
    // a tick).
    auv_held_against_the_wall([10.0, -8.5, -6.0], [0.0, -90.0, 0.0]);
}

#[test]
fn two_small_fast_proxies_head_on_do_not_pass_through_each_other() {
    // 4 m a tick closing speed, 0.1 m between their centres at contact.
    let mut s = sim_at("PaleMap", 0.1);
    proxy(&mut s, "left", [-5.0, 10.0, -5.0], 0.05, [20.0, 0.0, 0.0]);
    proxy(&mut s, "right", [5.0, 10.0, -5.0], 0.05, [-20.0, 0.0, 0.0]);
    steps(&mut s, 5, json!({}));
    let (l, r) = (centre(&mut s, "left"), centre(&mut s, "right"));
    assert!(
        r.x - l.x > 0.1 - 1e-6 && r.x - l.x < 0.1 + 0.01,
        "touching, in their order: left {l:?}, right {r:?}"
    );
    assert_eq!(agent(&mut s, "left")["contacts"], 1);
}

#[test]
fn a_small_fast_proxy_does_not_pass_through_the_main_auv() {
    let mut s = sim_at("PaleMap", 0.1);
    // PaleMap's AUV rests at user (0, 0, -5), its hull along y.
    proxy(&mut s, "dart", [8.0, 0.2, -5.0], 0.05, [-20.0, 0.0, 0.0]);
    for k in 0..10 {
        ok(&mut s, "step", json!({}));
        let st = s.vehicle_state(None).expect("the AUV");
        let auv = Vector3::new(st.position_ned.y, st.position_ned.x, -st.position_ned.z);
        let ax = st.attitude * Vector3::x();
        let ax = Vector3::new(ax.y, ax.x, -ax.z);
        let p = centre(&mut s, "dart");
        let hull = oceansim_sim::Body::capsule(auv, ax, 0.665 - 0.0955, 0.0955);
        let gap = (p - hull.closest_on_axis(&p)).norm() - 0.0955 - 0.05;
        assert!(
            gap > -1e-6,
            "step {k}: the proxy at {p:?} is inside the hull ({gap})"
        );
        assert!(
            p.x > auv.x,
            "step {k}: it went through: {p:?} vs the AUV at {auv:?}"
        );
    }
}

#[test]
fn a_fast_proxy_ends_on_the_seabed_not_under_it() {
    // Straight down, and slanting down at the 20 m/s limit, 2 m per tick.
    for vel in [[0.0, 0.0, -20.0], [12.0, 0.0, -16.0], [0.0, -19.0, -6.0]] {
        let mut s = sim_at("Static_Map", 0.1);
        proxy(&mut s, "diver", [5.0, 12.0, -5.0], 0.05, vel);
        steps(&mut s, 10, json!({}));
        let p = centre(&mut s, "diver");
        let (depth, above) = seabed(&s, &p, 0.05);
        assert!(
            depth < SEABED_RESIDUE_M && above > 0.0,
            "{vel:?}: at {p:?}, {depth} m into the seabed"
        );
    }
}

#[test]
fn a_fast_proxy_stops_at_a_steep_canyon_wall() {
    // NarrowMap: an 8 m canyon along y; its walls rise 18 m over 3 m from
    // |x| = 4. Driven east at 20 m/s, 4 m above the canyon floor.
    for vel in [[20.0, 0.0, 0.0], [-20.0, 0.0, 0.0], [16.0, 6.0, -10.0]] {
        let mut s = sim_at("NarrowMap", 0.1);
        proxy(&mut s, "diver", [0.0, 0.0, -20.0], 0.05, vel);
        steps(&mut s, 10, json!({}));
        let p = centre(&mut s, "diver");
        let (depth, above) = seabed(&s, &p, 0.05);
        assert!(
            depth < SEABED_RESIDUE_M && above > 0.0,
            "{vel:?}: at {p:?}, {above} m above the seabed under it, {depth} m into it"
        );
        assert!(p.x.abs() < 6.0, "{vel:?}: through the wall to {p:?}");
    }
}

#[test]
fn fast_proxies_still_slide_along_what_they_touch() {
    // Frictionless, as the projection always was: the part of the motion
    // along the surface is kept. Into PaleMap's wall at 45°: it goes on
    // east at 10 m/s along it.
    let mut s = sim_at("PaleMap", 0.1);
    wall(&mut s, [0.0, 15.0], 0.0, 200.0, 0.2);
    proxy(
        &mut s,
        "skater",
        [-20.0, 17.0, -5.0],
        0.05,
        [10.0, -10.0, 0.0],
    );
    steps(&mut s, 10, json!({}));
    let p = centre(&mut s, "skater");
    assert!(
        (p.y - (15.1 + 0.05)).abs() < 1e-6,
        "against the wall: {p:?}"
    );
    assert!(p.x > -20.0 + 10.0 - 2.0, "slid along it: {p:?}");
    // Pressed into the seabed while driven east at 20 m/s: it slides over
    // the relief instead of stopping where it first touched.
    let mut s = sim_at("PaleMap", 0.1);
    proxy(
        &mut s,
        "sled",
        [-20.0, -10.0, -12.0],
        0.05,
        [19.0, 0.0, -6.0],
    );
    steps(&mut s, 15, json!({}));
    let p = centre(&mut s, "sled");
    let (depth, above) = seabed(&s, &p, 0.05);
    assert!(depth < SEABED_RESIDUE_M && above > 0.0, "{p:?}");
    assert!(above < 0.2, "on the seabed: {p:?}");
    assert!(p.x > -20.0 + 19.0, "slid on: {p:?}");
}

#[test]
fn a_fast_proxy_stops_at_the_map_edge() {
    // PaleMap is 60 m wide: the edge is at x = 30.
    let mut s = sim_at("PaleMap", 0.1);
    proxy(&mut s, "runner", [25.0, 10.0, -5.0], 0.05, [20.0, 0.0, 0.0]);
    steps(&mut s, 10, json!({}));
    let p = centre(&mut s, "runner");
    assert!((p.x - (30.0 - 0.05)).abs() < 1e-9, "{p:?}");
}

#[test]
fn a_scenario_proxy_under_a_millimetre_is_refused_as_spawn_agent_refuses_it() {
    // The smallest body the sweep is stated for is the smallest either
    // entry point accepts.
    let mut s = sim_at("PaleMap", 0.1);
    let tiny = json!({"agent_name": "speck", "location": [0.0, -5.0, -5.0], "size_m": 5e-4});
    assert_eq!(code(&mut s, "spawn_agent", tiny), "invalid_message");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Tiny.json");
    let mut v: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../assets/scenarios/Dynamic_Map.json"
    ))
    .unwrap();
    let agents = v["agents"].as_array_mut().unwrap();
    let proxy = agents
        .iter_mut()
        .find(|a| a.get("size_m").is_some())
        .unwrap();
    proxy["size_m"] = json!(5e-4);
    std::fs::write(&path, v.to_string()).unwrap();
    let refused = Simulation::new(SimConfig {
        scenario: path.to_string_lossy().into_owned(),
        paused: true,
        export_root: dir.path().join("exports"),
        ..SimConfig::default()
    });
    let Err(e) = refused else {
        panic!("a 0.5 mm scenario proxy was accepted");
    };
    assert!(
        e.to_string().contains("size_m must be in [0.001, 100] m"),
        "{e}"
    );
    let [lo, hi] = oceansim_sim::PROXY_SIZE_RANGE_M;
    assert_eq!((lo, hi), (1e-3, 100.0));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// A proxy of any allowed size, at any speed up to the limit, in any
    /// direction toward a thin vertical wall (down to a micrometre) turned
    /// any way, at any tick, never ends inside the wall or beyond it.
    #[test]
    fn no_proxy_ends_inside_or_beyond_a_thin_wall(
        yaw in -80.0f64..80.0,
        log_thickness in -6.0f64..-0.3,
        r in 0.001f64..1.0,
        speed in 0.1f64..20.0,
        off in -1.2f64..1.2,
        climb in -0.6f64..0.6,
        gap in 0.0f64..6.0,
        tick in prop::sample::select(vec![0.01, 0.02, 0.05, 0.1]),
    ) {
        // From a micrometre (any positive box size is accepted) to 0.5 m.
        let thickness = 10f64.powf(log_thickness);
        let mut s = sim_at("PaleMap", tick);
        let (c, n) = wall(&mut s, [0.0, 15.0], yaw, 200.0, thickness);
        let n = if n.y < 0.0 { -n } else { n };
        // Start on the north side, `gap` m clear of the wall, 5 m deep:
        // clear of PaleMap's boulders (they rise at most 6 m off its 15 to
        // 17 m deep seabed).
        let mut start = c + n * (thickness / 2.0 + r + 0.01 + gap);
        start.z = -5.0;
        // Toward the wall: within 69° of its normal, climbing or diving.
        let t = n.cross(&Vector3::z());
        let dir = (-n + t * off.tan().clamp(-2.5, 2.5) + Vector3::z() * climb).normalize();
        let v = dir * speed;
        proxy(&mut s, "dart", start.into(), r, v.into());
        let n_steps = ((2.0 * (gap + 1.0) / speed) / 0.1).ceil().clamp(5.0, 40.0) as usize;
        steps(&mut s, n_steps, json!({}));
        let p = centre(&mut s, "dart");
        let d = n.dot(&(p - c));
        prop_assert!(
            d >= thickness / 2.0 + r - 1e-6,
            "ended {d} m from the mid-plane (half thickness {}, r {r}) at {p:?}", thickness / 2.0
        );
        let wall_depth = with_scene(&s, |sc| {
            sc.obstacles.iter().find(|o| o.id == "wall")
                .and_then(|o| o.sphere_contact(&p, r)).map_or(0.0, |x| x.1)
        });
        prop_assert!(wall_depth < 1e-6, "{wall_depth} m into the wall at {p:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// Two proxies of any allowed sizes driven at each other at any speeds,
    /// offset sideways by less than their radii's sum (so they must meet),
    /// at any tick: after every tick they do not overlap, and between two
    /// ticks neither passed through the other (the line between their
    /// relative positions stays clear of a sphere of half that sum; over
    /// several ticks they may slide around each other, frictionless).
    #[test]
    fn two_proxies_driven_at_each_other_never_pass_through(
        r1 in 0.001f64..0.5,
        r2 in 0.001f64..0.5,
        v1 in 0.1f64..20.0,
        v2 in 0.1f64..20.0,
        off in -0.9f64..0.9,
        gap in 0.0f64..8.0,
        tick in prop::sample::select(vec![0.01, 0.02, 0.05, 0.1]),
    ) {
        // One tick a step.
        let mut s = sim_stepping("PaleMap", tick, tick);
        let sum = r1 + r2;
        let a = [-gap / 2.0 - r1 - 0.01, 10.0, -5.0];
        let b = [gap / 2.0 + r2 + 0.01, 10.0 + off * sum, -5.0];
        proxy(&mut s, "a", a, r1, [v1, 0.0, 0.0]);
        proxy(&mut s, "b", b, r2, [-v2, 0.0, 0.0]);
        let mut before = Vector3::from(b) - Vector3::from(a);
        for k in 0..(1.0 / tick) as usize {
            ok(&mut s, "step", json!({}));
            let q = centre(&mut s, "b") - centre(&mut s, "a");
            prop_assert!(q.norm() >= sum - 1e-6, "step {k}: overlapping, {} apart", q.norm());
            let d = q - before;
            let t = if d.norm_squared() > 0.0 {
                (-before.dot(&d) / d.norm_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let closest = (before + d * t).norm();
            prop_assert!(
                closest >= sum / 2.0,
                "step {k}: passed within {closest} m (radii {r1} + {r2}) from {before:?} to {q:?}"
            );
            before = q;
        }
    }
}
