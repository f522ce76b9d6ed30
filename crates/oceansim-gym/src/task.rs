//! The tasks: start and goal distributions, observations, rewards and
//! terminations.

use crate::{GymError, Result};
use nalgebra::{Vector3, Vector6};
use oceansim_agents::ControlScheme;
use oceansim_sim::batch::{Lane, Shared, Touches};
use oceansim_sim::frames::{Ned, User};
use oceansim_vehicles::VehicleState;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::str::FromStr;

/// Horizontal and vertical distance to the goal that counts as arrived (m).
pub const ARRIVAL_RADIUS_M: f64 = 1.5;
/// Reward for arriving (WaypointNav).
const ARRIVAL_BONUS: f64 = 10.0;
/// Reward for hitting the seabed or an obstacle (episode ends).
const COLLISION_PENALTY: f64 = -10.0;
/// Reward per step held at the map's edge.
const EDGE_PENALTY: f64 = -0.1;
/// Weight of the mean squared normalised action.
const EFFORT_WEIGHT: f64 = 0.01;
/// Least clearance of a start or goal above the seabed, and below the
/// surface (m).
const CLEARANCE_M: f64 = 3.0;

/// The registered tasks.
///
/// **`WaypointNav`** (`OceanSim/WaypointNav-v0`): reach a goal 6–20 m away
/// at another depth. Observation (14): goal − vehicle in the body frame
/// (3, m), body velocity ν = [u, v, w, p, q, r] (6, m/s, rad/s), roll and
/// pitch (2, rad), depth (m), altitude above the seabed (m), distance to
/// the goal (m). Reward: metres of progress toward the goal, minus
/// 0.01 × the mean squared action (normalised by its bound), −0.1 per step
/// held at the map's edge, +10 on arrival (within 1.5 m; the episode
/// terminates), −10 on touching the seabed or an obstacle (terminates).
/// Default control scheme `body_force_3d`, 600 steps (60 s).
///
/// **`DepthHold`** (`OceanSim/DepthHold-v0`): reach and hold a target
/// depth. Observation (8): target − depth (m, positive = go deeper), heave
/// and surge velocity w, u (m/s), pitch and roll (rad), pitch and roll rates
/// q, p (rad/s), altitude (m). Reward: −|depth error| / 10 minus the effort
/// term; −10 on touching the seabed or an obstacle (terminates). Default
/// control scheme `force_3d`, 300 steps (30 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    /// Go to a 3-D goal.
    WaypointNav,
    /// Hold a depth.
    DepthHold,
}

impl TaskKind {
    /// Observation length.
    pub fn observation_len(self) -> usize {
        match self {
            TaskKind::WaypointNav => 14,
            TaskKind::DepthHold => 8,
        }
    }
    /// Default control scheme.
    pub fn default_scheme(self) -> ControlScheme {
        match self {
            TaskKind::WaypointNav => ControlScheme::BodyForce3d,
            TaskKind::DepthHold => ControlScheme::Force3d,
        }
    }
    /// Default episode length (steps).
    pub fn default_max_steps(self) -> u32 {
        match self {
            TaskKind::WaypointNav => 600,
            TaskKind::DepthHold => 300,
        }
    }
}

impl FromStr for TaskKind {
    type Err = GymError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "waypoint_nav" | "WaypointNav" => Ok(TaskKind::WaypointNav),
            "depth_hold" | "DepthHold" => Ok(TaskKind::DepthHold),
            _ => Err(GymError::Config(format!(
                "unknown task `{s}`; tasks: waypoint_nav, depth_hold"
            ))),
        }
    }
}

/// How an environment is built.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvConfig {
    /// The task.
    pub task: TaskKind,
    /// Scenario name or `*.json` path.
    pub scenario: String,
    /// Seed of the scene (terrain, procedural obstacles).
    pub map_seed: u64,
    /// Vehicle profile (`None`: the scenario's).
    pub profile: Option<String>,
    /// Control scheme of the action vector.
    pub scheme: ControlScheme,
    /// Physics tick (s).
    pub tick_s: f64,
    /// Control period = one environment step (s).
    pub dt_s: f64,
    /// Steps before an episode is truncated.
    pub max_steps: u32,
}

impl EnvConfig {
    /// The defaults of `task` on the default scenario.
    pub fn new(task: TaskKind) -> Self {
        let d = oceansim_sim::batch::BatchSpec::default();
        EnvConfig {
            task,
            scenario: d.scenario,
            map_seed: d.seed,
            profile: None,
            scheme: task.default_scheme(),
            tick_s: d.tick_s,
            dt_s: d.step_period_s,
            max_steps: task.default_max_steps(),
        }
    }
}

