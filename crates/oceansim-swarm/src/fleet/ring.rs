//! The fleet scenario behind `fleet_formation`: AUVs start scattered and
//! form a ring at one depth using only positions that arrived over the
//! shared acoustic channel.
//!
//! ## Convergence bound (asserted by the example and a test)
//!
//! The formation error is the largest horizontal distance of a vehicle
//! from its slot around the fleet's common reference point (the mean of
//! p_i − o_i), plus the largest depth error. Offset consensus over the
//! complete graph drives every p_i − o_i together at rate k·N; guidance
//! stops commanding below 5 mm/s, so the last positions heard settle
//! within 0.005 / (k·N) m of agreement (5 cm at the defaults), and the
//! positions heard are at most one broadcast round old but, once the
//! vehicles stop, exact. Depth is held by the autopilot to a few
//! centimetres. The final error is asserted under 0.5 m: ten times the
//! dead band, one tenth of the 5 m between neighbouring slots; a broken
//! link or controller leaves vehicles tens of metres off.

use super::{
    fossen_fleet, names, AcousticBeacons, Autopilot, AutopilotGains, FleetModels,
    FormationConsensus, MediumConfig, Neighbours, VelocityGuidance,
};
use oceansim_ecs::{EcsError, Engine, Result, World};
use oceansim_math::graphs::Graph;
use oceansim_vehicles::VehicleProfile;

/// Parameters of a ring-formation run.
#[derive(Debug, Clone)]
pub struct RingFormationConfig {
    /// Vehicles.
    pub n: usize,
    /// Profiles, used in turn (row i gets `profiles[i % len]`).
    pub profiles: Vec<VehicleProfile>,
    /// Ring radius (m).
    pub radius_m: f64,
    /// Ring depth (m).
    pub depth_m: f64,
    /// Start: scattered over a square of this side (m), depths 2–20 m.
    pub spread_m: f64,
    /// Consensus gain (1/s): each of the N − 1 links gets gain / (N − 1),
    /// so disagreement contracts at about this rate.
    pub gain: f64,
    /// Cruise speed cap (m/s).
    pub max_speed_m_s: f64,
    /// The acoustic channel.
    pub medium: MediumConfig,
    /// Bits per position report.
    pub message_bits: f64,
    /// Broadcast period per vehicle (s).
    pub period_s: f64,
    /// Simulated time (s).
    pub duration_s: f64,
    /// Tick (s).
    pub dt: f64,
    /// Sampling of the returned tracks and errors (s).
    pub log_dt: f64,
}

