//! The binned broad phase against testing every candidate, and the
//! batched cast against one ray at a time: the same (t, hit, index,
//! normal) bit for bit on random dense scenes.

use super::{bin_of, Bins};
use crate::body::Body;
use crate::obstacle::Obstacle;
use crate::raycast::{RayHit, SceneView};
use crate::terrain::{Terrain, TerrainSpec};
use nalgebra::{Rotation3, Vector3};
use oceansim_protocol::payload::ObstacleShape;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn obstacle(rng: &mut ChaCha8Rng, i: usize) -> Obstacle {
    let shape = [
        ObstacleShape::Box,
        ObstacleShape::Sphere,
        ObstacleShape::Cylinder,
    ][i % 3];
    // Mostly small, some large (up to 6 m), a few tiny.
    let size = |rng: &mut ChaCha8Rng| match rng.gen_range(0..10) {
        0 => rng.gen_range(0.005..0.05),
        1 => rng.gen_range(2.0..6.0),
        _ => rng.gen_range(0.1..1.5),
    };
    let (a, b, c) = (size(rng), size(rng), size(rng));
    let half = match shape {
        ObstacleShape::Box => [a, b, c],
        ObstacleShape::Sphere => [a, a, a],
        ObstacleShape::Cylinder => [a, a, c],
    };
    let rotation = (rng.gen_range(0..4) != 0).then(|| {
        *Rotation3::from_euler_angles(
            rng.gen_range(-3.2..3.2),
            rng.gen_range(-3.2..3.2),
            rng.gen_range(-3.2..3.2),
        )
        .matrix()
    });
    Obstacle {
        id: format!("o{i}"),
        shape,
        center: [
            rng.gen_range(-25.0..25.0),
            rng.gen_range(-25.0..25.0),
            rng.gen_range(-19.0..-1.0),
        ],
        half_extents: half,
        rotation,
        source: None,
    }
}

fn unit(rng: &mut ChaCha8Rng) -> Vector3<f64> {
    loop {
        let v = water_point(rng, 1.0, -1.0..1.0);
        if let Some(u) = v.try_normalize(1e-3) {
            if v.norm() <= 1.0 {
                return u;
            }
        }
    }
}

/// Rays of every kind: uniform, near the poles, near azimuth ±π, and aimed
/// at a candidate's bounding sphere's rim (where padding matters).
fn ray(rng: &mut ChaCha8Rng, o: &Vector3<f64>, scene: &SceneView<'_>) -> Vector3<f64> {
    let tiny =
        |rng: &mut ChaCha8Rng| rng.gen_range(-1e-3..1e-3) * 10f64.powi(-rng.gen_range(0..12));
    match rng.gen_range(0..5) {
        0 => unit(rng),
        1 => Vector3::new(tiny(rng), tiny(rng), if rng.gen() { 1.0 } else { -1.0 }).normalize(),
        2 => Vector3::new(-1.0, tiny(rng), rng.gen_range(-1.0..1.0)).normalize(),
        _ => {
            let ob = &scene.obstacles[rng.gen_range(0..scene.obstacles.len())];
            let c = Vector3::from(ob.center) - o;
            let rim = c
                .cross(&unit(rng))
                .try_normalize(1e-9)
                .unwrap_or(Vector3::z());
            let r = ob.bounding_radius() * rng.gen_range(0.98..1.02);
            (c + rim * r).try_normalize(1e-12).unwrap_or(Vector3::x())
        }
    }
}

