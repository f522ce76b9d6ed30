//! The MCAP file's JSON messages as types: Foxglove's well-known schemas
//! (the JSON Schemas in the [`foxglove`](self) folder, embedded in the file
//! unchanged, [`FOXGLOVE_SCHEMAS`](crate::FOXGLOVE_SCHEMAS)) and this
//! project's own for the readings Foxglove has none for ([`OWN_SCHEMAS`]).
//!
//! Field names and nesting are the schemas'; each type says which schema
//! it is ([`Message::schema`]), so a message cannot go out under another's
//! name. Units are SI (m, m/s, rad, rad/s, Pa); frames are named by
//! `frame_id` (REP 103: `world` ENU, base links and sensors FLU, optical
//! frames z forward, [`oceansim_sensors::frame_tree`]).
//!
//! **Field order.** Every struct declares its fields in the byte order of
//! their JSON keys (`D K P R` before lower case, `w x y z` in a
//! quaternion), not in the schema's order: the messages were built as
//! `serde_json::Value`s, whose maps sort their keys, and a struct
//! serialises in declaration order, so this keeps every message's bytes
//! what they were (the tests below compare both forms). JSON readers do
//! not care about key order.

use serde::Serialize;
use std::borrow::Cow;

/// A message with its schema's name, the name its channel is registered
/// under.
pub(crate) trait Message: Serialize {
    /// The schema's name (`foxglove.FrameTransform`, `oceansim.Imu`, …).
    fn schema(&self) -> &'static str;
}

macro_rules! schema_names {
    ($($ty:ident => $name:literal),* $(,)?) => {$(
        impl Message for $ty<'_> {
            fn schema(&self) -> &'static str {
                $name
            }
        }
    )*};
}

schema_names!(
    FrameTransform => "foxglove.FrameTransform",
    PoseInFrame => "foxglove.PoseInFrame",
    SceneUpdate => "foxglove.SceneUpdate",
    Grid => "foxglove.Grid",
    CompressedImage => "foxglove.CompressedImage",
    CameraCalibration => "foxglove.CameraCalibration",
    PointCloud => "foxglove.PointCloud",
    LaserScan => "foxglove.LaserScan",
    RawImage => "foxglove.RawImage",
    Imu => "oceansim.Imu",
    Dvl => "oceansim.Dvl",
    Depth => "oceansim.Depth",
);

/// Foxglove's `NumericType.UINT8`.
pub(crate) const UINT8: u32 = 1;
/// Foxglove's `NumericType.FLOAT32`.
pub(crate) const FLOAT32: u32 = 7;

/// Foxglove's `time`: seconds and nanoseconds (here simulated time, the
/// recording's start at 0).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Time {
    /// Nanoseconds, 0 to 999 999 999.
    pub nsec: u32,
    /// Whole seconds.
    pub sec: u64,
}

impl Time {
    /// `t` seconds (negative ones clamp to 0), to the nearest nanosecond.
    pub fn at(t: f64) -> Time {
        let ns = (t.max(0.0) * 1e9).round() as u64;
        Time {
            nsec: (ns % 1_000_000_000) as u32,
            sec: ns / 1_000_000_000,
        }
    }
}

/// Foxglove's `duration`: seconds and nanoseconds.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Duration {
    /// Nanoseconds, 0 to 999 999 999.
    pub nsec: u32,
    /// Whole seconds.
    pub sec: i32,
}

impl Duration {
    /// No time: a scene entity with this lifetime stays until replaced or
    /// deleted.
    pub const FOREVER: Duration = Duration { nsec: 0, sec: 0 };
}

/// `foxglove.Vector3` (also `foxglove.Point3`: the same fields): m, m/s,
/// rad/s or m/s² as the field holding it says.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Vector3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl From<[f64; 3]> for Vector3 {
    fn from([x, y, z]: [f64; 3]) -> Vector3 {
        Vector3 { x, y, z }
    }
}

