//! Snapshots that load back bit for bit.
//!
//! The simulation is deterministic given its configuration, the requests it
//! answered and the ticks between them (physics, noise and acoustic drops
//! are seeded; nothing reads the wall clock but sensors' `timestamp_wall`,
//! which `deterministic` replaces with the simulated time). So a snapshot
//! carries, besides the readable world state, a journal: the configuration,
//! every request that can change the world with the number of ticks run
//! before it, and the ticks run in all. Loading builds the simulation from
//! the configuration and replays the journal, tick for tick, which gives
//! back the same world to the bit, at about the simulator's own speed
//! (thousands of simulated seconds per second).
//!
//! The journal is bounded ([`MAX_JOURNAL_BYTES`]); past it, snapshots are
//! still written but say they cannot be restored, and `load_snapshot`
//! refuses them with that reason.

use crate::config::SimConfig;
use crate::error::{Result, SimError};
use crate::simulation::Simulation;
use oceansim_protocol::{Action, ActionName, RequestId, SingleRequest};
use serde_json::{json, Value};
use std::path::PathBuf;

/// Most journal bytes kept (about a million `step` requests); past it the
/// simulation's snapshots can no longer be restored.
pub const MAX_JOURNAL_BYTES: usize = 128 << 20;
/// The journal format's name and version in a snapshot's `restore`.
pub const JOURNAL_SCHEMA: &str = "oceansim_journal";

/// One journaled request.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// Ticks run (since the simulation was created) before it.
    at: u64,
    name: ActionName,
    /// The payload as JSON, serialised once (its length is its cost).
    data: Box<str>,
    request_id: Option<RequestId>,
}

/// The requests that changed the world.
#[derive(Debug, Clone, Default)]
pub(crate) struct Journal {
    entries: Vec<Entry>,
    bytes: usize,
    /// Why the journal stopped, if it did.
    full: Option<String>,
}

/// Whether answering `name` can change the world: everything but the
/// queries and the outputs (exports, snapshots), and `get_sensors`, a query
/// that makes an imaging sensor it asks for sample.
fn changes_world(name: ActionName) -> bool {
    use ActionName as N;
    let output = matches!(
        name,
        N::ExportDataset | N::SaveSnapshotJson | N::LoadSnapshot
    );
    (!crate::dispatch::is_query(name) || name == N::GetSensors) && !output
}

impl Journal {
    /// The entry a request makes if it succeeds, answered after
    /// `ticks_before` ticks (`None` when it cannot change the world or the
    /// journal has stopped). Taken before the request is answered, which
    /// consumes it.
    pub(crate) fn prepare(
        &self,
        ticks_before: u64,
        request_id: &Option<RequestId>,
        action: &Action,
    ) -> Option<Entry> {
        let name = action.name();
        (self.full.is_none() && changes_world(name)).then(|| Entry {
            at: ticks_before,
            name,
            data: action.data().to_string().into_boxed_str(),
            request_id: request_id.clone(),
        })
    }

    /// Keeps an entry whose request succeeded (a refused request changes
    /// nothing, and replayed alone it might not be refused).
    pub(crate) fn push(&mut self, e: Entry) {
        if self.full.is_some() {
            return;
        }
        let size = 64 + e.data.len();
        if self.bytes + size > MAX_JOURNAL_BYTES {
            self.full = Some(format!(
                "the journal of requests passed {} MiB; snapshots of this run are not restorable (restart the simulator, or load a snapshot, to start a new journal)",
                MAX_JOURNAL_BYTES >> 20
            ));
            self.entries = Vec::new();
            return;
        }
        self.bytes += size;
        self.entries.push(e);
    }
}

fn config_json(c: &SimConfig) -> Value {
    json!({
        "scenario": c.scenario,
        "seed": c.seed,
        "profile": c.profile,
        "tick_s": c.tick_s,
        "step_period_s": c.step_period_s,
        "paused": c.paused,
        "time_scale": c.time_scale,
        "deterministic": c.deterministic,
        "record_sensor_data": c.record_sensor_data,
        "record_period_s": c.record_period_s,
        "record_memory_frames": c.record_memory_frames,
    })
}

fn bad(why: impl Into<String>) -> SimError {
    SimError::Config(format!("snapshot: {}", why.into()))
}

