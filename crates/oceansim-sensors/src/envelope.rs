//! The payload envelope of a sensor (`oceansim_sensor_payload`, schema
//! version 2): its constant fields rendered once per sensor, a sample's
//! fields appended per sample.

use super::SensorSample;
use oceansim_protocol::reply::{
    Covariance, SensorPayload, SENSOR_SCHEMA_NAME, SENSOR_SCHEMA_VERSION,
};
use std::sync::Arc;

/// The envelope fields that never change.
#[derive(Debug, Clone)]
pub(super) struct Header {
    /// The envelope's constant fields as JSON: `{"enabled":true, ...,
    /// "covariance":{...}` (open: the sample's fields follow).
    pub(super) prefix: String,
    pub(super) sensor_type: &'static str,
    pub(super) frame_id: String,
    pub(super) sensor_frame_id: String,
    pub(super) noise_seed: u64,
    pub(super) extrinsic_xyz_rpy: [f64; 6],
    pub(super) extrinsic_quat_xyzw: [f64; 4],
    pub(super) variance: f64,
    pub(super) fields: std::collections::BTreeMap<String, Vec<f64>>,
}

impl Header {
    /// The payload of an on-demand sensor that nobody asked for yet.
    pub(super) fn on_demand_stub(&self) -> Arc<str> {
        let mut stub = self.envelope(0.0, 0.0, 0, ());
        stub.status = "on_demand".into();
        crate::milli::to_string_milli(&stub).into()
    }

    /// The typed envelope of a sample at `t` with `reading`.
    pub(super) fn envelope<R>(
        &self,
        t: f64,
        wall: f64,
        sequence: u64,
        reading: R,
    ) -> SensorPayload<R> {
        SensorPayload {
            enabled: true,
            status: "ok".into(),
            schema_name: SENSOR_SCHEMA_NAME.into(),
            schema_version: SENSOR_SCHEMA_VERSION,
            sensor_type: self.sensor_type.into(),
            frame_id: self.frame_id.clone(),
            sensor_frame_id: self.sensor_frame_id.clone(),
            parent_frame_id: self.frame_id.clone(),
            noise_seed: self.noise_seed,
            extrinsic_xyz_rpy: self.extrinsic_xyz_rpy,
            extrinsic_quat_xyzw: self.extrinsic_quat_xyzw,
            covariance: Covariance {
                convention: "diagonal_variance".into(),
                diagonal: vec![self.variance; 3],
                fields: self.fields.clone(),
            },
            sim_time: t,
            timestamp_sim: t,
            timestamp_wall: wall,
            timestamp: t,
            sequence,
            reading,
        }
    }

    /// The JSON of `sample`'s envelope: the same bytes as serialising
    /// [`Header::envelope`], from the pre-rendered constant fields.
    pub(super) fn render(&self, sample: &SensorSample) -> String {
        let mut out = Vec::with_capacity(self.prefix.len() + 4096);
        out.extend_from_slice(self.prefix.as_bytes());
        let (t, wall) = (sample.time, sample.wall_time);
        for (key, v) in [
            ("sim_time", t),
            ("timestamp_sim", t),
            ("timestamp_wall", wall),
            ("timestamp", t),
        ] {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            // Writing to a Vec cannot fail.
            let _ = crate::milli::write_f64(&mut out, v);
        }
        out.extend_from_slice(b",\"sequence\":");
        out.extend_from_slice(itoa::Buffer::new().format(sample.sequence).as_bytes());
        // The reading's fields continue the object: its `{` becomes a comma.
        let at = out.len();
        crate::milli::write_milli(&mut out, &sample.reading);
        if out.len() == at + 2 {
            out.truncate(at);
            out.push(b'}');
        } else {
            out[at] = b',';
        }
        String::from_utf8(out).unwrap_or_default()
    }
}
