//! `export_dataset` and `save_snapshot_json`: files under the export root,
//! written from the recorder (never from live state) and a snapshot.

use super::{Outcome, Reply};
use crate::export::{confine, pack_dir, trajectory_svg, write_json, write_lines};
use crate::simulation::Simulation;
use oceansim_agents::CommandRecord;
use oceansim_protocol::payload::{ExportDataset, SaveSnapshot};
use oceansim_protocol::reply::{ExportResult, Packed, SnapshotSaved};
use oceansim_protocol::ProtocolError;
use oceansim_vehicles::{DynamicsReport, ThrusterBank, VehicleState};
use serde::Serialize;
use std::path::{Path, PathBuf};

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

fn write_trajectory(sim: &Simulation, path: &Path) -> Result<(), ProtocolError> {
    let recorder = sim.world.resource(sim.h.recorder);
    let rows = recorder.samples().map(|s| {
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
        path,
        std::iter::once("time,x,y,z,vx,vy,vz,heading_deg".to_owned()).chain(rows),
    )?;
    Ok(())
}

fn write_timeline(sim: &Simulation, path: &Path) -> Result<(), ProtocolError> {
    let main = sim.main_name();
    let sensor_names: Vec<String> = {
        let row = sim.world.row(sim.main_entity()).unwrap_or(0);
        sim.world.objects(sim.h.sensors)[row]
            .as_ref()
            .map(|s| s.names().into_iter().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let main_frames: Vec<String> = sensor_names.iter().map(|n| format!("{main}/{n}")).collect();
    let recorder = sim.world.resource(sim.h.recorder);
    let line = |r: &TimelineRow<'_>| serde_json::to_string(r).unwrap_or_default();
    let rows = recorder.samples().flat_map(|s| {
        let head = line(&TimelineRow {
            time: s.time,
            agent: &main,
            state: TimelineState {
                position: s.position,
                velocity: Some(s.velocity),
                heading_deg: Some(s.heading_deg),
            },
            command: s.command.as_ref(),
            sensor_sequences: &sensor_names,
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
    write_lines(path, rows)?;
    Ok(())
}

fn write_svg(sim: &Simulation, path: &Path) -> Result<(), ProtocolError> {
    let recorder = sim.world.resource(sim.h.recorder);
    let scene = sim.world.resource(sim.h.scene);
    let pts: Vec<[f64; 2]> = recorder
        .samples()
        .map(|s| [s.position[0], s.position[1]])
        .collect();
    let obs: Vec<([f64; 2], f64)> = scene
        .obstacles
        .iter()
        .map(|o| {
            (
                [o.center[0], o.center[1]],
                o.half_extents[0].max(o.half_extents[1]),
            )
        })
        .collect();
    std::fs::write(path, trajectory_svg(&pts, scene.bounds(), &obs))
        .map_err(|e| ProtocolError::InvalidMessage(format!("cannot write {}: {e}", path.display())))
}

/// `export_dataset`.
pub(super) fn export_dataset(sim: &mut Simulation, e: ExportDataset) -> Outcome {
    sim.export_counter += 1;
    let tick = sim.world.resource(sim.h.clock).tick;
    let rel = e
        .export_dir
        .clone()
        .unwrap_or_else(|| format!("run_{:04}_t{tick:08}", sim.export_counter));
    let dir = confine(&sim.config.export_root, &rel)?;
    std::fs::create_dir_all(&dir).map_err(|err| {
        ProtocolError::InvalidMessage(format!("cannot create {}: {err}", dir.display()))
    })?;
    let mut files: Vec<PathBuf> = Vec::new();
    let p = dir.join("metadata.json");
    write_json(&p, &metadata(sim))?;
    files.push(p);
    let p = dir.join("trajectory.csv");
    write_trajectory(sim, &p)?;
    files.push(p);
    let p = dir.join("agent_timeline.jsonl");
    write_timeline(sim, &p)?;
    files.push(p);
    let p = dir.join("snapshot.json");
    let snap = sim.snapshot();
    write_json(&p, &snap)?;
    files.push(p);
    if e.render_image.unwrap_or(false) {
        let p = dir.join("trajectory.svg");
        write_svg(sim, &p)?;
        files.push(p);
    }
    let packed = if e.pack_dataset.unwrap_or(false) {
        let zip = dir.with_extension("zip");
        let bytes = pack_dir(&dir, &zip)?;
        Some(Packed {
            path: zip.display().to_string(),
            bytes,
        })
    } else {
        None
    };
    Reply::ok(&ExportResult {
        status: "ok".into(),
        export_dir: dir.display().to_string(),
        files: files.iter().map(|f| f.display().to_string()).collect(),
        samples: sim.world.resource(sim.h.recorder).len(),
        packed,
    })
}

/// `save_snapshot_json`.
pub(super) fn save_snapshot(sim: &mut Simulation, s: SaveSnapshot) -> Outcome {
    sim.export_counter += 1;
    let tick = sim.world.resource(sim.h.clock).tick;
    let mut rel = s
        .path
        .unwrap_or_else(|| format!("snapshots/snapshot_{tick:08}.json"));
    if !rel.ends_with(".json") {
        rel.push_str(".json");
    }
    let path = confine(&sim.config.export_root, &rel)?;
    let snap = sim.snapshot();
    let bytes = write_json(&path, &snap)?;
    Reply::ok(&SnapshotSaved {
        status: "ok".into(),
        path: path.display().to_string(),
        bytes,
    })
}
