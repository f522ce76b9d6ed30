//! The seabed: a seeded heightfield in the user frame (x east, y north,
//! z up, m), with ray casts for the sensors and a local plane for contacts.

use nalgebra::Vector3;

/// SplitMix64: a fast, well-mixed hash of a 64-bit state.
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn lattice(seed: u64, ix: i64, iy: i64) -> f64 {
    let h = splitmix64(
        seed ^ splitmix64((ix as u64).wrapping_mul(0x1F1F_1F1F) ^ (iy as u64).rotate_left(32)),
    );
    (h >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

fn smooth(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

/// Value noise in [-1, 1] with quintic interpolation.
fn value_noise(seed: u64, x: f64, y: f64) -> f64 {
    let (x0, y0) = (x.floor(), y.floor());
    let (tx, ty) = (smooth(x - x0), smooth(y - y0));
    let (ix, iy) = (x0 as i64, y0 as i64);
    let a = lattice(seed, ix, iy);
    let b = lattice(seed, ix + 1, iy);
    let c = lattice(seed, ix, iy + 1);
    let d = lattice(seed, ix + 1, iy + 1);
    let top = a + (b - a) * tx;
    let bottom = c + (d - c) * tx;
    top + (bottom - top) * ty
}

/// Fractal (4-octave) value noise, roughly in [-1, 1].
pub fn fbm(seed: u64, x: f64, y: f64) -> f64 {
    let (mut sum, mut amp, mut freq, mut norm) = (0.0, 1.0, 1.0, 0.0);
    for octave in 0..4u64 {
        sum += amp * value_noise(splitmix64(seed.wrapping_add(octave)), x * freq, y * freq);
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    sum / norm
}

/// Parameters of a generated seabed.
#[derive(Debug, Clone, PartialEq)]
pub struct TerrainSpec {
    /// Map extent along x and y (m), centred on the origin.
    pub size_m: [f64; 2],
    /// Mean seabed depth (m, positive down).
    pub floor_depth_m: f64,
    /// Relief amplitude (m).
    pub relief_m: f64,
    /// Horizontal scale of the relief features (m).
    pub feature_scale_m: f64,
    /// For canyons: passage width (m) along the north axis.
    pub canyon_width_m: Option<f64>,
    /// For canyons: wall height above the floor (m).
    pub canyon_wall_height_m: f64,
    /// Seed.
    pub seed: u64,
}

impl TerrainSpec {
    /// A flat seabed `floor_depth_m` deep over `size_m` (east, north; m):
    /// a test scene where every ray's range is known in closed form.
    pub fn flat(size_m: [f64; 2], floor_depth_m: f64) -> Self {
        TerrainSpec {
            size_m,
            floor_depth_m,
            relief_m: 0.0,
            feature_scale_m: 10.0,
            canyon_width_m: None,
            canyon_wall_height_m: 0.0,
            seed: 1,
        }
    }
}

/// A seeded heightfield seabed sampled on a regular grid (bilinear between
/// samples). Heights are user-frame z (negative below the surface).
#[derive(Debug, Clone)]
pub struct Terrain {
    /// What it was generated from.
    pub spec: TerrainSpec,
    cell: f64,
    nx: usize,
    ny: usize,
    heights: Vec<f64>,
    max_height: f64,
    min_height: f64,
    /// Highest node of each block of [`BLOCK`] × `BLOCK` cells, with a
    /// ring of blocks for the outside (rows of `blocks[0] + 2`).
    block_max: Vec<f64>,
    /// Blocks across the grid (x, y).
    blocks: [usize; 2],
    /// Highest corner of each cell, with a ring of cells for the outside
    /// (rows of `nx + 1`): the cell walk reads one number for a cell the
    /// ray passes above instead of its four corners.
    cell_max: Vec<f64>,
    /// Grid origin and inverse spacing, cached for `height`.
    x0: f64,
    /// The last node's index along x and y, as floats, for `height`.
    fx_max: f64,
    fy_max: f64,
    y0: f64,
    inv_cell: f64,
}

/// Grid spacing of the terrain samples (m).
pub const TERRAIN_CELL_M: f64 = 0.5;

impl Terrain {
    /// Generates the seabed.
    pub fn generate(spec: TerrainSpec) -> Self {
        let cell = TERRAIN_CELL_M;
        let nx = (spec.size_m[0] / cell).ceil() as usize + 1;
        let ny = (spec.size_m[1] / cell).ceil() as usize + 1;
        let (x0, y0) = (-spec.size_m[0] / 2.0, -spec.size_m[1] / 2.0);
        let mut heights = Vec::with_capacity(nx * ny);
        for j in 0..ny {
            for i in 0..nx {
                let (x, y) = (x0 + i as f64 * cell, y0 + j as f64 * cell);
                let s = spec.feature_scale_m.max(0.1);
                let mut z = -spec.floor_depth_m + spec.relief_m * fbm(spec.seed, x / s, y / s);
                if let Some(w) = spec.canyon_width_m {
                    // Walls rise smoothly over 3 m outside the passage.
                    let out = ((x.abs() - w / 2.0) / 3.0).clamp(0.0, 1.0);
                    z += spec.canyon_wall_height_m * smooth(out);
                }
                heights.push(z.min(-0.5));
            }
        }
        let max_height = heights.iter().copied().fold(f64::MIN, f64::max);
        let min_height = heights.iter().copied().fold(f64::MAX, f64::min);
        let blocks = [(nx - 1).div_ceil(BLOCK), (ny - 1).div_ceil(BLOCK)];
        let block_max = block_maxima(&heights, [nx, ny], blocks, BLOCK);
        let cell_max = block_maxima(&heights, [nx, ny], [nx - 1, ny - 1], 1);
        let (x0, y0) = (-spec.size_m[0] / 2.0, -spec.size_m[1] / 2.0);
        Terrain {
            spec,
            cell,
            nx,
            ny,
            heights,
            max_height,
            min_height,
            block_max,
            blocks,
            cell_max,
            x0,
            fx_max: (nx - 1) as f64,
            fy_max: (ny - 1) as f64,
            y0,
            inv_cell: 1.0 / cell,
        }
    }

    /// Map bounds (min x, max x, min y, max y), m.
    pub fn bounds(&self) -> [f64; 4] {
        let [sx, sy] = self.spec.size_m;
        [-sx / 2.0, sx / 2.0, -sy / 2.0, sy / 2.0]
    }

    /// Grid spacing of the height samples (m).
    pub fn cell_m(&self) -> f64 {
        self.cell
    }

    /// Highest seabed z (m).
    pub fn max_height(&self) -> f64 {
        self.max_height
    }

    /// Lowest seabed z (m).
    pub fn min_height(&self) -> f64 {
        self.min_height
    }

    /// Seabed z at (x, y), clamped to the map edge.
    #[inline]
    pub fn height(&self, x: f64, y: f64) -> f64 {
        self.height_inline(x, y)
    }

    /// [`Terrain::height`], always inlined: [`Terrain::normal`] takes four
    /// per ray hit, where the call itself cost a quarter of a cast.
    #[inline(always)]
    fn height_inline(&self, x: f64, y: f64) -> f64 {
        // max/min rather than clamp: the same for every number (NaN goes
        // to the first node instead of through), without clamp's check of
        // its bounds on each of the four calls a normal makes.
        let fx = ((x - self.x0) * self.inv_cell).max(0.0).min(self.fx_max);
        let fy = ((y - self.y0) * self.inv_cell).max(0.0).min(self.fy_max);
        let (i, j) = (
            (fx as usize).min(self.nx - 2),
            (fy as usize).min(self.ny - 2),
        );
        let (tx, ty) = (fx - i as f64, fy - j as f64);
        let k = j * self.nx + i;
        let (near, far) = (
            &self.heights[k..k + 2],
            &self.heights[k + self.nx..k + self.nx + 2],
        );
        let (a, b) = (near[0], near[1]);
        let (c, d) = (far[0], far[1]);
        let top = a + (b - a) * tx;
        let bottom = c + (d - c) * tx;
        top + (bottom - top) * ty
    }

    /// Distance along unit `dir` from `o` to the seabed, within `max` m.
    ///
    /// The ray walks the grid in two levels: blocks of [`BLOCK`] × `BLOCK`
    /// cells, skipping each block it passes wholly above its highest node,
    /// then, inside a block it may touch, cell by cell (a 2-D DDA),
    /// skipping each cell it passes above and intersecting the cell's
    /// bilinear patch exactly (a quadratic along the ray). Past the grid's
    /// edge the seabed continues as its edge values: there the walk goes on
    /// over virtual cells that span the whole outside along one axis, so
    /// rays beyond the map are exact too.
    pub fn raycast(&self, o: &Vector3<f64>, dir: &Vector3<f64>, max: f64) -> Option<f64> {
        self.raycast_in(o, dir, max, true).map(|h| h.t)
    }

    /// [`Terrain::raycast`], with the slope of the patch the ray met
    /// there ([`SeabedHit::normal`]).
    pub fn raycast_hit(&self, o: &Vector3<f64>, dir: &Vector3<f64>, max: f64) -> Option<SeabedHit> {
        self.raycast_in(o, dir, max, true)
    }

    /// [`Terrain::raycast`], with or without the block level (the cell walk
    /// alone is the reference the blocks must agree with).
    fn raycast_in(
        &self,
        o: &Vector3<f64>,
        dir: &Vector3<f64>,
        max: f64,
        blocks: bool,
    ) -> Option<SeabedHit> {
        // Finite numbers from here on: the walk compares without the NaN
        // handling of `f64::min` (a tenth of its time).
        if !(o.iter().chain(dir.iter()).all(|v| v.is_finite()) && max >= 0.0) {
            return None;
        }
        // Start where the ray can first reach the highest terrain point.
        let t = if o.z > self.max_height {
            if dir.z >= 0.0 {
                return None;
            }
            (self.max_height - o.z) / dir.z
        } else {
            0.0
        };
        if t > max {
            return None;
        }
        // A start under the seabed is a hit at once: the first cell's
        // patch test finds it (its gap is ≤ 0 there).
        let ray = Ray::new(self, o, dir);
        if blocks {
            self.walk_blocks(&ray, t, max)
        } else {
            self.walk_cells(&ray, t, max)
        }
    }

    /// The block level: skips blocks the ray passes wholly above.
    fn walk_blocks(&self, ray: &Ray<'_>, mut t: f64, max: f64) -> Option<SeabedHit> {
        let p = ray.at(t);
        let (mut bi, mut bj) = (
            ray.x.unit_of(ray.x.cell_of(p.x), BLOCK as i64),
            ray.y.unit_of(ray.y.cell_of(p.y), BLOCK as i64),
        );
        let (mut tx, mut ty) = (ray.x.exit(bi, BLOCK as i64), ray.y.exit(bj, BLOCK as i64));
        loop {
            let exit = greater(lesser(lesser(tx, ty), max), t);
            let top = self.block_max[(bj + 1) as usize * (self.blocks[0] + 2) + (bi + 1) as usize];
            if ray.z_low(t, exit) <= top {
                if let Some(hit) = self.walk_cells(ray, t, exit) {
                    return Some(hit);
                }
            }
            if exit >= max || (ray.d.z >= 0.0 && ray.z(exit) > self.max_height) {
                return None;
            }
            t = exit;
            if tx <= ty {
                bi += ray.x.step;
                tx = ray.x.exit(bi, BLOCK as i64);
            } else {
                bj += ray.y.step;
                ty = ray.y.exit(bj, BLOCK as i64);
            }
        }
    }

    /// The cell level over [t, end]: the first crossing of the seabed.
    fn walk_cells(&self, ray: &Ray<'_>, mut t: f64, end: f64) -> Option<SeabedHit> {
        let p = ray.at(t);
        let (mut i, mut j) = (ray.x.cell_of(p.x), ray.y.cell_of(p.y));
        let (mut tx, mut ty) = (ray.x.exit(i, 1), ray.y.exit(j, 1));
        loop {
            let exit = greater(lesser(lesser(tx, ty), end), t);
            let top = self.cell_max[(j + 1) as usize * (self.nx + 1) + (i + 1) as usize];
            if ray.z_low(t, exit) <= top {
                // Outside the grid the corners clamp to its edge: a patch
                // flat along the outside axis, as `height` extends the
                // seabed.
                let (ia, ib) = (self.node_x(i), self.node_x(i + 1));
                let (ja, jb) = (self.node_y(j) * self.nx, self.node_y(j + 1) * self.nx);
                let corners = [
                    self.heights[ja + ia],
                    self.heights[ja + ib],
                    self.heights[jb + ia],
                    self.heights[jb + ib],
                ];
                if let Some(hit) = self.cell_hit(ray.o, ray.d, (i, j), &corners, t, exit) {
                    return Some(hit);
                }
            }
            if exit >= end || (ray.d.z >= 0.0 && ray.z(exit) > self.max_height) {
                return None;
            }
            t = exit;
            if tx <= ty {
                i += ray.x.step;
                tx = ray.x.exit(i, 1);
            } else {
                j += ray.y.step;
                ty = ray.y.exit(j, 1);
            }
        }
    }

    /// The grid column of extended cell column `i`'s left (`i`) or right
    /// (`i + 1`) node, clamped to the grid.
    #[inline]
    fn node_x(&self, i: i64) -> usize {
        i.clamp(0, self.nx as i64 - 1) as usize
    }

    /// As [`Terrain::node_x`] for rows.
    #[inline]
    fn node_y(&self, j: i64) -> usize {
        j.clamp(0, self.ny as i64 - 1) as usize
    }

    /// The first crossing of the ray with cell (i, j)'s bilinear patch on
    /// [t0, t1]: gap(s) = z(s) − h(u(s), v(s)) is quadratic in s = t − t0.
    /// Cells outside the grid (index −1 or past the last) have corners
    /// flat along the outside axis, where `u` or `v` then drops out (and
    /// so does the slope along it: b = e = 0 there, or c = e = 0).
    fn cell_hit(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        (i, j): (i64, i64),
        h: &[f64; 4],
        t0: f64,
        t1: f64,
    ) -> Option<SeabedHit> {
        let p = o + d * t0;
        let (xi, yj) = (
            self.x0 + i as f64 * self.cell,
            self.y0 + j as f64 * self.cell,
        );
        let (u0, v0) = ((p.x - xi) * self.inv_cell, (p.y - yj) * self.inv_cell);
        let (du, dv) = (d.x * self.inv_cell, d.y * self.inv_cell);
        let (b, c, e) = (h[1] - h[0], h[2] - h[0], h[0] - h[1] - h[2] + h[3]);
        // h(s) = k0 + k1 s + k2 s²
        let k0 = h[0] + b * u0 + c * v0 + e * u0 * v0;
        let k1 = b * du + c * dv + e * (u0 * dv + du * v0);
        let k2 = e * du * dv;
        let (f0, f1, f2) = (p.z - k0, d.z - k1, -k2);
        let span = t1 - t0;
        let first_root = if f0 <= 0.0 {
            Some(0.0)
        } else if f2.abs() < 1e-12 {
            (f1 < 0.0).then(|| -f0 / f1)
        } else {
            let disc = f1 * f1 - 4.0 * f2 * f0;
            if disc < 0.0 {
                None
            } else {
                // Stable roots of f2 s² + f1 s + f0.
                let q = -0.5 * (f1 + f1.signum() * disc.sqrt());
                let (r1, r2) = (q / f2, if q != 0.0 { f0 / q } else { f64::INFINITY });
                [r1.min(r2), r1.max(r2)].into_iter().find(|r| *r >= 0.0)
            }
        };
        let s = first_root.filter(|s| *s <= span)?;
        // The patch's slope where the ray met it: ∂h/∂x = (b + e v) / cell,
        // ∂h/∂y = (c + e u) / cell.
        let (u, v) = (u0 + du * s, v0 + dv * s);
        Some(SeabedHit {
            t: t0 + s,
            slope: [(b + e * v) * self.inv_cell, (c + e * u) * self.inv_cell],
        })
    }
}

/// The highest node of each block of `cells` × `cells` (x fastest), the
/// outside included: block −1 along an axis is the grid's first node
/// line, block `blocks` its last. With `cells` 1, each cell's highest
/// corner.
fn block_maxima(
    heights: &[f64],
    [nx, ny]: [usize; 2],
    blocks: [usize; 2],
    cells: usize,
) -> Vec<f64> {
    // Nodes a block spans along one axis of `nodes`, blocks from −1.
    let span = |k: usize, count: usize, nodes: usize| match k {
        0 => 0..=0,
        _ if k == count + 1 => nodes - 1..=nodes - 1,
        _ => (k - 1) * cells..=(k * cells).min(nodes - 1),
    };
    let mut out = Vec::with_capacity((blocks[0] + 2) * (blocks[1] + 2));
    for bj in 0..blocks[1] + 2 {
        for bi in 0..blocks[0] + 2 {
            let mut top = f64::MIN;
            for j in span(bj, blocks[1], ny) {
                for i in span(bi, blocks[0], nx) {
                    top = top.max(heights[j * nx + i]);
                }
            }
            out.push(top);
        }
    }
    out
}

/// Cells per side of a block, the coarse level of [`Terrain::raycast`]'s
/// walk: on the default 40 m map a ray 13 m above the seabed crosses a
/// dozen blocks instead of a hundred cells.
pub const BLOCK: usize = 8;

mod walk;
use walk::{greater, lesser, Ray};

/// Where a ray met the seabed ([`Terrain::raycast_hit`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeabedHit {
    /// Distance along the ray (m).
    pub t: f64,
    /// The slope of the patch it met, there: (∂h/∂x, ∂h/∂y), user frame.
    pub slope: [f64; 2],
}

impl SeabedHit {
    /// The upward unit normal of the surface the ray met, where it met it:
    /// the bilinear patch's own, the surface its range was measured on
    /// (exact on planes, where it equals [`Terrain::normal`], whose central
    /// differences smooth over a cell's width and cost four height
    /// lookups).
    #[inline]
    pub fn normal(&self) -> Vector3<f64> {
        let [dx, dy] = self.slope;
        // One square root and one division (normalize divides thrice).
        let inv = 1.0 / (dx * dx + dy * dy + 1.0).sqrt();
        Vector3::new(-dx * inv, -dy * inv, inv)
    }
}

impl Terrain {
    /// Upward unit normal of the seabed at (x, y), by central differences
    /// over one sample spacing.
    pub fn normal(&self, x: f64, y: f64) -> Vector3<f64> {
        let h = 0.5 * self.cell;
        // The spacing is a power of two (0.5 m), so multiplying by its
        // inverse is dividing by it, to the bit, without two divisions.
        const _: () = assert!(TERRAIN_CELL_M == 0.5);
        let dx = (self.height_inline(x + h, y) - self.height_inline(x - h, y)) * self.inv_cell;
        let dy = (self.height_inline(x, y + h) - self.height_inline(x, y - h)) * self.inv_cell;
        Vector3::new(-dx, -dy, 1.0).normalize()
    }

    /// How far a sphere of radius `r` at `c` has sunk into the seabed, with
    /// the normal to push it out along: the seabed under the sphere is taken
    /// as its tangent plane at (c.x, c.y), exact on planes and close on the
    /// gentle relief these generators make.
    pub fn sphere_contact(&self, c: &Vector3<f64>, r: f64) -> Option<(Vector3<f64>, f64)> {
        let h = self.height(c.x, c.y);
        if c.z - r > h + 1e-12 && c.z - r > self.max_height {
            return None;
        }
        let n = self.normal(c.x, c.y);
        let gap = (c.z - h) * n.z;
        (gap < r).then_some((n, r - gap))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terrain_is_seeded_and_raycasts_hit_the_floor() {
        let spec = TerrainSpec {
            size_m: [40.0, 40.0],
            floor_depth_m: 20.0,
            relief_m: 3.0,
            feature_scale_m: 10.0,
            canyon_width_m: None,
            canyon_wall_height_m: 0.0,
            seed: 7,
        };
        let a = Terrain::generate(spec.clone());
        let b = Terrain::generate(spec.clone());
        let c = Terrain::generate(TerrainSpec { seed: 8, ..spec });
        assert_eq!(a.height(1.3, -2.7), b.height(1.3, -2.7));
        assert_ne!(a.height(1.3, -2.7), c.height(1.3, -2.7));
        assert!(a.max_height() <= -17.0 + 1e-9 && a.min_height() >= -23.0 - 1e-9);
        let o = Vector3::new(0.5, 0.5, -5.0);
        let t = a.raycast(&o, &-Vector3::z(), 50.0).unwrap();
        assert!((o.z - t - a.height(0.5, 0.5)).abs() < 1e-3);
        assert!(
            a.raycast(&o, &Vector3::x(), 50.0).is_none(),
            "horizontal ray above the relief"
        );
    }

    #[test]
    fn a_sphere_on_the_seabed_is_pushed_out_along_its_normal() {
        let t = Terrain::generate(TerrainSpec::flat([40.0, 40.0], 20.0));
        // Flat floor at z = -20: a 0.5 m sphere at -19.8 sits 0.3 m deep.
        let (n, depth) = t
            .sphere_contact(&Vector3::new(1.0, 2.0, -19.8), 0.5)
            .unwrap();
        assert!((n - Vector3::z()).norm() < 1e-12);
        assert!((depth - 0.3).abs() < 1e-12);
        assert!(t
            .sphere_contact(&Vector3::new(1.0, 2.0, -19.4), 0.5)
            .is_none());
        // A canyon wall slopes: its normal leans away from the wall.
        let c = Terrain::generate(TerrainSpec {
            canyon_width_m: Some(8.0),
            canyon_wall_height_m: 10.0,
            ..t.spec.clone()
        });
        let n = c.normal(5.5, 0.0);
        assert!(n.x < -0.5 && n.z > 0.0, "east wall faces west: {n:?}");
    }
}

#[cfg(test)]
#[path = "terrain_props.rs"]
mod raycast_props;
