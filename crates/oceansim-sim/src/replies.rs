//! Typed replies built from the world: the main AUV's state (rendered
//! once per revision and shared by every reader), compact states, agent
//! records, map information.

use crate::agents::{name_of, Registry};
use crate::components::vehicle_state;
use crate::components::{Handles, Kind};
use crate::control::Command;
use crate::ctx::{ReadCtx, StateView};
use crate::frames::{Attitude, Godot, GodotRotation, Ned, User};
use crate::simulation::{main_row, Session};
use crate::state_cache::StateCache;
use nalgebra::Vector3;
use oceansim_agents::{ActionSpace, AgentRuntimeState, ControlScheme, RUNTIME_SCHEMA_VERSION};
use oceansim_ecs::{Entity, World};
use oceansim_protocol::reply::*;
use oceansim_protocol::{Rendered, RenderedPayloads};
use oceansim_scene::obstacle::Obstacle;
use oceansim_vehicles::VehicleProfile;

/// The main AUV's full state (typed), `recording` as the reply shows it.
pub(crate) fn state_data<S>(
    cx: ReadCtx<'_>,
    recording: Option<RecordingCost>,
    sensors: S,
) -> StateData<S> {
    let (w, h) = (cx.world, cx.h);
    let row = main_row(w, cx.agents);
    let s = vehicle_state(w, h, row);
    let pos = User::from(Ned(s.position_ned)).0;
    let vel = crate::components::user_velocity(w, h, row);
    let att = Attitude(s.attitude);
    let [roll, pitch, _] = att.euler_deg();
    let heading = att.heading_deg();
    let scene = w.resource(h.scene);
    let floor = scene.terrain.height(pos[0], pos[1]);
    let contacts = w.objects(h.contacts)[row].clone().unwrap_or_default();
    let acoustic = w.resource(h.acoustic);
    let clock = w.resource(h.clock);
    let main_name = name_of(w, h, cx.agents.main());
    StateData {
        position: pos,
        velocity: vel,
        depth: -pos[2],
        speed: Vector3::from(vel).norm(),
        heading_deg: heading,
        sim_time: clock.time(),
        position_godot: Godot::from(User(pos)).0,
        altitude: pos[2] - floor,
        orientation: Orientation {
            roll_deg: roll,
            pitch_deg: pitch,
            heading_deg: heading,
            quaternion_xyzw: att.quaternion_xyzw(),
            rotation_godot_deg: GodotRotation::from(att).0,
            frame: "body FRD to NED".into(),
        },
        body_velocity: s.nu.into(),
        angular_velocity: [s.nu[3], s.nu[4], s.nu[5]],
        contact: contacts.first().map(|c| c.class),
        contacts,
        current: scene.current_user,
        control: control_report(w, h, row),
        paused: clock.paused,
        time_scale: clock.time_scale,
        achieved_time_scale: (!clock.paused).then(|| clock.achieved_time_scale()),
        recording,
        scenario: scene.scenario.scenario.id.clone(),
        acoustic: AcousticView {
            inbox: acoustic.inbox(&main_name),
            pending: acoustic.pending(),
        },
        sensors,
    }
}

/// What recording sensor data costs so far: render CPU time of every
/// agent's sensors per simulated second, and the renders in flight.
fn recording_cost(w: &World, h: &Handles) -> RecordingCost {
    let render_s: f64 = w
        .objects(h.sensors)
        .iter()
        .flatten()
        .flat_map(|suite| &suite.sensors)
        .map(|s| s.render_seconds())
        .sum();
    let rec = w.resource(h.recorder);
    let t = w.resource(h.clock).time();
    RecordingCost {
        sensor_data: rec.keeps_sensor_data(),
        render_cpu_ms_per_sim_s: if t > 0.0 {
            // Three decimals, as the rest of a reply's numbers.
            (render_s * 1e6 / t).round() / 1e3
        } else {
            0.0
        },
        renders_in_flight: rec.renders_in_flight() as u64,
    }
}

/// Control diagnostics of the vehicle in `row`.
fn control_report(w: &World, h: &Handles, row: usize) -> ControlReport {
    let agents = w.objects(h.agent);
    let meta = agents[row].as_ref();
    let actuators = w.objects(h.actuators);
    let bank = actuators[row].as_ref().map(|a| &a.thrusters);
    let mut wrench = [0.0; 6];
    wrench.copy_from_slice(&w.read(h.tau)[6 * row..6 * row + 6]);
    ControlReport {
        control_scheme: meta.map_or("", |m| m.scheme.as_str()).into(),
        last_command: meta.and_then(|m| m.last_command.clone()),
        last_command_time: meta.and_then(|m| m.last_command_time),
        command_saturated: meta.is_some_and(|m| m.command_saturated),
        body_wrench: wrench,
        thruster_outputs: bank.map(|b| b.outputs().to_vec()).unwrap_or_default(),
        thrust_n: bank.map(|b| b.thrusts_n().to_vec()).unwrap_or_default(),
        fin_angles_rad: actuators[row]
            .as_ref()
            .map(|a| a.fin_angles_rad.clone())
            .unwrap_or_default(),
        propeller_rpm: actuators[row]
            .as_ref()
            .map(|a| a.propeller_rpm.clone())
            .unwrap_or_default(),
        controller_state: controller_state(w, h, row),
    }
}

