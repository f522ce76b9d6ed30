//! Formation keeping over a communication graph, writing a desired
//! horizontal velocity ([`names::V_DES`] or the layout's, [north, east]
//! m/s):
//!
//! * [`FormationConsensus`]: consensus on position offsets,
//!   v_i = −k Σ_j a_ij ((p_i − o_i) − (p_j − o_j)): the vehicles agree on a
//!   common reference point c and settle at p_i = c + o_i;
//! * [`DistanceFormation`]: the gradient of the distance potential,
//!   v_i = −k Σ_j a_ij (‖p_i − p_j‖² − d_ij²)(p_i − p_j): only distances are
//!   prescribed, so the shape is reached up to rotation and translation.
//!
//! Each vehicle knows its own position exactly; its neighbours' come
//! either from the truth ([`Neighbours::Truth`], ideal links) or from what
//! arrived over the acoustic medium ([`Neighbours::Heard`]); a neighbour
//! not heard from yet is left out. Speeds are capped at `max_speed_m_s`
//! keeping the direction.

use super::{names, FleetLayout, Heard};
use oceansim_ecs::{Access, Handle, ResourceHandle, Result, Step, System, World};
use oceansim_math::graphs::Graph;

/// Where a controller gets its neighbours' positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neighbours {
    /// The true positions (ideal communication).
    Truth,
    /// The latest positions heard over the acoustic medium.
    Heard,
}

/// The graph as neighbour lists: (neighbour, summed weight) per row.
fn adjacency(g: &Graph) -> Vec<Vec<(usize, f64)>> {
    let mut adj: Vec<Vec<(usize, f64)>> = vec![Vec::new(); g.n()];
    let active = g.active();
    for (&(t, h), &w) in g.edges().iter().zip(g.weights()) {
        if t == h || !active[t] || !active[h] {
            continue;
        }
        for (a, b) in [(t, h), (h, t)] {
            match adj[a].iter_mut().find(|e| e.0 == b) {
                Some(e) => e.1 += w,
                None => adj[a].push((b, w)),
            }
        }
    }
    for row in &mut adj {
        row.sort_by_key(|e| e.0);
    }
    adj
}

/// Positions, desired velocities, and the heard table when used.
type FormationHandles = (Handle<f64>, Handle<f64>, Option<ResourceHandle<Heard>>);

struct Common {
    adj: Vec<Vec<(usize, f64)>>,
    k: f64,
    max_speed_m_s: f64,
    source: Neighbours,
    layout: FleetLayout,
    h: Option<FormationHandles>,
}

impl Common {
    fn new(graph: &Graph, k: f64, max_speed_m_s: f64, source: Neighbours) -> Self {
        Common {
            adj: adjacency(graph),
            k,
            max_speed_m_s,
            source,
            layout: FleetLayout::default(),
            h: None,
        }
    }
    fn access(&self) -> Access {
        let a = Access::new().read(&self.layout.p).write(&self.layout.v_des);
        match self.source {
            Neighbours::Truth => a,
            Neighbours::Heard => a.read(names::HEARD),
        }
    }
    fn init(&mut self, w: &World, who: &str) -> Result<()> {
        self.layout
            .check_len(w, who, "graph nodes", self.adj.len())?;
        let heard = match self.source {
            Neighbours::Truth => None,
            // The heard table is indexed by fleet-world rows.
            Neighbours::Heard if self.layout.members.is_some() => {
                return Err(oceansim_ecs::EcsError::Invalid(format!(
                    "{who}: Neighbours::Heard needs a fleet world (AcousticBeacons); with listed members use Neighbours::Truth"
                )))
            }
            Neighbours::Heard => Some(w.resource_handle(names::HEARD)?),
        };
        self.h = Some((
            w.handle(&self.layout.p)?,
            w.handle(&self.layout.v_des)?,
            heard,
        ));
        Ok(())
    }
    /// Runs `term(i, p_i, p_j)` → per-neighbour velocity contribution.
    fn run(&self, w: &World, term: impl Fn(usize, usize, [f64; 2], [f64; 2]) -> [f64; 2]) {
        let Some((hp, hv, hh)) = self.h else { return };
        let p = w.read(hp);
        let heard = hh.map(|h| w.resource(h));
        let mut v = w.write(hv);
        for (i, nbrs) in self.adj.iter().enumerate() {
            let Some(ri) = self.layout.row(w, i) else {
                continue;
            };
            let pi = [p[3 * ri], p[3 * ri + 1]];
            let mut acc = [0.0, 0.0];
            // Both the neighbours and what i heard are sorted by sender:
            // one merged walk finds each neighbour's latest report.
            let heard_by_i = heard.as_ref().map_or(&[][..], |h| h.heard_by(i));
            let mut cursor = 0;
            for &(j, a) in nbrs {
                let pj = if heard.is_none() {
                    match self.layout.row(w, j) {
                        Some(rj) => [p[3 * rj], p[3 * rj + 1]],
                        None => continue,
                    }
                } else {
                    while cursor < heard_by_i.len() && (heard_by_i[cursor].0 as usize) < j {
                        cursor += 1;
                    }
                    match heard_by_i.get(cursor) {
                        Some((s, r)) if *s as usize == j => [r.p_ned[0], r.p_ned[1]],
                        _ => continue,
                    }
                };
                let t = term(i, j, pi, pj);
                acc[0] += a * t[0];
                acc[1] += a * t[1];
            }
            let (vn, ve) = (-self.k * acc[0], -self.k * acc[1]);
            let s = vn.hypot(ve);
            let scale = if s > self.max_speed_m_s {
                self.max_speed_m_s / s
            } else {
                1.0
            };
            let ok = s.is_finite();
            v[2 * ri] = if ok { vn * scale } else { 0.0 };
            v[2 * ri + 1] = if ok { ve * scale } else { 0.0 };
        }
    }
}

