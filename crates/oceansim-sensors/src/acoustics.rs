//! The acoustic echo model shared by the sonars.
//!
//! A ray that meets a surface at range r (m) and incidence θ (from the
//! surface normal) returns, in dB relative to the source at 1 m,
//!
//! ```text
//! EL = BS(θ) − 2·TL(r) + TVG(r)
//! BS(θ) = 10·log10(μ) + 10·log10(cos²θ)        Lambert's law
//! TL(r) = 20·log10(r) + α·r                      spherical spreading + absorption, one way
//! TVG(r) = k·log10(r) + 2·α·r                    the receiver's time-varied gain
//! ```
//!
//! μ is the material's Lambert parameter ([`backscatter_db`]); α the
//! absorption at the sonar's frequency. Like the units they stand for,
//! the sonars apply a time-varied gain: `k` = 30 compensates spreading for
//! an area-extended seabed except a residual −10·log10(r) (a seabed fades
//! gently with range, a point target at 40·log10 r − k), and absorption
//! in full. Each ray of a beam's fan stands for an equal share of the
//! beam's solid angle; its echo intensity (10^(EL/10), times fully
//! developed speckle: an exponential variate of mean 1, seeded per
//! sample) is summed into the range bins its footprint spans. A surface
//! facing the beam returns its whole aperture in one bin and is bright; a
//! seabed seen at grazing spreads over many bins and is dim. Each bin,
//! plus the receiver's noise floor, is shown on a `dynamic_range_db`
//! window below `top_db` as 8-bit values. Bins no ray reaches hold only
//! noise: the acoustic shadow behind an object.

use super::{to_u8, Noise};
use crate::steps::Steps;
use nalgebra::Vector3;
use oceansim_scene::raycast::{Hit, RayHit};
use std::sync::{Arc, Mutex, OnceLock};

/// Lambert parameter 10·log10(μ) of a material class (dB): a sandy-muddy
/// seabed −27 dB (Mackenzie's classic deep-sea value), rock and concrete
/// obstacles −17 dB, vehicles' metal hulls −10 dB.
pub fn backscatter_db(hit: Hit) -> Option<f64> {
    match hit {
        Hit::None => None,
        Hit::Terrain => Some(-27.0),
        Hit::Obstacle => Some(-17.0),
        Hit::Agent => Some(-10.0),
    }
}

/// A sonar's acoustic parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Acoustics {
    /// Absorption α (dB/m), one way.
    pub absorption_db_per_m: f64,
    /// Time-varied gain per decade of range (dB).
    pub tvg_db_per_decade: f64,
    /// Echo level shown as full scale (dB).
    pub top_db: f64,
    /// Echo levels shown between `top_db − dynamic_range_db` and `top_db`.
    pub dynamic_range_db: f64,
    /// Receiver noise floor (dB), with speckle of its own.
    pub noise_db: f64,
    /// Bin length (m) at which `top_db` was set: finer bins hold less of
    /// the footprint's energy, and the gain makes up for it, so an image
    /// looks the same at any bin count.
    pub reference_bin_m: f64,
}

impl Acoustics {
    /// Seawater absorption near 750 kHz (≈ 0.2 dB/m); a 50 dB display
    /// whose full scale is a rock face at about 4 m.
    pub const IMAGING_750KHZ: Acoustics = Acoustics {
        absorption_db_per_m: 0.2,
        tvg_db_per_decade: 30.0,
        top_db: -20.0,
        dynamic_range_db: 50.0,
        noise_db: -72.0,
        reference_bin_m: 30.0 / 32.0,
    };
    /// Seawater absorption near 400 kHz (≈ 0.1 dB/m); a 40 dB display set
    /// for a seabed spread across the swath (higher gain than the imaging
    /// sonar's, as an operator would set it).
    pub const SIDE_SCAN_400KHZ: Acoustics = Acoustics {
        absorption_db_per_m: 0.1,
        tvg_db_per_decade: 30.0,
        top_db: -45.0,
        dynamic_range_db: 40.0,
        noise_db: -88.0,
        reference_bin_m: 50.0 / 64.0,
    };

