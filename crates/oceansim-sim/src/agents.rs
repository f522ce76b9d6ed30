//! Agents as entities: spawning a vehicle (Fossen dynamics, its own
//! profile's parameters) or a kinematic proxy, removing them, and finding
//! them by name.
//!
//! Positions given here are in the user frame (x east, y north, z up);
//! rows store NED, as the dynamics do.

use crate::components::{AgentMeta, Handles, Kind, ProxyMotion, VehicleParams};
use crate::control::{CommandSlot, PidState};
use crate::frames::{Attitude, Ned, User};
use oceansim_agents::{AgentDefinition, ControlScheme};
use oceansim_ecs::{Entity, World};
use oceansim_protocol::ProtocolError;
use oceansim_sensors::SensorSuite;
use oceansim_vehicles::{Vehicle, VehicleProfile};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Agents by name, in the order they joined: the main AUV first, and it
/// is never removed (so [`Registry::main`] always names it).
#[derive(Debug, Clone)]
pub struct Registry {
    by_name: BTreeMap<String, Entity>,
    order: Vec<Entity>,
}

impl Registry {
    /// A registry of the main AUV `main`, named `name`.
    pub fn new(name: &str, main: Entity) -> Self {
        Registry {
            by_name: BTreeMap::from([(name.to_owned(), main)]),
            order: vec![main],
        }
    }
    /// The main AUV's entity.
    pub fn main(&self) -> Entity {
        self.order[0]
    }
    /// The entity of agent `name`.
    pub fn get(&self, name: &str) -> Option<Entity> {
        self.by_name.get(name).copied()
    }
    /// Adds an agent.
    pub fn insert(&mut self, name: &str, e: Entity) {
        self.by_name.insert(name.to_owned(), e);
        self.order.push(e);
    }
    /// Removes an agent other than the main AUV; returns its entity.
    pub fn remove(&mut self, name: &str) -> Option<Entity> {
        let e = self.get(name).filter(|e| *e != self.main())?;
        self.by_name.remove(name);
        self.order.retain(|x| *x != e);
        Some(e)
    }
    /// Agents in joining order.
    pub fn entities(&self) -> &[Entity] {
        &self.order
    }
    /// Number of agents.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// The entity of agent `id`, or `unknown_agent`.
    pub(crate) fn agent(&self, id: &str) -> Result<Entity, ProtocolError> {
        self.get(id)
            .ok_or_else(|| ProtocolError::UnknownAgent(id.into()))
    }

    /// The entity of agent `id` and its row in `world`, or
    /// `unknown_agent` (a name held here for an entity no longer in the
    /// world included).
    pub(crate) fn agent_row(
        &self,
        world: &World,
        id: &str,
    ) -> Result<(Entity, usize), ProtocolError> {
        let e = self.agent(id)?;
        let row = world
            .row(e)
            .ok_or_else(|| ProtocolError::UnknownAgent(id.into()))?;
        Ok((e, row))
    }
}

/// The row of agent entity `e` in `world`, or `unknown_agent` if it is
/// gone.
pub(crate) fn row_of(world: &World, e: Entity) -> Result<usize, ProtocolError> {
    world
        .row(e)
        .ok_or_else(|| ProtocolError::UnknownAgent(format!("{e} (no longer in the world)")))
}

/// The name of agent entity `e` (empty if it is gone).
pub(crate) fn name_of(world: &World, h: &Handles, e: Entity) -> String {
    let agents = world.objects(h.agent);
    world
        .row(e)
        .and_then(|row| agents[row].as_ref())
        .map(|m| m.def.agent_name.clone())
        .unwrap_or_default()
}

/// Vehicle profiles by name, each model shared by every vehicle of it
/// (a snapshot carries those that were files).
pub(crate) type Profiles = BTreeMap<String, ProfileModel>;

/// A vehicle's profile with its dynamics model, shared by every vehicle of
/// that profile.
#[derive(Debug, Clone)]
pub struct ProfileModel {
    /// The profile.
    pub profile: Arc<VehicleProfile>,
    /// Its vehicle: dynamics, actuators, limits, integrator.
    pub vehicle: Arc<Vehicle>,
}

impl ProfileModel {
    /// Builds the vehicle of `profile`.
    pub fn new(profile: VehicleProfile) -> Self {
        let vehicle = Arc::new(Vehicle::from_profile(&profile));
        ProfileModel {
            profile: Arc::new(profile),
            vehicle,
        }
    }
}

/// Whether a vehicle of `profile` can be driven by `scheme`. Thrusters need
/// thrusters; fins need control surfaces or propellers; the force-level
/// schemes (forces, wrenches, body velocities, the waypoint PID) ask for
/// body wrenches that only thrusters produce in any direction, so they need
/// thrusters too.
pub fn vehicle_supports(profile: &VehicleProfile, scheme: ControlScheme) -> bool {
    match scheme {
        ControlScheme::Fins => {
            !(profile.control_surfaces.is_empty() && profile.propellers.is_empty())
        }
        s => s.main_auv_supports() && !profile.thrusters.is_empty(),
    }
}

/// The scheme a vehicle of `profile` starts under when none is asked:
/// `force_3d` where it has thrusters, else `fins`.
pub fn default_scheme(profile: &VehicleProfile) -> ControlScheme {
    if profile.thrusters.is_empty() {
        ControlScheme::Fins
    } else {
        ControlScheme::Force3d
    }
}

/// Contact geometry of a hull: a capsule along the body x axis, radius half
/// the larger of beam and height, the rest of the length its segment.
pub fn hull_capsule(profile: &VehicleProfile) -> (f64, f64) {
    match profile.dimensions_m {
        Some([l, b, h]) => {
            let r = b.max(h) / 2.0;
            (r, (l / 2.0 - r).max(0.0))
        }
        None => (0.3, 0.0),
    }
}

