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
//!
//! A snapshot is a file a client hands back, so loading trusts none of it:
//! the replay admits only world-changing actions (never a load, an export
//! or a save, so it cannot recurse or write), at most [`MAX_RESTORE_TICKS`]
//! ticks and [`RESTORE_TIME_LIMIT`] of wall time, and the configuration's
//! bounds as a command line would have them. A scenario or profile that
//! was a file when the run was saved travels inside the snapshot (its
//! parsed document); a snapshot that names a file without its document is
//! refused, so loading one never opens a host path. [`Replay`] runs in
//! slices so that a server answers other clients between them.

use crate::bookkeeping::Exports;
use crate::config::SimConfig;
use crate::ctx::{JournalCtx, ReadCtx};
use crate::error::{Result, SimError};
use crate::simulation::Simulation;
use oceansim_scene::scenario;
use oceansim_vehicles::VehicleProfile;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

mod log;
mod replay;
pub use log::MAX_JOURNAL_BYTES;
pub(crate) use log::{changes_world, is_query, Journal};
pub use replay::Replay;

/// Most bytes of a snapshot file `load_snapshot` reads (a load costs about
/// its size in memory; the journal is bounded to fit,
/// [`MAX_JOURNAL_BYTES`]).
pub const MAX_SNAPSHOT_BYTES: u64 = 32 << 20;

/// The journal format's name and version in a snapshot's `restore`.
pub const JOURNAL_SCHEMA: &str = "oceansim_journal";
/// Most physics ticks a snapshot's replay runs (about a minute of replay
/// on a small machine; 55 simulated hours at the default 0.01 s tick).
pub const MAX_RESTORE_TICKS: u64 = 20_000_000;
/// Longest a snapshot's replay may take (wall time) before it is abandoned
/// and the world left as it was.
pub const RESTORE_TIME_LIMIT: Duration = Duration::from_secs(120);
/// Ticks a replay runs first between looks at the clock; the chunk then
/// doubles or halves to take about [`CHUNK_TIME`].
const FIRST_CHUNK_TICKS: u64 = 64;
/// Most ticks between looks at the clock.
const MAX_CHUNK_TICKS: u64 = 4_096;
/// What a chunk of ticks should take.
const CHUNK_TIME: Duration = Duration::from_millis(2);
/// Most frames a replay keeps in memory; the rest spill to disk. The live
/// world's recording is still in memory while the replay runs, so the
/// replay keeps little (the exports of a spilled and an in-memory
/// recording are the same bytes); the snapshot's own bound applies again
/// once the restored world replaces the live one.
const REPLAY_MEMORY_FRAMES: usize = 10_000;

fn config_json(j: JournalCtx<'_>) -> Value {
    let c = j.config;
    let mut v = value(&RestoreConfig {
        scenario: &c.scenario,
        seed: c.seed,
        profile: c.profile.as_deref(),
        tick_s: c.tick_s,
        step_period_s: c.step_period_s,
        paused: c.paused,
        time_scale: c.time_scale,
        deterministic: c.deterministic,
        record_sensor_data: c.record_sensor_data,
        record_period_s: c.record_period_s,
        record_memory_frames: c.record_memory_frames,
        record_memory_bytes: c.record_memory_bytes,
    });
    // Files the run was started from travel as their documents: loading
    // the snapshot then opens no path (and works on another machine).
    if !scenario::builtin_names().contains(&c.scenario.as_str()) {
        let loaded = j.read.world.resource(j.read.h.scene).scenario.clone();
        v["scenario_document"] = serde_json::to_value(&loaded.scenario).unwrap_or(Value::Null);
    }
    let builtin = VehicleProfile::builtin_names();
    let profiles: serde_json::Map<String, Value> = j
        .profiles
        .iter()
        .filter(|(name, _)| !builtin.contains(&name.as_str()))
        .filter_map(|(name, pm)| Some((name.clone(), serde_json::to_value(&*pm.profile).ok()?)))
        .collect();
    if !profiles.is_empty() {
        v["profile_documents"] = Value::Object(profiles);
    }
    v
}

