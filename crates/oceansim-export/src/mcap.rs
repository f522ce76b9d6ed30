//! The run as an MCAP file for Foxglove: JSON messages under Foxglove's
//! well-known schema names, so its 3D panel shows the run with no
//! configuration.
//!
//! | topic | schema | what |
//! |---|---|---|
//! | `/tf` | `foxglove.FrameTransform` | per frame and agent: `world` → `<agent>/base_link` |
//! | `/<agent>/pose` | `foxglove.PoseInFrame` | per frame: the agent's pose in `world` |
//! | `/scene` | `foxglove.SceneUpdate` | at the first frame: the obstacles (cubes, spheres, cylinders) |
//! | `/agents` | `foxglove.SceneUpdate` | when an agent appears: its hull (a box of its length and beam) locked to `<agent>/base_link`; when it goes, its deletion |
//! | `/map/seabed` | `foxglove.Grid` | at the first frame: seabed height (m, float32) on the map grid |
//! | `/map/occupancy` | `foxglove.Grid` | at the first frame: the occupancy grid of the slice at the main AUV's first recorded depth (uint8: 0 free, 100 seabed or static obstacle), as `get_terrain_grid` computes it |
//! | `/tf_static` | `foxglove.FrameTransform` | at the first frame: every sensor on its base link, every camera's optical frame on its sensor ([`oceansim_sensors::frame_tree`]) |
//! | `/<agent>/<camera>/image` | `foxglove.CompressedImage` | every recorded camera and RGB-D frame (PNG), in the optical frame |
//! | `/<agent>/<camera>/depth` | `foxglove.CompressedImage` | the same frames' depth (16-bit PNG, mm along the optical axis, 0 = no return) |
//! | `/<agent>/<camera>/segmentation` | `foxglove.CompressedImage` | cameras' class ids (8-bit PNG, see the sensor's `segmentation_classes`) |
//! | `/<agent>/<camera>/calibration` | `foxglove.CameraCalibration` | with each frame: the pinhole intrinsics, in the optical frame |
//! | `/<agent>/<imaging_sonar>/image` | `foxglove.CompressedImage` | every sonar frame's polar image (8-bit PNG: a column per beam port to starboard, a row per range bin nearest first) |
//! | `/<agent>/<lidar_3d>/points` | `foxglove.PointCloud` | every recorded 3-D lidar scan, world frame, x y z intensity (float32) |
//! | `/<agent>/<sensor>...` | every other sensor per `mcap_sensors` | RGB-D and multibeam clouds, 2-D lidar `foxglove.LaserScan`, side-scan `foxglove.RawImage`, IMU, DVL and depth under this project's own schemas |
//!
//! `world` is the user frame (x east, y north, z up: Foxglove's own
//! convention); a base link is body FLU (x forward, y left, z up). Log and
//! publish times are on the Unix clock: the recording's start
//! ([`McapScene::clock_origin_unix_ns`]) plus the simulated time; the
//! messages' own `timestamp`s are the simulated time.

use super::mcap_sensors::{q4, sensor_messages, stamp, v3, FLOAT32, OWN_SCHEMAS, UINT8};
use base64::Engine as _;
use oceansim_record::{Payloads, RecordedFrames};
use oceansim_sensors::frame_tree::{static_edges, SensorFrame, WORLD_FRAME};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Seek, Write};
use std::sync::Arc;

/// An obstacle as the scene shows it (user frame, m).
#[derive(Debug, Clone)]
pub enum SceneShape {
    /// A box: centre, half extents, rotation `[x, y, z, w]`.
    Cube([f64; 3], [f64; 3], [f64; 4]),
    /// A sphere: centre, radius.
    Sphere([f64; 3], f64),
    /// A cylinder: centre, radius, height, rotation `[x, y, z, w]` of its
    /// axis from vertical.
    Cylinder([f64; 3], f64, f64, [f64; 4]),
}

