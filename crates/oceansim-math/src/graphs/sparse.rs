//! The Laplacian in compressed rows, for fast repeated products.

use super::Graph;

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
            // One weight for all: sum the differences, scale once per row.
            (2, Some(w)) => self.rows2(x, first, out, w * scale, |_| 1.0),
            (2, None) => self.rows2(x, first, out, scale, |e| self.w[e]),
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

    /// The planar case: positions gathered as pairs and each row's
    /// neighbours as one slice, so the loop carries no index arithmetic
    /// and one bounds check per neighbour; `w(e)` is entry e's weight and
    /// `scale` multiplies each row's sum.
    #[inline(always)]
    fn rows2(
        &self,
        x: &[f64],
        first: usize,
        out: &mut [f64],
        scale: f64,
        w: impl Fn(usize) -> f64,
    ) {
        let xs: &[[f64; 2]] = x.as_chunks::<2>().0;
        let rows: &mut [[f64; 2]] = out.as_chunks_mut::<2>().0;
        let starts = &self.start[first..=first + rows.len()];
        let mut e0 = starts[0] as usize;
        for ((o, end), xi) in rows.iter_mut().zip(&starts[1..]).zip(&xs[first..]) {
            let e1 = *end as usize;
            let (mut ax, mut ay) = (0.0, 0.0);
            for (e, &j) in (e0..e1).zip(&self.col[e0..e1]) {
                let (xj, we) = (xs[j as usize], w(e));
                ax += we * (xi[0] - xj[0]);
                ay += we * (xi[1] - xj[1]);
            }
            e0 = e1;
            *o = [scale * ax, scale * ay];
        }
    }
}
