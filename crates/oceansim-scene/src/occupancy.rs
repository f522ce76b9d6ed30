//! Occupancy slices: a horizontal slice of the scene (user frame, x east,
//! y north, z up, m) classed cell by cell — free, seabed, static obstacle
//! or agent — as `get_terrain_grid` and the export's occupancy channel
//! report it.
//!
//! [`class_at`] is the definition: the class of one cell centre, testing
//! every footprint. [`classify`] gives the same class for every cell
//! without testing every footprint at every cell: each obstacle and agent
//! is solved once per grid row it may cross for the span of that row it
//! may cover (all three obstacle shapes and the agents' cylinders are
//! convex, so a row meets each in one interval), and only the cells of
//! that span are tested — with the same predicate [`class_at`] uses, so
//! the result is identical cell for cell. Its cost, [`Occupancy::work`],
//! is what the request budget draws: one unit per cell, per footprint row
//! and per cell of a span.
//!
//! The spans are solved for each footprint grown by a margin (a millionth
//! of the scene's scale), far above the rounding of either computation,
//! so a cell the predicate would accept is never outside its span; the
//! margin costs at most a cell or two per span.

use super::obstacle::Obstacle;
use super::terrain::Terrain;
use nalgebra::Matrix3;
use oceansim_protocol::payload::ObstacleShape;

/// Class of a free cell.
pub const FREE: u8 = 0;
/// Class of a cell at or below the seabed.
pub const TERRAIN: u8 = 1;
/// Class of a cell inside a static obstacle.
pub const STATIC: u8 = 2;
/// Class of a cell inside an agent.
pub const AGENT: u8 = 3;

/// An agent as the grid sees it: centre (m, user frame) and radius (m),
/// standing for the vertical cylinder `hypot(x − cx, y − cy) ≤ r` and
/// `|z − cz| ≤ r` (each grown by the slice's inflation).
pub type AgentDisc = ([f64; 3], f64);

/// The grid of a horizontal slice: cell `(i, j)` (column i east, row j
/// north) is centred at `(origin[0] + (i + 0.5) cell, origin[1] + (j +
/// 0.5) cell)` at height `z` (m, user frame); footprints are grown by
/// `inflation` (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slice {
    /// South-west corner (m, user frame).
    pub origin: [f64; 2],
    /// Cell edge (m).
    pub cell: f64,
    /// Columns.
    pub cols: usize,
    /// Rows.
    pub rows: usize,
    /// Height of the slice (m, user z).
    pub z: f64,
    /// Growth of every footprint (m).
    pub inflation: f64,
}

impl Slice {
    /// x of column `i`'s centres (m).
    pub fn x(&self, i: usize) -> f64 {
        self.origin[0] + (i as f64 + 0.5) * self.cell
    }

    /// y of row `j`'s centres (m).
    pub fn y(&self, j: usize) -> f64 {
        self.origin[1] + (j as f64 + 0.5) * self.cell
    }

    /// Cells.
    pub fn cells(&self) -> usize {
        self.cols.saturating_mul(self.rows)
    }

    /// The indices (of `n` along an axis starting at `start`) whose
    /// centres may lie in `[lo, hi]`, with a cell of slack each side.
    fn indices(&self, start: f64, n: usize, lo: f64, hi: f64) -> Option<(usize, usize)> {
        let a = ((lo - start) / self.cell - 0.5).floor() - 1.0;
        let b = ((hi - start) / self.cell - 0.5).ceil() + 1.0;
        let last = n.checked_sub(1)? as f64;
        // NaN fails both comparisons: no cells.
        if !(a <= last && b >= 0.0 && a <= b) {
            return None;
        }
        Some((a.max(0.0) as usize, b.min(last) as usize))
    }
}

/// Whether agent disc `a` covers `(x, y, z)` grown by `infl`.
fn agent_covers(&(p, r): &AgentDisc, x: f64, y: f64, z: f64, infl: f64) -> bool {
    (x - p[0]).hypot(y - p[1]) <= r + infl && (z - p[2]).abs() <= r + infl
}

