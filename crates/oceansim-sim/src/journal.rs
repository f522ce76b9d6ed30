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

use crate::agents::ProfileModel;
use crate::config::SimConfig;
use crate::error::{Result, SimError};
use crate::scene::scenario::{self, LoadedScenario};
use crate::simulation::Simulation;
use oceansim_protocol::{Action, ActionName, RequestId, SingleRequest};
use oceansim_vehicles::VehicleProfile;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most journal bytes kept (about 250,000 `step` requests, or 7 hours of
/// 0.1 s control periods); past it the simulation's snapshots can no
/// longer be restored. Snapshot files hold the journal one compact entry a
/// line, within [`crate::MAX_SNAPSHOT_BYTES`].
pub const MAX_JOURNAL_BYTES: usize = 24 << 20;
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
pub(crate) fn changes_world(name: ActionName) -> bool {
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
        // The id counts too: a string id may be as long as a line.
        let id = e
            .request_id
            .as_ref()
            .map_or(0, |id| serde_json::to_string(id).map_or(0, |t| t.len()));
        let size = 64 + e.data.len() + id;
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

fn config_json(sim: &Simulation) -> Value {
    let c = &sim.config;
    let mut v = json!({
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
    });
    // Files the run was started from travel as their documents: loading
    // the snapshot then opens no path (and works on another machine).
    if !scenario::builtin_names().contains(&c.scenario.as_str()) {
        let loaded = sim.world.resource(sim.h.scene).scenario.clone();
        v["scenario_document"] = serde_json::to_value(&loaded.scenario).unwrap_or(Value::Null);
    }
    let builtin = VehicleProfile::builtin_names();
    let profiles: serde_json::Map<String, Value> = sim
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
    })
}

impl Simulation {
    /// What a snapshot needs to be loaded back: `{"schema", "version",
    /// "config", "ticks", "journal": [[ticks_before, action, data,
    /// request_id], ...]}`, or `{"restorable": false, "reason"}`.
    pub fn restore_json(&self) -> Value {
        let mut v = self.restore_head();
        if v["restorable"] == true {
            v["journal"] = Value::Array(
                self.journal_lines()
                    .map(|l| serde_json::from_str(&l).unwrap_or(Value::Null))
                    .collect(),
            );
        }
        v
    }

    /// [`Simulation::restore_json`] without its journal.
    fn restore_head(&self) -> Value {
        if let Some(why) = &self.journal.full {
            return json!({"restorable": false, "reason": why});
        }
        json!({
            "schema": JOURNAL_SCHEMA,
            "version": 1,
            "restorable": true,
            "config": config_json(self),
            "ticks": self.ticks_run,
            "journal": [],
        })
    }

    /// Each journal entry as one line of compact JSON.
    fn journal_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.journal.entries.iter().map(|e| {
            let id = serde_json::to_string(&e.request_id).unwrap_or_else(|_| "null".into());
            format!("[{},\"{}\",{},{id}]", e.at, e.name.as_str(), e.data)
        })
    }

    /// A snapshot file: `readable` (the state, pretty) with the `restore`
    /// section, its journal one compact entry a line (a pretty journal
    /// would put every number of every force on a line of its own, and
    /// snapshot files are bounded in bytes).
    pub(crate) fn snapshot_text(&self, mut readable: Value) -> String {
        let mut head = self.restore_head();
        let plain = serde_json::to_string_pretty(&readable).unwrap_or_default()
            + &serde_json::to_string(&head).unwrap_or_default();
        // A token the rest of the file does not hold marks where the
        // journal goes (a loaded document may hold any string).
        let token = (0u64..)
            .map(|n| format!("@@oceansim-journal-{n}@@"))
            .find(|t| !plain.contains(t.as_str()))
            .unwrap_or_default();
        let restorable = head["restorable"] == true;
        if restorable {
            head["journal"] = Value::String(token.clone());
        }
        readable["restore"] = head;
        let text = serde_json::to_string_pretty(&readable).unwrap_or_default();
        if !restorable {
            return text;
        }
        let lines: Vec<String> = self.journal_lines().collect();
        let journal = if lines.is_empty() {
            "[]".to_owned()
        } else {
            format!("[\n{}\n    ]", lines.join(",\n"))
        };
        text.replacen(&format!("\"{token}\""), &journal, 1)
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

/// A snapshot being replayed: checked whole up front, then run in slices
/// ([`Replay::run_for`]) so that a server can answer others in between.
pub struct Replay {
    sim: Simulation,
    /// The snapshot's text; the journal's entries point into it.
    text: String,
    /// Where each journal entry lies in the text, in order.
    spans: Vec<(u32, u32)>,
    /// The next entry to replay, and it parsed (once reached).
    next: usize,
    current: Option<EntryRef>,
    /// The tick count of the last entry parsed.
    last: u64,
    /// Ticks run in all when the snapshot was saved.
    ticks: u64,
    started: Instant,
    /// The snapshot's bound on frames in memory (the replay keeps fewer).
    memory_frames: usize,
    /// Ticks run between looks at the clock.
    chunk: u64,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("ticks_run", &self.sim.ticks_run)
            .field("ticks", &self.ticks)
            .finish()
    }
}

