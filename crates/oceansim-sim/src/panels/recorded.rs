//! A recorded run's sensor series as a replay's panels read them.

use super::{b64, panel_message, PanelSensor};
use oceansim_sensors::frame_tree::SensorFrame;
use oceansim_sensors::{Family, Reading, SensorSample};

/// A recorded run's sensor series, for a replay's panels: each sensor's
/// JSON Lines file indexed by time, read a sample at a time as the page
/// seeks (images read from their PNG files beside it).
#[derive(Debug, Default)]
pub struct RecordedPanels {
    series: Vec<Series>,
}

#[derive(Debug)]
struct Series {
    panel: PanelSensor,
    family: Family,
    /// `sensors/<agent>/`: where the series' image files are.
    dir: std::path::PathBuf,
    file: std::path::PathBuf,
    /// `(time, sequence, byte offset of its line)`, in file order.
    index: Vec<(f64, u64, u64)>,
}

/// Longest line of a series read (bytes): a sample is a few MB at most;
/// a file with a longer one is read up to it.
const MAX_SERIES_LINE_BYTES: u64 = 64 << 20;
/// Largest image file of a series read (bytes); a larger one is shown as
/// missing.
const MAX_IMAGE_BYTES: u64 = 64 << 20;

impl RecordedPanels {
    /// The series `run` recorded (`metadata.json`'s `sensors` with
    /// `samples_recorded`); a sensor whose file is missing or unreadable
    /// is left out, and a line that does not parse is skipped.
    pub fn open(run: &oceansim_dataset::RunReplay) -> RecordedPanels {
        let list = run.metadata()["sensors"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut series = Vec::new();
        for s in &list {
            let (Some(agent), Some(name), Some(kind)) = (
                s["agent"].as_str(),
                s["name"].as_str(),
                s["sensor_type"].as_str().and_then(Family::parse),
            ) else {
                continue;
            };
            if s["samples_recorded"] != serde_json::Value::Bool(true) {
                continue;
            }
            let triple = |v: &serde_json::Value| -> Option<[f64; 3]> {
                let a = v.as_array()?;
                Some([
                    a.first()?.as_f64()?,
                    a.get(1)?.as_f64()?,
                    a.get(2)?.as_f64()?,
                ])
            };
            let quat = |v: &serde_json::Value| -> Option<[f64; 4]> {
                let a = v.as_array()?;
                let [x, y, z] = triple(v)?;
                Some([x, y, z, a.get(3)?.as_f64()?])
            };
            let frame = SensorFrame {
                agent: agent.to_owned(),
                sensor: name.to_owned(),
                family: kind.name(),
                translation_m: triple(&s["translation_m_flu"]).unwrap_or([0.0; 3]),
                rotation_xyzw: quat(&s["rotation_xyzw_flu"]).unwrap_or([0.0, 0.0, 0.0, 1.0]),
                optical: !s["optical_frame_id"].is_null(),
            };
            let dir = run.dir().join("sensors").join(run.stem_of(agent));
            let file = dir.join(format!("{}.jsonl", oceansim_dataset::stem(name)));
            let Ok(index) = index_series(&file, run.dir()) else {
                continue;
            };
            if index.is_empty() {
                continue;
            }
            series.push(Series {
                panel: PanelSensor {
                    frame,
                    rate_hz: s["rate_hz"].as_f64().unwrap_or(0.0),
                },
                family: kind,
                dir,
                file,
                index,
            });
        }
        RecordedPanels { series }
    }

    /// The sensors with a series, in the run's order.
    pub fn panels(&self) -> Vec<PanelSensor> {
        self.series.iter().map(|s| s.panel.clone()).collect()
    }

    /// The `sensor` message of `key`'s latest sample at or before `t` (s)
    /// (its first sample before that), with its sequence number.
    pub fn at(&self, key: &str, t: f64) -> Option<(u64, String)> {
        let (s, seq, offset) = self.locate(key, t)?;
        let sample = read_sample(s, offset)?;
        Some((seq, panel_message(&s.panel, &sample)))
    }

    /// The sequence number [`RecordedPanels::at`] would answer, from the
    /// index alone (nothing read).
    pub fn sequence_at(&self, key: &str, t: f64) -> Option<u64> {
        self.locate(key, t).map(|(_, seq, _)| seq)
    }

    fn locate(&self, key: &str, t: f64) -> Option<(&Series, u64, u64)> {
        let s = self.series.iter().find(|s| s.panel.key() == key)?;
        let i = s.index.partition_point(|(time, _, _)| *time <= t).max(1) - 1;
        let (_, seq, offset) = *s.index.get(i)?;
        Some((s, seq, offset))
    }
}

/// Opens `path` if it is a regular file (not a link, a FIFO or a device)
/// whose real place is inside `within`.
fn open_regular(path: &std::path::Path, within: &std::path::Path) -> Option<std::fs::File> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() {
        return None;
    }
    let (real, root) = (path.canonicalize().ok()?, within.canonicalize().ok()?);
    if !real.starts_with(&root) {
        return None;
    }
    std::fs::File::open(path).ok()
}

