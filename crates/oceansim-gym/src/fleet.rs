//! A fleet as a multi-agent environment: `N` vehicles in one scene, each
//! a lane of the batched simulator with its own depth sensor, IMU and DVL,
//! talking over one shared acoustic medium (the swarm crate's
//! [`AcousticMedium`]: one channel every modem contends for, latency,
//! propagation at the speed of sound, seeded loss, range), and asked to
//! hold a ring formation. The Python wheel's PettingZoo environment
//! `oceansim.marl.fleet_formation_v0` is this type behind a thin binding.
//!
//! ## The task
//!
//! Each episode draws a centre `C` in the map's inner half at a depth with
//! room for the ring; agent `i`'s slot is `C + R (cos θᵢ, sin θᵢ, 0)` (NED),
//! `θᵢ = 2π i / N`, `R` = [`FleetConfig::ring_radius_m`]. Agents start at
//! rest, scattered within `1.5 R` of `C` (1 m of depth either way), hulls
//! clear of the scene and apart by a hull length and 0.5 m (2 m at least).
//! Every [`FleetConfig::ping_period_s`] (at least one control period) each
//! agent broadcasts its position (navigation, NED) in a
//! [`FleetConfig::message_bits`] message, agent `i`'s turns falling at
//! `k P + i P / N`: the report leaves at the end of the control period its
//! turn falls in, with the position of that moment. A broadcast that would
//! queue behind more than one period of traffic is not sent. Reports that
//! arrive within a control period are heard at its end; one that arrives
//! beyond the medium's range from where it was sent is lost. An agent
//! whose episode has ended leaves the water: it neither sends nor hears,
//! and other agents' rays and hulls no longer meet it.
//!
//! **Observation** of agent `i` (`17 + 4 (N − 1)` values, `f32`, clipped to
//! [`FleetEnv::observation_bounds`]): its depth sensor's depth (m); its
//! IMU's specific force (3, m/s², body FRD), rates (3, rad/s), roll and
//! pitch (rad); its DVL's velocity over ground (3, m/s, body; 0 without
//! lock), altitude (m; 0 without lock) and bottom lock (0/1); its slot −
//! its position in its body frame (3, m: its navigation and its
//! assignment); then for every other agent, in id order, what it last
//! heard of it: the reported position − its own position in its body frame
//! (3, m) and the report's age (s, capped at [`MAX_AGE_S`]; a sender never
//! heard reads 0, 0, 0 and the cap).
//!
//! **Reward** of agent `i` per step, `T` the episode length, `eᵢ` its
//! distance to its slot, `sᵢ` the mean over its two ring neighbours of
//! |their distance − the chord `2 R sin(π/N)`| (true positions):
//!
//! ```text
//! rᵢ = (1 − min(eᵢ / R, 1) − min(sᵢ / chord, 1)) / T − 0.1 · effortᵢ / T
//!      − 1 on touching the seabed, an obstacle or another vehicle (the
//!        agent's episode terminates)
//! ```
//!
//! so a fleet in formation for the whole episode earns about 1 per agent,
//! and every return lies within [−2.1, 1]. Episodes truncate after
//! [`FleetConfig::max_steps`] steps for every agent still running.
//!
//! Deterministic for a seed whatever the number of threads: lanes step in
//! parallel and share nothing; the acoustic channel, the collisions and
//! the rewards run after them, in agent order.

use crate::bounds::bounds;
use crate::place::hull_clear;
use crate::{GymError, Result, CLEARANCE_M};
use nalgebra::Vector3;
use oceansim_agents::ControlScheme;
use oceansim_sim::batch::{Batch, BatchSpec, Lane, LaneSensorSpec, Shared};
use oceansim_sim::frames::{Ned, User};
use oceansim_sim::{Body, SensorFamily, SensorReading};
use oceansim_swarm::fleet::{AcousticMedium, HeardPosition, MediumConfig};
use oceansim_vehicles::VehicleState;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::f64::consts::{PI, TAU};

