//! Graphs over N agents: incidence matrices, Laplacians and generators.
//!
//! Conventions (as in ssl_simulator): an edge is `(tail, head)`; the
//! incidence matrix B is N×E with `B[tail, k] = +1`, `B[head, k] = -1`, so
//! z = Bᵀ x stacks `x_tail - x_head`. The Laplacian is L = B W Bᵀ with W the
//! diagonal edge weights (identity by default); Lb = L ⊗ I₂ acts on stacked
//! 2-D positions `[x0, y0, x1, y1, ...]`.

use crate::error::{MathError, Result};
use nalgebra::{DMatrix, SymmetricEigen};
use petgraph::graph::UnGraph;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An edge `(tail, head)`.
pub type Edge = (usize, usize);

fn check_edges(edges: &[Edge], n: usize) -> Result<()> {
    match edges.iter().find(|(t, h)| *t >= n || *h >= n) {
        Some(&(tail, head)) => Err(MathError::EdgeOutOfRange { tail, head, n }),
        None => Ok(()),
    }
}

/// The N×E incidence matrix (+1 at the tail, -1 at the head).
pub fn build_b(edges: &[Edge], n: usize) -> Result<DMatrix<f64>> {
    check_edges(edges, n)?;
    let mut b = DMatrix::zeros(n, edges.len());
    for (k, &(t, h)) in edges.iter().enumerate() {
        b[(t, k)] += 1.0;
        b[(h, k)] -= 1.0;
    }
    Ok(b)
}

/// L = B W Bᵀ, with W = diag(`weights`) or the identity.
pub fn build_l_from_b(b: &DMatrix<f64>, weights: Option<&[f64]>) -> Result<DMatrix<f64>> {
    match weights {
        None => Ok(b * b.transpose()),
        Some(w) if w.len() == b.ncols() => {
            let mut bw = b.clone();
            for (k, wk) in w.iter().enumerate() {
                bw.column_mut(k).scale_mut(*wk);
            }
            Ok(bw * b.transpose())
        }
        Some(w) => Err(MathError::Shape {
            name: "weights".into(),
            expected: format!("({},)", b.ncols()),
            got: format!("({},)", w.len()),
        }),
    }
}

/// Kronecker product L ⊗ I_d.
pub fn kron_identity(l: &DMatrix<f64>, d: usize) -> DMatrix<f64> {
    let n = l.nrows();
    let mut out = DMatrix::zeros(n * d, n * d);
    for i in 0..n {
        for j in 0..n {
            for k in 0..d {
                out[(i * d + k, j * d + k)] = l[(i, j)];
            }
        }
    }
    out
}

/// Eigenvalues of a symmetric matrix, ascending.
pub fn sorted_eigenvalues(m: &DMatrix<f64>) -> Vec<f64> {
    let mut ev: Vec<f64> = SymmetricEigen::new(m.clone())
        .eigenvalues
        .iter()
        .copied()
        .collect();
    ev.sort_by(f64::total_cmp);
    ev
}

/// An undirected graph over N agents with a live Laplacian.
///
/// Holds the edge list Z with weights and the set of active agents; the
/// incidence matrix B, the Laplacian L, Lb = L ⊗ I₂ and the algebraic
/// connectivity λ₂ are built from it on demand, so a graph of 10⁶ agents
/// costs O(E) memory. Killed agents keep their index but lose every edge.
/// Products `L x` use the edge list (O(E)), never a dense matrix.
#[derive(Debug, Clone)]
pub struct Graph {
    n: usize,
    edges: Vec<Edge>,
    weights: Vec<f64>,
    active: Vec<bool>,
}

impl Graph {
    /// A graph of `n` agents with unit-weight edges `z`.
    pub fn new(n: usize, z: &[Edge]) -> Result<Self> {
        let mut g = Graph {
            n,
            edges: Vec::new(),
            weights: Vec::new(),
            active: vec![true; n],
        };
        g.set_z(z)?;
        Ok(g)
    }

    /// Replaces the edge list (unit weights).
    pub fn set_z(&mut self, z: &[Edge]) -> Result<()> {
        check_edges(z, self.n)?;
        self.edges = z.to_vec();
        self.weights = vec![1.0; z.len()];
        Ok(())
    }

    /// Sets edge weights (one per edge).
    pub fn set_weights(&mut self, w: &[f64]) -> Result<()> {
        if w.len() != self.edges.len() {
            return Err(MathError::Shape {
                name: "weights".into(),
                expected: format!("({},)", self.edges.len()),
                got: format!("({},)", w.len()),
            });
        }
        self.weights = w.to_vec();
        Ok(())
    }