/// The class of the cell centred at `(x, y)` in the slice at height `z`
/// (user frame, m): [`TERRAIN`] at or below the seabed (within `infl`),
/// else [`STATIC`] inside an obstacle grown by `infl`, else [`AGENT`]
/// inside an agent's cylinder grown by `infl`, else [`FREE`]. Tests every
/// footprint: the reference [`classify`] agrees with.
pub fn class_at(
    terrain: &Terrain,
    obstacles: &[Obstacle],
    agents: &[AgentDisc],
    [x, y, z]: [f64; 3],
    infl: f64,
) -> u8 {
    if terrain.height(x, y) >= z - infl {
        TERRAIN
    } else if obstacles.iter().any(|o| o.covers_xy(x, y, z, infl)) {
        STATIC
    } else if agents.iter().any(|a| agent_covers(a, x, y, z, infl)) {
        AGENT
    } else {
        FREE
    }
}

/// A classified slice.
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    /// Class of each cell, row-major: `classes[j * cols + i]`.
    pub classes: Vec<u8>,
    /// Cells per class ([`FREE`], [`TERRAIN`], [`STATIC`], [`AGENT`]).
    pub counts: [usize; 4],
    /// Work units spent: cells + footprint rows + span cells.
    pub work: usize,
}

/// One footprint in the slice: which, and the rows it may cross.
#[derive(Debug, Clone, Copy)]
enum Footprint {
    Obstacle(usize),
    Agent(usize),
}

/// The x-interval (m) of row `(y, z)` a footprint may cover.
type Span = Option<(f64, f64)>;

/// Why [`classify`] stopped: the work it would take passes the allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// Work units needed so far (at least this many in all).
    pub needed: usize,
}

/// Classes every cell of `slice` exactly as [`class_at`] does, testing at
/// each cell only the footprints whose row span may cover it. Costs
/// (and reports as [`Occupancy::work`]) one unit per cell, per row a
/// footprint may cross and per cell of its span on that row; past
/// `allowance` units it stops before classing anything and says how many
/// it needed — the rows are counted first, so a refusal costs at most the
/// allowance in span solves.
pub fn classify(
    slice: &Slice,
    terrain: &Terrain,
    obstacles: &[Obstacle],
    agents: &[AgentDisc],
    allowance: usize,
) -> Result<Occupancy, OverBudget> {
    let (z, infl) = (slice.z, slice.inflation);
    let scene_scale = 1.0
        + slice.origin[0].abs()
        + slice.origin[1].abs()
        + slice.cell * (slice.cols + slice.rows) as f64;
    // Each footprint that may reach the slice, its margin and its rows.
    let mut reach = Vec::new();
    for (k, o) in obstacles.iter().enumerate() {
        let r0 = obstacle_reach(o, infl);
        let scale = scene_scale + o.center.iter().map(|c| c.abs()).sum::<f64>() + r0;
        let grow = infl + 1e-6 * scale;
        let r = obstacle_reach(o, grow);
        if (z - o.center[2]).abs() <= r {
            reach.push((Footprint::Obstacle(k), o.center, r, grow));
        }
    }
    for (k, (p, radius)) in agents.iter().enumerate() {
        let scale = scene_scale + p.iter().map(|c| c.abs()).sum::<f64>() + radius + infl;
        let r = radius + infl + 1e-6 * scale;
        if (z - p[2]).abs() <= r {
            reach.push((Footprint::Agent(k), *p, r, r));
        }
    }
    let rows_of =
        |c: [f64; 3], r: f64| slice.indices(slice.origin[1], slice.rows, c[1] - r, c[1] + r);
    let mut work = slice.cells();
    for &(_, c, r, _) in &reach {
        if let Some((a, b)) = rows_of(c, r) {
            work = work.saturating_add(b - a + 1);
        }
    }
    if work > allowance {
        return Err(OverBudget { needed: work });
    }
    // The spans, in footprint order: (footprint, row, first col, last col).
    let mut spans: Vec<(Footprint, u32, u32, u32)> = Vec::new();
    for &(which, c, r, grow) in &reach {
        let Some((a, b)) = rows_of(c, r) else {
            continue;
        };
        for j in a..=b {
            let y = slice.y(j);
            let span = match which {
                Footprint::Obstacle(k) => obstacle_span(&obstacles[k], y, z, grow),
                Footprint::Agent(_) => disc_span(c, y, grow),
            };
            let Some((i0, i1)) =
                span.and_then(|(lo, hi)| slice.indices(slice.origin[0], slice.cols, lo, hi))
            else {
                continue;
            };
            work = work.saturating_add(i1 - i0 + 1);
            if work > allowance {
                return Err(OverBudget { needed: work });
            }
            // Indices fit u32: cols and rows are at most the cell cap.
            spans.push((which, j as u32, i0 as u32, i1 as u32));
        }
    }
    let mut classes = vec![FREE; slice.cells()];
    for (j, row) in classes.chunks_mut(slice.cols.max(1)).enumerate() {
        let y = slice.y(j);
        for (i, c) in row.iter_mut().enumerate() {
            if terrain.height(slice.x(i), y) >= z - infl {
                *c = TERRAIN;
            }
        }
    }
    // Statics before agents (the spans are in that order): a cell keeps
    // the first class that claims it, as in `class_at`.
    for (which, j, i0, i1) in spans {
        let (j, y) = (j as usize, slice.y(j as usize));
        let row = &mut classes[j * slice.cols..(j + 1) * slice.cols];
        let (i0, i1) = (i0 as usize, i1 as usize);
        for (i, c) in row[i0..=i1].iter_mut().enumerate() {
            if *c != FREE {
                continue;
            }
            let x = slice.x(i0 + i);
            *c = match which {
                Footprint::Obstacle(k) if obstacles[k].covers_xy(x, y, z, infl) => STATIC,
                Footprint::Agent(k) if agent_covers(&agents[k], x, y, z, infl) => AGENT,
                _ => FREE,
            };
        }
    }
    let mut counts = [0usize; 4];
    for c in &classes {
        counts[usize::from(*c)] += 1;
    }
    Ok(Occupancy {
        classes,
        counts,
        work,
    })
}

