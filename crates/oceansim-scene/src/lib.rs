//! # oceansim-scene
//!
//! The scene: what the world's bodies move through and sensors see, with
//! no simulation runtime around it. A scenario file ([`scenario`]: the
//! shipped ones by name, or a file by path, read bounded) gives the map,
//! the seeded seabed ([`terrain`]) and the static obstacles
//! ([`obstacle`]); a [`Scene`] holds them with the current and the
//! navigation overlays that requests change; [`occupancy`] classes
//! horizontal slices of it for occupancy grids; [`raycast`] casts rays
//! against the seabed, the obstacles and other agents' solids
//! ([`body`]), with an angular broad phase when a sample has many
//! candidates.
//!
//! ## Conventions
//!
//! - Geometry is in the user frame: x east, y north, z up, metres. The
//!   seabed height `z` is negative below the surface; a depth is `-z`.
//! - Scenario files use OceanSim's Godot coordinates (Y up) for agents and
//!   obstacles; they are converted once, on load, with
//!   [`oceansim_vehicles::frames`].
//! - Everything seeded is a pure function of the seed: the same scenario
//!   and seed give the same terrain and procedural obstacles to the bit,
//!   on any machine.
//! - Errors are [`SceneError`], whose stable codes (`scenario_invalid`,
//!   `unknown_scenario`, `io`) are the simulator's.
//!
//! ## Example
//!
//! The default scenario's scene, and a ray cast straight down from 2 m
//! below the surface meets the seabed where the terrain says it is:
//!
//! ```
//! use oceansim_scene::raycast::{Hit, SceneView};
//! use oceansim_scene::{scenario, Scene};
//! use oceansim_vehicles::frames::User;
//! use nalgebra::Vector3;
//! use std::sync::Arc;
//!
//! let loaded = Arc::new(scenario::load(scenario::DEFAULT_SCENARIO)?);
//! let scene = Scene::new(loaded, 7, User([0.0, 0.0, -2.0]));
//! let view = SceneView { terrain: &scene.terrain, obstacles: &[], bodies: &[] };
//!
//! let origin = Vector3::new(10.0, -5.0, -2.0);
//! let (t, hit) = view.raycast(&origin, &-Vector3::z(), 500.0);
//! assert_eq!(hit, Hit::Terrain);
//! let floor_z = scene.terrain.height(10.0, -5.0);
//! assert!((origin.z - t - floor_z).abs() < 1e-6, "the ray stops on the seabed");
//!
//! // A scenario that is not valid says every problem, with a stable code.
//! let err = scenario::parse(r#"{"map_size_m": [-1, 100]}"#).unwrap_err();
//! assert_eq!(err.code(), "scenario_invalid");
//! # Ok::<(), oceansim_scene::SceneError>(())
//! ```

pub mod body;
mod error;
pub mod files;
pub mod obstacle;
pub mod occupancy;
mod ray_bins;
pub mod raycast;
pub mod scenario;
pub mod terrain;

pub use error::{Problem, Result, SceneError};

use obstacle::Obstacle;
use oceansim_protocol::payload::{ObstacleShape, PathPoint};
use oceansim_vehicles::frames::User;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use scenario::LoadedScenario;
use std::sync::Arc;
use terrain::{splitmix64, Terrain, TerrainSpec};

/// Most static obstacles.
pub const MAX_OBSTACLES: usize = 512;
/// Strongest ocean current accepted (m/s); stronger requests are scaled
/// down to it (the strongest tidal races run at about 5 m/s).
pub const MAX_CURRENT_M_S: f64 = 5.0;

/// Navigation overlays (Godot coordinates, as sent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlays {
    /// `set_nav_path`.
    pub nav_path: Vec<PathPoint>,
    /// `set_waypoint`: `[world_x, world_z, depth]`.
    pub waypoint: Option<[f64; 3]>,
    /// `set_pred_trajectory`.
    pub pred_trajectory: Vec<PathPoint>,
    /// `set_waypoints`.
    pub waypoints: Vec<PathPoint>,
}

