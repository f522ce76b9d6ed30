//! A picture of each imaging sensor on the default scenario, as PNG files.
//!
//! ```sh
//! cargo run --release --example sensor_gallery                  # into target/sensor_gallery
//! cargo run --release --example sensor_gallery -- --out pics    # elsewhere
//! ```
//!
//! The default vehicle starts on `Static_Map` (seed 0), asks the
//! simulator for its sensors with `get_sensors` (the same payloads a
//! client receives: base64 PNG images and 8-bit sonar lines) from a
//! vantage point facing the north pillar, then cruises south past it at
//! 1 m/s for 30 s, one side-scan and multibeam ping every 0.2 s, to draw
//! the side-scan waterfall and the multibeam swath.
//! Written files:
//!
//! * `camera_rgb.png`, `camera_depth.png` (near bright, far dark),
//!   `camera_segmentation.png` (water, seabed, obstacles, agents);
//! * `rgbd_rgb.png`, `rgbd_depth.png`;
//! * `imaging_sonar_polar.png` (beams across, range down) and
//!   `imaging_sonar_fan.png` (the same in x–y, the sonar at the bottom);
//! * `side_scan_waterfall.png` (port left, starboard right, newest ping at
//!   the top);
//! * `multibeam_swath.png` (depth of each sounding along the track);
//! * `lidar_3d_range.png` (rings down, columns across, near bright).

use base64::Engine as _;
use oceansim_protocol::Request;
use oceansim_sim::image::{Image, Pixels};
use oceansim_sim::{SimConfig, Simulation};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const HELP: &str = "sensor_gallery: write a PNG of each imaging sensor on the default scenario

usage: sensor_gallery [--out DIR]

  --out DIR   where the PNG files go (default: target/sensor_gallery)
  -h, --help  this text";

