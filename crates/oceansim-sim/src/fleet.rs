//! Fleet controllers on the simulator's own vehicles: the systems of
//! [`oceansim_swarm::fleet`] (autopilot, guidance, waypoints, formation)
//! added to the simulation's world, driving spawned (or scenario)
//! vehicles that the simulator's Fossen system steps.
//!
//! ```
//! use oceansim_sim::{SimConfig, Simulation};
//! use oceansim_swarm::fleet::{Autopilot, AutopilotGains};
//! let mut sim = Simulation::new(SimConfig { paused: true, ..SimConfig::default() }).unwrap();
//! let (layout, models) = sim.fleet(&["auv/main"]).unwrap();
//! sim.add_system(Autopilot::new(models, AutopilotGains::default()).with_layout(layout.clone()))
//!     .unwrap();
//! // Hold 2 m deeper than now.
//! let depth = sim.fleet_depth("auv/main").unwrap();
//! sim.set_fleet_refs("auv/main", Some(depth + 2.0), None, None).unwrap();
//! sim.tick(3000);
//! assert!((sim.fleet_depth("auv/main").unwrap() - (depth + 2.0)).abs() < 0.1);
//! ```
//!
//! The autopilot writes the vehicle's wrench where the protocol command's
//! would go, after it: while attached it overrides that vehicle's protocol
//! commands, except thruster commands (`set_thrusters`), whose outputs the
//! actuator model applies instead. A `reset` or new scenario builds a new world without the
//! added systems.

use crate::components::{names, Kind};
use crate::error::{Result, SimError};
use crate::simulation::Simulation;
use oceansim_ecs::System;
use oceansim_swarm::fleet::{FleetLayout, FleetModels};

/// Reference components the fleet controllers read and write in the
/// simulator's world (one row per entity, used by members only).
pub mod refs {
    /// Depth reference (m below the surface).
    pub const DEPTH: &str = "fleet_depth_ref";
    /// Heading reference (rad from north towards east).
    pub const HEADING: &str = "fleet_heading_ref";
    /// Surge speed reference (m/s).
    pub const SPEED: &str = "fleet_speed_ref";
    /// Desired horizontal velocity [north, east] (m/s).
    pub const V_DES: &str = "fleet_v_des";
}

impl Simulation {
    /// The layout and models for a fleet of the named vehicles (member k =
    /// `agents[k]`), registering the reference components on first use;
    /// each member's references start at its depth and heading, at rest.
    /// Unknown agents and proxies are errors.
    pub fn fleet(&mut self, agents: &[&str]) -> Result<(FleetLayout, FleetModels)> {
        let mut members = Vec::with_capacity(agents.len());
        let mut profiles = Vec::with_capacity(agents.len());
        for name in agents {
            let (e, row) = self
                .agent_row(name)
                .map_err(|_| SimError::Config(format!("no agent `{name}`")))?;
            let vehicle = self.world.objects(self.h.vehicle)[row].clone();
            match vehicle {
                Some(v) if v.vehicle.thruster_count() == 0 => {
                    return Err(SimError::Config(format!(
                        "`{name}` ({}) has no thrusters; the fleet autopilot commands body wrenches",
                        v.profile.name
                    )))
                }
                Some(v) if self.world.read(self.h.kind)[row] == Kind::Vehicle.code() => {
                    profiles.push((*v.profile).clone())
                }
                _ => {
                    return Err(SimError::Config(format!(
                        "`{name}` is a proxy; fleet controllers drive dynamic vehicles"
                    )))
                }
            }
            members.push((e, row));
        }
        for (name, dim) in [
            (refs::DEPTH, 0),
            (refs::HEADING, 0),
            (refs::SPEED, 0),
            (refs::V_DES, 2),
        ] {
            if !self.world.has(name) {
                let dims: &[usize] = if dim == 0 { &[] } else { &[2] };
                self.world.add(name, dims, None)?;
            }
        }
        for &(_, row) in &members {
            let (z, yaw) = {
                let (p, q) = (
                    self.world.read(self.h.position),
                    self.world.read(self.h.attitude),
                );
                let q = &q[4 * row..4 * row + 4];
                (
                    p[3 * row + 2],
                    (2.0 * (q[0] * q[3] + q[1] * q[2]))
                        .atan2(1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3])),
                )
            };
            self.world.get_mut::<f64>(refs::DEPTH)?[row] = z;
            self.world.get_mut::<f64>(refs::HEADING)?[row] = yaw;
            self.world.get_mut::<f64>(refs::SPEED)?[row] = 0.0;
        }
        let of_row: Vec<u32> = (0..profiles.len() as u32).collect();
        let models = FleetModels::new(&profiles, &of_row)?;
        let layout = FleetLayout {
            p: names::POSITION.into(),
            q: names::ATTITUDE.into(),
            nu: names::NU.into(),
            tau: names::TAU_CONTROL.into(),
            current: names::CURRENT.into(),
            depth_ref: refs::DEPTH.into(),
            heading_ref: refs::HEADING.into(),
            speed_ref: refs::SPEED.into(),
            v_des: refs::V_DES.into(),
            members: Some(members.iter().map(|&(e, _)| e).collect()),
            after: vec!["vehicle_control".into()],
        };
        Ok((layout, models))
    }

    /// Sets a member's references (m below the surface, rad from north,
    /// m/s); `None` keeps one. Needs [`Simulation::fleet`] first.
    pub fn set_fleet_refs(
        &mut self,
        agent: &str,
        depth_m: Option<f64>,
        heading_rad: Option<f64>,
        speed_m_s: Option<f64>,
    ) -> Result<()> {
        let (_, row) = self
            .agent_row(agent)
            .map_err(|_| SimError::Config(format!("no agent `{agent}`")))?;
        for (name, v) in [
            (refs::DEPTH, depth_m),
            (refs::HEADING, heading_rad),
            (refs::SPEED, speed_m_s),
        ] {
            if let Some(v) = v {
                if !v.is_finite() {
                    return Err(SimError::Config(format!("{name} must be finite, got {v}")));
                }
                self.world.get_mut::<f64>(name)?[row] = v;
            }
        }
        Ok(())
    }

    /// An agent's depth (m below the surface).
    pub fn fleet_depth(&self, agent: &str) -> Option<f64> {
        let row = self.world.row(self.agent(agent).ok()?)?;
        Some(self.world.read(self.h.position)[3 * row + 2])
    }

    /// Adds a system to the simulation's world: it runs every tick in the
    /// order its reads and writes imply, after the simulator's own systems
    /// otherwise. The schedule is rebuilt and checked here; if the system
    /// makes it invalid (a cycle, an unknown component) the error is
    /// returned and the simulation must be `reset` before it ticks again.
    pub fn add_system(&mut self, system: impl System + 'static) -> Result<()> {
        self.world.add_system(system)?;
        self.check_schedule()
    }
}