impl std::fmt::Debug for Common {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Formation")
            .field("k", &self.k)
            .field("max_speed_m_s", &self.max_speed_m_s)
            .field("source", &self.source)
            .finish()
    }
}

/// `formation_consensus`: consensus on position offsets.
#[derive(Debug)]
pub struct FormationConsensus {
    c: Common,
    offsets: Vec<[f64; 2]>,
}

impl FormationConsensus {
    /// Vehicle i settles at c + `offsets[i]` ([north, east], m), with gain
    /// `k` (1/s) over `graph`.
    pub fn new(
        graph: &Graph,
        offsets: Vec<[f64; 2]>,
        k: f64,
        max_speed_m_s: f64,
        source: Neighbours,
    ) -> Self {
        FormationConsensus {
            c: Common::new(graph, k, max_speed_m_s, source),
            offsets,
        }
    }
}

impl FormationConsensus {
    /// Runs on `layout`'s components and members (graph node k = member k).
    pub fn with_layout(mut self, layout: FleetLayout) -> Self {
        self.c.layout = layout;
        self
    }
}

impl System for FormationConsensus {
    fn name(&self) -> &str {
        "formation_consensus"
    }
    fn access(&self) -> Access {
        self.c.access()
    }
    fn init(&mut self, w: &World) -> Result<()> {
        self.c
            .layout
            .check_len(w, "formation_consensus", "offsets", self.offsets.len())?;
        self.c.init(w, "formation_consensus")
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let o = &self.offsets;
        self.c.run(w, |i, j, pi, pj| {
            [
                (pi[0] - o[i][0]) - (pj[0] - o[j][0]),
                (pi[1] - o[i][1]) - (pj[1] - o[j][1]),
            ]
        });
    }
}

/// `distance_formation`: the distance-potential gradient.
#[derive(Debug)]
pub struct DistanceFormation {
    c: Common,
    /// Desired squared distance per (i, j), dense N×N.
    d2: Vec<f64>,
    n: usize,
}

impl DistanceFormation {
    /// Neighbours i, j of `graph` settle `distance(i, j)` metres apart.
    pub fn new(
        graph: &Graph,
        distance: impl Fn(usize, usize) -> f64,
        k: f64,
        max_speed_m_s: f64,
        source: Neighbours,
    ) -> Self {
        let n = graph.n();
        let mut d2 = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                d2[i * n + j] = distance(i, j).powi(2);
            }
        }
        DistanceFormation {
            c: Common::new(graph, k, max_speed_m_s, source),
            d2,
            n,
        }
    }
}

impl DistanceFormation {
    /// Runs on `layout`'s components and members (graph node k = member k).
    pub fn with_layout(mut self, layout: FleetLayout) -> Self {
        self.c.layout = layout;
        self
    }
}

impl System for DistanceFormation {
    fn name(&self) -> &str {
        "distance_formation"
    }
    fn access(&self) -> Access {
        self.c.access()
    }
    fn init(&mut self, w: &World) -> Result<()> {
        self.c.init(w, "distance_formation")
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let (d2, n) = (&self.d2, self.n);
        self.c.run(w, |i, j, pi, pj| {
            let e = [pi[0] - pj[0], pi[1] - pj[1]];
            let err = e[0] * e[0] + e[1] * e[1] - d2[i * n + j];
            [err * e[0], err * e[1]]
        });
    }
}
