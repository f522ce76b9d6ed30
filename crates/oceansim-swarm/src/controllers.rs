//! Controllers as systems.

use oceansim_ecs::par::par_rows_mut;
use oceansim_ecs::{Access, EcsError, Handle, Probe, Result, Step, System, World};
use oceansim_math::fields::{l_sigma, ScalarField};
use oceansim_math::graphs::{Graph, SparseLaplacian};
use oceansim_math::gvf::{gvf_e, GvfTrajectory};
use serde::Serialize;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;

fn per_entity(name: &str, v: &[f64], n: usize) -> Result<Vec<f64>> {
    match v.len() {
        1 => Ok(vec![v[0]; n]),
        len if len == n => Ok(v.to_vec()),
        len => Err(EcsError::Shape {
            name: name.into(),
            expected: format!("1 or {n} values"),
            got: format!("{len} values"),
        }),
    }
}

/// Follows y = A sin(ω t) at constant speed s: writes the 2-D command
/// u = [√(s² − ġ²), ġ] with ġ = A ω cos(ω t) (time-driven: reads only the
/// clock). `gamma` (per entity) is the followed offset A sin(ω t) at the
/// last tick, as ssl_simulator tracks it, shared for inspection.
#[derive(Debug)]
pub struct Oscillator {
    out: String,
    a: Vec<f64>,
    omega: Vec<f64>,
    speed: Vec<f64>,
    gamma: Rc<RefCell<Vec<f64>>>,
    h: Option<Handle<f64>>,
}

impl Oscillator {
    /// An oscillator per entity writing component `out` (shape (N, 2)).
    /// Parameters are per entity or one value for all; A·ω must not
    /// exceed s (the lateral speed cannot exceed the total).
    pub fn new(out: &str, n: usize, a: &[f64], omega: &[f64], speed: &[f64]) -> Result<Self> {
        let (a, omega, speed) = (
            per_entity("A", a, n)?,
            per_entity("omega", omega, n)?,
            per_entity("speed", speed, n)?,
        );
        if let Some(i) = (0..n).find(|&i| (a[i] * omega[i]).abs() > speed[i]) {
            return Err(EcsError::Invalid(format!(
                "oscillator {i}: A*omega = {} exceeds speed {}",
                a[i] * omega[i],
                speed[i]
            )));
        }
        Ok(Oscillator {
            out: out.into(),
            a,
            omega,
            speed,
            gamma: Rc::new(RefCell::new(vec![0.0; n])),
            h: None,
        })
    }

    /// A live view of gamma = A sin(ω t) (units of A), updated every tick.
    pub fn gamma(&self) -> Rc<RefCell<Vec<f64>>> {
        self.gamma.clone()
    }
}

impl System for Oscillator {
    fn name(&self) -> &str {
        "oscillator"
    }
    fn access(&self) -> Access {
        Access::new().write(&self.out)
    }
    fn init(&mut self, w: &World) -> Result<()> {
        let h = w.handle::<f64>(&self.out)?;
        if h.stride() != 2 || w.len() != self.a.len() {
            return Err(EcsError::Shape {
                name: self.out.clone(),
                expected: format!("({}, 2)", self.a.len()),
                got: format!("({}, {})", w.len(), h.stride()),
            });
        }
        self.h = Some(h);
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let Some(h) = self.h else { return };
        let mut u = w.write(h);
        let mut gamma = self.gamma.borrow_mut();
        for i in 0..self.a.len() {
            let (s, c) = (self.omega[i] * step.time).sin_cos();
            let g = self.a[i] * self.omega[i] * c;
            let fwd = (self.speed[i] * self.speed[i] - g * g).max(0.0).sqrt();
            u[2 * i] = fwd;
            u[2 * i + 1] = g;
            gamma[i] = self.a[i] * s;
        }
    }
    fn params(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            "oscillator".into(),
            logged(&OscillatorParams {
                a: &self.a,
                omega: &self.omega,
                speed: &self.speed,
            }),
        );
        m
    }
}

/// Writes a constant value to a component every tick.
#[derive(Debug)]
pub struct ConstantSignal {
    name: String,
    out: String,
    value: Vec<f64>,
    h: Option<Handle<f64>>,
}

impl ConstantSignal {
    /// Writes `value` (one entity's values, broadcast, or the whole array)
    /// to `out`.
    pub fn new(name: &str, out: &str, value: &[f64]) -> Self {
        ConstantSignal {
            name: name.into(),
            out: out.into(),
            value: value.to_vec(),
            h: None,
        }
    }
}

impl System for ConstantSignal {
    fn name(&self) -> &str {
        &self.name
    }
    fn access(&self) -> Access {
        Access::new().write(&self.out)
    }
    fn init(&mut self, w: &World) -> Result<()> {
        let h = w.handle::<f64>(&self.out)?;
        let total = w.len() * h.stride();
        if self.value.len() == h.stride() {
            self.value = self.value.iter().copied().cycle().take(total).collect();
        } else if self.value.len() != total {
            return Err(EcsError::Shape {
                name: self.out.clone(),
                expected: format!("{} or {total} values", h.stride()),
                got: format!("{} values", self.value.len()),
            });
        }
        self.h = Some(h);
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        if let Some(h) = self.h {
            w.write(h).copy_from_slice(&self.value);
        }
    }
}

