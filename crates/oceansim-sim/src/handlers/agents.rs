//! Agents: `spawn_agent`, `move_agent`, `remove_agent`, `clear_agents`,
//! `set_agent_velocity` (and placing a scenario's agents).
//!
//! `spawn_agent` with a vehicle `profile` and an `agent_type` other than
//! `proxy_auv` spawns a full Fossen vehicle; anything else is a kinematic
//! proxy. Poses arrive in Godot coordinates.

use super::{Outcome, Reply};
use crate::agents::{pose, spawn_proxy, spawn_vehicle, ProfileModel, Profiles, Registry};
use crate::agents::{row_of, VehicleSpawn};
use crate::components::{clip_speed, Handles, Kind, ProxyMode, ProxyMotion};
use crate::config::MAX_AGENTS;
use crate::ctx::{Ctx, ReadCtx, Roster};
use crate::frames::{Attitude, Godot, GodotRotation, Ned, User};
use crate::simulation::load_profile;
use nalgebra::Vector3;
use oceansim_agents::{AgentDefinition, CommandRecord, ControlScheme, MAIN_AGENT_NAME};
use oceansim_ecs::{Entity, World};
use oceansim_protocol::payload::{MoveAgent, ObjectId, SetAgentVelocity, SpawnAgent, Vector};
use oceansim_protocol::reply::{AgentPlaced, AgentVelocityAck, Removed};
use oceansim_protocol::{Action, Frame, Num, ProtocolError};
use serde_json::Value;

/// Why a user-frame point with clearance `r` (m) cannot hold an agent.
fn blocked(cx: ReadCtx<'_>, p: [f64; 3], r: f64, ignore: Option<Entity>) -> Option<String> {
    let scene = cx.world.resource(cx.h.scene);
    if !scene.on_map(p[0], p[1]) {
        let [x0, x1, y0, y1] = scene.bounds();
        return Some(format!(
            "({:.2}, {:.2}) is outside the map [{x0}, {x1}] x [{y0}, {y1}]",
            Num(p[0]),
            Num(p[1])
        ));
    }
    if p[2] > 0.0 {
        return Some(format!("depth {:.2} m is above the surface", Num(-p[2])));
    }
    let floor = scene.terrain.height(p[0], p[1]);
    if p[2] - r < floor {
        return Some(format!(
            "depth {:.2} m is at or below the seabed ({:.2} m)",
            Num(-p[2]),
            Num(-floor)
        ));
    }
    let v = Vector3::from(p);
    if let Some(o) = scene.obstacles.iter().find(|o| o.contains(&v, r)) {
        return Some(format!("inside obstacle `{}`", o.id));
    }
    let (radius, half) = (cx.world.read(cx.h.radius), cx.world.read(cx.h.half_length));
    let agents = cx.world.objects(cx.h.agent);
    for &e in cx.agents.entities() {
        if Some(e) == ignore {
            continue;
        }
        let (Some(row), Some((q, _))) = (cx.world.row(e), pose(cx.world, cx.h, e)) else {
            continue;
        };
        let d = (v - Vector3::from(q.0)).norm();
        if d < r + radius[row] + half[row] {
            let name = agents[row]
                .as_ref()
                .map_or("", |m| m.def.agent_name.as_str());
            return Some(format!("overlaps agent `{name}`"));
        }
    }
    None
}

/// The shared model of profile `name` (a shipped name; files only from a
/// trusted scenario).
fn profile_model(
    profiles: &mut Profiles,
    name: &str,
    trusted: bool,
) -> Result<ProfileModel, ProtocolError> {
    if let Some(pm) = profiles.get(name) {
        return Ok(pm.clone());
    }
    if !trusted && name.ends_with(".json") {
        return Err(ProtocolError::SpawnFailed(format!(
            "profile `{name}`: a client names a shipped profile ({}), not a file",
            oceansim_vehicles::VehicleProfile::builtin_names().join(", ")
        )));
    }
    let profile = load_profile(name).map_err(|e| ProtocolError::SpawnFailed(e.to_string()))?;
    let pm = ProfileModel::new(profile);
    profiles.insert(name.into(), pm.clone());
    Ok(pm)
}

