//! `export_dataset`: a run directory under the export root, written from
//! the recorder (never from live state) by `oceansim_export`.

use super::export_metadata::metadata;
use super::snapshot::{is_run_dir, refuse_inside_run};
use super::{Outcome, Reply};
use crate::ctx::ExportCtx;
use crate::replies::snapshot;
use oceansim_export::formats::{write_trajectory_files, MapPicture};
use oceansim_export::mcap::{write_mcap, McapScene};
use oceansim_export::sensors::write_all_series;
use oceansim_export::timeline::{write_commands, write_timeline, write_trajectory};
use oceansim_export::{trajectory_svg, write_zip};
use oceansim_protocol::payload::ExportDataset;
use oceansim_protocol::reply::{ExportResult, Packed};
use oceansim_protocol::ProtocolError;
use oceansim_record::safe_fs::{split_rel, SafeDir};
use oceansim_record::{Payloads, RecordedFrames};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

fn write_svg(job: &ExportJob, w: &mut impl Write) -> std::io::Result<()> {
    let mut pts: Vec<[f64; 2]> = Vec::new();
    job.frames.try_for_each(Payloads::Skip, |s| {
        pts.extend(s.main().map(|m| [m.position[0], m.position[1]]));
        Ok(())
    })?;
    w.write_all(trajectory_svg(&pts, job.bounds, &job.obstacles).as_bytes())
}

/// An `export_dataset` taken from the world, to be written anywhere
/// (another thread included): the recorded frames and commands, shared,
/// and the documents rendered at the time of the request.
#[derive(Debug)]
pub(crate) struct ExportJob {
    root: PathBuf,
    parts: Vec<String>,
    metadata: String,
    snapshot: String,
    frames: RecordedFrames,
    bounds: [f64; 4],
    obstacles: Vec<([f64; 2], f64)>,
    map: Option<MapPicture>,
    scene: Box<McapScene>,
    pack: bool,
    /// Whether a ROS 2 bag is written beside the other files.
    rosbag2: bool,
    /// What the recording lost, said in the reply (never silently).
    incomplete: Option<oceansim_protocol::reply::Incomplete>,
}

/// Writes file `name` of `dir` whole through `fill` and adds
/// `prefix` + `name` to `names`.
fn put(
    names: &mut Vec<String>,
    dir: &SafeDir,
    prefix: &str,
    name: &str,
    fill: &mut dyn FnMut(&mut oceansim_record::safe_fs::ExportWriter) -> std::io::Result<()>,
) -> Result<(), ProtocolError> {
    dir.write(name, |w| fill(w))?;
    names.push(format!("{prefix}{name}"));
    Ok(())
}

/// Columns of the map picture (its rows follow the map's aspect).
const MAP_PX: usize = 800;

