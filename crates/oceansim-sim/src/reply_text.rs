//! State replies that carry sensor payloads: the payloads' pre-rendered
//! text (each sensor renders its latest sample once) is spliced into the
//! reply instead of being parsed and re-serialised.

use serde::Serialize;
use std::sync::Arc;

/// Pre-rendered payloads by name, in order.
#[derive(Debug, Clone, Default)]
pub struct RenderedSensors(pub Vec<(String, Arc<str>)>);

impl RenderedSensors {
    /// Appends them as one JSON object.
    pub fn write(&self, out: &mut String) {
        out.push('{');
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            // Names come from validated definitions; escape anyway.
            out.push_str(&serde_json::to_string(k).unwrap_or_else(|_| "\"\"".into()));
            out.push(':');
            out.push_str(v);
        }
        out.push('}');
    }

    /// Total bytes of the payloads.
    fn len(&self) -> usize {
        self.0.iter().map(|(k, v)| k.len() + v.len() + 4).sum()
    }
}

/// A reply whose last field is `sensors`: `head` is the reply serialised
/// with `sensors: null` (so its text ends in `null}`); the payloads take
/// that `null`'s place.
pub fn with_sensors<T: Serialize>(head: &T, sensors: &RenderedSensors) -> String {
    let text = serde_json::to_string(head).unwrap_or_else(|_| "{}".into());
    match text.strip_suffix("null}") {
        Some(prefix) => {
            let mut out = String::with_capacity(prefix.len() + sensors.len() + 2);
            out.push_str(prefix);
            sensors.write(&mut out);
            out.push('}');
            out
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensors_replace_the_trailing_null() {
        #[derive(Serialize)]
        struct Head {
            a: u8,
            sensors: (),
        }
        let s = RenderedSensors(vec![
            ("imu".into(), "{\"x\":1}".into()),
            ("d\"q".into(), "[]".into()),
        ]);
        let text = with_sensors(&Head { a: 1, sensors: () }, &s);
        assert_eq!(text, r#"{"a":1,"sensors":{"imu":{"x":1},"d\"q":[]}}"#);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["sensors"]["imu"]["x"], 1);
    }
}