fn config_from(v: &Value, export_root: PathBuf) -> Result<SimConfig> {
    let f = |k: &str| {
        v[k].as_f64()
            .ok_or_else(|| bad(format!("restore.config.{k} is not a number")))
    };
    let b = |k: &str| {
        v[k].as_bool()
            .ok_or_else(|| bad(format!("restore.config.{k} is not a boolean")))
    };
    Ok(SimConfig {
        scenario: v["scenario"]
            .as_str()
            .ok_or_else(|| bad("restore.config.scenario is not a string"))?
            .to_owned(),
        seed: v["seed"]
            .as_u64()
            .ok_or_else(|| bad("restore.config.seed is not an integer"))?,
        profile: v["profile"].as_str().map(str::to_owned),
        tick_s: f("tick_s")?,
        step_period_s: f("step_period_s")?,
        paused: b("paused")?,
        time_scale: f("time_scale")?,
        export_root,
        deterministic: b("deterministic")?,
        record_sensor_data: b("record_sensor_data")?,
        record_period_s: v["record_period_s"].as_f64(),
        // Older snapshots have no bound: the default.
        record_memory_frames: match &v["record_memory_frames"] {
            Value::Null => crate::MAX_RECORDED_SAMPLES,
            n => n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| bad("restore.config.record_memory_frames is not an integer"))?,
        },
    })
}

impl Simulation {
    /// What a snapshot needs to be loaded back: `{"schema", "version",
    /// "config", "ticks", "journal": [[ticks_before, action, data,
    /// request_id], ...]}`, or `{"restorable": false, "reason"}`.
    pub fn restore_json(&self) -> Value {
        if let Some(why) = &self.journal.full {
            return json!({"restorable": false, "reason": why});
        }
        let entries: Vec<Value> = self
            .journal
            .entries
            .iter()
            .map(|e| {
                let data: Value = serde_json::from_str(&e.data).unwrap_or(Value::Null);
                json!([e.at, e.name.as_str(), data, e.request_id])
            })
            .collect();
        json!({
            "schema": JOURNAL_SCHEMA,
            "version": 1,
            "restorable": true,
            "config": config_json(&self.config),
            "ticks": self.ticks_run,
            "journal": entries,
        })
    }

    /// The simulation a snapshot saved (its `restore` section), rebuilt by
    /// replaying its journal; exports go under `export_root`. The result
    /// equals the saved simulation bit for bit and goes on the same way.
    pub fn from_snapshot(snapshot: &Value, export_root: PathBuf) -> Result<Simulation> {
        let r = &snapshot["restore"];
        if r.is_null() {
            return Err(bad("no `restore` section (written by an older version, or not a save_snapshot_json file)"));
        }
        if r["restorable"] == false {
            return Err(bad(r["reason"]
                .as_str()
                .unwrap_or("not restorable")
                .to_owned()));
        }
        if r["schema"] != JOURNAL_SCHEMA || r["version"] != 1 {
            return Err(bad(format!(
                "unknown journal format {} v{}",
                r["schema"], r["version"]
            )));
        }
        let config = config_from(&r["config"], export_root)?;
        let ticks = r["ticks"]
            .as_u64()
            .ok_or_else(|| bad("restore.ticks is not an integer"))?;
        let journal = r["journal"]
            .as_array()
            .ok_or_else(|| bad("restore.journal is not a list"))?;
        let mut sim = Simulation::new(config)?;
        for (i, e) in journal.iter().enumerate() {
            let at = e[0]
                .as_u64()
                .ok_or_else(|| bad(format!("journal entry {i}: no tick count")))?;
            let name = e[1]
                .as_str()
                .and_then(ActionName::parse)
                .ok_or_else(|| bad(format!("journal entry {i}: unknown action {}", e[1])))?;
            if at < sim.ticks_run || at > ticks {
                return Err(bad(format!("journal entry {i}: ticks out of order")));
            }
            let action = Action::from_data(name, e[2].clone())
                .map_err(|err| bad(format!("journal entry {i} ({}): {err}", name.as_str())))?;
            let request_id: Option<RequestId> =
                serde_json::from_value(e[3].clone()).unwrap_or(None);
            sim.tick(at - sim.ticks_run);
            let _ = sim.handle(SingleRequest { request_id, action });
        }
        if ticks < sim.ticks_run {
            return Err(bad("restore.ticks is less than the journal's"));
        }
        sim.tick(ticks - sim.ticks_run);
        Ok(sim)
    }
}
