//! Navigation overlays and the waypoint PID: `set_nav_path`,
//! `set_waypoint`, `set_pred_trajectory`, `set_waypoints`, `clear_nav`.
//! Overlays are kept as sent (Godot coordinates).

use super::{Outcome, Reply};
use crate::components::{Handles, Kind};
use crate::control::{Command, WaypointTarget};
use crate::ctx::Ctx;
use oceansim_agents::{normalize_control_scheme, CommandRecord, ControlScheme};
use oceansim_ecs::World;
use oceansim_protocol::payload::{NavPath, PredTrajectory, SetWaypoint, Waypoints};
use oceansim_protocol::reply::{NavCleared, OverlayAck, WaypointAck};
use oceansim_protocol::{Action, ProtocolError};
use oceansim_scene::Overlays;

/// Changes the scene's overlays with `f` (which says how many points they
/// now hold).
fn overlays(world: &mut World, h: &Handles, f: impl FnOnce(&mut Overlays) -> usize) -> Outcome {
    let points = f(&mut world.resource_mut(h.scene).overlays);
    Reply::ok(OverlayAck { points })
}

/// `set_nav_path`.
pub(super) fn set_nav_path(world: &mut World, h: &Handles, p: NavPath) -> Outcome {
    overlays(world, h, |o| {
        o.nav_path = p.path;
        o.nav_path.len()
    })
}

/// `set_pred_trajectory`.
pub(super) fn set_pred_trajectory(world: &mut World, h: &Handles, p: PredTrajectory) -> Outcome {
    overlays(world, h, |o| {
        o.pred_trajectory = p.points;
        o.pred_trajectory.len()
    })
}

/// `set_waypoints`.
pub(super) fn set_waypoints(world: &mut World, h: &Handles, p: Waypoints) -> Outcome {
    overlays(world, h, |o| {
        o.waypoints = p.waypoints;
        o.waypoints.len()
    })
}

/// `clear_nav`.
pub(super) fn clear(world: &mut World, h: &Handles) -> Outcome {
    world.resource_mut(h.scene).overlays = Overlays::default();
    Reply::ok(NavCleared { cleared: true })
}

/// `set_waypoint`: the overlay, and with `control_scheme: waypoint_pid`
/// the target of a vehicle's waypoint PID.
pub(super) fn set_waypoint(cx: Ctx<'_>, w: SetWaypoint) -> Outcome {
    let main = crate::agents::name_of(cx.world, cx.h, cx.agents.main());
    let agent = w.agent_id.clone().unwrap_or(main);
    let (e, row) = cx.agents.agent_row(cx.world, &agent)?;
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
    let vehicle = cx.world.read(cx.h.kind)[row] == Kind::Vehicle.code();
    if engage && !vehicle {
        return Err(ProtocolError::UnsupportedControlScheme(format!(
            "`{agent}` is a kinematic proxy; waypoint_pid drives vehicles"
        )));
    }
    if let Some(v) = cx.world.objects(cx.h.vehicle)[row].as_ref() {
        if engage && v.vehicle.thruster_count() == 0 {
            return Err(ProtocolError::UnsupportedControlScheme(format!(
                "`{agent}` ({}) has no thrusters for the waypoint PID's forces; drive it with set_fins",
                v.profile.name
            )));
        }
    }
    let depth = w
        .depth
        .unwrap_or_else(|| cx.world.read(cx.h.position)[3 * row + 2].max(0.0));
    if engage {
        let target = WaypointTarget::new(w.world_x, w.world_z, depth, w.controller.as_ref())
            .map_err(ProtocolError::InvalidMessage)?;
        let record = CommandRecord {
            action: "set_waypoint".into(),
            data: Action::SetWaypoint(w.clone()).data(),
            frame: Some(ControlScheme::WaypointPid.frame()),
        };
        let scheme = ControlScheme::WaypointPid;
        cx.commands
            .record(cx.world, cx.h, row, scheme, record, false);
        cx.commands
            .set(cx.world, cx.h, e, Command::Waypoint(target));
    }
    cx.world.resource_mut(cx.h.scene).overlays.waypoint = Some([w.world_x, w.world_z, depth]);
    Reply::ok(WaypointAck {
        waypoint: [w.world_x, w.world_z, depth],
        agent_id: agent,
        controller_engaged: engage,
    })
}
