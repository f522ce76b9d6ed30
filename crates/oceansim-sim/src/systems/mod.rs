//! Everything that happens in a tick, as systems of one schedule. Each
//! declares what it reads and writes; the ECS scheduler orders them from
//! that dataflow (plus explicit `after` hints where two systems write the
//! same state), and [`register`] adds them in the order they are meant to
//! run, which the schedule test pins:
//!
//! 1. `apply_commands`: commands written by requests become active;
//! 2. `ocean_current`: the current at each vehicle;
//! 3. `vehicle_control`: command → body wrench (waypoint PID included);
//! 4. `fossen_dynamics`: every vehicle's [`Vehicle::step`]: thrusters,
//!    fins and propellers, the dynamics integrated with the forces at every
//!    stage, the guard;
//! 5. `proxy_motion`: kinematic proxies move;
//! 6. `contacts`: nothing passes through terrain, obstacles, agents, the
//!    map edge or the surface;
//! 7. `acoustic_delivery`: messages that arrived reach their inboxes;
//! 8. `sensing`: every sensor whose rate is due samples;
//! 9. `recorder`: one sample per control period for export.
//!
//! [`Vehicle::step`]: oceansim_vehicles::Vehicle::step

mod acoustic;
mod commands;
mod contacts;
mod control;
mod dynamics;
mod proxies;
mod recorder;
mod sensing;
mod sweep;

pub(crate) use contacts::vehicle_scene_contacts;
pub(crate) use recorder::record;
pub(crate) use sensing::{sample_all, sample_on_request};

use crate::components::Handles;
use nalgebra::{Quaternion, UnitQuaternion, Vector3, Vector6};
use oceansim_ecs::World;
use oceansim_vehicles::VehicleState;

/// Names of the systems, in the order they run.
pub const SCHEDULE: [&str; 9] = [
    "apply_commands",
    "ocean_current",
    "vehicle_control",
    "fossen_dynamics",
    "proxy_motion",
    "contacts",
    "acoustic_delivery",
    "sensing",
    "recorder",
];

/// Adds every system to `world`.
pub fn register(world: &mut World, h: &Handles) -> oceansim_ecs::Result<()> {
    world.add_system(commands::ApplyCommands(*h))?;
    world.add_system(control::OceanCurrent(*h))?;
    world.add_system(control::VehicleControl(*h))?;
    world.add_system(dynamics::FossenDynamics(*h))?;
    world.add_system(proxies::ProxyMotionSystem(*h))?;
    world.add_system(contacts::Contacts::new(*h))?;
    world.add_system(acoustic::AcousticDelivery(*h))?;
    let render_unasked = sensing::render_unasked(world, h);
    world.add_system(sensing::Sensing::new(*h, render_unasked))?;
    world.add_system(recorder::RecorderSystem(*h))?;
    Ok(())
}

/// Row `row` of a 3-vector component.
pub(crate) fn vec3_at(a: &[f64], row: usize) -> Vector3<f64> {
    Vector3::new(a[3 * row], a[3 * row + 1], a[3 * row + 2])
}

/// Row `row` of the `[w, x, y, z]` attitude component.
pub(crate) fn quat_at(q: &[f64], row: usize) -> UnitQuaternion<f64> {
    UnitQuaternion::new_normalize(Quaternion::new(
        q[4 * row],
        q[4 * row + 1],
        q[4 * row + 2],
        q[4 * row + 3],
    ))
}

/// The vehicle state of row `row` from the pose and velocity arrays.
pub(crate) fn state_at(p: &[f64], q: &[f64], nu: &[f64], row: usize) -> VehicleState {
    VehicleState {
        position_ned: vec3_at(p, row),
        attitude: quat_at(q, row),
        nu: Vector6::from_column_slice(&nu[6 * row..6 * row + 6]),
    }
}

/// The user-frame velocity (m/s; x east, y north, z up) of the agent in
/// row `row`: a vehicle's R(q)·ν from its pose and body velocity, any
/// other agent's velocity column. Replies (`get_state`, `get_agents`) and
/// the recorder take it from here alone, so an export holds, to the bit,
/// the velocities clients were told (the velocity column of a vehicle,
/// set by the integrator before its attitude was stored, can differ from
/// R(q)·ν by an ulp).
pub(crate) fn user_velocity(world: &World, h: &Handles, row: usize) -> [f64; 3] {
    let cols = VelocityColumns {
        kind: &world.read(h.kind),
        position: &world.read(h.position),
        attitude: &world.read(h.attitude),
        nu: &world.read(h.nu),
        velocity: &world.read(h.velocity),
    };
    cols.user_velocity(row)
}

/// The columns [`user_velocity`] reads, borrowed once by a caller that
/// visits many rows (the recorder, every frame).
pub(crate) struct VelocityColumns<'a> {
    pub kind: &'a [i64],
    pub position: &'a [f64],
    pub attitude: &'a [f64],
    pub nu: &'a [f64],
    pub velocity: &'a [f64],
}

impl VelocityColumns<'_> {
    /// [`user_velocity`] of row `row`.
    pub(crate) fn user_velocity(&self, row: usize) -> [f64; 3] {
        let ned = if self.kind[row] == crate::components::Kind::Vehicle.code() {
            state_at(self.position, self.attitude, self.nu, row).velocity_ned()
        } else {
            vec3_at(self.velocity, row)
        };
        crate::frames::User::from(crate::frames::Ned(ned)).0
    }
}

/// The state of row `row` of `world`.
pub(crate) fn vehicle_state(world: &World, h: &Handles, row: usize) -> VehicleState {
    state_at(
        &world.read(h.position),
        &world.read(h.attitude),
        &world.read(h.nu),
        row,
    )
}
