//! Trajectory formats other tools read (TUM, EuRoC: written by
//! [`oceansim_dataset::formats`], which also documents them), and the
//! top-down map picture.
//!
//! Positions and velocities are in the user frame (x east, y north,
//! z up); the quaternion turns the body FLU frame (x forward, y left,
//! z up) into it.

use oceansim_dataset::{formats, TrajectoryPoint};
use oceansim_protocol::ProtocolError;
use oceansim_record::safe_fs::SafeDir;
use oceansim_record::{Payloads, RecordedFrames};
use oceansim_sensors::image::{Image, Pixels};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

/// Most agents whose TUM and EuRoC files are written in one pass over the
/// record (each holds two files open).
pub const AGENTS_PER_PASS: usize = 32;

/// Writes `<stem>.tum` and `<stem>.euroc.csv` into `dir` for every agent
/// of `stems` (agent name → file stem), in passes over the record of at
/// most [`AGENTS_PER_PASS`] agents; returns the names written, each
/// agent's TUM then EuRoC file, in `stems` order.
pub fn write_trajectory_files(
    dir: &SafeDir,
    frames: &RecordedFrames,
    stems: &BTreeMap<String, String>,
) -> Result<Vec<String>, ProtocolError> {
    let agents: Vec<(&String, &String)> = stems.iter().collect();
    let mut names = Vec::new();
    for chunk in agents.chunks(AGENTS_PER_PASS) {
        let mut files = Vec::with_capacity(chunk.len());
        for (agent, stem) in chunk {
            let (tum, euroc) = (format!("{stem}.tum"), format!("{stem}.euroc.csv"));
            let mut t = dir.begin(&tum)?;
            let mut e = dir.begin(&euroc)?;
            writeln!(t.writer(), "{}", formats::TUM_HEADER).map_err(|err| io(dir, &tum, err))?;
            writeln!(e.writer(), "{}", formats::EUROC_HEADER)
                .map_err(|err| io(dir, &euroc, err))?;
            files.push((agent.as_str(), t, e));
            names.extend([tum, euroc]);
        }
        frames
            .try_for_each(Payloads::Skip, |s| {
                for a in &s.agents {
                    let Some((_, t, e)) = files.iter_mut().find(|(n, _, _)| **n == *a.name) else {
                        continue;
                    };
                    let p = TrajectoryPoint {
                        time: s.time,
                        position: a.position,
                        quaternion_xyzw: a.quaternion_xyzw,
                        velocity: a.velocity,
                        imu_bias: a.imu_bias,
                    };
                    formats::write_tum_row(t.writer(), &p)?;
                    formats::write_euroc_row(e.writer(), &p)?;
                }
                Ok(())
            })
            .map_err(|err| {
                ProtocolError::InvalidMessage(format!(
                    "cannot write the trajectories in {}: {err}",
                    dir.path().display()
                ))
            })?;
        for (_, t, e) in files {
            t.finish()?;
            e.finish()?;
        }
    }
    Ok(names)
}

