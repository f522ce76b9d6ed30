//! The recorder: at the end of each control period, one sample of the main
//! AUV and every other agent, for export.

use super::{quat_at, vec3_at};
use crate::components::{names, Handles, Kind};
use crate::frames::{Attitude, Ned, User};
use crate::recorder::Sample;
use oceansim_ecs::{Access, Step, System, World};

/// `recorder`.
pub struct RecorderSystem(pub Handles);

/// Records one sample of `w` at `time` (s).
pub(crate) fn record(w: &World, h: &Handles, time: f64) {
    let (kind, p, q, v) = (
        w.read(h.kind),
        w.read(h.position),
        w.read(h.attitude),
        w.read(h.velocity),
    );
    let agents = w.objects(h.agent);
    let user = |a: &[f64], row: usize| User::from(Ned(vec3_at(a, row))).0;
    let mut main = None;
    // Others in joining order: entity ids grow with every spawn.
    let mut others: Vec<(u64, String, [f64; 3])> = Vec::new();
    for row in 0..kind.len() {
        let Some(meta) = agents[row].as_ref().filter(|_| Kind::is_agent(kind[row])) else {
            continue;
        };
        if meta.def.is_main_agent {
            main = Some((row, meta));
        } else {
            others.push((
                w.entity(row).id(),
                meta.def.agent_name.clone(),
                user(&p, row),
            ));
        }
    }
    let Some((row, meta)) = main else { return };
    others.sort_by_key(|o| o.0);
    let att = quat_at(&q, row);
    let sample = Sample {
        time,
        position: user(&p, row),
        velocity: user(&v, row),
        heading_deg: Attitude(att).heading_deg(),
        command: meta.last_command.clone(),
        agents: others.into_iter().map(|(_, n, pos)| (n, pos)).collect(),
    };
    w.resource_mut(h.recorder).push(sample);
}

impl System for RecorderSystem {
    fn name(&self) -> &str {
        "recorder"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([
                names::KIND,
                names::CLOCK,
                names::AGENT,
                names::VELOCITY,
                names::CONTACTS,
                names::SENSORS,
            ])
            .write(names::RECORDER)
    }
    fn run(&mut self, w: &World, step: &Step) {
        let h = &self.0;
        let (tick, time, every) = {
            let c = w.resource(h.clock);
            (
                c.tick + step.index + 1,
                c.time_after(step.index + 1),
                c.step_ticks,
            )
        };
        if tick.is_multiple_of(every) {
            record(w, h, time);
        }
    }
}
