//! Navigation overlays and the waypoint PID: `set_nav_path`,
//! `set_waypoint`, `set_pred_trajectory`, `set_waypoints`, `clear_nav`.
//! Overlays are kept as sent (Godot coordinates).

use super::{Outcome, Reply};
use crate::components::Kind;
use crate::control::{Command, WaypointTarget};
use crate::simulation::Simulation;
use oceansim_agents::{normalize_control_scheme, CommandRecord, ControlScheme};
use oceansim_protocol::payload::{NavPath, PredTrajectory, SetWaypoint, Waypoints};
use oceansim_protocol::reply::{NavCleared, OverlayAck, WaypointAck};
use oceansim_protocol::{Action, ProtocolError};
use oceansim_scene::Overlays;

fn overlays(sim: &mut Simulation, f: impl FnOnce(&mut Overlays) -> usize) -> Outcome {
    let points = f(&mut sim.world.resource_mut(sim.h.scene).overlays);
    Reply::ok(&OverlayAck { points })
}

/// `set_nav_path`.
pub(super) fn set_nav_path(sim: &mut Simulation, p: NavPath) -> Outcome {
    overlays(sim, |o| {
        o.nav_path = p.path;
        o.nav_path.len()
    })
}

/// `set_pred_trajectory`.
pub(super) fn set_pred_trajectory(sim: &mut Simulation, p: PredTrajectory) -> Outcome {
    overlays(sim, |o| {
        o.pred_trajectory = p.points;
        o.pred_trajectory.len()
    })
}

/// `set_waypoints`.
pub(super) fn set_waypoints(sim: &mut Simulation, p: Waypoints) -> Outcome {
    overlays(sim, |o| {
        o.waypoints = p.waypoints;
        o.waypoints.len()
    })
}

/// `clear_nav`.
pub(super) fn clear(sim: &mut Simulation) -> Outcome {
    sim.world.resource_mut(sim.h.scene).overlays = Overlays::default();
    Reply::ok(&NavCleared { cleared: true })
}

/// `set_waypoint`: the overlay, and with `control_scheme: waypoint_pid`
/// the target of a vehicle's waypoint PID.
pub(super) fn set_waypoint(sim: &mut Simulation, w: SetWaypoint) -> Outcome {
    let main = sim.main_name();
    let agent = w.agent_id.clone().unwrap_or(main);
    let (e, row) = sim.agent_row(&agent)?;
    let engage = match w.control_scheme.as_deref() {
        None => false,
        Some(s) => {
            let scheme = normalize_control_scheme(s).map_err(ProtocolError::from)?;
            if scheme != ControlScheme::WaypointPid {
                return Err(ProtocolError::UnsupportedControlScheme(format!(
                    "set_waypoint drives waypoint_pid, not {scheme}"
                )));
            }
            true
        }
    };
    let vehicle = sim.world.read(sim.h.kind)[row] == Kind::Vehicle.code();
    if engage && !vehicle {
        return Err(ProtocolError::UnsupportedControlScheme(format!(
            "`{agent}` is a kinematic proxy; waypoint_pid drives vehicles"
        )));
    }
    if let Some(v) = sim.world.objects(sim.h.vehicle)[row].as_ref() {
        if engage && v.vehicle.thruster_count() == 0 {
            return Err(ProtocolError::UnsupportedControlScheme(format!(
                "`{agent}` ({}) has no thrusters for the waypoint PID's forces; drive it with set_fins",
                v.profile.name
            )));
        }
    }
    let depth = w
        .depth
        .unwrap_or_else(|| sim.world.read(sim.h.position)[3 * row + 2].max(0.0));
    if engage {
        let target = WaypointTarget::new(w.world_x, w.world_z, depth, w.controller.as_ref())
            .map_err(ProtocolError::InvalidMessage)?;
        let record = CommandRecord {
            action: "set_waypoint".into(),
            data: Action::SetWaypoint(w.clone()).data(),
            frame: Some(ControlScheme::WaypointPid.frame()),
        };
        let scheme = ControlScheme::WaypointPid;
        sim.commands
            .record(&mut sim.world, &sim.h, row, scheme, record, false);
        sim.commands
            .set(&mut sim.world, &sim.h, e, Command::Waypoint(target));
    }
    sim.world.resource_mut(sim.h.scene).overlays.waypoint = Some([w.world_x, w.world_z, depth]);
    Reply::ok(&WaypointAck {
        waypoint: [w.world_x, w.world_z, depth],
        agent_id: agent,
        controller_engaged: engage,
    })
}
