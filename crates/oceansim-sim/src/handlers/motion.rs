//! Motion commands: forces, wrenches, body velocities and thrusters for the
//! main AUV or any vehicle named by `agent_id`, and `step`.
//!
//! A command is clipped to the vehicle's command limits (the reply says so
//! with `saturated` and the vector as `requested`), written into the
//! vehicle's `command_in` and applied at the start of the next tick.

use super::state::state_reply;
use super::{Outcome, Reply};
use crate::agents::{name_of, row_of};
use crate::components::Kind;
use crate::control::{predict_divergence, Command, PidState, Plant};
use crate::ctx::{Ctx, ReadCtx};
use crate::simulation::{Session, Simulation};
use oceansim_agents::{CommandRecord, ControlScheme};
use oceansim_ecs::Entity;
use oceansim_protocol::payload::{
    BodyVelocity, BodyWrench, FinCommand, Fins, Force, Step, ThrusterCommand, Thrusters, Vector,
};
use oceansim_protocol::reply::MotionAck;
use oceansim_protocol::{Action, ActionName, ProtocolError};
use oceansim_vehicles::CommandLimits;

/// The vehicle a motion command is for: `agent_id`, or the main AUV.
fn vehicle(cx: ReadCtx<'_>, agent_id: Option<&str>) -> Result<Entity, ProtocolError> {
    let Some(id) = agent_id else {
        return Ok(cx.agents.main());
    };
    let (e, row) = cx.agents.agent_row(cx.world, id)?;
    if cx.world.read(cx.h.kind)[row] != Kind::Vehicle.code() {
        return Err(ProtocolError::UnsupportedControlScheme(format!(
            "`{id}` is a kinematic proxy; drive it with set_agent_velocity"
        )));
    }
    Ok(e)
}

/// Refuses a force-level command (`what`) for a vehicle without thrusters:
/// its fins and propeller cannot produce an arbitrary body wrench.
fn wrench_driven(cx: ReadCtx<'_>, e: Entity, what: &str) -> Result<(), ProtocolError> {
    let row = row_of(cx.world, e)?;
    match cx.world.objects(cx.h.vehicle)[row].as_ref() {
        Some(v) if v.vehicle.thruster_count() == 0 => {
            Err(ProtocolError::UnsupportedControlScheme(format!(
                "`{}` ({}) has no thrusters to produce a {what}; drive it with set_fins",
                agent_name(cx, e),
                v.profile.name
            )))
        }
        _ => Ok(()),
    }
}

fn limits(cx: ReadCtx<'_>, e: Entity) -> Result<CommandLimits, ProtocolError> {
    let row = row_of(cx.world, e)?;
    Ok(cx.world.objects(cx.h.vehicle)[row]
        .as_ref()
        .map(|v| v.vehicle.limits)
        .unwrap_or_else(|| oceansim_vehicles::VehicleProfile::default_profile().command_limits()))
}

/// The body wrench a force-level command asks of `e` now (its attitude
/// sets a world force's body components), and the part its thrusters can
/// produce: the simulator applies only that part, tick by tick.
fn thruster_limited(cx: ReadCtx<'_>, e: Entity, command: &Command) -> Option<[f64; 6]> {
    if !matches!(
        command,
        Command::ForceWorld(_) | Command::ForceBody(_) | Command::Wrench(_)
    ) {
        return None;
    }
    let row = cx.world.row(e)?;
    let vehicles = cx.world.objects(cx.h.vehicle);
    let v = vehicles[row].as_ref()?;
    let state = crate::components::vehicle_state(cx.world, cx.h, row);
    let plant = Plant {
        state: &state,
        current_ned: nalgebra::Vector3::zeros(),
        vehicle: &v.vehicle,
    };
    // The control law's own frames and limits; force commands use no PID
    // or current.
    let dt = cx.world.resource(cx.h.clock).dt;
    let asked = crate::control::asked_wrench(command, &mut PidState::default(), plant, dt);
    let (got, limited) = v.vehicle.achievable_wrench(&asked);
    let mut out = [0.0; 6];
    out.copy_from_slice(got.as_slice());
    limited.then_some(out)
}

/// Writes `command` for `e` and records `applied` as its last command.
fn commit(
    cx: &mut Ctx<'_>,
    e: Entity,
    command: Command,
    applied: Action,
    saturated: bool,
) -> Result<ControlScheme, ProtocolError> {
    // Every motion action maps to a scheme; the protocol catalogue and the
    // agents crate's mapping are tested against each other.
    let scheme = ControlScheme::for_action(applied.name()).unwrap_or(ControlScheme::Force3d);
    let record = CommandRecord {
        action: applied.name().as_str().into(),
        data: applied.data(),
        frame: Some(scheme.frame()),
    };
    let row = row_of(cx.world, e)?;
    cx.commands
        .record(cx.world, cx.h, row, scheme, record, saturated);
    cx.commands.set(cx.world, cx.h, e, command);
    Ok(scheme)
}

