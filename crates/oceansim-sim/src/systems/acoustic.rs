//! Acoustic delivery: each message in flight is an entity; once its arrival
//! time has come, range is checked again between where the sender was when
//! it transmitted and where the receiver is now (a receiver that moved out
//! of range, or was removed, loses it),
//! it moves into its receiver's inbox (in arrival order, ties by message
//! id) and the entity is despawned at the end of the tick.

use crate::components::{names, Handles, Kind};
use oceansim_ecs::{Access, Step, System, World};

/// `acoustic_delivery`.
pub struct AcousticDelivery(pub Handles);

impl System for AcousticDelivery {
    fn name(&self) -> &str {
        "acoustic_delivery"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([
                names::KIND,
                names::MESSAGE,
                names::CLOCK,
                names::AGENT,
                names::POSITION,
            ])
            .write(names::ACOUSTIC)
    }
    fn run(&mut self, w: &World, _: &Step) {
        let h = &self.0;
        let kind = w.read(h.kind);
        if !kind.contains(&Kind::Message.code()) {
            return;
        }
        let now = w.resource(h.clock).time();
        let messages = w.objects(h.message);
        let mut due: Vec<usize> = (0..kind.len())
            .filter(|&row| {
                kind[row] == Kind::Message.code()
                    && messages[row]
                        .as_ref()
                        .is_some_and(|m| m.0.delivered_at <= now)
            })
            .collect();
        if due.is_empty() {
            return;
        }
        let key = |row: &usize| {
            messages[*row]
                .as_ref()
                .map(|m| (m.0.delivered_at, m.0.message_id))
        };
        due.sort_by(|a, b| {
            key(a)
                .partial_cmp(&key(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let (agents, position) = (w.objects(h.agent), w.read(h.position));
        let at = |name: &str| {
            agents
                .iter()
                .position(|a| a.as_ref().is_some_and(|a| a.def.agent_name == name))
                .map(|row| {
                    [
                        position[3 * row],
                        position[3 * row + 1],
                        position[3 * row + 2],
                    ]
                })
        };
        let mut channel = w.resource_mut(h.acoustic);
        for row in due {
            if let Some(m) = &messages[row] {
                // From where the sender was when it transmitted.
                let d = Some(m.1).zip(at(&m.0.receiver_id)).map(|(a, b)| {
                    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
                });
                channel.arrive(m.0.clone(), d);
            }
            w.defer_despawn(w.entity(row));
        }
    }
}
