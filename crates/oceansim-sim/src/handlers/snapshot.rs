//! `save_snapshot_json` and `load_snapshot`: a snapshot file under the
//! export root (the readable state and the journal that rebuilds it), and
//! the world rebuilt from one. Also what exports share with them: no file
//! is written inside an exported run.

use super::{Outcome, Reply};
use crate::bookkeeping::Exports;
use crate::ctx::JournalCtx;
use crate::journal::snapshot_text;
use crate::replies::snapshot;
use crate::simulation::Simulation;
use oceansim_protocol::payload::{LoadSnapshot, SaveSnapshot};
use oceansim_protocol::reply::SnapshotSaved;
use oceansim_protocol::ProtocolError;
use oceansim_record::safe_fs::{split_rel, SafeDir};
use std::io::Write;
use std::path::PathBuf;

/// `save_snapshot_json`: written atomically inside the export root.
pub(super) fn save_snapshot(j: JournalCtx<'_>, exports: &mut Exports, s: SaveSnapshot) -> Outcome {
    let (cx, root) = (j.read, &j.config.export_root);
    let tick = cx.world.resource(cx.h.clock).tick;
    if let Some(p) = &s.path {
        check_snapshot_path(p)?;
    }
    let mut rel = s
        .path
        .unwrap_or_else(|| format!("snapshots/snapshot_{tick:08}.json"));
    if !rel.ends_with(".json") {
        rel.push_str(".json");
    }
    let parts = split_rel(&rel)?;
    exports.counter += 1;
    let Some((name, up)) = parts.split_last() else {
        return Err(ProtocolError::InvalidMessage(format!(
            "`{rel}` names no file"
        )));
    };
    refuse_inside_run(root, up)?;
    let dir = SafeDir::open(root, up)?;
    // The readable state, and the journal that loads it back bit for bit.
    let readable = serde_json::to_value(snapshot(cx, j.config.deterministic))
        .map_err(|e| ProtocolError::InvalidMessage(format!("snapshot: {e}")))?;
    let text = snapshot_text(j, readable);
    let bytes = dir.write(name, |w| w.write_all(text.as_bytes()))?;
    Reply::ok(SnapshotSaved {
        status: "ok".into(),
        path: dir.file_path(name).display().to_string(),
        bytes,
    })
}

/// A snapshot's path names a file by plain components: no `.` or `..`
/// (which `.json` appended to would otherwise turn into files named
/// `...json` or `.json`), no trailing `/`.
fn check_snapshot_path(p: &str) -> Result<(), ProtocolError> {
    // Split by hand: `Path::components` drops a `.` (`x/.` is `x`).
    let plain = p.split('/').all(|c| !c.is_empty() && c != "." && c != "..");
    if !plain {
        return Err(ProtocolError::InvalidMessage(format!(
            "snapshot path `{p}` must name a file by plain components, without `.`, `..` or a trailing `/`"
        )));
    }
    Ok(())
}

/// Reads a snapshot under the export root `root` and checks it whole: the
/// replay that rebuilds its world, not yet run, and the file's path.
pub(crate) fn begin_load(
    root: &std::path::Path,
    l: LoadSnapshot,
) -> Result<(crate::journal::Replay, PathBuf), ProtocolError> {
    let parts = split_rel(&l.path)?;
    let Some((name, up)) = parts.split_last() else {
        return Err(ProtocolError::InvalidMessage(format!(
            "`{}` names no file",
            l.path
        )));
    };
    let dir = SafeDir::open(root, up)?;
    let text = dir
        .read_text(name, crate::journal::MAX_SNAPSHOT_BYTES)
        .map_err(|e| {
            ProtocolError::InvalidMessage(format!("cannot read snapshot `{}`: {e}", l.path))
        })?;
    let replay = crate::journal::Replay::begin_text(text, root.to_path_buf())
        .map_err(|e| ProtocolError::InvalidMessage(format!("`{}`: {e}", l.path)))?;
    Ok((replay, dir.file_path(name)))
}

/// Replaces the world with `restored` (loaded from `path`) and answers.
pub(crate) fn install(
    sim: &mut Simulation,
    restored: Simulation,
    path: &std::path::Path,
) -> Outcome {
    // The server holds the cancel flag it was given at start: the restored
    // world's exports answer to the same one. Where its samples render is
    // the server's setting too (the snapshot does not carry it).
    let cancel = sim.exports.cancel.clone();
    let renders_in_flight = sim.config.renders_in_flight;
    *sim = restored;
    sim.exports.cancel = cancel;
    sim.config.renders_in_flight = renders_in_flight;
    sim.world
        .resource_mut(sim.h.recorder)
        .set_renders_in_flight(renders_in_flight);
    Reply::ok(oceansim_protocol::reply::SnapshotLoaded {
        loaded: path.display().to_string(),
        sim_time: sim.sim_time(),
        ticks: sim.ticks_run,
        scenario: sim.scenario_id(),
    })
}

/// `load_snapshot` answered in place (for an embedding caller): the world
/// a `save_snapshot_json` file holds, rebuilt by replaying its journal; on
/// any problem the world is left as it was. Refused inside a batch.
pub(super) fn load_snapshot(
    sim: &mut Simulation,
    budget: &crate::budget::Budget,
    l: LoadSnapshot,
) -> Outcome {
    // A batch's children share one line's budget and see one world; a
    // load replaces the world and may replay for a long time.
    if budget.in_batch() {
        return Err(ProtocolError::InvalidMessage(
            "load_snapshot replaces the world: send it on its own line, not in a batch".into(),
        ));
    }
    let (mut replay, path) = begin_load(&sim.config.export_root, l)?;
    while !replay
        .run_for(crate::journal::RESTORE_TIME_LIMIT)
        .map_err(|e| ProtocolError::InvalidMessage(e.to_string()))?
    {}
    install(sim, replay.finish(), &path)
}

/// Refuses a path under an exported run: its files are the run's, and an
/// export or a snapshot written among them would change a finished run.
pub(super) fn refuse_inside_run(
    root: &std::path::Path,
    up: &[String],
) -> Result<(), ProtocolError> {
    let mut dir = root.to_path_buf();
    for part in up {
        dir.push(part);
        if is_run_dir(&dir) {
            return Err(ProtocolError::InvalidMessage(format!(
                "`{}` is an exported run; its files are not overwritten or added to (choose a path outside it)",
                dir.strip_prefix(root).unwrap_or(&dir).display()
            )));
        }
    }
    Ok(())
}

/// Whether `path` is a run directory an export wrote (its metadata says
/// so).
pub(super) fn is_run_dir(path: &std::path::Path) -> bool {
    // Read as any file a client points at: no link, no device, bounded.
    let meta = oceansim_record::safe_fs::read_text_nofollow(&path.join("metadata.json"), 1 << 20)
        .unwrap_or_default();
    serde_json::from_str::<serde_json::Value>(&meta)
        .is_ok_and(|m| m["schema"] == "oceansim_dataset")
}
