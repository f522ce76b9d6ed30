//! The recorder: every tick it notes the sensor samples taken; at the end
//! of each control period it records one frame of every agent, for export.

use crate::components::{names, Handles, Kind};
use crate::components::{quat_at, vec3_at};
use crate::frames::{Attitude, Ned, User};
use nalgebra::UnitQuaternion;
use oceansim_dataset::ImuBias;
use oceansim_ecs::{Access, Step, System, World};
use oceansim_record::{AgentFrame, Sample};

/// `recorder`.
pub struct RecorderSystem(pub Handles);

/// The attitude as body FLU (x forward, y left, z up; REP 103) → user
/// world (x east, y north, z up), `[x, y, z, w]`: the orientation that
/// goes with user-frame positions in trajectory files (the dataset crate's
/// conversion, so recorded and offline-recorded runs agree).
pub(crate) fn user_quaternion_xyzw(att: &UnitQuaternion<f64>) -> [f64; 4] {
    let q = att.quaternion();
    oceansim_dataset::flu_to_user([q.i, q.j, q.k, q.w])
}

/// Notes every vehicle's buffered sensor samples (the new ones wait for the
/// next frame).
pub(crate) fn note_sensors(w: &World, h: &Handles) {
    let suites = w.objects(h.sensors);
    let mut rec = w.resource_mut(h.recorder);
    for (row, suite) in suites.iter().enumerate() {
        let Some(suite) = suite else { continue };
        let id = w.entity(row).id();
        for s in &suite.sensors {
            rec.note_sensor(id, &s.name, s.sequence(), s.slots());
        }
    }
}

/// Records one frame of `w` at `time` (s): every agent, the main AUV
/// first, the others in joining order.
pub(crate) fn record(w: &World, h: &Handles, time: f64) {
    note_sensors(w, h);
    let (kind, p, q, nu, v) = (
        w.read(h.kind),
        w.read(h.position),
        w.read(h.attitude),
        w.read(h.nu),
        w.read(h.velocity),
    );
    let velocity = crate::components::VelocityColumns {
        kind: &kind,
        position: &p,
        attitude: &q,
        nu: &nu,
        velocity: &v,
    };
    let agents = w.objects(h.agent);
    let actuators = w.objects(h.actuators);
    let suites = w.objects(h.sensors);
    let user = |a: &[f64], row: usize| User::from(Ned(vec3_at(a, row))).0;
    // (main first, entity id: ids grow with every spawn), row.
    let mut rows: Vec<((bool, u64), usize)> = (0..kind.len())
        .filter(|&row| Kind::is_agent(kind[row]) && agents[row].is_some())
        .map(|row| {
            let main = agents[row].as_ref().is_some_and(|m| m.def.is_main_agent);
            ((!main, w.entity(row).id()), row)
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    if rows.first().is_none_or(|((other, _), _)| *other) {
        return;
    }
    let mut rec = w.resource_mut(h.recorder);
    rec.retain_entities(|id| rows.iter().any(|((_, e), _)| *e == id));
    let mut slots = Vec::with_capacity(rows.len());
    let frames = rows
        .iter()
        .filter_map(|&((_, id), row)| {
            let meta = agents[row].as_ref()?;
            let att = quat_at(&q, row);
            let mut body_velocity = [0.0; 6];
            body_velocity.copy_from_slice(&nu[6 * row..6 * row + 6]);
            let (sensor_sequences, sensors) = rec.take_sensors(id);
            // The samples join the frame once rendered (the recorder
            // holds it until then).
            slots.push(sensors);
            let act = actuators[row].as_ref();
            Some(AgentFrame {
                name: rec.name_of(id, &meta.def.agent_name),
                vehicle: kind[row] == Kind::Vehicle.code(),
                position: user(&p, row),
                quaternion_xyzw: user_quaternion_xyzw(&att),
                velocity: velocity.user_velocity(row),
                body_velocity,
                heading_deg: Attitude(att).heading_deg(),
                fin_angles_rad: act.map(|a| a.fin_angles_rad.clone()).unwrap_or_default(),
                propeller_rpm: act.map(|a| a.propeller_rpm.clone()).unwrap_or_default(),
                imu_bias: suites[row]
                    .as_ref()
                    .and_then(|s| s.sensors.iter().find_map(|s| s.imu_bias()))
                    .map(ImuBias::from_frd),
                command: meta.last_command_entry.clone(),
                sensor_sequences,
                sensors: Vec::new(),
            })
        })
        .collect();
    let frame = rec.next_frame();
    rec.push_with_slots(
        Sample {
            frame,
            time,
            agents: frames,
        },
        slots,
    );
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
                names::POSITION,
                names::ATTITUDE,
                names::NU,
                names::VELOCITY,
                names::CONTACTS,
                names::SENSORS,
                names::ACTUATORS,
            ])
            .write(names::RECORDER)
    }
    fn run(&mut self, w: &World, _: &Step) {
        let h = &self.0;
        let (tick, time, every) = {
            let c = w.resource(h.clock);
            (c.tick, c.time(), c.record_ticks)
        };
        if tick.is_multiple_of(every) {
            record(w, h, time);
        } else {
            // Sensor buffers are short: note what they took every tick, so
            // a frame lists every sample however long the control period.
            note_sensors(w, h);
        }
    }
}