/// Where and how a new vehicle starts.
#[derive(Debug, Clone, Copy)]
pub struct VehicleSpawn {
    /// Position (user frame).
    pub position: User,
    /// Attitude.
    pub attitude: Attitude,
    /// The scheme that drives it.
    pub scheme: ControlScheme,
    /// Seed of its sensors' noise.
    pub seed: u64,
}

/// Spawns a vehicle of `pm`'s profile at rest, with the sensors its
/// definition declares.
pub fn spawn_vehicle(
    world: &mut World,
    h: &Handles,
    def: AgentDefinition,
    pm: &ProfileModel,
    at: VehicleSpawn,
) -> Entity {
    let (position, attitude, seed) = (at.position, at.attitude, at.seed);
    // A scenario's scheme the profile cannot take (force_3d on a vehicle
    // with fins only) falls back to the profile's own.
    let scheme = if vehicle_supports(&pm.profile, at.scheme) {
        at.scheme
    } else {
        default_scheme(&pm.profile)
    };
    let (e, row) = world.spawn_row();
    let (radius, half) = hull_capsule(&pm.profile);
    let ned = Ned::from(position).0;
    let q = attitude.0.quaternion();
    world.write(h.kind)[row] = Kind::Vehicle.code();
    world.write(h.position)[3 * row..3 * row + 3].copy_from_slice(ned.as_slice());
    world.write(h.attitude)[4 * row..4 * row + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
    world.write(h.radius)[row] = radius;
    world.write(h.half_length)[row] = half;
    let decls: Vec<(String, String)> = def
        .sensors
        .iter()
        .map(|d| (d.name().to_owned(), d.sensor_type().to_owned()))
        .collect();
    let mut sensors = SensorSuite::new(&def.agent_name, &decls, &pm.profile.sensors, seed);
    let dt = world.resource(h.clock).dt;
    for s in &mut sensors.sensors {
        s.set_tick(dt);
    }
    let size = pm.profile.dimensions_m.map_or(0.8, |d| d[0] / 2.0);
    world.objects_mut(h.vehicle)[row] = Some(VehicleParams {
        profile: pm.profile.clone(),
        vehicle: pm.vehicle.clone(),
        check_steps: crate::control::stiffness(&pm.vehicle.model, &pm.vehicle.limits, dt) > 1.0,
    });
    world.objects_mut(h.actuators)[row] = Some(pm.vehicle.actuators());
    world.objects_mut(h.command)[row] = Some(CommandSlot::default());
    world.objects_mut(h.pid)[row] = Some(PidState::default());
    world.objects_mut(h.contacts)[row] = Some(Vec::new());
    if !sensors.is_empty() {
        world.objects_mut(h.sensors)[row] = Some(sensors);
    }
    world.objects_mut(h.agent)[row] = Some(AgentMeta::new(def, scheme, size));
    e
}

/// Spawns a kinematic proxy at `position` (user frame).
pub fn spawn_proxy(
    world: &mut World,
    h: &Handles,
    def: AgentDefinition,
    motion: ProxyMotion,
    size_m: f64,
    position: User,
) -> Entity {
    let (e, row) = world.spawn_row();
    let ned = Ned::from(position).0;
    let q = Attitude::from(crate::frames::GodotRotation(def.rotation)).0;
    let q = q.quaternion();
    world.write(h.kind)[row] = Kind::Proxy.code();
    world.write(h.position)[3 * row..3 * row + 3].copy_from_slice(ned.as_slice());
    world.write(h.attitude)[4 * row..4 * row + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
    world.write(h.radius)[row] = size_m;
    world.write(h.half_length)[row] = 0.0;
    world.objects_mut(h.proxy)[row] = Some(motion);
    world.objects_mut(h.contacts)[row] = Some(Vec::new());
    world.objects_mut(h.agent)[row] =
        Some(AgentMeta::new(def, ControlScheme::ExternalVelocity, size_m));
    e
}

/// Reads an agent's pose: position (user frame) and attitude.
pub fn pose(world: &World, h: &Handles, e: Entity) -> Option<(User, Attitude)> {
    let row = world.row(e)?;
    let ned = Ned(crate::components::vec3_at(&world.read(h.position), row));
    let att = crate::components::quat_at(&world.read(h.attitude), row);
    Some((User::from(ned), Attitude(att)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_auv_stays_first_and_cannot_be_removed() {
        let (main, a, b) = (
            Entity::from_raw(0),
            Entity::from_raw(1),
            Entity::from_raw(2),
        );
        let mut r = Registry::new("auv/main", main);
        r.insert("a", a);
        r.insert("b", b);
        // `main()` reads the first entry: removing the main AUV would
        // make another agent the main one (or panic with none left).
        assert_eq!(r.remove("auv/main"), None);
        assert_eq!(r.remove("a"), Some(a));
        assert_eq!(r.remove("a"), None);
        assert_eq!((r.main(), r.entities()), (main, &[main, b][..]));
        assert_eq!(r.get("auv/main"), Some(main));
        assert!(matches!(r.agent("a"), Err(ProtocolError::UnknownAgent(n)) if n == "a"));
        // A name the registry holds for an entity the world does not.
        let world = World::new(0);
        assert!(matches!(
            r.agent_row(&world, "b"),
            Err(ProtocolError::UnknownAgent(_))
        ));
        assert!(matches!(
            row_of(&world, b),
            Err(ProtocolError::UnknownAgent(_))
        ));
    }
}
