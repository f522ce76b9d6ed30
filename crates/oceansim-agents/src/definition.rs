//! Agent definitions: the serialisable description of a runtime agent.

use crate::error::{AgentError, Problem, Result};
use crate::scheme::{normalize_control_scheme, ControlScheme};
use oceansim_protocol::payload::value_kind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Version of the agent definition format written by [`AgentDefinition::to_json`].
pub const AGENT_SCHEMA_VERSION: u64 = 1;

/// Name of the scene-owned physical AUV.
pub const MAIN_AGENT_NAME: &str = "auv/main";

/// A sensor declaration: a bare name (`"dvl"`) or a typed dictionary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SensorDecl {
    /// A sensor name; its type is the name.
    Name(String),
    /// `{"name": ..., "sensor_type": ..., ...}` with any extra settings.
    Typed {
        /// Sensor name, unique per agent.
        name: String,
        /// Sensor family, e.g. `lidar_3d`.
        sensor_type: String,
        /// Other settings (rate, extrinsics, noise, ...).
        #[serde(flatten)]
        settings: Map<String, Value>,
    },
}

impl SensorDecl {
    /// The sensor's name.
    pub fn name(&self) -> &str {
        match self {
            SensorDecl::Name(n) => n,
            SensorDecl::Typed { name, .. } => name,
        }
    }

    /// The sensor's family.
    pub fn sensor_type(&self) -> &str {
        match self {
            SensorDecl::Name(n) => n,
            SensorDecl::Typed { sensor_type, .. } => sensor_type,
        }
    }
}

/// Serialisable description of a runtime agent (the spec's `AgentDefinition`).
///
/// Poses are in Godot world coordinates (Y up): `location` in m, `rotation`
/// as Euler angles in degrees, as scenario files write them.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    /// Format version (read as given, written as [`AGENT_SCHEMA_VERSION`]).
    pub schema_version: u64,
    /// Stable runtime identifier, e.g. `auv/main` or `target_01`.
    pub agent_name: String,
    /// Logical type: `main_auv`, `proxy_auv`, `auv`, ...
    pub agent_type: String,
    /// Binds to the scene-owned AUV (`true`) or spawns a proxy (`false`).
    pub is_main_agent: bool,
    /// Vehicle or runtime profile name.
    pub profile: Option<String>,
    /// Initial position (m, Godot world), default `[0, 0, 0]`.
    pub location: [f64; 3],
    /// Initial Euler rotation (degrees, Godot), default `[0, 0, 0]`.
    pub rotation: [f64; 3],
    /// Action contract.
    pub control_scheme: ControlScheme,
    /// Sensor declarations.
    pub sensors: Vec<SensorDecl>,
    /// Role, semantic label, tags and experiment annotations.
    pub metadata: Map<String, Value>,
}

impl AgentDefinition {
    /// A definition with defaults: a main agent for [`MAIN_AGENT_NAME`], a
    /// `proxy_auv` otherwise; `force_3d` for the main agent and
    /// `external_velocity` for proxies.
    pub fn new(agent_name: impl Into<String>) -> Self {
        let agent_name = agent_name.into();
        let main = agent_name == MAIN_AGENT_NAME;
        AgentDefinition {
            schema_version: AGENT_SCHEMA_VERSION,
            agent_type: if main { "main_auv" } else { "proxy_auv" }.into(),
            is_main_agent: main,
            profile: None,
            location: [0.0; 3],
            rotation: [0.0; 3],
            control_scheme: if main {
                ControlScheme::Force3d
            } else {
                ControlScheme::ExternalVelocity
            },
            sensors: Vec::new(),
            metadata: Map::new(),
            agent_name,
        }
    }

    /// Sets the control scheme.
    pub fn with_control_scheme(mut self, scheme: ControlScheme) -> Self {
        self.control_scheme = scheme;
        self
    }

    /// Sets the initial location (m, Godot world).
    pub fn with_location(mut self, location: [f64; 3]) -> Self {
        self.location = location;
        self
    }

    /// The `role` metadata entry, if any.
    pub fn role(&self) -> Option<&str> {
        self.metadata.get("role").and_then(Value::as_str)
    }

    /// The `semantic_label` metadata entry, if any.
    pub fn semantic_label(&self) -> Option<&str> {
        self.metadata.get("semantic_label").and_then(Value::as_str)
    }

    /// The `tags` metadata entry (string items only).
    pub fn tags(&self) -> Vec<String> {
        self.metadata
            .get("tags")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Builds a definition from a JSON object, accepting the aliases
    /// `id`/`name` for `agent_name` and `position` for `location`, and
    /// filling defaults for omitted fields. Every problem is reported, each
    /// naming its field.
    pub fn from_json(value: &Value) -> Result<Self> {
        let mut problems = Vec::new();
        let def = parse_definition(value, "", &mut problems);
        match def {
            Some(d) if problems.is_empty() => Ok(d),
            _ => Err(AgentError::Invalid(problems)),
        }
    }

    /// The versioned JSON form, suitable for scenario files or `spawn_agent`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("schema_version".into(), AGENT_SCHEMA_VERSION.into());
        m.insert("agent_name".into(), self.agent_name.clone().into());
        m.insert("agent_type".into(), self.agent_type.clone().into());
        m.insert("is_main_agent".into(), self.is_main_agent.into());
        if let Some(p) = &self.profile {
            m.insert("profile".into(), p.clone().into());
        }
        m.insert("location".into(), self.location.to_vec().into());
        m.insert("rotation".into(), self.rotation.to_vec().into());
        m.insert("control_scheme".into(), self.control_scheme.as_str().into());
        m.insert(
            "sensors".into(),
            serde_json::to_value(&self.sensors).unwrap_or(Value::Array(vec![])),
        );
        m.insert("metadata".into(), Value::Object(self.metadata.clone()));
        Value::Object(m)
    }
}

