//! The seabed walk's ray: its two horizontal axes in extended cell
//! indices (the outside as one virtual cell per side), and comparisons
//! for numbers that are never NaN.

use super::Terrain;
use nalgebra::Vector3;

/// The smaller of two numbers that are not NaN (`f64::min` without its
/// NaN test; the walk's numbers are finite or ±∞).
#[inline(always)]
pub(super) fn lesser(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// The larger of two numbers that are not NaN.
#[inline(always)]
pub(super) fn greater(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// A ray as the grid walk sees it.
pub(super) struct Ray<'a> {
    pub(super) o: &'a Vector3<f64>,
    pub(super) d: &'a Vector3<f64>,
    pub(super) x: Axis,
    pub(super) y: Axis,
}

impl<'a> Ray<'a> {
    pub(super) fn new(terrain: &Terrain, o: &'a Vector3<f64>, d: &'a Vector3<f64>) -> Self {
        Ray {
            o,
            d,
            x: Axis::new(o.x, d.x, terrain.x0, terrain.cell, terrain.nx),
            y: Axis::new(o.y, d.y, terrain.y0, terrain.cell, terrain.ny),
        }
    }

    #[inline]
    pub(super) fn at(&self, t: f64) -> Vector3<f64> {
        self.o + self.d * t
    }

    #[inline]
    pub(super) fn z(&self, t: f64) -> f64 {
        self.o.z + self.d.z * t
    }

    /// The ray's lowest z over [t0, t1].
    #[inline]
    pub(super) fn z_low(&self, t0: f64, t1: f64) -> f64 {
        lesser(self.z(t0), self.z(t1))
    }
}

/// One horizontal axis of a ray's walk. Extended cell indices run from −1
/// (all of the outside before the grid's first node) through the grid's
/// cells `0..cells` to `cells` (all of the outside past its last node);
/// units of `span` cells group them into blocks the same way.
#[derive(Clone, Copy)]
pub(super) struct Axis {
    /// Ray origin along the axis (m).
    pub(super) o: f64,
    /// 1 / the direction's component (±∞ when it is 0).
    pub(super) inv_d: f64,
    /// +1, −1 or 0: which way the ray goes along the axis.
    pub(super) step: i64,
    /// The grid's first node (m).
    pub(super) lo: f64,
    pub(super) cell: f64,
    pub(super) inv_cell: f64,
    /// Cells across the grid (nodes − 1).
    pub(super) cells: i64,
}

impl Axis {
    pub(super) fn new(o: f64, d: f64, lo: f64, cell: f64, nodes: usize) -> Self {
        let step = if d > 1e-12 {
            1
        } else if d < -1e-12 {
            -1
        } else {
            0
        };
        Axis {
            o,
            inv_d: 1.0 / d,
            step,
            lo,
            cell,
            inv_cell: 1.0 / cell,
            cells: nodes as i64 - 1,
        }
    }

    /// The extended cell holding coordinate `x` (m).
    #[inline]
    pub(super) fn cell_of(&self, x: f64) -> i64 {
        // Truncation is the floor here: negatives are the outside.
        let f = (x - self.lo) * self.inv_cell;
        if f < 0.0 {
            -1
        } else if f >= self.cells as f64 {
            self.cells
        } else {
            f as i64
        }
    }

    /// The unit of `span` cells holding extended cell `c`.
    #[inline]
    pub(super) fn unit_of(&self, c: i64, span: i64) -> i64 {
        if c < 0 {
            -1
        } else if c >= self.cells {
            self.units(span)
        } else {
            c / span
        }
    }

    /// Units of `span` cells across the grid.
    #[inline]
    pub(super) fn units(&self, span: i64) -> i64 {
        (self.cells + span - 1) / span
    }

    /// Ray parameter where it leaves unit `k` of `span` cells (∞ when it
    /// never does: it runs along the axis or out to the open outside).
    #[inline]
    pub(super) fn exit(&self, k: i64, span: i64) -> f64 {
        let node = match self.step {
            1 if k < self.units(span) => ((k + 1) * span).min(self.cells),
            -1 if k >= 0 => (k * span).min(self.cells),
            _ => return f64::INFINITY,
        };
        (self.lo + node as f64 * self.cell - self.o) * self.inv_d
    }
}