fn same(a: &RayHit, b: &RayHit) -> bool {
    a.t.to_bits() == b.t.to_bits()
        && a.hit == b.hit
        && a.index == b.index
        && a.normal
            .iter()
            .zip(b.normal.iter())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// A point drawn uniformly in the box |x|, |y| < `half` (m), z in `z`.
fn water_point(rng: &mut ChaCha8Rng, half: f64, z: std::ops::Range<f64>) -> Vector3<f64> {
    Vector3::new(
        rng.gen_range(-half..half),
        rng.gen_range(-half..half),
        rng.gen_range(z),
    )
}

#[test]
fn binned_rays_hit_exactly_what_testing_every_candidate_hits() {
    let terrain = Terrain::generate(TerrainSpec::flat([80.0, 80.0], 20.0));
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    let mut binned_hits = 0;
    for scene_no in 0..6 {
        let obstacles: Vec<Obstacle> = (0..300 + 40 * scene_no)
            .map(|i| obstacle(&mut rng, i))
            .collect();
        let bodies: Vec<Body> = (0..24)
            .map(|_| {
                let c = water_point(&mut rng, 20.0, -18.0..-2.0);
                Body::capsule(
                    c,
                    unit(&mut rng),
                    rng.gen_range(0.0..1.5),
                    rng.gen_range(0.05..0.6),
                )
            })
            .collect();
        let scene = SceneView {
            terrain: &terrain,
            obstacles: &obstacles,
            bodies: &bodies,
        };
        for origin_no in 0..12 {
            let o = match origin_no % 4 {
                // Inside (or at the centre of) an obstacle.
                0 => Vector3::from(obstacles[origin_no].center),
                1 => {
                    let ob = &obstacles[origin_no + 1];
                    Vector3::from(ob.center) + unit(&mut rng) * ob.bounding_radius() * 0.9
                }
                // Inside an agent.
                2 => (bodies[origin_no].a + bodies[origin_no].b) * 0.5,
                _ => water_point(&mut rng, 25.0, -19.0..-1.0),
            };
            let max = [12.0, 40.0, 120.0][origin_no % 3];
            let all = scene.candidates(&o, max);
            let binned = scene.candidates_for(&o, max, 10_000);
            assert!(binned.obstacles.len() > 16, "the binned path is exercised");
            for _ in 0..700 {
                let d = ray(&mut rng, &o, &scene);
                let a = scene.raycast_surface(&o, &d, max, &all);
                let b = scene.raycast_surface(&o, &d, max, &binned);
                assert!(
                    same(&a, &b),
                    "scene {scene_no} origin {o:?} ray {d:?}: {a:?} vs {b:?}"
                );
                binned_hits += usize::from(a.hit != crate::raycast::Hit::None);
            }
        }
    }
    assert!(binned_hits > 10_000, "rays hit things: {binned_hits}");
}

#[test]
fn bins_take_any_input_without_panicking() {
    let terrain = Terrain::generate(TerrainSpec::flat([20.0, 20.0], 10.0));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut obstacles: Vec<Obstacle> = (0..40).map(|i| obstacle(&mut rng, i)).collect();
    obstacles[0].half_extents = [f64::INFINITY; 3];
    obstacles[1].center = [f64::NAN, 0.0, -5.0];
    obstacles[2].half_extents = [0.0; 3];
    obstacles[4].half_extents = [-2.0; 3];
    let scene = SceneView {
        terrain: &terrain,
        obstacles: &obstacles,
        bodies: &[],
    };
    let o = Vector3::new(0.0, 0.0, -5.0);
    let near = scene.candidates_for(&o, 1e300, 100);
    let all = scene.candidates(&o, 1e300);
    for d in [
        Vector3::new(f64::NAN, 0.0, 0.0),
        Vector3::zeros(),
        Vector3::new(3.0, 0.0, 0.0),
        Vector3::new(f64::INFINITY, 1.0, 0.0),
        Vector3::x(),
        -Vector3::z(),
    ] {
        let a = scene.raycast_surface(&o, &d, 50.0, &all);
        let b = scene.raycast_surface(&o, &d, 50.0, &near);
        assert!(
            same(&a, &b) || (a.t.is_nan() && b.t.is_nan()),
            "{d:?}: {a:?} vs {b:?}"
        );
    }
}

/// The invariant behind the exactness: every sphere a ray passes (as
/// `nearest`'s rejection test computes it) is in the ray's bin. Rays aim
/// at the rims, where a bin's padding matters.
#[test]
fn every_sphere_a_ray_passes_is_in_its_bin() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for _ in 0..8 {
        let obstacles: Vec<Obstacle> = (0..200).map(|i| obstacle(&mut rng, i)).collect();
        let o = water_point(&mut rng, 20.0, -18.0..-2.0);
        let spheres: Vec<(Vector3<f64>, f64)> = obstacles
            .iter()
            .enumerate()
            // A negative radius (a sphere given one) too: the test squares it.
            .map(|(i, ob)| {
                let r = ob.bounding_radius();
                (Vector3::from(ob.center), if i % 10 == 0 { -r } else { r })
            })
            .collect();
        let bins = Bins::new(&o, spheres.iter().copied());
        for _ in 0..4000 {
            let (c, r) = spheres[rng.gen_range(0..spheres.len())];
            let (c, r) = (c - o, r.abs());
            let rim = c
                .cross(&unit(&mut rng))
                .try_normalize(1e-9)
                .unwrap_or(Vector3::z());
            let k = 1.0 - rng.gen_range(-1.0..1.0) * 10f64.powi(-rng.gen_range(1..10));
            let Some(d) = (c + rim * r * k).try_normalize(1e-12) else {
                continue;
            };
            let inside = bins.along(bin_of(&d).unwrap());
            for (p, (c, r)) in spheres.iter().enumerate() {
                let c = c - o;
                let along = c.dot(&d);
                let passes = !(along + r < 0.0 || c.norm_squared() - along * along > r * r);
                assert!(
                    !passes || inside.contains(&(p as u32)),
                    "sphere {p} ({c:?}, {r}) passed by {d:?} is not in its bin"
                );
            }
        }
    }
}

