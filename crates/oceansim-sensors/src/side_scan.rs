//! Side-scan sonar on the geometry of a 400 kHz unit such as the EdgeTech
//! 4125 (vertical beam 50° wide, tilted 20° down: depression 0°–45°), by
//! default 256 rays and 512 range bins (10 cm) per side over 50 m (a
//! profile's `sonar` entry sets rays per side as `beams`, bins and range). Each side is a fan of rays across the
//! swath; echoes follow [`super::acoustics`]: Lambert's law on the
//! grazing seabed (brighter near the nadir gap, fading toward far range),
//! material backscatter, spreading and absorption with the unit's gain,
//! speckle and a noise floor. An object lights up on its near face and
//! throws an acoustic shadow behind it, where no ray reaches the seabed.

use super::acoustics::{fan_bins, Acoustics};
use super::{Family, Noise, Reading, SampleCtx, SensorModel, SideScanReading};
use crate::model::Fan;
use nalgebra::Vector3;
use oceansim_vehicles::SonarParams;

/// Default rays per side.
pub const RAYS: usize = 256;
/// Default range bins per side.
pub const BINS: usize = 512;
/// Depression of the fan's edges below horizontal (deg).
pub const DEPRESSION_DEG: [f64; 2] = [0.25, 45.0];
/// Default range (m).
pub const MAX_RANGE_M: f64 = 50.0;

/// The side-scan model (5 Hz).
#[derive(Debug, Clone)]
pub struct SideScan {
    per_side: usize,
    bins: usize,
    range_m: f64,
    rays: Fan,
}

impl SideScan {
    /// Port rays first, then starboard (sensor frame, y starboard, z down),
    /// each side ordered from shallow to steep.
    pub fn new(params: SonarParams) -> Self {
        let [lo, hi] = DEPRESSION_DEG;
        let per_side = params.beams.map_or(RAYS, |b| b as usize).max(2);
        let rays = [-1.0, 1.0]
            .iter()
            .flat_map(|side| {
                (0..per_side).map(move |i| {
                    let d = (lo + (hi - lo) * i as f64 / (per_side - 1) as f64).to_radians();
                    Vector3::new(0.0, side * d.cos(), d.sin())
                })
            })
            .collect::<Vec<_>>();
        SideScan {
            per_side,
            bins: params.bins.map_or(BINS, |b| b as usize),
            range_m: params.max_range_m.unwrap_or(MAX_RANGE_M),
            rays: Fan::new(rays),
        }
    }
}

