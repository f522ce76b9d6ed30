//! The World: struct-of-arrays component storage over N entities.

use crate::error::{closest, EcsError, Result};
use crate::manifold::{Flat, Manifold};
use crate::monitor::{Monitor, Tracked};
use crate::system::System;
use serde_json::{Map, Value};
use std::any::Any;
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// Element types a component may hold.
pub trait Element: Copy + Default + fmt::Debug + 'static + private::Sealed {
    /// Name of the type, as in numpy (`f64`, `i64`, `bool`).
    const DTYPE: &'static str;
    #[doc(hidden)]
    fn column(data: &ColumnData) -> Option<&RefCell<Vec<Self>>>;
    #[doc(hidden)]
    fn wrap(v: Vec<Self>) -> ColumnData;
}

mod private {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for i64 {}
    impl Sealed for bool {}
}

/// The storage of one component.
#[doc(hidden)]
#[derive(Debug)]
pub enum ColumnData {
    F64(RefCell<Vec<f64>>),
    I64(RefCell<Vec<i64>>),
    Bool(RefCell<Vec<bool>>),
}

impl ColumnData {
    fn dtype(&self) -> &'static str {
        match self {
            ColumnData::F64(_) => f64::DTYPE,
            ColumnData::I64(_) => i64::DTYPE,
            ColumnData::Bool(_) => bool::DTYPE,
        }
    }

    /// Appends one row copied from `default` (same variant, `stride` long).
    fn push_row(&self, default: &ColumnData) {
        match (self, default) {
            (ColumnData::F64(c), ColumnData::F64(d)) => {
                c.borrow_mut().extend_from_slice(&d.borrow())
            }
            (ColumnData::I64(c), ColumnData::I64(d)) => {
                c.borrow_mut().extend_from_slice(&d.borrow())
            }
            (ColumnData::Bool(c), ColumnData::Bool(d)) => {
                c.borrow_mut().extend_from_slice(&d.borrow())
            }
            // The default row is built with its column, so variants agree.
            _ => unreachable!("default row of another dtype"),
        }
    }

    /// Removes row `row` by moving the last row into its place.
    fn swap_remove_row(&self, row: usize, stride: usize) {
        fn go<T: Copy>(v: &mut Vec<T>, row: usize, stride: usize) {
            if stride == 0 {
                return;
            }
            let last = v.len() / stride - 1;
            if row != last {
                let (head, tail) = v.split_at_mut(last * stride);
                head[row * stride..(row + 1) * stride].copy_from_slice(&tail[..stride]);
            }
            v.truncate(last * stride);
        }
        match self {
            ColumnData::F64(c) => go(&mut c.borrow_mut(), row, stride),
            ColumnData::I64(c) => go(&mut c.borrow_mut(), row, stride),
            ColumnData::Bool(c) => go(&mut c.borrow_mut(), row, stride),
        }
    }
}