    /// Echo level (dB) of a return at `range` m, incidence cosine `cos`,
    /// on `hit`; `None` for no return.
    pub fn echo_db(&self, range: f64, cos: f64, hit: Hit) -> Option<f64> {
        let mu = backscatter_db(hit)?;
        let r = range.max(0.1);
        let lambert = 10.0 * (cos * cos).max(1e-12).log10();
        let tl = 20.0 * r.log10() + self.absorption_db_per_m * r;
        let tvg = self.tvg_db_per_decade * r.log10() + 2.0 * self.absorption_db_per_m * r;
        Some(mu + lambert - 2.0 * tl + tvg)
    }

    /// The noise floor as a linear intensity (a constant of the unit;
    /// `powf` is the costliest call of a bin's display, so it is taken
    /// once per model, not once per bin).
    pub fn noise_floor(&self) -> f64 {
        10f64.powf(self.noise_db / 10.0)
    }

    /// Linear echo intensity of one return (0 for none).
    pub fn echo(&self, ray: &RayHit, d: &Vector3<f64>) -> f64 {
        self.echo_db(ray.t, ray.cos_incidence(d), ray.hit)
            .map_or(0.0, |db| 10f64.powf(db / 10.0))
    }

    /// A bin's displayed value in [0, 1]: `energy` (linear, summed
    /// speckled echoes) plus the noise floor.
    pub fn display(&self, energy: f64, rng: &mut Noise) -> f64 {
        self.display_over(self.noise_floor(), energy, rng)
    }

    /// [`Acoustics::display`] with the noise floor taken once
    /// ([`Acoustics::noise_floor`]) for a whole image: the same values.
    pub fn display_over(&self, noise_floor: f64, energy: f64, rng: &mut Noise) -> f64 {
        self.display_with(noise_floor, energy, speckle(rng))
    }

    /// [`Acoustics::display_over`] with the noise's speckle drawn.
    fn display_with(&self, noise_floor: f64, energy: f64, speckle: f64) -> f64 {
        let noise = noise_floor * speckle;
        let level = 10.0 * (energy + noise).max(1e-30).log10();
        ((level - (self.top_db - self.dynamic_range_db)) / self.dynamic_range_db).clamp(0.0, 1.0)
    }

    /// A bin's displayed value as an 8-bit intensity:
    /// `to_u8(display_over(noise_floor, energy, rng))`, the same value from
    /// the same draw. An empty bin (most of an image: water, shadow) is the
    /// noise floor's speckle alone, a monotone function of the uniform
    /// draw, read from `empty`'s thresholds instead of two logarithms.
    pub fn display_u8(
        &self,
        noise_floor: f64,
        empty: &EmptyBins,
        energy: f64,
        rng: &mut Noise,
    ) -> u8 {
        if energy == 0.0 {
            let u = rng.uniform();
            empty.steps.count(u) as u8
        } else {
            to_u8(self.display_over(noise_floor, energy, rng))
        }
    }