/// Cap of a report's age in the observation (s).
pub const MAX_AGE_S: f64 = 60.0;
/// Least distance between two agents' centres at the start (m), for hulls
/// shorter than it.
const START_SPACING_M: f64 = 2.0;
/// Longest report period (s).
const MAX_PING_PERIOD_S: f64 = 3600.0;

/// How a fleet environment is built.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetConfig {
    /// Agents, 2 to 64.
    pub n_agents: usize,
    /// Scenario name or `*.json` path.
    pub scenario: String,
    /// Seed of the scene.
    pub map_seed: u64,
    /// Vehicle profile (`None`: the scenario's).
    pub profile: Option<String>,
    /// Control scheme of every agent's action (`body_force_3d` default).
    pub scheme: ControlScheme,
    /// Physics tick (s).
    pub tick_s: f64,
    /// Control period = one step (s).
    pub dt_s: f64,
    /// Steps before the episode truncates.
    pub max_steps: u32,
    /// Radius of the ring (m).
    pub ring_radius_m: f64,
    /// Each agent broadcasts its position once per period (s; from one
    /// control period to an hour).
    pub ping_period_s: f64,
    /// Size of a position report (bits).
    pub message_bits: f64,
    /// The acoustic medium (its seed is mixed with the episode's).
    pub medium: MediumConfig,
}

impl FleetConfig {
    /// `n` agents on PaleMap (60 m square, 16 m deep, a few boulders), a
    /// 6 m ring, a report a second of 256 bits over a 5 kbit/s channel
    /// with 0.2 s latency and 10 % loss, 600 steps of 0.1 s.
    pub fn new(n: usize) -> Self {
        let d = BatchSpec::default();
        FleetConfig {
            n_agents: n,
            scenario: "PaleMap".into(),
            map_seed: d.seed,
            profile: None,
            scheme: ControlScheme::BodyForce3d,
            tick_s: d.tick_s,
            dt_s: d.step_period_s,
            max_steps: 600,
            ring_radius_m: 6.0,
            ping_period_s: 1.0,
            message_bits: 256.0,
            medium: MediumConfig {
                bandwidth_bps: 5000.0,
                packet_drop_rate: 0.1,
                ..MediumConfig::default()
            },
        }
    }
}

/// A report on its way.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    arrival: f64,
    sender: usize,
    receiver: usize,
    report: HeardPosition,
}

/// What one [`FleetEnv::step`] returns, agent-major.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FleetStep {
    /// Observations, `N × observation_len` (an ended agent's row is what
    /// it would observe now, its vehicle no longer moving).
    pub obs: Vec<f32>,
    /// Rewards, `N` (0 for agents that had ended before this step).
    pub reward: Vec<f32>,
    /// The agent's episode terminated this step (a collision).
    pub terminated: Vec<bool>,
    /// The agent's episode truncated this step (the time limit).
    pub truncated: Vec<bool>,
    /// Each agent's distance to its slot (m).
    pub slot_error_m: Vec<f32>,
}

/// `N` vehicles holding a ring over one acoustic channel.
#[derive(Debug)]
pub struct FleetEnv {
    cfg: FleetConfig,
    batch: Batch,
    pool: rayon::ThreadPool,
    low: Vec<f64>,
    high: Vec<f64>,
    scale: Vec<f64>,
    obs_low: Vec<f32>,
    obs_high: Vec<f32>,
    rng: ChaCha8Rng,
    medium: AcousticMedium,
    in_flight: Vec<InFlight>,
    /// `heard[receiver * N + sender]`.
    heard: Vec<Option<HeardPosition>>,
    /// Each agent's next turn to broadcast (s).
    next_turn: Vec<f64>,
    centre_ned: Vector3<f64>,
    alive: Vec<bool>,
    steps: u32,
    time_s: f64,
    /// Reports sent, delivered, lost (drop or range) and not sent (busy).
    counts: [u64; 4],
}

