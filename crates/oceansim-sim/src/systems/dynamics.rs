//! One vectorised vehicle system: each row's command goes through its own
//! vehicle's actuators and dynamics in one [`Vehicle::step`] call
//! (thrusters, fins and propellers, forces at every integrator stage, the
//! profile's integrator, the plausibility guard), with the wrench the
//! control law asked for and the current at the vehicle.
//!
//! A step whose result is not plausible (not finite, or faster than any
//! vehicle moves) is not taken: the vehicle keeps its previous state and
//! the failure is listed in the `faults` resource, so no input can turn
//! the state into NaN. Where each vehicle began the tick is kept for
//! `contacts` to sweep it across the tick.
//!
//! [`Vehicle::step`]: oceansim_vehicles::Vehicle::step

use crate::components::{names, Handles, Kind};
use crate::components::{state_at, vec3_at};
use crate::control::Command;
use nalgebra::Vector6;
use oceansim_ecs::{Access, Step, System, World};

/// `fossen_dynamics`.
pub struct FossenDynamics(pub Handles);

impl System for FossenDynamics {
    fn name(&self) -> &str {
        "fossen_dynamics"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([
                names::KIND,
                names::COMMAND,
                names::TAU_CONTROL,
                names::CURRENT,
                names::VEHICLE,
                names::AGENT,
                names::CLOCK,
            ])
            .writes([
                names::ACTUATORS,
                names::TAU,
                names::POSITION,
                names::POSITION_START,
                names::ATTITUDE,
                names::NU,
                names::NU_DOT,
                names::VELOCITY,
                names::FAULTS,
            ])
    }
    fn run(&mut self, w: &World, step: &Step) {
        let h = &self.0;
        let (kind, control, cur, vehicles, commands) = (
            w.read(h.kind),
            w.read(h.tau_control),
            w.read(h.current),
            w.objects(h.vehicle),
            w.objects(h.command),
        );
        let mut actuators = w.objects_mut(h.actuators);
        let mut tau = w.write(h.tau);
        let (mut p, mut q, mut nu) = (w.write(h.position), w.write(h.attitude), w.write(h.nu));
        let (mut nu_dot, mut vel) = (w.write(h.nu_dot), w.write(h.velocity));
        let mut start = w.write(h.position_start);
        for row in 0..kind.len() {
            if kind[row] != Kind::Vehicle.code() {
                continue;
            }
            // Every vehicle row, moved or not: contacts sweep from here.
            start[3 * row..3 * row + 3].copy_from_slice(&p[3 * row..3 * row + 3]);
            let (Some(v), Some(act)) = (&vehicles[row], &mut actuators[row]) else {
                continue;
            };
            let idle = Command::Idle;
            let command = commands[row].as_ref().map_or(&idle, |s| &s.command);
            let wrench = Vector6::from_column_slice(&control[6 * row..6 * row + 6]);
            let s = state_at(&p, &q, &nu, row);
            let c = vec3_at(&cur, row);
            let next = v.vehicle.step(&s, act, command.drive(wrench), &c, step.dt);
            // What the actuators put on the hull, as reported and recorded.
            tau[6 * row..6 * row + 6].copy_from_slice(act.wrench.as_slice());
            let Some(next) = next else {
                let name = w.objects(h.agent)[row]
                    .as_ref()
                    .map_or_else(String::new, |a| a.def.agent_name.clone());
                let time = w.resource(h.clock).time();
                w.resource_mut(h.faults).diverge(name, row, time);
                nu_dot[6 * row..6 * row + 6].fill(0.0);
                continue;
            };
            p[3 * row..3 * row + 3].copy_from_slice(next.position_ned.as_slice());
            let nq = next.attitude.quaternion();
            q[4 * row..4 * row + 4].copy_from_slice(&[nq.w, nq.i, nq.j, nq.k]);
            nu[6 * row..6 * row + 6].copy_from_slice(next.nu.as_slice());
            let acc = (next.nu - s.nu) / step.dt;
            nu_dot[6 * row..6 * row + 6].copy_from_slice(acc.as_slice());
            vel[3 * row..3 * row + 3].copy_from_slice(next.velocity_ned().as_slice());
        }
    }
}