    /// The thresholds of [`Acoustics::display_u8`] for empty bins over
    /// `noise_floor`, computed once per process for each display.
    pub fn empty_bins(&self, noise_floor: f64) -> Arc<EmptyBins> {
        type Cache = Mutex<Vec<([u64; 7], Arc<EmptyBins>)>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let key = [
            self.absorption_db_per_m,
            self.tvg_db_per_decade,
            self.top_db,
            self.dynamic_range_db,
            self.noise_db,
            self.reference_bin_m,
            noise_floor,
        ]
        .map(f64::to_bits);
        let mut cache = CACHE
            .get_or_init(Cache::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = cache.iter().find(|(k, _)| *k == key) {
            return t.clone();
        }
        // Every draw is k / 2⁵³ for a whole k (`Noise::uniform`): the least
        // k whose value is above each level, by bisection over k.
        let value = |k: u64| {
            let u = k as f64 / (1u64 << 53) as f64;
            to_u8(self.display_with(noise_floor, 0.0, speckle_of(u)))
        };
        let thresholds = std::array::from_fn(|level| {
            let (mut lo, mut hi) = (0u64, 1u64 << 53);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if usize::from(value(mid)) > level {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            // Past every draw (2⁵³ / 2⁵³ = 1) when no draw reaches it.
            lo as f64 / (1u64 << 53) as f64
        });
        let t = Arc::new(EmptyBins {
            steps: Steps::new(thresholds),
        });
        cache.push((key, t.clone()));
        t
    }
}

/// Where an empty bin's 8-bit display steps up, as uniform draws: level
/// `n` shows for draws from `thresholds[n - 1]` up to `thresholds[n]`.
#[derive(Debug)]
pub struct EmptyBins {
    steps: Steps<255>,
}

/// Fully developed speckle: an exponential variate of mean 1 (the
/// intensity of a circular complex Gaussian sum).
pub fn speckle(rng: &mut Noise) -> f64 {
    speckle_of(rng.uniform())
}

/// [`speckle`] of the uniform draw `u`.
fn speckle_of(u: f64) -> f64 {
    -(1.0 - u).max(1e-12).ln()
}

/// Echo energy per range bin from a fan of rays ordered across the fan
/// (each `(return, direction)`). Between neighbouring rays on the same
/// surface the footprint is continuous, so their energy spreads over the
/// bins between their ranges; a jump to another surface (an occlusion)
/// leaves the bins between empty: the shadow.
pub fn fan_bins(
    acoustics: &Acoustics,
    fan: &[(RayHit, Vector3<f64>)],
    bins: usize,
    bin_m: f64,
    rng: &mut Noise,
) -> Vec<f64> {
    let mut out = vec![0.0; bins];
    if bins == 0 || fan.is_empty() {
        return out;
    }
    let bin_of = |t: f64| ((t / bin_m).max(0.0) as usize).min(bins - 1);
    let weight = 1.0 / fan.len() as f64;
    let gain = acoustics.reference_bin_m / bin_m;
    for (i, (ray, d)) in fan.iter().enumerate() {
        let e = acoustics.echo(ray, d) * weight;
        if e <= 0.0 {
            continue;
        }
        let e = e * speckle(rng);
        // Half of this ray's footprint toward each neighbour on the same
        // surface, spread over the bins it spans.
        let end = |j: usize| match fan.get(j) {
            // The same surface continues unless the range jumps by more
            // than a few bins or 5 % (fine bins at grazing incidence
            // separate neighbours on a continuous seabed).
            Some((other, _))
                if other.hit == ray.hit
                    && (other.t - ray.t).abs() <= (4.0 * bin_m).max(0.05 * ray.t) =>
            {
                (ray.t + other.t) * 0.5
            }
            _ => ray.t,
        };
        for end in [end(i.wrapping_sub(1)), end(i + 1)] {
            let (a, b) = (bin_of(ray.t.min(end)), bin_of(ray.t.max(end)));
            let share = 0.5 * e / (b - a + 1) as f64 * gain;
            for v in &mut out[a..=b] {
                *v += share;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray(t: f64, hit: Hit, normal: Vector3<f64>) -> RayHit {
        RayHit {
            t,
            hit,
            normal,
            index: 0,
        }
    }

    #[test]
    fn lambert_normal_incidence_is_brighter_than_grazing() {
        let a = Acoustics::IMAGING_750KHZ;
        let normal = a.echo_db(10.0, 1.0, Hit::Terrain).unwrap();
        let grazing = a.echo_db(10.0, 0.2, Hit::Terrain).unwrap();
        // 10·log10(cos²): 0 dB against −14 dB.
        assert!((normal - grazing - 20.0 * 5f64.log10()).abs() < 1e-9);
        assert!(a.echo_db(10.0, 1.0, Hit::None).is_none());
        // Harder materials return more.
        assert!(a.echo_db(10.0, 1.0, Hit::Agent) > a.echo_db(10.0, 1.0, Hit::Obstacle));
        assert!(a.echo_db(10.0, 1.0, Hit::Obstacle) > Some(normal));
    }

    #[test]
    fn after_gain_a_point_target_still_fades_with_range() {
        let a = Acoustics::IMAGING_750KHZ;
        let near = a.echo_db(5.0, 1.0, Hit::Obstacle).unwrap();
        let far = a.echo_db(20.0, 1.0, Hit::Obstacle).unwrap();
        // −40·log10 r + 30·log10 r: 10 dB per decade, 6.02 dB for 4x.
        assert!((near - far - 10.0 * 4f64.log10()).abs() < 1e-9);
        // With no spreading gain, two-way spherical spreading: 40·log10 4
        // (absorption, 2·0.2·15 dB, is compensated by the gain either way).
        let raw = Acoustics {
            tvg_db_per_decade: 0.0,
            ..a
        };
        let d = raw.echo_db(5.0, 1.0, Hit::Obstacle).unwrap()
            - raw.echo_db(20.0, 1.0, Hit::Obstacle).unwrap();
        assert!((d - 40.0 * 4f64.log10()).abs() < 1e-9);
    }

    #[test]
    fn a_fan_fills_continuous_surfaces_and_leaves_shadows() {
        let a = Acoustics::IMAGING_750KHZ;
        let up = Vector3::z();
        let d = Vector3::new(0.0, 1.0, -1.0).normalize();
        // Seabed at 10..12 m, then a jump to an obstacle at 20 m.
        let fan = [
            (ray(10.0, Hit::Terrain, up), d),
            (ray(11.0, Hit::Terrain, up), d),
            (ray(12.0, Hit::Terrain, up), d),
            (ray(20.0, Hit::Obstacle, -d), d),
        ];
        let bins = fan_bins(&a, &fan, 30, 1.0, &mut Noise::new(1, 2));
        assert!(bins[10..=12].iter().all(|e| *e > 0.0), "{bins:?}");
        assert!(bins[13..20].iter().all(|e| *e == 0.0), "shadow: {bins:?}");
        assert!(bins[20] > 0.0);
        assert!(bins[..10].iter().all(|e| *e == 0.0));
    }

    #[test]
    fn speckle_has_mean_one_and_repeats_with_its_seed() {
        let mut rng = Noise::new(7, 3);
        let n = 20_000;
        let mean = (0..n).map(|_| speckle(&mut rng)).sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 0.03, "{mean}");
        let (mut x, mut y) = (Noise::new(7, 3), Noise::new(7, 3));
        assert_eq!(speckle(&mut x), speckle(&mut y));
    }

    #[test]
    fn an_empty_bin_by_its_thresholds_shows_what_the_logarithms_do() {
        for a in [Acoustics::IMAGING_750KHZ, Acoustics::SIDE_SCAN_400KHZ] {
            let floor = a.noise_floor();
            let empty = a.empty_bins(floor);
            let direct = |k: u64| {
                let u = k as f64 / (1u64 << 53) as f64;
                to_u8(a.display_with(floor, 0.0, speckle_of(u)))
            };
            let table = |k: u64| {
                let u = k as f64 / (1u64 << 53) as f64;
                empty.steps.count(u) as u8
            };
            // Every step of the display, and the draws either side of it.
            let mut levels = 0;
            for &t in empty.steps.thresholds() {
                let k = (t * (1u64 << 53) as f64) as u64;
                for k in k.saturating_sub(3)..(k + 3).min(1 << 53) {
                    assert_eq!(table(k), direct(k), "draw {k}");
                }
                levels += u32::from(t < 1.0);
            }
            assert!(levels > 10, "the noise floor spans {levels} levels");
            // The extremes, and seeded draws through the live path.
            for k in [0, 1, (1 << 53) - 1] {
                assert_eq!(table(k), direct(k), "draw {k}");
            }
            for seq in 0..20_000 {
                let (mut x, mut y) = (Noise::new(11, seq), Noise::new(11, seq));
                assert_eq!(
                    a.display_u8(floor, &empty, 0.0, &mut x),
                    to_u8(a.display_over(floor, 0.0, &mut y))
                );
                // A bin with an echo takes the same draws as before.
                let e = 1e-6 * seq as f64;
                assert_eq!(
                    a.display_u8(floor, &empty, e, &mut x),
                    to_u8(a.display_over(floor, e, &mut y))
                );
                assert_eq!(x.uniform(), y.uniform(), "the same draws taken");
            }
        }
    }
}
