//! The tasks' names, defaults and configuration ([`TaskKind`],
//! [`EnvConfig`]) and how a step leaves an episode ([`Outcome`]); what
//! each task draws, observes and pays is in [`crate::task`] and
//! [`crate::sensed`].

use crate::sensed;
use crate::{GymError, Result};
use oceansim_agents::ControlScheme;
use oceansim_sim::batch::LaneSensorSpec;
use oceansim_sim::SensorFamily;
use std::str::FromStr;

/// The registered tasks.
///
/// Rewards are on one scale in both tasks, `T` being the episode length
/// (`max_steps`) and `e₀` the episode's start error:
///
/// ```text
/// r_t = (ē_{t−1} − ē_t) / e₀         progress, ē = min(e, 2 e₀): sums
///                                     to 1 − ē_end/e₀, within [−1, 1]
///     − 0.1 · effort_t / T            effort: mean squared action / bound
///     − 1 / T   while at the map's edge
///     + 1 / T   while within the tolerance          (DepthHold)
///     + 1       on arrival, terminating             (WaypointNav)
///     − 1       on touching the seabed or an obstacle, or diverging,
///               terminating
/// ```
///
/// so a perfect episode is worth about 2 in either task (1 of progress,
/// 1 of arrival or of holding), doing nothing about 0 or less (the
/// buoyant torpedo floats off its goal), and every return lies within
/// [−3.1, 2].
/// Observations are clipped to [`Task::observation_bounds`](crate::Task::observation_bounds).
///
/// **`WaypointNav`** (`OceanSim/WaypointNav-v0`): reach a goal 6–20 m away
/// at another depth. Observation (14): goal − vehicle in the body frame
/// (3, m), body velocity ν = [u, v, w, p, q, r] (6, m/s, rad/s), roll and
/// pitch (2, rad), depth (m), altitude above the seabed (m), distance to
/// the goal (m). Arrival: within [`ARRIVAL_RADIUS_M`](crate::ARRIVAL_RADIUS_M) (success; the
/// episode terminates). Error: distance to the goal (m).
/// Default control scheme `body_force_3d`, 600 steps (60 s).
///
/// **`DepthHold`** (`OceanSim/DepthHold-v0`): reach and hold a target
/// depth [`DEPTH_TOLERANCE_M`](crate::DEPTH_TOLERANCE_M) to [`DEPTH_STEP_M`](crate::DEPTH_STEP_M) above or below the
/// start. Observation (8): target − depth (m, positive = go deeper), heave
/// and surge velocity w, u (m/s), pitch and roll (rad), pitch and roll
/// rates q, p (rad/s), altitude (m). Error: |depth error| (m);
/// success while it is within [`DEPTH_TOLERANCE_M`](crate::DEPTH_TOLERANCE_M). Default control scheme
/// `force_3d`, 300 steps (30 s).
///
/// The three tasks below observe what the vehicle senses, through the
/// simulator's own sensor models carried by each lane (noise included,
/// each episode its own noise stream); their rewards have the same terms
/// (progress on the error, effort, edge, collision) and the same scale.
///
/// **`TerrainFollow`** (`OceanSim/TerrainFollow-v0`): hold a target
/// altitude of 2.5–5 m over the seabed while moving on, from the DVL and
/// the IMU only. Starts 0.5–1.5 m off the target altitude, at rest,
/// heading for the map's centre (±30°). Observation (18): target altitude
/// (m), target − DVL altitude (m, positive = go up; 0 without bottom
/// lock), bottom lock (0/1), DVL velocity over ground u, v, w (m/s, body;
/// 0 without lock), the four beams' slant ranges (m, 30 where a beam finds
/// nothing), IMU specific force (3, m/s², body FRD), IMU rates (3, rad/s),
/// roll and pitch from the IMU's attitude (rad). Error: |true altitude −
/// target| (m); success while within [`sensed::ALTITUDE_TOLERANCE_M`]
/// and moving at [`sensed::MIN_SURGE_M_S`] or more, which also earns the
/// holding term. Default `body_force_3d`, 300 steps (30 s).
///
/// **`SonarAvoid`** (`OceanSim/SonarAvoid-v0`): reach a goal 12–24 m
/// away at the start's depth, an obstacle standing in the straight way
/// (within [`sensed::OBSTACLE_IN_WAY_M`] of it), with the forward-looking
/// imaging sonar (level, 130° × 20°; `B` beams × `N` bins over `R` m,
/// default 64 × 32 over 15 m, 5 Hz) as the only sense of the obstacles.
/// Observation (`13 + B + B·N`): goal − vehicle in the body frame (3, m),
/// ν (6), roll, pitch (rad), depth (m), distance to the goal (m) — the
/// vehicle's navigation —, then per beam the range of its first echo of
/// intensity ≥ [`sensed::ECHO_THRESHOLD`]/255 (m, `R` where none, port to
/// starboard), then the latest sonar image, intensities in [0, 1], beam
/// by beam, nearest bin first. Arrival within [`ARRIVAL_RADIUS_M`](crate::ARRIVAL_RADIUS_M)
/// (terminates, +1). Default `body_velocity_6dof`, 400 steps (40 s).
///
/// **`Remus100Heading`** (`OceanSim/Remus100Heading-v0`): Fossen's REMUS
/// 100 under way (1.5 m/s at the start) turns 20–90° to a target heading
/// and changes depth by 2–8 m, on its rudder, stern plane and propeller,
/// in open water (the `OpenWater` scenario: 240 m square, 60 m deep).
/// Observation (12): target − depth (m), sin and cos of target − heading,
/// ν = [u, v, w, p, q, r], roll, pitch (rad), altitude (m). Error:
/// |depth error| + 5 m/rad × |heading error| (m); success while within
/// 0.5 m and 5°, which earns the holding term. Default `fins` ([rudder,
/// stern plane (rad), propeller (rpm)]), profile `remus100`, 400 steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    /// Go to a 3-D goal.
    WaypointNav,
    /// Hold a depth.
    DepthHold,
    /// Hold an altitude over the seabed from the DVL and the IMU.
    TerrainFollow,
    /// Reach a goal past an obstacle seen by the imaging sonar.
    SonarAvoid,
    /// Heading and depth changes on the REMUS 100's fins.
    Remus100Heading,
}