/// One lane's episode: its random stream, goal and progress.
#[derive(Debug, Clone)]
pub(crate) struct Episode {
    pub rng: ChaCha8Rng,
    /// Goal in NED (WaypointNav) or target depth in `goal_ned.z` (DepthHold).
    pub goal_ned: Vector3<f64>,
    pub steps: u32,
    pub last_distance: f64,
}

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
    max_steps: u32,
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
                -scene.terrain.height(x, y) > 2.0 * CLEARANCE_M + 0.5
            })
        });
        if !deep {
            return Err(GymError::Config(format!(
                "scenario `{}` has no water deeper than {} m inside its map; \
                 the tasks keep {CLEARANCE_M} m from the seabed and the surface",
                cfg.scenario,
                2.0 * CLEARANCE_M + 0.5
            )));
        }
        let scale = low
            .iter()
            .zip(&high)
            .map(|(lo, hi): (&f64, &f64)| lo.abs().max(hi.abs()).max(1e-9))
            .collect();
        Ok(Task {
            kind: cfg.task,
            scheme: cfg.scheme,
            low,
            high,
            scale,
            max_steps: cfg.max_steps,
        })
    }

    /// The task.
    pub fn kind(&self) -> TaskKind {
        self.kind
    }
    /// The control scheme of the action.
    pub fn scheme(&self) -> ControlScheme {
        self.scheme
    }
    /// Lower and upper bound of each action value.
    pub fn action_bounds(&self) -> (&[f64], &[f64]) {
        (&self.low, &self.high)
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

    /// Starts a new episode on `lane`.
    pub(crate) fn start(&self, shared: &Shared, lane: &mut Lane, ep: &mut Episode) {
        let scene = shared.scene();
        let [x0, x1, y0, y1] = scene.bounds();
        // Inner 70 % of the map, away from the edge.
        let (mx, my) = ((x1 - x0) * 0.15, (y1 - y0) * 0.15);
        let terrain = &scene.terrain;
        let pick_point = |rng: &mut ChaCha8Rng, near: Option<(f64, f64)>| {
            for _ in 0..64 {
                let (x, y) = match near {
                    None => (
                        rng.gen_range(x0 + mx..x1 - mx),
                        rng.gen_range(y0 + my..y1 - my),
                    ),
                    Some((cx, cy)) => {
                        let r = rng.gen_range(6.0..20.0);
                        let b: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
                        (cx + r * b.cos(), cy + r * b.sin())
                    }
                };
                if !(x0 + mx..x1 - mx).contains(&x) || !(y0 + my..y1 - my).contains(&y) {
                    continue;
                }
                let floor = -terrain.height(x, y);
                // Room for a depth strictly between the two clearances
                // (and false for a NaN height).
                if floor.is_nan() || floor <= 2.0 * CLEARANCE_M + 0.1 {
                    continue;
                }
                let depth = rng.gen_range(CLEARANCE_M..floor - CLEARANCE_M);
                return Some(User([x, y, -depth]));
            }
            None
        };
        let start = pick_point(&mut ep.rng, None);
        let state = match start {
            Some(p) => {
                let yaw: f64 = ep
                    .rng
                    .gen_range(-std::f64::consts::PI..std::f64::consts::PI);
                VehicleState::at_rest(Ned::from(p).0, 0.0, 0.0, yaw)
            }
            // A map with no water deep enough: the scenario's start.
            None => shared.start(),
        };
        let here = User::from(Ned(state.position_ned)).0;
        let goal = match self.kind {
            // 6–20 m away where the water allows; anywhere deep enough on
            // the map otherwise; never the start itself (`Task::new`
            // checked the map has deep enough water).
            TaskKind::WaypointNav => pick_point(&mut ep.rng, Some((here[0], here[1])))
                .or_else(|| pick_point(&mut ep.rng, None))
                .map(|p| Ned::from(p).0)
                .unwrap_or(state.position_ned + Vector3::new(6.0, 0.0, 0.0)),
            TaskKind::DepthHold => {
                let floor = -terrain.height(here[0], here[1]);
                let hi = (floor - CLEARANCE_M).max(CLEARANCE_M + 0.1);
                let depth = ep.rng.gen_range(CLEARANCE_M..hi);
                Vector3::new(state.position_ned.x, state.position_ned.y, depth)
            }
        };
        lane.reset(shared, state);
        ep.goal_ned = goal;
        ep.steps = 0;
        ep.last_distance = self.distance(lane.state(), ep);
    }

    fn distance(&self, s: &VehicleState, ep: &Episode) -> f64 {
        match self.kind {
            TaskKind::WaypointNav => (ep.goal_ned - s.position_ned).norm(),
            TaskKind::DepthHold => (ep.goal_ned.z - s.position_ned.z).abs(),
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
        let mut put = |values: &[f64]| {
            for (o, x) in out.iter_mut().zip(values) {
                *o = *x as f32;
            }
        };
        match self.kind {
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

    /// The reward of the step just taken with (clipped) action `a`, and
    /// whether the episode terminated.
    pub(crate) fn reward(&self, lane: &Lane, ep: &mut Episode, a: &[f64]) -> (f64, bool) {
        let effort = a
            .iter()
            .zip(&self.scale)
            .map(|(x, scale)| (x / scale).powi(2))
            .sum::<f64>()
            / a.len().max(1) as f64;
        let touches: Touches = lane.touches();
        let d = self.distance(lane.state(), ep);
        let mut r = -EFFORT_WEIGHT * effort;
        let mut done = false;
        match self.kind {
            TaskKind::WaypointNav => {
                r += ep.last_distance - d;
                if d <= ARRIVAL_RADIUS_M {
                    r += ARRIVAL_BONUS;
                    done = true;
                }
            }
            TaskKind::DepthHold => r -= d / 10.0,
        }
        if touches.map_edge {
            r += EDGE_PENALTY;
        }
        if touches.collided() || touches.diverged {
            r += COLLISION_PENALTY;
            done = true;
        }
        ep.last_distance = d;
        (r, done)
    }
}

/// Action bounds of `scheme` for the batch's vehicle.
fn bounds(scheme: ControlScheme, shared: &Shared) -> Result<(Vec<f64>, Vec<f64>)> {
    let l = shared.limits();
    let v = shared.vehicle();
    if v.thruster_count() == 0 && scheme != ControlScheme::Fins {
        return Err(GymError::Config(format!(
            "profile `{}` has no thrusters for {}; use the fins control scheme",
            shared.profile().name,
            scheme.as_str()
        )));
    }
    // What the vehicle's thrusters (or limits) give along each body axis.
    let cap = shared.vehicle().axis_capacity();
    let sym = |v: Vec<f64>| (v.iter().map(|x| -x).collect(), v);
    Ok(match scheme {
        ControlScheme::Force3d | ControlScheme::BodyForce3d => {
            // A 3-D force points anywhere in the body: the weakest axis it
            // can push along at all.
            let f = cap[..3]
                .iter()
                .copied()
                .filter(|c| *c > 0.0)
                .fold(f64::INFINITY, f64::min);
            let f = if f.is_finite() { f } else { l.max_force_n[0] };
            sym(vec![f; 3])
        }
        ControlScheme::BodyWrench6dof => {
            // An axis the thrusters cannot drive at all (the torpedo's roll)
            // keeps the limit: whatever is asked there is dropped.
            let limit = l.max_force_n.iter().chain(&l.max_torque_n_m);
            sym(cap
                .iter()
                .zip(limit)
                .map(|(c, m)| if *c > 0.0 { *c } else { *m })
                .collect())
        }
        ControlScheme::Fins => {
            let b = shared.vehicle().fin_bounds();
            (
                b.iter().map(|x| x[0]).collect(),
                b.iter().map(|x| x[1]).collect(),
            )
        }
        ControlScheme::BodyVelocity6dof => {
            let mut v = vec![l.max_speed_m_s; 3];
            v.extend([l.max_rate_rad_s; 3]);
            sym(v)
        }
        ControlScheme::Thrusters => {
            let t = &shared.profile().thrusters;
            (
                t.iter().map(|t| t.command_bounds[0]).collect(),
                t.iter().map(|t| t.command_bounds[1]).collect(),
            )
        }
        ControlScheme::WaypointPid => {
            // [world_x, world_z, depth]: Godot X = user x, Godot Z = −user y.
            let [x0, x1, y0, y1] = shared.scene().bounds();
            let floor = -shared.scene().terrain.min_height();
            (vec![x0, -y1, 0.0], vec![x1, -y0, floor.max(1.0)])
        }
        other => {
            return Err(GymError::Config(format!(
                "control scheme {} does not drive the vehicle; use force_3d, \
                 body_force_3d, thrusters, waypoint_pid, body_wrench_6dof or body_velocity_6dof",
                other.as_str()
            )))
        }
    })
}