macro_rules! element {
    ($t:ty, $variant:ident, $name:literal) => {
        impl Element for $t {
            const DTYPE: &'static str = $name;
            fn column(data: &ColumnData) -> Option<&RefCell<Vec<Self>>> {
                match data {
                    ColumnData::$variant(c) => Some(c),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> ColumnData {
                ColumnData::$variant(RefCell::new(v))
            }
        }
    };
}
element!(f64, F64, "f64");
element!(i64, I64, "i64");
element!(bool, Bool, "bool");

/// A registered component: an array of shape (N, *dim).
#[derive(Debug)]
pub struct Component {
    pub(crate) name: String,
    pub(crate) dim: Vec<usize>,
    pub(crate) stride: usize,
    pub(crate) data: ColumnData,
    pub(crate) initialized: bool,
    /// The row a spawned entity starts with.
    pub(crate) default_row: ColumnData,
}

impl Component {
    /// Component name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Per-entity shape (empty for a scalar per entity).
    pub fn dim(&self) -> &[usize] {
        &self.dim
    }
    /// Values per entity (product of `dim`).
    pub fn stride(&self) -> usize {
        self.stride
    }
    /// Element type name.
    pub fn dtype(&self) -> &'static str {
        self.data.dtype()
    }
    /// Whether it was given initial values (rather than zero-filled).
    pub fn initialized(&self) -> bool {
        self.initialized
    }
}

/// A typed, resolved reference to a component: look the name up once, then
/// access by index on the hot path.
#[derive(Debug)]
pub struct Handle<T> {
    index: usize,
    stride: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}

impl<T> Handle<T> {
    /// Values per entity.
    pub fn stride(&self) -> usize {
        self.stride
    }
    /// Index of the component in its world.
    pub fn index(&self) -> usize {
        self.index
    }
}

/// An integrated state: a component advanced by `dt * derivative` on its
/// manifold each tick.
#[derive(Debug, Clone)]
pub struct StateSpec {
    /// The state component.
    pub state: String,
    /// The component holding its time derivative (tangent per second).
    pub derivative: String,
    /// How the state is retracted.
    pub manifold: Arc<dyn Manifold>,
}

/// A stable entity id. Ids are handed out in increasing order and never
/// reused within a world's lifetime, so an id held across a despawn can
/// never name a different entity.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Entity(u64);

impl Entity {
    /// The raw id.
    pub const fn id(self) -> u64 {
        self.0
    }
    /// An entity from a raw id (it names a live entity only if the world
    /// handed it out and has not despawned it).
    pub const fn from_raw(id: u64) -> Self {
        Entity(id)
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entity {}", self.0)
    }
}

/// Storage of a column of arbitrary Rust values (one `Option<T>` per row).
trait ObjectStore: Any {
    fn push_none(&self);
    fn swap_remove(&self, row: usize);
    fn type_name(&self) -> &'static str;
    fn as_any(&self) -> &dyn Any;
}

struct ObjectColumn<T>(RefCell<Vec<Option<T>>>);

impl<T: 'static> ObjectStore for ObjectColumn<T> {
    fn push_none(&self) {
        self.0.borrow_mut().push(None);
    }
    fn swap_remove(&self, row: usize) {
        self.0.borrow_mut().swap_remove(row);
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A registered object component: one `Option<T>` per entity, for
/// per-entity data that is not a fixed-size array of numbers (a vehicle
/// model, a controller, a name). Spawned entities start with `None`.
pub(crate) struct Objects {
    pub(crate) name: String,
    store: Box<dyn ObjectStore>,
}

impl Objects {
    pub(crate) fn store_type_name(&self) -> &'static str {
        self.store.type_name()
    }
}

impl Resource {
    pub(crate) fn type_name(&self) -> &'static str {
        self.type_name
    }
}

