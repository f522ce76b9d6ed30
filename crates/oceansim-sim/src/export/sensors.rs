//! Every recorded sensor sample, per sensor: a JSON Lines time series,
//! images as PNG files and point clouds as PLY files beside it.
//!
//! `sensors/<agent>/<sensor>.jsonl` holds one line per sample:
//! `sequence`, `time`, `wall_time` and the reading's fields as the sensor
//! payload has them, except that a `<name>_png_base64` image becomes the
//! file `<sensor>/<sequence>_<name>.png` (its name under `<name>_png`), and
//! a 3-D lidar or RGB-D sample's points are also written as
//! `<sensor>/<sequence>.ply` (ASCII PLY in the sensor frame, with intensity
//! or colour).

use crate::recorder::Sample;
use crate::safe_fs::SafeDir;
use crate::sensors::{Reading, SensorSample};
use base64::Engine as _;
use oceansim_protocol::ProtocolError;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

/// The samples of each `(agent, sensor)`, in recording order.
pub fn by_sensor(samples: &[Arc<Sample>]) -> BTreeMap<(String, String), Vec<Arc<SensorSample>>> {
    let mut out: BTreeMap<(String, String), Vec<Arc<SensorSample>>> = BTreeMap::new();
    for f in samples {
        for a in &f.agents {
            for (name, taken) in &a.sensors {
                out.entry((a.name.to_string(), name.to_string()))
                    .or_default()
                    .extend(taken.iter().cloned());
            }
        }
    }
    out
}

/// Writes one sensor's series into `dir` (the agent's directory) as
/// `<sensor>.jsonl` plus its files under `<sensor>/`; returns every file
/// name written, relative to `dir`.
pub fn write_series(
    dir: &SafeDir,
    sensor: &str,
    samples: &[Arc<SensorSample>],
) -> Result<Vec<String>, ProtocolError> {
    let mut written = Vec::new();
    let mut files: Option<SafeDir> = None;
    let mut lines = Vec::with_capacity(samples.len());
    for s in samples {
        let mut fields = match serde_json::to_value(&s.reading) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let images: Vec<String> = fields
            .keys()
            .filter(|k| k.ends_with("_png_base64"))
            .cloned()
            .collect();
        let mut put = |name: String, bytes: &[u8]| -> Result<String, ProtocolError> {
            if files.is_none() {
                files = Some(dir.child_dir(sensor)?);
            }
            if let Some(d) = &files {
                d.write(&name, |w| w.write_all(bytes))?;
            }
            written.push(format!("{sensor}/{name}"));
            Ok(format!("{sensor}/{name}"))
        };
        for key in images {
            let Some(Value::String(text)) = fields.remove(&key) else {
                continue;
            };
            let stem = key.trim_end_matches("_png_base64");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text.as_bytes())
                .unwrap_or_default();
            let file = put(format!("{:06}_{stem}.png", s.sequence), &bytes)?;
            fields.insert(format!("{stem}_png"), Value::String(file));
        }
        if let Some(ply) = ply(&s.reading) {
            let file = put(format!("{:06}.ply", s.sequence), ply.as_bytes())?;
            fields.insert("cloud_ply".into(), Value::String(file));
        }
        let mut line = Map::new();
        line.insert("sequence".into(), s.sequence.into());
        line.insert("time".into(), s.time.into());
        line.insert("wall_time".into(), s.wall_time.into());
        line.extend(fields);
        lines.push(Value::Object(line).to_string());
    }
    let name = format!("{sensor}.jsonl");
    dir.write(&name, |w| {
        for l in &lines {
            w.write_all(l.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    written.push(name);
    Ok(written)
}

/// An ASCII PLY of a cloud reading (sensor frame), if it is one.
fn ply(reading: &Reading) -> Option<String> {
    let header = |n: usize, extra: &str| {
        format!("ply\nformat ascii 1.0\ncomment oceansim-rs sensor frame: x forward, y starboard, z down (m)\nelement vertex {n}\nproperty float x\nproperty float y\nproperty float z\n{extra}end_header\n")
    };
    match reading {
        Reading::Lidar3d(l) => {
            let mut s = header(l.points.len(), "property float intensity\n");
            for (p, i) in l.points.iter().zip(&l.intensities) {
                s += &format!("{} {} {} {i}\n", p[0], p[1], p[2]);
            }
            Some(s)
        }
        Reading::Rgbd(r) => {
            let mut s = header(
                r.points.len(),
                "property uchar red\nproperty uchar green\nproperty uchar blue\n",
            );
            for (p, c) in r.points.iter().zip(&r.colors_rgb) {
                s += &format!("{} {} {} {} {} {}\n", p[0], p[1], p[2], c[0], c[1], c[2]);
            }
            Some(s)
        }
        _ => None,
    }
}
