//! Where episodes start and aim: open water, clear of the seabed, the
//! obstacles and the surface by a margin around the hull, so that no
//! episode begins in contact or ends at its first step.

use nalgebra::Vector3;
use oceansim_sim::batch::{Shared, Touches};
use oceansim_sim::frames::{Ned, User};
use oceansim_vehicles::VehicleState;

/// Least clearance of a start or goal above the seabed, and below the
/// surface (m).
pub const CLEARANCE_M: f64 = 3.0;

/// Least gap between the hull's contact capsule and the seabed, an
/// obstacle or the surface at a start, a goal or along a DepthHold descent
/// (m): a full-force first step at the torpedo's speeds covers ~0.1 m.
pub(crate) const HULL_MARGIN_M: f64 = 1.0;
/// Starts (each with its goal) a lane draws from its own stream before it
/// falls back on one of the starts verified at construction.
pub(crate) const MAX_ATTEMPTS: usize = 512;
/// Verified starts kept at construction for lanes whose draws all miss.
pub(crate) const POOL_SIZE: usize = 16;
/// Draws tried at construction to fill that pool; none clear fails the
/// construction ([`crate::GymError::Reset`]).
pub(crate) const POOL_DRAWS: usize = 16 * MAX_ATTEMPTS;

/// Whether spheres of radius `r` (m) at the user-frame points `pts` are
/// clear of the seabed, every obstacle and the surface.
fn spheres_clear(shared: &Shared, pts: impl IntoIterator<Item = Vector3<f64>>, r: f64) -> bool {
    let scene = shared.scene();
    pts.into_iter().all(|p| {
        let floor = scene.terrain.height(p.x, p.y);
        p.z + r < 0.0
            && p.z - r > floor
            && scene.terrain.sphere_contact(&p, r).is_none()
            && scene
                .obstacles
                .iter()
                .all(|o| o.sphere_contact(&p, r).is_none())
    })
}

/// Whether the hull capsule of `state`, grown by [`HULL_MARGIN_M`], is
/// clear: checked as spheres along its axis, spaced well under their radius.
pub(crate) fn hull_clear(shared: &Shared, state: &VehicleState) -> bool {
    let (radius, half) = shared.hull();
    let r = radius + HULL_MARGIN_M;
    let centre = Vector3::from(User::from(Ned(state.position_ned)).0);
    let axis = Vector3::from(User::from(Ned(state.attitude * Vector3::x())).0);
    let n = (4.0 * half / r).ceil().max(1.0) as usize;
    let pts = (0..=n).map(|k| centre + axis * (half * (2.0 * k as f64 / n as f64 - 1.0)));
    spheres_clear(shared, pts, r)
}

/// Whether the hull fits at `goal_ned` whatever its heading (a sphere over
/// the whole capsule, grown by the margin).
pub(crate) fn goal_clear(shared: &Shared, goal_ned: &Vector3<f64>) -> bool {
    let (radius, half) = shared.hull();
    let p = Vector3::from(User::from(Ned(*goal_ned)).0);
    spheres_clear(shared, [p], radius + half + HULL_MARGIN_M)
}

/// Whether the hull of `start` stays clear while it moves straight up or
/// down to `depth_m` (DepthHold): checked every 0.5 m of the way.
pub(crate) fn descent_clear(shared: &Shared, start: &VehicleState, depth_m: f64) -> bool {
    let z0 = start.position_ned.z;
    let n = ((depth_m - z0).abs() / 0.5).ceil() as usize;
    (0..=n).all(|k| {
        let mut s = *start;
        s.position_ned.z = z0 + (depth_m - z0) * k as f64 / n.max(1) as f64;
        hull_clear(shared, &s)
    })
}

/// The physics' own word: one idle control period from `state` touches
/// nothing (what the geometric checks approximate).
pub(crate) fn idle_step_touches_nothing(shared: &Shared, state: VehicleState) -> bool {
    let mut probe = shared.lane_without_sensors(state);
    shared.step(&mut probe);
    probe.touches() == Touches::default()
}
