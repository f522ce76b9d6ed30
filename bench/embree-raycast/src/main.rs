//! Rays per second per core, the simulator's geometry beside Intel Embree 3,
//! on the default scenario (Static_Map, seed 0) from the AUV's start, in
//! one run:
//!
//! - **spiral**: 4,096 rays over the lower hemisphere to 60 m (a
//!   golden-angle spiral, as `bench/parry-raycast` casts; incoherent);
//! - **camera**: the default vehicle's 320 × 240 perception camera's
//!   pixel rays (90° across, looking north and 50° down from the start;
//!   coherent), to 60 m.
//!
//! Ours: `SceneView::raycast_surfaces` (the fan in batches, normals in a
//! second pass; also one ray at a time, `raycast_surface`) with the broad
//! phase (the candidates the fan's cone may reach) done once per sample
//! and timed with it, as the sensors cast (bilinear seabed patches with
//! their own normals, analytic obstacles, f64). Embree: the same scene triangulated (two triangles per
//! seabed cell over the same nodes; spheres and cylinders as 48-segment
//! meshes; f32), one ray at a time (`rtcIntersect1`) and, for the camera,
//! in packets of eight (`rtcIntersect8`); one thread (`threads=1`).
//! Frames: both in the user frame (x east, y north, z up).
//!
//! ```text
//! apt-get install libembree-dev
//! cargo run --release --manifest-path bench/embree-raycast/Cargo.toml [-- SECONDS [spiral|camera]]
//! ```

use nalgebra::{Matrix3, Vector3};
use oceansim_protocol::payload::ObstacleShape;
use oceansim_scene::raycast::{Cone, Hit, SceneView};
use oceansim_scene::scenario::load as load_scenario;
use oceansim_scene::Scene;
use oceansim_vehicles::frames::{Godot, User};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

extern "C" {
    fn oe_new() -> i32;
    fn oe_add_mesh(v: *const f32, nv: usize, idx: *const u32, nt: usize) -> i32;
    fn oe_commit();
    fn oe_cast1(org: *const f32, dirs: *const f32, n: usize, tfar: f32, t_out: *mut f32);
    fn oe_cast8(org: *const f32, dirs: *const f32, n: usize, tfar: f32, t_out: *mut f32);
}

/// A triangle mesh being built (user frame, f64 until handed over).
#[derive(Default)]
struct Mesh {
    v: Vec<Vector3<f64>>,
    t: Vec<[u32; 3]>,
}

impl Mesh {
    fn vertex(&mut self, p: Vector3<f64>) -> u32 {
        self.v.push(p);
        (self.v.len() - 1) as u32
    }

    fn add_to_embree(&self) {
        let v: Vec<f32> = self
            .v
            .iter()
            .flat_map(|p| [p.x as f32, p.y as f32, p.z as f32])
            .collect();
        let t: Vec<u32> = self.t.iter().flatten().copied().collect();
        let id = unsafe { oe_add_mesh(v.as_ptr(), self.v.len(), t.as_ptr(), self.t.len()) };
        assert!(id >= 0, "Embree took the mesh");
    }
}

