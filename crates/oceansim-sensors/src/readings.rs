//! How readings are named and read back: their family, the fixed strings
//! they carry, and [`Reading::from_json`] (the recorder's spill reads
//! samples back with it).

use super::{imu, Family, Reading};
use serde::Deserialize;

/// How readings carry images: base64 text of a PNG file.
pub const PNG_BASE64: &str = "png_base64";

/// A string a reading carries that is always one of a few constants.
/// (An alias, so that serde's derive does not borrow it from the input.)
pub type FixedStr = &'static str;

/// Reads a fixed string a reading carries (`encoding`,
/// `frame_convention`) back to its constant: readings only ever hold these.
pub(super) fn fixed_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    [PNG_BASE64, imu::FRAME_CONVENTION]
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
