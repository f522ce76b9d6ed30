//! A lane's episode: its random stream, goal and progress (what the task
//! and the sensed observations read of it).

use nalgebra::Vector3;
use rand_chacha::ChaCha8Rng;

/// One lane's episode: its random stream, goal and progress.
#[derive(Debug, Clone)]
pub(crate) struct Episode {
    pub rng: ChaCha8Rng,
    /// Goal in NED (WaypointNav) or target depth in `goal_ned.z` (DepthHold).
    pub goal_ned: Vector3<f64>,
    pub steps: u32,
    pub last_distance: f64,
    /// The error at the start (m; ≥ 0.5 by construction): progress is paid
    /// as a share of it.
    pub start_distance: f64,
    /// TerrainFollow's target altitude (m).
    pub target_altitude: f64,
    /// Remus100Heading's target heading (rad from north towards east).
    pub target_heading: f64,
}

impl Episode {
    /// A lane's episode before its first start.
    pub(crate) fn new(rng: ChaCha8Rng) -> Self {
        Episode {
            rng,
            goal_ned: Vector3::zeros(),
            steps: 0,
            last_distance: 0.0,
            start_distance: 0.0,
            target_altitude: 0.0,
            target_heading: 0.0,
        }
    }
}