/// The scene resource.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The scenario it was built from.
    pub scenario: Arc<LoadedScenario>,
    /// Seed of terrain, procedural obstacles, noise and drops.
    pub seed: u64,
    /// The seabed (shared: an occupancy grid classed on another thread
    /// holds it without copying the heights).
    pub terrain: Arc<Terrain>,
    /// Static obstacles, shared: a sensor render waiting on a worker holds
    /// them without a copy per sample (change them through
    /// [`Scene::push_obstacle`] and [`Scene::remove_obstacle`], which copy
    /// on write).
    pub obstacles: Arc<[Obstacle]>,
    /// Obstacles ever placed (names `obstacle_{n}`).
    pub obstacle_counter: u64,
    /// Uniform ocean current (m/s, user frame).
    pub current_user: [f64; 3],
    /// Navigation overlays.
    pub overlays: Overlays,
}

impl Scene {
    /// The scene of `scenario` with `seed`; procedural obstacles keep clear
    /// of `start` (user frame).
    pub fn new(scenario: Arc<LoadedScenario>, seed: u64, start: User) -> Self {
        let s = &scenario.scenario;
        let terrain = Terrain::generate(TerrainSpec {
            size_m: s.map_size_m,
            floor_depth_m: s.terrain.floor_depth_m,
            relief_m: s.terrain.relief_m,
            feature_scale_m: s.terrain.feature_scale_m,
            canyon_width_m: s.terrain.canyon_width_m,
            canyon_wall_height_m: s.terrain.canyon_wall_height_m.unwrap_or(0.0),
            seed: splitmix64(seed ^ 0x007E_44A1_u64),
        });
        let mut obstacles: Vec<Obstacle> = scenario
            .obstacles
            .iter()
            .map(|(id, o)| Obstacle::from_spawn(id.clone(), o))
            .collect();
        if let Some(po) = &s.procedural_obstacles {
            obstacles.extend(procedural_obstacles(&terrain, po, start.0, seed));
        }
        Scene {
            obstacle_counter: obstacles.len() as u64,
            scenario,
            seed,
            terrain: Arc::new(terrain),
            obstacles: obstacles.into(),
            current_user: [0.0; 3],
            overlays: Overlays::default(),
        }
    }

    /// Adds `ob` after the others (a new shared list: renders still
    /// holding the old one keep it).
    pub fn push_obstacle(&mut self, ob: Obstacle) {
        self.obstacles = self.obstacles.iter().cloned().chain([ob]).collect();
    }

    /// Removes the `i`-th obstacle, if there is one (a new shared list).
    pub fn remove_obstacle(&mut self, i: usize) {
        if i < self.obstacles.len() {
            self.obstacles = (self.obstacles.iter().enumerate())
                .filter(|&(k, _)| k != i)
                .map(|(_, o)| o.clone())
                .collect();
        }
    }

    /// Map bounds (min x, max x, min y, max y), m.
    pub fn bounds(&self) -> [f64; 4] {
        self.terrain.bounds()
    }

    /// Whether (x, y) lies on the map.
    pub fn on_map(&self, x: f64, y: f64) -> bool {
        let [x0, x1, y0, y1] = self.bounds();
        (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
    }
}

/// Seeded rocks and pillars resting on the seabed, clear of the start.
fn procedural_obstacles(
    terrain: &Terrain,
    po: &scenario::ProceduralObstacles,
    start: [f64; 3],
    seed: u64,
) -> Vec<Obstacle> {
    let mut rng = ChaCha8Rng::seed_from_u64(splitmix64(seed ^ 0x0B57_AC1E));
    let [x0, x1, y0, y1] = terrain.bounds();
    let mut out = Vec::new();
    for k in 0..po.count {
        for _attempt in 0..50 {
            let r = rng.gen_range(po.radius_range_m[0]..=po.radius_range_m[1]);
            let (x, y) = (rng.gen_range(x0 + r..x1 - r), rng.gen_range(y0 + r..y1 - r));
            if (x - start[0]).hypot(y - start[1]) < po.keep_clear_radius_m + r {
                continue;
            }
            let floor = terrain.height(x, y);
            let shape = if k % 3 == 2 {
                ObstacleShape::Cylinder
            } else {
                ObstacleShape::Sphere
            };
            let h = rng.gen_range(2.0..6.0);
            let (center, half) = match shape {
                ObstacleShape::Cylinder => ([x, y, floor + h / 2.0], [r, r, h / 2.0]),
                _ => ([x, y, floor + 0.6 * r], [r, r, r]),
            };
            out.push(Obstacle {
                id: format!("rock_{k:02}"),
                shape,
                center,
                half_extents: half,
                rotation: None,
                source: None,
            });
            break;
        }
    }
    out
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