    /// The dense Laplacian considering agent status (inactive agents' edges
    /// zeroed): L = B W Bᵀ. O(N²) memory; for products use
    /// [`Graph::laplacian_times`].
    pub fn gen_l(&self) -> DMatrix<f64> {
        build_l_from_b(&self.b(), Some(&self.weights))
            .unwrap_or_else(|_| DMatrix::zeros(self.n, self.n))
    }

    /// Removes every edge of the given agents and marks them inactive.
    pub fn kill_agents(&mut self, agents: &[usize]) -> Result<()> {
        if let Some(&a) = agents.iter().find(|&&a| a >= self.n) {
            return Err(MathError::Invalid(format!(
                "agent {a} outside 0..{}",
                self.n
            )));
        }
        for &a in agents {
            self.active[a] = false;
        }
        Ok(())
    }

    /// Number of agents.
    pub fn n(&self) -> usize {
        self.n
    }
    /// The edge list Z.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }
    /// Which agents are active.
    pub fn active(&self) -> &[bool] {
        &self.active
    }
    /// Edge weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }
    /// Incidence matrix B (N×E, dense), inactive agents' edges zeroed.
    pub fn b(&self) -> DMatrix<f64> {
        let mut b = DMatrix::zeros(self.n, self.edges.len());
        for (k, &(t, h)) in self.edges.iter().enumerate() {
            if self.active[t] && self.active[h] {
                b[(t, k)] += 1.0;
                b[(h, k)] -= 1.0;
            }
        }
        b
    }
    /// Laplacian L (N×N, dense); same as [`Graph::gen_l`].
    pub fn l(&self) -> DMatrix<f64> {
        self.gen_l()
    }
    /// Lb = L ⊗ I₂ (2N×2N, dense).
    pub fn lb(&self) -> DMatrix<f64> {
        kron_identity(&self.l(), 2)
    }

    /// Algebraic connectivity λ₂ (second-smallest eigenvalue of L) of the
    /// active agents; 0 for a disconnected graph.
    pub fn lambda2(&self) -> f64 {
        let idx: Vec<usize> = (0..self.n).filter(|&i| self.active[i]).collect();
        if idx.len() < 2 {
            return 0.0;
        }
        let l = self.l();
        let sub = DMatrix::from_fn(idx.len(), idx.len(), |i, j| l[(idx[i], idx[j])]);
        sorted_eigenvalues(&sub)[1]
    }

    /// Whether the active agents form one connected component.
    pub fn is_connected(&self) -> bool {
        let mut g = UnGraph::<(), ()>::with_capacity(self.n, self.edges.len());
        let nodes: Vec<_> = (0..self.n).map(|_| g.add_node(())).collect();
        for &(t, h) in &self.edges {
            if self.active[t] && self.active[h] {
                g.add_edge(nodes[t], nodes[h], ());
            }
        }
        let inactive = self.active.iter().filter(|a| !**a).count();
        petgraph::algo::connected_components(&g) == 1 + inactive
    }

    /// out = (L ⊗ I_d) x for stacked `x` (N rows of `d`), in O(E·d) using
    /// the edge list: each edge k adds w_k (x_t − x_h) to t and subtracts it
    /// from h.
    pub fn laplacian_times(&self, x: &[f64], d: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        for (k, &(t, h)) in self.edges.iter().enumerate() {
            if !(self.active[t] && self.active[h]) {
                continue;
            }
            let w = self.weights[k];
            for c in 0..d {
                let diff = w * (x[t * d + c] - x[h * d + c]);
                out[t * d + c] += diff;
                out[h * d + c] -= diff;
            }
        }
    }
}

/// The Laplacian as neighbour lists (compressed rows): row i holds each
/// neighbour j ≠ i once with the summed weight w_ij of every active edge
/// between them, so (L x)_i = Σ_j w_ij (x_i − x_j).
///
/// Rows are independent, so products split across threads by rows
/// ([`SparseLaplacian::mul_rows`]) with results identical to the whole
/// product; the difference form is exact (zero) at consensus.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseLaplacian {
    /// Row i's entries are `start[i]..start[i + 1]`. 32-bit indices halve
    /// the memory the product streams through.
    start: Vec<u32>,
    col: Vec<u32>,
    w: Vec<f64>,
    /// The weight every entry shares, when they all do (then `w` is empty
    /// and the product reads one array less).
    uniform: Option<f64>,
}