/// Takes an export from the world (cheap: the frames are shared).
pub(crate) fn prepare(x: ExportCtx<'_>, e: ExportDataset) -> Result<ExportJob, ProtocolError> {
    let (cx, config) = (x.read, x.config);
    let (world, h) = (cx.world, cx.h);
    let tick = world.resource(h.clock).tick;
    let rel = e
        .export_dir
        .clone()
        .unwrap_or_else(|| format!("run_{:04}_t{tick:08}", x.exports.counter + 1));
    // Checked before anything changes: a refused export leaves no trace.
    let parts = split_rel(&rel)?;
    if parts.is_empty() {
        return Err(root_itself());
    }
    refuse_inside_run(&config.export_root, &parts[..parts.len() - 1])?;
    x.exports.counter += 1;
    let scene = world.resource(h.scene);
    let obstacles: Vec<([f64; 2], f64)> = scene
        .obstacles
        .iter()
        .map(|o| {
            (
                [o.center[0], o.center[1]],
                o.half_extents[0].max(o.half_extents[1]),
            )
        })
        .collect();
    let bounds = scene.bounds();
    let mut mcap_scene = McapScene::of(&scene);
    mcap_scene.clock_origin_unix_ns = world.resource(h.recorder).started_unix_ns();
    {
        let (kind, radius, half, meta) = (
            world.read(h.kind),
            world.read(h.radius),
            world.read(h.half_length),
            world.objects(h.agent),
        );
        for row in 0..kind.len() {
            if let (true, Some(m)) = (crate::components::Kind::is_agent(kind[row]), &meta[row]) {
                mcap_scene.agents.insert(
                    m.def.agent_name.clone(),
                    oceansim_export::mcap::AgentHull {
                        length_m: 2.0 * (half[row] + radius[row]),
                        width_m: 2.0 * radius[row],
                        vehicle: kind[row] == crate::components::Kind::Vehicle.code(),
                    },
                );
            }
        }
    }
    mcap_scene.sensor_frames = crate::ros::sensor_frames(world, h);
    let render_image = e.render_image.unwrap_or(false);
    let map = render_image.then(|| {
        let [x0, x1, y0, y1] = bounds;
        let cols = MAP_PX;
        let rows = ((MAP_PX as f64 * (y1 - y0) / (x1 - x0).max(1e-9)).round() as usize)
            .clamp(1, 4 * MAP_PX);
        let seabed = (0..rows)
            .flat_map(|v| {
                let y = y1 - (v as f64 + 0.5) / rows as f64 * (y1 - y0);
                let terrain = &scene.terrain;
                (0..cols).map(move |u| {
                    terrain.height(x0 + (u as f64 + 0.5) / cols as f64 * (x1 - x0), y)
                })
            })
            .collect();
        MapPicture {
            bounds,
            seabed,
            cols,
            rows,
            obstacles: obstacles.clone(),
        }
    });
    let frames = world
        .resource_mut(h.recorder)
        .frames()
        .with_cancel(x.exports.cancel.clone());
    // The occupancy slice at the main AUV's first recorded height (static
    // geometry only: agents move), on the seabed channel's grid.
    if let (Some(first), Some(seabed)) = (frames.first_main_position(), mcap_scene.seabed.as_ref())
    {
        let z = first[2];
        let (cols, rows, cell, [x0, y0]) = (seabed.cols, seabed.rows, seabed.cell_m, seabed.origin);
        let slice = oceansim_scene::occupancy::Slice {
            origin: [x0, y0],
            cell,
            cols,
            rows,
            z,
            inflation: 0.0,
        };
        // At most 512² cells; the obstacles cost only the rows and spans
        // they cover, so no budget is needed (the allowance is unbounded).
        let occupancy = oceansim_scene::occupancy::classify(
            &slice,
            &scene.terrain,
            &scene.obstacles,
            &[],
            usize::MAX,
        );
        let cells = occupancy
            .map(|o| {
                o.classes
                    .iter()
                    .map(|c| if *c == 0 { 0 } else { 100 })
                    .collect()
            })
            .unwrap_or_default();
        mcap_scene.occupancy = Some(oceansim_export::mcap::OccupancyGrid {
            origin: [x0, y0],
            slice_z: z,
            cell_m: cell,
            cols,
            rows,
            cells,
        });
    }
    drop(scene);
    let recorder = world.resource(h.recorder);
    let incomplete = (frames.dropped_frames() + frames.dropped_commands() > 0).then(|| {
        oceansim_protocol::reply::Incomplete {
            frames_dropped: frames.dropped_frames(),
            commands_dropped: frames.dropped_commands(),
            reason: recorder
                .spill_failure()
                .unwrap_or("the recorder's spill could not take them")
                .to_owned(),
        }
    });
    drop(recorder);
    Ok(ExportJob {
        root: config.export_root.clone(),
        parts,
        metadata: to_pretty(&metadata(cx, config, &frames, e.rosbag2.unwrap_or(true))),
        snapshot: to_pretty(&snapshot(cx, config.deterministic)),
        frames,
        bounds,
        obstacles,
        map,
        scene: Box::new(mcap_scene),
        pack: e.pack_dataset.unwrap_or(false),
        rosbag2: e.rosbag2.unwrap_or(true),
        incomplete,
    })
}

/// Pretty JSON of a document an export renders up front.
fn to_pretty<T: Serialize>(v: &T) -> String {
    // Plain data: serialising cannot fail.
    serde_json::to_string_pretty(v).unwrap_or_default()
}