impl FleetEnv {
    /// The environment of `cfg`, stepped on `threads` threads (≥ 1).
    pub fn new(cfg: &FleetConfig, threads: usize) -> Result<FleetEnv> {
        let n = cfg.n_agents;
        if !(2..=64).contains(&n) {
            return Err(GymError::Config(format!(
                "n_agents must be 2..=64, got {n}"
            )));
        }
        if cfg.max_steps == 0 {
            return Err(GymError::Config("max_episode_steps must be ≥ 1".into()));
        }
        let finite_pos = |x: f64| x.is_finite() && x > 0.0;
        if !(finite_pos(cfg.ring_radius_m) && cfg.ring_radius_m <= 50.0) {
            return Err(GymError::Config(format!(
                "ring_radius_m must be in (0, 50], got {}",
                cfg.ring_radius_m
            )));
        }
        if !(cfg.ping_period_s >= cfg.dt_s && cfg.ping_period_s <= MAX_PING_PERIOD_S) {
            return Err(GymError::Config(format!(
                "ping_period_s must be from one control period ({} s) to {MAX_PING_PERIOD_S} s, got {}",
                cfg.dt_s, cfg.ping_period_s
            )));
        }
        if !(finite_pos(cfg.message_bits) && cfg.message_bits <= 1e9) {
            return Err(GymError::Config(format!(
                "message_bits must be in (0, 1e9], got {}",
                cfg.message_bits
            )));
        }
        let m = &cfg.medium;
        let medium_ok = finite_pos(m.bandwidth_bps)
            && finite_pos(m.sound_speed_m_s)
            && m.latency_s.is_finite()
            && m.latency_s >= 0.0
            && m.range_m >= 0.0
            && (0.0..=1.0).contains(&m.packet_drop_rate);
        if !medium_ok {
            return Err(GymError::Config(format!("invalid acoustic medium: {m:?}")));
        }
        let spec = BatchSpec {
            scenario: cfg.scenario.clone(),
            seed: cfg.map_seed,
            profile: cfg.profile.clone(),
            tick_s: cfg.tick_s,
            step_period_s: cfg.dt_s,
            sensors: [SensorFamily::Depth, SensorFamily::Imu, SensorFamily::Dvl]
                .map(LaneSensorSpec::new)
                .to_vec(),
            ..BatchSpec::default()
        };
        let batch = crate::env::batch_of(&spec, n)?;
        let (low, high) = bounds(cfg.scheme, batch.shared())?;
        let scale = low
            .iter()
            .zip(&high)
            .map(|(l, h): (&f64, &f64)| l.abs().max(h.abs()).max(1e-9))
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.clamp(1, 256))
            .build()
            .map_err(|e| GymError::Config(format!("thread pool: {e}")))?;
        let (obs_low, obs_high) = fleet_obs_bounds(batch.shared(), n);
        let mut env = FleetEnv {
            cfg: cfg.clone(),
            batch,
            pool,
            low,
            high,
            scale,
            obs_low,
            obs_high,
            rng: ChaCha8Rng::seed_from_u64(0),
            medium: AcousticMedium::new(cfg.medium),
            in_flight: Vec::new(),
            heard: vec![None; n * n],
            next_turn: vec![0.0; n],
            centre_ned: Vector3::zeros(),
            alive: vec![true; n],
            steps: 0,
            time_s: 0.0,
            counts: [0; 4],
        };
        env.reset(Some(0))?;
        Ok(env)
    }

    /// Agents.
    pub fn n_agents(&self) -> usize {
        self.cfg.n_agents
    }
    /// Observation length per agent.
    pub fn observation_len(&self) -> usize {
        17 + 4 * (self.cfg.n_agents - 1)
    }
    /// Action length per agent.
    pub fn action_len(&self) -> usize {
        self.low.len()
    }
    /// The configuration.
    pub fn config(&self) -> &FleetConfig {
        &self.cfg
    }
    /// Lower and upper bound of each action value (the scheme's units).
    pub fn action_bounds(&self) -> (&[f64], &[f64]) {
        (&self.low, &self.high)
    }
    /// Lower and upper bound of each observation value.
    pub fn observation_bounds(&self) -> (&[f32], &[f32]) {
        (&self.obs_low, &self.obs_high)
    }
    /// Which agents' episodes go on.
    pub fn alive(&self) -> &[bool] {
        &self.alive
    }
    /// The batch underneath (scene, vehicle, lane states).
    pub fn batch(&self) -> &Batch {
        &self.batch
    }
    /// Each agent's slot (NED, m).
    pub fn slots_ned(&self) -> Vec<[f64; 3]> {
        (0..self.cfg.n_agents)
            .map(|i| self.slot(i).into())
            .collect()
    }
    /// Reports sent, delivered, lost (dropped or out of range) and not
    /// sent for a busy channel, since the last reset.
    pub fn message_counts(&self) -> [u64; 4] {
        self.counts
    }
    /// Simulated time since the reset (s).
    pub fn time_s(&self) -> f64 {
        self.time_s
    }

    fn slot(&self, i: usize) -> Vector3<f64> {
        let th = TAU * i as f64 / self.cfg.n_agents as f64;
        let r = self.cfg.ring_radius_m;
        self.centre_ned + Vector3::new(r * th.cos(), r * th.sin(), 0.0)
    }

    /// Starts a new episode; with `seed`, its draws restart from it (the
    /// next unseeded reset goes on from the last stream). Returns the
    /// observations, `N × observation_len`.
    pub fn reset(&mut self, seed: Option<u64>) -> Result<Vec<f32>> {
        if let Some(s) = seed {
            self.rng = ChaCha8Rng::seed_from_u64(oceansim_sim::splitmix64(s ^ 0xF1EE7));
        }
        let n = self.cfg.n_agents;
        let r = self.cfg.ring_radius_m;
        let (shared, _) = self.batch.split_mut();
        let (radius, half) = shared.hull();
        let spacing = START_SPACING_M.max(2.0 * (half + radius) + 0.5);
        let mut found = None;
        for _ in 0..256 {
            if let Some(d) = draw_fleet(shared, &mut self.rng, n, r, spacing) {
                found = Some(d);
                break;
            }
        }
        let Some((centre, starts)) = found else {
            return Err(GymError::Reset(format!(
                "no room for a ring of {n} vehicles of radius {r} m in 256 draws: the map \
                 needs open water {CLEARANCE_M} m from the seabed and the surface"
            )));
        };
        self.centre_ned = centre;
        let noise = self.rng.gen::<u64>();
        let (shared, lanes) = self.batch.split_mut();
        for (i, (lane, s)) in lanes.iter_mut().zip(starts).enumerate() {
            lane.reset_with_noise(shared, s, oceansim_sim::splitmix64(noise ^ i as u64));
        }
        let mut medium = self.cfg.medium;
        medium.seed = oceansim_sim::splitmix64(self.cfg.medium.seed ^ self.rng.gen::<u64>());
        self.medium = AcousticMedium::new(medium);
        self.in_flight.clear();
        self.heard.iter_mut().for_each(|h| *h = None);
        let period = self.cfg.ping_period_s;
        for (i, t) in self.next_turn.iter_mut().enumerate() {
            *t = period * i as f64 / n as f64;
        }
        self.alive.iter_mut().for_each(|a| *a = true);
        self.steps = 0;
        self.time_s = 0.0;
        self.counts = [0; 4];
        let mut obs = vec![0.0; n * self.observation_len()];
        self.observe_all(&mut obs);
        Ok(obs)
    }

    /// One control period of every agent still running under `actions`
    /// (`N × action_len`, agent-major; rows of ended agents are ignored).
    /// Refused whole, changing nothing, when the length is wrong or a value
    /// of a running agent is not finite; values outside the bounds are
    /// clipped. After every agent has ended, refused until a reset.
    pub fn step(&mut self, actions: &[f64]) -> Result<FleetStep> {
        let (n, a) = (self.cfg.n_agents, self.action_len());
        if actions.len() != n * a {
            return Err(GymError::ActionShape {
                expected: n * a,
                got: actions.len(),
            });
        }
        if !self.alive.iter().any(|x| *x) {
            return Err(GymError::NeedsReset(
                "every agent's episode has ended; call reset()".into(),
            ));
        }
        let mut acts = actions.to_vec();
        for (i, chunk) in acts.chunks_mut(a).enumerate() {
            if !self.alive[i] {
                continue;
            }
            for (k, x) in chunk.iter_mut().enumerate() {
                if !x.is_finite() {
                    return Err(GymError::Action(format!(
                        "agent {i}: action value {k} is {x}"
                    )));
                }
                *x = x.clamp(self.low[k], self.high[k]);
            }
        }
        let scheme = self.cfg.scheme;
        let alive = self.alive.clone();
        // The other vehicles' hulls, where they are at the period's start:
        // what the lanes' DVL beams can meet besides the scene.
        let bodies: Vec<(usize, Body)> = {
            let (shared, lanes) = (self.batch.shared(), self.batch.lanes());
            lanes
                .iter()
                .enumerate()
                .filter(|(j, _)| alive[*j])
                .map(|(j, l)| (j, hull_body(shared, l.state())))
                .collect()
        };
        let (shared, lanes) = self.batch.split_mut();
        let failed = std::sync::Mutex::new(None);
        self.pool.install(|| {
            lanes
                .par_iter_mut()
                .enumerate()
                .zip(acts.par_chunks(a))
                .for_each(|((i, lane), act)| {
                    if !alive[i] {
                        return;
                    }
                    if let Err(e) = lane.set_action(shared, scheme, act) {
                        *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        return;
                    }
                    let others: Vec<Body> = bodies
                        .iter()
                        .filter(|(j, _)| *j != i)
                        .map(|(_, b)| *b)
                        .collect();
                    shared.step_among(lane, &others);
                })
        });
        if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(GymError::Action(e.to_string()));
        }
        self.steps += 1;
        self.time_s = f64::from(self.steps) * self.batch.shared().step_period_s();
        self.acoustics(self.time_s);
        // Collisions: the scene's (from the lanes) and hull to hull.
        let shared = self.batch.shared();
        let lanes = self.batch.lanes();
        let bodies: Vec<Body> = lanes.iter().map(|l| hull_body(shared, l.state())).collect();
        let mut hit = vec![false; n];
        for i in 0..n {
            if !alive[i] {
                continue;
            }
            hit[i] |= lanes[i].touches().collided() || lanes[i].touches().diverged;
            for j in i + 1..n {
                if alive[j] && bodies[i].overlap(&bodies[j]).is_some() {
                    hit[i] = true;
                    hit[j] = true;
                }
            }
        }
        let per_step = 1.0 / f64::from(self.cfg.max_steps);
        let r = self.cfg.ring_radius_m;
        let chord = 2.0 * r * (PI / n as f64).sin();
        let mut out = FleetStep {
            obs: vec![0.0; n * self.observation_len()],
            reward: vec![0.0; n],
            terminated: vec![false; n],
            truncated: vec![false; n],
            slot_error_m: vec![0.0; n],
        };
        let pos: Vec<Vector3<f64>> = lanes.iter().map(|l| l.state().position_ned).collect();
        for i in 0..n {
            let e = (pos[i] - self.slot(i)).norm();
            out.slot_error_m[i] = e as f32;
            if !alive[i] {
                continue;
            }
            let spacing = [(i + n - 1) % n, (i + 1) % n]
                .iter()
                .map(|&j| ((pos[i] - pos[j]).norm() - chord).abs())
                .sum::<f64>()
                / 2.0;
            let effort = acts[i * a..(i + 1) * a]
                .iter()
                .zip(&self.scale)
                .map(|(x, s)| (x / s).powi(2))
                .sum::<f64>()
                / a as f64;
            let mut rew = (1.0 - (e / r).min(1.0) - (spacing / chord).min(1.0)) * per_step
                - 0.1 * effort * per_step;
            if hit[i] {
                rew -= 1.0;
                out.terminated[i] = true;
                self.alive[i] = false;
            } else if self.steps >= self.cfg.max_steps {
                out.truncated[i] = true;
                self.alive[i] = false;
            }
            out.reward[i] = rew as f32;
        }
        self.observe_all(&mut out.obs);
        Ok(out)
    }

    /// The channel at the end of a control period, at `now`: the agents
    /// whose turn fell in the period broadcast, then the reports that
    /// have arrived by `now` are heard.
    fn acoustics(&mut self, now: f64) {
        let n = self.cfg.n_agents;
        let lanes = self.batch.lanes();
        let pos: Vec<Vector3<f64>> = lanes.iter().map(|l| l.state().position_ned).collect();
        let period = self.cfg.ping_period_s;
        for i in 0..n {
            // A turn a hair past `now` (rounding of k·dt) is this period's.
            while self.alive[i] && self.next_turn[i] <= now + 1e-9 {
                self.next_turn[i] += period;
                if self.medium.backlog(now) > period {
                    self.counts[3] += 1;
                    continue;
                }
                let tx = self.medium.transmit(now, self.cfg.message_bits);
                self.counts[0] += 1;
                for j in (0..n).filter(|&j| j != i && self.alive[j]) {
                    let d = (pos[i] - pos[j]).norm();
                    if self.medium.draw_loss(d).is_some() {
                        self.counts[2] += 1;
                        continue;
                    }
                    let arrival = self.medium.arrival(tx.end, d);
                    self.in_flight.push(InFlight {
                        arrival,
                        sender: i,
                        receiver: j,
                        report: HeardPosition {
                            p_ned: pos[i].into(),
                            sent_at: now,
                            arrived_at: arrival,
                        },
                    });
                }
            }
        }
        // In arrival order (then receiver, sender), so that what is heard
        // does not depend on the order of sending.
        self.in_flight.sort_by(|a, b| {
            a.arrival
                .total_cmp(&b.arrival)
                .then(a.receiver.cmp(&b.receiver))
                .then(a.sender.cmp(&b.sender))
        });
        let due = self.in_flight.partition_point(|m| m.arrival <= now);
        let arrived: Vec<InFlight> = self.in_flight.drain(..due).collect();
        for m in arrived {
            // In range of where it was sent, at its arrival.
            let d = (Vector3::from(m.report.p_ned) - pos[m.receiver]).norm();
            if self.alive[m.receiver] && self.medium.deliverable(d) {
                self.counts[1] += 1;
                let slot = &mut self.heard[m.receiver * n + m.sender];
                if slot.as_ref().is_none_or(|h| h.sent_at <= m.report.sent_at) {
                    *slot = Some(m.report);
                }
            } else {
                self.counts[2] += 1;
            }
        }
    }

    fn observe_all(&self, out: &mut [f32]) {
        let len = self.observation_len();
        let mut values = Vec::with_capacity(len);
        for (i, o) in out.chunks_mut(len).enumerate() {
            values.clear();
            self.observe(i, &mut values);
            for (k, (dst, x)) in o.iter_mut().zip(&values).enumerate() {
                *dst = (*x as f32).clamp(self.obs_low[k], self.obs_high[k]);
            }
        }
    }

    fn observe(&self, i: usize, out: &mut Vec<f64>) {
        let n = self.cfg.n_agents;
        let lane: &Lane = &self.batch.lanes()[i];
        let s = lane.state();
        let latest = |f| lane.sensor(f).and_then(|x| x.latest()).map(|x| &x.reading);
        match latest(SensorFamily::Depth) {
            Some(SensorReading::Depth(d)) => out.push(d.depth_m),
            _ => out.push(0.0),
        }
        crate::sensed::imu_values(lane, out);
        match latest(SensorFamily::Dvl) {
            Some(SensorReading::Dvl(d)) => {
                out.extend(d.velocity_body.unwrap_or([0.0; 3]));
                out.push(d.altitude_m.unwrap_or(0.0));
                out.push(if d.bottom_lock { 1.0 } else { 0.0 });
            }
            _ => out.extend([0.0; 5]),
        }
        let body = |v: Vector3<f64>| s.attitude.inverse_transform_vector(&v);
        out.extend(body(self.slot(i) - s.position_ned).iter());
        for j in (0..n).filter(|j| *j != i) {
            match &self.heard[i * n + j] {
                Some(h) => {
                    out.extend(body(Vector3::from(h.p_ned) - s.position_ned).iter());
                    out.push((self.time_s - h.sent_at).min(MAX_AGE_S));
                }
                None => out.extend([0.0, 0.0, 0.0, MAX_AGE_S]),
            }
        }
    }
}