/// The seabed on a regular grid (user frame, m).
#[derive(Debug, Clone)]
pub struct SeabedGrid {
    /// South-west corner (x, y).
    pub origin: [f64; 2],
    /// Cell size (m).
    pub cell_m: f64,
    /// Columns (east).
    pub cols: usize,
    /// Rows (north), row 0 at the south edge.
    pub rows: usize,
    /// Heights (m, z up), row-major.
    pub heights: Vec<f64>,
}

/// A horizontal occupancy slice (user frame).
#[derive(Debug, Clone)]
pub struct OccupancyGrid {
    /// South-west corner (x, y), m.
    pub origin: [f64; 2],
    /// Height of the slice (m, z up).
    pub slice_z: f64,
    /// Cell size (m).
    pub cell_m: f64,
    /// Columns (east).
    pub cols: usize,
    /// Rows (north), row 0 at the south edge.
    pub rows: usize,
    /// Row-major cells: 0 free, 100 occupied.
    pub cells: Vec<u8>,
}

/// An agent's hull as the scene shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentHull {
    /// Length along the body's x axis (m).
    pub length_m: f64,
    /// Beam (m).
    pub width_m: f64,
    /// A vehicle (dynamics) rather than a kinematic proxy.
    pub vehicle: bool,
}

/// Everything the MCAP file shows.
#[derive(Debug, Clone)]
pub struct McapScene {
    /// Obstacles.
    pub obstacles: Vec<(String, SceneShape)>,
    /// Agents' hulls by name (agents not listed get a 1 m × 0.5 m box).
    pub agents: BTreeMap<String, AgentHull>,
    /// The seabed.
    pub seabed: Option<SeabedGrid>,
    /// The occupancy grid at one depth.
    pub occupancy: Option<OccupancyGrid>,
    /// Every sensor's frame on its agent (`/tf_static`).
    pub sensor_frames: Vec<SensorFrame>,
    /// When simulated time 0 was on the Unix clock (ns): log times are
    /// this plus the simulated time.
    pub clock_origin_unix_ns: u64,
}

/// Foxglove's JSON Schemas, embedded unchanged ([`foxglove`](self) folder,
/// MIT licence), by schema name.
pub const FOXGLOVE_SCHEMAS: [(&str, &[u8]); 9] = [
    (
        "foxglove.FrameTransform",
        include_bytes!("foxglove/FrameTransform.json"),
    ),
    (
        "foxglove.PoseInFrame",
        include_bytes!("foxglove/PoseInFrame.json"),
    ),
    (
        "foxglove.SceneUpdate",
        include_bytes!("foxglove/SceneUpdate.json"),
    ),
    ("foxglove.Grid", include_bytes!("foxglove/Grid.json")),
    (
        "foxglove.CompressedImage",
        include_bytes!("foxglove/CompressedImage.json"),
    ),
    (
        "foxglove.PointCloud",
        include_bytes!("foxglove/PointCloud.json"),
    ),
    (
        "foxglove.CameraCalibration",
        include_bytes!("foxglove/CameraCalibration.json"),
    ),
    (
        "foxglove.LaserScan",
        include_bytes!("foxglove/LaserScan.json"),
    ),
    (
        "foxglove.RawImage",
        include_bytes!("foxglove/RawImage.json"),
    ),
];

/// An obstacle's rotation `[x, y, z, w]`.
fn turn(o: &oceansim_scene::obstacle::Obstacle) -> [f64; 4] {
    o.rotation.map_or([0.0, 0.0, 0.0, 1.0], |m| {
        let q = nalgebra::UnitQuaternion::from_matrix(&m);
        [q.i, q.j, q.k, q.w]
    })
}

