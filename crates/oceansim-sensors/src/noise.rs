//! Seeded measurement noise: a SplitMix64 stream per sample, seeded from
//! the sensor's noise seed and the sample's sequence number, so a run's
//! noise depends on nothing but the seed and the sample count. SplitMix64
//! passes BigCrush and costs a few nanoseconds a draw, a good fit for
//! thousands of draws per sample; Gaussian draws use both outputs of the
//! Box–Muller transform.

use oceansim_scene::terrain::splitmix64;

/// One sample's noise stream.
#[derive(Debug, Clone)]
pub struct Noise {
    state: u64,
    spare: Option<f64>,
}

impl Noise {
    /// The stream of sample `sequence` of the sensor seeded `seed`.
    pub fn new(seed: u64, sequence: u64) -> Self {
        Noise {
            state: splitmix64(seed ^ sequence.wrapping_mul(0xA24B_AED4_963E_E407)),
            spare: None,
        }
    }

    /// A uniform draw in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let z = splitmix64(self.state);
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal draw.
    pub fn gauss(&mut self) -> f64 {
        if let Some(g) = self.spare.take() {
            return g;
        }
        let u1 = self.uniform().max(1e-300);
        let u2 = self.uniform();
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
        self.spare = Some(r * s);
        r * c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_seeded_and_normal() {
        let a: Vec<f64> = {
            let mut n = Noise::new(7, 3);
            (0..5).map(|_| n.gauss()).collect()
        };
        let mut n = Noise::new(7, 3);
        assert_eq!(a, (0..5).map(|_| n.gauss()).collect::<Vec<_>>());
        assert_ne!(a[0], Noise::new(7, 4).gauss());
        let mut n = Noise::new(1, 1);
        let xs: Vec<f64> = (0..200_000).map(|_| n.gauss()).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(
            mean.abs() < 0.01 && (var - 1.0).abs() < 0.01,
            "{mean} {var}"
        );
        let within_1 = xs.iter().filter(|x| x.abs() < 1.0).count() as f64 / xs.len() as f64;
        assert!((within_1 - 0.6827).abs() < 0.005, "{within_1}");
        let u: Vec<f64> = (0..100_000).map(|_| n.uniform()).collect();
        assert!(u.iter().all(|x| (0.0..1.0).contains(x)));
        assert!((u.iter().sum::<f64>() / 1e5 - 0.5).abs() < 0.01);
    }
}