impl TaskKind {
    /// Every task, in registration order.
    pub const ALL: [TaskKind; 5] = [
        TaskKind::WaypointNav,
        TaskKind::DepthHold,
        TaskKind::TerrainFollow,
        TaskKind::SonarAvoid,
        TaskKind::Remus100Heading,
    ];
    /// Observation length under the default sonar (see
    /// [`Task::observation_len`](crate::Task::observation_len) for another).
    pub fn observation_len(self) -> usize {
        let (b, n, _) = sensed::SONAR_DEFAULT;
        self.observation_len_with(b as usize, n as usize)
    }
    pub(crate) fn observation_len_with(self, beams: usize, bins: usize) -> usize {
        match self {
            TaskKind::WaypointNav => 14,
            TaskKind::DepthHold => 8,
            TaskKind::TerrainFollow => 18,
            TaskKind::SonarAvoid => 13 + beams + beams * bins,
            TaskKind::Remus100Heading => 12,
        }
    }
    /// Default control scheme.
    pub fn default_scheme(self) -> ControlScheme {
        match self {
            TaskKind::WaypointNav | TaskKind::TerrainFollow => ControlScheme::BodyForce3d,
            TaskKind::DepthHold => ControlScheme::Force3d,
            TaskKind::SonarAvoid => ControlScheme::BodyVelocity6dof,
            TaskKind::Remus100Heading => ControlScheme::Fins,
        }
    }
    /// Default episode length (steps).
    pub fn default_max_steps(self) -> u32 {
        match self {
            TaskKind::WaypointNav => 600,
            TaskKind::DepthHold | TaskKind::TerrainFollow => 300,
            TaskKind::SonarAvoid | TaskKind::Remus100Heading => 400,
        }
    }
    /// The name `FromStr` takes (`waypoint_nav`, …).
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::WaypointNav => "waypoint_nav",
            TaskKind::DepthHold => "depth_hold",
            TaskKind::TerrainFollow => "terrain_follow",
            TaskKind::SonarAvoid => "sonar_avoid",
            TaskKind::Remus100Heading => "remus100_heading",
        }
    }
    /// The sensors each lane carries for this task.
    pub(crate) fn sensors(self, cfg: &EnvConfig) -> Vec<LaneSensorSpec> {
        let mut own = self.own_sensors(cfg);
        own.extend(cfg.extra_sensors.iter().cloned());
        own
    }
    fn own_sensors(self, cfg: &EnvConfig) -> Vec<LaneSensorSpec> {
        match self {
            TaskKind::WaypointNav | TaskKind::DepthHold | TaskKind::Remus100Heading => Vec::new(),
            TaskKind::TerrainFollow => vec![
                LaneSensorSpec::new(SensorFamily::Dvl),
                LaneSensorSpec::new(SensorFamily::Imu),
            ],
            TaskKind::SonarAvoid => vec![LaneSensorSpec::sonar(
                SensorFamily::ImagingSonar,
                Some(cfg.sonar_beams),
                Some(cfg.sonar_bins),
                Some(cfg.sonar_range_m),
            )
            // Level: the fan's lowest rays (10° down) meet the seabed
            // beyond the range from 3 m of altitude up.
            .rotated([0.0; 3])],
        }
    }
}

