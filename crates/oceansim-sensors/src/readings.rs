//! What sensors read: the families, the [`Reading`] of each (its fields as
//! clients receive them), the fixed strings they carry, and
//! [`Reading::from_json`] (the recorder's spill reads samples back with
//! it). A leaf: the models that take the readings live in their families'
//! files.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How readings carry images: base64 text of a PNG file.
pub const PNG_BASE64: &str = "png_base64";

/// A string a reading carries that is always one of a few constants.
/// (An alias, so that serde's derive does not borrow it from the input.)
pub type FixedStr = &'static str;

/// Reads a fixed string a reading carries (`encoding`,
/// `frame_convention`) back to its constant: readings only ever hold these.
pub(crate) fn fixed_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    [PNG_BASE64, FRAME_CONVENTION]
        .into_iter()
        .find(|k| *k == s)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown reading constant `{s}`")))
}

impl Reading {
    /// The family that takes readings of this kind.
    pub fn family(&self) -> Family {
        match self {
            Reading::Depth(_) => Family::Depth,
            Reading::Imu(_) => Family::Imu,
            Reading::Dvl(_) => Family::Dvl,
            Reading::Camera(_) => Family::Camera,
            Reading::Rgbd(_) => Family::RgbdDenseCloud,
            Reading::Lidar2d(_) => Family::Lidar2d,
            Reading::Lidar3d(_) => Family::Lidar3d,
            Reading::ImagingSonar(_) => Family::ImagingSonar,
            Reading::Multibeam(_) => Family::MultibeamSonar,
            Reading::SideScan(_) => Family::SideScanSonar,
        }
    }

    /// A reading of `family` read back from the JSON its `Serialize` wrote
    /// (the payload is untagged, so the family says which it is). An
    /// imaging sonar's decoded `intensity` matrix is not in the JSON and
    /// comes back empty.
    pub fn from_json(family: Family, json: &str) -> serde_json::Result<Reading> {
        use serde_json::from_str as read;
        Ok(match family {
            Family::Depth => Reading::Depth(read(json)?),
            Family::Imu => Reading::Imu(read(json)?),
            Family::Dvl => Reading::Dvl(read(json)?),
            Family::Camera => Reading::Camera(read(json)?),
            Family::RgbdDenseCloud => Reading::Rgbd(read(json)?),
            Family::Lidar2d => Reading::Lidar2d(read(json)?),
            Family::Lidar3d => Reading::Lidar3d(read(json)?),
            Family::ImagingSonar => Reading::ImagingSonar(read(json)?),
            Family::MultibeamSonar => Reading::Multibeam(read(json)?),
            Family::SideScanSonar => Reading::SideScan(read(json)?),
        })
    }
}

/// The sensor families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Pressure depth.
    Depth,
    /// Inertial measurement unit.
    Imu,
    /// Doppler velocity log.
    Dvl,
    /// Camera (intrinsics, depth and segmentation images).
    Camera,
    /// RGB-D dense point cloud.
    RgbdDenseCloud,
    /// Planar lidar.
    Lidar2d,
    /// 3-D lidar.
    Lidar3d,
    /// Forward-looking imaging sonar.
    ImagingSonar,
    /// Down-looking multibeam.
    MultibeamSonar,
    /// Side-scan sonar.
    SideScanSonar,
}

impl Family {
    /// Parses a family name.
    pub fn parse(s: &str) -> Option<Family> {
        Some(match s {
            "depth" => Family::Depth,
            "imu" => Family::Imu,
            "dvl" => Family::Dvl,
            "camera" => Family::Camera,
            "rgbd_dense_cloud" | "rgbd" => Family::RgbdDenseCloud,
            "lidar_2d" => Family::Lidar2d,
            "lidar_3d" => Family::Lidar3d,
            "imaging_sonar" => Family::ImagingSonar,
            "multibeam_sonar" => Family::MultibeamSonar,
            "side_scan_sonar" => Family::SideScanSonar,
            _ => return None,
        })
    }

    /// Family name.
    pub fn name(self) -> &'static str {
        match self {
            Family::Depth => "depth",
            Family::Imu => "imu",
            Family::Dvl => "dvl",
            Family::Camera => "camera",
            Family::RgbdDenseCloud => "rgbd_dense_cloud",
            Family::Lidar2d => "lidar_2d",
            Family::Lidar3d => "lidar_3d",
            Family::ImagingSonar => "imaging_sonar",
            Family::MultibeamSonar => "multibeam_sonar",
            Family::SideScanSonar => "side_scan_sonar",
        }
    }
}