impl SparseLaplacian {
    /// From a graph's active edges (self-loops contribute nothing).
    ///
    /// # Panics
    /// With 2³² or more agents or neighbour entries (tens of GB of edges).
    pub fn new(g: &Graph) -> Self {
        let idx = |i: usize| u32::try_from(i).expect("SparseLaplacian holds under 2^32 entries");
        let mut deg = vec![0usize; g.n + 1];
        let live = || {
            g.edges
                .iter()
                .zip(&g.weights)
                .filter(|((t, h), _)| t != h && g.active[*t] && g.active[*h])
        };
        for ((t, h), _) in live() {
            deg[*t] += 1;
            deg[*h] += 1;
        }
        let mut rows: Vec<Vec<(usize, f64)>> =
            deg[..g.n].iter().map(|&d| Vec::with_capacity(d)).collect();
        for (&(t, h), &w) in live() {
            rows[t].push((h, w));
            rows[h].push((t, w));
        }
        let mut out = SparseLaplacian {
            start: Vec::with_capacity(g.n + 1),
            col: Vec::new(),
            w: Vec::new(),
            uniform: None,
        };
        out.start.push(0);
        for mut r in rows {
            r.sort_by_key(|e| e.0);
            let begin = out.col.len();
            for (j, w) in r {
                let j = idx(j);
                // Parallel edges (e.g. both directions listed) merge.
                if out.col.len() > begin && out.col[out.col.len() - 1] == j {
                    let last = out.w.len() - 1;
                    out.w[last] += w;
                } else {
                    out.col.push(j);
                    out.w.push(w);
                }
            }
            out.start.push(idx(out.col.len()));
        }
        if let Some(&w0) = out.w.first() {
            if out.w.iter().all(|w| w.to_bits() == w0.to_bits()) {
                out.uniform = Some(w0);
                out.w = Vec::new();
            }
        }
        out
    }

    /// Number of rows (agents).
    pub fn n(&self) -> usize {
        self.start.len() - 1
    }

    /// Stored neighbour entries (each undirected link twice).
    pub fn nnz(&self) -> usize {
        self.col.len()
    }

    /// out = (L ⊗ I_d) x for stacked `x` (N rows of `d`).
    ///
    /// # Panics
    /// If `x` or `out` is not N·d long.
    pub fn mul(&self, x: &[f64], d: usize, out: &mut [f64]) {
        assert_eq!(out.len(), x.len(), "out holds N·d values");
        self.mul_rows(x, d, 0, 1.0, out);
    }

    /// Rows `first..first + out.len()/d` of `scale` · (L ⊗ I_d) x into
    /// `out` (the scale folded in saves a pass, e.g. −k for consensus).
    ///
    /// # Panics
    /// If `x` is not N·d long or the rows run past N.
    pub fn mul_rows(&self, x: &[f64], d: usize, first: usize, scale: f64, out: &mut [f64]) {
        let d = d.max(1);
        assert_eq!(x.len(), self.n() * d, "x holds N·d values");
        let rows = out.len() / d;
        assert!(
            first + rows <= self.n(),
            "rows {first}..{} past N = {}",
            first + rows,
            self.n()
        );
        match (d, self.uniform) {
            (2, Some(w)) => self.rows2(x, first, out, |_| w * scale),
            (2, None) => self.rows2(x, first, out, |e| self.w[e] * scale),
            _ => {
                for (k, o) in out.chunks_exact_mut(d).enumerate() {
                    let i = first + k;
                    o.iter_mut().for_each(|v| *v = 0.0);
                    for e in self.start[i] as usize..self.start[i + 1] as usize {
                        let j = self.col[e] as usize;
                        let w = self.uniform.unwrap_or_else(|| self.w[e]) * scale;
                        for c in 0..d {
                            o[c] += w * (x[i * d + c] - x[j * d + c]);
                        }
                    }
                }
            }
        }
    }

    /// The planar case, unrolled; `w(e)` is entry e's scaled weight.
    #[inline(always)]
    fn rows2(&self, x: &[f64], first: usize, out: &mut [f64], w: impl Fn(usize) -> f64) {
        for (k, o) in out.chunks_exact_mut(2).enumerate() {
            let i = first + k;
            let (xi, yi) = (x[2 * i], x[2 * i + 1]);
            let (mut ax, mut ay) = (0.0, 0.0);
            for e in self.start[i] as usize..self.start[i + 1] as usize {
                let (j, we) = (self.col[e] as usize, w(e));
                ax += we * (xi - x[2 * j]);
                ay += we * (yi - x[2 * j + 1]);
            }
            o[0] = ax;
            o[1] = ay;
        }
    }
}