impl FromStr for TaskKind {
    type Err = GymError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "waypoint_nav" | "WaypointNav" => Ok(TaskKind::WaypointNav),
            "depth_hold" | "DepthHold" => Ok(TaskKind::DepthHold),
            "terrain_follow" | "TerrainFollow" => Ok(TaskKind::TerrainFollow),
            "sonar_avoid" | "SonarAvoid" => Ok(TaskKind::SonarAvoid),
            "remus100_heading" | "Remus100Heading" => Ok(TaskKind::Remus100Heading),
            _ => Err(GymError::Config(format!(
                "unknown task `{s}`; tasks: {}",
                TaskKind::ALL.map(|t| t.name()).join(", ")
            ))),
        }
    }
}

/// How a step left its episode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Outcome {
    /// The episode goes on.
    #[default]
    Running = 0,
    /// Reached the goal (WaypointNav; terminated).
    Arrived = 1,
    /// Touched the seabed (terminated).
    Seabed = 2,
    /// Touched an obstacle (terminated).
    Obstacle = 3,
    /// A tick's dynamics were not plausible (terminated).
    Diverged = 4,
    /// Ran out of steps (truncated).
    TimeLimit = 5,
}

impl Outcome {
    /// Every outcome, in code order.
    pub const ALL: [Outcome; 6] = [
        Outcome::Running,
        Outcome::Arrived,
        Outcome::Seabed,
        Outcome::Obstacle,
        Outcome::Diverged,
        Outcome::TimeLimit,
    ];
    /// The name the Python `info["outcome"]` carries.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Running => "running",
            Outcome::Arrived => "arrived",
            Outcome::Seabed => "seabed",
            Outcome::Obstacle => "obstacle",
            Outcome::Diverged => "diverged",
            Outcome::TimeLimit => "time_limit",
        }
    }
    /// Whether the episode reached a terminal state.
    pub fn terminated(self) -> bool {
        !matches!(self, Outcome::Running | Outcome::TimeLimit)
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
    /// SonarAvoid's sonar: beams (2–1024), bins (4–4096), at most
    /// [`crate::MAX_SONAR_IMAGE`] values in all, and range (1–500 m).
    pub sonar_beams: u32,
    /// See [`EnvConfig::sonar_beams`].
    pub sonar_bins: u32,
    /// See [`EnvConfig::sonar_beams`].
    pub sonar_range_m: f64,
    /// Sensors every lane carries besides the task's own: sampled at their
    /// rates, not in the observation, read from each lane
    /// ([`oceansim_sim::batch::Lane::sensors`]) by a wrapper's own
    /// observation or a logger.
    pub extra_sensors: Vec<LaneSensorSpec>,
}

impl EnvConfig {
    /// The defaults of `task`: its scenario (Static_Map; PaleMap for
    /// TerrainFollow, `OpenWater` for Remus100Heading), profile (the
    /// scenario's; `remus100` for Remus100Heading), scheme and length.
    pub fn new(task: TaskKind) -> Self {
        let d = oceansim_sim::batch::BatchSpec::default();
        let (beams, bins, range) = sensed::SONAR_DEFAULT;
        let profile = match task {
            TaskKind::Remus100Heading => Some("remus100".into()),
            _ => None,
        };
        EnvConfig {
            task,
            scenario: match task {
                TaskKind::Remus100Heading => "OpenWater".into(),
                // A plain whose slopes (relief 1 m over 20 m) the torpedo
                // can follow: its vertical thrusters net ~3 N down against
                // its buoyancy, ~0.075 m/s of descent.
                TaskKind::TerrainFollow => "PaleMap".into(),
                _ => d.scenario,
            },
            map_seed: d.seed,
            profile,
            scheme: task.default_scheme(),
            tick_s: d.tick_s,
            dt_s: d.step_period_s,
            max_steps: task.default_max_steps(),
            sonar_beams: beams,
            sonar_bins: bins,
            sonar_range_m: range,
            extra_sensors: Vec::new(),
        }
    }
}