/// A typed, resolved reference to an object component.
#[derive(Debug)]
pub struct ObjectHandle<T> {
    index: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for ObjectHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ObjectHandle<T> {}

/// A world-wide value shared by the systems that declare it (a clock, a
/// scene, a message channel), scheduled by name like a component.
pub(crate) struct Resource {
    pub(crate) name: String,
    type_name: &'static str,
    value: Box<dyn Any>,
}

/// A typed, resolved reference to a resource.
#[derive(Debug)]
pub struct ResourceHandle<T> {
    index: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for ResourceHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ResourceHandle<T> {}

/// What a name in the world's namespace refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Component(usize),
    Object(usize),
    Resource(usize),
}

/// The single home of all simulation data: named component arrays of shape
/// (N, *dim), object components and resources, integrated states with their
/// manifolds, static run parameters, registered systems and monitors, and
/// the clock.
///
/// Arrays are row-major: the entity in row `i` of a component with stride
/// `s` occupies `[i * s, (i + 1) * s)`. Entities come and go
/// ([`World::spawn`], [`World::despawn`]); rows stay dense (a despawn moves
/// the last row into the gap), and each entity keeps its stable [`Entity`]
/// id, found in O(1) with [`World::row`]. Access is checked at run time (a
/// system cannot write an array another borrow is reading), once per system
/// call rather than per entity.
pub struct World {
    n: usize,
    pub(crate) components: Vec<Component>,
    pub(crate) objects: Vec<Objects>,
    pub(crate) resources: Vec<Resource>,
    by_name: BTreeMap<String, Slot>,
    ids: Vec<Entity>,
    rows: HashMap<Entity, usize>,
    next_id: u64,
    deferred: RefCell<Vec<Entity>>,
    pub(crate) states: Vec<StateSpec>,
    pub(crate) self_integrated: Vec<String>,
    /// Static run metadata (gains, graphs, masks), logged as settings.
    pub params: Map<String, Value>,
    time: Cell<f64>,
    pub(crate) systems: Vec<Box<dyn System>>,
    pub(crate) monitors: Vec<Monitor>,
    pub(crate) tracked: Vec<Tracked>,
    pub(crate) version: u64,
}

impl fmt::Debug for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("World")
            .field("n", &self.n)
            .field(
                "components",
                &self.components.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .field(
                "objects",
                &self.objects.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .field(
                "resources",
                &self.resources.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .field(
                "systems",
                &self
                    .systems
                    .iter()
                    .map(|s| s.name().to_owned())
                    .collect::<Vec<_>>(),
            )
            .field("time", &self.time.get())
            .finish()
    }
}

fn shape_str(n: usize, dim: &[usize]) -> String {
    let mut parts = vec![n.to_string()];
    parts.extend(dim.iter().map(usize::to_string));
    format!("({})", parts.join(", "))
}

impl World {
    /// An empty world of `n` entities at time 0.
    pub fn new(n: usize) -> Self {
        let ids: Vec<Entity> = (0..n as u64).map(Entity).collect();
        let rows = ids.iter().enumerate().map(|(i, e)| (*e, i)).collect();
        World {
            n,
            components: Vec::new(),
            objects: Vec::new(),
            resources: Vec::new(),
            by_name: BTreeMap::new(),
            ids,
            rows,
            next_id: n as u64,
            deferred: RefCell::new(Vec::new()),
            states: Vec::new(),
            self_integrated: Vec::new(),
            params: Map::new(),
            time: Cell::new(0.0),
            systems: Vec::new(),
            monitors: Vec::new(),
            tracked: Vec::new(),
            version: 0,
        }
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the world has no entities.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Simulation time (s).
    pub fn time(&self) -> f64 {
        self.time.get()
    }

    /// Sets the clock (the engine does this each tick).
    pub fn set_time(&self, t: f64) {
        self.time.set(t);
    }

    fn check_new_name(&self, name: &str) -> Result<()> {
        if self.by_name.contains_key(name) {
            return Err(EcsError::DuplicateComponent(name.to_owned()));
        }
        if name.is_empty() {
            return Err(EcsError::Invalid(
                "component names must not be empty".into(),
            ));
        }
        Ok(())
    }

    fn register<T: Element>(
        &mut self,
        name: &str,
        dim: &[usize],
        init: Option<&[T]>,
    ) -> Result<Handle<T>> {
        self.check_new_name(name)?;
        let stride: usize = dim.iter().product();
        let total = self.n * stride;
        // A broadcast value is also what spawned entities start with.
        let default_row = match init {
            Some(v) if v.len() == stride => v.to_vec(),
            _ => vec![T::default(); stride],
        };
        let data = match init {
            None => vec![T::default(); total],
            Some(v) if v.len() == total => v.to_vec(),
            // One entity's value, broadcast to all.
            Some(v) if v.len() == stride => v.iter().copied().cycle().take(total).collect(),
            Some(v) => {
                return Err(EcsError::Shape {
                    name: name.to_owned(),
                    expected: format!(
                        "{} values for shape {} (or {stride} to broadcast)",
                        total,
                        shape_str(self.n, dim)
                    ),
                    got: format!("{} values", v.len()),
                })
            }
        };
        let index = self.components.len();
        self.components.push(Component {
            name: name.to_owned(),
            dim: dim.to_vec(),
            stride,
            data: T::wrap(data),
            initialized: init.is_some(),
            default_row: T::wrap(default_row),
        });
        self.by_name.insert(name.to_owned(), Slot::Component(index));
        self.version += 1;
        Ok(Handle {
            index,
            stride,
            _t: PhantomData,
        })
    }

    /// Registers an `f64` component of shape (N, *dim), zero-filled or
    /// seeded from `init` (N·stride values, or one entity's `stride` values
    /// broadcast to all).
    pub fn add(&mut self, name: &str, dim: &[usize], init: Option<&[f64]>) -> Result<Handle<f64>> {
        self.register(name, dim, init)
    }

    /// Registers an integer component.
    pub fn add_i64(
        &mut self,
        name: &str,
        dim: &[usize],
        init: Option<&[i64]>,
    ) -> Result<Handle<i64>> {
        self.register(name, dim, init)
    }

    /// Registers a boolean component.
    pub fn add_bool(
        &mut self,
        name: &str,
        dim: &[usize],
        init: Option<&[bool]>,
    ) -> Result<Handle<bool>> {
        self.register(name, dim, init)
    }

    /// Registers a component and marks it as integrated state on `manifold`
    /// (flat when `None`), with derivative component `{name}_dot`.
    pub fn add_state(
        &mut self,
        name: &str,
        dim: &[usize],
        init: Option<&[f64]>,
        manifold: Option<Arc<dyn Manifold>>,
    ) -> Result<Handle<f64>> {
        let derivative = format!("{name}_dot");
        self.add_state_with_derivative(name, dim, init, manifold, &derivative)
    }

    /// Like [`World::add_state`] with an explicit derivative component (e.g.
    /// a single integrator's command).
    pub fn add_state_with_derivative(
        &mut self,
        name: &str,
        dim: &[usize],
        init: Option<&[f64]>,
        manifold: Option<Arc<dyn Manifold>>,
        derivative: &str,
    ) -> Result<Handle<f64>> {
        let manifold = manifold.unwrap_or_else(|| Arc::new(Flat));
        manifold.check_state_dim(name, dim)?;
        let h = self.add(name, dim, init)?;
        self.states.push(StateSpec {
            state: name.to_owned(),
            derivative: derivative.to_owned(),
            manifold,
        });
        Ok(h)
    }

    /// Registers state that a system advances itself (e.g. with RK4)
    /// rather than the engine's Euler retraction: like integrated state, it
    /// is loop-carried, so reading it creates no schedule edge; the engine
    /// does not integrate it.
    pub fn add_self_integrated_state(
        &mut self,
        name: &str,
        dim: &[usize],
        init: Option<&[f64]>,
    ) -> Result<Handle<f64>> {
        let h = self.add(name, dim, init)?;
        self.self_integrated.push(name.to_owned());
        Ok(h)
    }

    /// Whether `name` is state (engine-integrated or self-integrated).
    pub fn is_state(&self, name: &str) -> bool {
        self.states.iter().any(|s| s.state == name)
            || self.self_integrated.iter().any(|s| s == name)
    }

    /// Names of all loop-carried state components.
    pub(crate) fn state_names(&self) -> std::collections::BTreeSet<String> {
        self.states
            .iter()
            .map(|s| s.state.clone())
            .chain(self.self_integrated.iter().cloned())
            .collect()
    }

    /// The integrated states.
    pub fn states(&self) -> &[StateSpec] {
        &self.states
    }

    /// The registered components, in registration order.
    pub fn components(&self) -> &[Component] {
        &self.components
    }

    /// A component's metadata by name.
    pub fn component(&self, name: &str) -> Result<&Component> {
        self.index_of(name).map(|i| &self.components[i])
    }

    /// Whether a component, object component or resource has this name
    /// (systems may declare any of them in their access).
    pub fn has(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    fn unknown(&self, name: &str) -> EcsError {
        EcsError::UnknownComponent {
            name: name.to_owned(),
            hint: closest(name, self.by_name.keys().map(String::as_str)),
        }
    }

    pub(crate) fn index_of(&self, name: &str) -> Result<usize> {
        match self.by_name.get(name) {
            Some(Slot::Component(i)) => Ok(*i),
            _ => Err(self.unknown(name)),
        }
    }

    /// Resolves a typed handle once, for hot-path access.
    pub fn handle<T: Element>(&self, name: &str) -> Result<Handle<T>> {
        let index = self.index_of(name)?;
        let c = &self.components[index];
        if T::column(&c.data).is_none() {
            return Err(EcsError::DType {
                name: name.to_owned(),
                actual: c.dtype(),
                requested: T::DTYPE,
            });
        }
        Ok(Handle {
            index,
            stride: c.stride,
            _t: PhantomData,
        })
    }

    fn cell<T: Element>(&self, h: Handle<T>) -> &RefCell<Vec<T>> {
        // Handles are only made by `handle`/`add*` after a dtype check, and
        // components are never removed, so the lookup cannot fail.
        T::column(&self.components[h.index].data).expect("handle dtype checked at creation")
    }

    /// Shared view of a component's array.
    ///
    /// Panics if the component is being written, which a system's declared
    /// access rules out.
    pub fn read<T: Element>(&self, h: Handle<T>) -> Ref<'_, [T]> {
        Ref::map(self.cell(h).borrow(), Vec::as_slice)
    }

    /// Mutable view of a component's array.
    ///
    /// Panics if the component is being read or written elsewhere.
    pub fn write<T: Element>(&self, h: Handle<T>) -> RefMut<'_, [T]> {
        RefMut::map(self.cell(h).borrow_mut(), Vec::as_mut_slice)
    }

    /// Shared view by name (resolves the name; prefer handles in systems).
    pub fn get<T: Element>(&self, name: &str) -> Result<Ref<'_, [T]>> {
        Ok(self.read(self.handle(name)?))
    }

    /// Mutable view by name.
    pub fn get_mut<T: Element>(&self, name: &str) -> Result<RefMut<'_, [T]>> {
        Ok(self.write(self.handle(name)?))
    }