/// `message` as a JSON value, its keys sorted as a snapshot's `restore`
/// has always had them (plain data: serialising it cannot fail).
fn value<T: serde::Serialize>(message: &T) -> Value {
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// `restore.config`: what the restored world is built from (SI units:
/// s, bytes).
#[derive(serde::Serialize)]
struct RestoreConfig<'a> {
    scenario: &'a str,
    seed: u64,
    profile: Option<&'a str>,
    tick_s: f64,
    step_period_s: f64,
    paused: bool,
    time_scale: f64,
    deterministic: bool,
    record_sensor_data: bool,
    record_period_s: Option<f64>,
    record_memory_frames: usize,
    record_memory_bytes: usize,
}

/// `restore` of a snapshot whose journal was too long to keep.
#[derive(serde::Serialize)]
struct Unrestorable<'a> {
    restorable: bool,
    reason: &'a str,
}

/// `restore` before its journal's entries.
#[derive(serde::Serialize)]
struct RestoreHead {
    schema: &'static str,
    version: u32,
    restorable: bool,
    config: Value,
    ticks: u64,
    recording_started_unix_ns: u64,
    journal: [Value; 0],
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
        // The server's own budget, never the file's.
        export_budget_bytes: crate::DiskBudget::of(&export_root).limit(),
        // Where samples render changes none of them: not in the file.
        renders_in_flight: crate::MAX_RENDERS_IN_FLIGHT,
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
                .filter(|n| (1..=crate::MAX_RECORDED_SAMPLES).contains(n))
                .ok_or_else(|| {
                    bad(format!(
                        "restore.config.record_memory_frames must be an integer from 1 to {}",
                        crate::MAX_RECORDED_SAMPLES
                    ))
                })?,
        },
        // A file cannot lift the memory bound past the default (the
        // restored world, and the replay beside the live one, keep to it);
        // it changes what stays in memory, not what is exported.
        record_memory_bytes: match &v["record_memory_bytes"] {
            Value::Null => crate::MAX_RECORDED_BYTES,
            n => n
                .as_u64()
                .filter(|n| *n >= crate::MIN_RECORD_MEMORY_BYTES as u64)
                .map(|n| {
                    usize::try_from(n)
                        .unwrap_or(usize::MAX)
                        .min(crate::MAX_RECORDED_BYTES)
                })
                .ok_or_else(|| {
                    bad(format!(
                        "restore.config.record_memory_bytes must be an integer of at least {}",
                        crate::MIN_RECORD_MEMORY_BYTES
                    ))
                })?,
        },
    })
}

impl Simulation {
    /// What a snapshot needs to be loaded back: `{"schema", "version",
    /// "config", "ticks", "journal": [[ticks_before, action, data,
    /// request_id], ...]}`, or `{"restorable": false, "reason"}`.
    pub fn restore_json(&self) -> Value {
        let j = self.journal_ctx();
        let mut v = restore_head(j);
        if v["restorable"] == true {
            v["journal"] = Value::Array(
                journal_lines(j.journal)
                    .map(|l| serde_json::from_str(&l).unwrap_or(Value::Null))
                    .collect(),
            );
        }
        v
    }

    /// The parts a snapshot's `restore` section is written from
    /// ([`JournalCtx`]).
    pub(crate) fn journal_ctx(&self) -> JournalCtx<'_> {
        JournalCtx {
            read: self.read_ctx(),
            config: &self.config,
            profiles: &self.profiles,
            journal: &self.journal,
            ticks_run: self.ticks_run,
        }
    }

    /// [`Simulation::journal_ctx`] beside the exports' counter, which
    /// saving a snapshot counts on (borrowed apart, so the two are built
    /// here together).
    pub(crate) fn journal_and_exports(&mut self) -> (JournalCtx<'_>, &mut Exports) {
        let j = JournalCtx {
            read: ReadCtx {
                world: &self.world,
                h: &self.h,
                agents: &self.agents,
            },
            config: &self.config,
            profiles: &self.profiles,
            journal: &self.journal,
            ticks_run: self.ticks_run,
        };
        (j, &mut self.exports)
    }

    /// The simulation a snapshot saved (its `restore` section), rebuilt by
    /// replaying its journal; exports go under `export_root`. The result
    /// equals the saved simulation bit for bit and goes on the same way.
    /// Bounded by [`MAX_RESTORE_TICKS`] and [`RESTORE_TIME_LIMIT`].
    pub fn from_snapshot(snapshot: &Value, export_root: PathBuf) -> Result<Simulation> {
        Simulation::from_snapshot_text(snapshot.to_string(), export_root)
    }

    /// [`Simulation::from_snapshot`] from the file's text (read as it is:
    /// only its `restore` section is parsed, the journal entry by entry).
    pub fn from_snapshot_text(text: String, export_root: PathBuf) -> Result<Simulation> {
        let mut replay = Replay::begin_text(text, export_root)?;
        while !replay.run_for(RESTORE_TIME_LIMIT)? {}
        Ok(replay.finish())
    }
}

