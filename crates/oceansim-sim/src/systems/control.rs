//! The current each vehicle feels, and each vehicle's control law.

use crate::components::{names, Handles, Kind};
use crate::components::{state_at, vec3_at};
use crate::control::{control_wrench, Command, PidState, Plant};
use crate::frames::{Ned, User};
use oceansim_ecs::{Access, Step, System, World};

/// `ocean_current`: the scene's current at each vehicle (uniform today).
pub struct OceanCurrent(pub Handles);

impl System for OceanCurrent {
    fn name(&self) -> &str {
        "ocean_current"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([names::KIND, names::SCENE])
            .write(names::CURRENT)
    }
    fn run(&mut self, w: &World, _: &Step) {
        let h = &self.0;
        let c = Ned::from(User(w.resource(h.scene).current_user)).0;
        let kind = w.read(h.kind);
        let mut cur = w.write(h.current);
        for (row, k) in kind.iter().enumerate() {
            if *k == Kind::Vehicle.code() {
                cur[3 * row..3 * row + 3].copy_from_slice(c.as_slice());
            }
        }
    }
}

/// `vehicle_control`: each vehicle's command → the body wrench it asks for.
pub struct VehicleControl(pub Handles);

impl System for VehicleControl {
    fn name(&self) -> &str {
        "vehicle_control"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([
                names::KIND,
                names::COMMAND,
                names::VEHICLE,
                names::CURRENT,
                names::POSITION,
                names::ATTITUDE,
                names::NU,
            ])
            .writes([names::TAU_CONTROL, names::PID])
    }
    fn run(&mut self, w: &World, step: &Step) {
        let h = &self.0;
        let (kind, p, q, nu) = (
            w.read(h.kind),
            w.read(h.position),
            w.read(h.attitude),
            w.read(h.nu),
        );
        let (commands, vehicles, cur) = (
            w.objects(h.command),
            w.objects(h.vehicle),
            w.read(h.current),
        );
        let mut pids = w.objects_mut(h.pid);
        let mut tau = w.write(h.tau_control);
        for row in 0..kind.len() {
            let (Some(slot), Some(v)) = (&commands[row], &vehicles[row]) else {
                continue;
            };
            if kind[row] != Kind::Vehicle.code() {
                continue;
            }
            let pid = pids[row].get_or_insert_with(PidState::default);
            if matches!(slot.command, Command::Waypoint(_)) && pid.seq != slot.seq {
                *pid = PidState::new(slot.seq);
            }
            let state = state_at(&p, &q, &nu, row);
            let plant = Plant {
                state: &state,
                current_ned: vec3_at(&cur, row),
                vehicle: &v.vehicle,
            };
            let t = control_wrench(&slot.command, pid, plant, step.dt);
            tau[6 * row..6 * row + 6].copy_from_slice(t.as_slice());
        }
    }
}
