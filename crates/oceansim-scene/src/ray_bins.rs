//! An angular broad phase for one sensor origin: the candidates of a
//! sample binned by the directions, seen from the origin, in which a ray
//! could pass their bounding sphere, so a ray tests only its own bin.
//!
//! Exactness: `nearest` skips a candidate whose bounding sphere is behind
//! or beside the ray before any hit test. A candidate is left out of a bin
//! only when every direction in that bin is (with a margin for rounding)
//! farther from the sphere's centre than the sphere's angular radius, so
//! `nearest` would have skipped it there anyway; bins keep the candidates'
//! order, so ties resolve as before and every hit is bit-identical.

use nalgebra::Vector3;
use std::f64::consts::{FRAC_PI_2, PI};

/// Azimuth bins over [-π, π).
const AZ_BINS: usize = 64;
/// Elevation bins over [-π/2, π/2].
const EL_BINS: usize = 32;
const BINS: usize = AZ_BINS * EL_BINS;
/// Angular margin (rad) for rounding in the bin maps and the sphere test;
/// a bin is 0.1 rad wide, so this costs next to nothing.
const PAD: f64 = 1e-6;

/// Candidates (positions in one candidate list) by ray-direction bin.
#[derive(Debug, Clone)]
pub(crate) struct Bins {
    /// `items[start[b]..start[b + 1]]` are bin `b`'s positions, ascending.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Bins {
    /// Bins the bounding spheres `(centre, radius)` as seen from `o`.
    pub(crate) fn new(
        o: &Vector3<f64>,
        spheres: impl Iterator<Item = (Vector3<f64>, f64)>,
    ) -> Self {
        let spans: Vec<Span> = spheres.map(|(c, r)| Span::of(c - o, r)).collect();
        // Counting pass, then fill: two flat arrays, no per-bin vectors.
        let mut start = vec![0u32; BINS + 1];
        for s in &spans {
            s.each_bin(|b| start[b + 1] += 1);
        }
        for b in 0..BINS {
            start[b + 1] += start[b];
        }
        let mut next = start.clone();
        let mut items = vec![0u32; start[BINS] as usize];
        for (pos, s) in spans.iter().enumerate() {
            s.each_bin(|b| {
                items[next[b] as usize] = pos as u32;
                next[b] += 1;
            });
        }
        Bins { start, items }
    }

    /// Positions of the candidates a ray in bin `bin` (see [`bin_of`])
    /// could reach, in order.
    pub(crate) fn along(&self, bin: usize) -> &[u32] {
        &self.items[self.start[bin] as usize..self.start[bin + 1] as usize]
    }
}

/// The bin of direction `d` (any length; `None` if not finite or zero).
pub(crate) fn bin_of(d: &Vector3<f64>) -> Option<usize> {
    if !d.iter().all(|v| v.is_finite()) || *d == Vector3::zeros() {
        return None;
    }
    let az = d.y.atan2(d.x);
    let el = d.z.atan2(d.x.hypot(d.y));
    Some(el_index(el) * AZ_BINS + az_index(az).rem_euclid(AZ_BINS as i64) as usize)
}

fn az_index(az: f64) -> i64 {
    // Saturating cast; callers clamp or wrap.
    (((az + PI) / (2.0 * PI)) * AZ_BINS as f64).floor() as i64
}

fn el_index(el: f64) -> usize {
    let j = (((el + FRAC_PI_2) / PI) * EL_BINS as f64).floor() as i64;
    j.clamp(0, EL_BINS as i64 - 1) as usize
}

/// The bins a sphere can be reached through: every bin, or an elevation
/// band with all azimuths, or an azimuth range (wrapping) on a band.
enum Span {
    All,
    Band {
        el: (usize, usize),
        az: Option<(i64, i64)>,
    },
}

impl Span {
    /// The span of the sphere of radius `r` centred at `c` (relative to
    /// the origin).
    fn of(c: Vector3<f64>, r: f64) -> Span {
        let dist = c.norm();
        // The sphere test squares r, so a negative radius counts as |r|.
        let r = r.abs();
        // Inside, near, or not a number: every direction may reach it (the
        // sphere test also admits sideways rays when |c| < √2 r).
        if !(dist.is_finite() && r.is_finite()) || dist <= 2.0 * r {
            return Span::All;
        }
        // Rounding in the sphere test grows with |c| / r.
        let alpha = (r / dist).asin() + PAD + 1e-12 * (dist / r.max(f64::MIN_POSITIVE)).min(1e9);
        if alpha >= 0.6 {
            return Span::All;
        }
        let az = c.y.atan2(c.x);
        let el = c.z.atan2(c.x.hypot(c.y));
        let band = (el_index(el - alpha), el_index(el + alpha));
        // A cap over a pole spans every azimuth.
        if el.abs() + alpha >= FRAC_PI_2 - PAD {
            return Span::Band { el: band, az: None };
        }
        let half = (alpha.sin() / el.cos().max(f64::MIN_POSITIVE))
            .min(1.0)
            .asin()
            + PAD;
        let (lo, hi) = (az_index(az - half), az_index(az + half));
        if hi - lo + 1 >= AZ_BINS as i64 {
            return Span::Band { el: band, az: None };
        }
        Span::Band {
            el: band,
            az: Some((lo, hi)),
        }
    }

    fn each_bin(&self, mut f: impl FnMut(usize)) {
        let (el, az) = match self {
            Span::All => ((0, EL_BINS - 1), None),
            Span::Band { el, az } => (*el, *az),
        };
        for j in el.0..=el.1 {
            match az {
                None => (0..AZ_BINS).for_each(|i| f(j * AZ_BINS + i)),
                Some((lo, hi)) => {
                    (lo..=hi).for_each(|i| f(j * AZ_BINS + i.rem_euclid(AZ_BINS as i64) as usize))
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "ray_bins_tests.rs"]
mod tests;