/// The waypoint PID's diagnostics when it drives the vehicle in `row`.
fn controller_state(w: &World, h: &Handles, row: usize) -> Option<ControllerState> {
    let commands = w.objects(h.command);
    let pids = w.objects(h.pid);
    // A command written but not yet applied is reported as it will be.
    let pending = w.objects(h.command_in);
    let slot = pending[row].as_ref().or(commands[row].as_ref())?;
    match &slot.command {
        Command::Waypoint(t) => {
            let fresh;
            let pid = match pids[row].as_ref().filter(|p| p.seq == slot.seq) {
                Some(p) => p,
                None => {
                    fresh = crate::control::PidState::new(slot.seq);
                    &fresh
                }
            };
            Some(pid.report(t))
        }
        _ => None,
    }
}

/// The full state, serialised at most twice per revision: the first
/// reader of a revision has it written straight into its reply (a client
/// stepping reads each revision once); a second reader of the same
/// revision renders it as text, kept and shared by every later one.
pub(crate) fn full_state(v: StateView<'_>) -> Rendered {
    let cx = v.read;
    // Keyed by revision and by the recording's figures, which change
    // while the world is paused (renders go on).
    let recording = shown_recording_cost(cx, v.deterministic);
    let seen = v.cache.revision == v.revs.state && v.cache.recording == recording;
    if let (true, Some(text)) = (seen, &v.cache.text) {
        return Rendered::Whole(text.clone());
    }
    let state = Rendered::WithSensors {
        head: Box::new(state_data(cx, recording, ())),
        sensors: sensor_payloads(cx.world, cx.h, cx.agents.main(), |_, _| true),
    };
    if !seen {
        *v.cache = StateCache {
            revision: v.revs.state,
            recording,
            text: None,
        };
        return state;
    }
    let text = state.into_text();
    v.cache.text = Some(text.clone());
    Rendered::Whole(text)
}

/// The `recording` field a state reply shows (none when deterministic:
/// wall-clock figures would break byte-identical replies).
fn shown_recording_cost(cx: ReadCtx<'_>, deterministic: bool) -> Option<RecordingCost> {
    (!deterministic).then(|| recording_cost(cx.world, cx.h))
}

/// The compact state for `session`, which then counts its sensors as seen.
pub(crate) fn compact_state(v: StateView<'_>, session: &mut Session) -> Rendered {
    let cx = v.read;
    if session.generation != v.revs.generation {
        session.seen.clear();
        session.generation = v.revs.generation;
    }
    let sensors = sensor_payloads(cx.world, cx.h, cx.agents.main(), |name, seq| {
        session.seen.get(name) != Some(&seq)
    });
    let row = main_row(cx.world, cx.agents);
    if let Some(suite) = &cx.world.objects(cx.h.sensors)[row] {
        for s in &suite.sensors {
            let seq = s.sequence().unwrap_or(u64::MAX);
            session.seen.insert(s.name.clone(), seq);
        }
    }
    // The compact state shows no recording figures.
    let full = state_data(cx, None, ());
    let compact = CompactState {
        sim_time: full.sim_time,
        position: full.position,
        velocity: full.velocity,
        depth: full.depth,
        speed: full.speed,
        heading_deg: full.heading_deg,
        quaternion_xyzw: full.orientation.quaternion_xyzw,
        body_velocity: full.body_velocity,
        contacts: full.contacts.len(),
        sensors: (),
    };
    Rendered::with_sensors(compact, sensors)
}

