//! The vector environment: `K` episodes stepped in one call.

use crate::task::Episode;
use crate::{EnvConfig, GymError, Outcome, Result, Task};
use oceansim_sim::batch::{Batch, BatchSpec, Lane, Shared};
// SplitMix64 (the terrain's hash): independent lane seeds from one.
use oceansim_sim::splitmix64 as mix;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Most values of SonarAvoid's sonar image (beams × bins) in an
/// observation: 256 × 256, 256 KiB of `f32` per lane.
pub const MAX_SONAR_IMAGE: usize = 65_536;

/// The batch of `spec` with `lanes` lanes; the scenario name `OpenWater`
/// is the gym's own open water ([`crate::sensed::OPEN_WATER_SCENARIO`]).
pub(crate) fn batch_of(spec: &BatchSpec, lanes: usize) -> Result<Batch> {
    Ok(if spec.scenario == "OpenWater" {
        let loaded = oceansim_sim::parse_scenario(crate::sensed::OPEN_WATER_SCENARIO)
            .map_err(oceansim_sim::SimError::from)?;
        Batch::with_scenario(spec, loaded, lanes)?
    } else {
        Batch::new(spec, lanes)?
    })
}

/// What one [`VecEnv::step`] returns, lane-major.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepOut {
    /// Observations, `K × observation_len`: of the new episode where one
    /// ended this step (autoreset in the same step).
    pub obs: Vec<f32>,
    /// Rewards, `K`.
    pub reward: Vec<f32>,
    /// The episode reached a terminal state (arrived, collided).
    pub terminated: Vec<bool>,
    /// The episode ran out of steps.
    pub truncated: Vec<bool>,
    /// The last observation of each episode that ended this step,
    /// `K × observation_len`; rows of lanes that did not end are zero.
    pub final_obs: Vec<f32>,
    /// How the step left each lane's episode (of the episode that ended,
    /// where one did).
    pub outcome: Vec<Outcome>,
    /// The task's error after the step (m): distance to the goal
    /// (WaypointNav) or |depth error| (DepthHold), of the old episode where
    /// one ended.
    pub error_m: Vec<f32>,
    /// The goal is met: arrived (WaypointNav), within the depth tolerance
    /// (DepthHold).
    pub success: Vec<bool>,
    /// Each lane's error now (m): [`StepOut::error_m`] where the episode
    /// goes on, the new episode's start error where one ended (what
    /// Gymnasium's same-step layout reports at the top level).
    pub current_error_m: Vec<f32>,
}

/// `K` independent episodes of one task over one scene.
#[derive(Debug)]
pub struct VecEnv {
    batch: Batch,
    task: Task,
    episodes: Vec<Episode>,
    pool: rayon::ThreadPool,
    actions: Vec<f64>,
    /// A step failed part-way (some lanes moved, some did not): refuse to
    /// step until [`VecEnv::reset`].
    needs_reset: bool,
}