/// One journal entry of a snapshot's text, checked when the replay reaches
/// it: its tick count, its action, and where its data and request id lie
/// in the text (a journal costs its text and 8 bytes an entry, not a tree
/// of JSON values).
#[derive(Debug, Clone, Copy)]
struct EntryRef {
    at: u64,
    data: (u32, u32),
    id: (u32, u32),
    name: ActionName,
}

impl EntryRef {
    fn data<'t>(&self, text: &'t str) -> &'t str {
        &text[self.data.0 as usize..(self.data.0 + self.data.1) as usize]
    }

    fn request(&self, text: &str) -> Result<SingleRequest> {
        let data: Value =
            serde_json::from_str(self.data(text)).map_err(|e| bad(format!("journal data: {e}")))?;
        let action = Action::from_data(self.name, data)
            .map_err(|e| bad(format!("journal entry ({}): {e}", self.name.as_str())))?;
        let id = &text[self.id.0 as usize..(self.id.0 + self.id.1) as usize];
        let request_id: Option<RequestId> = serde_json::from_str(id).unwrap_or(None);
        Ok(SingleRequest { request_id, action })
    }
}

/// A snapshot file as loading reads it: only the `restore` section, its
/// journal left as text.
#[derive(serde::Deserialize)]
struct SnapshotText<'a> {
    #[serde(borrow, default)]
    restore: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
struct RestoreText<'a> {
    #[serde(default)]
    schema: Value,
    #[serde(default)]
    version: Value,
    #[serde(default)]
    restorable: Value,
    #[serde(default)]
    reason: Value,
    #[serde(default)]
    config: Value,
    #[serde(default)]
    ticks: Value,
    #[serde(borrow, default)]
    journal: Option<&'a serde_json::value::RawValue>,
}

/// Finds where each entry of a journal (a JSON list) lies in the text,
/// without parsing it: the scan is fast enough for the loop, and each entry
/// is parsed and checked when the replay reaches it ([`parse_entry`]).
struct JournalSeed<'s> {
    base: usize,
    out: &'s mut Vec<(u32, u32)>,
}

impl<'de> serde::de::Visitor<'de> for JournalSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list of journal entries")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<(), A::Error> {
        while let Some(raw) = seq.next_element::<&'de serde_json::value::RawValue>()? {
            let start = raw.get().as_ptr() as usize - self.base;
            self.out.push((start as u32, raw.get().len() as u32));
        }
        Ok(())
    }
}

/// Entry `i` of a journal, whose text is `span` of `text`, checked: a
/// world-changing action (a load, an export or a save in it is forged,
/// and would recurse or write), ticks in order from `last` and at most
/// `ticks`, data its action accepts.
fn parse_entry(text: &str, span: (u32, u32), i: usize, last: u64, ticks: u64) -> Result<EntryRef> {
    use serde_json::value::RawValue;
    let fail = |why: String| bad(format!("journal entry {i}: {why}"));
    let base = text.as_ptr() as usize;
    let raw = &text[span.0 as usize..(span.0 + span.1) as usize];
    let (at, name, data, id): (Value, Value, &RawValue, &RawValue) =
        serde_json::from_str(raw).map_err(|e| fail(e.to_string()))?;
    let at = at.as_u64().ok_or_else(|| fail("no tick count".into()))?;
    let name = name
        .as_str()
        .and_then(ActionName::parse)
        .ok_or_else(|| fail(format!("unknown action {}", short(&name))))?;
    if !changes_world(name) {
        return Err(fail(format!(
            "`{}` does not change the world and is never journaled",
            name.as_str()
        )));
    }
    if at < last || at > ticks {
        return Err(fail("ticks out of order".into()));
    }
    let value: Value = serde_json::from_str(data.get()).map_err(|e| fail(e.to_string()))?;
    Action::from_data(name, value).map_err(|e| fail(format!("({}): {e}", name.as_str())))?;
    let span_of = |r: &RawValue| {
        let start = r.get().as_ptr() as usize - base;
        (start as u32, r.get().len() as u32)
    };
    Ok(EntryRef {
        at,
        data: span_of(data),
        id: span_of(id),
        name,
    })
}

