//! The tasks: start and goal distributions, observations, rewards and
//! terminations.

use crate::bounds::{bounds, observation_bounds};
use crate::place::{
    descent_clear, goal_clear, hull_clear, idle_step_touches_nothing, MAX_ATTEMPTS, POOL_DRAWS,
    POOL_SIZE,
};
use crate::sensed::{self, ALTITUDE_TOLERANCE_M, MIN_SURGE_M_S, REMUS_TOLERANCE};
use crate::{GymError, Result};
use nalgebra::{Vector3, Vector6};
use oceansim_agents::ControlScheme;
use oceansim_sim::batch::{Lane, Shared, Touches};
use oceansim_sim::frames::{Ned, User};
use oceansim_vehicles::VehicleState;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(crate) use crate::episode::Episode;
pub use crate::kind::{EnvConfig, Outcome, TaskKind};
pub use crate::place::CLEARANCE_M;

/// Distance to the goal (3-D, m) that counts as arrived.
pub const ARRIVAL_RADIUS_M: f64 = 1.5;
/// |Depth error| that counts as holding the depth (DepthHold's success), m.
pub const DEPTH_TOLERANCE_M: f64 = 0.5;
/// Largest |target − start depth| of a DepthHold episode (m); the least is
/// [`DEPTH_TOLERANCE_M`], so no episode starts already holding.
pub const DEPTH_STEP_M: f64 = 1.5;
/// Reward for arriving (WaypointNav; the episode terminates).
const ARRIVAL_BONUS: f64 = 1.0;
/// DepthHold's holding term: holding the target depth for a whole episode
/// earns this much (paid per step within the tolerance, over the episode
/// length).
const HOLD_BONUS: f64 = 1.0;
/// Reward for hitting the seabed or an obstacle, or diverging (the
/// episode terminates).
const COLLISION_PENALTY: f64 = -1.0;
/// Reward for a whole episode held at the map's edge (per step: over the
/// episode length).
const EDGE_PENALTY: f64 = -1.0;
/// Cost of a whole episode at full effort (mean squared normalised action
/// of 1 at every step; per step: over the episode length).
const EFFORT_WEIGHT: f64 = 0.1;
/// Errors beyond this many start errors earn or lose no more progress, so
/// that the progress term of an episode stays within [−1, 1].
const PROGRESS_CAP: f64 = 2.0;
/// Least water depth where a start or goal is drawn (m): room between the
/// two clearances for a depth and a DepthHold step of at least
/// [`DEPTH_TOLERANCE_M`].
const MIN_WATER_M: f64 = 2.0 * CLEARANCE_M + DEPTH_TOLERANCE_M;

/// What the reward function says of one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub reward: f64,
    pub outcome: Outcome,
    /// The task's error after the step (m).
    pub error_m: f64,
    pub success: bool,
}

/// A drawn start: the state, the goal (NED; a target depth in `z`) and
/// the target altitude or heading where the task has one.
pub(crate) type Drawn = (VehicleState, Vector3<f64>, f64);

/// A task bound to a batch's vehicle and scene.
#[derive(Debug, Clone)]
pub struct Task {
    kind: TaskKind,
    scheme: ControlScheme,
    low: Vec<f64>,
    high: Vec<f64>,
    /// Per action value, the larger magnitude of its bounds (the effort
    /// term's normaliser).
    scale: Vec<f64>,
    obs_low: Vec<f32>,
    obs_high: Vec<f32>,
    obs_scale: Vec<f32>,
    max_steps: u32,
    /// Starts (with their goals) drawn and verified at construction: where
    /// a lane's own draws all miss, its episode starts from one of these,
    /// so that a map that constructs can always restart a lane.
    fallback: Vec<Drawn>,
    /// SonarAvoid's sonar: beams, bins, range (m).
    sonar: (usize, usize, f64),
}