/// The action space of `scheme` for a vehicle of `profile`, with the
/// thrusters' command bounds, or the fins' angle and shaft-speed limits.
fn action_space(profile: Option<&VehicleProfile>, scheme: ControlScheme) -> ActionSpace {
    if let (Some(p), ControlScheme::Fins) = (profile, scheme) {
        let surfaces: Vec<String> = p.control_surfaces.iter().map(|f| f.name.clone()).collect();
        let props: Vec<String> = p.propellers.iter().map(|f| f.name.clone()).collect();
        let (lo, hi): (Vec<f64>, Vec<f64>) =
            oceansim_vehicles::appendages::fin_bounds(&p.control_surfaces, &p.propellers)
                .into_iter()
                .map(|[l, h]| (l, h))
                .unzip();
        if let Ok(space) = ActionSpace::for_fins(&surfaces, &props, &lo, &hi) {
            return space;
        }
    }
    let n = profile.map_or(oceansim_agents::DEFAULT_THRUSTER_COUNT, |p| {
        p.thrusters.len()
    });
    let space = ActionSpace::for_scheme(scheme, n);
    match profile {
        Some(p) if scheme == ControlScheme::Thrusters => {
            let lo = p
                .thrusters
                .iter()
                .map(|t| Some(t.command_bounds[0]))
                .collect();
            let hi = p
                .thrusters
                .iter()
                .map(|t| Some(t.command_bounds[1]))
                .collect();
            space
                .clone()
                .with_bounds(Some(lo), Some(hi))
                .unwrap_or(space)
        }
        _ => space,
    }
}

/// The runtime record of agent `e`.
pub(crate) fn agent_record(w: &World, h: &Handles, e: Entity) -> Option<AgentRuntimeState> {
    let row = w.row(e)?;
    let agents = w.objects(h.agent);
    let meta = agents[row].as_ref()?;
    let s = vehicle_state(w, h, row);
    let pos = User::from(Ned(s.position_ned)).0;
    let vel = crate::components::user_velocity(w, h, row);
    let vehicles = w.objects(h.vehicle);
    let profile = vehicles[row].as_ref().map(|v| &*v.profile);
    let n = profile.map_or(0, |p| p.thrusters.len());
    let mut r = AgentRuntimeState::from_definition(&meta.def, pos, n);
    let att = Attitude(s.attitude);
    r.velocity = vel;
    r.speed = Vector3::from(vel).norm();
    r.size_m = meta.size_m;
    r.last_command = meta.last_command.clone();
    r.last_command_time = meta.last_command_time;
    r.control_scheme = meta.scheme;
    r.control_mode = meta.scheme.protocol_mapping().as_str().into();
    r.contacts = w.objects(h.contacts)[row].as_ref().map_or(0, Vec::len);
    if w.read(h.kind)[row] == Kind::Vehicle.code() {
        let [roll, pitch, _] = att.euler_deg();
        r.profile = profile.map(|p| p.name.clone());
        r.proxy_auv = false;
        r.shape = "torpedo".into();
        r.mode = "dynamics".into();
        r.angular_velocity = Some([s.nu[3], s.nu[4], s.nu[5]]);
        r.pose.rotation_rpy = [roll, pitch, att.heading_deg()];
        r.pose.rotation_quat_xyzw = Some(att.quaternion_xyzw());
        r.action_space = action_space(profile, meta.scheme);
        r.available_action_spaces = ControlScheme::ALL
            .into_iter()
            .filter(|s| {
                profile.map_or(s.main_auv_supports(), |p| {
                    crate::agents::vehicle_supports(p, *s)
                })
            })
            .map(|s| action_space(profile, s))
            .collect();
        let cs = controller_state(w, h, row);
        r.control_status = match (&cs, meta.last_command.is_some()) {
            (Some(c), _) if c.saturation.iter().any(|x| *x) => "saturated",
            (Some(_), _) | (None, true) => "active",
            (None, false) => "idle",
        }
        .into();
        r.controller_state = cs;
        if let Some(a) = w.objects(h.actuators)[row].as_ref() {
            r.fin_angles_rad = a.fin_angles_rad.clone();
            r.propeller_rpm = a.propeller_rpm.clone();
        }
    } else {
        let proxies = w.objects(h.proxy);
        let motion = proxies[row].as_ref();
        let rot = meta.def.rotation;
        r.pose.rotation_rpy = [rot[2], rot[0], (-rot[1]).rem_euclid(360.0)];
        r.mode = motion.map_or("idle", |m| m.mode.name()).into();
        r.depth_min = motion.and_then(|m| m.depth_min);
        r.depth_max = motion.and_then(|m| m.depth_max);
        let idle = motion.is_none_or(|m| m.mode == crate::components::ProxyMode::Idle);
        r.control_status = if idle { "idle" } else { "active" }.into();
    }
    Some(r)
}

/// `get_agents`.
pub(crate) fn agents_data(cx: ReadCtx<'_>) -> AgentsData<AgentRuntimeState> {
    let agents: Vec<AgentRuntimeState> = cx
        .agents
        .entities()
        .iter()
        .filter_map(|e| agent_record(cx.world, cx.h, *e))
        .collect();
    AgentsData {
        schema_version: RUNTIME_SCHEMA_VERSION,
        count: agents.len(),
        agents,
        acoustic: cx.world.resource(cx.h.acoustic).summary(),
    }
}