/// The image fields each kind's reading carries (`<name>_png`).
fn image_fields(family: Family) -> &'static [&'static str] {
    match family {
        Family::Camera => &["rgb", "depth", "segmentation"],
        Family::RgbdDenseCloud => &["rgb", "depth"],
        Family::ImagingSonar => &["intensity"],
        _ => &[],
    }
}

fn index_series(
    file: &std::path::Path,
    run: &std::path::Path,
) -> std::io::Result<Vec<(f64, u64, u64)>> {
    use std::io::BufRead;
    #[derive(serde::Deserialize)]
    struct Head {
        time: f64,
        sequence: u64,
    }
    use std::io::Read;
    let f = open_regular(file, run)
        .ok_or_else(|| std::io::Error::other("not a regular file in the run"))?;
    let mut r = std::io::BufReader::new(f);
    let (mut index, mut offset, mut line) = (Vec::new(), 0u64, Vec::new());
    loop {
        line.clear();
        let n = (&mut r)
            .take(MAX_SERIES_LINE_BYTES)
            .read_until(b'\n', &mut line)?;
        if n == 0 || (n as u64 == MAX_SERIES_LINE_BYTES && line.last() != Some(&b'\n')) {
            // The end, or a line too long to be a sample: the rest is not read.
            break;
        }
        if let Ok(h) = serde_json::from_slice::<Head>(&line) {
            if h.time.is_finite() && index.last().is_none_or(|l: &(f64, u64, u64)| l.0 <= h.time) {
                index.push((h.time, h.sequence, offset));
            }
        }
        offset += n as u64;
    }
    Ok(index)
}

/// The sample whose line starts at `offset`, its image files read back
/// into the reading's base64 fields.
fn read_sample(s: &Series, offset: u64) -> Option<SensorSample> {
    use std::io::{BufRead, Read, Seek};
    let mut f = open_regular(&s.file, &s.dir)?;
    f.seek(std::io::SeekFrom::Start(offset)).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(f.take(MAX_SERIES_LINE_BYTES))
        .read_until(b'\n', &mut line)
        .ok()?;
    let serde_json::Value::Object(mut fields) = serde_json::from_slice(&line).ok()? else {
        return None;
    };
    // Only the kind's own images, each a regular file inside the sensor's
    // directory of at most MAX_IMAGE_BYTES; any other `_png` field is
    // dropped.
    let names: Vec<String> = fields
        .keys()
        .filter(|k| k.ends_with("_png"))
        .cloned()
        .collect();
    for key in names {
        let rel = fields.remove(&key);
        let name = &key[..key.len() - "_png".len()];
        if !image_fields(s.family).contains(&name) {
            continue;
        }
        let bytes = rel
            .as_ref()
            .and_then(serde_json::Value::as_str)
            .and_then(|rel| open_regular(&s.dir.join(rel), &s.dir))
            .and_then(|f| {
                let mut bytes = Vec::new();
                f.take(MAX_IMAGE_BYTES + 1).read_to_end(&mut bytes).ok()?;
                (bytes.len() as u64 <= MAX_IMAGE_BYTES).then_some(bytes)
            })
            .unwrap_or_default();
        fields.insert(format!("{name}_png_base64"), b64(&bytes).into());
    }
    let num = |k: &str| fields.get(k).and_then(serde_json::Value::as_f64);
    let (time, wall_time) = (num("time")?, num("wall_time").unwrap_or(0.0));
    let sequence = fields.get("sequence")?.as_u64()?;
    let reading =
        Reading::from_json(s.family, &serde_json::Value::Object(fields).to_string()).ok()?;
    Some(SensorSample {
        time,
        wall_time,
        sequence,
        reading,
    })
}
