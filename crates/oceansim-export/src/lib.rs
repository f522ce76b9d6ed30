//! # oceansim-export
//!
//! The writers behind `export_dataset`, without the simulator: from a
//! recorded run ([`oceansim_record::RecordedFrames`]) they write the files
//! of a dataset directory, each through the export root's confined file
//! system ([`oceansim_record::safe_fs::SafeDir`]: inside the root, no links
//! followed, whole or not at all), in one pass over the record (spilled
//! frames included), so memory stays flat whatever the run's length.
//!
//! | module | writes |
//! |---|---|
//! | [`timeline`] | `agent_timeline.jsonl`, `commands.jsonl`, `trajectory.csv` |
//! | [`formats`] | TUM and EuRoC trajectories, the top-down map picture |
//! | [`sensors`] | `sensors/<agent>/<sensor>.jsonl` with PNG images and PLY clouds beside |
//! | [`mcap`] | `run.mcap` for Foxglove (its published schemas, [`FOXGLOVE_SCHEMAS`]) |
//! | [`rosbag2`] | a rosbag2 bag (MCAP storage, CDR), with [`ros_msgs`] and [`ros_stream`], which the live ROS 2 bridge shares |
//! | [`write_zip`], [`trajectory_svg`] | the packed dataset, the trajectory picture |
//!
//! ## Conventions
//!
//! - Positions and velocities are in the user frame (x east, y north, z
//!   up; m, m/s) unless a name says otherwise; ROS 2 and Foxglove output
//!   follows REP 103 (`world` ENU, `<agent>/base_link` FLU, sensor and
//!   optical frames per [`oceansim_sensors::frame_tree`]). Times are
//!   simulated seconds; ROS stamps add the run's start as UNIX time.
//! - Errors that reach a client are the protocol's
//!   ([`oceansim_protocol::ProtocolError`], its stable codes); a disk that
//!   fails mid-write is a [`std::io::Error`], which the caller turns into
//!   the protocol's answer; [`ExportError`] is what is left (its
//!   [`code`](ExportError::code)s are the protocol's).
//! - A [`oceansim_record::Cancel`] stops a long write at its next frame or
//!   file.
//!
//! ## Example
//!
//! The main AUV's track as `trajectory.csv`:
//!
//! ```
//! use oceansim_record::{AgentFrame, RecordLimits, Recorder, Sample};
//!
//! let mut recorder = Recorder::with_limits(false, RecordLimits::default());
//! for k in 0..3u32 {
//!     let frame = recorder.next_frame();
//!     let agent = AgentFrame {
//!         name: "auv/main".into(),
//!         vehicle: true,
//!         position: [f64::from(k), 0.0, -2.0],
//!         quaternion_xyzw: [0.0, 0.0, 0.0, 1.0],
//!         velocity: [1.0, 0.0, 0.0],
//!         body_velocity: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
//!         heading_deg: 90.0,
//!         fin_angles_rad: Vec::new(),
//!         propeller_rpm: Vec::new(),
//!         imu_bias: None,
//!         command: None,
//!         sensor_sequences: Vec::new(),
//!         sensors: Vec::new(),
//!     };
//!     recorder.push(Sample { frame, time: f64::from(k), agents: vec![agent] });
//! }
//! let mut csv = Vec::new();
//! oceansim_export::timeline::write_trajectory(&recorder.frames(), &mut csv)?;
//! let csv = String::from_utf8(csv)?;
//! assert_eq!(csv.lines().count(), 4, "{csv}"); // a header and three rows
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use oceansim_record::safe_fs::SafeDir;
use std::io::Write;

mod error;
pub mod formats;
mod foxglove;
pub mod mcap;
mod mcap_sensors;
pub mod ros_msgs;
pub mod ros_stream;
pub mod rosbag2;
pub mod sensors;
pub mod timeline;

pub use error::{ExportError, Result};
pub use mcap::FOXGLOVE_SCHEMAS;