/// Places the agent `def` (its raw entry gives proxy motion and size);
/// requests (`from_client`) are checked for a free pose, scenario agents
/// are placed as written.
pub(crate) fn place(
    r: &mut Roster<'_>,
    def: AgentDefinition,
    raw: &Value,
    from_client: bool,
) -> Result<Entity, ProtocolError> {
    let pos = User::from(Godot(def.location));
    let name = def.agent_name.clone();
    let dynamic = def.profile.is_some() && def.agent_type != "proxy_auv";
    let e = if dynamic {
        let profile = def.profile.clone().unwrap_or_default();
        let pm = profile_model(r.profiles, &profile, !from_client)?;
        let scheme = if raw.get("control_scheme").is_some() {
            def.control_scheme
        } else {
            crate::agents::default_scheme(&pm.profile)
        };
        if !crate::agents::vehicle_supports(&pm.profile, scheme) {
            return Err(ProtocolError::UnsupportedControlScheme(format!(
                "a `{profile}` vehicle takes forces, wrenches, velocities, waypoints{}, not {scheme}",
                match (pm.profile.thrusters.is_empty(), pm.vehicle.fin_count() == 0) {
                    (false, true) => " or thrusters",
                    (true, false) => " or fins",
                    (false, false) => ", thrusters or fins",
                    (true, true) => "",
                }
            )));
        }
        let (radius, _) = crate::agents::hull_capsule(&pm.profile);
        if let Some(why) = from_client
            .then(|| blocked(r.read(), pos.0, radius, None))
            .flatten()
        {
            return Err(ProtocolError::BlockedPose(format!(
                "cannot spawn `{name}`: {why}"
            )));
        }
        let at = VehicleSpawn {
            position: pos,
            attitude: GodotRotation(def.rotation).into(),
            scheme,
            seed: r.world.resource(r.h.scene).seed,
        };
        spawn_vehicle(r.world, r.h, def, &pm, at)
    } else {
        if !def.control_scheme.proxy_supports() {
            return Err(ProtocolError::UnsupportedControlScheme(format!(
                "proxy agents support external_velocity, not {}; give a vehicle `profile` (and an agent_type other than proxy_auv) to spawn a dynamic vehicle",
                def.control_scheme
            )));
        }
        let (motion, size) =
            ProxyMotion::from_entry(&def, raw).map_err(ProtocolError::InvalidMessage)?;
        if let Some(why) = from_client
            .then(|| blocked(r.read(), pos.0, size, None))
            .flatten()
        {
            return Err(ProtocolError::BlockedPose(format!(
                "cannot spawn `{name}`: {why}"
            )));
        }
        spawn_proxy(r.world, r.h, def, motion, size, pos)
    };
    r.agents.insert(&name, e);
    Ok(e)
}

fn placed(cx: ReadCtx<'_>, e: Entity) -> Result<AgentPlaced, ProtocolError> {
    let row = row_of(cx.world, e)?;
    let kind = cx.world.read(cx.h.kind)[row];
    let p = pose(cx.world, cx.h, e).map_or([0.0; 3], |p| p.0 .0);
    let agents = cx.world.objects(cx.h.agent);
    Ok(AgentPlaced {
        id: agents[row]
            .as_ref()
            .map_or_else(String::new, |m| m.def.agent_name.clone()),
        entity: e.id(),
        kind: if kind == Kind::Vehicle.code() {
            "vehicle"
        } else {
            "proxy"
        }
        .into(),
        position: p,
        position_godot: Godot::from(User(p)).0,
        count: cx.agents.len() - 1,
    })
}

/// `spawn_agent`.
pub(super) fn spawn(mut r: Roster<'_>, p: SpawnAgent) -> Outcome {
    // The definition parser reads the payload with its aliases and defaults.
    let data = Action::SpawnAgent(Box::new(p)).data();
    let def = AgentDefinition::from_json(&data).map_err(ProtocolError::from)?;
    if def.is_main_agent || def.agent_name == MAIN_AGENT_NAME {
        return Err(ProtocolError::SpawnFailed(
            "the main AUV is scene-owned; spawn other agents with is_main_agent: false".into(),
        ));
    }
    if r.agents.get(&def.agent_name).is_some() {
        return Err(ProtocolError::SpawnFailed(format!(
            "agent `{}` already exists",
            def.agent_name
        )));
    }
    if r.agents.len() > MAX_AGENTS {
        return Err(ProtocolError::SpawnFailed(format!(
            "agent limit reached: at most {MAX_AGENTS} agents besides the main AUV"
        )));
    }
    let e = place(&mut r, def, &data, true)?;
    Reply::ok(placed(r.read(), e)?)
}

