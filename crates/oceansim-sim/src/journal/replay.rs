//! Loading a snapshot: the file's `restore` section read without trusting
//! it, and the replay that rebuilds its world in slices.

use super::{
    bad, changes_world, config_from, CHUNK_TIME, FIRST_CHUNK_TICKS, JOURNAL_SCHEMA,
    MAX_CHUNK_TICKS, MAX_RESTORE_TICKS, REPLAY_MEMORY_FRAMES, RESTORE_TIME_LIMIT,
};
use crate::agents::ProfileModel;
use crate::config::SimConfig;
use crate::error::Result;
use crate::simulation::Simulation;
use oceansim_protocol::{Action, ActionName, RequestId, SingleRequest};
use oceansim_scene::scenario::{self, LoadedScenario};
use oceansim_vehicles::VehicleProfile;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A snapshot being replayed: its configuration checked up front, its
/// journal entry by entry as it runs, in slices ([`Replay::run_for`]) so
/// that a server can answer others in between.
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
    /// The saved recording's start (ns since the Unix epoch), taken by
    /// the restored one.
    recording_started_unix_ns: Option<u64>,
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
    /// When the saved recording began on the Unix clock (ns); absent in
    /// snapshots written before it was kept.
    #[serde(default)]
    recording_started_unix_ns: Value,
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
            oceansim_sensors::check_mounts(&p)
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
        if text.len() as u64 > super::MAX_SNAPSHOT_BYTES {
            return Err(bad(format!(
                "larger than {} MiB",
                super::MAX_SNAPSHOT_BYTES >> 20
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
        let recording_started_unix_ns = r.recording_started_unix_ns.as_u64();
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
            recording_started_unix_ns,
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
        let mut recorder = sim.world.resource_mut(sim.h.recorder);
        // The frames the replay recorded land under the replay's bound, as
        // they would have in the tick.
        recorder.settle();
        recorder.set_memory_frames(self.memory_frames);
        if let Some(ns) = self.recording_started_unix_ns {
            recorder.set_started_unix_ns(ns);
        }
        drop(recorder);
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
