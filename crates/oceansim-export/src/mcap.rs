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
//!
//! Each message is a typed struct of the crate's `foxglove` module, which
//! names its schema; serialised with `serde_json`, its keys in the order
//! the files have always had (sorted).

use super::foxglove::{
    Color, CubePrimitive, CylinderPrimitive, FrameTransform, Grid, Message, PackedElementField,
    Pose, PoseInFrame, SceneEntity, SceneEntityDeletion, SceneUpdate, SpherePrimitive, Time,
    Vector2, FLOAT32, OWN_SCHEMAS, UINT8,
};
use super::mcap_sensors::{b64, sensor_messages};
use oceansim_record::{Payloads, RecordedFrames};
use oceansim_sensors::frame_tree::{static_edges, SensorFrame, WORLD_FRAME};
use std::borrow::Cow;
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

/// The file being written: its schemas and channels (a channel per topic,
/// added with its first message) and each channel's sequence.
struct Out<W: Write + Seek> {
    file: mcap::Writer<W>,
    /// Schema ids by name.
    schemas: BTreeMap<&'static str, u16>,
    /// Channel ids by topic.
    channels: BTreeMap<String, u16>,
    /// The last sequence number by channel id.
    sequence: BTreeMap<u16, u32>,
    /// The recording's start on the Unix clock (ns).
    origin: u64,
    /// Messages written.
    messages: u64,
}

impl<W: Write + Seek> Out<W> {
    /// Writes `msg` on `topic` (its channel under the message's schema),
    /// logged and published at simulated time `t`.
    fn send(&mut self, topic: &str, t: f64, msg: &impl Message) -> std::io::Result<()> {
        let err = super::mcap_err;
        let id = match self.channels.get(topic) {
            Some(id) => *id,
            None => {
                let id = self
                    .file
                    .add_channel(self.schemas[msg.schema()], topic, "json", &BTreeMap::new())
                    .map_err(err)?;
                self.channels.insert(topic.to_owned(), id);
                id
            }
        };
        let seq = self.sequence.entry(id).or_insert(0);
        *seq += 1;
        let ns = self
            .origin
            .saturating_add((t.max(0.0) * 1e9).round() as u64);
        let data = serde_json::to_vec(msg).map_err(std::io::Error::from)?;
        self.file
            .write_to_known_channel(
                &mcap::records::MessageHeader {
                    channel_id: id,
                    sequence: *seq,
                    log_time: ns,
                    publish_time: ns,
                },
                &data,
            )
            .map_err(err)?;
        self.messages += 1;
        Ok(())
    }
}

/// The obstacles' grey.
const GREY: Color = Color::rgb(0.5, 0.52, 0.55);