impl ExportJob {
    /// Writes the run directory: into a hidden temporary directory beside
    /// it, renamed into place once every file is written, so a reader (or
    /// a crash) never meets a half-written run. An earlier run of the same
    /// name is replaced; the export root itself (`"."`) and directories
    /// inside a finished run are refused. The pack lands beside the run
    /// directory (inside the root).
    pub fn run(self) -> Result<ExportResult, ProtocolError> {
        let Some((last, up)) = self.parts.split_last() else {
            return Err(root_itself());
        };
        let parent = SafeDir::open(&self.root, up)?;
        refuse_inside_run(&self.root, up)?;
        // Only a run replaces a run: anything else of that name stays.
        let target = parent.file_path(last);
        if target.exists() && !is_run_dir(&target) {
            return Err(ProtocolError::InvalidMessage(format!(
                "`{}` exists and is not an exported run; choose another export_dir",
                target.display()
            )));
        }
        let n = EXPORT_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tag = oceansim_record::spill::boot_tag();
        let tmp = match &tag {
            Some(t) => format!(".{last}.partial.{t}.{}.{n}", std::process::id()),
            None => format!(".{last}.partial.{}.{n}", std::process::id()),
        };
        // Everything, the pack included, is written before the rename: a
        // failure leaves the earlier run as it was.
        let written = parent
            .child_dir(&tmp)
            .map_err(ProtocolError::from)
            .and_then(|dir| {
                // Held while the files are written: a killed export's partial
                // directory is found by the next export here and removed.
                let lock = oceansim_record::spill::lock_owner_as(dir.path(), PARTIAL_LOCK);
                if let Some(t) = &tag {
                    sweep_partials(&parent, dir.path(), t);
                }
                let names = self.write_files(&dir)?;
                let packed = self.pack(&dir, &names)?;
                // Gone before the rename: a sweeper meeting no lock leaves the
                // directory alone, and the run carries no lock file.
                dir.remove_file(PARTIAL_LOCK);
                parent.replace_dir(&tmp, last, n)?;
                drop(lock);
                Ok((names, packed))
            });
        let (names, packed) = match written {
            Ok(done) => done,
            Err(e) => {
                parent.remove_tree(&tmp);
                if self.frames.cancelled() {
                    return Err(ProtocolError::InvalidMessage(
                        "export_dataset cancelled: the server is shutting down (nothing was written)"
                            .into(),
                    ));
                }
                return Err(e);
            }
        };
        let dir = SafeDir::open(&self.root, &self.parts)?;
        Ok(self.result(&dir, &names, packed))
    }

    /// Writes every file of the run into `dir`; returns their names
    /// (relative to `dir`), in the same order whatever thread wrote them.
    ///
    /// The three large writers (the MCAP file, the ROS 2 bag and the
    /// sensor series: each reads every frame and writes most of the bytes)
    /// run on threads of their own beside the small files.
    fn write_files(&self, dir: &SafeDir) -> Result<Vec<String>, ProtocolError> {
        let agents = self.frames.agents();
        let stems = oceansim_dataset::unique_stems(agents.iter().map(String::as_str));
        let joined = |r: std::thread::Result<Result<Vec<String>, ProtocolError>>| {
            r.unwrap_or_else(|_| {
                Err(ProtocolError::InvalidMessage(
                    "export failed: a writer thread panicked".into(),
                ))
            })
        };
        let parts: [Result<Vec<String>, ProtocolError>; 5] = std::thread::scope(|s| {
            let mcap = s.spawn(|| self.write_mcap(dir));
            let bag = s.spawn(|| self.write_bag(dir));
            let series = s.spawn(|| write_all_series(dir, &self.frames, &stems));
            let small = self.write_small(dir);
            let rest = self.write_trajectories_and_map(dir, &stems);
            [
                small,
                joined(mcap.join()),
                joined(bag.join()),
                rest,
                joined(series.join()),
            ]
        });
        let mut names = Vec::new();
        for part in parts {
            names.extend(part?);
        }
        Ok(names)
    }

    /// The small documents: metadata, trajectory, timeline, commands and
    /// the snapshot.
    fn write_small(&self, dir: &SafeDir) -> Result<Vec<String>, ProtocolError> {
        let mut names = Vec::new();
        put(&mut names, dir, "", "metadata.json", &mut |w| {
            w.write_all(self.metadata.as_bytes())
        })?;
        put(&mut names, dir, "", "trajectory.csv", &mut |w| {
            write_trajectory(&self.frames, w)
        })?;
        put(&mut names, dir, "", "agent_timeline.jsonl", &mut |w| {
            write_timeline(&self.frames, w)
        })?;
        put(&mut names, dir, "", "commands.jsonl", &mut |w| {
            write_commands(&self.frames, w)
        })?;
        put(&mut names, dir, "", "snapshot.json", &mut |w| {
            w.write_all(self.snapshot.as_bytes())
        })?;
        Ok(names)
    }

    fn write_mcap(&self, dir: &SafeDir) -> Result<Vec<String>, ProtocolError> {
        let mut names = Vec::new();
        put(&mut names, dir, "", "run.mcap", &mut |w| {
            write_mcap(w, &self.frames, &self.scene).map(|_| ())
        })?;
        Ok(names)
    }

