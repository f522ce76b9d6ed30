//! Proxy agents: kinematic entities of an ECS world (position integrated
//! from a velocity that external commands or an autonomous patrol set).

use oceansim_agents::{AgentDefinition, CommandRecord};
use oceansim_ecs::{Access, Engine, Handle, Step, System, World};
use std::cell::RefCell;
use std::rc::Rc;

/// How a proxy moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProxyMode {
    /// Holds still.
    Idle,
    /// Follows the last `set_agent_velocity` (user frame, m/s).
    ExternalVelocity([f64; 3]),
    /// Circles its anchor at `speed` m/s, radius `radius` m.
    Patrol {
        /// Circle centre (user frame).
        anchor: [f64; 3],
        /// Radius (m).
        radius: f64,
        /// Speed (m/s).
        speed: f64,
    },
}

impl ProxyMode {
    /// Name reported as `mode`.
    pub fn name(&self) -> &'static str {
        match self {
            ProxyMode::Idle => "idle",
            ProxyMode::ExternalVelocity(_) => "external_velocity",
            ProxyMode::Patrol { .. } => "patrol",
        }
    }
}

/// One proxy's record (the ECS world holds its position and velocity).
#[derive(Debug, Clone)]
pub struct Proxy {
    /// Its definition.
    pub def: AgentDefinition,
    /// Motion.
    pub mode: ProxyMode,
    /// Footprint radius (m).
    pub size_m: f64,
    /// Depth limits (m, positive down).
    pub depth_min: Option<f64>,
    /// Deepest allowed depth.
    pub depth_max: Option<f64>,
    /// Last command received.
    pub last_command: Option<CommandRecord>,
    /// When (s).
    pub last_command_time: Option<f64>,
}

/// Proxy records shared between the simulation and the motion system.
pub type SharedProxies = Rc<RefCell<Vec<Proxy>>>;

/// Sets each proxy's velocity from its mode, keeping it within its depth
/// limits over the coming tick.
struct ProxyMotion {
    records: SharedProxies,
    h: Option<(Handle<f64>, Handle<f64>)>,
}

impl System for ProxyMotion {
    fn name(&self) -> &str {
        "proxy_motion"
    }
    fn access(&self) -> Access {
        Access::new().read("pos").write("vel")
    }
    fn init(&mut self, w: &World) -> oceansim_ecs::Result<()> {
        self.h = Some((w.handle("pos")?, w.handle("vel")?));
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let Some((ph, vh)) = self.h else { return };
        let p = w.read(ph);
        let mut v = w.write(vh);
        for (i, rec) in self.records.borrow().iter().enumerate() {
            let pos = [p[3 * i], p[3 * i + 1], p[3 * i + 2]];
            let mut vel = match rec.mode {
                ProxyMode::Idle => [0.0; 3],
                ProxyMode::ExternalVelocity(u) => u,
                ProxyMode::Patrol {
                    anchor,
                    radius,
                    speed,
                } => {
                    let (dx, dy) = (pos[0] - anchor[0], pos[1] - anchor[1]);
                    let r = dx.hypot(dy).max(1e-9);
                    // Counter-clockwise tangent plus a pull back to the circle.
                    let (tx, ty) = (-dy / r, dx / r);
                    let k = (radius - r) * 0.5;
                    [
                        speed * tx + k * dx / r,
                        speed * ty + k * dy / r,
                        (anchor[2] - pos[2]) * 0.5,
                    ]
                }
            };
            let z_next = pos[2] + vel[2] * step.dt;
            if let Some(dmin) = rec.depth_min {
                if z_next > -dmin {
                    vel[2] = (-dmin - pos[2]).min(0.0) / step.dt;
                }
            }
            if let Some(dmax) = rec.depth_max {
                if z_next < -dmax {
                    vel[2] = (-dmax - pos[2]).max(0.0) / step.dt;
                }
            }
            v[3 * i..3 * i + 3].copy_from_slice(&vel);
        }
    }
}

/// The proxies' world (rebuilt when agents join or leave).
pub struct Proxies {
    /// Records, in entity order.
    pub records: SharedProxies,
    world: World,
    engine: Engine,
    dt: f64,
}

impl std::fmt::Debug for Proxies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxies")
            .field("n", &self.world.len())
            .finish()
    }
}

fn build(
    records: &SharedProxies,
    pos: &[f64],
    dt: f64,
) -> Result<(World, Engine), oceansim_ecs::EcsError> {
    let n = records.borrow().len();
    let mut world = World::new(n);
    world.add_state_with_derivative("pos", &[3], Some(pos), None, "vel")?;
    world.add("vel", &[3], None)?;
    world.add_system(ProxyMotion {
        records: records.clone(),
        h: None,
    })?;
    let mut engine = Engine::new(dt);
    engine.run(&mut world, 0)?;
    Ok((world, engine))
}

impl Proxies {
    /// No proxies.
    pub fn new(dt: f64) -> Self {
        let records: SharedProxies = Rc::new(RefCell::new(Vec::new()));
        let (world, engine) = build(&records, &[], dt).expect("an empty proxy world is valid");
        Proxies {
            records,
            world,
            engine,
            dt,
        }
    }

    /// Number of proxies.
    pub fn len(&self) -> usize {
        self.records.borrow().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of a proxy by name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.records
            .borrow()
            .iter()
            .position(|p| p.def.agent_name == name)
    }

    /// Positions (user frame), flat.
    pub fn positions(&self) -> Vec<f64> {
        self.world
            .get::<f64>("pos")
            .map(|p| p.to_vec())
            .unwrap_or_default()
    }

    /// Velocities of the last tick (user frame), flat.
    pub fn velocities(&self) -> Vec<f64> {
        self.world
            .get::<f64>("vel")
            .map(|p| p.to_vec())
            .unwrap_or_default()
    }

    fn rebuild(&mut self, pos: Vec<f64>) {
        let (world, engine) =
            build(&self.records, &pos, self.dt).expect("proxy world wiring is static");
        self.world = world;
        self.engine = engine;
    }

    /// Adds a proxy at `pos` (user frame).
    pub fn add(&mut self, proxy: Proxy, pos: [f64; 3]) {
        let mut all = self.positions();
        all.extend_from_slice(&pos);
        self.records.borrow_mut().push(proxy);
        self.rebuild(all);
    }

    /// Removes proxy `i`.
    pub fn remove(&mut self, i: usize) {
        let mut all = self.positions();
        all.drain(3 * i..3 * i + 3);
        self.records.borrow_mut().remove(i);
        self.rebuild(all);
    }

    /// Removes every proxy.
    pub fn clear(&mut self) {
        self.records.borrow_mut().clear();
        self.rebuild(Vec::new());
    }

    /// Teleports proxy `i` (user frame).
    pub fn set_position(&mut self, i: usize, pos: [f64; 3]) {
        if let Ok(mut p) = self.world.get_mut::<f64>("pos") {
            p[3 * i..3 * i + 3].copy_from_slice(&pos);
        }
    }

    /// Advances `ticks` ticks.
    pub fn tick(&mut self, ticks: u64) {
        if ticks > 0 && !self.is_empty() {
            if let Err(e) = self.engine.run(&mut self.world, ticks) {
                tracing::error!("proxy tick failed: {e}");
            }
        }
    }
}