fn push(problems: &mut Vec<Problem>, prefix: &str, field: &str, message: impl Into<String>) {
    let path = if prefix.is_empty() {
        field.to_owned()
    } else if field.is_empty() {
        prefix.to_owned()
    } else {
        format!("{prefix}.{field}")
    };
    problems.push(Problem {
        path,
        message: message.into(),
    });
}

/// Reads a 3-vector of finite numbers, recording a problem otherwise.
pub(crate) fn vec3(
    v: &Value,
    prefix: &str,
    field: &str,
    problems: &mut Vec<Problem>,
) -> Option<[f64; 3]> {
    let bad = |problems: &mut Vec<Problem>, what: String| {
        push(
            problems,
            prefix,
            field,
            format!("expected 3 finite numbers, got {what}"),
        );
        None
    };
    let Value::Array(items) = v else {
        return bad(problems, value_kind(v).into());
    };
    if items.len() != 3 {
        return bad(problems, format!("{} values", items.len()));
    }
    let mut out = [0.0; 3];
    for (slot, item) in out.iter_mut().zip(items) {
        match item.as_f64() {
            Some(x) if x.is_finite() => *slot = x,
            _ => return bad(problems, format!("an entry that is {}", value_kind(item))),
        }
    }
    Some(out)
}

/// Field lookup honouring aliases; two spellings of one field is a problem.
fn field<'a>(
    obj: &'a Map<String, Value>,
    names: &[&str],
    prefix: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'a Value> {
    let present: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| obj.contains_key(*n))
        .collect();
    if present.len() > 1 {
        push(
            problems,
            prefix,
            present[0],
            format!("given twice, as {}", present.join(" and ")),
        );
    }
    present
        .first()
        .and_then(|n| obj.get(*n))
        .filter(|v| !v.is_null())
}

fn string_field(
    obj: &Map<String, Value>,
    names: &[&str],
    prefix: &str,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    match field(obj, names, prefix, problems)? {
        Value::String(s) => Some(s.clone()),
        other => {
            push(
                problems,
                prefix,
                names[0],
                format!("expected a string, got {}", value_kind(other)),
            );
            None
        }
    }
}

