//! A monotone step function over [0, 1] read from its thresholds in O(1):
//! the count of thresholds at or below `x`, exactly as a binary search
//! (`partition_point`) gives it, from a table of counts at the edges of
//! buckets and a search of the few thresholds inside one. The buckets are
//! the top bits of the float itself (exponent and 7 bits of mantissa:
//! 128 per octave from 2⁻²⁴ to 1), so they are as fine near 0, where the
//! display gamma's thresholds crowd (a dark underwater frame lives
//! there), as near 1. The camera's gamma and the sonars' empty-bin
//! speckle each read one per pixel or bin, where eight unpredictable
//! branches of a binary search cost more than the rest of the value.

/// Mantissa bits of a bucket index: 128 buckets per octave.
const MANTISSA_BITS: u32 = 7;
const SHIFT: u32 = 52 - MANTISSA_BITS;
/// Below this (2⁻²⁴) the thresholds are searched: nothing the camera or
/// the sonars show is that dark.
const LOW: f64 = 1.0 / (1u64 << 24) as f64;

/// The bucket of `x` in [LOW, 1]: positive floats order as their bits.
#[inline]
fn key(x: f64) -> usize {
    (x.to_bits() >> SHIFT) as usize
}

/// Ascending thresholds with the bucket table.
#[derive(Debug, Clone)]
pub(crate) struct Steps<const N: usize> {
    thresholds: [f64; N],
    /// `start[b]`: thresholds at or below bucket `b`'s lower edge, for the
    /// buckets from LOW's to 1's (inclusive).
    start: Box<[u16]>,
}

impl<const N: usize> Steps<N> {
    /// The table for ascending `thresholds` (at most 65,535 of them).
    pub(crate) fn new(thresholds: [f64; N]) -> Self {
        debug_assert!(thresholds.is_sorted() && N < usize::from(u16::MAX));
        let start = (key(LOW)..=key(1.0))
            .map(|k| {
                let edge = f64::from_bits((k as u64) << SHIFT);
                thresholds.partition_point(|&t| t <= edge) as u16
            })
            .collect();
        Steps { thresholds, start }
    }

    /// The thresholds.
    #[cfg(test)]
    pub(crate) fn thresholds(&self) -> &[f64; N] {
        &self.thresholds
    }

    /// How many thresholds are at or below `x` (NaN: none).
    #[inline(always)]
    pub(crate) fn count(&self, x: f64) -> usize {
        if !(LOW..1.0).contains(&x) {
            return self.count_outside(x);
        }
        let b = key(x) - key(LOW);
        let (lo, hi) = (usize::from(self.start[b]), usize::from(self.start[b + 1]));
        // Every threshold in (edge b, x] lies in lo..hi, since x is below
        // edge b + 1; most buckets hold none, a few one.
        match hi - lo {
            0 => lo,
            1 => lo + usize::from(self.thresholds[lo] <= x),
            _ => lo + self.thresholds[lo..hi].partition_point(|&t| t <= x),
        }
    }

    /// [`Steps::count`] below 2⁻²⁴, at or above 1 (a saturated pixel:
    /// every threshold of a display is at or below 1, so nothing is left
    /// to search) and for NaN.
    #[inline(never)]
    fn count_outside(&self, x: f64) -> usize {
        let (below_low, to_one) = (
            usize::from(self.start[0]),
            usize::from(self.start[self.start.len() - 1]),
        );
        if x >= 1.0 {
            to_one + self.thresholds[to_one..].partition_point(|&t| t <= x)
        } else if x < LOW {
            self.thresholds[..below_low].partition_point(|&t| t <= x)
        } else {
            // NaN: no threshold is at or below it.
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_scene::terrain::splitmix64;

    #[test]
    fn counts_equal_a_binary_search_everywhere() {
        let mut state = 4u64;
        let mut uniform = || {
            state = splitmix64(state);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        // Dense near 0 (as the gamma's are), clustered, and with repeats
        // and the ends themselves.
        let mut t: [f64; 255] = std::array::from_fn(|k| (k as f64 / 255.0).powf(2.2));
        t[100] = t[99];
        t[0] = 0.0;
        t[254] = 1.0;
        let clustered: [f64; 255] = std::array::from_fn(|k| 0.5 + k as f64 * 1e-9);
        for t in [t, clustered] {
            let steps = Steps::new(t);
            let mut xs: Vec<f64> = (0..200_000).map(|_| uniform()).collect();
            xs.extend(t.iter().flat_map(|&x| {
                [
                    x,
                    f64::from_bits(x.to_bits() + 1),
                    f64::from_bits(x.to_bits().saturating_sub(1)),
                ]
            }));
            xs.extend((key(LOW)..=key(1.0)).map(|k| f64::from_bits((k as u64) << SHIFT)));
            xs.extend((0..2_000).map(|_| uniform() * LOW * 2.0));
            xs.extend((0..2_000).map(|_| uniform().powi(8)));
            xs.extend([
                -1.0,
                -0.0,
                1.0,
                1.5,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE,
                1e-300,
            ]);
            for x in xs {
                assert_eq!(
                    steps.count(x),
                    t.partition_point(|&th| th <= x),
                    "x = {x:e}"
                );
            }
        }
    }
}