/// A vehicle's contact capsule (user frame).
fn hull_body(shared: &Shared, s: &VehicleState) -> Body {
    let (radius, half) = shared.hull();
    let c = Vector3::from(User::from(Ned(s.position_ned)).0);
    let axis = Vector3::from(User::from(Ned(s.attitude * Vector3::x())).0);
    Body::capsule(c, axis, half, radius)
}

/// A centre with room for the ring and `n` clear starts around it.
fn draw_fleet(
    shared: &Shared,
    rng: &mut ChaCha8Rng,
    n: usize,
    r: f64,
    spacing: f64,
) -> Option<(Vector3<f64>, Vec<VehicleState>)> {
    let scene = shared.scene();
    let [x0, x1, y0, y1] = scene.bounds();
    let (mx, my) = ((x1 - x0) / 4.0, (y1 - y0) / 4.0);
    let (cx, cy) = (
        rng.gen_range(x0 + mx..x1 - mx),
        rng.gen_range(y0 + my..y1 - my),
    );
    // The shallowest seabed under the ring and its starts.
    let reach = 1.6 * r;
    let floor = (0..24)
        .flat_map(|k| {
            let a = TAU * k as f64 / 24.0;
            [0.0, 0.5, 1.0].map(|f| {
                scene
                    .terrain
                    .height(cx + f * reach * a.cos(), cy + f * reach * a.sin())
            })
        })
        .fold(f64::NEG_INFINITY, f64::max);
    let room = -floor - 2.0 * CLEARANCE_M - 2.0;
    if room.is_nan() || room <= 0.0 {
        return None;
    }
    let depth = CLEARANCE_M + 1.0 + rng.gen_range(0.0..room);
    let centre = Ned::from(User([cx, cy, -depth])).0;
    let mut starts: Vec<VehicleState> = Vec::with_capacity(n);
    for _ in 0..n {
        let placed = (0..64).find_map(|_| {
            let rho = 1.5 * r * rng.gen::<f64>().sqrt();
            let a = rng.gen_range(0.0..TAU);
            let p = centre + Vector3::new(rho * a.cos(), rho * a.sin(), rng.gen_range(-1.0..1.0));
            let s = VehicleState::at_rest(p, 0.0, 0.0, rng.gen_range(-PI..PI));
            let spaced = starts
                .iter()
                .all(|o| (o.position_ned - p).norm() >= spacing);
            (spaced && hull_clear(shared, &s)).then_some(s)
        })?;
        starts.push(placed);
    }
    Some((centre, starts))
}

