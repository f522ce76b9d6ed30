//! Acoustic messages: `send_acoustic_message` puts a message entity in
//! flight; `configure_acoustic_comm` sets the channel;
//! `read_acoustic_inbox` reads (and by default clears) an inbox.

use super::{Outcome, Reply};
use crate::acoustic::{json_len, payload_size, MAX_AIR_TIME_S};
use crate::agents::pose;
use crate::components::Kind;
use crate::simulation::Simulation;
use oceansim_protocol::payload::{AcousticConfig, AcousticMessage, ReadAcousticInbox};
use oceansim_protocol::reply::AcousticInbox;
use oceansim_protocol::ProtocolError;

/// `send_acoustic_message`.
pub(super) fn send(sim: &mut Simulation, m: AcousticMessage) -> Outcome {
    let from = sim.agent(&m.sender_id)?;
    let to = sim.agent(&m.receiver_id)?;
    let (Some((a, _)), Some((b, _))) =
        (pose(&sim.world, &sim.h, from), pose(&sim.world, &sim.h, to))
    else {
        return Err(ProtocolError::UnknownAgent(m.sender_id));
    };
    // Bounded by count and by bytes: 1,024 messages of 1 MB held a GB.
    sim.world
        .resource(sim.h.acoustic)
        .room_for(payload_size(&m.payload))
        .map_err(ProtocolError::InvalidMessage)?;
    let bits = json_len(&m.payload) as f64 * 8.0;
    let air = sim.world.resource(sim.h.acoustic).air_time(bits);
    let fits = air <= MAX_AIR_TIME_S;
    if !fits {
        return Err(ProtocolError::InvalidMessage(format!(
            "a {bits} bit message needs {air:.0} s of air time at the channel's bandwidth (at most {MAX_AIR_TIME_S} s)"
        )));
    }
    let d =
        ((a.0[0] - b.0[0]).powi(2) + (a.0[1] - b.0[1]).powi(2) + (a.0[2] - b.0[2]).powi(2)).sqrt();
    let origin = {
        let row = sim.row_of(from)?;
        let p = sim.world.read(sim.h.position);
        [p[3 * row], p[3 * row + 1], p[3 * row + 2]]
    };
    let now = sim.sim_time();
    let (outcome, flight) = sim.world.resource_mut(sim.h.acoustic).send(
        &m.sender_id,
        &m.receiver_id,
        m.payload,
        d,
        origin,
        now,
    );
    if let Some(msg) = flight {
        let (_, row) = sim.world.spawn_row();
        sim.world.write(sim.h.kind)[row] = Kind::Message.code();
        sim.world.objects_mut(sim.h.message)[row] = Some(msg);
    }
    Reply::ok(&outcome)
}

/// `configure_acoustic_comm` (ranges validated by the codec).
pub(super) fn configure(sim: &mut Simulation, c: AcousticConfig) -> Outcome {
    let mut channel = sim.world.resource_mut(sim.h.acoustic);
    channel.configure(&c);
    Reply::ok(&channel.config_reply())
}

/// `read_acoustic_inbox`: an unknown agent is `unknown_agent` and nothing
/// is cleared.
pub(super) fn read_inbox(sim: &mut Simulation, r: ReadAcousticInbox) -> Outcome {
    sim.agent(&r.agent_id)?;
    let clear = r.clear.unwrap_or(true);
    let mut channel = sim.world.resource_mut(sim.h.acoustic);
    let messages = if clear {
        channel.take_inbox(&r.agent_id)
    } else {
        channel.inbox(&r.agent_id)
    };
    Reply::ok(&AcousticInbox {
        agent_id: r.agent_id,
        messages,
        cleared: clear,
    })
}