impl VecEnv {
    /// `lanes` episodes of `cfg`, stepped on `threads` threads (≥ 1).
    pub fn new(cfg: &EnvConfig, lanes: usize, threads: usize) -> Result<VecEnv> {
        if lanes == 0 || lanes > 1 << 20 {
            return Err(GymError::Config(format!(
                "num_envs must be 1..=1048576, got {lanes}"
            )));
        }
        if cfg.max_steps == 0 {
            return Err(GymError::Config("max_episode_steps must be ≥ 1".into()));
        }
        let image = u64::from(cfg.sonar_beams) * u64::from(cfg.sonar_bins);
        if cfg.task == crate::TaskKind::SonarAvoid && image > MAX_SONAR_IMAGE as u64 {
            return Err(GymError::Config(format!(
                "a sonar image of {} beams × {} bins is {image} values per observation; \
                 at most {MAX_SONAR_IMAGE}",
                cfg.sonar_beams, cfg.sonar_bins
            )));
        }
        let spec = BatchSpec {
            scenario: cfg.scenario.clone(),
            seed: cfg.map_seed,
            profile: cfg.profile.clone(),
            tick_s: cfg.tick_s,
            step_period_s: cfg.dt_s,
            sensors: cfg.task.sensors(cfg),
            ..BatchSpec::default()
        };
        let batch = batch_of(&spec, lanes)?;
        let task = Task::new(cfg, batch.shared())?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.clamp(1, 256))
            .build()
            .map_err(|e| GymError::Config(format!("thread pool: {e}")))?;
        let episodes = (0..lanes)
            .map(|i| Episode::new(ChaCha8Rng::seed_from_u64(mix(i as u64))))
            .collect();
        let mut env = VecEnv {
            batch,
            task,
            episodes,
            pool,
            actions: Vec::new(),
            needs_reset: false,
        };
        // (`Task::new` failed already, loudly, on a map with no clear start.)
        env.reset(Some(0))?;
        Ok(env)
    }

    /// Number of lanes.
    pub fn num_envs(&self) -> usize {
        self.episodes.len()
    }
    /// Observation length per lane.
    pub fn observation_len(&self) -> usize {
        self.task.observation_len()
    }
    /// Action length per lane.
    pub fn action_len(&self) -> usize {
        self.task.action_bounds().0.len()
    }
    /// The task.
    pub fn task(&self) -> &Task {
        &self.task
    }
    /// The batch underneath (scene, vehicle, lane states).
    pub fn batch(&self) -> &Batch {
        &self.batch
    }
    /// Each lane's error now (m): distance to the goal (WaypointNav) or
    /// |depth error| (DepthHold), as of the last reset or step.
    pub fn errors_m(&self) -> Vec<f32> {
        self.episodes
            .iter()
            .map(|e| e.last_distance as f32)
            .collect()
    }
    /// Each lane's goal in NED (m); for DepthHold the target depth is `z`.
    pub fn goals_ned(&self) -> Vec<[f64; 3]> {
        self.episodes.iter().map(|e| e.goal_ned.into()).collect()
    }

    /// Starts every lane's episode afresh; with `seed`, lane `i`'s random
    /// stream restarts from `seed` and `i`. Returns the observations. All
    /// or nothing: every lane's start is drawn (on a copy of its stream)
    /// before any lane changes, and a draw never fails once the
    /// environment is built (a lane whose draws all miss takes one of the
    /// starts verified at construction).
    pub fn reset(&mut self, seed: Option<u64>) -> Result<Vec<f32>> {
        let n = self.observation_len();
        let task = &self.task;
        let (shared, lanes) = self.batch.split_mut();
        let mut rngs: Vec<ChaCha8Rng> = match seed {
            Some(seed) => (0..lanes.len())
                .map(|i| ChaCha8Rng::seed_from_u64(mix(mix(seed) ^ i as u64)))
                .collect(),
            None => self.episodes.iter().map(|e| e.rng.clone()).collect(),
        };
        let drawn: Vec<_> = self.pool.install(|| {
            rngs.par_iter_mut()
                .with_min_len(32)
                .map(|rng| task.draw(shared, rng))
                .collect()
        });
        let mut obs = vec![0.0f32; lanes.len() * n];
        self.pool.install(|| {
            lanes
                .par_iter_mut()
                .zip(self.episodes.par_iter_mut())
                .zip(rngs.into_par_iter().zip(drawn))
                .zip(obs.par_chunks_mut(n))
                .with_min_len(32)
                .for_each(|(((lane, ep), (rng, d)), o)| {
                    ep.rng = rng;
                    task.begin(shared, lane, ep, d);
                    task.observe(shared, lane, ep, o);
                })
        });
        self.needs_reset = false;
        Ok(obs)
    }

    /// Starts lane `i`'s episode afresh (its stream continues); returns its
    /// observation.
    pub fn reset_lane(&mut self, i: usize) -> Result<Vec<f32>> {
        if i >= self.num_envs() {
            return Err(GymError::Config(format!("no lane {i}")));
        }
        let mut o = vec![0.0; self.observation_len()];
        let (shared, lanes) = self.batch.split_mut();
        self.task
            .start(shared, &mut lanes[i], &mut self.episodes[i]);
        self.task
            .observe(shared, &lanes[i], &self.episodes[i], &mut o);
        Ok(o)
    }

    /// One control period of every lane under `actions` (`K ×
    /// action_len`, lane-major). Lanes whose episode ends start a new one
    /// in the same call. Refused whole, changing nothing, when the length is
    /// wrong or a value is not finite. Should a lane fail part-way (which
    /// only a vehicle that takes no action of the scheme could cause), the
    /// environment refuses further steps ([`GymError::NeedsReset`]) until
    /// [`VecEnv::reset`].
    pub fn step(&mut self, actions: &[f64]) -> Result<StepOut> {
        if self.needs_reset {
            return Err(GymError::NeedsReset(
                "a previous step failed part-way; call reset()".into(),
            ));
        }
        let (k, a, n) = (self.num_envs(), self.action_len(), self.observation_len());
        if actions.len() != k * a {
            return Err(GymError::ActionShape {
                expected: k * a,
                got: actions.len(),
            });
        }
        // Check and clip every action before any lane moves.
        self.actions.clear();
        self.actions.extend_from_slice(actions);
        for chunk in self.actions.chunks_mut(a) {
            self.task.clip(chunk)?;
        }
        let mut out = StepOut {
            obs: vec![0.0; k * n],
            reward: vec![0.0; k],
            terminated: vec![false; k],
            truncated: vec![false; k],
            final_obs: vec![0.0; k * n],
            outcome: vec![Outcome::Running; k],
            error_m: vec![0.0; k],
            success: vec![false; k],
            current_error_m: vec![0.0; k],
        };
        let task = &self.task;
        let acts = &self.actions;
        let (shared, lanes) = self.batch.split_mut();
        let failed = std::sync::Mutex::new(None);
        self.pool.install(|| {
            lanes
                .par_iter_mut()
                .zip(self.episodes.par_iter_mut())
                .zip(acts.par_chunks(a))
                .zip(out.obs.par_chunks_mut(n))
                .zip(out.final_obs.par_chunks_mut(n))
                .zip(
                    out.reward
                        .par_iter_mut()
                        .zip(out.terminated.par_iter_mut())
                        .zip(out.truncated.par_iter_mut()),
                )
                .zip(
                    out.outcome
                        .par_iter_mut()
                        .zip(out.error_m.par_iter_mut())
                        .zip(out.success.par_iter_mut())
                        .zip(out.current_error_m.par_iter_mut()),
                )
                .with_min_len(16)
                .for_each(
                    |(
                        (((((lane, ep), act), o), fin), ((r, term), trunc)),
                        (((oc, err), ok), now),
                    )| {
                        let lane_out = LaneOut {
                            obs: o,
                            final_obs: fin,
                            reward: r,
                            terminated: term,
                            truncated: trunc,
                            outcome: oc,
                            error_m: err,
                            success: ok,
                            current_error_m: now,
                        };
                        if let Err(e) = step_lane(task, shared, lane, ep, act, lane_out) {
                            *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        }
                    },
                )
        });
        match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => {
                self.needs_reset = true;
                Err(e)
            }
            None => Ok(out),
        }
    }
}