impl SensorModel for SideScan {
    fn family(&self) -> Family {
        Family::SideScanSonar
    }
    fn seabed_beams(&self) -> Vec<Vector3<f64>> {
        self.rays.to_vec()
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.05
    }
    fn on_demand(&self) -> bool {
        true
    }
    fn detached(&self) -> Option<Box<dyn SensorModel>> {
        Some(Box::new(self.clone()))
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let acoustics = Acoustics::SIDE_SCAN_400KHZ;
        let floor = acoustics.noise_floor();
        let empty = acoustics.empty_bins(floor);
        let returns = ctx.cast_surface(&self.rays, self.range_m);
        let bin = self.range_m / self.bins as f64;
        let mut side = |fan: &[_]| -> Vec<u8> {
            fan_bins(&acoustics, fan, self.bins, bin, rng)
                .into_iter()
                .map(|e| acoustics.display_u8(floor, &empty, e, rng))
                .collect()
        };
        let port = side(&returns[..self.per_side]);
        let starboard = side(&returns[self.per_side..]);
        Reading::SideScan(SideScanReading {
            bins: self.bins,
            max_range_m: self.range_m,
            range_resolution_m: bin,
            intensity_scale: 1.0 / 255.0,
            display_db: [acoustics.top_db, acoustics.dynamic_range_db],
            port,
            starboard,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn the_seabed_returns_beyond_the_altitude_and_fades_with_grazing() {
        let (s, _) = fixture::sample(Family::SideScanSonar, None, &fixture::state());
        let Reading::SideScan(r) = s.reading else {
            panic!()
        };
        // 14 m altitude, fan to 45°: the first seabed return is at
        // 14 / sin 45° = 19.8 m; nearer, only the noise floor.
        let bin = MAX_RANGE_M / BINS as f64;
        let first = (19.8 / bin) as usize;
        assert!(r.port[..first - 1].iter().all(|x| *x < 40), "{:?}", r.port);
        let mean = |v: &[u8]| v.iter().map(|x| f64::from(*x)).sum::<f64>() / v.len() as f64;
        let near = mean(&r.port[first..first + 8]);
        let far = mean(&r.port[BINS - 8..]);
        assert!(near > 60.0, "{:?}", r.port);
        assert!(
            near > far + 15.0,
            "steeper incidence is brighter: {near} vs {far}; {:?}",
            r.port
        );
        assert_eq!(r.port.len(), BINS);
    }
}

#[cfg(test)]
mod shadow {
    use super::*;
    use crate::fixture;
    use oceansim_protocol::payload::{ObstacleShape, SpawnObstacle, Vector};
    use oceansim_scene::obstacle::Obstacle;
    use oceansim_scene::terrain::{Terrain, TerrainSpec};
    use oceansim_vehicles::SonarParams;

    /// Port and starboard lines over a flat seabed 14 m below, with an
    /// optional 4 m cube on the seabed 20 m to starboard (east).
    fn ping(with_rock: bool) -> SideScanReading {
        let terrain = Terrain::generate(TerrainSpec::flat([120.0, 120.0], 20.0));
        let rock = Obstacle::from_spawn(
            "rock".into(),
            &SpawnObstacle {
                id: None,
                shape: ObstacleShape::Box,
                // Godot: X east, Y up, Z south. Seabed at Y = -20.
                position: Vector([20.0, -18.0, 0.0]),
                size: Some(Vector([4.0, 4.0, 40.0])),
                radius: None,
                height: None,
                rotation: None,
            },
        );
        let obstacles = if with_rock { vec![rock] } else { vec![] };
        let reading = fixture::with_ctx(&terrain, &obstacles, &fixture::state(), |ctx| {
            SideScan::new(SonarParams::default()).sample(ctx, &mut Noise::new(3, 1))
        });
        let Reading::SideScan(r) = reading else {
            panic!()
        };
        r
    }

    #[test]
    fn an_object_lights_its_near_face_and_shadows_the_seabed_behind() {
        let (clear, rock) = (ping(false), ping(true));
        let bin = MAX_RANGE_M / BINS as f64;
        let mean = |v: &[u8]| v.iter().map(|x| f64::from(*x)).sum::<f64>() / v.len() as f64;
        // From the sonar 6 m deep: the rock's near face (x = 18 m, 16–20 m
        // deep) is at slant range 20.6–22.8 m and its top (x = 18–22 m,
        // 16 m deep) at 20.6–24.2 m; rays grazing its top's far edge meet
        // the seabed at x = 30.9 m (slant 33.9 m), so the seabed from
        // 22.8 m to 33.9 m slant range is hidden.
        let face = (20.6 / bin) as usize..(23.0 / bin) as usize;
        let hidden = (25.0 / bin) as usize..(33.0 / bin) as usize;
        assert!(
            mean(&rock.starboard[face.clone()]) > mean(&clear.starboard[face.clone()]) + 40.0,
            "face: {:?} vs {:?}",
            &rock.starboard[face.clone()],
            &clear.starboard[face]
        );
        let (lit, dark) = (
            mean(&clear.starboard[hidden.clone()]),
            mean(&rock.starboard[hidden.clone()]),
        );
        assert!(
            dark < 25.0 && lit > dark + 30.0,
            "shadow: {dark} vs seabed {lit}: {:?}",
            rock.starboard
        );
        // Port sees no rock: the same seabed either way.
        assert_eq!(clear.port.len(), rock.port.len());
        assert!((mean(&clear.port) - mean(&rock.port)).abs() < 10.0);
    }
}
