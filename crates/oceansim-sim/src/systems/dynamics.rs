//! One vectorised Fossen system for every vehicle: each row is advanced by
//! the vehicles crate's RK4 step with that vehicle's own model (mass
//! matrix, damping, restoring terms from its own profile), the wrench the
//! actuators produced and the current at the vehicle.
//!
//! A step whose result is not plausible (not finite, or faster than any
//! vehicle moves: see [`crate::control::plausible`]) is not taken: the
//! vehicle keeps its previous state and the failure is listed in the
//! `faults` resource, so no input can turn the state into NaN. Where each
//! vehicle began the tick is kept for `contacts` to sweep it across the
//! tick.

use super::{state_at, vec3_at};
use crate::components::{names, Handles, Kind};
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
                names::TAU,
                names::CURRENT,
                names::VEHICLE,
                names::AGENT,
                names::CLOCK,
            ])
            .writes([
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
        let (kind, tau, cur, vehicles) = (
            w.read(h.kind),
            w.read(h.tau),
            w.read(h.current),
            w.objects(h.vehicle),
        );
        let (mut p, mut q, mut nu) = (w.write(h.position), w.write(h.attitude), w.write(h.nu));
        let (mut nu_dot, mut vel) = (w.write(h.nu_dot), w.write(h.velocity));
        let mut start = w.write(h.position_start);
        for row in 0..kind.len() {
            if kind[row] != Kind::Vehicle.code() {
                continue;
            }
            // Every vehicle row, moved or not: contacts sweep from here.
            start[3 * row..3 * row + 3].copy_from_slice(&p[3 * row..3 * row + 3]);
            let Some(v) = &vehicles[row] else { continue };
            let s = state_at(&p, &q, &nu, row);
            let t = Vector6::from_column_slice(&tau[6 * row..6 * row + 6]);
            let c = vec3_at(&cur, row);
            let next = v.model.rk4_step(&s, &t, &c, step.dt);
            if !crate::control::plausible(&next) {
                let name = w.objects(h.agent)[row]
                    .as_ref()
                    .map_or_else(String::new, |a| a.def.agent_name.clone());
                let time = w.resource(h.clock).time_after(step.index + 1);
                w.resource_mut(h.faults).diverge(name, time);
                nu_dot[6 * row..6 * row + 6].fill(0.0);
                continue;
            }
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
