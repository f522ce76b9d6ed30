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

use crate::formats::file_stem;
use base64::Engine as _;
use oceansim_protocol::ProtocolError;
use oceansim_record::safe_fs::{PendingFile, SafeDir};
use oceansim_record::{Payloads, RecordedFrames};
use oceansim_sensors::{Reading, SensorSample};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::Write;

/// Most series written in one pass over the record (each holds a file
/// open).
pub const SERIES_PER_PASS: usize = 64;

/// Writes the series of every sensor with kept samples in `frames` into
/// `run/sensors` (`<agent stem>/<sensor stem>.jsonl` and its files), in
/// passes over the record of at most [`SERIES_PER_PASS`] series; `stems`
/// maps agent names to their directory names. A sensor that took no
/// sample (on demand, never asked) has no series, and with none at all
/// there is no `sensors` directory. Returns every file written, relative
/// to `run`.
pub fn write_all_series(
    run: &SafeDir,
    frames: &RecordedFrames,
    stems: &BTreeMap<String, String>,
) -> Result<Vec<String>, ProtocolError> {
    let mut keys = frames.sensor_keys();
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    keys.sort();
    let sensors = run.child_dir("sensors")?;
    let mut written = Vec::new();
    for chunk in keys.chunks(SERIES_PER_PASS) {
        let stem = |agent: &str| {
            stems
                .get(agent)
                .cloned()
                .unwrap_or_else(|| file_stem(agent))
        };
        let mut agents: Vec<(&str, SafeDir)> = Vec::new();
        for (agent, _) in chunk {
            if !agents.iter().any(|(a, _)| a == agent) {
                agents.push((agent, sensors.child_dir(&stem(agent))?));
            }
        }
        let mut series = Vec::with_capacity(chunk.len());
        for (agent, sensor) in chunk {
            let Some((_, dir)) = agents.iter().find(|(a, _)| a == agent) else {
                continue;
            };
            series.push((agent, sensor, SeriesWriter::new(dir, &file_stem(sensor))?));
        }
        let mut failed: Option<ProtocolError> = None;
        let read = frames.try_for_each(Payloads::Keep, |f| {
            for a in &f.agents {
                for (name, taken) in a.sensors.iter().filter(|(_, t)| !t.is_empty()) {
                    let w = series
                        .iter_mut()
                        .find(|(ag, se, _)| **ag == *a.name && **se == **name);
                    let Some((_, _, w)) = w else {
                        continue;
                    };
                    for sample in taken {
                        if let Err(e) = w.push(sample) {
                            failed = Some(e);
                            return Err(std::io::Error::other("series write failed"));
                        }
                    }
                }
            }
            Ok(())
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(|e| ProtocolError::InvalidMessage(format!("reading the record: {e}")))?;
        for (agent, _, w) in series {
            let prefix = stem(agent);
            written.extend(
                w.finish()?
                    .into_iter()
                    .map(|f| format!("sensors/{prefix}/{f}")),
            );
        }
    }
    Ok(written)
}

/// One sensor's series being written into an agent's directory:
/// `<sensor>.jsonl`, one line per sample, and its files under `<sensor>/`.
#[derive(Debug)]
pub struct SeriesWriter<'a> {
    dir: &'a SafeDir,
    sensor: String,
    files: Option<SafeDir>,
    jsonl: PendingFile<'a>,
    written: Vec<String>,
}

impl<'a> SeriesWriter<'a> {
    /// Starts the series of `sensor` in `dir`.
    pub fn new(dir: &'a SafeDir, sensor: &str) -> Result<Self, ProtocolError> {
        Ok(SeriesWriter {
            dir,
            sensor: sensor.to_owned(),
            files: None,
            jsonl: dir.begin(&format!("{sensor}.jsonl"))?,
            written: Vec::new(),
        })
    }

    /// Writes a file of the series; returns its name relative to the
    /// agent's directory.
    fn put(&mut self, name: String, bytes: &[u8]) -> Result<String, ProtocolError> {
        if self.files.is_none() {
            self.files = Some(self.dir.child_dir(&self.sensor)?);
        }
        if let Some(d) = &self.files {
            d.write(&name, |w| w.write_all(bytes))?;
        }
        let rel = format!("{}/{name}", self.sensor);
        self.written.push(rel.clone());
        Ok(rel)
    }

    /// Appends a sample: its line, and its images and cloud as files.
    pub fn push(&mut self, s: &SensorSample) -> Result<(), ProtocolError> {
        let mut fields = match serde_json::to_value(&s.reading) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let images: Vec<String> = fields
            .keys()
            .filter(|k| k.ends_with("_png_base64"))
            .cloned()
            .collect();
        for key in images {
            let Some(Value::String(text)) = fields.remove(&key) else {
                continue;
            };
            let stem = key.trim_end_matches("_png_base64");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text.as_bytes())
                .unwrap_or_default();
            let file = self.put(format!("{:06}_{stem}.png", s.sequence), &bytes)?;
            fields.insert(format!("{stem}_png"), Value::String(file));
        }
        if let Some(ply) = ply(&s.reading) {
            let file = self.put(format!("{:06}.ply", s.sequence), ply.as_bytes())?;
            fields.insert("cloud_ply".into(), Value::String(file));
        }
        let mut line = Map::new();
        line.insert("sequence".into(), s.sequence.into());
        line.insert("time".into(), s.time.into());
        line.insert("wall_time".into(), s.wall_time.into());
        line.extend(fields);
        let w = self.jsonl.writer();
        let path = || self.dir.file_path(&format!("{}.jsonl", self.sensor));
        serde_json::to_writer(&mut *w, &Value::Object(line))
            .map_err(std::io::Error::from)
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|e| {
                ProtocolError::InvalidMessage(format!("cannot write {}: {e}", path().display()))
            })
    }

    /// Finishes the series; returns every file written, relative to the
    /// agent's directory.
    pub fn finish(self) -> Result<Vec<String>, ProtocolError> {
        let name = format!("{}.jsonl", self.sensor);
        let mut written = self.written;
        self.jsonl.finish()?;
        written.push(name);
        Ok(written)
    }
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
