//! Everything that happens in a tick, as systems of one schedule,
//! declared once in [`TICK`]: each system's name and what it does, in the
//! order they run. [`register`] adds them in that order, each after the
//! one before (the ECS scheduler refuses a declared order that their
//! reads and writes contradict); [`SCHEDULE`], the order `describe()`
//! prints and the tick's table in `docs/architecture.md` all come from
//! it, and a test holds each to it. Each system declares what it reads
//! and writes; debug builds check that it touches nothing else.
//!
//! [`Vehicle::step`]: oceansim_vehicles::Vehicle::step

mod acoustic;
mod bookkeeping;
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
use oceansim_ecs::{Access, Step, System, World};

/// One system of the tick: its name and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    /// The system's name.
    pub name: &'static str,
    /// What it does, in a line.
    pub does: &'static str,
}

/// The tick, declared once: its systems in the order they run.
pub const TICK: [Stage; 11] = [
    Stage {
        name: "advance_clock",
        does: "the clock counts the tick: every system after it reads the time at the tick's end",
    },
    Stage {
        name: "apply_commands",
        does: "commands written by requests (and idles of failed vehicles) become active",
    },
    Stage {
        name: "ocean_current",
        does: "the current at each vehicle",
    },
    Stage {
        name: "vehicle_control",
        does: "command -> body wrench (force, wrench, velocity by computed torque, waypoint PID), within what the thrusters give",
    },
    Stage {
        name: "fossen_dynamics",
        does: "every vehicle's Vehicle::step: thrusters, fins and propellers, the dynamics integrated with the forces at every stage, the guard (a state that would not be finite is kept and listed in faults)",
    },
    Stage {
        name: "proxy_motion",
        does: "kinematic proxies move (idle, external velocity, patrol), within their depth bounds",
    },
    Stage {
        name: "contacts",
        does: "nothing passes through terrain, obstacles, agents, the map edge or the surface (swept, then projected)",
    },
    Stage {
        name: "acoustic_delivery",
        does: "messages that arrived reach their inboxes (range re-checked on arrival; delivered messages despawn at the tick's end)",
    },
    Stage {
        name: "sensing",
        does: "every sensor whose rate is due samples (imaging renders handed to the render pool while a recording keeps them)",
    },
    Stage {
        name: "recorder",
        does: "sensor sequences each tick; one frame per recording period",
    },
    Stage {
        name: "idle_faulted",
        does: "a vehicle whose dynamics failed this tick goes idle (its command applied at the next tick)",
    },
];

/// Names of the systems, in the order they run (from [`TICK`]).
pub const SCHEDULE: [&str; TICK.len()] = {
    let mut names = [""; TICK.len()];
    let mut i = 0;
    while i < TICK.len() {
        names[i] = TICK[i].name;
        i += 1;
    }
    names
};

/// A system of [`TICK`], ordered after the one before it.
struct InOrder {
    system: Box<dyn System>,
    stage: Stage,
    after: Option<&'static str>,
}

impl System for InOrder {
    fn name(&self) -> &str {
        self.stage.name
    }
    fn access(&self) -> Access {
        let access = self.system.access();
        match self.after {
            Some(before) => access.after(before),
            None => access,
        }
    }
    fn doc(&self) -> &str {
        self.stage.does
    }
    fn init(&mut self, world: &World) -> oceansim_ecs::Result<()> {
        self.system.init(world)
    }
    fn run(&mut self, world: &World, step: &Step) {
        self.system.run(world, step)
    }
    fn monitors(&mut self) -> Vec<oceansim_ecs::Monitor> {
        self.system.monitors()
    }
    fn tracked(&mut self) -> Vec<oceansim_ecs::Tracked> {
        self.system.tracked()
    }
    fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        self.system.params()
    }
}

/// Adds every system of [`TICK`] to `world`, in its order.
pub fn register(world: &mut World, h: &Handles) -> oceansim_ecs::Result<()> {
    let render_unasked = sensing::render_unasked(world, h);
    let systems: [Box<dyn System>; TICK.len()] = [
        Box::new(bookkeeping::AdvanceClock(*h)),
        Box::new(commands::ApplyCommands(*h)),
        Box::new(control::OceanCurrent(*h)),
        Box::new(control::VehicleControl(*h)),
        Box::new(dynamics::FossenDynamics(*h)),
        Box::new(proxies::ProxyMotionSystem(*h)),
        Box::new(contacts::Contacts::new(*h)),
        Box::new(acoustic::AcousticDelivery(*h)),
        Box::new(sensing::Sensing::new(*h, render_unasked)),
        Box::new(recorder::RecorderSystem(*h)),
        Box::new(bookkeeping::IdleFaulted(*h)),
    ];
    let mut before = None;
    for (system, stage) in systems.into_iter().zip(TICK) {
        if system.name() != stage.name {
            return Err(oceansim_ecs::EcsError::Invalid(format!(
                "the tick declares `{}` where `{}` is registered",
                stage.name,
                system.name()
            )));
        }
        world.add_system(InOrder {
            system,
            stage,
            after: before,
        })?;
        before = Some(stage.name);
    }
    Ok(())
}