/// How far from its centre obstacle `o` grown by `grow` reaches (m).
fn obstacle_reach(o: &Obstacle, grow: f64) -> f64 {
    let [a, b, c] = o.half_extents.map(|h| h + grow);
    match o.shape {
        ObstacleShape::Sphere => a,
        ObstacleShape::Cylinder => a.hypot(c),
        ObstacleShape::Box => a.hypot(b).hypot(c),
    }
}

/// The x-interval of the line `(·, y, z)` inside agent cylinder of
/// radius `r` about `c` (the height was checked by the caller).
fn disc_span(c: [f64; 3], y: f64, r: f64) -> Span {
    let s = r * r - (y - c[1]) * (y - c[1]);
    (s >= 0.0).then(|| (c[0] - s.sqrt(), c[0] + s.sqrt()))
}

/// The t-interval where `|r t + q| ≤ h`; a near-zero slope is constant
/// along the row (over the grid it moves by far less than the margin).
fn slab(r: f64, q: f64, h: f64) -> Option<(f64, f64)> {
    if r.abs() < 1e-12 {
        return (q.abs() <= h).then_some((f64::NEG_INFINITY, f64::INFINITY));
    }
    let (a, b) = ((-h - q) / r, (h - q) / r);
    Some((a.min(b), a.max(b)))
}

fn meet(a: (f64, f64), b: (f64, f64)) -> Option<(f64, f64)> {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    (lo <= hi).then_some((lo, hi))
}

