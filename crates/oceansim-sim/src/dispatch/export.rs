//! `export_dataset` and `save_snapshot_json`: files under the export root,
//! written from the recorder (never from live state) and a snapshot.

use super::{Outcome, Reply};
use crate::export::{trajectory_svg, write_lines, write_zip};
use crate::recorder::Sample;
use crate::safe_fs::{split_rel, SafeDir};
use crate::simulation::Simulation;
use oceansim_agents::CommandRecord;
use oceansim_protocol::payload::{ExportDataset, SaveSnapshot};
use oceansim_protocol::reply::{ExportResult, Packed, SnapshotSaved};
use oceansim_protocol::ProtocolError;
use oceansim_vehicles::{DynamicsReport, ThrusterBank, VehicleState};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// `metadata.json`.
#[derive(Debug, Serialize)]
struct Metadata {
    schema: &'static str,
    schema_version: u32,
    scenario: String,
    seed: u64,
    profile: String,
    sim_time: f64,
    samples: usize,
    sample_period_s: f64,
    frames: Frames,
    dynamics: DynamicsReport,
}

#[derive(Debug, Serialize)]
struct Frames {
    world: &'static str,
    base: &'static str,
}

/// A line of `agent_timeline.jsonl`.
#[derive(Debug, Serialize)]
struct TimelineRow<'a> {
    time: f64,
    agent: &'a str,
    state: TimelineState,
    command: Option<&'a CommandRecord>,
    sensor_sequences: &'a [String],
    frame_trace: FrameTrace,
}

