//! Headless runs: a scenario simulated without a socket, as fast as the
//! machine allows, driven by a scripted controller, and exported at the
//! end (`oceansim run`).

use crate::ServerError;
use oceansim_protocol::payload::{Empty, ExportDataset, GetState, SetWaypoint, Step};
use oceansim_protocol::{Action, SingleRequest};
use oceansim_sim::{SimConfig, Simulation};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Instant;

/// How the main AUV is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Controller {
    /// A lawnmower survey over the map's inner 70 % at the start depth, legs
    /// 8 m apart, each leg's end a waypoint for the simulator's waypoint PID.
    Survey,
    /// No command: the vehicle holds still (buoyancy and currents act).
    Hold,
}

/// A headless run.
#[derive(Debug, Clone)]
pub struct HeadlessRun {
    /// Scenario name or file.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Simulated duration (s).
    pub duration_s: f64,
    /// The controller.
    pub controller: Controller,
    /// Where the run directory goes (its parent is the export root).
    pub out: PathBuf,
    /// Most recorded frames kept in memory; older ones spill to disk
    /// under the export root (see [`oceansim_sim::RecordLimits`]).
    pub record_memory_frames: usize,
    /// Most bytes of recorded frames kept in memory (the rest spill the
    /// same way); [`oceansim_sim::MAX_RECORDED_BYTES`] by default.
    pub record_memory_bytes: usize,
    /// Keep every sensor sample (imaging sensors render at their rates)
    /// so the export carries every sensor's series; off for long runs
    /// that need only trajectories.
    pub sensor_data: bool,
    /// Also write the run as a ROS 2 bag (`rosbag2/` in the run directory).
    pub rosbag2: bool,
}

/// The longest headless run (s simulated: about 116 days).
pub const MAX_RUN_S: f64 = 1e7;

/// What a headless run did.
#[derive(Debug, Clone)]
pub struct HeadlessReport {
    /// Simulated time (s).
    pub sim_time_s: f64,
    /// Wall time (s).
    pub wall_s: f64,
    /// The export reply (`export_dir`, `files`, `samples`).
    pub export: Value,
    /// Waypoints reached.
    pub waypoints_reached: usize,
}

/// Answers one typed request in process; its `data`, or the error it
/// carries.
fn call(sim: &mut Simulation, action: Action) -> Result<Value, ServerError> {
    let name = action.name();
    let mut reply = sim.handle(SingleRequest::new(action)).to_value();
    if reply["success"] != true {
        return Err(ServerError::Run(format!(
            "`{}` failed: {reply}",
            name.as_str()
        )));
    }
    Ok(reply["data"].take())
}

/// The waypoint PID's target `wp` (Godot X, Z) at `depth` (m).
fn waypoint(wp: [f64; 2], depth: f64) -> Action {
    Action::SetWaypoint(SetWaypoint {
        world_x: wp[0],
        world_z: wp[1],
        depth: Some(depth),
        agent_id: None,
        control_scheme: Some("waypoint_pid".into()),
        controller: None,
    })
}

/// Lawnmower legs over `bounds` (user frame `[x0, x1, y0, y1]`), as Godot
/// `(world_x, world_z)` waypoints.
fn survey(bounds: [f64; 4]) -> Vec<[f64; 2]> {
    let [x0, x1, y0, y1] = bounds;
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let (hx, hy) = (0.35 * (x1 - x0), 0.35 * (y1 - y0));
    let legs = ((2.0 * hx / 8.0).floor() as usize).max(1);
    let mut out = Vec::new();
    for k in 0..=legs {
        let x = cx - hx + 2.0 * hx * k as f64 / legs as f64;
        let (a, b) = if k % 2 == 0 {
            (cy - hy, cy + hy)
        } else {
            (cy + hy, cy - hy)
        };
        // Godot: X east, Z south.
        out.push([x, -a]);
        out.push([x, -b]);
    }
    out
}

impl HeadlessRun {
    /// Runs it; `progress(simulated, total)` is called about a hundred
    /// times along the way.
    pub fn run(&self, mut progress: impl FnMut(f64, f64)) -> Result<HeadlessReport, ServerError> {
        let bad = |what: &str| ServerError::Run(what.to_owned());
        // Frames past the recorder's memory spill to disk, so length is not
        // bounded by memory; this only refuses nonsense.
        let longest = MAX_RUN_S;
        let ok = self.duration_s.is_finite() && self.duration_s > 0.0 && self.duration_s <= longest;
        if !ok {
            return Err(ServerError::Run(format!(
                "--duration must be in (0, {longest}] s"
            )));
        }
        let name = self
            .out
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.is_empty() && *n != "." && *n != "..")
            .ok_or_else(|| bad("--out must end in a directory name"))?
            .to_owned();
        let root = self
            .out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        let mut sim = Simulation::new(SimConfig {
            scenario: self.scenario.clone(),
            seed: self.seed,
            paused: true,
            deterministic: true,
            record_sensor_data: self.sensor_data,
            record_memory_frames: self.record_memory_frames,
            record_memory_bytes: self.record_memory_bytes,
            export_root: root,
            ..SimConfig::default()
        })?;
        let state = call(&mut sim, Action::GetState(GetState::default()))?;
        let depth = state["depth"].as_f64().unwrap_or(5.0);
        let info = call(&mut sim, Action::GetMapInfo(Empty {}))?;
        let bounds = info["bounds"]
            .as_array()
            .and_then(|b| {
                let v: Vec<f64> = b.iter().filter_map(Value::as_f64).collect();
                (v.len() == 4).then(|| [v[0], v[1], v[2], v[3]])
            })
            .unwrap_or([-20.0, 20.0, -20.0, 20.0]);
        let route = match self.controller {
            Controller::Survey => survey(bounds),
            Controller::Hold => Vec::new(),
        };
        let started = Instant::now();
        let (mut next, mut reached, mut reported) = (0, 0, -1i64);
        if let Some(wp) = route.first() {
            call(&mut sim, waypoint(*wp, depth))?;
        }
        // `step` applies the command and advances one control period; the
        // state it answers says whether the waypoint PID has arrived.
        while sim.sim_time() < self.duration_s - 1e-9 {
            let st = call(&mut sim, Action::Step(Step::default()))?;
            let arrived = st["control"]["controller_state"]["arrived"] == true;
            if arrived && next < route.len() {
                reached += 1;
                next += 1;
                if let Some(wp) = route.get(next) {
                    call(&mut sim, waypoint(*wp, depth))?;
                }
            }
            let percent = (100.0 * sim.sim_time() / self.duration_s) as i64;
            if percent != reported {
                reported = percent;
                progress(sim.sim_time().min(self.duration_s), self.duration_s);
            }
        }
        let export = call(
            &mut sim,
            Action::ExportDataset(ExportDataset {
                export_dir: Some(name),
                render_image: Some(true),
                rosbag2: Some(self.rosbag2),
                ..ExportDataset::default()
            }),
        )?;
        Ok(HeadlessReport {
            sim_time_s: sim.sim_time(),
            wall_s: started.elapsed().as_secs_f64(),
            export,
            waypoints_reached: reached,
        })
    }
}