/// An obstacle as a scene entity in `world`, at `t0`.
fn obstacle_entity<'a>(id: &'a str, shape: &SceneShape, t0: f64) -> SceneEntity<'a> {
    let mut e = SceneEntity::new(id, Cow::Borrowed(WORLD_FRAME), Time::at(t0), false);
    match *shape {
        SceneShape::Cube(c, half, q) => e.cubes.push(CubePrimitive {
            color: GREY,
            pose: Pose {
                orientation: q.into(),
                position: c.into(),
            },
            size: half.map(|h| 2.0 * h).into(),
        }),
        SceneShape::Sphere(c, r) => e.spheres.push(SpherePrimitive {
            color: GREY,
            pose: Pose::at(c),
            size: [2.0 * r; 3].into(),
        }),
        SceneShape::Cylinder(c, r, h, q) => e.cylinders.push(CylinderPrimitive {
            bottom_scale: 1.0,
            color: GREY,
            pose: Pose {
                orientation: q.into(),
                position: c.into(),
            },
            size: [2.0 * r, 2.0 * r, h].into(),
            top_scale: 1.0,
        }),
    }
    e
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
    let file = mcap::WriteOptions::new()
        .compression(Some(mcap::Compression::Lz4))
        .profile("")
        .library(concat!("oceansim-rs ", env!("CARGO_PKG_VERSION")))
        .create(w)
        .map_err(err)?;
    let mut out = Out {
        file,
        schemas: BTreeMap::new(),
        channels: BTreeMap::new(),
        sequence: BTreeMap::new(),
        origin: scene.clock_origin_unix_ns,
        messages: 0,
    };
    for (name, data) in FOXGLOVE_SCHEMAS {
        let id = out.file.add_schema(name, "jsonschema", data).map_err(err)?;
        out.schemas.insert(name, id);
    }
    for (name, data) in OWN_SCHEMAS {
        let id = out
            .file
            .add_schema(name, "jsonschema", data.as_bytes())
            .map_err(err)?;
        out.schemas.insert(name, id);
    }
    let by_sensor: BTreeMap<(&str, &str), &SensorFrame> = scene
        .sensor_frames
        .iter()
        .map(|f| ((f.agent.as_str(), f.sensor.as_str()), f))
        .collect();
    let t0 = frames.time_span().map_or(0.0, |[t0, _]| t0);
    if !frames.is_empty() {
        // Each sensor on its base link, and each camera's optical frame on
        // its sensor: fixed, so sent once.
        for (parent, child, t, q) in static_edges(&scene.sensor_frames) {
            let tf = FrameTransform {
                child_frame_id: &child,
                parent_frame_id: &parent,
                rotation: q.into(),
                timestamp: Time::at(t0),
                translation: t.into(),
            };
            out.send("/tf_static", t0, &tf)?;
        }
        let update = SceneUpdate {
            deletions: Vec::new(),
            entities: scene
                .obstacles
                .iter()
                .map(|(id, shape)| obstacle_entity(id, shape, t0))
                .collect(),
        };
        out.send("/scene", t0, &update)?;
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
            let grid = Grid {
                cell_size: Vector2 {
                    x: g.cell_m,
                    y: g.cell_m,
                },
                cell_stride: 4,
                column_count: g.cols,
                data: b64(&bytes),
                fields: vec![PackedElementField {
                    name: "height",
                    offset: 0,
                    numeric_type: FLOAT32,
                }],
                frame_id: WORLD_FRAME,
                pose: Pose::at([g.origin[0], g.origin[1], 0.0]),
                row_stride: 4 * g.cols,
                timestamp: Time::at(t0),
            };
            out.send("/map/seabed", t0, &grid)?;
        }
        if let Some(g) = scene
            .occupancy
            .as_ref()
            .filter(|g| g.cells.len() == g.cols * g.rows)
        {
            let grid = Grid {
                cell_size: Vector2 {
                    x: g.cell_m,
                    y: g.cell_m,
                },
                cell_stride: 1,
                column_count: g.cols,
                data: b64(&g.cells),
                fields: vec![PackedElementField {
                    name: "occupancy",
                    offset: 0,
                    numeric_type: UINT8,
                }],
                frame_id: WORLD_FRAME,
                pose: Pose::at([g.origin[0], g.origin[1], g.slice_z]),
                row_stride: g.cols,
                timestamp: Time::at(t0),
            };
            out.send("/map/occupancy", t0, &grid)?;
        }
    }
    // Each agent's hull, sent when it appears and deleted when it goes;
    // locked to its base link, so it follows `/tf` with no more messages.
    let mut present: Vec<Arc<str>> = Vec::new();
    for s in frames.iter(Payloads::Keep) {
        let s = s?;
        let now: Vec<Arc<str>> = s.agents.iter().map(|a| a.name.clone()).collect();
        let deletions: Vec<SceneEntityDeletion<'_>> = present
            .iter()
            .filter(|n| !now.contains(n))
            .map(|n| SceneEntityDeletion {
                id: n,
                timestamp: Time::at(s.time),
                kind: SceneEntityDeletion::MATCHING_ID,
            })
            .collect();
        let entities: Vec<SceneEntity<'_>> = s
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
                    Color::rgb(0.95, 0.77, 0.06)
                } else if hull.vehicle {
                    Color::rgb(0.2, 0.6, 0.86)
                } else {
                    Color::rgb(0.9, 0.49, 0.13)
                };
                let frame = Cow::Owned(format!("{}/base_link", a.name));
                let mut e = SceneEntity::new(&a.name, frame, Time::at(s.time), true);
                e.cubes.push(CubePrimitive {
                    color,
                    pose: Pose::IDENTITY,
                    size: [hull.length_m, hull.width_m, hull.width_m].into(),
                });
                e
            })
            .collect();
        if !deletions.is_empty() || !entities.is_empty() {
            let update = SceneUpdate {
                deletions,
                entities,
            };
            out.send("/agents", s.time, &update)?;
        }
        present = now;
        for a in &s.agents {
            let base_link = format!("{}/base_link", a.name);
            let tf = FrameTransform {
                child_frame_id: &base_link,
                parent_frame_id: WORLD_FRAME,
                rotation: a.quaternion_xyzw.into(),
                timestamp: Time::at(s.time),
                translation: a.position.into(),
            };
            out.send("/tf", s.time, &tf)?;
            let pose = PoseInFrame {
                frame_id: WORLD_FRAME,
                pose: Pose {
                    orientation: a.quaternion_xyzw.into(),
                    position: a.position.into(),
                },
                timestamp: Time::at(s.time),
            };
            out.send(&format!("/{}/pose", a.name), s.time, &pose)?;
            for (sensor, taken) in &a.sensors {
                let Some(f) = by_sensor.get(&(&*a.name, &**sensor)) else {
                    continue;
                };
                for sample in taken {
                    for (suffix, msg) in sensor_messages(f, sample) {
                        let topic = if suffix.is_empty() {
                            format!("/{}/{sensor}", a.name)
                        } else {
                            format!("/{}/{sensor}/{suffix}", a.name)
                        };
                        out.send(&topic, sample.time, &msg)?;
                    }
                }
            }
        }
    }
    out.file.finish().map_err(err)?;
    Ok((out.channels.len(), out.messages))
}