impl McapScene {
    /// The obstacles and the seabed of `scene` (the seabed sampled at its
    /// cell size, at most 512 cells a side).
    pub fn of(scene: &oceansim_scene::Scene) -> McapScene {
        use oceansim_protocol::payload::ObstacleShape;
        let obstacles = scene
            .obstacles
            .iter()
            .map(|o| {
                let shape = match o.shape {
                    ObstacleShape::Sphere => SceneShape::Sphere(o.center, o.half_extents[0]),
                    ObstacleShape::Cylinder => SceneShape::Cylinder(
                        o.center,
                        o.half_extents[0],
                        2.0 * o.half_extents[2],
                        turn(o),
                    ),
                    ObstacleShape::Box => SceneShape::Cube(o.center, o.half_extents, turn(o)),
                };
                (o.id.clone(), shape)
            })
            .collect();
        let [x0, x1, y0, y1] = scene.terrain.bounds();
        let cell = scene.terrain.cell_m().max((x1 - x0).max(y1 - y0) / 512.0);
        let (cols, rows) = (
            (((x1 - x0) / cell).ceil() as usize).max(1),
            (((y1 - y0) / cell).ceil() as usize).max(1),
        );
        let heights = (0..rows)
            .flat_map(|j| {
                (0..cols).map(move |i| {
                    scene
                        .terrain
                        .height(x0 + (i as f64 + 0.5) * cell, y0 + (j as f64 + 0.5) * cell)
                })
            })
            .collect();
        McapScene {
            obstacles,
            agents: BTreeMap::new(),
            occupancy: None,
            sensor_frames: Vec::new(),
            clock_origin_unix_ns: 0,
            seabed: Some(SeabedGrid {
                origin: [x0, y0],
                cell_m: cell,
                cols,
                rows,
                heights,
            }),
        }
    }
}

