//! Entities that come and go: stable ids, O(1) rows, dense storage.

use super::*;

impl World {
    /// The row holding `entity`'s data, if it is alive (O(1)).
    pub fn row(&self, entity: Entity) -> Option<usize> {
        self.rows.get(&entity).copied()
    }

    /// The entity in row `row`.
    ///
    /// Panics if `row >= len()`.
    pub fn entity(&self, row: usize) -> Entity {
        self.ids[row]
    }

    /// Live entities in row order.
    pub fn entities(&self) -> &[Entity] {
        &self.ids
    }

    /// Whether `entity` is alive.
    pub fn contains(&self, entity: Entity) -> bool {
        self.rows.contains_key(&entity)
    }

    /// Adds an entity at the end of every array: each component starts
    /// from its default row (the broadcast value it was registered with, or
    /// zeros), each object component from `None`. Returns its new id.
    pub fn spawn(&mut self) -> Entity {
        let e = Entity(self.next_id);
        self.next_id += 1;
        for c in &self.components {
            c.data.push_row(&c.default_row);
        }
        for o in &self.objects {
            o.store.push_none();
        }
        self.rows.insert(e, self.n);
        self.ids.push(e);
        self.n += 1;
        e
    }

    /// [`World::spawn`], with the new entity's row (the last).
    pub fn spawn_row(&mut self) -> (Entity, usize) {
        let e = self.spawn();
        (e, self.n - 1)
    }

    /// Removes `entity`: its rows are overwritten by the last entity's,
    /// which keeps its id (so rows stay dense and ids stay valid).
    pub fn despawn(&mut self, entity: Entity) -> Result<()> {
        let row = self
            .rows
            .remove(&entity)
            .ok_or_else(|| EcsError::Invalid(format!("{entity} is not alive")))?;
        for c in &self.components {
            c.data.swap_remove_row(row, c.stride);
        }
        for o in &self.objects {
            o.store.swap_remove(row);
        }
        self.ids.swap_remove(row);
        self.n -= 1;
        if let Some(moved) = self.ids.get(row) {
            self.rows.insert(*moved, row);
        }
        Ok(())
    }

    /// Queues a despawn from inside a system (which sees the world shared);
    /// the engine applies queued despawns at the end of the tick.
    pub fn defer_despawn(&self, entity: Entity) {
        self.deferred.borrow_mut().push(entity);
    }

    /// Applies queued despawns (entities already gone are skipped); returns
    /// how many entities were removed.
    pub fn apply_deferred(&mut self) -> usize {
        let queued = std::mem::take(&mut *self.deferred.borrow_mut());
        queued
            .into_iter()
            .filter(|e| self.despawn(*e).is_ok())
            .count()
    }

    /// Sets the default row spawned entities of component `name` start with.
    pub fn set_default_row<T: Element>(&mut self, h: Handle<T>, row: &[T]) -> Result<()> {
        let c = &mut self.components[h.index];
        if row.len() != c.stride {
            return Err(EcsError::Shape {
                name: c.name.clone(),
                expected: format!("{} values", c.stride),
                got: format!("{} values", row.len()),
            });
        }
        c.default_row = T::wrap(row.to_vec());
        Ok(())
    }

    /// Copies `values` into `entity`'s row of a component.
    pub fn set_row<T: Element>(&self, h: Handle<T>, entity: Entity, values: &[T]) -> Result<()> {
        let row = self
            .row(entity)
            .ok_or_else(|| EcsError::Invalid(format!("{entity} is not alive")))?;
        let s = h.stride;
        if values.len() != s {
            return Err(EcsError::Shape {
                name: self.components[h.index].name.clone(),
                expected: format!("{s} values"),
                got: format!("{} values", values.len()),
            });
        }
        self.write(h)[row * s..(row + 1) * s].copy_from_slice(values);
        Ok(())
    }

    /// A copy of `entity`'s row of a component.
    pub fn get_row<T: Element>(&self, h: Handle<T>, entity: Entity) -> Option<Vec<T>> {
        let row = self.row(entity)?;
        let s = h.stride;
        Some(self.read(h)[row * s..(row + 1) * s].to_vec())
    }
}
