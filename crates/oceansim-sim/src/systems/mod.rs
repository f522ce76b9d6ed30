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
use oceansim_ecs::World;

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
