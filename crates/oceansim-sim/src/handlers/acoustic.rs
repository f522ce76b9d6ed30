//! Acoustic messages: `send_acoustic_message` puts a message entity in
//! flight; `configure_acoustic_comm` sets the channel;
//! `read_acoustic_inbox` reads (and by default clears) an inbox.

use super::{Outcome, Reply};
use crate::acoustic::{json_len, payload_size, MAX_AIR_TIME_S};
use crate::agents::{pose, row_of, Registry};
use crate::components::{Handles, Kind};
use oceansim_ecs::World;
use oceansim_protocol::payload::{AcousticConfig, AcousticMessage, ReadAcousticInbox};
use oceansim_protocol::reply::AcousticInbox;
use oceansim_protocol::ProtocolError;

/// `send_acoustic_message`.
pub(super) fn send(
    world: &mut World,
    h: &Handles,
    agents: &Registry,
    m: AcousticMessage,
) -> Outcome {
    let from = agents.agent(&m.sender_id)?;
    let to = agents.agent(&m.receiver_id)?;
    let (Some((a, _)), Some((b, _))) = (pose(world, h, from), pose(world, h, to)) else {
        return Err(ProtocolError::UnknownAgent(m.sender_id));
    };
    // Bounded by count and by bytes: 1,024 messages of 1 MB held a GB.
    world
        .resource(h.acoustic)
        .room_for(payload_size(&m.payload))
        .map_err(ProtocolError::InvalidMessage)?;
    let bits = json_len(&m.payload) as f64 * 8.0;
    let air = world.resource(h.acoustic).air_time(bits);
    let fits = air <= MAX_AIR_TIME_S;
    if !fits {
        return Err(ProtocolError::InvalidMessage(format!(
            "a {bits} bit message needs {air:.0} s of air time at the channel's bandwidth (at most {MAX_AIR_TIME_S} s)"
        )));
    }
    let d =
        ((a.0[0] - b.0[0]).powi(2) + (a.0[1] - b.0[1]).powi(2) + (a.0[2] - b.0[2]).powi(2)).sqrt();
    let origin = {
        let row = row_of(world, from)?;
        let p = world.read(h.position);
        [p[3 * row], p[3 * row + 1], p[3 * row + 2]]
    };
    let now = world.resource(h.clock).time();
    let (outcome, flight) = world.resource_mut(h.acoustic).send(
        &m.sender_id,
        &m.receiver_id,
        m.payload,
        d,
        origin,
        now,
    );
    if let Some(msg) = flight {
        let (_, row) = world.spawn_row();
        world.write(h.kind)[row] = Kind::Message.code();
        world.objects_mut(h.message)[row] = Some(msg);
    }
    Reply::ok(outcome)
}

/// `configure_acoustic_comm` (ranges validated by the codec).
pub(super) fn configure(world: &mut World, h: &Handles, c: AcousticConfig) -> Outcome {
    let mut channel = world.resource_mut(h.acoustic);
    channel.configure(&c);
    Reply::ok(channel.config_reply())
}

/// `read_acoustic_inbox`: an unknown agent is `unknown_agent` and nothing
/// is cleared.
pub(super) fn read_inbox(
    world: &mut World,
    h: &Handles,
    agents: &Registry,
    r: ReadAcousticInbox,
) -> Outcome {
    agents.agent(&r.agent_id)?;
    let clear = r.clear.unwrap_or(true);
    let mut channel = world.resource_mut(h.acoustic);
    let messages = if clear {
        channel.take_inbox(&r.agent_id)
    } else {
        channel.inbox(&r.agent_id)
    };
    Reply::ok(AcousticInbox {
        agent_id: r.agent_id,
        messages,
        cleared: clear,
    })
}
