//! The cost budget of one request line: a single request, or a batch whose
//! children share it. The costly actions draw on it; a child past the
//! budget is answered `invalid_message` naming the limit, and the world is
//! left as it was. The bounds keep one line under ~100 ms of simulation
//! time on a small machine and its reply under [`REPLY_BYTES`]; each
//! counts what the work costs, not what was asked (a grid's cells are
//! cheap, its obstacles are what made a fine grid of a crowded scene
//! slow).
//!
//! | resource | bound per line | drawn by |
//! |---|---|---|
//! | reply bytes | [`REPLY_BYTES`] (16 MiB) | every query's reply (`get_state`, `get_sensors`, `get_terrain_grid`, `get_agents`, `get_map_info`) |
//! | grid work | [`GRID_WORK`] (2,000,000 units) | `get_terrain_grid`: a unit per cell, plus, for each obstacle and agent that reaches the slice, a unit per grid row it may cross and per cell of its span on that row (what [`crate::occupancy::classify`] tests) |
//! | scene rebuilds | [`SCENE_REBUILDS`] (16) | `set_scenario`, `generate_map`, `reset` |
//! | exported samples | [`BATCH_EXPORT_SAMPLES`] (10,000, spilled frames included) inside a batch | `export_dataset` (a single export request has no bound: servers run it off the loop) |
//! | snapshot loads | none inside a batch | `load_snapshot` (it replaces the world: a single load is bounded by [`crate::MAX_RESTORE_TICKS`], and servers replay it in slices between other requests, one at a time) |

use oceansim_protocol::ProtocolError;

/// Most reply bytes one line may produce (queries count; commands' small
/// replies do not, so a rejected command never half-happens).
pub const REPLY_BYTES: usize = 16 << 20;
/// Most occupancy-grid work one line may cost, in units of one cell or
/// one footprint test (a grid of 10⁶ cells, the most there are, leaves
/// a million footprint tests).
pub const GRID_WORK: usize = 2_000_000;
/// A single `get_terrain_grid` of at most this many cells is answered in
/// place (a few milliseconds); a larger one is classed on another thread
/// (by servers, as they write exports: see
/// [`crate::Simulation::answer`]), so even a grid at the full
/// budget holds no other client. Inside a batch every grid is answered in
/// place, within the batch's budget.
pub const INLINE_GRID_CELLS: usize = 65_536;
/// Most scene rebuilds one line may cause (~2 ms each).
pub const SCENE_REBUILDS: usize = 16;
/// Most recorded samples an `export_dataset` inside a batch may write
/// (~60 ms); larger exports go on their own line.
pub const BATCH_EXPORT_SAMPLES: usize = 10_000;

/// What is left of one line's budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    reply_bytes: usize,
    grid_work: usize,
    rebuilds: usize,
    in_batch: bool,
}

impl Budget {
    /// The budget of a single request.
    pub fn single() -> Self {
        Budget {
            reply_bytes: REPLY_BYTES,
            grid_work: GRID_WORK,
            rebuilds: SCENE_REBUILDS,
            in_batch: false,
        }
    }

    /// The budget a batch's children share.
    pub fn batch() -> Self {
        Budget {
            in_batch: true,
            ..Self::single()
        }
    }

    /// Whether this budget is shared by a batch.
    pub fn in_batch(&self) -> bool {
        self.in_batch
    }

    /// Grid work units left.
    pub fn grid_work_left(&self) -> usize {
        self.grid_work
    }

    /// Draws `units` of grid work for a grid of `cells` cells (`units`
    /// may be a lower bound of what it would take, when refused).
    pub fn take_grid_work(&mut self, cells: usize, units: usize) -> Result<(), ProtocolError> {
        draw(
            &mut self.grid_work,
            units,
            &format!(
                "a grid of {cells} cells and {} obstacle and agent footprint tests",
                units.saturating_sub(cells)
            ),
            GRID_WORK,
            "grid units, one per cell or test",
        )
    }

    /// Draws one scene rebuild.
    pub fn take_rebuild(&mut self) -> Result<(), ProtocolError> {
        draw(
            &mut self.rebuilds,
            1,
            "another scene rebuild",
            SCENE_REBUILDS,
            "rebuilds",
        )
    }

    /// Draws `bytes` of reply.
    pub fn take_reply_bytes(&mut self, bytes: usize) -> Result<(), ProtocolError> {
        draw(
            &mut self.reply_bytes,
            bytes,
            &format!("a reply of {bytes} bytes"),
            REPLY_BYTES,
            "bytes",
        )
    }

    /// Checks an export of `samples` recorded samples.
    pub fn check_export(&self, samples: usize) -> Result<(), ProtocolError> {
        if self.in_batch && samples > BATCH_EXPORT_SAMPLES {
            return Err(ProtocolError::InvalidMessage(format!(
                "an export of {samples} samples inside a batch exceeds {BATCH_EXPORT_SAMPLES}; \
                 send export_dataset on its own line"
            )));
        }
        Ok(())
    }
}

/// Takes `n` from what is `left` of one allowance (`limit` `unit`s in
/// all), or says which request (`what`) would pass it.
fn draw(
    left: &mut usize,
    n: usize,
    what: &str,
    limit: usize,
    unit: &str,
) -> Result<(), ProtocolError> {
    *left = left.checked_sub(n).ok_or_else(|| {
        ProtocolError::InvalidMessage(format!(
            "{what} exceeds the budget of one request line ({limit} {unit}, {left} left); \
             split the work over several lines"
        ))
    })?;
    Ok(())
}

impl Default for Budget {
    fn default() -> Self {
        Self::single()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_until_empty_and_names_the_limit() {
        let mut b = Budget::batch();
        b.take_grid_work(1_000_000, 1_200_000).unwrap();
        let e = b
            .take_grid_work(1_000_000, 1_500_000)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a grid of 1000000 cells and 500000 obstacle"),
            "{e}"
        );
        assert!(
            e.contains("(2000000 grid units, one per cell or test, 800000 left)"),
            "{e}"
        );
        b.take_grid_work(500_000, 800_000).unwrap();
        assert_eq!(b.grid_work_left(), 0);
        for _ in 0..SCENE_REBUILDS {
            b.take_rebuild().unwrap();
        }
        assert!(b.take_rebuild().is_err());
        assert!(b.check_export(BATCH_EXPORT_SAMPLES + 1).is_err());
        assert!(Budget::single().check_export(1_000_000).is_ok());
        assert!(b.take_reply_bytes(REPLY_BYTES + 1).is_err());
    }
}

#[cfg(test)]
mod send {
    /// Exports are written on another thread.
    #[test]
    fn prepared_exports_are_send() {
        fn is_send<T: Send + 'static>() {}
        is_send::<crate::PreparedExport>();
    }
}