/// [`Simulation::restore_json`] without its journal.
fn restore_head(j: JournalCtx<'_>) -> Value {
    if let Some(why) = &j.journal.full {
        return value(&Unrestorable {
            restorable: false,
            reason: why,
        });
    }
    value(&RestoreHead {
        schema: JOURNAL_SCHEMA,
        version: 1,
        restorable: true,
        config: config_json(j),
        ticks: j.ticks_run,
        recording_started_unix_ns: j.read.world.resource(j.read.h.recorder).started_unix_ns(),
        journal: [],
    })
}

/// Each journal entry as one line of compact JSON.
fn journal_lines(journal: &Journal) -> impl Iterator<Item = String> + '_ {
    journal.entries.iter().map(|e| {
        let id = serde_json::to_string(&e.request_id).unwrap_or_else(|_| "null".into());
        format!("[{},\"{}\",{},{id}]", e.at, e.name.as_str(), e.data)
    })
}

/// A snapshot file: `readable` (the state, pretty) with the `restore`
/// section, its journal one compact entry a line (a pretty journal
/// would put every number of every force on a line of its own, and
/// snapshot files are bounded in bytes).
pub(crate) fn snapshot_text(j: JournalCtx<'_>, mut readable: Value) -> String {
    let mut head = restore_head(j);
    if head["restorable"] != true {
        readable["restore"] = head;
        return serde_json::to_string_pretty(&readable).unwrap_or_default();
    }
    // A token marks where the journal goes; one the file already holds
    // elsewhere (a loaded document may hold any string) is passed over.
    (0u64..)
        .find_map(|n| {
            let token = format!("\"@@oceansim-journal-{n}@@\"");
            head["journal"] = Value::String(token[1..token.len() - 1].to_owned());
            readable["restore"] = head.clone();
            let text = serde_json::to_string_pretty(&readable).unwrap_or_default();
            (text.matches(token.as_str()).count() == 1).then(|| {
                let lines: Vec<String> = journal_lines(j.journal).collect();
                let journal = if lines.is_empty() {
                    "[]".to_owned()
                } else {
                    format!("[\n{}\n    ]", lines.join(",\n"))
                };
                text.replacen(&token, &journal, 1)
            })
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A snapshot cannot lift the recording's memory bound: a forged
    /// `u64::MAX` comes back as the default; below 1 MiB is refused.
    #[test]
    fn a_snapshot_cannot_lift_the_memory_bound() {
        let root = PathBuf::from("unused");
        let sim = Simulation::new(SimConfig::default()).unwrap();
        let mut v = config_json(sim.journal_ctx());
        v["record_memory_bytes"] = json!(u64::MAX);
        let c = config_from(&v, root.clone()).unwrap();
        assert_eq!(c.record_memory_bytes, crate::MAX_RECORDED_BYTES);
        v["record_memory_bytes"] = json!(4 << 20);
        assert_eq!(
            config_from(&v, root.clone()).unwrap().record_memory_bytes,
            4 << 20
        );
        v["record_memory_bytes"] = json!(1000);
        let e = config_from(&v, root).unwrap_err().to_string();
        assert!(e.contains("record_memory_bytes"), "{e}");
    }
}