/// The x-interval of the line `(·, y, z)` inside obstacle `o` grown by
/// `grow` (m). In the obstacle's local axes a point `x` of the line is
/// `d(x) = r (x − cx) + q`, linear in x.
fn obstacle_span(o: &Obstacle, y: f64, z: f64, grow: f64) -> Span {
    let [cx, cy, cz] = o.center;
    let (dy, dz) = (y - cy, z - cz);
    let [a, b, c] = o.half_extents.map(|h| h + grow);
    if o.shape == ObstacleShape::Sphere {
        let s = a * a - dy * dy - dz * dz;
        return (s >= 0.0).then(|| (cx - s.sqrt(), cx + s.sqrt()));
    }
    // Local = Rᵀ (p − c): column k of R gives local axis k.
    let m = o.rotation.unwrap_or_else(Matrix3::identity);
    let r = [m[(0, 0)], m[(0, 1)], m[(0, 2)]];
    let q = [0, 1, 2].map(|k| m[(1, k)] * dy + m[(2, k)] * dz);
    let t = match o.shape {
        ObstacleShape::Box => meet(
            meet(slab(r[0], q[0], a)?, slab(r[1], q[1], b)?)?,
            slab(r[2], q[2], c)?,
        ),
        _ => {
            // Cylinder: |d_xy| ≤ a, a quadratic in t, and |d_z| ≤ c.
            let qa = r[0] * r[0] + r[1] * r[1];
            let qb = r[0] * q[0] + r[1] * q[1];
            let qc = q[0] * q[0] + q[1] * q[1] - a * a;
            let radial = if qa < 1e-24 {
                (qc <= 0.0).then_some((f64::NEG_INFINITY, f64::INFINITY))
            } else {
                let disc = qb * qb - qa * qc;
                (disc >= 0.0).then(|| ((-qb - disc.sqrt()) / qa, (-qb + disc.sqrt()) / qa))
            };
            meet(radial?, slab(r[2], q[2], c)?)
        }
    }?;
    Some((cx + t.0, cx + t.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::TerrainSpec;
    use oceansim_protocol::payload::{SpawnObstacle, Vector};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn terrain() -> Terrain {
        Terrain::generate(TerrainSpec {
            size_m: [40.0, 30.0],
            floor_depth_m: 12.0,
            relief_m: 3.0,
            feature_scale_m: 8.0,
            canyon_width_m: None,
            canyon_wall_height_m: 0.0,
            seed: 7,
        })
    }

    fn reference(s: &Slice, t: &Terrain, obs: &[Obstacle], agents: &[AgentDisc]) -> Vec<u8> {
        (0..s.rows)
            .flat_map(|j| (0..s.cols).map(move |i| (i, j)))
            .map(|(i, j)| class_at(t, obs, agents, [s.x(i), s.y(j), s.z], s.inflation))
            .collect()
    }

    fn random_obstacle(rng: &mut ChaCha8Rng, k: usize) -> Obstacle {
        let shape = [
            ObstacleShape::Sphere,
            ObstacleShape::Box,
            ObstacleShape::Cylinder,
        ][rng.gen_range(0..3)];
        // Thin walls, rods and plates as well as blocks; some turned, some
        // axis-aligned, some turned by a hair (faces nearly along a row).
        let size = |rng: &mut ChaCha8Rng| {
            if rng.gen_bool(0.3) {
                rng.gen_range(0.05..0.3)
            } else {
                rng.gen_range(0.3..12.0)
            }
        };
        let rotation = match rng.gen_range(0..4) {
            0 => None,
            1 => Some(Vector([1e-9, 0.0, 0.0])),
            _ => Some(Vector([
                rng.gen_range(-180.0..180.0),
                rng.gen_range(-180.0..180.0),
                rng.gen_range(-180.0..180.0),
            ])),
        };
        let spawn = SpawnObstacle {
            id: None,
            shape,
            position: Vector([
                rng.gen_range(-22.0..22.0),
                rng.gen_range(-14.0..0.0),
                rng.gen_range(-17.0..17.0),
            ]),
            size: Some(Vector([size(rng), size(rng), size(rng)])),
            radius: Some(size(rng) / 2.0),
            height: Some(size(rng)),
            rotation,
        };
        Obstacle::from_spawn(format!("o{k}"), &spawn)
    }

    #[test]
    fn the_fast_path_equals_the_reference_cell_for_cell_on_random_scenes() {
        let t = terrain();
        let mut rng = ChaCha8Rng::seed_from_u64(26);
        for scene in 0..60 {
            let obs: Vec<Obstacle> = (0..rng.gen_range(0..40))
                .map(|k| random_obstacle(&mut rng, k))
                .collect();
            let agents: Vec<AgentDisc> = (0..rng.gen_range(0..6))
                .map(|_| {
                    let p = [
                        rng.gen_range(-20.0..20.0),
                        rng.gen_range(-15.0..15.0),
                        rng.gen_range(-12.0..-2.0),
                    ];
                    (p, rng.gen_range(0.05..2.0))
                })
                .collect();
            let cell = [0.1, 0.25, 0.37, 1.0][scene % 4];
            let [x0, x1, y0, y1] = t.bounds();
            let s = Slice {
                origin: [x0, y0],
                cell,
                cols: ((x1 - x0) / cell).ceil() as usize,
                rows: ((y1 - y0) / cell).ceil() as usize,
                // Often at an obstacle's centre height or face: the
                // tangent and grazing cases.
                z: match (scene % 3, obs.first()) {
                    (0, Some(o)) => o.center[2] + o.half_extents[2],
                    (1, Some(o)) => o.center[2],
                    _ => rng.gen_range(-12.0..-1.0),
                },
                inflation: [0.0, 0.0, 0.2, 1.5][scene % 4],
            };
            let fast = classify(&s, &t, &obs, &agents, usize::MAX).unwrap();
            let slow = reference(&s, &t, &obs, &agents);
            assert_eq!(fast.classes.len(), slow.len());
            if let Some(k) = (0..slow.len()).find(|&k| fast.classes[k] != slow[k]) {
                panic!(
                    "scene {scene}: cell ({}, {}) is {} fast, {} slow",
                    k % s.cols,
                    k / s.cols,
                    fast.classes[k],
                    slow[k]
                );
            }
            let statics = slow.iter().filter(|c| **c == STATIC).count();
            assert_eq!(fast.counts[usize::from(STATIC)], statics);
        }
    }

    #[test]
    fn work_follows_what_the_footprints_cover_and_the_allowance_holds() {
        let t = terrain();
        let [x0, _, y0, _] = t.bounds();
        let s = Slice {
            origin: [x0, y0],
            cell: 0.1,
            cols: 400,
            rows: 300,
            z: -6.0,
            inflation: 0.0,
        };
        let none = classify(&s, &t, &[], &[], usize::MAX).unwrap();
        assert_eq!(none.work, s.cells());
        // 500 small turned boxes: each costs its rows and its few cells
        // per row, not a test at each of the 120,000 cells.
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let small: Vec<Obstacle> = (0..500)
            .map(|k| {
                Obstacle::from_spawn(
                    format!("b{k}"),
                    &SpawnObstacle {
                        id: None,
                        shape: ObstacleShape::Box,
                        position: Vector([
                            rng.gen_range(-19.0..19.0),
                            -6.0,
                            rng.gen_range(-14.0..14.0),
                        ]),
                        size: Some(Vector([0.3, 0.3, 3.0])),
                        radius: None,
                        height: None,
                        rotation: Some(Vector([30.0, 45.0, 60.0])),
                    },
                )
            })
            .collect();
        let occ = classify(&s, &t, &small, &[], usize::MAX).unwrap();
        let extra = occ.work - s.cells();
        assert!(extra < 500 * 40 * 12, "{extra} units for 500 small boxes");
        assert!(occ.counts[usize::from(STATIC)] > 0);
        // Past the allowance: refused, the units needed named.
        let e = classify(&s, &t, &small, &[], s.cells() + 10).unwrap_err();
        assert!(e.needed > s.cells() + 10);
        assert_eq!(
            classify(&s, &t, &[], &[], s.cells() - 1)
                .unwrap_err()
                .needed,
            s.cells()
        );
        // A slice far above everything costs only its cells.
        let high = Slice { z: 1e300, ..s };
        assert_eq!(
            classify(&high, &t, &small, &[], usize::MAX).unwrap().work,
            s.cells()
        );
    }
}
