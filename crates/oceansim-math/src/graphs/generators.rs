//! Edge-list generators, listing edges as ssl_simulator does.

use super::Edge;
use crate::error::{MathError, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

/// A random connected graph, grown as ssl_simulator grows it: each of
/// `rounds` rounds builds a random spanning tree from node 0 (link a random
/// visited node to a random unvisited one until all are visited), adding
/// each link `(visited, new)` unless some round already has it in either
/// direction. `rounds = 0` gives no edges. Seeded (ChaCha8): the same seed
/// gives the same graph everywhere, though not Python's `random` stream.
pub fn gen_z_random(n: usize, rounds: usize, seed: u64) -> Vec<Edge> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut z: Vec<Edge> = Vec::new();
    let mut has = std::collections::HashSet::new();
    for _ in 0..rounds {
        if n == 0 {
            break;
        }
        let mut visited = vec![0];
        let mut unvisited: Vec<usize> = (1..n).collect();
        while !unvisited.is_empty() {
            let i = visited[rng.gen_range(0..visited.len())];
            let j = unvisited.swap_remove(rng.gen_range(0..unvisited.len()));
            visited.push(j);
            if has.insert((i.min(j), i.max(j))) {
                z.push((i, j));
            }
        }
    }
    z
}

/// `order` fully connected groups over N nodes, as ssl_simulator splits
/// them: group g holds nodes g·⌊N/order⌋ .. (g+1)·⌊N/order⌋ and the last
/// group also takes the remainder; every ordered pair (i, j), i ≠ j, of a
/// group is an edge, listed row-major over all nodes (so each link appears
/// in both directions, L = 2(D − A)). With `n_breaks` > 0 the edges at
/// list positions g·E_s + ⌊N·N_s/n_breaks⌋·b are removed, for g < order,
/// b < n_breaks, N_s = ⌊N/order⌋ and E_s = N_s(N_s − 1) (the reference's
/// rule; positions past the end remove nothing, and a removed direction
/// leaves its reverse).
pub fn gen_z_split(n: usize, order: usize, n_breaks: usize) -> Result<Vec<Edge>> {
    if order == 0 || order > n {
        return Err(MathError::Invalid(format!(
            "order must be in 1..={n}, got {order}"
        )));
    }
    let size = n / order;
    let group = |i: usize| (i / size).min(order - 1);
    let mut z = Vec::new();
    for i in 0..n {
        for j in 0..n {
            if i != j && group(i) == group(j) {
                z.push((i, j));
            }
        }
    }
    if let Some(stride) = (n * size).checked_div(n_breaks) {
        let per_group = size * (size - 1);
        let remove: std::collections::HashSet<usize> = (0..order)
            .flat_map(|g| (0..n_breaks).map(move |b| per_group * g + stride * b))
            .collect();
        z = z
            .into_iter()
            .enumerate()
            .filter(|(k, _)| !remove.contains(k))
            .map(|(_, e)| e)
            .collect();
    }
    Ok(z)
}