fn main() {
    if let Err(e) = run() {
        eprintln!("sensor_gallery: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut out = PathBuf::from("target/sensor_gallery");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().ok_or("--out needs a directory")?.into(),
            "-h" | "--help" => {
                println!("{HELP}");
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`\n\n{HELP}")),
        }
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut sim = Simulation::new(SimConfig {
        paused: true,
        deterministic: true,
        ..SimConfig::default()
    })
    .map_err(|e| e.to_string())?;
    // A vantage point over the field: 3 m west of the north pillar's
    // meridian, 7 m north of it, 12 m deep, facing south and pitched 20°
    // down (Godot: X east, Y up, Z south; rotation in degrees).
    call(
        &mut sim,
        "move_agent",
        json!({"id": "auv/main", "position": [-3.0, -12.0, -15.0], "rotation": [-20.0, 180.0, 0.0]}),
    )?;
    let mut written = Vec::new();
    let sensors = call(&mut sim, "get_sensors", json!({}))?["sensors"].take();

    let camera = &sensors["camera"];
    let (w, h, rgb) = png_field(camera, "rgb_png_base64")?;
    written.push(save(&out, "camera_rgb.png", w, h, Pixels::Rgb8(rgb))?);
    let (w, h, depth) = png_field(camera, "depth_png_base64")?;
    let max_mm = camera["max_range_m"].as_f64().unwrap_or(15.0) * 1000.0;
    written.push(save(
        &out,
        "camera_depth.png",
        w,
        h,
        depth_shade(&depth, max_mm),
    )?);
    let (w, h, seg) = png_field(camera, "segmentation_png_base64")?;
    written.push(save(&out, "camera_segmentation.png", w, h, classes(&seg))?);

    let rgbd = &sensors["rgbd_dense_cloud"];
    let (w, h, rgb) = png_field(rgbd, "rgb_png_base64")?;
    written.push(save(&out, "rgbd_rgb.png", w, h, Pixels::Rgb8(rgb))?);
    let (w, h, depth) = png_field(rgbd, "depth_png_base64")?;
    written.push(save(
        &out,
        "rgbd_depth.png",
        w,
        h,
        depth_shade(&depth, max_mm),
    )?);

    let sonar = &sensors["imaging_sonar"];
    let (beams, bins, polar) = png_field(sonar, "intensity_png_base64")?;
    written.push(save(
        &out,
        "imaging_sonar_polar.png",
        beams,
        bins,
        Pixels::Gray8(polar.clone()),
    )?);
    let span = sonar["azimuth_range_deg"][1].as_f64().unwrap_or(65.0);
    let (fw, fh, fan) = fan_image(&polar, beams as usize, bins as usize, span);
    written.push(save(
        &out,
        "imaging_sonar_fan.png",
        fw,
        fh,
        Pixels::Gray8(fan),
    )?);

    written.push(lidar_image(&out, &sensors["lidar_3d"])?);

    // Cruise south, level, pinging: the side-scan waterfall and the
    // multibeam swath, with the pillar 4 m to port (east) and the wreck
    // 5 m to starboard.
    call(
        &mut sim,
        "move_agent",
        json!({"id": "auv/main", "position": [-4.0, -8.0, -18.0], "rotation": [0.0, 180.0, 0.0]}),
    )?;
    let (mut waterfall, mut swath, mut line_len, mut beams) = (Vec::new(), Vec::new(), 0, 0);
    let pings = 150;
    for _ in 0..pings {
        // Held at 1.5 m/s ahead, level, against drag.
        call(
            &mut sim,
            "set_body_velocity",
            json!({"velocity": [1.5, 0.0, 0.0, 0.0, 0.0, 0.0]}),
        )?;
        call(&mut sim, "step", json!({}))?;
        call(&mut sim, "step", json!({}))?;
        let s = call(
            &mut sim,
            "get_sensors",
            json!({"sensors": ["side_scan_sonar", "multibeam_sonar"]}),
        )?;
        let ss = &s["sensors"]["side_scan_sonar"];
        let port = bytes(&ss["port"]);
        let starboard = bytes(&ss["starboard"]);
        line_len = port.len();
        // Port reads outward from the track: mirror it so the track is in
        // the middle of the picture.
        let row: Vec<u8> = port.iter().rev().chain(&starboard).copied().collect();
        waterfall.push(row);
        let mb = &s["sensors"]["multibeam_sonar"]["depths_m"];
        let depths: Vec<Option<f64>> = mb
            .as_array()
            .map(|a| a.iter().map(Value::as_f64).collect())
            .unwrap_or_default();
        beams = depths.len();
        swath.push(depths);
    }
    // Newest ping at the top, as a waterfall display scrolls.
    let rows: Vec<u8> = waterfall.iter().rev().flatten().copied().collect();
    written.push(save(
        &out,
        "side_scan_waterfall.png",
        2 * line_len as u32,
        pings,
        Pixels::Gray8(rows),
    )?);
    written.push(save(
        &out,
        "multibeam_swath.png",
        beams as u32,
        pings,
        swath_image(&swath),
    )?);

    println!("wrote {} pictures into {}:", written.len(), out.display());
    for (name, w, h, bytes) in &written {
        println!("  {name:<28} {w:>4} x {h:<4} {:>8} bytes", bytes);
    }
    Ok(())
}

/// Sends one request and returns its reply's `data`, or the error it
/// carries.
fn call(sim: &mut Simulation, action: &str, data: Value) -> Result<Value, String> {
    let line = json!({"type": "command", "action": action, "data": data}).to_string();
    let Ok(Request::Single(req)) = Request::decode(&line) else {
        return Err(format!("`{action}` does not decode"));
    };
    let mut reply = sim.handle(req).to_value();
    if reply["status"] == "error" {
        return Err(format!("`{action}`: {reply}"));
    }
    Ok(reply["data"].take())
}

/// A base64 PNG field of a payload, decoded: (width, height, bytes), one
/// byte per 8-bit sample and big-endian pairs for 16-bit ones.
fn png_field(payload: &Value, field: &str) -> Result<(u32, u32, Vec<u8>), String> {
    let text = payload[field]
        .as_str()
        .ok_or_else(|| format!("no `{field}` in the payload"))?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("{field}: {e}"))?;
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .map_err(|e| format!("{field}: {e}"))?;
    let size = reader.output_buffer_size().ok_or("image too large")?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{field}: {e}"))?;
    buf.truncate(info.buffer_size());
    Ok((info.width, info.height, buf))
}

/// Writes `pixels` as `name` in `dir`; returns what it wrote.
fn save(
    dir: &Path,
    name: &str,
    w: u32,
    h: u32,
    pixels: Pixels,
) -> Result<(String, u32, u32, usize), String> {
    let png = Image::new(w, h, pixels)
        .map_err(|e| e.to_string())?
        .to_png();
    let path = dir.join(name);
    std::fs::write(&path, &png).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((name.to_owned(), w, h, png.len()))
}

/// 16-bit big-endian depth (mm) as gray: near bright, far dark, none black.
fn depth_shade(be: &[u8], max_mm: f64) -> Pixels {
    Pixels::Gray8(
        be.chunks(2)
            .map(|b| match u16::from_be_bytes([b[0], b[1]]) {
                0 => 0,
                mm => (255.0 * (1.0 - 0.85 * f64::from(mm) / max_mm)).clamp(0.0, 255.0) as u8,
            })
            .collect(),
    )
}

/// Segmentation ids in colour: water blue, seabed sand, obstacles grey,
/// agents yellow.
fn classes(ids: &[u8]) -> Pixels {
    const PALETTE: [[u8; 3]; 4] = [
        [20, 60, 110],
        [200, 180, 120],
        [130, 130, 140],
        [250, 200, 30],
    ];
    Pixels::Rgb8(
        ids.iter()
            .flat_map(|&c| PALETTE[usize::from(c).min(3)])
            .collect(),
    )
}

/// The polar image (`beams` columns, `bins` rows, nearest first) drawn in
/// x–y: the sonar at the bottom centre, ±`span` degrees.
fn fan_image(polar: &[u8], beams: usize, bins: usize, span: f64) -> (u32, u32, Vec<u8>) {
    let h = bins;
    let half = (span.to_radians().sin() * bins as f64).ceil() as usize;
    let w = 2 * half + 1;
    let mut out = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            // Pixel → range (bins) and azimuth (deg, starboard positive).
            let (dx, dy) = (x as f64 - half as f64, (h - y) as f64);
            let r = (dx * dx + dy * dy).sqrt();
            let az = dx.atan2(dy).to_degrees();
            if r >= bins as f64 || az.abs() > span {
                continue;
            }
            let beam = (((az + span) / (2.0 * span)) * beams as f64) as usize;
            out[y * w + x] = polar[(r as usize) * beams + beam.min(beams - 1)];
        }
    }
    (w as u32, h as u32, out)
}

/// The 3-D lidar's ranges as an image: one row per ring (the highest at
/// the top), one column per azimuth, each cell 4 × 4 px; near bright, far
/// dark, no return black.
fn lidar_image(dir: &Path, lidar: &Value) -> Result<(String, u32, u32, usize), String> {
    let rings = lidar["rings"].as_u64().unwrap_or(0) as usize;
    let columns = lidar["columns"].as_u64().unwrap_or(0) as usize;
    let points = lidar["points"].as_array().cloned().unwrap_or_default();
    let cells = lidar["ring_column"].as_array().cloned().unwrap_or_default();
    if rings == 0 || columns == 0 || points.len() != cells.len() {
        return Err(format!("unexpected lidar_3d payload: {rings} x {columns}"));
    }
    let mut range = vec![None; rings * columns];
    for (p, rc) in points.iter().zip(&cells) {
        let xyz: Vec<f64> = (0..3).filter_map(|k| p[k].as_f64()).collect();
        let (ring, col) = (
            rc[0].as_u64().unwrap_or(0) as usize,
            rc[1].as_u64().unwrap_or(0) as usize,
        );
        if xyz.len() == 3 && ring < rings && col < columns {
            range[ring * columns + col] = Some(xyz.iter().map(|x| x * x).sum::<f64>().sqrt());
        }
    }
    let max = 25.0;
    let scale = 4;
    let (w, h) = (columns * scale, rings * scale);
    let mut px = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            // Ring 0 is the lowest beam: draw it at the bottom.
            let cell = (rings - 1 - y / scale) * columns + x / scale;
            px[y * w + x] = range[cell].map_or(0, |r| {
                (255.0 * (1.0 - 0.85 * r / max)).clamp(0.0, 255.0) as u8
            });
        }
    }
    save(
        dir,
        "lidar_3d_range.png",
        w as u32,
        h as u32,
        Pixels::Gray8(px),
    )
}

/// Multibeam depths along the track as colour: shallow warm, deep cool,
/// no sounding black. Newest ping at the top.
fn swath_image(swath: &[Vec<Option<f64>>]) -> Pixels {
    let all: Vec<f64> = swath.iter().flatten().flatten().copied().collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = (hi - lo).max(1e-6);
    Pixels::Rgb8(
        swath
            .iter()
            .rev()
            .flatten()
            .flat_map(|d| match d {
                None => [0, 0, 0],
                Some(d) => {
                    let t = (d - lo) / span;
                    [
                        (255.0 * (1.0 - t)) as u8,
                        (200.0 * (1.0 - (2.0 * t - 1.0).abs())) as u8,
                        (255.0 * t) as u8,
                    ]
                }
            })
            .collect(),
    )
}

/// A JSON array of 8-bit values.
fn bytes(v: &Value) -> Vec<u8> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(0) as u8).collect())
        .unwrap_or_default()
}