/// Parses one definition, recording problems under `prefix`. Returns the
/// definition when it could be built at all (it may still have problems).
pub(crate) fn parse_definition(
    value: &Value,
    prefix: &str,
    problems: &mut Vec<Problem>,
) -> Option<AgentDefinition> {
    let Value::Object(obj) = value else {
        push(
            problems,
            prefix,
            "",
            format!("expected an object, got {}", value_kind(value)),
        );
        return None;
    };
    let before = problems.len();
    let name = string_field(obj, &["agent_name", "id", "name"], prefix, problems);
    let name = match name {
        Some(n) if !n.trim().is_empty() => n,
        Some(_) => {
            push(problems, prefix, "agent_name", "must not be empty");
            String::new()
        }
        None => {
            if problems.len() == before {
                push(
                    problems,
                    prefix,
                    "agent_name",
                    "missing (also accepted as `id` or `name`)",
                );
            }
            String::new()
        }
    };
    let mut def = AgentDefinition::new(name);

    let agent_type = string_field(obj, &["agent_type"], prefix, problems);
    let is_main = match field(obj, &["is_main_agent"], prefix, problems) {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            push(
                problems,
                prefix,
                "is_main_agent",
                format!("expected a boolean, got {}", value_kind(other)),
            );
            None
        }
    };
    // An omitted flag follows the type, then the name.
    def.is_main_agent = is_main.unwrap_or(match agent_type.as_deref() {
        Some("main_auv") => true,
        Some(_) => false,
        None => def.is_main_agent,
    });
    def.agent_type = agent_type.unwrap_or_else(|| {
        if def.is_main_agent {
            "main_auv"
        } else {
            "proxy_auv"
        }
        .into()
    });
    def.control_scheme = if def.is_main_agent {
        ControlScheme::Force3d
    } else {
        ControlScheme::ExternalVelocity
    };

    match field(obj, &["schema_version"], prefix, problems) {
        None => {}
        Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v >= 1) => {
            def.schema_version = n.as_u64().unwrap_or(AGENT_SCHEMA_VERSION);
        }
        Some(other) => push(
            problems,
            prefix,
            "schema_version",
            format!("expected a positive integer, got {other}"),
        ),
    }
    def.profile = string_field(obj, &["profile"], prefix, problems);
    if let Some(v) = field(obj, &["location", "position"], prefix, problems) {
        let key = if obj.contains_key("location") {
            "location"
        } else {
            "position"
        };
        if let Some(p) = vec3(v, prefix, key, problems) {
            def.location = p;
        }
    }
    if let Some(v) = field(obj, &["rotation"], prefix, problems) {
        if let Some(r) = vec3(v, prefix, "rotation", problems) {
            def.rotation = r;
        }
    }
    if let Some(s) = string_field(obj, &["control_scheme"], prefix, problems) {
        match normalize_control_scheme(&s) {
            Ok(c) => def.control_scheme = c,
            Err(e) => push(problems, prefix, "control_scheme", e.to_string()),
        }
    }
    match field(obj, &["sensors"], prefix, problems) {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match serde_json::from_value::<SensorDecl>(item.clone()) {
                    Ok(d) => def.sensors.push(d),
                    Err(_) => push(
                        problems,
                        prefix,
                        &format!("sensors[{i}]"),
                        format!(
                            "expected a sensor name or {{\"name\", \"sensor_type\"}}, got {}",
                            value_kind(item)
                        ),
                    ),
                }
            }
        }
        Some(other) => push(
            problems,
            prefix,
            "sensors",
            format!("expected an array, got {}", value_kind(other)),
        ),
    }
    match field(obj, &["metadata"], prefix, problems) {
        None => {}
        Some(Value::Object(m)) => {
            def.metadata = m.clone();
            if let Some(tags) = m.get("tags") {
                if !tags
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string))
                {
                    push(
                        problems,
                        prefix,
                        "metadata.tags",
                        "expected an array of strings",
                    );
                }
            }
        }
        Some(other) => push(
            problems,
            prefix,
            "metadata",
            format!("expected an object, got {}", value_kind(other)),
        ),
    }
    Some(def)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases_and_defaults() {
        let d =
            AgentDefinition::from_json(&json!({"id": "target_01", "position": [1, 2, 3]})).unwrap();
        assert_eq!(d.agent_name, "target_01");
        assert_eq!(d.location, [1.0, 2.0, 3.0]);
        assert_eq!(d.rotation, [0.0; 3]);
        assert!(!d.is_main_agent);
        assert_eq!(d.agent_type, "proxy_auv");
        assert_eq!(d.control_scheme, ControlScheme::ExternalVelocity);
        assert_eq!(d.schema_version, 1);
        let d = AgentDefinition::from_json(&json!({"name": "auv/main"})).unwrap();
        assert!(d.is_main_agent);
        assert_eq!(d.control_scheme, ControlScheme::Force3d);
        let d =
            AgentDefinition::from_json(&json!({"name": "x", "agent_type": "main_auv"})).unwrap();
        assert!(d.is_main_agent);
    }

    #[test]
    fn to_json_round_trips_and_is_versioned() {
        let d = AgentDefinition::from_json(&json!({
            "agent_name": "target_01", "agent_type": "proxy_auv", "is_main_agent": false,
            "profile": "proxy", "location": [4.0, -7.0, 6.0], "rotation": [0, 90, 0],
            "control_scheme": "Velocity", "sensors": ["depth", {"name": "cam", "sensor_type": "camera", "fps": 10}],
            "metadata": {"role": "moving_target", "tags": ["a"]}
        }))
        .unwrap();
        let j = d.to_json();
        assert_eq!(j["schema_version"], 1);
        assert_eq!(j["control_scheme"], "external_velocity");
        assert_eq!(j["sensors"][1]["fps"], 10);
        assert_eq!(AgentDefinition::from_json(&j).unwrap(), d);
        assert_eq!(d.role(), Some("moving_target"));
        assert_eq!(d.tags(), vec!["a".to_string()]);
        assert_eq!(d.sensors[1].sensor_type(), "camera");
    }

    #[test]
    fn bad_fields_are_named_and_all_reported() {
        let e = AgentDefinition::from_json(&json!({
            "agent_name": 5, "location": [1, 2], "rotation": "x", "control_scheme": "warp",
            "sensors": [3], "metadata": [], "is_main_agent": "yes"
        }))
        .unwrap_err();
        let paths: Vec<&str> = e.problems().iter().map(|p| p.path.as_str()).collect();
        for f in [
            "agent_name",
            "location",
            "rotation",
            "control_scheme",
            "sensors[0]",
            "metadata",
            "is_main_agent",
        ] {
            assert!(paths.contains(&f), "{f} missing from {paths:?}");
        }
        assert_eq!(e.code(), oceansim_protocol::ErrorCode::InvalidMessage);
        let e = AgentDefinition::from_json(&json!({"location": [1, 2, "3"]})).unwrap_err();
        assert!(e.to_string().contains("agent_name: missing"), "{e}");
        assert!(
            e.to_string()
                .contains("location: expected 3 finite numbers"),
            "{e}"
        );
        let e = AgentDefinition::from_json(&json!({"id": "a", "agent_name": "b"})).unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        assert!(AgentDefinition::from_json(&json!([1])).is_err());
    }
}