/// `n` agents' capsules of radius `r` m at random in the middle of the map.
fn capsules(rng: &mut ChaCha8Rng, n: usize, r: f64) -> Vec<Body> {
    (0..n)
        .map(|_| {
            let c = water_point(rng, 20.0, -18.0..-2.0);
            Body::capsule(c, unit(rng), rng.gen_range(0.0..1.5), r)
        })
        .collect()
}

/// A 60 m seabed with 4 m of relief: rays meet it, and obstacles on it.
fn relief() -> Terrain {
    Terrain::generate(TerrainSpec {
        relief_m: 4.0,
        feature_scale_m: 4.0,
        ..TerrainSpec::flat([60.0, 60.0], 20.0)
    })
}

#[test]
fn sphere_columns_hit_exactly_what_testing_every_candidate_hits() {
    let terrain = relief();
    let mut rng = ChaCha8Rng::seed_from_u64(51);
    let mut hits = 0;
    for scene_no in 0..8 {
        let obstacles: Vec<Obstacle> = (0..8 + 6 * scene_no)
            .map(|i| obstacle(&mut rng, i))
            .collect();
        let bodies = capsules(&mut rng, scene_no, 0.3);
        let scene = SceneView {
            terrain: &terrain,
            obstacles: &obstacles,
            bodies: &bodies,
        };
        for origin_no in 0..8 {
            let o = match origin_no % 2 {
                0 => Vector3::from(obstacles[origin_no].center),
                _ => water_point(&mut rng, 25.0, -19.0..-1.0),
            };
            let max = [12.0, 40.0, 120.0][origin_no % 3];
            let all = scene.candidates(&o, max);
            // Few rays: columns, no bins.
            let columns = scene.candidates_for(&o, max, 200);
            assert!(columns.has_spheres() || all.obstacles.is_empty() && all.bodies.is_empty());
            for _ in 0..500 {
                let d = ray(&mut rng, &o, &scene);
                let a = scene.raycast_surface(&o, &d, max, &all);
                let b = scene.raycast_surface(&o, &d, max, &columns);
                assert!(
                    same(&a, &b),
                    "scene {scene_no} origin {o:?} ray {d:?}: {a:?} vs {b:?}"
                );
                hits += usize::from(
                    a.hit == crate::raycast::Hit::Obstacle || a.hit == crate::raycast::Hit::Agent,
                );
            }
        }
    }
    assert!(hits > 3_000, "rays hit obstacles and agents: {hits}");
}