/// A family's reading, flattened into the payload envelope.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reading {
    /// Pressure depth.
    Depth(DepthReading),
    /// IMU.
    Imu(ImuReading),
    /// Doppler velocity log.
    Dvl(DvlReading),
    /// Camera images.
    Camera(CameraReading),
    /// RGB-D point cloud.
    Rgbd(RgbdReading),
    /// Planar lidar scan.
    Lidar2d(Lidar2dReading),
    /// 3-D lidar scan.
    Lidar3d(Lidar3dReading),
    /// Imaging sonar frame.
    ImagingSonar(ImagingSonarReading),
    /// Multibeam ping.
    Multibeam(MultibeamReading),
    /// Side-scan ping.
    SideScan(SideScanReading),
}

/// A depth reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DepthReading {
    /// Depth of the sensor (m, positive down).
    pub depth_m: f64,
    /// Absolute pressure (Pa): atmosphere plus ρ g depth.
    pub pressure_pa: f64,
}

/// An IMU reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImuReading {
    /// Specific force (m/s², FRD body) at the mount: inertial acceleration
    /// minus gravity.
    pub linear_acceleration: [f64; 3],
    /// Body rates (rad/s, FRD).
    pub angular_velocity: [f64; 3],
    /// Body → NED attitude `[x, y, z, w]`.
    pub orientation_quat_xyzw: [f64; 4],
    /// Conventions of the fields.
    #[serde(deserialize_with = "fixed_str")]
    pub frame_convention: FixedStr,
}

/// What an IMU reading's axes and units are.
pub const FRAME_CONVENTION: &str = "FRD body, specific force (m/s^2), rates (rad/s)";

/// A DVL reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DvlReading {
    /// Velocity over ground at the sensor `[u, v, w]` (m/s, FRD body),
    /// `null` without bottom lock.
    pub velocity_body: Option<[f64; 3]>,
    /// Height above the bottom (m, mean of the locked beams' vertical
    /// ranges), `null` without bottom lock.
    pub altitude_m: Option<f64>,
    /// Whether at least three beams found the bottom within range.
    pub bottom_lock: bool,
    /// Slant range of each beam (m), `null` where it found nothing.
    pub beam_ranges_m: [Option<f64>; 4],
}

/// Pinhole intrinsics (px).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Intrinsics {
    /// Focal length x.
    pub fx: f64,
    /// Focal length y.
    pub fy: f64,
    /// Principal point x.
    pub cx: f64,
    /// Principal point y.
    pub cy: f64,
}

/// A camera reading: three PNG images as base64 text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CameraReading {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Intrinsics (px, OpenCV's convention: pixel centres at whole
    /// coordinates); pixel (u, v) looks along (1, (u − cx)/fx, (v − cy)/fy)
    /// in the sensor frame.
    pub intrinsics: Intrinsics,
    /// Horizontal field of view (deg).
    pub hfov_deg: f64,
    /// Farthest depth measured (m).
    pub max_range_m: f64,
    /// Water turbidity the image was rendered through (1 = clear coastal).
    pub turbidity: f64,
    /// How the images travel: `png_base64`.
    #[serde(deserialize_with = "fixed_str")]
    pub encoding: FixedStr,
    /// 8-bit RGB PNG.
    pub rgb_png_base64: String,
    /// 16-bit grayscale PNG of depth along the optical axis, in
    /// `depth_unit_m` (0 = no return).
    pub depth_png_base64: String,
    /// Metres per depth unit (0.001: millimetres).
    pub depth_unit_m: f64,
    /// 8-bit grayscale PNG of class ids (see `segmentation_classes`).
    pub segmentation_png_base64: String,
    /// Class id → name.
    #[serde(deserialize_with = "fixed_classes")]
    pub segmentation_classes: BTreeMap<&'static str, &'static str>,
}

/// Reads `segmentation_classes` back: they are always [`classes`].
pub(crate) fn fixed_classes<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<&'static str, &'static str>, D::Error> {
    let read = BTreeMap::<String, String>::deserialize(d)?;
    let known = classes();
    let same = read.len() == known.len()
        && read
            .iter()
            .zip(&known)
            .all(|((a, b), (c, e))| a == c && b == e);
    if same {
        Ok(known)
    } else {
        Err(serde::de::Error::custom("unknown segmentation classes"))
    }
}

/// Segmentation classes, shared with the ray-hit codes.
pub fn classes() -> BTreeMap<&'static str, &'static str> {
    [
        ("0", "water"),
        ("1", "terrain"),
        ("2", "static_obstacle"),
        ("3", "dynamic_agent"),
    ]
    .into()
}