/// A surface of revolution about local z, `rings` × `SEGMENTS`: `profile(s)`
/// for s in [0, 1] gives (radius, z) from bottom to top.
const SEGMENTS: usize = 48;
fn revolve(
    m: &mut Mesh,
    rings: usize,
    profile: impl Fn(f64) -> (f64, f64),
    place: impl Fn(Vector3<f64>) -> Vector3<f64>,
) {
    let base = m.v.len() as u32;
    for i in 0..=rings {
        let (r, z) = profile(i as f64 / rings as f64);
        for j in 0..SEGMENTS {
            let a = std::f64::consts::TAU * j as f64 / SEGMENTS as f64;
            m.vertex(place(Vector3::new(r * a.cos(), r * a.sin(), z)));
        }
    }
    let at = |i: usize, j: usize| base + (i * SEGMENTS + j % SEGMENTS) as u32;
    for i in 0..rings {
        for j in 0..SEGMENTS {
            m.t.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            m.t.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
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
    assert_eq!(unsafe { oe_new() }, 0, "an Embree device");

    // The seabed: the terrain's nodes, two triangles per cell.
    let [x0, x1, y0, y1] = scene.terrain.bounds();
    let cell = scene.terrain.cell_m();
    let (nx, ny) = (
        ((x1 - x0) / cell).round() as usize + 1,
        ((y1 - y0) / cell).round() as usize + 1,
    );
    let mut seabed = Mesh::default();
    for j in 0..ny {
        for i in 0..nx {
            let (x, y) = (x0 + i as f64 * cell, y0 + j as f64 * cell);
            seabed.vertex(Vector3::new(x, y, scene.terrain.height(x, y)));
        }
    }
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let k = |i: usize, j: usize| (j * nx + i) as u32;
            seabed.t.push([k(i, j), k(i + 1, j), k(i + 1, j + 1)]);
            seabed.t.push([k(i, j), k(i + 1, j + 1), k(i, j + 1)]);
        }
    }
    seabed.add_to_embree();
    let mut triangles = seabed.t.len();

    // The obstacles, each its own mesh.
    for ob in scene.obstacles.iter() {
        let c = Vector3::from(ob.center);
        let rot = ob.rotation.unwrap_or_else(Matrix3::identity);
        let place = |p: Vector3<f64>| c + rot * p;
        let [a, b, h] = ob.half_extents;
        let mut m = Mesh::default();
        match ob.shape {
            ObstacleShape::Box => {
                for k in 0..8 {
                    let s = |bit: usize, e: f64| if k & bit == 0 { -e } else { e };
                    m.vertex(place(Vector3::new(s(1, a), s(2, b), s(4, h))));
                }
                for q in [
                    [0, 1, 3, 2],
                    [4, 6, 7, 5],
                    [0, 4, 5, 1],
                    [2, 3, 7, 6],
                    [0, 2, 6, 4],
                    [1, 5, 7, 3],
                ] {
                    m.t.push([q[0], q[1], q[2]]);
                    m.t.push([q[0], q[2], q[3]]);
                }
            }
            ObstacleShape::Sphere => revolve(
                &mut m,
                24,
                |s| {
                    let lat = std::f64::consts::PI * (s - 0.5);
                    (a * lat.cos(), a * lat.sin())
                },
                place,
            ),
            ObstacleShape::Cylinder => {
                // Side, then the caps as rings shrinking to the axis.
                revolve(&mut m, 1, |s| (a, h * (2.0 * s - 1.0)), place);
                revolve(&mut m, 1, |s| (a * (1.0 - s), -h), place);
                revolve(&mut m, 1, |s| (a * s, h), place);
            }
        }
        triangles += m.t.len();
        m.add_to_embree();
    }
    unsafe { oe_commit() };

    let view = SceneView {
        terrain: &scene.terrain,
        obstacles: &scene.obstacles,
        bodies: &[],
    };
    let spiral: Vec<Vector3<f64>> = (0..4096)
        .map(|i| {
            let f = (i as f64 + 0.5) / 4096.0;
            let z = -f;
            let az = i as f64 * 2.399_963;
            let r = (1.0 - z * z).sqrt();
            Vector3::new(r * az.cos(), r * az.sin(), z)
        })
        .collect();
    // A pinhole 320 × 240, 90° across, looking north and 50° down, so the
    // seabed 13 m below fills much of the frame.
    let (w, h) = (320usize, 240usize);
    let f = (w as f64 / 2.0) / (45f64).to_radians().tan();
    let pitch = (-50f64).to_radians();
    let (fwd, right) = (
        Vector3::new(0.0, pitch.cos(), pitch.sin()),
        Vector3::new(1.0, 0.0, 0.0),
    );
    let up = right.cross(&fwd);
    let camera: Vec<Vector3<f64>> = (0..h)
        .flat_map(|v| {
            (0..w).map(move |u| {
                let (x, y) = (
                    u as f64 - (w as f64 - 1.0) / 2.0,
                    v as f64 - (h as f64 - 1.0) / 2.0,
                );
                (fwd * f + right * x - up * y).normalize()
            })
        })
        .collect();

    let time = |f: &mut dyn FnMut() -> u64| {
        let started = Instant::now();
        let mut casts = 0u64;
        while started.elapsed().as_secs_f64() < secs {
            casts += f();
        }
        casts as f64 / started.elapsed().as_secs_f64()
    };
    let org = [o.x as f32, o.y as f32, o.z as f32];
    println!(
        "ray casts on Static_Map (seed 0) from the AUV start ({:.1} m above the seabed), one core, best of 3 x {secs} s; Embree scene: {triangles} triangles ({} obstacles)",
        o.z - scene.terrain.height(o.x, o.y),
        scene.obstacles.len()
    );
    // A second argument runs one set alone (for a profiler).
    let only = std::env::args().nth(2);
    for (name, dirs, max) in [("spiral", &spiral, 60.0), ("camera", &camera, 60.0)] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let flat: Vec<f32> = dirs
            .iter()
            .flat_map(|d| [d.x as f32, d.y as f32, d.z as f32])
            .collect();
        let mut t_out = vec![0f32; dirs.len()];
        // As the sensors cast: the fan's cone found once (a sensor's `Fan`
        // when it is built), then per sample the broad phase (the
        // candidates the cone may reach) and every ray.
        let cone = Cone::around(dirs.iter());
        let sample = || view.candidates_within(&o, max, dirs.len(), cone.as_ref());
        let near = sample();
        let mut hits = vec![view.raycast_surface(&o, &dirs[0], max, &near); dirs.len()];
        let mut ours = || {
            let near = sample();
            view.raycast_surfaces(&o, dirs, max, &near, &mut hits);
            black_box(&hits);
            dirs.len() as u64
        };
        let mut ours_one = || {
            let near = sample();
            for d in dirs.iter() {
                black_box(view.raycast_surface(&o, d, max, &near));
            }
            dirs.len() as u64
        };
        let mut one = || {
            unsafe {
                oe_cast1(
                    org.as_ptr(),
                    flat.as_ptr(),
                    dirs.len(),
                    max as f32,
                    t_out.as_mut_ptr(),
                )
            };
            black_box(&t_out);
            dirs.len() as u64
        };
        let (mut a, mut a1, mut b) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..3 {
            a = a.max(time(&mut ours));
            a1 = a1.max(time(&mut ours_one));
            b = b.max(time(&mut one));
        }
        let mut packets = 0.0f64;
        if name == "camera" {
            let mut eight = || {
                unsafe {
                    oe_cast8(
                        org.as_ptr(),
                        flat.as_ptr(),
                        dirs.len(),
                        max as f32,
                        t_out.as_mut_ptr(),
                    )
                };
                black_box(&t_out);
                dirs.len() as u64
            };
            for _ in 0..3 {
                packets = packets.max(time(&mut eight));
            }
        }
        // Agreement on the rays whose return lies on the map (ours goes on
        // past its edge; the mesh ends there).
        unsafe {
            oe_cast1(
                org.as_ptr(),
                flat.as_ptr(),
                dirs.len(),
                max as f32,
                t_out.as_mut_ptr(),
            )
        };
        let (mut both, mut only_ours, mut only_embree, mut diffs) = (0, 0, 0, Vec::new());
        for (d, te) in dirs.iter().zip(&t_out) {
            let r = view.raycast_surface(&o, d, max, &near);
            let p = o + d * r.t;
            let on_map = p.x > x0 && p.x < x1 && p.y > y0 && p.y < y1;
            match (r.hit != Hit::None && on_map, te.is_finite()) {
                (true, true) => {
                    both += 1;
                    diffs.push((r.t - f64::from(*te)).abs());
                }
                (true, false) => only_ours += 1,
                (false, true) if on_map => only_embree += 1,
                _ => {}
            }
        }
        diffs.sort_by(f64::total_cmp);
        let q = |f: f64| {
            diffs
                .get(((diffs.len() as f64 - 1.0) * f) as usize)
                .copied()
                .unwrap_or(f64::NAN)
        };
        println!("  {name:<6} ({} rays to {max} m)", dirs.len());
        println!(
            "    ours (SceneView, f64)          {:>7.2} million/s   (batches of the fan; one ray at a time {:.2})",
            a / 1e6,
            a1 / 1e6
        );
        println!(
            "    Embree rtcIntersect1 (f32)     {:>7.2} million/s   (ours {:.2}x of it)",
            b / 1e6,
            a / b
        );
        if packets > 0.0 {
            println!(
                "    Embree rtcIntersect8 (f32)     {:>7.2} million/s   (ours {:.2}x of it)",
                packets / 1e6,
                a / packets
            );
        }
        println!(
            "    agreement: {both} hit in both, {only_ours} only ours, {only_embree} only Embree; |dt| median {:.4} m, p99 {:.4} m",
            q(0.5),
            q(0.99)
        );
    }
}