impl From<nalgebra::Vector3<f64>> for Vector3 {
    fn from(v: nalgebra::Vector3<f64>) -> Vector3 {
        Vector3 {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

/// `foxglove.Vector2` (m).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Vector2 {
    pub x: f64,
    pub y: f64,
}

/// `foxglove.Quaternion`: a rotation, `w` the scalar part.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Quaternion {
    pub w: f64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Quaternion {
    /// No rotation.
    pub const IDENTITY: Quaternion = Quaternion {
        w: 1.0,
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
}

impl From<[f64; 4]> for Quaternion {
    /// From `[x, y, z, w]`, this project's order.
    fn from([x, y, z, w]: [f64; 4]) -> Quaternion {
        Quaternion { w, x, y, z }
    }
}

/// `foxglove.Pose`: a position (m) and an orientation in the frame of the
/// message holding it.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Pose {
    pub orientation: Quaternion,
    pub position: Vector3,
}

impl Pose {
    /// At the frame's origin, on its axes.
    pub const IDENTITY: Pose = Pose {
        orientation: Quaternion::IDENTITY,
        position: Vector3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
    };

    /// At `position`, unrotated.
    pub fn at(position: [f64; 3]) -> Pose {
        Pose {
            orientation: Quaternion::IDENTITY,
            position: position.into(),
        }
    }
}

/// `foxglove.Color`: red, green, blue and alpha, each 0 to 1.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Color {
    pub a: f64,
    pub b: f64,
    pub g: f64,
    pub r: f64,
}

impl Color {
    /// An opaque colour.
    pub const fn rgb(r: f64, g: f64, b: f64) -> Color {
        Color { a: 1.0, b, g, r }
    }
}

/// `foxglove.FrameTransform`: where `child_frame_id` is in
/// `parent_frame_id` (translation in m, in the parent's axes).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FrameTransform<'a> {
    pub child_frame_id: &'a str,
    pub parent_frame_id: &'a str,
    pub rotation: Quaternion,
    pub timestamp: Time,
    pub translation: Vector3,
}

/// `foxglove.PoseInFrame`: a pose (m) in `frame_id`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PoseInFrame<'a> {
    pub frame_id: &'a str,
    pub pose: Pose,
    pub timestamp: Time,
}

/// An element of the scene entity's arrays this exporter always writes
/// empty (arrows, lines, triangles, texts, models, metadata): no value of
/// it exists, so those arrays cannot hold anything.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) enum Unwritten {}

/// `foxglove.CubePrimitive`: a box (size: full edge lengths, m).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct CubePrimitive {
    pub color: Color,
    pub pose: Pose,
    pub size: Vector3,
}

/// `foxglove.SpherePrimitive`: an ellipsoid (size: diameters, m).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct SpherePrimitive {
    pub color: Color,
    pub pose: Pose,
    pub size: Vector3,
}

/// `foxglove.CylinderPrimitive`: a cylinder along its pose's z axis (size:
/// its bounding box, m; the scales: each face's diameter over the box's).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct CylinderPrimitive {
    pub bottom_scale: f64,
    pub color: Color,
    pub pose: Pose,
    pub size: Vector3,
    pub top_scale: f64,
}

/// `foxglove.SceneEntity`: primitives in `frame_id`, shown from
/// `timestamp` for `lifetime` (0: until replaced or deleted); a
/// `frame_locked` one follows its frame as `/tf` moves it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SceneEntity<'a> {
    pub arrows: Vec<Unwritten>,
    pub cubes: Vec<CubePrimitive>,
    pub cylinders: Vec<CylinderPrimitive>,
    pub frame_id: Cow<'a, str>,
    pub frame_locked: bool,
    pub id: &'a str,
    pub lifetime: Duration,
    pub lines: Vec<Unwritten>,
    pub metadata: Vec<Unwritten>,
    pub models: Vec<Unwritten>,
    pub spheres: Vec<SpherePrimitive>,
    pub texts: Vec<Unwritten>,
    pub timestamp: Time,
    pub triangles: Vec<Unwritten>,
}

impl<'a> SceneEntity<'a> {
    /// An entity with no primitives yet, lasting until replaced or deleted.
    pub fn new(id: &'a str, frame_id: Cow<'a, str>, timestamp: Time, frame_locked: bool) -> Self {
        SceneEntity {
            arrows: Vec::new(),
            cubes: Vec::new(),
            cylinders: Vec::new(),
            frame_id,
            frame_locked,
            id,
            lifetime: Duration::FOREVER,
            lines: Vec::new(),
            metadata: Vec::new(),
            models: Vec::new(),
            spheres: Vec::new(),
            texts: Vec::new(),
            timestamp,
            triangles: Vec::new(),
        }
    }
}

/// `foxglove.SceneEntityDeletion`: the entity `id` gone at `timestamp`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SceneEntityDeletion<'a> {
    pub id: &'a str,
    pub timestamp: Time,
    /// [`SceneEntityDeletion::MATCHING_ID`] (the only kind written).
    #[serde(rename = "type")]
    pub kind: u32,
}

