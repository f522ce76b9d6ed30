//! Pressure depth sensor: depth of the sensor below the surface and the
//! hydrostatic pressure there.

use super::{r4, DepthReading, Family, Noise, Reading, SampleCtx, SensorModel};

/// The depth model (20 Hz, σ = 1 cm).
#[derive(Debug)]
pub struct Depth;

impl SensorModel for Depth {
    fn family(&self) -> Family {
        Family::Depth
    }
    fn rate_hz(&self) -> f64 {
        20.0
    }
    fn sigma(&self) -> f64 {
        0.01
    }
    fn field_variances(&self) -> Vec<(&'static str, Vec<f64>)> {
        // Pressure follows the depth: σ_p = ρ g σ_d at nominal seawater.
        let sp = 1025.0 * 9.81 * self.sigma();
        vec![
            ("depth_m", vec![self.sigma().powi(2)]),
            ("pressure_pa", vec![sp * sp]),
        ]
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let (o, _) = ctx.pose();
        let depth = (-o.z).max(0.0) + self.sigma() * rng.gauss();
        Reading::Depth(DepthReading {
            depth_m: r4(depth),
            pressure_pa: r4(101_325.0 + ctx.water_density * 9.81 * depth.max(0.0)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn reads_the_depth_and_its_pressure() {
        let (s, text) = fixture::sample(Family::Depth, None, &fixture::state());
        let Reading::Depth(r) = s.reading else {
            panic!()
        };
        assert!((r.depth_m - 6.0).abs() < 0.05, "{r:?}");
        // depth_m is rounded to 1 mm: about 10 Pa.
        assert!((r.pressure_pa - (101_325.0 + 1025.0 * 9.81 * r.depth_m)).abs() < 11.0);
        assert!(text.contains("\"sensor_type\":\"depth\""), "{text}");
        assert!(text.contains("\"sequence\":0"), "{text}");
    }
}