/// The scenario and profiles a snapshot's configuration names, from
/// shipped names or the documents it carries, never from a path.
fn sources(
    config: &SimConfig,
    v: &Value,
) -> Result<(Arc<LoadedScenario>, BTreeMap<String, ProfileModel>)> {
    let loaded = if scenario::builtin_names().contains(&config.scenario.as_str()) {
        scenario::load(&config.scenario)?
    } else {
        let doc = v.get("scenario_document").filter(|d| d.is_object()).ok_or_else(|| {
            bad(format!(
                "restore.config.scenario `{}` is not a shipped scenario ({}) and the snapshot carries no scenario_document; a snapshot never makes the server open a file",
                config.scenario,
                scenario::builtin_names().join(", ")
            ))
        })?;
        scenario::parse(&doc.to_string()).map_err(|e| bad(format!("scenario_document: {e}")))?
    };
    let mut profiles = BTreeMap::new();
    if let Some(docs) = v.get("profile_documents") {
        let docs = docs
            .as_object()
            .ok_or_else(|| bad("restore.config.profile_documents is not an object"))?;
        for (name, doc) in docs {
            let p = VehicleProfile::from_json_str(&doc.to_string())
                .map_err(|e| bad(format!("profile_documents.{name}: {e}")))?;
            crate::sensors::check_mounts(&p)
                .map_err(|e| bad(format!("profile_documents.{name}: {e}")))?;
            profiles.insert(name.clone(), ProfileModel::new(p));
        }
    }
    // Every profile the world will load must be shipped or carried.
    let builtin = VehicleProfile::builtin_names();
    let main = crate::simulation::main_profile_name(&loaded, config.profile.as_deref());
    let named = std::iter::once(main).chain(loaded.agents.iter().filter_map(|a| a.profile.clone()));
    for name in named {
        if !builtin.contains(&name.as_str()) && !profiles.contains_key(&name) {
            return Err(bad(format!(
                "profile `{name}` is not a shipped profile ({}) and the snapshot carries no document for it",
                builtin.join(", ")
            )));
        }
    }
    Ok((Arc::new(loaded), profiles))
}

impl Replay {
    /// Checks a snapshot (its `restore` section) whole and builds the
    /// simulation it starts from; nothing is replayed yet.
    pub fn begin(snapshot: &Value, export_root: PathBuf) -> Result<Replay> {
        Replay::begin_text(snapshot.to_string(), export_root)
    }

    /// [`Replay::begin`] from a snapshot file's text, which the replay
    /// keeps: only the `restore` section is parsed, its journal entry by
    /// entry (a snapshot costs about its size in memory).
    pub fn begin_text(text: String, export_root: PathBuf) -> Result<Replay> {
        if text.len() as u64 > crate::MAX_SNAPSHOT_BYTES {
            return Err(bad(format!(
                "larger than {} MiB",
                crate::MAX_SNAPSHOT_BYTES >> 20
            )));
        }
        let file: SnapshotText<'_> =
            serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let Some(raw) = file.restore else {
            return Err(bad("no `restore` section (written by an older version, or not a save_snapshot_json file)"));
        };
        let r: RestoreText<'_> = serde_json::from_str(raw.get())
            .map_err(|e| bad(format!("restore is not an object: {e}")))?;
        if r.restorable == false {
            return Err(bad(r
                .reason
                .as_str()
                .unwrap_or("not restorable")
                .to_owned()));
        }
        if r.schema != JOURNAL_SCHEMA || r.version != 1 {
            return Err(bad(format!(
                "unknown journal format {} v{}",
                short(&r.schema),
                short(&r.version)
            )));
        }
        let mut config = config_from(&r.config, export_root)?;
        config.check()?;
        let memory_frames = config.record_memory_frames;
        config.record_memory_frames = memory_frames.min(REPLAY_MEMORY_FRAMES);
        let ticks = r
            .ticks
            .as_u64()
            .ok_or_else(|| bad("restore.ticks is not an integer"))?;
        if ticks > MAX_RESTORE_TICKS {
            return Err(bad(format!(
                "restore.ticks {ticks} is more than the {MAX_RESTORE_TICKS} ticks a replay may run"
            )));
        }
        let journal = r
            .journal
            .ok_or_else(|| bad("restore.journal is not a list"))?;
        let mut spans = Vec::new();
        let mut de = serde_json::Deserializer::from_str(journal.get());
        serde::Deserializer::deserialize_seq(
            &mut de,
            JournalSeed {
                base: text.as_ptr() as usize,
                out: &mut spans,
            },
        )
        .map_err(|e| bad(format!("restore.journal: {e}")))?;
        spans.shrink_to_fit();
        let (loaded, profiles) = sources(&config, &r.config)?;
        drop(r);
        let sim = Simulation::from_sources(config, loaded, profiles)?;
        Ok(Replay {
            sim,
            text,
            spans,
            next: 0,
            current: None,
            last: 0,
            ticks,
            started: Instant::now(),
            memory_frames,
            chunk: FIRST_CHUNK_TICKS,
        })
    }