impl SceneEntityDeletion<'_> {
    /// `SceneEntityDeletionType.MATCHING_ID`: the entity named `id`.
    pub const MATCHING_ID: u32 = 0;
}

/// `foxglove.SceneUpdate`: entities to delete, then entities to add or
/// replace (by id).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SceneUpdate<'a> {
    pub deletions: Vec<SceneEntityDeletion<'a>>,
    pub entities: Vec<SceneEntity<'a>>,
}

/// `foxglove.PackedElementField`: a field of a grid cell or a point, at a
/// byte offset, of a `NumericType` ([`UINT8`], [`FLOAT32`]).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct PackedElementField<'a> {
    pub name: &'a str,
    pub offset: u32,
    #[serde(rename = "type")]
    pub numeric_type: u32,
}

/// `foxglove.Grid`: cells on the x-y plane of `pose` (its corner) in
/// `frame_id`, `cell_size` m each, row-major from that corner, their bytes
/// base64 in `data` (little-endian) as `fields` lay them out.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Grid<'a> {
    pub cell_size: Vector2,
    pub cell_stride: u32,
    pub column_count: usize,
    pub data: String,
    pub fields: Vec<PackedElementField<'a>>,
    pub frame_id: &'a str,
    pub pose: Pose,
    pub row_stride: usize,
    pub timestamp: Time,
}

/// `foxglove.PointCloud`: points in `frame_id` (through `pose`), each
/// `point_stride` bytes of base64 `data` laid out as `fields` say
/// (little-endian; coordinates in m).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PointCloud<'a> {
    pub data: String,
    pub fields: Vec<PackedElementField<'a>>,
    pub frame_id: Cow<'a, str>,
    pub point_stride: u32,
    pub pose: Pose,
    pub timestamp: Time,
}

/// `foxglove.CompressedImage`: an encoded image (base64 `data`, `format`
/// `png` here) in `frame_id` (a camera's optical frame, or a sonar's).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CompressedImage<'a> {
    pub data: Cow<'a, str>,
    pub format: &'a str,
    pub frame_id: Cow<'a, str>,
    pub timestamp: Time,
}

/// `foxglove.CameraCalibration`: a camera's pinhole model in its optical
/// frame `frame_id` (pixels; `D` the distortion coefficients, `K` the 3×3
/// intrinsics, `R` the 3×3 rectification, `P` the 3×4 projection, each
/// row-major).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CameraCalibration<'a> {
    #[serde(rename = "D")]
    pub d: [f64; 5],
    #[serde(rename = "K")]
    pub k: [f64; 9],
    #[serde(rename = "P")]
    pub p: [f64; 12],
    #[serde(rename = "R")]
    pub r: [f64; 9],
    pub distortion_model: &'a str,
    pub frame_id: Cow<'a, str>,
    pub height: usize,
    pub timestamp: Time,
    pub width: usize,
}

/// `foxglove.LaserScan`: ranges (m) at equal steps from `start_angle` to
/// `end_angle` (rad, counter-clockwise about z) on the x-y plane of `pose`
/// in `frame_id`, with their intensities.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LaserScan<'a> {
    pub end_angle: f64,
    pub frame_id: Cow<'a, str>,
    pub intensities: Vec<f64>,
    pub pose: Pose,
    pub ranges: Vec<f64>,
    pub start_angle: f64,
    pub timestamp: Time,
}

/// `foxglove.RawImage`: `height` rows of `step` bytes (base64 `data`) in
/// `encoding` (`mono8` here) in `frame_id`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RawImage<'a> {
    pub data: String,
    pub encoding: &'a str,
    pub frame_id: Cow<'a, str>,
    pub height: usize,
    pub step: usize,
    pub timestamp: Time,
    pub width: usize,
}

/// `oceansim.Imu` ([`OWN_SCHEMAS`]): the attitude of the sensor frame
/// `frame_id` in `world` (ENU), its body rates (rad/s) and specific force
/// (m/s², +9.81 up at rest), both in its FLU axes.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Imu<'a> {
    pub angular_velocity: Vector3,
    pub frame_id: Cow<'a, str>,
    pub linear_acceleration: Vector3,
    pub orientation: Quaternion,
    pub timestamp: Time,
}