/// An RGB-D reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RgbdReading {
    /// Image columns.
    pub width: usize,
    /// Image rows.
    pub height: usize,
    /// Intrinsics (px), as for the camera.
    pub intrinsics: Intrinsics,
    /// The cloud takes every `cloud_stride`-th pixel of every
    /// `cloud_stride`-th row of the depth image.
    pub cloud_stride: usize,
    /// Number of points.
    pub point_count: usize,
    /// Points (m, sensor frame: x along the optical axis, y right, z down).
    pub points: Vec<[f64; 3]>,
    /// Points (m, user frame).
    pub points_world: Vec<[f64; 3]>,
    /// Colour of each point, from the RGB image.
    pub colors_rgb: Vec<[u8; 3]>,
    /// How the images travel: `png_base64`.
    #[serde(deserialize_with = "fixed_str")]
    pub encoding: FixedStr,
    /// 8-bit RGB PNG.
    pub rgb_png_base64: String,
    /// 16-bit grayscale PNG of depth along the optical axis, in
    /// `depth_unit_m` (0 = no return).
    pub depth_png_base64: String,
    /// Metres per depth unit (0.001: millimetres).
    pub depth_unit_m: f64,
}

/// A planar scan (ROS `LaserScan` layout).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lidar2dReading {
    /// Angle of the first beam (rad).
    pub angle_min_rad: f64,
    /// Between beams (rad).
    pub angle_increment_rad: f64,
    /// Shortest range (m).
    pub range_min_m: f64,
    /// Longest range (m); beams with no return report it.
    pub range_max_m: f64,
    /// Range per beam (m).
    pub ranges: Vec<f64>,
    /// Return strength per beam (0 = none).
    pub intensities: Vec<f64>,
}

/// A 3-D scan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lidar3dReading {
    /// Rings.
    pub rings: usize,
    /// Columns.
    pub columns: usize,
    /// Number of returns.
    pub point_count: usize,
    /// Returns (m, sensor frame).
    pub points: Vec<[f64; 3]>,
    /// Returns (m, user frame).
    pub points_world: Vec<[f64; 3]>,
    /// `[ring, column]` of each return.
    pub ring_column: Vec<[usize; 2]>,
    /// Intensity of each return in [0, 1]: reflectance × cos(incidence) ×
    /// exp(−2·0.05/m·range) (spreading compensated).
    pub intensities: Vec<f64>,
}

/// An imaging sonar frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImagingSonarReading {
    /// Beams.
    pub beams: usize,
    /// Bins per beam.
    pub bins: usize,
    /// Azimuth span (deg), port (negative) to starboard.
    pub azimuth_range_deg: [f64; 2],
    /// Vertical aperture of each beam (deg).
    pub elevation_aperture_deg: f64,
    /// Bin length (m).
    pub range_resolution_m: f64,
    /// Range (m).
    pub max_range_m: f64,
    /// Value of one intensity step.
    pub intensity_scale: f64,
    /// Echo level at full scale and the displayed window below it (dB).
    pub display_db: [f64; 2],
    /// How the image travels: `png_base64`.
    #[serde(deserialize_with = "fixed_str")]
    pub encoding: FixedStr,
    /// The polar image as an 8-bit grayscale PNG: one column per beam,
    /// port to starboard; one row per range bin, nearest first.
    pub intensity_png_base64: String,
    /// The same image as `intensity[beam][bin]` (not serialised).
    #[serde(skip)]
    pub intensity: Vec<Vec<u8>>,
}

/// A multibeam ping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultibeamReading {
    /// Beams.
    pub beams: usize,
    /// Swath (deg).
    pub swath_deg: f64,
    /// Range (m).
    pub max_range_m: f64,
    /// Slant range per beam (m), `null` without a return.
    pub ranges: Vec<Option<f64>>,
    /// Depth of each sounding (m, positive down), `null` without a return.
    pub depths_m: Vec<Option<f64>>,
    /// Backscatter of each beam (8-bit, 0 without a return).
    pub intensity: Vec<u8>,
}

/// A side-scan ping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideScanReading {
    /// Bins per side.
    pub bins: usize,
    /// Bin length (m).
    pub range_resolution_m: f64,
    /// Range (m).
    pub max_range_m: f64,
    /// Value of one intensity step.
    pub intensity_scale: f64,
    /// Echo level at full scale and the displayed window below it (dB).
    pub display_db: [f64; 2],
    /// Port intensities by slant range (8-bit).
    pub port: Vec<u8>,
    /// Starboard intensities by slant range (8-bit).
    pub starboard: Vec<u8>,
}
