//! Trajectory formats other tools read (TUM, EuRoC: written by
//! [`oceansim_dataset::formats`], which also documents them), and the
//! top-down map picture.
//!
//! Positions and velocities are in the user frame (x east, y north,
//! z up); the quaternion turns the body FLU frame (x forward, y left,
//! z up) into it.

use crate::image::{Image, Pixels};
use crate::recorder::{Payloads, RecordedFrames};
use oceansim_dataset::TrajectoryPoint;
use std::io::Write;
use std::sync::Arc;

/// Writes, with `write`, the trajectory of agent `name` as one pass over
/// the record yields it.
fn with_points<W: Write>(
    frames: &RecordedFrames,
    name: &str,
    w: &mut W,
    write: fn(&mut W, &mut dyn Iterator<Item = TrajectoryPoint>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut failed = None;
    let mut points = frames
        .iter(Payloads::Skip)
        .map_while(|r| r.map_err(|e| failed = Some(e)).ok())
        .filter_map(|s| {
            let a = s.agents.iter().find(|a| &*a.name == name)?;
            Some(TrajectoryPoint {
                time: s.time,
                position: a.position,
                quaternion_xyzw: a.quaternion_xyzw,
                velocity: a.velocity,
            })
        });
    write(w, &mut points)?;
    drop(points);
    failed.map_or(Ok(()), Err)
}

/// Writes the TUM trajectory of agent `name`.
pub fn write_tum(frames: &RecordedFrames, name: &str, w: &mut impl Write) -> std::io::Result<()> {
    with_points(frames, name, w, |w, p| {
        oceansim_dataset::formats::write_tum(w, p)
    })
}

/// Writes the EuRoC ground-truth CSV of agent `name`.
pub fn write_euroc(frames: &RecordedFrames, name: &str, w: &mut impl Write) -> std::io::Result<()> {
    with_points(frames, name, w, |w, p| {
        oceansim_dataset::formats::write_euroc(w, p)
    })
}

/// A file-name stem for an agent name (`auv/main` → `auv_main`): the
/// dataset reader's rule, so it finds the files again.
pub use oceansim_dataset::stem as file_stem;

/// What the top-down map shows: the seabed's depths on a grid, obstacle
/// footprints, and tracks.
#[derive(Debug, Clone)]
pub struct MapPicture {
    /// `[x_min, x_max, y_min, y_max]` (m, user frame).
    pub bounds: [f64; 4],
    /// Seabed height (m, z up) on a `cols × rows` grid over `bounds`, row 0
    /// at the north edge.
    pub seabed: Vec<f64>,
    /// Grid columns.
    pub cols: usize,
    /// Grid rows.
    pub rows: usize,
    /// Obstacle footprints: centre (m) and radius (m).
    pub obstacles: Vec<([f64; 2], f64)>,
}

/// Track colours (the main AUV first).
const TRACKS: [[u8; 3]; 6] = [
    [241, 196, 15],
    [231, 76, 60],
    [46, 204, 113],
    [155, 89, 182],
    [230, 126, 34],
    [236, 240, 241],
];

impl MapPicture {
    /// The map as an RGB image, `cols × rows` px: the seabed shaded from
    /// shallow (light) to deep (dark blue), obstacles grey, each agent's
    /// track in its colour with a dot where it ended.
    pub fn render(&self, frames: &RecordedFrames) -> crate::Result<Image> {
        let (cols, rows) = (self.cols, self.rows);
        let lo = self.seabed.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self
            .seabed
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let span = (hi - lo).max(1e-6);
        let mut px: Vec<u8> = self
            .seabed
            .iter()
            .flat_map(|z| {
                let t = (z - lo) / span;
                [
                    (20.0 + 60.0 * t) as u8,
                    (50.0 + 110.0 * t) as u8,
                    (90.0 + 120.0 * t) as u8,
                ]
            })
            .collect();
        let [x0, x1, y0, y1] = self.bounds;
        let to_px = |x: f64, y: f64| {
            (
                (x - x0) / (x1 - x0) * cols as f64,
                (y1 - y) / (y1 - y0) * rows as f64,
            )
        };
        let put = |px: &mut Vec<u8>, u: f64, v: f64, c: [u8; 3]| {
            let inside = u >= 0.0 && v >= 0.0 && u < cols as f64 && v < rows as f64;
            if inside {
                let k = 3 * (v as usize * cols + u as usize);
                px[k..k + 3].copy_from_slice(&c);
            }
        };
        let m_per_px = (x1 - x0) / cols as f64;
        for (c, r) in &self.obstacles {
            let (cu, cv) = to_px(c[0], c[1]);
            let rp = (r / m_per_px).max(1.0);
            let n = rp.ceil() as i64;
            for dv in -n..=n {
                for du in -n..=n {
                    if ((du * du + dv * dv) as f64) <= rp * rp {
                        put(&mut px, cu + du as f64, cv + dv as f64, [127, 140, 141]);
                    }
                }
            }
        }
        // One pass: each agent's next segment joins its last point.
        let mut tracks: Vec<(Arc<str>, (f64, f64))> = Vec::new();
        let segment = |px: &mut Vec<u8>, (ua, va): (f64, f64), (ub, vb): (f64, f64), c| {
            let steps = ((ub - ua).abs().max((vb - va).abs()).ceil() as usize).max(1);
            for k in 0..=steps {
                let f = k as f64 / steps as f64;
                put(px, ua + (ub - ua) * f, va + (vb - va) * f, c);
            }
        };
        frames
            .try_for_each(Payloads::Skip, |s| {
                for a in &s.agents {
                    let p = to_px(a.position[0], a.position[1]);
                    match tracks.iter().position(|(n, _)| *n == a.name) {
                        Some(i) => {
                            segment(&mut px, tracks[i].1, p, TRACKS[i % TRACKS.len()]);
                            tracks[i].1 = p;
                        }
                        None => {
                            put(&mut px, p.0, p.1, TRACKS[tracks.len() % TRACKS.len()]);
                            tracks.push((a.name.clone(), p));
                        }
                    }
                }
                Ok(())
            })
            .map_err(|source| crate::SimError::Io {
                path: "the recorded frames".into(),
                source,
            })?;
        for (i, (_, (u, v))) in tracks.iter().enumerate() {
            for dv in -2..=2 {
                for du in -2..=2 {
                    put(
                        &mut px,
                        u + f64::from(du),
                        v + f64::from(dv),
                        TRACKS[i % TRACKS.len()],
                    );
                }
            }
        }
        Image::new(cols as u32, rows as u32, Pixels::Rgb8(px))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::{AgentFrame, Sample};

    fn frame(t: f64, x: f64) -> Arc<Sample> {
        Arc::new(Sample {
            frame: (t * 10.0) as u64,
            time: t,
            agents: vec![AgentFrame {
                name: "auv/main".into(),
                vehicle: true,
                position: [x, 2.0, -3.0],
                quaternion_xyzw: [0.0, 0.0, 0.5f64.sqrt(), 0.5f64.sqrt()],
                velocity: [1.0, 0.0, 0.0],
                body_velocity: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                heading_deg: 90.0,
                command: None,
                sensor_sequences: Vec::new(),
                sensors: Vec::new(),
            }],
        })
    }

    #[test]
    fn tum_and_euroc_rows_parse_with_their_documented_columns() {
        let samples = RecordedFrames::in_memory(
            vec![frame(0.0, 0.0), frame(0.1, 0.1), frame(0.3, 0.3)],
            Vec::new(),
        );
        let mut tum = Vec::new();
        write_tum(&samples, "auv/main", &mut tum).unwrap();
        let tum = String::from_utf8(tum).unwrap();
        let rows: Vec<Vec<f64>> = tum
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
            .collect();
        assert_eq!(rows.len(), 3);
        for r in &rows {
            assert_eq!(r.len(), 8, "timestamp tx ty tz qx qy qz qw");
            let norm: f64 = r[4..8].iter().map(|q| q * q).sum();
            assert!((norm - 1.0).abs() < 1e-12);
        }
        assert_eq!(rows[1][0], 0.1);
        assert_eq!(rows[2][1], 0.3);

        let mut euroc = Vec::new();
        write_euroc(&samples, "auv/main", &mut euroc).unwrap();
        let euroc = String::from_utf8(euroc).unwrap();
        let mut lines = euroc.lines();
        assert_eq!(lines.next().unwrap().split(',').count(), 11);
        let row: Vec<&str> = lines.nth(2).unwrap().split(',').collect();
        assert_eq!(row[0], "300000000", "integer nanoseconds");
        assert_eq!(row[4].parse::<f64>().unwrap(), 0.5f64.sqrt(), "w first");
        assert_eq!(row[8], "1");
        let mut nothing = Vec::new();
        write_tum(&samples, "ghost", &mut nothing).unwrap();
        assert_eq!(String::from_utf8(nothing).unwrap().lines().count(), 1);
    }

    #[test]
    fn the_map_draws_the_seabed_obstacles_and_the_track() {
        let map = MapPicture {
            bounds: [-10.0, 10.0, -10.0, 10.0],
            seabed: (0..40 * 40)
                .map(|k| -20.0 + (k % 40) as f64 * 0.1)
                .collect(),
            cols: 40,
            rows: 40,
            obstacles: vec![([5.0, -5.0], 1.0)],
        };
        let samples = RecordedFrames::in_memory(
            (0..50)
                .map(|k| frame(f64::from(k) * 0.1, -8.0 + f64::from(k) * 0.3))
                .collect(),
            Vec::new(),
        );
        let img = map.render(&samples).unwrap();
        let Pixels::Rgb8(px) = &img.pixels else {
            panic!()
        };
        let at = |x: f64, y: f64| {
            let (u, v) = (((x + 10.0) * 2.0) as usize, ((10.0 - y) * 2.0) as usize);
            let k = 3 * (v * 40 + u);
            [px[k], px[k + 1], px[k + 2]]
        };
        assert_eq!(at(5.0, -5.0), [127, 140, 141], "obstacle");
        assert_eq!(at(-2.0, 2.0), TRACKS[0], "on the track (y = 2)");
        assert_ne!(at(-2.0, 8.0), TRACKS[0], "off the track");
    }
}
