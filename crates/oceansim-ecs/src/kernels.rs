//! Batched math kernels for systems: the ufuncs of the engine.
//!
//! [`sin_cos`] and [`polar`] evaluate sine and cosine over whole columns
//! with branch-free code the compiler vectorises, several times faster than
//! calling `f64::sin_cos` per element. Accuracy: within 1 ulp of the
//! correctly rounded result on |x| ≤ 10⁶ rad (checked against `f64::sin`
//! and `f64::cos` in the tests); larger or non-finite inputs go through
//! `f64::sin_cos`, so every input gets an accurate answer. Results depend
//! only on the input, never on the thread or chunk that computed them.

/// Inputs up to this magnitude take the fast path: the Cody–Waite
/// reduction below is exact while n·π/2's leading part (33 bits) times the
/// quadrant count n (< 2²⁰) fits in 53 bits.
pub const FAST_LIMIT: f64 = 1.0e6;

// π/2 split in 33-bit pieces (each product with n < 2²⁰ is exact) and the
// tails, as in fdlibm's medium-size reduction.
const INV_PIO2: f64 = std::f64::consts::FRAC_2_PI;
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_2T: f64 = 2.022_266_248_795_950_6e-21;
/// 1.5 · 2⁵²: adding it rounds to an integer held in the low mantissa bits.
const TOINT: f64 = 6_755_399_441_055_744.0;

// Minimax polynomials on [−π/4, π/4] (fdlibm's published coefficients).
const S1: f64 = -1.666_666_666_666_663_2e-1;
const S2: f64 = 8.333_333_333_322_49e-3;
const S3: f64 = -1.984_126_982_985_795e-4;
const S4: f64 = 2.755_731_370_707_006_8e-6;
const S5: f64 = -2.505_076_025_340_686_3e-8;
const S6: f64 = 1.589_690_995_211_55e-10;
const C1: f64 = 4.166_666_666_666_66e-2;
const C2: f64 = -1.388_888_888_887_411e-3;
const C3: f64 = 2.480_158_728_947_673e-5;
const C4: f64 = -2.755_731_435_139_066_3e-7;
const C5: f64 = 2.087_572_321_298_175e-9;
const C6: f64 = -1.135_964_755_778_819_5e-11;

/// sin and cos of x for |x| ≤ [`FAST_LIMIT`], branch-free.
#[inline(always)]
fn sin_cos_fast(x: f64) -> (f64, f64) {
    let big = x * INV_PIO2 + TOINT;
    let n = big - TOINT;
    let q = big.to_bits();
    // x − n·π/2 to ~118 bits as y + tail (fdlibm's second round; a double
    // comes no closer than ~2⁻⁶¹ relative to a multiple of π/2).
    let t = x - n * PIO2_1;
    let w = n * PIO2_2;
    let r = t - w;
    let w = n * PIO2_2T - ((t - r) - w);
    let y = r - w;
    let tail = (r - y) - w;
    // Kernels on [−π/4, π/4] with the tail's first-order correction.
    let z = y * y;
    let v = z * y;
    let ps = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    let s = y - ((z * (0.5 * tail - v * ps) - tail) - v * S1);
    let pc = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    let hz = 0.5 * z;
    let one_m = 1.0 - hz;
    let c = one_m + (((1.0 - one_m) - hz) + (z * pc - y * tail));
    // Quadrant q: (sin, cos) = (s, c), (c, −s), (−s, −c), (−c, s).
    let swap = (q & 1).wrapping_neg();
    let (sb, cb) = (s.to_bits(), c.to_bits());
    let a = (sb & !swap) | (cb & swap);
    let b = (cb & !swap) | (sb & swap);
    let sin = f64::from_bits(a ^ ((q & 2) << 62));
    let cos = f64::from_bits(b ^ ((q.wrapping_add(1) & 2) << 62));
    (sin, cos)
}

/// Redoes, with `f64::sin_cos`, the elements the fast path does not cover.
#[inline]
fn fix_up(x: &[f64], mut put: impl FnMut(usize, f64, f64)) {
    for (i, xi) in x.iter().enumerate() {
        // `!(a <= b)` also catches NaN.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(xi.abs() <= FAST_LIMIT) {
            let (s, c) = xi.sin_cos();
            put(i, s, c);
        }
    }
}