fn io(dir: &SafeDir, name: &str, e: std::io::Error) -> ProtocolError {
    ProtocolError::InvalidMessage(format!(
        "cannot write {}: {e}",
        dir.file_path(name).display()
    ))
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
        // One pass over the record. Tracks are drawn agent after agent (a
        // later agent over an earlier one, each ending in a dot), so a
        // pixel shows the last agent, in joining order, that touches it:
        // noting that per pixel lets the pass run in time order.
        const NONE: u32 = u32::MAX;
        let mut owner = vec![NONE; cols * rows];
        let mark = |owner: &mut Vec<u32>, u: f64, v: f64, i: u32| {
            let inside = u >= 0.0 && v >= 0.0 && u < cols as f64 && v < rows as f64;
            if inside {
                let o = &mut owner[v as usize * cols + u as usize];
                if *o == NONE || *o < i {
                    *o = i;
                }
            }
        };
        let mut last: Vec<(Arc<str>, (f64, f64))> = Vec::new();
        frames
            .try_for_each(Payloads::Skip, |s| {
                for a in &s.agents {
                    let (ub, vb) = to_px(a.position[0], a.position[1]);
                    let Some(i) = last.iter().position(|(n, _)| *n == a.name) else {
                        mark(&mut owner, ub, vb, last.len() as u32);
                        last.push((a.name.clone(), (ub, vb)));
                        continue;
                    };
                    let (ua, va) = last[i].1;
                    let steps = ((ub - ua).abs().max((vb - va).abs()).ceil() as usize).max(1);
                    for k in 0..=steps {
                        let f = k as f64 / steps as f64;
                        mark(&mut owner, ua + (ub - ua) * f, va + (vb - va) * f, i as u32);
                    }
                    last[i].1 = (ub, vb);
                }
                Ok(())
            })
            .map_err(|source| crate::ExportError::Io {
                path: "the recorded frames".into(),
                source,
            })?;
        for (i, (_, (u, v))) in last.iter().enumerate() {
            for dv in -2..=2 {
                for du in -2..=2 {
                    mark(&mut owner, u + f64::from(du), v + f64::from(dv), i as u32);
                }
            }
        }
        for (k, o) in owner.iter().enumerate().filter(|(_, o)| **o != NONE) {
            px[3 * k..3 * k + 3].copy_from_slice(&TRACKS[*o as usize % TRACKS.len()]);
        }
        Ok(Image::new(cols as u32, rows as u32, Pixels::Rgb8(px))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_record::{AgentFrame, Sample};

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
                fin_angles_rad: Vec::new(),
                propeller_rpm: Vec::new(),
                imu_bias: Some(oceansim_dataset::ImuBias::from_frd([
                    0.01, 0.02, 0.03, 1e-4, 2e-4, 3e-4,
                ])),
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
        let tmp = tempfile::tempdir().unwrap();
        let dir = SafeDir::open(tmp.path(), &[]).unwrap();
        let stems: BTreeMap<String, String> = [("auv/main", "auv_main"), ("ghost", "ghost")]
            .map(|(a, s)| (a.to_owned(), s.to_owned()))
            .into();
        let names = write_trajectory_files(&dir, &samples, &stems).unwrap();
        assert_eq!(
            names,
            [
                "auv_main.tum",
                "auv_main.euroc.csv",
                "ghost.tum",
                "ghost.euroc.csv"
            ]
        );
        let read = |f: &str| std::fs::read_to_string(tmp.path().join(f)).unwrap();
        let tum = read("auv_main.tum");
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

        let euroc = read("auv_main.euroc.csv");
        let mut lines = euroc.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(header.len(), 17);
        assert_eq!(header[11], "b_w_RS_S_x [rad s^-1]");
        assert_eq!(header[16], "b_a_RS_S_z [m s^-2]");
        let row: Vec<&str> = lines.nth(2).unwrap().split(',').collect();
        assert_eq!(row.len(), 17);
        assert_eq!(row[0], "300000000", "integer nanoseconds");
        assert_eq!(row[4].parse::<f64>().unwrap(), 0.5f64.sqrt(), "w first");
        assert_eq!(row[8], "1");
        // Gyro then accelerometer, FRD → FLU (y and z flip).
        assert_eq!(
            row[11..17],
            ["0.0001", "-0.0002", "-0.0003", "0.01", "-0.02", "-0.03"]
        );
        assert_eq!(read("ghost.tum").lines().count(), 1, "a header, no rows");
    }

    #[test]
    fn crossing_tracks_paint_as_if_drawn_agent_after_agent() {
        let map = MapPicture {
            bounds: [-10.0, 10.0, -10.0, 10.0],
            seabed: vec![-20.0; 40 * 40],
            cols: 40,
            rows: 40,
            obstacles: Vec::new(),
        };
        // Three agents whose tracks cross; the third joins late.
        let pos = |i: usize, k: f64| match i {
            0 => [-9.0 + k * 0.45, -9.0 + k * 0.45],
            1 => [9.0 - k * 0.45, -9.0 + k * 0.45],
            _ => [k * 0.2 - 2.0, 5.0 - k * 0.4],
        };
        let frames: Vec<Arc<Sample>> = (0..40)
            .map(|k| {
                let mut s = Sample::clone(&frame(f64::from(k) * 0.1, 0.0));
                let template = s.agents[0].clone();
                s.agents = (0..if k < 10 { 2 } else { 3 })
                    .map(|i| AgentFrame {
                        name: ["auv/main", "a", "b"][i].into(),
                        position: {
                            let [x, y] = pos(i, f64::from(k));
                            [x, y, -3.0]
                        },
                        ..template.clone()
                    })
                    .collect();
                Arc::new(s)
            })
            .collect();
        let img = map
            .render(&RecordedFrames::in_memory(frames.clone(), Vec::new()))
            .unwrap();
        let Pixels::Rgb8(got) = &img.pixels else {
            panic!()
        };
        // Agent by agent: each whole track, then its end dot.
        let mut want = vec![0u8; 40 * 40 * 3];
        let base = map
            .render(&RecordedFrames::in_memory(Vec::new(), Vec::new()))
            .unwrap();
        if let Pixels::Rgb8(b) = &base.pixels {
            want.copy_from_slice(b);
        }
        let put = |px: &mut Vec<u8>, u: f64, v: f64, c: [u8; 3]| {
            if u >= 0.0 && v >= 0.0 && u < 40.0 && v < 40.0 {
                let k = 3 * (v as usize * 40 + u as usize);
                px[k..k + 3].copy_from_slice(&c);
            }
        };
        for (i, name) in ["auv/main", "a", "b"].iter().enumerate() {
            let pts: Vec<(f64, f64)> = frames
                .iter()
                .filter_map(|s| s.agents.iter().find(|a| &*a.name == *name))
                .map(|a| ((a.position[0] + 10.0) * 2.0, (10.0 - a.position[1]) * 2.0))
                .collect();
            for w in pts.windows(2) {
                let ((ua, va), (ub, vb)) = (w[0], w[1]);
                let steps = ((ub - ua).abs().max((vb - va).abs()).ceil() as usize).max(1);
                for k in 0..=steps {
                    let f = k as f64 / steps as f64;
                    put(&mut want, ua + (ub - ua) * f, va + (vb - va) * f, TRACKS[i]);
                }
            }
            let (u, v) = pts[pts.len() - 1];
            for dv in -2..=2 {
                for du in -2..=2 {
                    put(&mut want, u + f64::from(du), v + f64::from(dv), TRACKS[i]);
                }
            }
        }
        assert!(got == &want, "same pixels as agent-major painting");
        let painted = |c: [u8; 3]| got.chunks(3).filter(|p| *p == c).count();
        assert!((0..3).all(|i| painted(TRACKS[i]) > 10), "every track shows");
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