#[derive(Debug, Serialize)]
struct TimelineState {
    position: [f64; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    velocity: Option<[f64; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heading_deg: Option<f64>,
}

#[derive(Debug, Serialize)]
struct FrameTrace {
    world_frame: &'static str,
    base_frame: String,
    sensor_frames: Vec<String>,
    command_frame: Option<oceansim_protocol::Frame>,
}

fn metadata(sim: &Simulation) -> Metadata {
    let row = sim.world.row(sim.main_entity()).unwrap_or(0);
    let vehicles = sim.world.objects(sim.h.vehicle);
    let banks = sim.world.objects(sim.h.thrusters);
    let state: VehicleState = crate::systems::vehicle_state(&sim.world, &sim.h, row);
    let (profile, dynamics) = match (&vehicles[row], &banks[row]) {
        (Some(v), Some(b)) => (
            v.profile.name.clone(),
            v.model.report(&state, b.allocation_columns()),
        ),
        (Some(v), None) => {
            let b = ThrusterBank::from_profile(&v.profile);
            (
                v.profile.name.clone(),
                v.model.report(&state, b.allocation_columns()),
            )
        }
        _ => unreachable_report(&state),
    };
    let recorder = sim.world.resource(sim.h.recorder);
    Metadata {
        schema: "oceansim_dataset",
        schema_version: 1,
        scenario: sim.scenario_id(),
        seed: sim.seed(),
        profile,
        sim_time: sim.sim_time(),
        samples: recorder.len(),
        sample_period_s: sim.world.resource(sim.h.clock).step_period(),
        frames: Frames {
            world: "oceansim_world (x east, y north, z up)",
            base: "auv/main/base_link (FRD)",
        },
        dynamics,
    }
}

/// The main AUV always has vehicle parameters; this keeps export total.
fn unreachable_report(state: &VehicleState) -> (String, DynamicsReport) {
    let p = oceansim_vehicles::VehicleProfile::default_profile();
    let model = oceansim_vehicles::VehicleModel::from_profile(&p);
    let b = ThrusterBank::from_profile(&p);
    (p.name.clone(), model.report(state, b.allocation_columns()))
}

fn write_trajectory(samples: &[Arc<Sample>], w: &mut impl Write) -> std::io::Result<()> {
    let rows = samples.iter().map(|s| {
        format!(
            "{},{},{},{},{},{},{},{}",
            s.time,
            s.position[0],
            s.position[1],
            s.position[2],
            s.velocity[0],
            s.velocity[1],
            s.velocity[2],
            s.heading_deg
        )
    });
    write_lines(
        w,
        std::iter::once("time,x,y,z,vx,vy,vz,heading_deg".to_owned()).chain(rows),
    )
}

fn write_timeline(job: &ExportJob, w: &mut impl Write) -> std::io::Result<()> {
    let (main, sensor_names) = (&job.main, &job.sensor_names);
    let main_frames: Vec<String> = sensor_names.iter().map(|n| format!("{main}/{n}")).collect();
    let line = |r: &TimelineRow<'_>| serde_json::to_string(r).unwrap_or_default();
    let rows = job.samples.iter().flat_map(|s| {
        let head = line(&TimelineRow {
            time: s.time,
            agent: main,
            state: TimelineState {
                position: s.position,
                velocity: Some(s.velocity),
                heading_deg: Some(s.heading_deg),
            },
            command: s.command.as_ref(),
            sensor_sequences: sensor_names,
            frame_trace: FrameTrace {
                world_frame: "oceansim_world",
                base_frame: format!("{main}/base_link"),
                sensor_frames: main_frames.clone(),
                command_frame: s.command.as_ref().and_then(|c| c.frame),
            },
        });
        std::iter::once(head).chain(s.agents.iter().map(move |(name, pos)| {
            line(&TimelineRow {
                time: s.time,
                agent: name,
                state: TimelineState {
                    position: *pos,
                    velocity: None,
                    heading_deg: None,
                },
                command: None,
                sensor_sequences: &[],
                frame_trace: FrameTrace {
                    world_frame: "oceansim_world",
                    base_frame: format!("{name}/base_link"),
                    sensor_frames: Vec::new(),
                    command_frame: Some(oceansim_protocol::Frame::GodotWorld),
                },
            })
        }))
    });
    write_lines(w, rows)
}

fn write_svg(job: &ExportJob, w: &mut impl Write) -> std::io::Result<()> {
    let pts: Vec<[f64; 2]> = job
        .samples
        .iter()
        .map(|s| [s.position[0], s.position[1]])
        .collect();
    w.write_all(trajectory_svg(&pts, job.bounds, &job.obstacles).as_bytes())
}

/// Pretty JSON of `value`, as a file writer.
fn pretty<T: Serialize>(
    value: &T,
) -> impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()> + '_ {
    move |w| serde_json::to_writer_pretty(w, value).map_err(std::io::Error::from)
}

/// An `export_dataset` taken from the world, to be written anywhere
/// (another thread included): the recorded samples, shared, and the
/// documents rendered at the time of the request.
#[derive(Debug)]
pub(crate) struct ExportJob {
    root: PathBuf,
    parts: Vec<String>,
    metadata: String,
    snapshot: String,
    samples: Vec<Arc<Sample>>,
    main: String,
    sensor_names: Vec<String>,
    bounds: [f64; 4],
    obstacles: Vec<([f64; 2], f64)>,
    render_image: bool,
    pack: bool,
}

/// Takes an export from the world (cheap: the samples are shared).
pub(crate) fn prepare(sim: &mut Simulation, e: ExportDataset) -> Result<ExportJob, ProtocolError> {
    sim.export_counter += 1;
    let tick = sim.world.resource(sim.h.clock).tick;
    let rel = e
        .export_dir
        .clone()
        .unwrap_or_else(|| format!("run_{:04}_t{tick:08}", sim.export_counter));
    let parts = split_rel(&rel)?;
    let row = sim.world.row(sim.main_entity()).unwrap_or(0);
    let sensor_names = sim.world.objects(sim.h.sensors)[row]
        .as_ref()
        .map(|s| s.names().into_iter().map(str::to_owned).collect())
        .unwrap_or_default();
    let scene = sim.world.resource(sim.h.scene);
    let obstacles = scene
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
    drop(scene);
    Ok(ExportJob {
        root: sim.config.export_root.clone(),
        parts,
        metadata: to_pretty(&metadata(sim)),
        snapshot: to_pretty(&sim.snapshot()),
        samples: sim.world.resource(sim.h.recorder).shared(),
        main: sim.main_name(),
        sensor_names,
        bounds,
        obstacles,
        render_image: e.render_image.unwrap_or(false),
        pack: e.pack_dataset.unwrap_or(false),
    })
}

/// Pretty JSON of a document an export renders up front.
fn to_pretty<T: Serialize>(v: &T) -> String {
    // Plain data: serialising cannot fail.
    serde_json::to_string_pretty(v).unwrap_or_default()
}

impl ExportJob {
    /// Writes the files (every one atomically inside the export root, never
    /// through a link); the pack lands beside the run directory (inside
    /// the root), or in the root as `dataset.zip` for `"."`.
    pub fn run(self) -> Result<ExportResult, ProtocolError> {
        let dir = SafeDir::open(&self.root, &self.parts)?;
        let mut names = vec![
            "metadata.json",
            "trajectory.csv",
            "agent_timeline.jsonl",
            "snapshot.json",
        ];
        dir.write("metadata.json", |w| w.write_all(self.metadata.as_bytes()))?;
        dir.write("trajectory.csv", |w| write_trajectory(&self.samples, w))?;
        dir.write("agent_timeline.jsonl", |w| write_timeline(&self, w))?;
        dir.write("snapshot.json", |w| w.write_all(self.snapshot.as_bytes()))?;
        if self.render_image {
            dir.write("trajectory.svg", |w| write_svg(&self, w))?;
            names.push("trajectory.svg");
        }
        let packed = if self.pack {
            let (parent, zip_name) = match self.parts.split_last() {
                Some((last, up)) => (SafeDir::open(&self.root, up)?, format!("{last}.zip")),
                None => (SafeDir::open(&self.root, &[])?, "dataset.zip".to_owned()),
            };
            let bytes = parent.write(&zip_name, |w| write_zip(w, &dir, &names))?;
            Some(Packed {
                path: parent.file_path(&zip_name).display().to_string(),
                bytes,
            })
        } else {
            None
        };
        Ok(ExportResult {
            status: "ok".into(),
            export_dir: dir.path().display().to_string(),
            files: names
                .iter()
                .map(|f| dir.file_path(f).display().to_string())
                .collect(),
            samples: self.samples.len(),
            packed,
        })
    }
}

/// `export_dataset`, written in place.
pub(super) fn export_dataset(sim: &mut Simulation, e: ExportDataset) -> Outcome {
    Reply::ok(&prepare(sim, e)?.run()?)
}

/// `save_snapshot_json`: written atomically inside the export root.
pub(super) fn save_snapshot(sim: &mut Simulation, s: SaveSnapshot) -> Outcome {
    sim.export_counter += 1;
    let tick = sim.world.resource(sim.h.clock).tick;
    let mut rel = s
        .path
        .unwrap_or_else(|| format!("snapshots/snapshot_{tick:08}.json"));
    if !rel.ends_with(".json") {
        rel.push_str(".json");
    }
    let parts = split_rel(&rel)?;
    let Some((name, up)) = parts.split_last() else {
        return Err(ProtocolError::InvalidMessage(format!(
            "`{rel}` names no file"
        )));
    };
    let dir = SafeDir::open(&sim.config.export_root, up)?;
    let bytes = dir.write(name, pretty(&sim.snapshot()))?;
    Reply::ok(&SnapshotSaved {
        status: "ok".into(),
        path: dir.file_path(name).display().to_string(),
        bytes,
    })
}