/// A ring: `(i, i+1)` for i < N-1, then `(i+1, i)`, then `(N-1, 0)` and
/// `(0, N-1)` — each undirected edge listed in both directions, exactly as
/// ssl_simulator's generator, so its L is 2(D − A).
pub fn gen_z_ring(n: usize) -> Vec<Edge> {
    if n < 2 {
        return Vec::new();
    }
    let mut z: Vec<Edge> = (0..n - 1).map(|i| (i, i + 1)).collect();
    z.extend((0..n - 1).map(|i| (i + 1, i)));
    z.push((n - 1, 0));
    z.push((0, n - 1));
    z
}

/// Every ordered pair `(i, j)`, i ≠ j, of points (rows of `p`, each of
/// `d` coordinates) at distance ≤ `dist_thr`, row-major (by i, then j), as
/// ssl_simulator lists them: each undirected link appears twice, so the
/// Laplacian is 2(D − A), as for [`gen_z_ring`].
pub fn gen_z_distance(p: &[f64], d: usize, dist_thr: f64) -> Result<Vec<Edge>> {
    let pairs = close_pairs(p, d, dist_thr)?;
    let n = p.len() / d;
    let mut per_row: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(i, j) in &pairs {
        per_row[i].push(j);
        per_row[j].push(i);
    }
    Ok(per_row
        .into_iter()
        .enumerate()
        .flat_map(|(i, mut js)| {
            js.sort_unstable();
            js.into_iter().map(move |j| (i, j))
        })
        .collect())
}

/// The unordered form of [`gen_z_distance`]: each close pair once, as
/// `(i, j)` with i < j, so the Laplacian is D − A.
pub fn gen_z_distance_unordered(p: &[f64], d: usize, dist_thr: f64) -> Result<Vec<Edge>> {
    close_pairs(p, d, dist_thr)
}

fn close_pairs(p: &[f64], d: usize, dist_thr: f64) -> Result<Vec<Edge>> {
    if d == 0 || !p.len().is_multiple_of(d) {
        return Err(MathError::Shape {
            name: "P".into(),
            expected: format!("(N, {d})"),
            got: format!("{} values", p.len()),
        });
    }
    if dist_thr.is_nan() {
        return Err(MathError::Invalid("dist_thr is NaN".into()));
    }
    let n = p.len() / d;
    let mut z = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            // The direct distance: the reference's expanded form
            // ‖x‖² − 2x·y + ‖y‖² can round across the threshold.
            let dist2: f64 = (0..d).map(|c| (p[i * d + c] - p[j * d + c]).powi(2)).sum();
            if dist2.sqrt() <= dist_thr {
                z.push((i, j));
            }
        }
    }
    Ok(z)
}

/// A random connected graph (seeded): a random spanning tree that links
/// each unvisited node to a visited one, plus `rounds - 1` passes that each
/// add one random extra edge per node. Single-direction edges, no
/// duplicates, no self-loops.
pub fn gen_z_random(n: usize, rounds: usize, seed: u64) -> Vec<Edge> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng);
    let mut z: Vec<Edge> = Vec::new();
    let mut has = std::collections::BTreeSet::new();
    for k in 1..n {
        let visited = order[rng.gen_range(0..k)];
        let e = (visited, order[k]);
        has.insert((e.0.min(e.1), e.0.max(e.1)));
        z.push(e);
    }
    for _ in 1..rounds.max(1) {
        for i in 0..n {
            let j = rng.gen_range(0..n);
            if i != j && has.insert((i.min(j), i.max(j))) {
                z.push((i, j));
            }
        }
    }
    z
}