/// Consensus u = −k (L ⊗ I_d) x over a [`Graph`]: sparse (O(E) per
/// tick) on the graph's neighbour lists, rows split across threads for
/// large swarms (results identical to the serial product).
#[derive(Debug)]
pub struct Consensus {
    graph: Graph,
    k: f64,
    state: String,
    out: String,
    h: Option<(Handle<f64>, Handle<f64>)>,
    /// Built from `graph` on first use; dropped whenever the graph may
    /// have changed.
    sparse: Option<SparseLaplacian>,
}

impl Consensus {
    /// Drives `out` from `state` (same shape) with gain `k`.
    pub fn new(graph: Graph, k: f64, state: &str, out: &str) -> Self {
        Consensus {
            graph,
            k,
            state: state.into(),
            out: out.into(),
            h: None,
            sparse: None,
        }
    }

    /// The graph (e.g. to kill agents between runs).
    pub fn graph_mut(&mut self) -> &mut Graph {
        self.sparse = None;
        &mut self.graph
    }
}

impl System for Consensus {
    fn name(&self) -> &str {
        "consensus"
    }
    fn access(&self) -> Access {
        Access::new().read(&self.state).write(&self.out)
    }
    fn init(&mut self, w: &World) -> Result<()> {
        let (x, u) = (w.handle::<f64>(&self.state)?, w.handle::<f64>(&self.out)?);
        if x.stride() != u.stride() || w.len() != self.graph.n() {
            return Err(EcsError::Shape {
                name: self.out.clone(),
                expected: format!("{} entities of stride {}", self.graph.n(), x.stride()),
                got: format!("{} entities of stride {}", w.len(), u.stride()),
            });
        }
        self.h = Some((x, u));
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some((x, u)) = self.h else { return };
        let l = self
            .sparse
            .get_or_insert_with(|| SparseLaplacian::new(&self.graph));
        let (gx, d, k) = (w.read(x), x.stride(), self.k);
        let xs: &[f64] = &gx;
        par_rows_mut(&mut w.write(u), d, |first, rows| {
            l.mul_rows(xs, d, first, -k, rows);
        });
    }
    fn params(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            "consensus".into(),
            logged(&ConsensusParams {
                k: self.k,
                edges: self.graph.edges().len(),
            }),
        );
        m
    }
}

/// GVF path following for unicycles: steers the heading onto the guiding
/// vector field χ = s E ∇φ − k_e φ ∇φ of `path`.
///
/// ω = θ̇_d + k_d (m × χ̂), where m = [cos θ, sin θ], χ̂ = χ/‖χ‖,
/// θ̇_d = (χ × χ̇)/‖χ‖² the turn rate of the field along the motion, and
/// χ̇ = (s E − k_e φ I) H ṗ − k_e (∇φ·ṗ) ∇φ with H the Hessian of φ.
/// Reads `p`, `theta`, `speed`; writes `omega`; publishes the worst |φ| as
/// a probe.
pub struct GvfUnicycle {
    path: Box<dyn GvfTrajectory>,
    ke: f64,
    kd: f64,
    s: f64,
    max_abs_phi: Probe,
    h: Option<[Handle<f64>; 4]>,
}

impl std::fmt::Debug for GvfUnicycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GvfUnicycle")
            .field("ke", &self.ke)
            .field("kd", &self.kd)
            .field("s", &self.s)
            .finish()
    }
}

impl GvfUnicycle {
    /// Follows `path` with convergence gain `ke`, heading gain `kd` and
    /// direction `s` (±1).
    pub fn new(path: Box<dyn GvfTrajectory>, ke: f64, kd: f64, s: f64) -> Self {
        GvfUnicycle {
            path,
            ke,
            kd,
            s,
            max_abs_phi: Probe::new(),
            h: None,
        }
    }
    /// The worst |φ| over the swarm at the last tick.
    pub fn max_abs_phi(&self) -> Probe {
        self.max_abs_phi.clone()
    }
}

