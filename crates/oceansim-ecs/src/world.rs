//! The World: struct-of-arrays component storage over N entities.

use crate::error::{closest, EcsError, Result};
use crate::manifold::{Flat, Manifold};
use crate::monitor::{Monitor, Tracked};
use crate::system::System;
use serde_json::{Map, Value};
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::BTreeMap;
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

/// The single home of all simulation data: named component arrays of shape
/// (N, *dim), integrated states with their manifolds, static run parameters,
/// registered systems and monitors, and the clock.
///
/// Arrays are row-major: entity `i` of a component with stride `s` occupies
/// `[i * s, (i + 1) * s)`. Access is checked at run time (a system cannot
/// write an array another borrow is reading), once per system call rather
/// than per entity.
pub struct World {
    n: usize,
    pub(crate) components: Vec<Component>,
    by_name: BTreeMap<String, usize>,
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
        World {
            n,
            components: Vec::new(),
            by_name: BTreeMap::new(),
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

    fn register<T: Element>(
        &mut self,
        name: &str,
        dim: &[usize],
        init: Option<&[T]>,
    ) -> Result<Handle<T>> {
        if self.by_name.contains_key(name) {
            return Err(EcsError::DuplicateComponent(name.to_owned()));
        }
        if name.is_empty() {
            return Err(EcsError::Invalid(
                "component names must not be empty".into(),
            ));
        }
        let stride: usize = dim.iter().product();
        let total = self.n * stride;
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
        });
        self.by_name.insert(name.to_owned(), index);
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

    /// Whether a component exists.
    pub fn has(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    pub(crate) fn index_of(&self, name: &str) -> Result<usize> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| EcsError::UnknownComponent {
                name: name.to_owned(),
                hint: closest(name, self.by_name.keys().map(String::as_str)),
            })
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
    fn live_access_by_handle_and_name() {
        let mut w = World::new(2);
        let p = w.add("p", &[2], None).unwrap();
        w.write(p)[3] = 5.0;
        assert_eq!(w.get::<f64>("p").unwrap()[3], 5.0);
        w.get_mut::<f64>("p").unwrap()[0] = 1.0;
        assert_eq!(w.read(p)[0], 1.0);
    }
}
