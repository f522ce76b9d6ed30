//! Ocean current at each vehicle: uniform, a function of position and
//! time, or a gridded field interpolated trilinearly. The dynamics take it
//! as the water's velocity, so it enters through the relative velocity
//! ν_r = ν − [Rᵀ v_c; 0].

use super::names;
use oceansim_ecs::{Access, EcsError, Handle, Result, Step, System, World};
use std::sync::Arc;

/// A current function: (position NED m, time s) → velocity NED m/s.
pub type CurrentFn = dyn Fn([f64; 3], f64) -> [f64; 3] + Send + Sync;

/// Water velocity on a regular grid over NED, interpolated trilinearly
/// and held at its edge value outside the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentGrid {
    origin: [f64; 3],
    spacing: [f64; 3],
    dims: [usize; 3],
    /// (nx, ny, nz, 3) row-major, x slowest.
    values: Vec<f64>,
}

impl CurrentGrid {
    /// A grid with node (i, j, k) at origin + (i, j, k) ⊙ spacing and
    /// `values` laid out (nx, ny, nz, 3), x slowest.
    pub fn new(
        origin: [f64; 3],
        spacing: [f64; 3],
        dims: [usize; 3],
        values: Vec<f64>,
    ) -> Result<Self> {
        let want = dims
            .iter()
            .try_fold(3usize, |acc, d| acc.checked_mul(*d))
            .unwrap_or(usize::MAX);
        let bad = |why: String| EcsError::Shape {
            name: "current grid".into(),
            expected:
                "≥ 1 node per axis, positive finite spacing, finite values, nx·ny·nz·3 values"
                    .into(),
            got: why,
        };
        if dims.contains(&0) || values.len() != want {
            return Err(bad(format!("dims {dims:?}, {} values", values.len())));
        }
        if spacing.iter().any(|s| !(s.is_finite() && *s > 0.0))
            || origin.iter().chain(&values).any(|v| !v.is_finite())
        {
            return Err(bad(format!("spacing {spacing:?} or a non-finite value")));
        }
        Ok(CurrentGrid {
            origin,
            spacing,
            dims,
            values,
        })
    }

    fn node(&self, i: usize, j: usize, k: usize) -> &[f64] {
        let at = ((i * self.dims[1] + j) * self.dims[2] + k) * 3;
        &self.values[at..at + 3]
    }

    /// The interpolated velocity (m/s, NED) at `p` (m, NED).
    pub fn at(&self, p: [f64; 3]) -> [f64; 3] {
        // Per axis: the lower node and the weight of the upper one.
        let mut lo = [0usize; 3];
        let mut t = [0.0; 3];
        for a in 0..3 {
            let last = self.dims[a] - 1;
            let u = ((p[a] - self.origin[a]) / self.spacing[a]).clamp(0.0, last as f64);
            let i = (u.floor() as usize).min(last.saturating_sub(1));
            lo[a] = i;
            t[a] = if last == 0 { 0.0 } else { u - i as f64 };
        }
        let hi = |a: usize| (lo[a] + 1).min(self.dims[a] - 1);
        let mut out = [0.0; 3];
        for (di, wi) in [(0, 1.0 - t[0]), (1, t[0])] {
            for (dj, wj) in [(0, 1.0 - t[1]), (1, t[1])] {
                for (dk, wk) in [(0, 1.0 - t[2]), (1, t[2])] {
                    let w = wi * wj * wk;
                    if w == 0.0 {
                        continue;
                    }
                    let i = if di == 0 { lo[0] } else { hi(0) };
                    let j = if dj == 0 { lo[1] } else { hi(1) };
                    let k = if dk == 0 { lo[2] } else { hi(2) };
                    let v = self.node(i, j, k);
                    for c in 0..3 {
                        out[c] += w * v[c];
                    }
                }
            }
        }
        out
    }
}

