//! A monotone step function over [0, 1] read from its thresholds in O(1):
//! the count of thresholds at or below `x`, exactly as a binary search
//! (`partition_point`) gives it, from a table of counts at 2¹² evenly
//! spaced points and a search of the few thresholds between two of them.
//! The camera's display gamma and the sonars' empty-bin speckle each read
//! one per pixel or bin, where eight unpredictable branches of a binary
//! search cost more than the rest of the value.

/// Buckets over [0, 1): a power of two, so `x · BUCKETS` is exact and its
/// floor `b` has `b / BUCKETS ≤ x` to the bit.
const BUCKETS: usize = 1 << 12;

/// Ascending thresholds with the bucket table.
#[derive(Debug, Clone)]
pub(crate) struct Steps<const N: usize> {
    thresholds: [f64; N],
    /// `start[b]`: thresholds at or below `b / BUCKETS` (b ≤ BUCKETS).
    start: Box<[u16]>,
}

impl<const N: usize> Steps<N> {
    /// The table for ascending `thresholds` (at most 65,535 of them).
    pub(crate) fn new(thresholds: [f64; N]) -> Self {
        debug_assert!(thresholds.is_sorted() && N < usize::from(u16::MAX));
        let start = (0..=BUCKETS)
            .map(|b| {
                let edge = b as f64 / BUCKETS as f64;
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
    #[inline]
    pub(crate) fn count(&self, x: f64) -> usize {
        if !(0.0..1.0).contains(&x) {
            return self.thresholds.partition_point(|&t| t <= x);
        }
        let b = (x * BUCKETS as f64) as usize;
        let (lo, hi) = (usize::from(self.start[b]), usize::from(self.start[b + 1]));
        // Every threshold in (b / BUCKETS, x] lies in lo..hi, since x is
        // below (b + 1) / BUCKETS; most buckets hold none (255 thresholds
        // over 4,096 buckets), a few one.
        match hi - lo {
            0 => lo,
            1 => lo + usize::from(self.thresholds[lo] <= x),
            _ => lo + self.thresholds[lo..hi].partition_point(|&t| t <= x),
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
            xs.extend((0..=BUCKETS).map(|b| b as f64 / BUCKETS as f64));
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