impl System for GvfUnicycle {
    fn name(&self) -> &str {
        "gvf_unicycle"
    }
    fn access(&self) -> Access {
        use crate::models::unicycle::*;
        Access::new().reads([P, THETA, SPEED]).write(OMEGA)
    }
    fn init(&mut self, w: &World) -> Result<()> {
        use crate::models::unicycle::*;
        self.h = Some([
            w.handle(P)?,
            w.handle(THETA)?,
            w.handle(SPEED)?,
            w.handle(OMEGA)?,
        ]);
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some([p, th, sp, om]) = self.h else {
            return;
        };
        let (p, th, sp) = (w.read(p), w.read(th), w.read(sp));
        let mut om = w.write(om);
        let e = gvf_e();
        let mut worst = 0.0f64;
        for i in 0..om.len() {
            let pos = [p[2 * i], p[2 * i + 1]];
            let (phi, n, hs) = (
                self.path.phi(pos),
                self.path.grad_phi(pos),
                self.path.hess_phi(pos),
            );
            worst = worst.max(phi.abs());
            let n = nalgebra::Vector2::from(n);
            let h = nalgebra::Matrix2::new(hs[0][0], hs[0][1], hs[1][0], hs[1][1]);
            let chi = e * n * self.s - n * (self.ke * phi);
            let (st, ct) = th[i].sin_cos();
            let m = nalgebra::Vector2::new(ct, st);
            let p_dot = m * sp[i];
            let chi_dot =
                (e * self.s - nalgebra::Matrix2::identity() * (self.ke * phi)) * h * p_dot
                    - n * (self.ke * n.dot(&p_dot));
            let norm2 = chi.norm_squared().max(1e-12);
            let turn = (chi.x * chi_dot.y - chi.y * chi_dot.x) / norm2;
            let chi_hat = chi / norm2.sqrt();
            om[i] = turn + self.kd * (m.x * chi_hat.y - m.y * chi_hat.x);
        }
        self.max_abs_phi.set(worst);
    }
    fn params(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            "gvf".into(),
            logged(&GvfParams {
                ke: self.ke,
                kd: self.kd,
                s: self.s,
            }),
        );
        m
    }
}

/// Source seeking for single integrators: every agent measures σ at its
/// position, the swarm forms L_σ about its centroid, and every agent moves
/// with u = k · L_σ, so the formation climbs the field rigidly.
///
/// Reads `p` (N, 2); writes `u` (N, 2) and `sigma` (N,) (the measurements,
/// for logging). Agents at the centroid are allowed; the formation must
/// not collapse to a point (D = 0).
pub struct SourceSeeking {
    field: Box<dyn ScalarField>,
    k: f64,
    rel: Vec<[f64; 2]>,
    pts: Vec<[f64; 2]>,
    h: Option<[Handle<f64>; 3]>,
    centroid: Rc<RefCell<[f64; 2]>>,
}

impl std::fmt::Debug for SourceSeeking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceSeeking").field("k", &self.k).finish()
    }
}

impl SourceSeeking {
    /// Climbs `field` with gain `k` (m/s per unit of L_σ).
    pub fn new(field: Box<dyn ScalarField>, k: f64) -> Self {
        SourceSeeking {
            field,
            k,
            rel: Vec::new(),
            pts: Vec::new(),
            h: None,
            centroid: Rc::new(RefCell::new([0.0; 2])),
        }
    }
    /// The swarm centroid at the last tick.
    pub fn centroid(&self) -> Rc<RefCell<[f64; 2]>> {
        self.centroid.clone()
    }
}

impl System for SourceSeeking {
    fn name(&self) -> &str {
        "source_seeking"
    }
    fn access(&self) -> Access {
        Access::new().read("p").writes(["u", "sigma"])
    }
    fn init(&mut self, w: &World) -> Result<()> {
        self.h = Some([w.handle("p")?, w.handle("u")?, w.handle("sigma")?]);
        self.rel = vec![[0.0; 2]; w.len()];
        self.pts = vec![[0.0; 2]; w.len()];
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some([p, u, sig]) = self.h else { return };
        let p = w.read(p);
        let n = self.pts.len();
        let mut c = [0.0; 2];
        for i in 0..n {
            self.pts[i] = [p[2 * i], p[2 * i + 1]];
            c[0] += p[2 * i] / n as f64;
            c[1] += p[2 * i + 1] / n as f64;
        }
        let mut sigma = w.write(sig);
        for i in 0..n {
            self.rel[i] = [self.pts[i][0] - c[0], self.pts[i][1] - c[1]];
            sigma[i] = self.field.value(self.pts[i]);
        }
        let l = l_sigma(&self.rel, &sigma).unwrap_or([0.0, 0.0]);
        let mut u = w.write(u);
        for i in 0..n {
            u[2 * i] = self.k * l[0];
            u[2 * i + 1] = self.k * l[1];
        }
        *self.centroid.borrow_mut() = c;
    }
}
/// A system's settings as the run's logged params (plain data:
/// serialising it cannot fail).
pub(crate) fn logged<T: Serialize>(params: &T) -> Value {
    serde_json::to_value(params).unwrap_or(Value::Null)
}

/// The oscillator's logged settings, per agent.
#[derive(Serialize)]
struct OscillatorParams<'a> {
    /// Amplitudes.
    #[serde(rename = "A")]
    a: &'a [f64],
    /// Angular frequencies (rad/s).
    omega: &'a [f64],
    /// Speeds (m/s).
    speed: &'a [f64],
}

/// The consensus controller's logged settings.
#[derive(Serialize)]
struct ConsensusParams {
    /// Gain.
    k: f64,
    /// Edges of its graph.
    edges: usize,
}

/// The guiding-vector-field controller's logged settings.
#[derive(Serialize)]
struct GvfParams {
    /// Error gain.
    ke: f64,
    /// Heading gain.
    kd: f64,
    /// Direction along the path (+1 or −1).
    s: f64,
}