    /// The ROS 2 bag (when asked) and its metadata.
    fn write_bag(&self, dir: &SafeDir) -> Result<Vec<String>, ProtocolError> {
        let mut names = Vec::new();
        if !self.rosbag2 {
            return Ok(names);
        }
        use oceansim_export::rosbag2::{metadata_yaml, write_bag, BAG_DIR, BAG_FILE};
        let bag = dir.child_dir(BAG_DIR)?;
        let mut summary = None;
        put(&mut names, &bag, "rosbag2/", BAG_FILE, &mut |w| {
            summary = Some(write_bag(w, &self.frames, &self.scene)?);
            Ok(())
        })?;
        let yaml = metadata_yaml(&summary.unwrap_or_default(), BAG_FILE);
        put(&mut names, &bag, "rosbag2/", "metadata.yaml", &mut |w| {
            w.write_all(yaml.as_bytes())
        })?;
        Ok(names)
    }

    /// Per-agent trajectories, and the map picture when asked.
    fn write_trajectories_and_map(
        &self,
        dir: &SafeDir,
        stems: &std::collections::BTreeMap<String, String>,
    ) -> Result<Vec<String>, ProtocolError> {
        let mut names = Vec::new();
        let traj = dir.child_dir("trajectories")?;
        for f in write_trajectory_files(&traj, &self.frames, stems)? {
            names.push(format!("trajectories/{f}"));
        }
        if let Some(map) = &self.map {
            put(&mut names, dir, "", "trajectory.svg", &mut |w| {
                write_svg(self, w)
            })?;
            let png = map
                .render(&self.frames)
                .map_err(|e| ProtocolError::InvalidMessage(e.to_string()))?
                .to_png();
            put(&mut names, dir, "", "map.png", &mut |w| w.write_all(&png))?;
        }
        Ok(names)
    }

    /// Packs the files `names` of `dir` (when asked) beside the run
    /// directory.
    fn pack(&self, dir: &SafeDir, names: &[String]) -> Result<Option<Packed>, ProtocolError> {
        if !self.pack {
            return Ok(None);
        }
        let Some((last, up)) = self.parts.split_last() else {
            return Err(root_itself());
        };
        let (parent, zip_name) = (SafeDir::open(&self.root, up)?, format!("{last}.zip"));
        let cancel = self.frames.cancel().unwrap_or_default();
        let bytes = parent.write(&zip_name, |w| write_zip(w, dir, names, last, &cancel))?;
        Ok(Some(Packed {
            path: parent.file_path(&zip_name).display().to_string(),
            bytes,
        }))
    }

    /// The reply for the run written into `dir`.
    fn result(&self, dir: &SafeDir, names: &[String], packed: Option<Packed>) -> ExportResult {
        ExportResult {
            status: "ok".into(),
            export_dir: dir.path().display().to_string(),
            // Per-sample images and clouds (sensors/<agent>/<sensor>/...) are
            // in the directory and the pack, not in the reply.
            files: names
                .iter()
                .filter(|f| f.matches('/').count() < 3)
                .map(|f| dir.file_path(f).display().to_string())
                .collect(),
            samples: self.frames.len() as usize,
            packed,
            incomplete: self.incomplete.clone(),
        }
    }
}

/// The lock file of an export's partial directory (see
/// [`oceansim_record::spill::lock_owner_as`]).
const PARTIAL_LOCK: &str = ".export.lock";

/// Removes the partial directories under `parent` that exports of this
/// boot left when they were killed (their lock can be taken), except
/// `own`, on which this export holds its lock anyway.
fn sweep_partials(parent: &SafeDir, own: &std::path::Path, tag: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = std::fs::metadata(own) else {
            return;
        };
        let marker = format!(".partial.{tag}.");
        // A dead process's files were never charged here: no refund.
        oceansim_record::spill::sweep_locked(
            parent.path(),
            meta.uid(),
            PARTIAL_LOCK,
            "partial export",
            &|name| name.starts_with('.') && name.contains(&marker),
        );
    }
    #[cfg(not(unix))]
    let _ = (parent, own, tag);
}

/// The error for an export or a snapshot aimed at the export root itself.
fn root_itself() -> ProtocolError {
    ProtocolError::InvalidMessage(
        "export_dir `.` names the export root itself; name a run directory inside it".into(),
    )
}

/// Numbers the temporary directories of exports in flight.
static EXPORT_COUNTER: AtomicU64 = AtomicU64::new(0);

/// `export_dataset`, written in place.
pub(super) fn export_dataset(x: ExportCtx<'_>, e: ExportDataset) -> Outcome {
    Reply::ok(prepare(x, e)?.run()?)
}