fn agent_name(cx: ReadCtx<'_>, e: Entity) -> String {
    name_of(cx.world, cx.h, e)
}

/// `set_force`, `set_force_world`, `set_force_body`.
pub(super) fn force(mut cx: Ctx<'_>, name: ActionName, p: Force) -> Outcome {
    let e = vehicle(cx.read(), p.agent_id.as_deref())?;
    wrench_driven(cx.read(), e, "force")?;
    let (applied, saturated) = limits(cx.read(), e)?.clamp_force(p.force.0);
    let body = name == ActionName::SetForceBody;
    let command = if body {
        Command::ForceBody(applied)
    } else {
        Command::ForceWorld(applied)
    };
    let payload = Force {
        force: Vector(applied),
        agent_id: p.agent_id.clone(),
    };
    let action = match name {
        ActionName::SetForceBody => Action::SetForceBody(payload),
        ActionName::SetForce => Action::SetForce(payload),
        _ => Action::SetForceWorld(payload),
    };
    let thrust_limited = thruster_limited(cx.read(), e, &command);
    let saturated = saturated || thrust_limited.is_some();
    let scheme = commit(&mut cx, e, command, action, saturated)?;
    Reply::ok(MotionAck {
        agent_id: agent_name(cx.read(), e),
        force: Some(applied),
        // What the thrusters give of it (body frame), when that is less.
        wrench: thrust_limited,
        frame: Some(scheme.frame()),
        saturated,
        requested: saturated.then(|| p.force.0.to_vec()),
        ..MotionAck::default()
    })
}

/// `set_body_wrench`.
pub(super) fn wrench(mut cx: Ctx<'_>, p: BodyWrench) -> Outcome {
    let e = vehicle(cx.read(), p.agent_id.as_deref())?;
    wrench_driven(cx.read(), e, "body wrench")?;
    let (applied, saturated) = limits(cx.read(), e)?.clamp_wrench(p.wrench.0);
    let action = Action::SetBodyWrench(BodyWrench {
        wrench: Vector(applied),
        agent_id: p.agent_id.clone(),
    });
    let thrust_limited = thruster_limited(cx.read(), e, &Command::Wrench(applied));
    let saturated = saturated || thrust_limited.is_some();
    let scheme = commit(&mut cx, e, Command::Wrench(applied), action, saturated)?;
    Reply::ok(MotionAck {
        agent_id: agent_name(cx.read(), e),
        wrench: Some(thrust_limited.unwrap_or(applied)),
        frame: Some(scheme.frame()),
        saturated,
        requested: saturated.then(|| p.wrench.0.to_vec()),
        ..MotionAck::default()
    })
}

/// `set_body_velocity`.
pub(super) fn body_velocity(mut cx: Ctx<'_>, p: BodyVelocity) -> Outcome {
    let e = vehicle(cx.read(), p.agent_id.as_deref())?;
    wrench_driven(cx.read(), e, "body-velocity controller's wrench")?;
    let (applied, saturated) = limits(cx.read(), e)?.clamp_velocity(p.velocity.0);
    let action = Action::SetBodyVelocity(BodyVelocity {
        velocity: Vector(applied),
        agent_id: p.agent_id.clone(),
    });
    let scheme = commit(
        &mut cx,
        e,
        Command::BodyVelocity(applied),
        action,
        saturated,
    )?;
    Reply::ok(MotionAck {
        agent_id: agent_name(cx.read(), e),
        velocity: Some(applied),
        frame: Some(scheme.frame()),
        saturated,
        requested: saturated.then(|| p.velocity.0.to_vec()),
        ..MotionAck::default()
    })
}

