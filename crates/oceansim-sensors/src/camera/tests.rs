use super::super::fixture;
use super::*;
use crate::{SceneView, Sensor};
use base64::Engine as _;
use oceansim_scene::body::Body;
use oceansim_scene::terrain::{Terrain, TerrainSpec};
use oceansim_vehicles::{SensorMount, VehicleState};

/// The bytes of a base64 PNG: (width, height, samples as u16).
fn decode(b64: &str) -> (u32, u32, Vec<u16>) {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let (w, h, _, depth, buf) = crate::image::decode_png(&bytes);
    let samples = if depth == png::BitDepth::Sixteen {
        buf.chunks(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .collect()
    } else {
        buf.iter().map(|b| u16::from(*b)).collect()
    };
    (w, h, samples)
}

fn mount(params: CameraParams) -> SensorMount {
    SensorMount {
        name: "camera".into(),
        sensor_type: "camera".into(),
        position_m: [0.0; 3],
        rotation_rpy_deg: [0.0; 3],
        imu_noise: None,
        camera: Some(params),
        sonar: None,
    }
}

fn reading(params: CameraParams, state: &VehicleState) -> CameraReading {
    let (s, _) = fixture::sample(Family::Camera, Some(&mount(params)), state);
    let Reading::Camera(r) = s.reading else {
        panic!()
    };
    r
}

#[test]
fn the_wall_ahead_fills_the_image_centre_at_its_distance() {
    let r = reading(CameraParams::PERCEPTION, &fixture::state());
    assert_eq!((r.width, r.height), (320, 240));
    let (w, h, depth) = decode(&r.depth_png_base64);
    assert_eq!((w, h), (320, 240));
    let (_, _, seg) = decode(&r.segmentation_png_base64);
    // Centre pixel: the wall 10 m ahead (depth along the axis, mm).
    let centre = 120 * 320 + 160;
    assert_eq!(seg[centre], 2, "static obstacle");
    assert!((f64::from(depth[centre]) - 10_000.0).abs() < 40.0);
    // Off axis the depth along the axis is still the wall's 10 m, not
    // the longer slant range: a plane facing the camera is flat in depth.
    let corner = 70 * 320 + 40;
    assert_eq!(seg[corner], 2);
    assert!((f64::from(depth[corner]) - 10_000.0).abs() < 40.0);
    // The intrinsics say where the wall's top edge (5 m above the
    // camera, 10 m ahead) falls: v = cy − fy · 5 / 10.
    let top = (r.intrinsics.cy - r.intrinsics.fy * 0.5).round() as usize;
    assert_eq!(seg[(top + 2) * 320 + 160], 2, "just below the top edge");
    assert_eq!(seg[(top - 2) * 320 + 160], 0, "just above it: water");
}

#[test]
fn segmentation_marks_exactly_the_pixels_with_depth() {
    // Tilted down toward the seabed, with the wall and another vehicle in
    // view: every class appears, and a pixel has a depth iff it has a
    // class other than water.
    let terrain = Terrain::generate(TerrainSpec::flat([60.0, 60.0], 12.0));
    let (_, obstacles) = fixture::scene();
    let other = Body::capsule(
        nalgebra::Vector3::new(-2.0, 5.0, -6.0),
        nalgebra::Vector3::x(),
        1.0,
        0.4,
    );
    let state = VehicleState::at_rest(nalgebra::Vector3::new(0.0, 0.0, 6.0), 0.0, -0.35, 0.0);
    let mut s = Sensor::new(
        "auv/main",
        "camera",
        Family::Camera,
        Some(&mount(CameraParams::DEFAULT)),
        7,
    );
    fixture::with_ctx(&terrain, &obstacles, &state, |ctx| {
        let ctx = SampleCtx {
            scene: SceneView {
                bodies: std::slice::from_ref(&other),
                ..ctx.scene
            },
            ..*ctx
        };
        s.sample(&ctx);
    });
    let Reading::Camera(r) = &s.latest().unwrap().reading else {
        panic!()
    };
    let (_, _, depth) = decode(&r.depth_png_base64);
    let (_, _, seg) = decode(&r.segmentation_png_base64);
    for class in 0..=3 {
        assert!(seg.contains(&class), "class {class} in view");
    }
    for (d, c) in depth.iter().zip(&seg) {
        assert_eq!(*d > 0, *c != 0, "depth {d} with class {c}");
    }
}

/// Mean RGB of the pixels of `class` in a reading.
fn mean_rgb(r: &CameraReading, class: u16) -> [f64; 3] {
    let (_, _, rgb) = decode(&r.rgb_png_base64);
    let (_, _, seg) = decode(&r.segmentation_png_base64);
    let mut sum = [0.0; 3];
    let mut n = 0.0;
    for (k, c) in seg.iter().enumerate() {
        if *c == class {
            for (ch, s) in sum.iter_mut().enumerate() {
                *s += f64::from(rgb[3 * k + ch]);
            }
            n += 1.0;
        }
    }
    assert!(n > 0.0, "class {class} in view");
    sum.map(|s| s / n)
}

/// The veiling light a horizontal ray sees from 6 m deep, as 8-bit
/// values: what any object fades into with distance.
fn veil_at_6m(params: CameraParams) -> [f64; 3] {
    let o = Optics::new(params);
    let ambient = o.sunlight(6.0);
    let exposure = 0.9 / ambient.iter().copied().fold(1e-6, f64::max);
    std::array::from_fn(|k| (WATER_RGB[k] * ambient[k] * 0.7 * exposure).powf(1.0 / 2.2) * 255.0)
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn distance_and_turbidity_fade_objects_into_the_water() {
    // The same grey wall from 4 m and from 10 m: farther, less of its own
    // colour reaches the camera and the water's veil takes over.
    let near_state = VehicleState::at_rest(nalgebra::Vector3::new(6.0, 0.0, 6.0), 0.0, 0.0, 0.0);
    let far_state = VehicleState::at_rest(nalgebra::Vector3::new(0.0, 0.0, 6.0), 0.0, 0.0, 0.0);
    let clear = CameraParams::DEFAULT;
    let veil = veil_at_6m(clear);
    let near = mean_rgb(&reading(clear, &near_state), 2);
    let far = mean_rgb(&reading(clear, &far_state), 2);
    assert!(
        distance(near, veil) > 1.4 * distance(far, veil),
        "near {near:?} vs far {far:?}, veil {veil:?}"
    );
    // Turbid water at 10 m: the wall nearly vanishes into the veil.
    let murky = CameraParams {
        turbidity: 5.0,
        ..clear
    };
    let turbid = mean_rgb(&reading(murky, &far_state), 2);
    let murky_veil = veil_at_6m(murky);
    assert!(
        distance(turbid, murky_veil) < 0.5 * distance(far, veil),
        "turbid {turbid:?} (veil {murky_veil:?}) vs clear {far:?} (veil {veil:?})"
    );
    // Red is absorbed first: the clear-water wall's red share falls with
    // distance.
    let red_share = |c: [f64; 3]| c[0] / (c[0] + c[1] + c[2]);
    assert!(red_share(near) > red_share(far), "{near:?} vs {far:?}");
}

#[test]
fn the_same_seed_renders_the_same_bytes_and_noise_is_within_sigma() {
    let (a, text_a) = fixture::sample(Family::Camera, None, &fixture::state());
    let (b, text_b) = fixture::sample(Family::Camera, None, &fixture::state());
    assert_eq!(a, b);
    assert_eq!(text_a, text_b);
    // Depth noise: σ = 1 cm on the range, so σ·cos(off-axis angle) ≤ 1 cm
    // on depth, on a wall whose true depth is 10 m.
    let Reading::Camera(r) = a.reading else {
        panic!()
    };
    let (_, _, depth) = decode(&r.depth_png_base64);
    let (_, _, seg) = decode(&r.segmentation_png_base64);
    let wall: Vec<f64> = depth
        .iter()
        .zip(&seg)
        .filter(|(_, c)| **c == 2)
        .map(|(d, _)| f64::from(*d) - 10_000.0)
        .collect();
    let mean = wall.iter().sum::<f64>() / wall.len() as f64;
    let sd = (wall.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / wall.len() as f64).sqrt();
    assert!(mean.abs() < 1.0, "bias {mean} mm");
    assert!((6.0..=10.5).contains(&sd), "σ {sd} mm");
}

#[test]
fn casting_across_threads_gives_the_one_thread_result() {
    let (terrain, obstacles) = fixture::scene();
    let optics = Optics::new(CameraParams::PERCEPTION);
    fixture::with_ctx(&terrain, &obstacles, &fixture::state(), |ctx| {
        let one = ctx.cast_surface(&optics.rays, 20.0);
        let many = ctx.cast_surface_par(&optics.rays, 20.0);
        assert_eq!(one.len(), many.len());
        assert!(one == many, "same hits in the same order");
    });
}

#[test]
fn the_gamma_table_gives_the_formula_to_the_bit() {
    let mut ys = vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        1.0,
        -1.0,
        2.0,
        f64::MIN_POSITIVE,
        1e-300,
    ];
    // Each threshold, its neighbours on either side and a few ULPs out.
    for k in 0..255u64 {
        let mut lo = 0u64;
        let mut hi = 1.0f64.to_bits();
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if u64::from(gamma_formula(f64::from_bits(mid))) > k {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        for d in -3i64..=3 {
            ys.push(f64::from_bits(lo.saturating_add_signed(d)));
        }
    }
    // And a dense spread across and beyond [0, 1].
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ys.push((x >> 11) as f64 / (1u64 << 53) as f64 * 1.2 - 0.1);
    }
    for y in ys {
        assert_eq!(gamma_u8(y), gamma_formula(y), "y = {y:e}");
    }
}