#[test]
fn a_fans_cone_leaves_out_only_what_its_rays_would_skip() {
    use crate::raycast::Cone;
    let terrain = relief();
    let mut rng = ChaCha8Rng::seed_from_u64(53);
    let (mut culled, mut kept, mut hits) = (0, 0, 0);
    for scene_no in 0..6 {
        let obstacles: Vec<Obstacle> = (0..30 + 10 * scene_no)
            .map(|i| obstacle(&mut rng, i))
            .collect();
        let bodies = capsules(&mut rng, 6, 0.4);
        let scene = SceneView {
            terrain: &terrain,
            obstacles: &obstacles,
            bodies: &bodies,
        };
        for fan_no in 0..12 {
            let o = water_point(&mut rng, 20.0, -15.0..-2.0);
            // A fan of rays within a random angle of a random axis, as wide
            // as a sonar's or as narrow as a camera's, some aimed at rims.
            let axis = unit(&mut rng);
            let spread = [0.2, 0.6, 1.0, 1.6][fan_no % 4];
            let rays: Vec<Vector3<f64>> = (0..400)
                .map(|_| loop {
                    let d = (axis + unit(&mut rng) * spread * rng.gen_range(0.0..1.0)).normalize();
                    if d.dot(&axis) > (spread * 0.8f64).cos() {
                        return d;
                    }
                })
                .collect();
            let max = 40.0;
            let cone = Cone::around(rays.iter());
            let all = scene.candidates(&o, max);
            let near = scene.candidates_within(&o, max, rays.len(), cone.as_ref());
            culled +=
                all.obstacles.len() + all.bodies.len() - near.obstacles.len() - near.bodies.len();
            kept += near.obstacles.len() + near.bodies.len();
            for d in &rays {
                let a = scene.raycast_surface(&o, d, max, &all);
                let b = scene.raycast_surface(&o, d, max, &near);
                assert!(
                    same(&a, &b),
                    "scene {scene_no} fan {fan_no} ray {d:?}: {a:?} vs {b:?}"
                );
                hits += usize::from(matches!(
                    a.hit,
                    crate::raycast::Hit::Obstacle | crate::raycast::Hit::Agent
                ));
            }
        }
    }
    assert!(
        culled > 200 && kept > 200,
        "cones cull some and keep some: {culled} / {kept}"
    );
    assert!(hits > 2_000, "rays hit obstacles and agents: {hits}");
}

#[test]
fn a_batched_cast_equals_one_ray_at_a_time() {
    let terrain = relief();
    let mut rng = ChaCha8Rng::seed_from_u64(71);
    let mut kinds = [0usize; 4];
    for scene_no in 0..4 {
        let obstacles: Vec<Obstacle> = (0..20 + 10 * scene_no)
            .map(|i| obstacle(&mut rng, i))
            .collect();
        let bodies = capsules(&mut rng, 12, 1.5);
        let scene = SceneView {
            terrain: &terrain,
            obstacles: &obstacles,
            bodies: &bodies,
        };
        // Batches of 64: fans shorter, equal, one past and several.
        for n in [1, 63, 64, 65, 300] {
            let o = water_point(&mut rng, 20.0, -15.0..-2.0);
            let rays: Vec<Vector3<f64>> = (0..n).map(|_| unit(&mut rng)).collect();
            let near = scene.candidates(&o, 40.0);
            let mut batched = vec![scene.raycast_surface(&o, &rays[0], 40.0, &near); n];
            batched[0].t = f64::NAN;
            scene.raycast_surfaces(&o, &rays, 40.0, &near, &mut batched);
            for (d, b) in rays.iter().zip(&batched) {
                let a = scene.raycast_surface(&o, d, 40.0, &near);
                assert!(
                    same(&a, b),
                    "scene {scene_no}, {n} rays, {d:?}: {a:?} vs {b:?}"
                );
                kinds[a.hit as usize] += 1;
            }
        }
    }
    assert!(
        kinds.iter().all(|&k| k > 20),
        "misses, seabed, obstacles and agents: {kinds:?}"
    );
}
