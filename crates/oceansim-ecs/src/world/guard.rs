//! Checked access (debug builds): while a system runs, the world holds
//! what the system declared, and reading or writing any other component,
//! object component or resource panics, naming the system and the name.
//! The scheduler orders systems by their declarations, so a declaration
//! that drifts from the code it describes would order the tick wrongly
//! without a word; this makes it fail in every test that runs the tick.
//!
//! A write declared covers reads of the same name. Access from outside a
//! system (requests, loggers, monitors) is not checked. Release builds
//! neither record nor check anything.

use super::*;
use std::collections::BTreeSet;

impl World {
    /// What `system` declared it `reads` and `writes`, resolved to slots
    /// (names the world does not hold are left out: the engine refuses
    /// them before it runs).
    pub(crate) fn declared<'a>(
        &self,
        system: &str,
        reads: impl IntoIterator<Item = &'a String>,
        writes: impl IntoIterator<Item = &'a String>,
    ) -> Arc<Declared> {
        let slots = |names: &mut dyn Iterator<Item = &String>| -> BTreeSet<Slot> {
            names.filter_map(|n| self.by_name.get(n).copied()).collect()
        };
        Arc::new(Declared {
            system: system.to_owned(),
            reads: slots(&mut reads.into_iter()),
            writes: slots(&mut writes.into_iter()),
        })
    }

    /// Checks what the system `declared` touches until the next call
    /// (`None`: nothing is checked). Debug builds only.
    #[inline]
    pub(crate) fn enter(&self, declared: Option<&Arc<Declared>>) {
        if cfg!(debug_assertions) {
            *self.guard.borrow_mut() = declared.cloned();
        }
    }

    /// Panics if a system is running and did not declare `slot` (as a
    /// write, when `write`). Debug builds only.
    #[inline]
    pub(super) fn guard_access(&self, slot: Slot, write: bool) {
        if !cfg!(debug_assertions) {
            return;
        }
        let guard = self.guard.borrow();
        let Some(d) = guard.as_ref() else {
            return;
        };
        if d.writes.contains(&slot) || (!write && d.reads.contains(&slot)) {
            return;
        }
        let name = self
            .by_name
            .iter()
            .find(|(_, s)| **s == slot)
            .map_or("?", |(n, _)| n.as_str());
        let verb = if write { "writes" } else { "reads" };
        panic!(
            "system `{}` {verb} `{name}` without declaring it: add it to the {verb} of its access (checked in debug builds)",
            d.system
        );
    }
}
