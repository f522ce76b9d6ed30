//! Ray casts per second and agreement, hand-written geometry vs parry3d,
//! on the default scenario (Static_Map, seed 0) from the AUV's start pose.
//!
//! The same 4,096 rays (a golden-angle spiral over the lower hemisphere,
//! to 60 m) are cast against: the simulator's `SceneView` (bilinear
//! seabed patches walked cell by cell, analytic obstacles, a bounding-
//! sphere broad phase done once per origin), and a parry3d `Compound` of
//! a `HeightField` (the same seabed samples, each cell as two triangles)
//! and the obstacles as parry shapes, under parry's BVH. Frames: parry's Y
//! is up, so user (x, y, z) maps to (x, z, −y), Godot's axes.

use nalgebra::Vector3;
use oceansim_protocol::payload::ObstacleShape as ObShape;
use oceansim_scene::raycast::{Hit, SceneView};
use oceansim_scene::scenario::load as load_scenario;
use oceansim_scene::Scene;
use oceansim_vehicles::frames::{Godot, User};
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::query::Ray;
use parry3d_f64::shape::SharedShape;
use parry3d_f64::utils::Array2;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn to_parry(v: &Vector3<f64>) -> Vector {
    Vector::new(v.x, v.z, -v.y)
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1.0);
    let loaded = Arc::new(load_scenario("Static_Map").expect("the default scenario loads"));
    let start = User::from(Godot(loaded.main_agent().location));
    let scene = Scene::new(loaded, 0, start);
    let o = Vector3::from(start.0);

    // The seabed as a parry height field over the same nodes.
    let [x0, x1, y0, y1] = scene.terrain.bounds();
    let cell = scene.terrain.cell_m();
    let (ncols, nrows) = (
        ((x1 - x0) / cell).round() as usize + 1,
        ((y1 - y0) / cell).round() as usize + 1,
    );
    let (sx, sz) = ((ncols - 1) as f64 * cell, (nrows - 1) as f64 * cell);
    let (xc, zc) = (x0 + sx / 2.0, -(y0 + sz / 2.0));
    let mut heights = Vec::with_capacity(nrows * ncols);
    // Column-major: row i (parry Z from −sz/2) varies fastest.
    for j in 0..ncols {
        for i in 0..nrows {
            let x = xc - sx / 2.0 + j as f64 * cell;
            let z = zc - sz / 2.0 + i as f64 * cell;
            heights.push(scene.terrain.height(x, -z));
        }
    }
    let field =
        SharedShape::heightfield(Array2::new(nrows, ncols, heights), Vector::new(sx, 1.0, sz));
    let mut parts = vec![(Pose::from_translation(Vector::new(xc, 0.0, zc)), field)];
    let mut skipped = 0;
    for ob in scene.obstacles.iter() {
        if ob.rotation.is_some() {
            skipped += 1;
            continue;
        }
        let [a, b, h] = ob.half_extents;
        let shape = match ob.shape {
            ObShape::Sphere => SharedShape::ball(a),
            ObShape::Box => SharedShape::cuboid(a, h, b),
            ObShape::Cylinder => SharedShape::cylinder(h, a),
        };
        let c = Vector3::from(ob.center);
        parts.push((Pose::from_translation(to_parry(&c)), shape));
    }
    let compound = SharedShape::compound(parts);
    let identity = Pose::IDENTITY;

    let dirs: Vec<Vector3<f64>> = (0..4096)
        .map(|i| {
            let f = (i as f64 + 0.5) / 4096.0;
            let z = -f;
            let az = i as f64 * 2.399_963;
            let r = (1.0 - z * z).sqrt();
            Vector3::new(r * az.cos(), r * az.sin(), z)
        })
        .collect();
    let max = 60.0;
    let view = SceneView {
        terrain: &scene.terrain,
        obstacles: &scene.obstacles,
        bodies: &[],
    };
    let near = view.candidates(&o, max);
    // The simulator continues the seabed past the map's edge (rays that
    // leave the map still find a bottom); the height field ends there.
    // Compare on the rays whose return lies on the map.
    let all = dirs.len();
    let dirs: Vec<Vector3<f64>> = dirs
        .into_iter()
        .filter(|d| {
            let (t, h) = view.raycast_among(&o, d, max, &near);
            let p = o + d * t;
            h != Hit::None && p.x > x0 && p.x < x1 && p.y > y0 && p.y < y1
        })
        .collect();

    // Agreement.
    let (mut both, mut only_ours, mut only_parry, mut diffs) = (0, 0, 0, Vec::new());
    for d in &dirs {
        let (t, h) = view.raycast_among(&o, d, max, &near);
        let ray = Ray::new(to_parry(&o), to_parry(d));
        let p = compound.cast_ray(&identity, &ray, max, true);
        match (h != Hit::None, p) {
            (true, Some(tp)) => {
                both += 1;
                diffs.push((t - tp).abs());
            }
            (true, None) => only_ours += 1,
            (false, Some(_)) => only_parry += 1,
            (false, None) => {}
        }
    }
    diffs.sort_by(f64::total_cmp);
    let q = |f: f64| {
        diffs
            .get(((diffs.len() as f64 - 1.0) * f) as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };

    let time = |f: &mut dyn FnMut() -> u64| {
        let started = Instant::now();
        let mut casts = 0u64;
        while started.elapsed().as_secs_f64() < secs {
            casts += f();
        }
        casts as f64 / started.elapsed().as_secs_f64()
    };
    let mut ours = || {
        for d in &dirs {
            black_box(view.raycast_among(&o, d, max, &near));
        }
        dirs.len() as u64
    };
    let mut theirs = || {
        for d in &dirs {
            let ray = Ray::new(to_parry(&o), to_parry(d));
            black_box(compound.cast_ray(&identity, &ray, max, true));
        }
        dirs.len() as u64
    };
    // Interleaved, best of three each.
    let (mut a, mut b) = (0.0f64, 0.0f64);
    for _ in 0..3 {
        a = a.max(time(&mut ours));
        b = b.max(time(&mut theirs));
    }
    println!(
        "ray casts on Static_Map (seed 0) from the AUV start, {} of {all} spiral rays (those returning on the map) to {max} m, one core, best of 3 x {secs} s",
        dirs.len()
    );
    println!("  hand-written SceneView   {:>6.2} million/s", a / 1e6);
    println!(
        "  parry3d-f64 Compound     {:>6.2} million/s   ({:.2}x the hand-written path)",
        b / 1e6,
        b / a
    );
    println!(
        "  agreement: {both} rays hit in both, {only_ours} only hand-written, {only_parry} only parry; |dt| median {:.4} m, p99 {:.4} m, max {:.4} m",
        q(0.5),
        q(0.99),
        q(1.0)
    );
    println!("  ({} obstacles, {skipped} rotated ones left out of the parry scene; the seabed differs by construction: bilinear patches vs two triangles per cell)", scene.obstacles.len());
}
