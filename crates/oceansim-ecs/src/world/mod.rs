//! The World: struct-of-arrays component storage over N entities.

use crate::error::{closest, EcsError, Result};
use crate::manifold::{Flat, Manifold};
use crate::system::{Monitor, System, Tracked};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Component(usize),
    Object(usize),
    Resource(usize),
}

/// What one system declared, resolved to the world's slots: checked
/// while it runs, in debug builds (`guard.rs`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Declared {
    system: String,
    reads: std::collections::BTreeSet<Slot>,
    writes: std::collections::BTreeSet<Slot>,
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
    /// What the running system declared (debug builds; see `guard`).
    guard: RefCell<Option<Arc<Declared>>>,
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
            guard: RefCell::new(None),
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
        self.guard_access(Slot::Component(h.index), false);
        Ref::map(self.cell(h).borrow(), Vec::as_slice)
    }

    /// Mutable view of a component's array.
    ///
    /// Panics if the component is being read or written elsewhere.
    pub fn write<T: Element>(&self, h: Handle<T>) -> RefMut<'_, [T]> {
        self.guard_access(Slot::Component(h.index), true);
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
}

mod entities;
mod guard;
mod objects;
mod systems;
#[cfg(test)]
mod tests;