/// `sin[i] = sin(x[i])`, `cos[i] = cos(x[i])`.
///
/// # Panics
/// If the three slices differ in length.
pub fn sin_cos(x: &[f64], sin: &mut [f64], cos: &mut [f64]) {
    assert!(
        x.len() == sin.len() && x.len() == cos.len(),
        "sin_cos: slices of {}, {} and {} values",
        x.len(),
        sin.len(),
        cos.len()
    );
    for ((xi, s), c) in x.iter().zip(sin.iter_mut()).zip(cos.iter_mut()) {
        (*s, *c) = sin_cos_fast(*xi);
    }
    fix_up(x, |i, s, c| {
        sin[i] = s;
        cos[i] = c;
    });
}

/// Polar to Cartesian: `xy[2i..2i+2] = r[i] · (cos θ[i], sin θ[i])`, the
/// velocity of a unicycle with speed r and heading θ.
///
/// # Panics
/// If `r` and `theta` differ in length or `xy` is not twice as long.
pub fn polar(r: &[f64], theta: &[f64], xy: &mut [f64]) {
    assert!(
        r.len() == theta.len() && xy.len() == 2 * theta.len(),
        "polar: {} radii, {} angles, {} outputs",
        r.len(),
        theta.len(),
        xy.len()
    );
    for ((out, th), ri) in xy.chunks_exact_mut(2).zip(theta).zip(r) {
        let (s, c) = sin_cos_fast(*th);
        out[0] = ri * c;
        out[1] = ri * s;
    }
    fix_up(theta, |i, s, c| {
        xy[2 * i] = r[i] * c;
        xy[2 * i + 1] = r[i] * s;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in ulps between a and b (same sign or both tiny).
    fn ulps(a: f64, b: f64) -> u64 {
        if a == b {
            return 0;
        }
        let key = |x: f64| {
            let i = x.to_bits() as i64;
            if i < 0 {
                i64::MIN - i
            } else {
                i
            }
        };
        key(a).abs_diff(key(b))
    }

    /// Worst ulp distance from `f64::sin`/`f64::cos` over `x`.
    fn worst(x: &[f64]) -> (u64, u64) {
        let (mut s, mut c) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        sin_cos(x, &mut s, &mut c);
        let mut w = (0, 0);
        for ((xi, si), ci) in x.iter().zip(&s).zip(&c) {
            w.0 = w.0.max(ulps(*si, xi.sin()));
            w.1 = w.1.max(ulps(*ci, xi.cos()));
        }
        w
    }

    #[test]
    fn within_one_ulp_of_std() {
        // A xorshift stream over several magnitudes, plus the points where
        // reduction cancels most: near multiples of π/2.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut x = Vec::new();
        for scale in [1e-8, 1e-3, 0.78, 3.0, 100.0, 1e4, FAST_LIMIT] {
            x.extend((0..20_000).map(|_| (2.0 * next() - 1.0) * scale));
        }
        for k in 1..2000 {
            let m = f64::from(k) * std::f64::consts::FRAC_PI_2;
            x.extend([m, m.next_up(), m.next_down(), -m, k as f64 * 355.0]);
        }
        let (ws, wc) = worst(&x);
        assert!(ws <= 1 && wc <= 1, "worst ulps: sin {ws}, cos {wc}");
    }

    #[test]
    fn polar_is_r_times_cos_sin() {
        let theta = [0.3, -2.0, 1e7, 5.5];
        let r = [2.0, 0.5, 1.0, -1.0];
        let mut xy = [0.0; 8];
        polar(&r, &theta, &mut xy);
        for i in 0..4 {
            let (s, c) = theta[i].sin_cos();
            assert!(ulps(xy[2 * i], r[i] * c) <= 1 && ulps(xy[2 * i + 1], r[i] * s) <= 1);
        }
    }

    #[test]
    fn special_values() {
        let x = [
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            1e7,
            -3e300,
            1e-300,
        ];
        let (mut s, mut c) = ([0.0; 8], [0.0; 8]);
        sin_cos(&x, &mut s, &mut c);
        assert_eq!(s[0].to_bits(), 0.0f64.to_bits());
        assert_eq!(s[1].to_bits(), (-0.0f64).to_bits(), "sin(−0) = −0");
        assert_eq!((c[0], c[1]), (1.0, 1.0));
        for i in 2..5 {
            assert!(s[i].is_nan() && c[i].is_nan());
        }
        for i in 5..8 {
            assert_eq!((s[i], c[i]), x[i].sin_cos(), "{}", x[i]);
        }
    }
}