/// A full snapshot (state, agents, map, clock).
pub(crate) fn snapshot(
    cx: ReadCtx<'_>,
    deterministic: bool,
) -> Snapshot<SensorMap, AgentRuntimeState> {
    let (w, h) = (cx.world, cx.h);
    let rendered = sensor_payloads(w, h, cx.agents.main(), |_, _| true);
    let sensors = rendered
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), serde_json::from_str(v).ok()?)))
        .collect();
    Snapshot {
        schema: "oceansim_snapshot".into(),
        schema_version: 1,
        sim_time: w.resource(h.clock).time(),
        scenario: w.resource(h.scene).scenario.scenario.id.clone(),
        seed: w.resource(h.scene).seed,
        state: state_data(cx, shown_recording_cost(cx, deterministic), sensors),
        agents: agents_data(cx),
        map: map_info(w, h, cx.agents),
        clock: clock_data(w, h),
    }
}

/// Payloads of the sensors of `e` (all, or those `keep` accepts).
pub(crate) fn sensor_payloads(
    world: &World,
    h: &Handles,
    e: Entity,
    keep: impl Fn(&str, u64) -> bool,
) -> RenderedPayloads {
    let Some(row) = world.row(e) else {
        return Vec::new();
    };
    let mut suites = world.objects_mut(h.sensors);
    let Some(suite) = suites[row].as_mut() else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(suite.sensors.len());
    for s in &mut suite.sensors {
        // No sample yet (an on-demand stub) counts as its own state.
        let seq = s.sequence().unwrap_or(u64::MAX);
        if keep(&s.name, seq) {
            if let Some(p) = s.payload() {
                out.push((s.name.clone(), p));
            }
        }
    }
    out
}

/// `reset`, `pause`, `resume`, `set_time_scale`.
pub(crate) fn clock_data(world: &World, h: &Handles) -> ClockData {
    let clock = world.resource(h.clock);
    let scene = world.resource(h.scene);
    ClockData {
        paused: clock.paused,
        time_scale: clock.time_scale,
        sim_time: clock.time(),
        scenario: scene.scenario.scenario.id.clone(),
        seed: scene.seed,
    }
}

/// `get_map_info`.
pub(crate) fn map_info(world: &World, h: &Handles, agents: &Registry) -> MapInfo {
    let scene = world.resource(h.scene);
    let s = &scene.scenario.scenario;
    let [x0, x1, y0, y1] = scene.bounds();
    // A lawnmower survey route over the map, Godot X/Z, 4 legs.
    let legs = 4;
    let mut route = Vec::new();
    for k in 0..legs {
        let x = x0 + (x1 - x0) * (k as f64 + 0.5) / legs as f64;
        let (ya, yb) = if k % 2 == 0 {
            (y0 + 2.0, y1 - 2.0)
        } else {
            (y1 - 2.0, y0 + 2.0)
        };
        route.push([x, -ya]);
        route.push([x, -yb]);
    }
    let o = &scene.overlays;
    MapInfo {
        scenario: s.id.clone(),
        display_name: s.display_name.clone(),
        description: s.description.clone(),
        generator: s.generator.clone(),
        seed: scene.seed,
        seeds: s.seeds.clone(),
        tags: s.tags.clone(),
        recommended_profile: s.recommended_profile.clone(),
        map_size_m: s.map_size_m,
        bounds_user: BoundsUser {
            x: [x0, x1],
            y: [y0, y1],
        },
        bounds_godot: BoundsGodot {
            x: [x0, x1],
            z: [-y1, -y0],
        },
        floor_depth_m: s.terrain.floor_depth_m,
        terrain: TerrainSummary {
            min_depth_m: -scene.terrain.max_height(),
            max_depth_m: -scene.terrain.min_height(),
            cell_m: scene.terrain.cell_m(),
        },
        obstacles: scene.obstacles.iter().map(obstacle_info).collect(),
        path_points: route,
        path_frame: "godot_map_plane [world_x, world_z]".into(),
        overlays: OverlaysInfo {
            nav_path: o.nav_path.clone(),
            waypoint: o.waypoint,
            pred_trajectory: o.pred_trajectory.clone(),
            waypoints: o.waypoints.clone(),
        },
        agents: agents.len(),
    }
}

/// An obstacle as reported.
pub(crate) fn obstacle_info(o: &Obstacle) -> ObstacleInfo {
    ObstacleInfo {
        id: o.id.clone(),
        shape: o.shape,
        center_user: o.center,
        center_godot: Godot::from(User(o.center)).0,
        half_extents_user: o.half_extents,
        rotation_godot_deg: o.source.as_ref().and_then(|s| s.rotation).map(|r| r.0),
    }
}