/// Where the current comes from.
#[derive(Clone)]
pub enum CurrentField {
    /// The same velocity everywhere (m/s, NED).
    Uniform([f64; 3]),
    /// A function of position and time.
    Function(Arc<CurrentFn>),
    /// A gridded field.
    Grid(Arc<CurrentGrid>),
}

impl std::fmt::Debug for CurrentField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CurrentField::Uniform(v) => f.debug_tuple("Uniform").field(v).finish(),
            CurrentField::Function(_) => f.write_str("Function(..)"),
            CurrentField::Grid(g) => f.debug_tuple("Grid").field(&g.dims).finish(),
        }
    }
}

impl CurrentField {
    /// The velocity (m/s, NED) at `p` (m, NED) and time `t` (s).
    pub fn at(&self, p: [f64; 3], t: f64) -> [f64; 3] {
        match self {
            CurrentField::Uniform(v) => *v,
            CurrentField::Function(f) => f(p, t),
            CurrentField::Grid(g) => g.at(p),
        }
    }
}

/// `ocean_current`: writes [`names::CURRENT`] from the field at each
/// vehicle's position at the start of the tick. A non-finite sample is
/// written as zero (a user function cannot poison the dynamics).
#[derive(Debug)]
pub struct OceanCurrent {
    field: CurrentField,
    h: Option<[Handle<f64>; 2]>,
}

impl OceanCurrent {
    /// Samples `field`.
    pub fn new(field: CurrentField) -> Self {
        OceanCurrent { field, h: None }
    }
}

impl System for OceanCurrent {
    fn name(&self) -> &str {
        "ocean_current"
    }
    fn access(&self) -> Access {
        Access::new().read(names::P).write(names::CURRENT)
    }
    fn init(&mut self, w: &World) -> Result<()> {
        self.h = Some([w.handle(names::P)?, w.handle(names::CURRENT)?]);
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let Some([hp, hc]) = self.h else { return };
        let (p, mut c) = (w.read(hp), w.write(hc));
        for (c, p) in c.chunks_exact_mut(3).zip(p.chunks_exact(3)) {
            let v = self.field.at([p[0], p[1], p[2]], step.time);
            let ok = v.iter().all(|x| x.is_finite());
            c.copy_from_slice(if ok { &v } else { &[0.0; 3] });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_interpolates_linear_fields_exactly_and_holds_edges() {
        // v = (x + 2y − z, 1, 0) on a 3×3×2 grid: trilinear is exact.
        let (o, s) = ([-10.0, 0.0, 0.0], [5.0, 2.0, 4.0]);
        let mut values = Vec::new();
        for i in 0..3 {
            for j in 0..3 {
                for k in 0..2 {
                    let (x, y, z) = (o[0] + i as f64 * s[0], j as f64 * s[1], k as f64 * s[2]);
                    values.extend([x + 2.0 * y - z, 1.0, 0.0]);
                }
            }
        }
        let g = CurrentGrid::new(o, s, [3, 3, 2], values).unwrap();
        let v = g.at([-3.0, 1.5, 2.5]);
        assert!((v[0] - (-3.0 + 3.0 - 2.5)).abs() < 1e-12, "{v:?}");
        assert_eq!(v[1], 1.0);
        // Outside: the nearest edge value.
        assert_eq!(g.at([100.0, 4.0, 4.0])[0], 0.0 + 8.0 - 4.0);
        assert!(CurrentGrid::new(o, [0.0, 1.0, 1.0], [1, 1, 1], vec![0.0; 3]).is_err());
        assert!(CurrentGrid::new(o, s, [2, 1, 1], vec![0.0; 3]).is_err());
        // A one-node axis is constant along it.
        let flat = CurrentGrid::new(o, s, [1, 1, 1], vec![0.3, 0.0, 0.0]).unwrap();
        assert_eq!(flat.at([1e9, -1e9, 0.0]), [0.3, 0.0, 0.0]);
    }
}