/// `oceansim.Dvl` ([`OWN_SCHEMAS`]): velocity over ground in the sensor's
/// FLU axes (m/s) and altitude (m), both `null` without bottom lock, and
/// the four beams' slant ranges (m, `null` where none).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Dvl<'a> {
    pub altitude_m: Option<f64>,
    pub beam_ranges_m: [Option<f64>; 4],
    pub bottom_lock: bool,
    pub frame_id: Cow<'a, str>,
    pub timestamp: Time,
    pub velocity: Option<Vector3>,
}

/// `oceansim.Depth` ([`OWN_SCHEMAS`]): the sensor's depth (m, positive
/// down) and absolute pressure (Pa).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Depth<'a> {
    pub depth_m: f64,
    pub frame_id: Cow<'a, str>,
    pub pressure_pa: f64,
    pub timestamp: Time,
}

/// One sensor sample's message, whichever its schema (serialised as the
/// message itself).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum SensorMessage<'a> {
    CompressedImage(CompressedImage<'a>),
    CameraCalibration(CameraCalibration<'a>),
    PointCloud(PointCloud<'a>),
    LaserScan(LaserScan<'a>),
    RawImage(RawImage<'a>),
    Imu(Imu<'a>),
    Dvl(Dvl<'a>),
    Depth(Depth<'a>),
}

impl Message for SensorMessage<'_> {
    fn schema(&self) -> &'static str {
        match self {
            SensorMessage::CompressedImage(m) => m.schema(),
            SensorMessage::CameraCalibration(m) => m.schema(),
            SensorMessage::PointCloud(m) => m.schema(),
            SensorMessage::LaserScan(m) => m.schema(),
            SensorMessage::RawImage(m) => m.schema(),
            SensorMessage::Imu(m) => m.schema(),
            SensorMessage::Dvl(m) => m.schema(),
            SensorMessage::Depth(m) => m.schema(),
        }
    }
}

/// This project's JSON Schemas (draft 2020-12) for the readings Foxglove
/// has no schema for ([`Imu`], [`Dvl`], [`Depth`]), by name. Fixed
/// documents, embedded in the file as they are: kept as text (byte for
/// byte what earlier files embedded), not built.
pub(crate) const OWN_SCHEMAS: [(&str, &str); 3] = [
    (
        "oceansim.Imu",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"oceansim-rs","title":"oceansim.Imu","description":"An IMU sample in its sensor's FLU frame","type":"object","properties":{"timestamp":{"type":"object","title":"time","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}},"frame_id":{"type":"string","description":"The sensor's frame"},"orientation":{"type":"object","description":"Attitude of the sensor frame in the world frame (ENU)","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"},"w":{"type":"number"}}},"angular_velocity":{"type":"object","description":"Body rates in the sensor frame (rad/s)","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}},"linear_acceleration":{"type":"object","description":"Specific force in the sensor frame (m/s^2): +9.81 up at rest","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}}},"required":["timestamp","frame_id","orientation","angular_velocity","linear_acceleration"]}"##,
    ),
    (
        "oceansim.Dvl",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"oceansim-rs","title":"oceansim.Dvl","description":"A Doppler velocity log sample in its sensor's FLU frame","type":"object","properties":{"timestamp":{"type":"object","title":"time","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}},"frame_id":{"type":"string","description":"The sensor's frame"},"bottom_lock":{"type":"boolean","description":"At least three beams found the bottom"},"velocity":{"type":["object","null"],"description":"Velocity over ground in the sensor frame (m/s), null without bottom lock","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}},"altitude_m":{"type":["number","null"],"description":"Height above the bottom (m), null without bottom lock"},"beam_ranges_m":{"type":"array","description":"Slant range of each of the four beams (m), null where none","items":{"type":["number","null"]}}},"required":["timestamp","frame_id","bottom_lock","velocity","altitude_m","beam_ranges_m"]}"##,
    ),
    (
        "oceansim.Depth",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"oceansim-rs","title":"oceansim.Depth","description":"A pressure-depth sample","type":"object","properties":{"timestamp":{"type":"object","title":"time","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}},"frame_id":{"type":"string","description":"The sensor's frame"},"depth_m":{"type":"number","description":"Depth of the sensor (m, positive down)"},"pressure_pa":{"type":"number","description":"Absolute pressure (Pa): atmosphere plus rho g depth"}},"required":["timestamp","frame_id","depth_m","pressure_pa"]}"##,
    ),
];

// The tests compare each type with the `Value` it replaced (a file of their
// own: this one stays under 700 lines).
#[cfg(test)]
#[path = "foxglove_tests.rs"]
mod tests;
