//! The seabed's ray casts against a dense march and against each other
//! (the block walk and the cell walk, on and off the map), and the normal
//! at a hit against its patch's gradient.

use super::*;
use proptest::prelude::*;

fn terrain() -> Terrain {
    Terrain::generate(TerrainSpec {
        size_m: [30.0, 30.0],
        floor_depth_m: 15.0,
        relief_m: 4.0,
        feature_scale_m: 3.0,
        canyon_width_m: Some(8.0),
        canyon_wall_height_m: 10.0,
        seed: 3,
    })
}

/// First crossing by a dense 1 cm march.
fn brute(t: &Terrain, o: &Vector3<f64>, d: &Vector3<f64>, max: f64) -> Option<f64> {
    let mut s = 0.0;
    while s <= max {
        let p = o + d * s;
        if p.z <= t.height(p.x, p.y) {
            return Some(s);
        }
        s += 0.01;
    }
    None
}

proptest! {
    // About 40 % of random origins are under the seabed and rejected.
    #![proptest_config(ProptestConfig { cases: 300, max_global_rejects: 1_000_000, ..ProptestConfig::default() })]
    #[test]
    fn ray_casts_agree_with_a_dense_march(x in -12.0f64..12.0, y in -12.0f64..12.0, z in -14.0f64..-1.0,
                                                 az in 0.0f64..std::f64::consts::TAU, el in -1.5f64..0.6) {
        let t = terrain();
        let o = Vector3::new(x, y, z);
        prop_assume!(o.z > t.height(x, y) + 0.05);
        let d = Vector3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin());
        let fast = t.raycast(&o, &d, 30.0);
        let slow = brute(&t, &o, &d, 30.0);
        // Both sample at 1 cm, so each may step over a graze (the ray
        // dips under a ridge for less than 1 cm) the other lands in. A
        // tracer hit must lie on the seabed; a march hit the tracer
        // skipped must be a graze: 1 cm further the ray is above again.
        let gap = |s: f64| {
            let p = o + d * s;
            p.z - t.height(p.x, p.y)
        };
        let on_seabed = |s: f64| gap(s) < 1e-3;
        let graze = |s: f64| gap(s + 0.01) > 0.0;
        match (fast, slow) {
            (Some(a), Some(b)) if (a - b).abs() < 0.02 => {}
            (Some(a), Some(b)) => prop_assert!(
                on_seabed(a) && (a < b || graze(b)),
                "fast {a} vs dense {b}"
            ),
            (Some(a), None) => prop_assert!(on_seabed(a), "fast {a} vs no dense hit"),
            (None, None) => {}
            (None, Some(b)) => prop_assert!(b > 29.95 || graze(b), "missed the dense hit at {b}"),
        }
    }

    // Origins on and off the 30 m map, rays out past its edge: the
    // block level skips only what the cell walk would, to the bit.
    #[test]
    fn the_block_walk_equals_the_cell_walk(x in -40.0f64..40.0, y in -40.0f64..40.0, z in -30.0f64..-1.0,
                                            az in 0.0f64..std::f64::consts::TAU, el in -1.5f64..0.6) {
        let t = terrain();
        let o = Vector3::new(x, y, z);
        prop_assume!(o.z > t.height(x, y) + 0.05);
        let d = Vector3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin());
        prop_assert_eq!(t.raycast_in(&o, &d, 80.0, true), t.raycast_in(&o, &d, 80.0, false));
    }

    // Beyond the map the seabed is its edge extended: rays there meet
    // it where a dense march over the clamped heights does.
    #[test]
    fn ray_casts_off_the_map_agree_with_a_dense_march(x in 16.0f64..40.0, y in -40.0f64..40.0, z in -14.0f64..-1.0,
                                                       az in 0.0f64..std::f64::consts::TAU, el in -1.5f64..0.3) {
        let t = terrain();
        let o = Vector3::new(x, y, z);
        prop_assume!(o.z > t.height(x, y) + 0.05);
        let d = Vector3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin());
        let (fast, slow) = (t.raycast(&o, &d, 30.0), brute(&t, &o, &d, 30.0));
        let gap = |s: f64| {
            let p = o + d * s;
            p.z - t.height(p.x, p.y)
        };
        match (fast, slow) {
            (Some(a), Some(b)) => prop_assert!((a - b).abs() < 0.02 || (gap(a).abs() < 1e-3 && (a < b || gap(b + 0.01) > 0.0)), "fast {a} vs dense {b}"),
            (Some(a), None) => prop_assert!(gap(a).abs() < 1e-3, "fast {a} vs no dense hit"),
            (None, Some(b)) => prop_assert!(b > 29.95 || gap(b + 0.01) > 0.0, "missed the dense hit at {b}"),
            (None, None) => {}
        }
    }

    // The normal at a hit is its patch's own: a tight central difference
    // of `height` inside the cell (bilinear, so exact along each axis)
    // gives it, on the map and past its edge (cells −10 to 69 of 60).
    #[test]
    fn a_hits_normal_is_its_patchs_gradient(i in -10i64..70, j in -10i64..70, fu in 0.05f64..0.95, fv in 0.05f64..0.95) {
        let t = terrain();
        let (x, y) = (-15.0 + (i as f64 + fu) * 0.5, -15.0 + (j as f64 + fv) * 0.5);
        let o = Vector3::new(x, y, 0.0);
        let down = Vector3::new(0.0, 0.0, -1.0);
        let hit = t.raycast_hit(&o, &down, 100.0).expect("the seabed under every point");
        let p = o + down * hit.t;
        prop_assert!((p.z - t.height(x, y)).abs() < 1e-9);
        let n = hit.normal();
        let e = 1e-5;
        let dx = (t.height(x + e, y) - t.height(x - e, y)) / (2.0 * e);
        let dy = (t.height(x, y + e) - t.height(x, y - e)) / (2.0 * e);
        let expected = Vector3::new(-dx, -dy, 1.0).normalize();
        prop_assert!((n - expected).norm() < 1e-7, "{n:?} vs {expected:?}");
        prop_assert!((n.norm() - 1.0).abs() < 1e-12 && n.z > 0.0);
    }
}

#[test]
fn a_flat_seabeds_normal_is_up_and_bad_rays_miss() {
    let flat = Terrain::generate(TerrainSpec::flat([20.0, 20.0], 10.0));
    let o = Vector3::new(1.3, -2.7, -4.0);
    let d = Vector3::new(0.3, 0.1, -1.0).normalize();
    let hit = flat.raycast_hit(&o, &d, 50.0).unwrap();
    let p = o + d * hit.t;
    assert!((p.z + 10.0).abs() < 1e-12);
    assert_eq!(hit.normal(), Vector3::new(0.0, 0.0, 1.0));
    assert_eq!(hit.normal(), flat.normal(p.x, p.y));
    // Not a number or infinite anywhere in a ray: no hit (and no endless
    // walk).
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for k in 0..3 {
            let (mut o2, mut d2) = (o, d);
            o2[k] = bad;
            assert_eq!(flat.raycast(&o2, &d, 50.0), None);
            d2[k] = bad;
            assert_eq!(flat.raycast(&o, &d2, 50.0), None);
        }
        assert_eq!(flat.raycast(&o, &d, f64::NAN), None);
    }
    assert!(flat.raycast(&o, &d, f64::INFINITY).is_some());
}