/// `move_agent`: teleports an agent, at rest; its sensors sample the new pose.
pub(super) fn move_agent(
    world: &mut World,
    h: &Handles,
    agents: &Registry,
    m: MoveAgent,
) -> Outcome {
    let cx = ReadCtx { world, h, agents };
    let (e, row) = agents.agent_row(world, &m.id)?;
    let pos = User::from(Godot(m.position.0));
    let vehicle = world.read(h.kind)[row] == Kind::Vehicle.code();
    let r = world.read(h.radius)[row];
    if let Some(why) = blocked(cx, pos.0, r, Some(e)) {
        return Err(ProtocolError::BlockedPose(format!(
            "cannot move `{}`: {why}",
            m.id
        )));
    }
    let ned = Ned::from(pos).0;
    world.write(h.position)[3 * row..3 * row + 3].copy_from_slice(ned.as_slice());
    world.write(h.velocity)[3 * row..3 * row + 3].fill(0.0);
    if let Some(rot) = m.rotation {
        let q = Attitude::from(GodotRotation(rot.0)).0;
        let q = q.quaternion();
        world.write(h.attitude)[4 * row..4 * row + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
        if let Some(meta) = world.objects_mut(h.agent)[row].as_mut() {
            meta.def.rotation = rot.0;
        }
    }
    if vehicle {
        world.write(h.nu)[6 * row..6 * row + 6].fill(0.0);
        let time = world.resource(h.clock).time();
        crate::systems::sample_all(world, h, time);
        if e == agents.main() {
            crate::systems::record(world, h, time);
        }
    }
    Reply::ok(placed(ReadCtx { world, h, agents }, e)?)
}

fn despawn(r: &mut Roster<'_>, name: &str) {
    if let Some(e) = r.agents.remove(name) {
        // The registry and the world agree on every agent.
        let _ = r.world.despawn(e);
        // Its inbox goes with it: an agent spawned later under the same
        // name starts with an empty one.
        let _ = r.world.resource_mut(r.h.acoustic).take_inbox(name);
    }
}

/// `remove_agent`.
pub(super) fn remove(mut r: Roster<'_>, o: ObjectId) -> Outcome {
    let e = r.agents.agent(&o.id)?;
    if e == r.agents.main() {
        return Err(ProtocolError::InvalidMessage(
            "the main AUV is scene-owned and cannot be removed".into(),
        ));
    }
    despawn(&mut r, &o.id);
    Reply::ok(Removed {
        removed: o.id,
        count: r.agents.len() - 1,
    })
}

/// `clear_agents`: every agent but the main AUV.
pub(super) fn clear(mut r: Roster<'_>) -> Outcome {
    let main = r.agents.main();
    let names: Vec<String> = {
        let agents = r.world.objects(r.h.agent);
        r.agents
            .entities()
            .iter()
            .filter(|e| **e != main)
            .filter_map(|e| r.world.row(*e))
            .filter_map(|row| agents[row].as_ref().map(|m| m.def.agent_name.clone()))
            .collect()
    };
    for n in &names {
        despawn(&mut r, n);
    }
    Reply::ok(Removed {
        removed: names.len(),
        count: 0,
    })
}

/// `set_agent_velocity`: a proxy follows a velocity (Godot frame), its
/// speed clipped to the proxy limit.
pub(super) fn set_velocity(cx: Ctx<'_>, v: SetAgentVelocity) -> Outcome {
    let (_, row) = cx.agents.agent_row(cx.world, &v.id)?;
    if cx.world.read(cx.h.kind)[row] != Kind::Proxy.code() {
        return Err(ProtocolError::UnsupportedControlScheme(format!(
            "`{}` is a vehicle driven by forces, thrusters or waypoints; external_velocity applies to proxy agents",
            v.id
        )));
    }
    let (user, saturated) = clip_speed(User::from(Godot(v.velocity.0)).0);
    let applied = Godot::from(User(user)).0;
    if let Some(m) = cx.world.objects_mut(cx.h.proxy)[row].as_mut() {
        m.mode = ProxyMode::ExternalVelocity(user);
    }
    let record = CommandRecord {
        action: "set_agent_velocity".into(),
        data: Action::SetAgentVelocity(SetAgentVelocity {
            id: v.id.clone(),
            velocity: Vector(applied),
        })
        .data(),
        frame: Some(Frame::GodotWorld),
    };
    let scheme = ControlScheme::ExternalVelocity;
    cx.commands
        .record(cx.world, cx.h, row, scheme, record, saturated);
    Reply::ok(AgentVelocityAck {
        id: v.id,
        velocity: applied,
        frame: Frame::GodotWorld,
        saturated,
    })
}