impl Task {
    pub(crate) fn new(cfg: &EnvConfig, shared: &Shared) -> Result<Task> {
        let (low, high) = bounds(cfg.scheme, shared)?;
        // Starts and goals need water deeper than twice the clearance
        // somewhere in the map's inner 70 %.
        let scene = shared.scene();
        let [x0, x1, y0, y1] = scene.bounds();
        let deep = (0..=40).any(|i| {
            (0..=40).any(|j| {
                let x = x0 + (x1 - x0) * (0.15 + 0.7 * i as f64 / 40.0);
                let y = y0 + (y1 - y0) * (0.15 + 0.7 * j as f64 / 40.0);
                -scene.terrain.height(x, y) > MIN_WATER_M
            })
        });
        if !deep {
            return Err(GymError::Config(format!(
                "scenario `{}` has no water deeper than {MIN_WATER_M} m inside its map; \
                 the tasks keep {CLEARANCE_M} m from the seabed and the surface",
                cfg.scenario,
            )));
        }
        let scale = low
            .iter()
            .zip(&high)
            .map(|(lo, hi): (&f64, &f64)| lo.abs().max(hi.abs()).max(1e-9))
            .collect();
        let sonar = (
            cfg.sonar_beams as usize,
            cfg.sonar_bins as usize,
            cfg.sonar_range_m,
        );
        let (obs_low, obs_high, obs_scale) = observation_bounds(cfg.task, shared, sonar);
        let mut task = Task {
            kind: cfg.task,
            scheme: cfg.scheme,
            low,
            high,
            scale,
            obs_low,
            obs_high,
            obs_scale,
            max_steps: cfg.max_steps,
            fallback: Vec::new(),
            sonar,
        };
        // The fallback starts, from a stream of their own (the map's seed):
        // construction fails here, loudly, on a map with no clear start.
        let mut rng = ChaCha8Rng::seed_from_u64(oceansim_sim::splitmix64(cfg.map_seed ^ 0xFA11));
        let mut pool = Vec::with_capacity(POOL_SIZE);
        for _ in 0..POOL_DRAWS {
            if let Some(drawn) = task.draw_episode(shared, &mut rng) {
                pool.push(drawn);
                if pool.len() == POOL_SIZE {
                    break;
                }
            }
        }
        if pool.is_empty() && cfg.task == TaskKind::SonarAvoid {
            return Err(GymError::Reset(format!(
                "no SonarAvoid episode found in {POOL_DRAWS} draws: the map needs an obstacle \
                 standing in open water ({CLEARANCE_M} m from the seabed and the surface) \
                 between a start and a goal {}–{} m apart",
                sensed::SONAR_GOAL_RANGE_M[0],
                sensed::SONAR_GOAL_RANGE_M[1]
            )));
        }
        if pool.is_empty() {
            return Err(GymError::Reset(format!(
                "no clear start found in {POOL_DRAWS} draws: the map has too little open \
                 water {CLEARANCE_M} m from the seabed and the surface and {} m from obstacles",
                crate::place::HULL_MARGIN_M
            )));
        }
        task.fallback = pool;
        Ok(task)
    }

    /// The task.
    pub fn kind(&self) -> TaskKind {
        self.kind
    }
    /// Observation length.
    pub fn observation_len(&self) -> usize {
        self.kind.observation_len_with(self.sonar.0, self.sonar.1)
    }
    /// SonarAvoid's sonar: beams, bins and range (m).
    pub fn sonar(&self) -> (usize, usize, f64) {
        self.sonar
    }
    /// The control scheme of the action.
    pub fn scheme(&self) -> ControlScheme {
        self.scheme
    }
    /// Lower and upper bound of each action value.
    pub fn action_bounds(&self) -> (&[f64], &[f64]) {
        (&self.low, &self.high)
    }
    /// Lower and upper bound of each observation value (observations are
    /// clipped to them; their values are listed in `docs/python.md`).
    pub fn observation_bounds(&self) -> (&[f32], &[f32]) {
        (&self.obs_low, &self.obs_high)
    }
    /// A typical magnitude of each observation value: the Python
    /// `normalized_observations` option divides by it and clips to ±1.
    pub fn observation_scales(&self) -> &[f32] {
        &self.obs_scale
    }
    /// Steps before truncation.
    pub fn max_steps(&self) -> u32 {
        self.max_steps
    }

    /// Clips `a` to the bounds in place; refuses non-finite values.
    pub(crate) fn clip(&self, a: &mut [f64]) -> Result<()> {
        for (k, x) in a.iter_mut().enumerate() {
            if !x.is_finite() {
                return Err(GymError::Action(format!("action value {k} is {x}")));
            }
            *x = x.clamp(self.low[k], self.high[k]);
        }
        Ok(())
    }