/// The full thruster vector of a command for `e` (named values update the
/// vehicle's current thruster command), or `invalid_action_shape`.
fn thruster_vector(
    cx: ReadCtx<'_>,
    e: Entity,
    t: &ThrusterCommand,
) -> Result<Vec<f64>, ProtocolError> {
    let row = row_of(cx.world, e)?;
    let vehicles = cx.world.objects(cx.h.vehicle);
    let Some(v) = vehicles[row].as_ref() else {
        return Err(ProtocolError::UnsupportedControlScheme(
            "not a vehicle".into(),
        ));
    };
    let thrusters = &v.profile.thrusters;
    let n = thrusters.len();
    if n == 0 {
        return Err(ProtocolError::UnsupportedControlScheme(format!(
            "profile `{}` has no thrusters; it is driven by `fins` (set_fins) or force-level commands",
            v.profile.name
        )));
    }
    match t {
        ThrusterCommand::Ordered(v) if v.len() == n => Ok(v.clone()),
        ThrusterCommand::Ordered(v) => Err(ProtocolError::InvalidActionShape(format!(
            "expected {n} thruster values, got {}",
            v.len()
        ))),
        ThrusterCommand::Named(map) => {
            let pending = cx.world.objects(cx.h.command_in);
            let active = cx.world.objects(cx.h.command);
            let current = pending[row].as_ref().or(active[row].as_ref());
            let mut out = match current.map(|s| &s.command) {
                Some(Command::Thrusters(prev)) => prev.clone(),
                _ => vec![0.0; n],
            };
            for (name, value) in map {
                let idx = name
                    .strip_prefix("thruster_")
                    .and_then(|i| i.parse::<usize>().ok())
                    .filter(|i| *i < n)
                    .or_else(|| thrusters.iter().position(|t| &t.name == name));
                match idx {
                    Some(i) => out[i] = *value,
                    None => {
                        let valid: Vec<String> = (0..n).map(|i| format!("thruster_{i}")).collect();
                        return Err(ProtocolError::InvalidActionShape(format!(
                            "unknown thruster `{name}`; valid: {}",
                            valid.join(", ")
                        )));
                    }
                }
            }
            Ok(out)
        }
    }
}

/// `set_thrust`, `set_thrusters`.
pub(super) fn thrusters(mut cx: Ctx<'_>, name: ActionName, p: Thrusters) -> Outcome {
    let e = vehicle(cx.read(), p.agent_id.as_deref())?;
    let cmd = thruster_vector(cx.read(), e, &p.thrusters)?;
    // The actuator model clamps each value to its thruster's bounds.
    let payload = Thrusters {
        thrusters: ThrusterCommand::Ordered(cmd.clone()),
        agent_id: p.agent_id.clone(),
    };
    let action = if name == ActionName::SetThrust {
        Action::SetThrust(payload)
    } else {
        Action::SetThrusters(payload)
    };
    let scheme = commit(&mut cx, e, Command::Thrusters(cmd.clone()), action, false)?;
    Reply::ok(MotionAck {
        agent_id: agent_name(cx.read(), e),
        thrusters: Some(cmd),
        frame: Some(scheme.frame()),
        ..MotionAck::default()
    })
}

/// The full `fins` vector (surface angles in rad, then shaft speeds in
/// rpm) of a command for `e`, clipped to the profile's limits, whether it
/// was clipped, and the full vector asked for. Named values update the
/// vehicle's current fin command.
fn fin_vector(
    cx: ReadCtx<'_>,
    e: Entity,
    f: &FinCommand,
) -> Result<(Vec<f64>, bool, Vec<f64>), ProtocolError> {
    let row = row_of(cx.world, e)?;
    let vehicles = cx.world.objects(cx.h.vehicle);
    let Some(v) = vehicles[row].as_ref() else {
        return Err(ProtocolError::UnsupportedControlScheme(
            "not a vehicle".into(),
        ));
    };
    let n = v.vehicle.fin_count();
    if n == 0 {
        return Err(ProtocolError::UnsupportedControlScheme(format!(
            "profile `{}` has no control surfaces or propellers; use thrusters or force-level commands",
            v.profile.name
        )));
    }
    let names = v.vehicle.fin_names();
    let values = match f {
        FinCommand::Ordered(x) if x.len() == n => x.clone(),
        FinCommand::Ordered(x) => {
            return Err(ProtocolError::InvalidActionShape(format!(
                "expected {n} fin values ({}), got {}",
                names.join(", "),
                x.len()
            )))
        }
        FinCommand::Named(map) => {
            let pending = cx.world.objects(cx.h.command_in);
            let active = cx.world.objects(cx.h.command);
            let current = pending[row].as_ref().or(active[row].as_ref());
            let mut out = match current.map(|s| &s.command) {
                Some(Command::Fins(prev)) => prev.clone(),
                _ => vec![0.0; n],
            };
            for (name, value) in map {
                match names.iter().position(|k| k == name) {
                    Some(i) => out[i] = *value,
                    None => {
                        return Err(ProtocolError::InvalidActionShape(format!(
                            "unknown fin or propeller `{name}`; valid: {}",
                            names.join(", ")
                        )))
                    }
                }
            }
            out
        }
    };
    let (applied, clipped) = v.vehicle.clamp_fins(&values).ok_or_else(|| {
        ProtocolError::InvalidActionShape("fin values must be finite numbers".into())
    })?;
    Ok((applied, clipped, values))
}

