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

mod generators;
mod sparse;

pub use generators::{
    gen_z_distance, gen_z_distance_unordered, gen_z_random, gen_z_ring, gen_z_split,
};
pub use sparse::SparseLaplacian;

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

    /// The smallest eigenvalue of L above 1e-7: what ssl_simulator reports
    /// as `lambda2`. It equals [`Graph::lambda2`] for a connected graph; for
    /// a disconnected one it is the weakest component's connectivity, where
    /// λ₂ is 0. 0 when L has no such eigenvalue.
    pub fn smallest_nonzero_eigenvalue(&self) -> f64 {
        sorted_eigenvalues(&self.l())
            .into_iter()
            .find(|e| *e > 1e-7)
            .unwrap_or(0.0)
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
    fn random_graphs_grow_spanning_trees_from_node_0() {
        assert!(gen_z_random(6, 0, 1).is_empty());
        let tree = gen_z_random(30, 1, 4);
        assert_eq!(tree.len(), 29, "one round is a spanning tree");
        assert!(Graph::new(30, &tree).unwrap().is_connected());
        // Each link leaves the visited set: the first starts at node 0.
        assert_eq!(tree[0].0, 0);
        let more = gen_z_random(30, 3, 4);
        assert_eq!(&more[..29], &tree[..], "later rounds only add");
        let mut seen = std::collections::HashSet::new();
        assert!(more
            .iter()
            .all(|&(i, j)| i != j && seen.insert((i.min(j), i.max(j)))));
    }

    #[test]
    fn split_groups_are_disconnected() {
        let z = gen_z_split(6, 2, 0).unwrap();
        assert_eq!(z.len(), 12, "each link both ways");
        let g = Graph::new(6, &z).unwrap();
        assert!(!g.is_connected());
        assert!(g.lambda2().abs() < 1e-12);
        // Two triangles listed both ways: each block's L = 2(3I − 11ᵀ)
        // has eigenvalues 0, 6, 6 — the reference reports 6.
        assert!((g.smallest_nonzero_eigenvalue() - 6.0).abs() < 1e-12);
        assert!(gen_z_split(3, 4, 0).is_err());
        // The reference's own outputs (ssl_simulator 285a162).
        assert_eq!(
            gen_z_split(6, 2, 1).unwrap(),
            [
                (0, 2),
                (1, 0),
                (1, 2),
                (2, 0),
                (2, 1),
                (3, 5),
                (4, 3),
                (4, 5),
                (5, 3),
                (5, 4)
            ]
        );
        let ten = gen_z_split(10, 3, 2).unwrap();
        assert_eq!(ten.len(), 19);
        assert_eq!(
            &ten[10..],
            [
                (6, 8),
                (6, 9),
                (7, 8),
                (7, 9),
                (8, 6),
                (8, 7),
                (8, 9),
                (9, 7),
                (9, 8)
            ]
        );
        assert_eq!(gen_z_split(7, 2, 1).unwrap().len(), 16);
        assert_eq!(gen_z_split(5, 1, 1).unwrap()[..3], [(0, 2), (0, 3), (0, 4)]);
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