    /// A point of the map's inner 70 % (anywhere, or 6–20 m from `near`)
    /// with water deeper than both clearances, at a depth between them
    /// (user frame, m); `None` when this draw misses.
    fn draw_point(shared: &Shared, rng: &mut ChaCha8Rng, near: Option<[f64; 3]>) -> Option<User> {
        let scene = shared.scene();
        let [x0, x1, y0, y1] = scene.bounds();
        // Inner 70 % of the map, away from the edge.
        let (mx, my) = ((x1 - x0) * 0.15, (y1 - y0) * 0.15);
        let (x, y) = match near {
            None => (
                rng.gen_range(x0 + mx..x1 - mx),
                rng.gen_range(y0 + my..y1 - my),
            ),
            Some([cx, cy, _]) => {
                let r = rng.gen_range(6.0..20.0);
                let b: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
                (cx + r * b.cos(), cy + r * b.sin())
            }
        };
        if !(x0 + mx..x1 - mx).contains(&x) || !(y0 + my..y1 - my).contains(&y) {
            return None;
        }
        let floor = -scene.terrain.height(x, y);
        // Room for a depth strictly between the two clearances (and false
        // for a NaN height).
        if floor.is_nan() || floor <= MIN_WATER_M {
            return None;
        }
        let depth = rng.gen_range(CLEARANCE_M..floor - CLEARANCE_M);
        Some(User([x, y, -depth]))
    }

    /// The start and goal of one attempt: `None` unless the hull is clear
    /// at the start (and on an idle first step), at the goal and, for
    /// DepthHold, all the way up or down to it.
    fn draw_episode(&self, shared: &Shared, rng: &mut ChaCha8Rng) -> Option<Drawn> {
        let drawn = match self.kind {
            TaskKind::TerrainFollow => sensed::draw_terrain_follow(shared, rng)?,
            TaskKind::SonarAvoid => {
                let (s, g) = sensed::draw_sonar_avoid(shared, rng)?;
                (s, g, 0.0)
            }
            TaskKind::Remus100Heading => sensed::draw_remus(shared, rng)?,
            TaskKind::WaypointNav | TaskKind::DepthHold => {
                let (s, g) = self.draw_point_episode(shared, rng)?;
                (s, g, 0.0)
            }
        };
        idle_step_touches_nothing(shared, drawn.0).then_some(drawn)
    }