    /// Copies new values into a component (same length required).
    pub fn set(&self, name: &str, values: &[f64]) -> Result<()> {
        let mut dst = self.get_mut::<f64>(name)?;
        if dst.len() != values.len() {
            return Err(EcsError::Shape {
                name: name.to_owned(),
                expected: format!("{} values", dst.len()),
                got: format!("{} values", values.len()),
            });
        }
        dst.copy_from_slice(values);
        Ok(())
    }

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

    /// Registers an object component: one `Option<T>` per entity (`None`
    /// for every existing and newly spawned entity until set).
    pub fn add_object<T: 'static>(&mut self, name: &str) -> Result<ObjectHandle<T>> {
        self.check_new_name(name)?;
        let index = self.objects.len();
        let store = ObjectColumn::<T>(RefCell::new((0..self.n).map(|_| None).collect()));
        self.objects.push(Objects {
            name: name.to_owned(),
            store: Box::new(store),
        });
        self.by_name.insert(name.to_owned(), Slot::Object(index));
        self.version += 1;
        Ok(ObjectHandle {
            index,
            _t: PhantomData,
        })
    }

    /// Resolves an object component's handle by name.
    pub fn object_handle<T: 'static>(&self, name: &str) -> Result<ObjectHandle<T>> {
        let Some(Slot::Object(index)) = self.by_name.get(name).copied() else {
            return Err(self.unknown(name));
        };
        let store = &self.objects[index].store;
        if store.as_any().downcast_ref::<ObjectColumn<T>>().is_none() {
            return Err(EcsError::DType {
                name: name.to_owned(),
                actual: store.type_name(),
                requested: std::any::type_name::<T>(),
            });
        }
        Ok(ObjectHandle {
            index,
            _t: PhantomData,
        })
    }

    fn object_cell<T: 'static>(&self, h: ObjectHandle<T>) -> &RefCell<Vec<Option<T>>> {
        // Handles are made only after a type check and object components
        // are never removed, so the downcast cannot fail.
        &self.objects[h.index]
            .store
            .as_any()
            .downcast_ref::<ObjectColumn<T>>()
            .expect("object handle type checked at creation")
            .0
    }

    /// Shared view of an object component, one slot per row.
    pub fn objects<T: 'static>(&self, h: ObjectHandle<T>) -> Ref<'_, [Option<T>]> {
        Ref::map(self.object_cell(h).borrow(), Vec::as_slice)
    }

    /// Mutable view of an object component.
    pub fn objects_mut<T: 'static>(&self, h: ObjectHandle<T>) -> RefMut<'_, [Option<T>]> {
        RefMut::map(self.object_cell(h).borrow_mut(), Vec::as_mut_slice)
    }

    /// Registers a resource, a single value shared by the systems that
    /// declare its name in their access.
    pub fn insert_resource<T: 'static>(
        &mut self,
        name: &str,
        value: T,
    ) -> Result<ResourceHandle<T>> {
        self.check_new_name(name)?;
        let index = self.resources.len();
        self.resources.push(Resource {
            name: name.to_owned(),
            type_name: std::any::type_name::<T>(),
            value: Box::new(RefCell::new(value)),
        });
        self.by_name.insert(name.to_owned(), Slot::Resource(index));
        self.version += 1;
        Ok(ResourceHandle {
            index,
            _t: PhantomData,
        })
    }

    /// Resolves a resource's handle by name.
    pub fn resource_handle<T: 'static>(&self, name: &str) -> Result<ResourceHandle<T>> {
        let Some(Slot::Resource(index)) = self.by_name.get(name).copied() else {
            return Err(self.unknown(name));
        };
        let r = &self.resources[index];
        if r.value.downcast_ref::<RefCell<T>>().is_none() {
            return Err(EcsError::DType {
                name: name.to_owned(),
                actual: r.type_name,
                requested: std::any::type_name::<T>(),
            });
        }
        Ok(ResourceHandle {
            index,
            _t: PhantomData,
        })
    }

    fn resource_cell<T: 'static>(&self, h: ResourceHandle<T>) -> &RefCell<T> {
        self.resources[h.index]
            .value
            .downcast_ref::<RefCell<T>>()
            .expect("resource handle type checked at creation")
    }

    /// Shared view of a resource.
    pub fn resource<T: 'static>(&self, h: ResourceHandle<T>) -> Ref<'_, T> {
        self.resource_cell(h).borrow()
    }

    /// Mutable view of a resource.
    pub fn resource_mut<T: 'static>(&self, h: ResourceHandle<T>) -> RefMut<'_, T> {
        self.resource_cell(h).borrow_mut()
    }

    /// Names of the object components, in registration order.
    pub fn object_names(&self) -> Vec<&str> {
        self.objects.iter().map(|o| o.name.as_str()).collect()
    }

    /// Names of the resources, in registration order.
    pub fn resource_names(&self) -> Vec<&str> {
        self.resources.iter().map(|r| r.name.as_str()).collect()
    }

    /// Registers a system and collects its monitors, tracked scalars and
    /// params (a param key already set is an error).
    pub fn add_system(&mut self, mut system: impl System + 'static) -> Result<()> {
        let name = system.name().to_owned();
        if self.systems.iter().any(|s| s.name() == name) {
            return Err(EcsError::DuplicateSystem(name));
        }
        for (k, v) in system.params() {
            if self.params.contains_key(&k) {
                return Err(EcsError::Invalid(format!(
                    "system `{name}` sets param `{k}`, which is already set"
                )));
            }
            self.params.insert(k, v);
        }
        self.monitors.extend(system.monitors());
        self.tracked.extend(system.tracked());
        self.systems.push(Box::new(system));
        self.version += 1;
        Ok(())
    }

    /// Registers a global scalar `source(world)` logged at every log step.
    pub fn track(&mut self, name: &str, source: impl FnMut(&World) -> f64 + 'static) {
        self.tracked.push(Tracked::new(name, source));
    }

    /// Registers a monitor not owned by any system.
    pub fn add_monitor(&mut self, monitor: Monitor) {
        self.monitors.push(monitor);
    }

    /// The monitors.
    pub fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }

    /// Names of the registered systems, in registration order.
    pub fn system_names(&self) -> Vec<String> {
        self.systems.iter().map(|s| s.name().to_owned()).collect()
    }

    /// Components, systems, and the dataflow between them.
    pub fn describe(&self) -> String {
        crate::introspect::describe_world(self)
    }

    /// Dataflow problems: unknown component names first, then suspicious
    /// wiring.
    pub fn check(&self) -> Vec<crate::introspect::Issue> {
        crate::introspect::check_world(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_have_shape_and_broadcast_init() {
        let mut w = World::new(3);
        let p = w.add("p", &[2], Some(&[1.0, 2.0])).unwrap();
        assert_eq!(&*w.read(p), &[1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
        let t = w.add("theta", &[], None).unwrap();
        assert_eq!(w.read(t).len(), 3);
        assert!(!w.component("theta").unwrap().initialized());
        let r = w.add("R", &[3, 3], None).unwrap();
        assert_eq!(r.stride(), 9);
        assert_eq!(w.read(r).len(), 27);
        let k = w.add_i64("k", &[], Some(&[1, 2, 3])).unwrap();
        assert_eq!(&*w.read(k), &[1, 2, 3]);
        let alive = w.add_bool("alive", &[], Some(&[true])).unwrap();
        assert_eq!(&*w.read(alive), &[true, true, true]);
    }

    #[test]
    fn clear_errors() {
        let mut w = World::new(2);
        w.add("p", &[2], None).unwrap();
        assert_eq!(
            w.add("p", &[1], None).unwrap_err().code(),
            "duplicate_component"
        );
        let e = w.add("q", &[2], Some(&[1.0, 2.0, 3.0])).unwrap_err();
        assert_eq!(e.code(), "shape_mismatch");
        assert!(e.to_string().contains("(2, 2)"), "{e}");
        let e = w.handle::<f64>("pp").unwrap_err();
        assert!(e.to_string().contains("did you mean `p`"), "{e}");
        w.add_i64("k", &[], None).unwrap();
        assert_eq!(w.handle::<f64>("k").unwrap_err().code(), "dtype_mismatch");
        assert!(w.set("p", &[1.0]).is_err());
    }

    #[test]
    fn ids_are_stable_and_never_reused_and_rows_stay_dense() {
        let mut w = World::new(3);
        let p = w.add("p", &[2], None).unwrap();
        let q = w.add("q", &[], Some(&[7.0])).unwrap();
        let name = w.add_object::<String>("name").unwrap();
        for (i, e) in w.entities().to_vec().into_iter().enumerate() {
            w.set_row(p, e, &[i as f64, 10.0 * i as f64]).unwrap();
            w.objects_mut(name)[i] = Some(format!("n{i}"));
        }
        let e0 = w.entity(0);
        w.despawn(e0).unwrap();
        // The last entity moved into row 0 and kept its id and data.
        assert_eq!(w.len(), 2);
        assert_eq!(w.entity(0), Entity::from_raw(2));
        assert_eq!(w.row(Entity::from_raw(2)), Some(0));
        assert_eq!(&*w.read(p), &[2.0, 20.0, 1.0, 10.0]);
        assert_eq!(w.objects(name)[0].as_deref(), Some("n2"));
        assert!(w.despawn(e0).is_err(), "despawning twice is an error");
        assert_eq!(w.row(e0), None);
        // A new entity gets a fresh id and the registered default row.
        let e3 = w.spawn();
        assert_eq!(e3.id(), 3);
        assert_eq!(w.get_row(q, e3), Some(vec![7.0]));
        assert_eq!(w.get_row(p, e3), Some(vec![0.0, 0.0]));
        assert!(w.objects(name)[2].is_none());
        // Deferred despawns apply later and skip the dead.
        w.defer_despawn(Entity::from_raw(1));
        w.defer_despawn(e0);
        assert_eq!(w.len(), 3);
        assert_eq!(w.apply_deferred(), 1);
        assert_eq!(w.entities(), &[Entity::from_raw(2), e3]);
        assert_eq!(&*w.read(p), &[2.0, 20.0, 0.0, 0.0]);
    }

    #[test]
    fn resources_and_objects_are_typed_and_named() {
        let mut w = World::new(1);
        let clock = w.insert_resource("clock", 5u64).unwrap();
        *w.resource_mut(clock) += 1;
        assert_eq!(*w.resource(clock), 6);
        assert!(w.has("clock"));
        assert_eq!(
            w.resource_handle::<f64>("clock").unwrap_err().code(),
            "dtype_mismatch"
        );
        assert_eq!(
            w.insert_resource("clock", 1u8).unwrap_err().code(),
            "duplicate_component"
        );
        w.add_object::<Vec<u8>>("blob").unwrap();
        assert!(w.object_handle::<Vec<u8>>("blob").is_ok());
        assert!(w.object_handle::<String>("blob").is_err());
        let e = w.object_handle::<String>("blbo").unwrap_err();
        assert!(e.to_string().contains("did you mean `blob`"), "{e}");
    }

    #[test]
    fn live_access_by_handle_and_name() {
        let mut w = World::new(2);
        let p = w.add("p", &[2], None).unwrap();
        w.write(p)[3] = 5.0;
        assert_eq!(w.get::<f64>("p").unwrap()[3], 5.0);
        w.get_mut::<f64>("p").unwrap()[0] = 1.0;
        assert_eq!(w.read(p)[0], 1.0);
    }
}
