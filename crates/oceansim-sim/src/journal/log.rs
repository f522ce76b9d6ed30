//! The journal of requests that changed the world (what a snapshot replays
//! to rebuild it), and which requests those are.

use oceansim_protocol::{Action, ActionName, RequestId};

/// Most journal bytes kept (about 250,000 `step` requests, or 7 hours of
/// 0.1 s control periods); past it the simulation's snapshots can no
/// longer be restored. Snapshot files hold the journal one compact entry a
/// line, within [`crate::MAX_SNAPSHOT_BYTES`].
pub const MAX_JOURNAL_BYTES: usize = 24 << 20;

/// Whether an action only reads the world.
pub(crate) fn is_query(name: ActionName) -> bool {
    use ActionName as N;
    matches!(
        name,
        N::GetState | N::GetSensors | N::GetAgents | N::GetMapInfo | N::GetTerrainGrid
    )
}

/// One journaled request.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// Ticks run (since the simulation was created) before it.
    pub(super) at: u64,
    pub(super) name: ActionName,
    /// The payload as JSON, serialised once (its length is its cost).
    pub(super) data: Box<str>,
    pub(super) request_id: Option<RequestId>,
}

/// The requests that changed the world.
#[derive(Debug, Clone, Default)]
pub(crate) struct Journal {
    pub(super) entries: Vec<Entry>,
    pub(super) bytes: usize,
    /// Why the journal stopped, if it did.
    pub(super) full: Option<String>,
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
    (!is_query(name) || name == N::GetSensors) && !output
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