impl Default for RingFormationConfig {
    /// 100 vehicles (three torpedoes to each BlueROV2), an 80 m ring at
    /// 10 m, a 9,600 bit/s channel (a high-rate acoustic modem's class),
    /// 256-bit reports every 3 s, 600 s at 50 Hz.
    fn default() -> Self {
        RingFormationConfig {
            n: 100,
            profiles: [
                "oceansim_torpedo_auv",
                "oceansim_torpedo_auv",
                "oceansim_torpedo_auv",
                "bluerov2_heavy",
            ]
            .iter()
            .map(|n| VehicleProfile::builtin(n).expect("built-in profile"))
            .collect(),
            radius_m: 80.0,
            depth_m: 10.0,
            spread_m: 300.0,
            gain: 0.1,
            max_speed_m_s: 1.5,
            medium: MediumConfig {
                bandwidth_bps: 9600.0,
                latency_s: 0.2,
                range_m: 1000.0,
                packet_drop_rate: 0.05,
                seed: 7,
                ..MediumConfig::default()
            },
            message_bits: 256.0,
            period_s: 3.0,
            duration_s: 600.0,
            dt: 0.02,
            log_dt: 1.0,
        }
    }
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct RingFormationRun {
    /// Sample times (s).
    pub times: Vec<f64>,
    /// Per sample, every vehicle's [north, east, depth] (m).
    pub tracks: Vec<Vec<[f64; 3]>>,
    /// Formation error per sample (m).
    pub errors: Vec<f64>,
    /// Each vehicle's slot offset [north, east] (m).
    pub offsets: Vec<[f64; 2]>,
    /// Acoustic counters: transmissions, deliveries, losses, out of
    /// range, broadcasts skipped on a busy channel.
    pub acoustic: [u64; 5],
}

impl RingFormationRun {
    /// The last sample's error (m).
    pub fn final_error_m(&self) -> f64 {
        self.errors.last().copied().unwrap_or(f64::NAN)
    }
}

/// Formation error of positions `p` (N·3, NED) against `offsets` and `depth`.
pub fn formation_error(p: &[f64], offsets: &[[f64; 2]], depth: f64) -> f64 {
    let n = offsets.len() as f64;
    let mut c = [0.0, 0.0];
    for (i, o) in offsets.iter().enumerate() {
        c[0] += (p[3 * i] - o[0]) / n;
        c[1] += (p[3 * i + 1] - o[1]) / n;
    }
    let (mut horizontal, mut vertical) = (0.0f64, 0.0f64);
    for (i, o) in offsets.iter().enumerate() {
        horizontal = horizontal.max((p[3 * i] - o[0] - c[0]).hypot(p[3 * i + 1] - o[1] - c[1]));
        vertical = vertical.max((p[3 * i + 2] - depth).abs());
    }
    horizontal + vertical
}

/// Runs the scenario.
pub fn run_ring_formation(cfg: &RingFormationConfig) -> Result<RingFormationRun> {
    run_ring_formation_observed(cfg, None)
}

/// Runs the scenario, handing `observer` (a viewer's engine sink, say)
/// every logged frame, the first included.
pub fn run_ring_formation_observed(
    cfg: &RingFormationConfig,
    mut observer: Option<crate::scenarios::Observer>,
) -> Result<RingFormationRun> {
    let n = cfg.n;
    // Scattered by a fixed low-discrepancy pattern (no RNG: the same run every time).
    let p0: Vec<f64> = (0..n)
        .flat_map(|i| {
            let a = (i as f64 * 0.754_877_666).fract();
            let b = (i as f64 * 0.569_840_291).fract();
            let d = 2.0 + 18.0 * (i as f64 * 0.618_033_989).fract();
            [cfg.spread_m * (a - 0.5), cfg.spread_m * (b - 0.5), d]
        })
        .collect();
    let psi: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 2.399_963).rem_euclid(std::f64::consts::TAU))
        .collect();
    let offsets: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            [cfg.radius_m * a.cos(), cfg.radius_m * a.sin()]
        })
        .collect();
    let mut world = World::new(n);
    let models = FleetModels::cycle(&cfg.profiles, n);
    let dynamics = fossen_fleet(&mut world, models.clone(), &p0, &psi)?;
    world.add_system(dynamics)?;
    let beacons = AcousticBeacons::install(&mut world, cfg.medium, cfg.period_s, cfg.message_bits)?;
    world.add_system(beacons)?;
    let complete: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let graph = Graph::new(n, &complete).map_err(|e| EcsError::Invalid(e.to_string()))?;
    let k = cfg.gain / (n.max(2) - 1) as f64;
    world.add_system(FormationConsensus::new(
        &graph,
        offsets.clone(),
        k,
        cfg.max_speed_m_s,
        Neighbours::Heard,
    ))?;
    world.add_system(VelocityGuidance::new(cfg.max_speed_m_s))?;
    world.add_system(Autopilot::new(models, AutopilotGains::default()))?;
    world.set(names::DEPTH_REF, &vec![cfg.depth_m; n])?;

    let mut engine = Engine::new(cfg.dt);
    let samples = (cfg.duration_s / cfg.log_dt).round() as usize;
    let mut run = RingFormationRun {
        times: Vec::with_capacity(samples + 1),
        tracks: Vec::with_capacity(samples + 1),
        errors: Vec::with_capacity(samples + 1),
        offsets: offsets.clone(),
        acoustic: [0; 5],
    };
    let sample = |w: &World, t: f64, run: &mut RingFormationRun| -> Result<()> {
        let p = w.get::<f64>(names::P)?;
        run.times.push(t);
        run.tracks
            .push(p.chunks_exact(3).map(|r| [r[0], r[1], r[2]]).collect());
        run.errors.push(formation_error(&p, &offsets, cfg.depth_m));
        Ok(())
    };
    let mut observe = |w: &World, t: f64| {
        if let Some(o) = observer.as_mut() {
            o(t, &oceansim_ecs::loggers::Frame::of(w, t, &[]));
        }
    };
    sample(&world, 0.0, &mut run)?;
    observe(&world, 0.0);
    for s in 1..=samples {
        engine.run_for(&mut world, cfg.log_dt)?;
        let t = s as f64 * cfg.log_dt;
        sample(&world, t, &mut run)?;
        observe(&world, t);
    }
    let h = world.resource_handle::<super::AcousticMedium>(names::MEDIUM)?;
    let m = world.resource(h);
    run.acoustic = [
        m.transmissions,
        m.delivered,
        m.lost,
        m.out_of_range,
        m.skipped_busy,
    ];
    Ok(run)
}