    /// Ticks the replay will run in all.
    pub fn total_ticks(&self) -> u64 {
        self.ticks
    }

    /// Ticks replayed so far.
    pub fn ticks_done(&self) -> u64 {
        self.sim.ticks_run
    }

    /// Replays for about `slice` of wall time; `Ok(true)` once the whole
    /// journal has run. Fails once the replay has taken longer than
    /// [`RESTORE_TIME_LIMIT`] in all.
    pub fn run_for(&mut self, slice: Duration) -> Result<bool> {
        let until = Instant::now() + slice;
        loop {
            if self.started.elapsed() > RESTORE_TIME_LIMIT {
                return Err(bad(format!(
                    "the replay took longer than {} s (at tick {} of {}); the world is left as it was",
                    RESTORE_TIME_LIMIT.as_secs(),
                    self.sim.ticks_run,
                    self.ticks
                )));
            }
            if self.current.is_none() && self.next < self.spans.len() {
                let e = parse_entry(
                    &self.text,
                    self.spans[self.next],
                    self.next,
                    self.last,
                    self.ticks,
                )?;
                self.last = e.at;
                self.current = Some(e);
            }
            let next = self.current;
            let target = next.map_or(self.ticks, |e| e.at);
            // A `step` runs ticks of its own: an entry (or the end) before
            // the ticks already run is forged, and would pass the bound.
            if self.sim.ticks_run > target {
                return Err(bad(format!(
                    "journal entry {}: ticks out of order (the replay has run {} ticks, the entry says {target})",
                    self.next, self.sim.ticks_run
                )));
            }
            if self.sim.ticks_run < target {
                let chunk = (target - self.sim.ticks_run).min(self.chunk);
                let t = Instant::now();
                self.sim.tick(chunk);
                // Chunks sized to a few milliseconds whatever a tick costs.
                let took = t.elapsed();
                if took > CHUNK_TIME {
                    self.chunk = (self.chunk / 2).max(1);
                } else if took < CHUNK_TIME / 4 {
                    self.chunk = (self.chunk * 2).min(MAX_CHUNK_TICKS);
                }
            } else if let Some(e) = next {
                let _ = self.sim.handle(e.request(&self.text)?);
                self.current = None;
                self.next += 1;
            } else {
                return Ok(true);
            }
            if Instant::now() >= until {
                return Ok(false);
            }
        }
    }

    /// The restored simulation (call once [`Replay::run_for`] said done),
    /// with the snapshot's own bound on frames in memory again.
    pub fn finish(self) -> Simulation {
        let mut sim = self.sim;
        sim.config.record_memory_frames = self.memory_frames;
        sim.world
            .resource_mut(sim.h.recorder)
            .set_memory_frames(self.memory_frames);
        sim
    }
}

/// A JSON value for an error message, cut short.
fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(64) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string id may be as long as a line: it counts toward the bound,
    /// or ids alone could grow the journal past it.
    #[test]
    fn request_ids_count_toward_the_journal_bound() {
        let mut j = Journal::default();
        let id: RequestId = serde_json::from_value(json!("A".repeat(1 << 20))).unwrap();
        let pause = Action::from_data(ActionName::Pause, json!({})).unwrap();
        for _ in 0..(MAX_JOURNAL_BYTES >> 20) + 1 {
            // Once full, nothing more is prepared.
            if let Some(e) = j.prepare(0, &Some(id.clone()), &pause) {
                j.push(e);
            }
        }
        assert!(j.full.is_some(), "the journal stopped at its bound");
        assert!(j.entries.is_empty());
    }
}