    fn draw_point_episode(
        &self,
        shared: &Shared,
        rng: &mut ChaCha8Rng,
    ) -> Option<(VehicleState, Vector3<f64>)> {
        let p = Self::draw_point(shared, rng, None)?;
        let yaw: f64 = rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI);
        let state = VehicleState::at_rest(Ned::from(p).0, 0.0, 0.0, yaw);
        if !hull_clear(shared, &state) {
            return None;
        }
        let goal = match self.kind {
            // 6–20 m away (a few draws: the ring may leave the inner map).
            TaskKind::WaypointNav => (0..8)
                .find_map(|_| Self::draw_point(shared, rng, Some(p.0)))
                .map(|g| Ned::from(g).0)
                .filter(|g| goal_clear(shared, g))?,
            TaskKind::DepthHold => {
                // Within reach of one episode: the torpedo's vertical
                // thrusters net ~3 N down against its buoyancy (~0.075 m/s).
                let floor = -shared.scene().terrain.height(p.0[0], p.0[1]);
                let z = -p.0[2];
                // 0.5–1.5 m up or down (the other way where the first
                // leaves the water between the clearances).
                let step = rng.gen_range(DEPTH_TOLERANCE_M..DEPTH_STEP_M);
                let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                let depth = [z + sign * step, z - sign * step]
                    .into_iter()
                    .find(|d| (CLEARANCE_M..=floor - CLEARANCE_M).contains(d))?;
                if !descent_clear(shared, &state, depth) {
                    return None;
                }
                Vector3::new(state.position_ned.x, state.position_ned.y, depth)
            }
            _ => return None,
        };
        Some((state, goal))
    }

    /// The start and goal of a new episode, drawn from `rng` until they are
    /// clear ([`crate::place`]); after [`MAX_ATTEMPTS`] misses, one of the
    /// starts verified at construction (chosen by `rng`). Never fails, never
    /// starts in contact.
    pub(crate) fn draw(&self, shared: &Shared, rng: &mut ChaCha8Rng) -> Drawn {
        for _ in 0..MAX_ATTEMPTS {
            if let Some(drawn) = self.draw_episode(shared, rng) {
                return drawn;
            }
        }
        self.fallback[rng.gen_range(0..self.fallback.len())]
    }

    /// Starts `lane`'s episode at a start drawn by [`Task::draw`].
    pub(crate) fn begin(
        &self,
        shared: &Shared,
        lane: &mut Lane,
        ep: &mut Episode,
        (state, goal, target): Drawn,
    ) {
        if shared.sensor_mounts().is_empty() {
            lane.reset(shared, state);
        } else {
            // Each episode its own sensor noise, from where the lane's
            // stream stands, without drawing from it: sensors carried
            // along (`extra_sensors`) leave the episodes a seed gives as
            // they were.
            let seed = ep.rng.get_seed();
            let mut h = ep.rng.get_word_pos() as u64;
            for w in seed.chunks(8) {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                h = oceansim_sim::splitmix64(h ^ u64::from_le_bytes(b));
            }
            lane.reset_with_noise(shared, state, h);
        }
        ep.goal_ned = goal;
        ep.target_altitude = target;
        ep.target_heading = target;
        ep.steps = 0;
        ep.last_distance = self.distance(shared, lane.state(), ep);
        ep.start_distance = ep.last_distance;
    }

    /// Starts a new episode on `lane` from the lane's own stream.
    pub(crate) fn start(&self, shared: &Shared, lane: &mut Lane, ep: &mut Episode) {
        let drawn = self.draw(shared, &mut ep.rng);
        self.begin(shared, lane, ep, drawn);
    }

    /// The task's error (m).
    fn distance(&self, shared: &Shared, s: &VehicleState, ep: &Episode) -> f64 {
        match self.kind {
            TaskKind::WaypointNav | TaskKind::SonarAvoid => (ep.goal_ned - s.position_ned).norm(),
            TaskKind::DepthHold => (ep.goal_ned.z - s.position_ned.z).abs(),
            TaskKind::TerrainFollow => {
                (sensed::seabed_altitude(shared, s) - ep.target_altitude).abs()
            }
            TaskKind::Remus100Heading => {
                let (dz, dpsi) = sensed::remus_errors(s, ep);
                dz.abs() + sensed::HEADING_WEIGHT_M_PER_RAD * dpsi.abs()
            }
        }
    }

    /// Writes the observation of `lane` into `out`.
    pub(crate) fn observe(&self, shared: &Shared, lane: &Lane, ep: &Episode, out: &mut [f32]) {
        let s = lane.state();
        let (roll, pitch, _) = s.euler();
        let here = User::from(Ned(s.position_ned)).0;
        let altitude = here[2] - shared.scene().terrain.height(here[0], here[1]);
        let depth = s.position_ned.z;
        let nu: &Vector6<f64> = &s.nu;
        // Filled in place: this runs for every lane at every step.
        let (lo, hi) = (&self.obs_low, &self.obs_high);
        let mut put = |values: &[f64]| {
            for (k, (o, x)) in out.iter_mut().zip(values).enumerate() {
                *o = (*x as f32).clamp(lo[k], hi[k]);
            }
        };
        let mut values = Vec::new();
        match self.kind {
            TaskKind::TerrainFollow => {
                values.reserve(18);
                sensed::observe_terrain_follow(lane, ep, &mut values);
                put(&values);
            }
            TaskKind::SonarAvoid => {
                let rel = s
                    .attitude
                    .inverse_transform_vector(&(ep.goal_ned - s.position_ned));
                let (b, n, r) = self.sonar;
                values.reserve(13 + b + b * n);
                values.extend([rel.x, rel.y, rel.z]);
                values.extend(nu.iter());
                values.extend([roll, pitch, depth, rel.norm()]);
                sensed::sonar_values(lane, b, n, r, &mut values);
                put(&values);
            }
            TaskKind::Remus100Heading => {
                let (dz, dpsi) = sensed::remus_errors(s, ep);
                put(&[
                    dz,
                    dpsi.sin(),
                    dpsi.cos(),
                    nu[0],
                    nu[1],
                    nu[2],
                    nu[3],
                    nu[4],
                    nu[5],
                    roll,
                    pitch,
                    altitude,
                ]);
            }
            TaskKind::WaypointNav => {
                let rel = s
                    .attitude
                    .inverse_transform_vector(&(ep.goal_ned - s.position_ned));
                put(&[
                    rel.x,
                    rel.y,
                    rel.z,
                    nu[0],
                    nu[1],
                    nu[2],
                    nu[3],
                    nu[4],
                    nu[5],
                    roll,
                    pitch,
                    depth,
                    altitude,
                    rel.norm(),
                ]);
            }
            TaskKind::DepthHold => put(&[
                ep.goal_ned.z - depth,
                nu[2],
                nu[0],
                pitch,
                roll,
                nu[4],
                nu[3],
                altitude,
            ]),
        }
    }

    /// The reward of the step just taken with (clipped) action `a`, how it
    /// left the episode (time limit aside), the error and success.
    pub(crate) fn reward(
        &self,
        shared: &Shared,
        lane: &Lane,
        ep: &mut Episode,
        a: &[f64],
    ) -> Scored {
        let effort = a
            .iter()
            .zip(&self.scale)
            .map(|(x, scale)| (x / scale).powi(2))
            .sum::<f64>()
            / a.len().max(1) as f64;
        let touches: Touches = lane.touches();
        let d = self.distance(shared, lane.state(), ep);
        let per_step = 1.0 / self.max_steps.max(1) as f64;
        // Progress as a share of the start error, the error counted up to
        // twice the start's: the sum over an episode is
        // 1 − min(end error, 2 × start error) / start error, within [−1, 1].
        let e0 = ep.start_distance.max(1e-3);
        let capped = |e: f64| e.min(PROGRESS_CAP * e0);
        let mut r = (capped(ep.last_distance) - capped(d)) / e0 - EFFORT_WEIGHT * per_step * effort;
        let mut outcome = Outcome::Running;
        let success = match self.kind {
            TaskKind::WaypointNav | TaskKind::SonarAvoid => {
                let arrived = d <= ARRIVAL_RADIUS_M;
                if arrived {
                    r += ARRIVAL_BONUS;
                    outcome = Outcome::Arrived;
                }
                arrived
            }
            TaskKind::DepthHold | TaskKind::TerrainFollow | TaskKind::Remus100Heading => {
                let s = lane.state();
                let held = match self.kind {
                    TaskKind::DepthHold => d <= DEPTH_TOLERANCE_M,
                    TaskKind::TerrainFollow => {
                        d <= ALTITUDE_TOLERANCE_M && s.nu[0] >= MIN_SURGE_M_S
                    }
                    _ => {
                        let (dz, dpsi) = sensed::remus_errors(s, ep);
                        dz.abs() <= REMUS_TOLERANCE.0 && dpsi.abs() <= REMUS_TOLERANCE.1
                    }
                };
                if held {
                    r += HOLD_BONUS * per_step;
                }
                held
            }
        };
        if touches.map_edge {
            r += EDGE_PENALTY * per_step;
        }
        // A crash outranks an arrival in the same step.
        if let Some(o) = [
            (touches.diverged, Outcome::Diverged),
            (touches.obstacle, Outcome::Obstacle),
            (touches.seabed, Outcome::Seabed),
        ]
        .iter()
        .find_map(|(hit, o)| hit.then_some(*o))
        {
            r += COLLISION_PENALTY;
            outcome = o;
        }
        ep.last_distance = d;
        Scored {
            reward: r,
            outcome,
            error_m: d,
            success: (success && !outcome.terminated()) || outcome == Outcome::Arrived,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_sim::batch::{Batch, BatchSpec};

    #[test]
    fn a_hull_in_the_seabed_ends_its_episode_as_seabed() {
        // No thrust reaches the seabed in an episode (the torpedo sinks at
        // ~0.075 m/s at most), so the contact is made by placing the hull.
        let mut batch = Batch::new(&BatchSpec::default(), 1).unwrap();
        let task = Task::new(&EnvConfig::new(TaskKind::DepthHold), batch.shared()).unwrap();
        let (shared, lanes) = batch.split_mut();
        let floor = -shared.scene().terrain.height(0.0, 0.0);
        let state = VehicleState::at_rest(Vector3::new(0.0, 0.0, floor + 0.05), 0.0, 0.0, 0.0);
        lanes[0].reset(shared, state);
        shared.step(&mut lanes[0]);
        let mut ep = Episode {
            goal_ned: Vector3::new(0.0, 0.0, floor - 5.0),
            steps: 1,
            last_distance: 5.0,
            start_distance: 5.0,
            ..Episode::new(rand::SeedableRng::seed_from_u64(0))
        };
        let s = task.reward(shared, &lanes[0], &mut ep, &[0.0; 3]);
        assert_eq!(s.outcome, Outcome::Seabed);
        assert!(
            s.outcome.terminated() && !s.success && s.reward < -0.9,
            "{s:?}"
        );
        assert!((s.error_m - 5.0).abs() < 0.5, "{s:?}");
    }
}
