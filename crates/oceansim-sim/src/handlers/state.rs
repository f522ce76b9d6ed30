//! `get_state` and `get_sensors`.

use super::{Outcome, Reply};
use crate::agents::Registry;
use crate::bookkeeping::Revisions;
use crate::components::Handles;
use crate::ctx::StateView;
use crate::replies::{compact_state, full_state, sensor_payloads};
use crate::simulation::{main_row, Session};
use oceansim_ecs::World;
use oceansim_protocol::payload::{Detail, GetSensors, GetState};
use oceansim_protocol::reply::SensorsData;
use oceansim_protocol::{ProtocolError, Rendered};

/// The main AUV's state, full or compact.
pub(super) fn get_state(v: StateView<'_>, session: &mut Session, p: GetState) -> Outcome {
    state_reply(v, session, p.detail)
}

/// The state reply `get_state` and `step` share: the full state from the
/// cache `v` keeps, or the compact one for `session` (which then counts
/// its sensors as seen).
pub(super) fn state_reply(
    v: StateView<'_>,
    session: &mut Session,
    detail: Option<Detail>,
) -> Outcome {
    match detail.unwrap_or_default() {
        Detail::Full => Reply::state(full_state(v)),
        Detail::Compact => Reply::state(compact_state(v, session)),
    }
}

/// The main AUV's sensor payloads, all or those named. Asking renders
/// the on-demand sensors asked for, so it changes the world's sensors
/// (and the state's revision).
pub(super) fn get_sensors(
    world: &mut World,
    h: &Handles,
    agents: &Registry,
    revs: &mut Revisions,
    p: GetSensors,
) -> Outcome {
    let main = agents.main();
    if let Some(names) = &p.sensors {
        let row = main_row(world, agents);
        let suites = world.objects(h.sensors);
        let have: Vec<&str> = suites[row].as_ref().map(|s| s.names()).unwrap_or_default();
        if let Some(bad) = names.iter().find(|n| !have.contains(&n.as_str())) {
            return Err(ProtocolError::InvalidMessage(format!(
                "no sensor `{bad}` (active: {})",
                have.join(", ")
            )));
        }
    }
    let only = p.sensors.as_deref();
    let time = world.resource(h.clock).time();
    // Asking for an on-demand sensor (cameras, sonars) is what
    // makes it render: a fresh sample now if the last is a period old, and
    // at its rate for the next period.
    if let Some(row) = world.row(main) {
        let sampled = crate::systems::sample_on_request(world, h, row, time, |name| {
            only.is_none_or(|o| o.iter().any(|n| n == name))
        });
        if sampled {
            // Cached state replies hold the sensors' previous samples.
            revs.state += 1;
        }
    }
    let sensors = sensor_payloads(world, h, main, |name, _| {
        only.is_none_or(|o| o.iter().any(|n| n == name))
    });
    let head = SensorsData {
        sim_time: time,
        sensors: (),
    };
    Reply::state(Rendered::with_sensors(head, sensors))
}