/// Writes the run to `w`; returns (channels, messages) written.
pub fn write_mcap<W: Write + Seek>(
    w: W,
    frames: &RecordedFrames,
    scene: &McapScene,
) -> std::io::Result<(usize, u64)> {
    let err = super::mcap_err;
    // No MCAP profile fits JSON messages (the registered ones are ROS's):
    // the profile stays empty, as the MCAP specification has it for them.
    let mut out = mcap::WriteOptions::new()
        .compression(Some(mcap::Compression::Lz4))
        .profile("")
        .library(concat!("oceansim-rs ", env!("CARGO_PKG_VERSION")))
        .create(w)
        .map_err(err)?;
    let mut schemas = BTreeMap::new();
    for (name, data) in FOXGLOVE_SCHEMAS {
        schemas.insert(name, out.add_schema(name, "jsonschema", data).map_err(err)?);
    }
    for (name, data) in OWN_SCHEMAS {
        let id = out
            .add_schema(name, "jsonschema", data.as_bytes())
            .map_err(err)?;
        schemas.insert(name, id);
    }
    let by_sensor: BTreeMap<(&str, &str), &SensorFrame> = scene
        .sensor_frames
        .iter()
        .map(|f| ((f.agent.as_str(), f.sensor.as_str()), f))
        .collect();
    let origin = scene.clock_origin_unix_ns;
    let none = BTreeMap::new();
    let mut channels: BTreeMap<String, u16> = BTreeMap::new();
    let mut sequence: BTreeMap<u16, u32> = BTreeMap::new();
    let mut messages = 0u64;
    let mut send = |out: &mut mcap::Writer<W>,
                    channels: &mut BTreeMap<String, u16>,
                    topic: &str,
                    schema: &str,
                    t: f64,
                    msg: &Value|
     -> std::io::Result<()> {
        let id = match channels.get(topic) {
            Some(id) => *id,
            None => {
                let id = out
                    .add_channel(schemas[schema], topic, "json", &none)
                    .map_err(err)?;
                channels.insert(topic.to_owned(), id);
                id
            }
        };
        let seq = sequence.entry(id).or_insert(0);
        *seq += 1;
        let ns = origin.saturating_add((t.max(0.0) * 1e9).round() as u64);
        let data = serde_json::to_vec(msg).map_err(std::io::Error::from)?;
        out.write_to_known_channel(
            &mcap::records::MessageHeader {
                channel_id: id,
                sequence: *seq,
                log_time: ns,
                publish_time: ns,
            },
            &data,
        )
        .map_err(err)?;
        messages += 1;
        Ok(())
    };
    let t0 = frames.time_span().map_or(0.0, |[t0, _]| t0);
    let entities: Vec<Value> = scene
        .obstacles
        .iter()
        .map(|(id, shape)| {
            let grey = json!({"r": 0.5, "g": 0.52, "b": 0.55, "a": 1.0});
            let mut e = json!({
                "timestamp": stamp(t0), "frame_id": WORLD_FRAME, "id": id,
                "lifetime": {"sec": 0, "nsec": 0}, "frame_locked": false,
                "metadata": [], "arrows": [], "cubes": [], "spheres": [], "cylinders": [],
                "lines": [], "triangles": [], "texts": [], "models": []});
            let (key, prim) = match shape {
                SceneShape::Cube(c, half, q) => (
                    "cubes",
                    json!({"pose": {"position": v3(*c), "orientation": q4(*q)},
                           "size": v3(half.map(|h| 2.0 * h)), "color": grey}),
                ),
                SceneShape::Sphere(c, r) => (
                    "spheres",
                    json!({"pose": {"position": v3(*c), "orientation": q4([0.0, 0.0, 0.0, 1.0])},
                           "size": v3([2.0 * r; 3]), "color": grey}),
                ),
                SceneShape::Cylinder(c, r, h, q) => (
                    "cylinders",
                    json!({"pose": {"position": v3(*c), "orientation": q4(*q)},
                           "size": v3([2.0 * r, 2.0 * r, *h]), "bottom_scale": 1.0,
                           "top_scale": 1.0, "color": grey}),
                ),
            };
            e[key] = json!([prim]);
            e
        })
        .collect();
    if !frames.is_empty() {
        // Each sensor on its base link, and each camera's optical frame on
        // its sensor: fixed, so sent once.
        for (parent, child, t, q) in static_edges(&scene.sensor_frames) {
            let tf = json!({
                "timestamp": stamp(t0), "parent_frame_id": parent, "child_frame_id": child,
                "translation": v3(t), "rotation": q4(q)});
            send(
                &mut out,
                &mut channels,
                "/tf_static",
                "foxglove.FrameTransform",
                t0,
                &tf,
            )?;
        }
        let update = json!({"deletions": [], "entities": entities});
        send(
            &mut out,
            &mut channels,
            "/scene",
            "foxglove.SceneUpdate",
            t0,
            &update,
        )?;
        // A grid whose heights do not fill it would draw garbage: left out.
        if let Some(g) = scene
            .seabed
            .as_ref()
            .filter(|g| g.heights.len() == g.cols * g.rows)
        {
            let bytes: Vec<u8> = g
                .heights
                .iter()
                .flat_map(|h| (*h as f32).to_le_bytes())
                .collect();
            let grid = json!({
                "timestamp": stamp(t0), "frame_id": WORLD_FRAME,
                "pose": {"position": v3([g.origin[0], g.origin[1], 0.0]),
                         "orientation": q4([0.0, 0.0, 0.0, 1.0])},
                "column_count": g.cols,
                "cell_size": {"x": g.cell_m, "y": g.cell_m},
                "row_stride": 4 * g.cols, "cell_stride": 4,
                "fields": [{"name": "height", "offset": 0, "type": FLOAT32}],
                "data": base64::engine::general_purpose::STANDARD.encode(bytes)});
            send(
                &mut out,
                &mut channels,
                "/map/seabed",
                "foxglove.Grid",
                t0,
                &grid,
            )?;
        }
        if let Some(g) = scene
            .occupancy
            .as_ref()
            .filter(|g| g.cells.len() == g.cols * g.rows)
        {
            let grid = json!({
                "timestamp": stamp(t0), "frame_id": WORLD_FRAME,
                "pose": {"position": v3([g.origin[0], g.origin[1], g.slice_z]),
                         "orientation": q4([0.0, 0.0, 0.0, 1.0])},
                "column_count": g.cols,
                "cell_size": {"x": g.cell_m, "y": g.cell_m},
                "row_stride": g.cols, "cell_stride": 1,
                "fields": [{"name": "occupancy", "offset": 0, "type": UINT8}],
                "data": base64::engine::general_purpose::STANDARD.encode(&g.cells)});
            send(
                &mut out,
                &mut channels,
                "/map/occupancy",
                "foxglove.Grid",
                t0,
                &grid,
            )?;
        }
    }
    // Each agent's hull, sent when it appears and deleted when it goes;
    // locked to its base link, so it follows `/tf` with no more messages.
    let mut present: Vec<Arc<str>> = Vec::new();
    for s in frames.iter(Payloads::Keep) {
        let s = s?;
        let now: Vec<Arc<str>> = s.agents.iter().map(|a| a.name.clone()).collect();
        let gone: Vec<Value> = present
            .iter()
            .filter(|n| !now.contains(n))
            .map(|n| json!({"timestamp": stamp(s.time), "type": 0, "id": &**n}))
            .collect();
        let new: Vec<Value> = s
            .agents
            .iter()
            .enumerate()
            .filter(|(_, a)| !present.contains(&a.name))
            .map(|(i, a)| {
                let hull = scene.agents.get(&*a.name).copied().unwrap_or(AgentHull {
                    length_m: 1.0,
                    width_m: 0.5,
                    vehicle: a.vehicle,
                });
                // The main AUV is first in every frame.
                let color = if i == 0 {
                    json!({"r": 0.95, "g": 0.77, "b": 0.06, "a": 1.0})
                } else if hull.vehicle {
                    json!({"r": 0.2, "g": 0.6, "b": 0.86, "a": 1.0})
                } else {
                    json!({"r": 0.9, "g": 0.49, "b": 0.13, "a": 1.0})
                };
                json!({
                    "timestamp": stamp(s.time), "frame_id": format!("{}/base_link", a.name), "id": &*a.name,
                    "lifetime": {"sec": 0, "nsec": 0}, "frame_locked": true,
                    "metadata": [], "arrows": [], "spheres": [], "cylinders": [],
                    "lines": [], "triangles": [], "texts": [], "models": [],
                    "cubes": [{"pose": {"position": v3([0.0; 3]), "orientation": q4([0.0, 0.0, 0.0, 1.0])},
                               "size": v3([hull.length_m, hull.width_m, hull.width_m]), "color": color}]})
            })
            .collect();
        if !gone.is_empty() || !new.is_empty() {
            let update = json!({"deletions": gone, "entities": new});
            send(
                &mut out,
                &mut channels,
                "/agents",
                "foxglove.SceneUpdate",
                s.time,
                &update,
            )?;
        }
        present = now;
        for a in &s.agents {
            let tf = json!({
                "timestamp": stamp(s.time), "parent_frame_id": WORLD_FRAME,
                "child_frame_id": format!("{}/base_link", a.name),
                "translation": v3(a.position), "rotation": q4(a.quaternion_xyzw)});
            send(
                &mut out,
                &mut channels,
                "/tf",
                "foxglove.FrameTransform",
                s.time,
                &tf,
            )?;
            let pose = json!({
                "timestamp": stamp(s.time), "frame_id": WORLD_FRAME,
                "pose": {"position": v3(a.position), "orientation": q4(a.quaternion_xyzw)}});
            let topic = format!("/{}/pose", a.name);
            send(
                &mut out,
                &mut channels,
                &topic,
                "foxglove.PoseInFrame",
                s.time,
                &pose,
            )?;
            for (sensor, taken) in &a.sensors {
                let Some(f) = by_sensor.get(&(&*a.name, &**sensor)) else {
                    continue;
                };
                for sample in taken {
                    for (suffix, schema, msg) in sensor_messages(f, sample) {
                        let topic = if suffix.is_empty() {
                            format!("/{}/{sensor}", a.name)
                        } else {
                            format!("/{}/{sensor}/{suffix}", a.name)
                        };
                        send(&mut out, &mut channels, &topic, schema, sample.time, &msg)?;
                    }
                }
            }
        }
    }
    out.finish().map_err(err)?;
    Ok((channels.len(), messages))
}