/// One lane's rows of a [`StepOut`].
struct LaneOut<'a> {
    obs: &'a mut [f32],
    final_obs: &'a mut [f32],
    reward: &'a mut f32,
    terminated: &'a mut bool,
    truncated: &'a mut bool,
    outcome: &'a mut Outcome,
    error_m: &'a mut f32,
    success: &'a mut bool,
    current_error_m: &'a mut f32,
}

fn step_lane(
    task: &Task,
    shared: &Shared,
    lane: &mut Lane,
    ep: &mut Episode,
    act: &[f64],
    out: LaneOut<'_>,
) -> Result<()> {
    // Length and finiteness were checked for the whole batch, so this
    // fails only for a scheme no vehicle takes, which `Task::new` refused.
    lane.set_action(shared, task.scheme(), act)
        .map_err(|e| GymError::Action(e.to_string()))?;
    shared.step(lane);
    ep.steps += 1;
    let mut s = task.reward(shared, lane, ep, act);
    if !s.outcome.terminated() && ep.steps >= task.max_steps() {
        s.outcome = Outcome::TimeLimit;
    }
    *out.reward = s.reward as f32;
    *out.terminated = s.outcome.terminated();
    *out.truncated = s.outcome == Outcome::TimeLimit;
    *out.outcome = s.outcome;
    *out.error_m = s.error_m as f32;
    *out.success = s.success;
    task.observe(shared, lane, ep, out.obs);
    if s.outcome != Outcome::Running {
        out.final_obs.copy_from_slice(out.obs);
        task.start(shared, lane, ep);
        task.observe(shared, lane, ep, out.obs);
    }
    *out.current_error_m = ep.last_distance as f32;
    Ok(())
}