/// `order` fully connected groups over N nodes (consecutive blocks), with
/// `n_breaks` edges removed from each group (the group's last edges).
pub fn gen_z_split(n: usize, order: usize, n_breaks: usize) -> Result<Vec<Edge>> {
    if order == 0 || order > n {
        return Err(MathError::Invalid(format!(
            "order must be in 1..={n}, got {order}"
        )));
    }
    let mut z = Vec::new();
    let base = n / order;
    let extra = n % order;
    let mut start = 0;
    for g in 0..order {
        let size = base + usize::from(g < extra);
        let mut group: Vec<Edge> = Vec::new();
        for i in start..start + size {
            for j in i + 1..start + size {
                group.push((i, j));
            }
        }
        group.truncate(group.len().saturating_sub(n_breaks));
        z.extend(group);
        start += size;
    }
    Ok(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laplacian_times_matches_dense_lb() {
        let g = Graph::new(5, &gen_z_random(5, 2, 3)).unwrap();
        let x: Vec<f64> = (0..10).map(|i| (i as f64 * 0.7).sin()).collect();
        let mut out = vec![0.0; 10];
        g.laplacian_times(&x, 2, &mut out);
        let dense = g.lb() * nalgebra::DVector::from_column_slice(&x);
        for (a, b) in out.iter().zip(dense.iter()) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    #[test]
    fn sparse_laplacian_matches_dense_l_in_every_case() {
        // Random edges plus a duplicate, both directions, a self-loop, odd
        // weights and a killed agent.
        let mut z = gen_z_random(9, 3, 5);
        z.extend([(0, 1), (1, 0), (4, 4), (2, 7)]);
        let mut g = Graph::new(9, &z).unwrap();
        let w: Vec<f64> = (0..z.len()).map(|k| 0.5 + k as f64 * 0.25).collect();
        g.set_weights(&w).unwrap();
        g.kill_agents(&[6]).unwrap();
        let sparse = SparseLaplacian::new(&g);
        assert_eq!(sparse.n(), 9);
        let l = g.l();
        for d in [1, 2, 3] {
            let x: Vec<f64> = (0..9 * d).map(|i| (i as f64 * 0.37).cos() * 10.0).collect();
            let dense = kron_identity(&l, d) * nalgebra::DVector::from_column_slice(&x);
            let mut out = vec![f64::NAN; 9 * d];
            sparse.mul(&x, d, &mut out);
            for (a, b) in out.iter().zip(dense.iter()) {
                assert!((a - b).abs() < 1e-12 * (1.0 + b.abs()), "d {d}: {a} vs {b}");
            }
            // Any split into row blocks gives the same bits.
            let mut parts = vec![f64::NAN; 9 * d];
            let (a, b) = parts.split_at_mut(4 * d);
            sparse.mul_rows(&x, d, 0, 1.0, a);
            sparse.mul_rows(&x, d, 4, 1.0, b);
            assert_eq!(parts, out);
            // The scale is folded in exactly for a power of two.
            sparse.mul_rows(&x, d, 0, -0.5, &mut parts);
            let halved: Vec<f64> = out.iter().map(|v| -0.5 * v).collect();
            assert_eq!(parts, halved);
        }
        // At consensus the difference form gives exact zeros.
        let x = vec![1e12 + 0.1; 18];
        let mut out = vec![1.0; 18];
        sparse.mul(&x, 2, &mut out);
        assert!(out.iter().all(|v| *v == 0.0));
        // A ring listed both ways stores each neighbour once, weight 2.
        let ring = SparseLaplacian::new(&Graph::new(5, &gen_z_ring(5)).unwrap());
        assert_eq!(ring.nnz(), 10);
        let x: Vec<f64> = (0..10).map(|i| f64::from(i * i)).collect();
        let mut out = vec![0.0; 10];
        ring.mul(&x, 2, &mut out);
        // Row 0: 2 (x0 − x1) + 2 (x0 − x4) per coordinate.
        assert_eq!(out[0], 2.0 * (0.0 - 4.0) + 2.0 * (0.0 - 64.0));
    }

    #[test]
    fn split_groups_are_disconnected() {
        let z = gen_z_split(6, 2, 0).unwrap();
        assert_eq!(z.len(), 6);
        let g = Graph::new(6, &z).unwrap();
        assert!(!g.is_connected());
        assert!(g.lambda2().abs() < 1e-12);
        assert_eq!(gen_z_split(6, 2, 1).unwrap().len(), 4);
        assert!(gen_z_split(3, 4, 0).is_err());
    }

    #[test]
    fn killed_agents_lose_their_edges() {
        let mut g = Graph::new(4, &gen_z_ring(4)).unwrap();
        g.kill_agents(&[1]).unwrap();
        assert!(g.l().row(1).iter().all(|x| *x == 0.0));
        assert!(g.is_connected(), "0-3-2 stays connected");
        g.kill_agents(&[3]).unwrap();
        assert!(!g.is_connected());
        assert!(g.kill_agents(&[9]).is_err());
    }
}