/// An SVG of a trajectory (user frame, x east, y north) over the map.
pub fn trajectory_svg(
    points: &[[f64; 2]],
    bounds: [f64; 4],
    obstacles: &[([f64; 2], f64)],
) -> String {
    let [x0, x1, y0, y1] = bounds;
    let (w, h) = (600.0, 600.0 * (y1 - y0) / (x1 - x0).max(1e-9));
    let sx = |x: f64| (x - x0) / (x1 - x0) * w;
    let sy = |y: f64| h - (y - y0) / (y1 - y0) * h;
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">\n<rect width=\"100%\" height=\"100%\" fill=\"#0b2a3c\"/>\n");
    for (c, r) in obstacles {
        s += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"#7f8c8d\"/>\n",
            sx(c[0]),
            sy(c[1]),
            r / (x1 - x0) * w
        );
    }
    let pts: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", sx(p[0]), sy(p[1])))
        .collect();
    s += &format!(
        "<polyline fill=\"none\" stroke=\"#f1c40f\" stroke-width=\"2\" points=\"{}\"/>\n",
        pts.join(" ")
    );
    if let Some(p) = points.last() {
        s += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"#e74c3c\"/>\n",
            sx(p[0]),
            sy(p[1])
        );
    }
    s += "<text x=\"8\" y=\"18\" fill=\"white\" font-family=\"sans-serif\" font-size=\"14\">AUV trajectory (x east, y north)</text>\n</svg>\n";
    s
}

/// An MCAP writer's error as an I/O error: its own I/O errors keep their
/// kind and text (a spent disk budget must read as one, not as mcap's
/// generic I/O message).
pub(crate) fn mcap_err(e: ::mcap::McapError) -> std::io::Error {
    match e {
        ::mcap::McapError::Io(e) => e,
        e => std::io::Error::other(e.to_string()),
    }
}

/// Writes a zip of the files `names` of `dir` to `w`, each under the
/// top-level folder `top` (a name may lie in subdirectories,
/// `sub/dir/file`), streaming each file (memory stays flat whatever their
/// size). Text is deflated; PNG and MCAP files, compressed already, are
/// stored. `cancel` stops it at its next read of a file.
pub fn write_zip<W: Write + std::io::Seek>(
    w: W,
    dir: &SafeDir,
    names: &[String],
    top: &str,
    cancel: &oceansim_record::Cancel,
) -> std::io::Result<()> {
    let mut zip = zip::ZipWriter::new(w);
    let base = zip::write::SimpleFileOptions::default().large_file(true);
    let stored = base.compression_method(zip::CompressionMethod::Stored);
    let deflated = base
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(6));
    for name in names {
        let packed = name.ends_with(".png") || name.ends_with(".mcap");
        zip.start_file(
            format!("{top}/{name}"),
            if packed { stored } else { deflated },
        )
        .map_err(std::io::Error::other)?;
        let mut f = match name.rsplit_once('/') {
            Some((subs, file)) => {
                let d = dir
                    .child_dir_path(subs)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                d.open_read(file)?
            }
            None => dir.open_read(name)?,
        };
        std::io::copy(&mut Cancellable(&mut f, cancel), &mut zip)?;
    }
    zip.finish().map_err(std::io::Error::other)?;
    Ok(())
}

/// A reader that stops with `cancel`'s error at its next read once the
/// flag is set.
struct Cancellable<'a, R>(R, &'a oceansim_record::Cancel);

impl<R: std::io::Read> std::io::Read for Cancellable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.1.check()?;
        self.0.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zips_hold_their_entries() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = SafeDir::open(tmp.path(), &[]).unwrap();
        dir.write("a.txt", |w| w.write_all(b"hello")).unwrap();
        let mut buf = std::io::Cursor::new(Vec::new());
        let cancel = oceansim_record::Cancel::new();
        write_zip(&mut buf, &dir, &["a.txt".to_owned()], "run", &cancel).unwrap();
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(buf.into_inner())).unwrap();
        let mut s = String::new();
        std::io::Read::read_to_string(&mut z.by_name("run/a.txt").unwrap(), &mut s).unwrap();
        assert_eq!(s, "hello");
        assert_eq!(
            z.by_name("run/a.txt").unwrap().compression(),
            zip::CompressionMethod::Deflated
        );
    }

    #[test]
    fn a_cancelled_pack_stops_with_the_cancel_error() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = SafeDir::open(tmp.path(), &[]).unwrap();
        dir.write("a.txt", |w| w.write_all(b"hello")).unwrap();
        let cancel = oceansim_record::Cancel::new();
        cancel.cancel();
        let mut buf = std::io::Cursor::new(Vec::new());
        // Returns (std::io::copy would retry an `Interrupted` forever).
        let e = write_zip(&mut buf, &dir, &["a.txt".to_owned()], "run", &cancel).unwrap_err();
        assert!(e.to_string().contains("cancelled"), "{e}");
    }
}