/// Finite observation bounds: the map's diagonal for positions, ±10 m/s,
/// ±50 m/s², ±π rad/s and the angles' ranges.
fn fleet_obs_bounds(shared: &Shared, n: usize) -> (Vec<f32>, Vec<f32>) {
    let scene = shared.scene();
    let [x0, x1, y0, y1] = scene.bounds();
    let deep = (-scene.terrain.min_height()).max(1.0);
    let diag = ((x1 - x0).powi(2) + (y1 - y0).powi(2) + deep * deep).sqrt();
    let mut rows: Vec<(f64, f64)> = vec![(0.0, deep)];
    rows.extend([(-50.0, 50.0); 3]);
    rows.extend([(-PI, PI); 3]);
    rows.extend([(-PI, PI), (-PI / 2.0, PI / 2.0)]);
    rows.extend([(-10.0, 10.0); 3]);
    rows.extend([(0.0, oceansim_sim::DVL_MAX_RANGE_M), (0.0, 1.0)]);
    rows.extend([(-diag, diag); 3]);
    for _ in 1..n {
        rows.extend([(-diag, diag); 3]);
        rows.push((0.0, MAX_AGE_S));
    }
    (
        rows.iter().map(|r| r.0 as f32).collect(),
        rows.iter().map(|r| r.1 as f32).collect(),
    )
}
