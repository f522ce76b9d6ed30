//! Thruster banks: a thruster command runs through each vehicle's actuator
//! model (bounds, deadband, rate limit, failures) into a body wrench; any
//! other command passes its control wrench through while the bank relaxes
//! toward rest.

use crate::components::{names, Handles, Kind};
use crate::control::Command;
use oceansim_ecs::{Access, Step, System, World};

/// `actuators`.
pub struct Actuators(pub Handles);

impl System for Actuators {
    fn name(&self) -> &str {
        "actuators"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([names::KIND, names::COMMAND, names::TAU_CONTROL])
            .writes([names::THRUSTERS, names::TAU])
    }
    fn run(&mut self, w: &World, step: &Step) {
        let h = &self.0;
        let (kind, commands, control) =
            (w.read(h.kind), w.objects(h.command), w.read(h.tau_control));
        let mut banks = w.objects_mut(h.thrusters);
        let mut tau = w.write(h.tau);
        for row in 0..kind.len() {
            if kind[row] != Kind::Vehicle.code() {
                continue;
            }
            let (Some(slot), Some(bank)) = (&commands[row], &mut banks[row]) else {
                continue;
            };
            let out = &mut tau[6 * row..6 * row + 6];
            if let Command::Thrusters(cmd) = &slot.command {
                // Lengths were checked against this bank when the command came.
                let _ = bank.set_commands(cmd);
                out.copy_from_slice(bank.step(step.dt).as_slice());
            } else {
                if bank.commands().iter().any(|c| *c != 0.0) {
                    let _ = bank.set_commands(&vec![0.0; bank.len()]);
                }
                bank.step(step.dt);
                out.copy_from_slice(&control[6 * row..6 * row + 6]);
            }
        }
    }
}
