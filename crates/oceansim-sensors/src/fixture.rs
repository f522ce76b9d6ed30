//! A fixed scene for the families' unit tests: a flat seabed 20 m deep,
//! one box wall, and the vehicle 6 m deep facing north.

use super::*;
use nalgebra::Vector6;
use oceansim_protocol::payload::{ObstacleShape, SpawnObstacle, Vector};
use oceansim_scene::obstacle::Obstacle;
use oceansim_scene::terrain::{Terrain, TerrainSpec};
use oceansim_vehicles::VehicleState;

/// The seabed and a 2 m thick wall whose near face is 10 m north of the
/// vehicle (user y = 10).
pub fn scene() -> (Terrain, Vec<Obstacle>) {
    let terrain = Terrain::generate(TerrainSpec::flat([60.0, 60.0], 20.0));
    let wall = Obstacle::from_spawn(
        "wall".into(),
        &SpawnObstacle {
            id: None,
            shape: ObstacleShape::Box,
            position: Vector([0.0, -6.0, -11.0]),
            size: Some(Vector([20.0, 10.0, 2.0])),
            radius: None,
            height: None,
            rotation: None,
        },
    );
    (terrain, vec![wall])
}

/// The vehicle 6 m deep at the origin, facing north, at rest.
pub fn state() -> VehicleState {
    VehicleState::at_rest(Vector3::new(0.0, 0.0, 6.0), 0.0, 0.0, 0.0)
}

/// A sampling context in `terrain` and `obstacles` for `state` (sensor at
/// the body origin, t = 0.5 s), handed to `f`.
pub fn with_ctx<T>(
    terrain: &Terrain,
    obstacles: &[Obstacle],
    state: &VehicleState,
    f: impl FnOnce(&SampleCtx<'_>) -> T,
) -> T {
    f(&SampleCtx {
        time: 0.5,
        wall_time: 1.8e9,
        state,
        nu_dot: Vector6::zeros(),
        water_density: 1025.0,
        scene: SceneView {
            terrain,
            obstacles,
            bodies: &[],
        },
        mount: (&Vector3::zeros(), &Rotation3::identity()),
    })
}

/// Samples one sensor of `family` (mounted per `mount`) in the scene.
pub fn sample(
    family: Family,
    mount: Option<&SensorMount>,
    state: &VehicleState,
) -> (SensorSample, String) {
    let (terrain, obstacles) = scene();
    let mut s = Sensor::new("auv/main", family.name(), family, mount, 7);
    // Asked for, so an on-demand sensor's payload is its sample.
    s.demand(0.5);
    with_ctx(&terrain, &obstacles, state, |ctx| s.sample(ctx));
    let text = s.payload().map(|r| r.to_string()).unwrap_or_default();
    (s.latest().cloned().expect("sampled"), text)
}