/// `set_fins`: control-surface angles (rad) and propeller speeds (rpm),
/// clipped to the profile's limits; they reach the actuators through
/// their servo and shaft lags.
pub(super) fn fins(mut cx: Ctx<'_>, p: Fins) -> Outcome {
    let e = vehicle(cx.read(), p.agent_id.as_deref())?;
    let (applied, saturated, requested) = fin_vector(cx.read(), e, &p.fins)?;
    let action = Action::SetFins(Fins {
        fins: FinCommand::Ordered(applied.clone()),
        agent_id: p.agent_id.clone(),
    });
    let scheme = commit(
        &mut cx,
        e,
        Command::Fins(applied.clone()),
        action,
        saturated,
    )?;
    Reply::ok(MotionAck {
        agent_id: agent_name(cx.read(), e),
        fins: Some(applied),
        frame: Some(scheme.frame()),
        saturated,
        requested: saturated.then_some(requested),
        ..MotionAck::default()
    })
}

/// Refuses a `step` whose command would make vehicle `e` diverge within
/// `ticks` (checked on copies, before anything changes).
fn check_divergence(
    cx: ReadCtx<'_>,
    e: Entity,
    command: Option<&Command>,
    ticks: u64,
) -> Result<(), ProtocolError> {
    let (w, h) = (cx.world, cx.h);
    let row = row_of(w, e)?;
    let pending = w.objects(h.command_in);
    let active = w.objects(h.command);
    let slot = pending[row].as_ref().or(active[row].as_ref());
    let Some(command) = command.or(slot.map(|s| &s.command)) else {
        return Ok(());
    };
    let vehicles = w.objects(h.vehicle);
    let (Some(v), Some(act)) = (&vehicles[row], &w.objects(h.actuators)[row]) else {
        return Ok(());
    };
    if !v.check_steps {
        return Ok(());
    }
    let state = crate::components::vehicle_state(w, h, row);
    // The current as the next tick's `ocean_current` will set it.
    let c = crate::frames::Ned::from(crate::frames::User(w.resource(h.scene).current_user)).0;
    let pid = match (command, &w.objects(h.pid)[row]) {
        (Command::Waypoint(_), Some(p)) if slot.is_some_and(|s| s.seq == p.seq) => p.clone(),
        _ => PidState::default(),
    };
    let plant = Plant {
        state: &state,
        current_ned: c,
        vehicle: &v.vehicle,
    };
    let dt = w.resource(h.clock).dt;
    match predict_divergence(command, pid, act.clone(), plant, dt, ticks) {
        None => Ok(()),
        Some(k) => Err(ProtocolError::InvalidMessage(format!(
            "refused: the dynamics of `{}` would diverge {k} tick(s) into this step (its state would leave any speed a vehicle reaches); nothing changed",
            agent_name(cx, e)
        ))),
    }
}

/// `step`: applies its force, thrusters or fins to the main AUV, advances one
/// control period and returns the state. A step whose dynamics would
/// diverge is refused before anything changes.
pub(super) fn step(sim: &mut Simulation, session: &mut Session, p: Step) -> Outcome {
    let main = sim.main_entity();
    let ticks = sim.world.resource(sim.h.clock).step_ticks;
    let cx = sim.read_ctx();
    let command = if let Some(f) = p.force {
        wrench_driven(cx, main, "force")?;
        let (applied, saturated) = limits(cx, main)?.clamp_force(f.0);
        let action = Action::SetForceWorld(Force {
            force: Vector(applied),
            agent_id: None,
        });
        let command = Command::ForceWorld(applied);
        let saturated = saturated || thruster_limited(cx, main, &command).is_some();
        Some((command, action, saturated))
    } else if let Some(t) = &p.thrusters {
        let cmd = thruster_vector(cx, main, t)?;
        let action = Action::SetThrusters(Thrusters {
            thrusters: ThrusterCommand::Ordered(cmd.clone()),
            agent_id: None,
        });
        Some((Command::Thrusters(cmd), action, false))
    } else if let Some(f) = &p.fins {
        let (cmd, saturated, _) = fin_vector(cx, main, f)?;
        let action = Action::SetFins(Fins {
            fins: FinCommand::Ordered(cmd.clone()),
            agent_id: None,
        });
        Some((Command::Fins(cmd), action, saturated))
    } else {
        None
    };
    check_divergence(cx, main, command.as_ref().map(|c| &c.0), ticks)?;
    if let Some((cmd, action, saturated)) = command {
        commit(&mut sim.ctx(), main, cmd, action, saturated)?;
    }
    let faults = sim.tick(ticks);
    if let Some((agent, t)) = faults.first() {
        return Err(ProtocolError::InvalidMessage(format!(
            "the dynamics of `{agent}` diverged at t = {t} s; it keeps its last finite state and is now idle"
        )));
    }
    state_reply(sim.state_view(), session, p.detail)
}
