//! What a message type is, as data: its fields and constants. From it come
//! the `ros2msg` definition text that bags store and the REP-2011 (RIHS01)
//! type hash that rmw layers and rosbag2 metadata carry.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;

/// A field's element type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BaseType {
    /// `bool`.
    Bool,
    /// `byte` (an octet).
    Byte,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
    /// `float32`.
    Float32,
    /// `float64`.
    Float64,
    /// `string` (unbounded).
    String,
    /// Another message type.
    Nested(&'static MsgSpec),
}

impl fmt::Debug for BaseType {
    // A nested type prints its name, not its whole description.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaseType::Nested(spec) => write!(f, "Nested({:?})", spec.name),
            other => f.write_str(other.msg_name()),
        }
    }
}

impl BaseType {
    /// The name in `.msg` files (`"float64"`); a nested type gives its full
    /// name (`"geometry_msgs/msg/Vector3"`).
    pub fn msg_name(&self) -> &'static str {
        match self {
            BaseType::Bool => "bool",
            BaseType::Byte => "byte",
            BaseType::Int8 => "int8",
            BaseType::UInt8 => "uint8",
            BaseType::Int16 => "int16",
            BaseType::UInt16 => "uint16",
            BaseType::Int32 => "int32",
            BaseType::UInt32 => "uint32",
            BaseType::Int64 => "int64",
            BaseType::UInt64 => "uint64",
            BaseType::Float32 => "float32",
            BaseType::Float64 => "float64",
            BaseType::String => "string",
            BaseType::Nested(spec) => spec.name,
        }
    }

    /// The id in `type_description_interfaces/msg/FieldType` of a single
    /// value of this type.
    fn type_id(&self) -> u32 {
        match self {
            BaseType::Nested(_) => 1,
            BaseType::Int8 => 2,
            BaseType::UInt8 => 3,
            BaseType::Int16 => 4,
            BaseType::UInt16 => 5,
            BaseType::Int32 => 6,
            BaseType::UInt32 => 7,
            BaseType::Int64 => 8,
            BaseType::UInt64 => 9,
            BaseType::Float32 => 10,
            BaseType::Float64 => 11,
            BaseType::Bool => 15,
            BaseType::Byte => 16,
            BaseType::String => 17,
        }
    }
}

/// How many values a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// One value.
    Single,
    /// A fixed array, `T[N]`.
    Array(usize),
    /// An unbounded sequence, `T[]`.
    Sequence,
}

/// A field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldType {
    /// The element type.
    pub base: BaseType,
    /// One value, an array or a sequence.
    pub container: Container,
}

impl FieldType {
    /// A single value of `base`.
    pub const fn single(base: BaseType) -> Self {
        FieldType {
            base,
            container: Container::Single,
        }
    }

    /// The type as a `.msg` file writes it inside package `package`
    /// (`float64[36]`, `Point`, `std_msgs/Header`).
    fn msg_text(&self, package: &str) -> String {
        let base = match self.base {
            BaseType::Nested(spec) if spec.package() == package => spec.short_name().to_owned(),
            BaseType::Nested(spec) => spec.msg_ref(),
            other => other.msg_name().to_owned(),
        };
        match self.container {
            Container::Single => base,
            Container::Array(n) => format!("{base}[{n}]"),
            Container::Sequence => format!("{base}[]"),
        }
    }

    /// `(type_id, capacity)` as rosidl_generator_type_description serializes
    /// them: arrays add 48, unbounded sequences 144.
    fn type_id_and_capacity(&self) -> (u32, usize) {
        let id = self.base.type_id();
        match self.container {
            Container::Single => (id, 0),
            Container::Array(n) => (id + 48, n),
            Container::Sequence => (id + 144, 0),
        }
    }
}

/// One field of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The field's name.
    pub name: &'static str,
    /// Its type.
    pub ty: FieldType,
    /// The default value as the `.msg` file writes it, if it gives one.
    pub default: Option<&'static str>,
}

/// A constant declared by a message (`uint8 INT8=1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantSpec {
    /// The constant's name.
    pub name: &'static str,
    /// Its type.
    pub ty: BaseType,
    /// Its value as the `.msg` file writes it.
    pub value: &'static str,
}

/// A message type: its full name, constants and fields in order.
#[derive(Debug, PartialEq, Eq)]
pub struct MsgSpec {
    /// `package/msg/Type`.
    pub name: &'static str,
    /// Constants, in `.msg` order.
    pub constants: &'static [ConstantSpec],
    /// Fields, in `.msg` (and wire) order.
    pub fields: &'static [FieldSpec],
}

/// The line rosbag2 puts before each dependency in a `ros2msg` definition.
const SEPARATOR: &str =
    "================================================================================";

impl MsgSpec {
    /// The package (`geometry_msgs`).
    pub fn package(&self) -> &'static str {
        self.name.split('/').next().unwrap_or(self.name)
    }

    /// The type's name without its package (`Vector3`).
    pub fn short_name(&self) -> &'static str {
        self.name.rsplit('/').next().unwrap_or(self.name)
    }

    /// `package/Type`, as `.msg` files and `MSG:` lines name a type.
    fn msg_ref(&self) -> String {
        format!("{}/{}", self.package(), self.short_name())
    }

    /// The DDS type name rmw layers use (`geometry_msgs::msg::dds_::Twist_`).
    pub fn dds_type_name(&self) -> String {
        format!("{}::msg::dds_::{}_", self.package(), self.short_name())
    }

    /// This type's own `.msg` text (comments stripped): constants, then fields.
    pub fn msg_text(&self) -> String {
        let mut out = String::new();
        for c in self.constants {
            out.push_str(&format!("{} {}={}\n", c.ty.msg_name(), c.name, c.value));
        }
        for f in self.fields {
            out.push_str(&f.ty.msg_text(self.package()));
            out.push(' ');
            out.push_str(f.name);
            if let Some(default) = f.default {
                out.push(' ');
                out.push_str(default);
            }
            out.push('\n');
        }
        out
    }

    /// The types this one's fields name, each once, sorted as rosbag2 sorts
    /// them (by `package/Type`).
    fn direct_dependencies(&self) -> Vec<&'static MsgSpec> {
        let mut deps = BTreeMap::new();
        for f in self.fields {
            if let BaseType::Nested(spec) = f.ty.base {
                deps.insert(spec.msg_ref(), spec);
            }
        }
        deps.into_values().collect()
    }

    /// The complete `ros2msg` definition, as rosbag2's
    /// `LocalMessageDefinitionSource` writes it: this type's text, then each
    /// type it depends on (depth first, each once) after a line of 80 `=`
    /// and a `MSG: package/Type` line.
    pub fn definition(&self) -> String {
        fn append(spec: &MsgSpec, seen: &mut Vec<&'static str>, out: &mut String) {
            out.push_str(&spec.msg_text());
            for dep in spec.direct_dependencies() {
                if seen.contains(&dep.name) {
                    continue;
                }
                seen.push(dep.name);
                out.push('\n');
                out.push_str(SEPARATOR);
                out.push_str("\nMSG: ");
                out.push_str(&dep.msg_ref());
                out.push('\n');
                append(dep, seen, out);
            }
        }
        let mut out = String::new();
        append(self, &mut Vec::new(), &mut out);
        out
    }

    /// Every type this one depends on, transitively, sorted by full name.
    pub fn referenced_types(&self) -> Vec<&'static MsgSpec> {
        let mut found = BTreeMap::new();
        let mut queue = self.direct_dependencies();
        while let Some(spec) = queue.pop() {
            if found.insert(spec.name, spec).is_none() {
                queue.extend(spec.direct_dependencies());
            }
        }
        found.into_values().collect()
    }

    /// The JSON that the RIHS01 hash is taken over: the
    /// `type_description_interfaces/msg/TypeDescription` of this type, as
    /// `rosidl_generator_type_description` serializes it with default
    /// values removed (`json.dumps` with separators `", "` and `": "`).
    pub fn type_description_json(&self) -> String {
        let referenced: Vec<String> = self
            .referenced_types()
            .into_iter()
            .map(individual_description)
            .collect();
        format!(
            "{{\"type_description\": {}, \"referenced_type_descriptions\": [{}]}}",
            individual_description(self),
            referenced.join(", ")
        )
    }

    /// The REP-2011 type hash, `RIHS01_` and 64 hex digits: SHA-256 of
    /// [`type_description_json`](Self::type_description_json).
    pub fn type_hash(&self) -> String {
        let digest = Sha256::digest(self.type_description_json().as_bytes());
        let mut out = String::with_capacity(7 + 64);
        out.push_str("RIHS01_");
        for byte in digest {
            out.push_str(&format!("{byte:02x}"));
        }
        out
    }
}

/// One `IndividualTypeDescription` without default values.
fn individual_description(spec: &MsgSpec) -> String {
    let fields: Vec<String> = spec
        .fields
        .iter()
        .map(|f| {
            let (type_id, capacity) = f.ty.type_id_and_capacity();
            let nested = match f.ty.base {
                BaseType::Nested(n) => n.name,
                _ => "",
            };
            // Names are .msg identifiers: ASCII, nothing to escape.
            format!(
                "{{\"name\": \"{}\", \"type\": {{\"type_id\": {type_id}, \"capacity\": {capacity}, \
                 \"string_capacity\": 0, \"nested_type_name\": \"{nested}\"}}}}",
                f.name
            )
        })
        .collect();
    format!(
        "{{\"type_name\": \"{}\", \"fields\": [{}]}}",
        spec.name,
        fields.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    static TIME: MsgSpec = MsgSpec {
        name: "builtin_interfaces/msg/Time",
        constants: &[],
        fields: &[
            FieldSpec {
                name: "sec",
                ty: FieldType::single(BaseType::Int32),
                default: None,
            },
            FieldSpec {
                name: "nanosec",
                ty: FieldType::single(BaseType::UInt32),
                default: None,
            },
        ],
    };

    static STAMPED: MsgSpec = MsgSpec {
        name: "test_msgs/msg/Stamped",
        constants: &[ConstantSpec {
            name: "ONE",
            ty: BaseType::UInt8,
            value: "1",
        }],
        fields: &[
            FieldSpec {
                name: "stamp",
                ty: FieldType::single(BaseType::Nested(&TIME)),
                default: None,
            },
            FieldSpec {
                name: "values",
                ty: FieldType {
                    base: BaseType::Float64,
                    container: Container::Array(3),
                },
                default: None,
            },
            FieldSpec {
                name: "more",
                ty: FieldType {
                    base: BaseType::Nested(&TIME),
                    container: Container::Sequence,
                },
                default: None,
            },
            FieldSpec {
                name: "gain",
                ty: FieldType::single(BaseType::Float32),
                default: Some("0.5"),
            },
        ],
    };

    #[test]
    fn msg_text_and_definition() {
        assert_eq!(
            STAMPED.msg_text(),
            "uint8 ONE=1\nbuiltin_interfaces/Time stamp\nfloat64[3] values\n\
             builtin_interfaces/Time[] more\nfloat32 gain 0.5\n"
        );
        let def = STAMPED.definition();
        assert_eq!(def.matches("MSG: builtin_interfaces/Time\n").count(), 1);
        assert!(def.ends_with("\n\n================================================================================\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"));
        assert_eq!(STAMPED.dds_type_name(), "test_msgs::msg::dds_::Stamped_");
    }

    #[test]
    fn description_json_shape() {
        assert_eq!(
            STAMPED.type_description_json(),
            concat!(
                r#"{"type_description": {"type_name": "test_msgs/msg/Stamped", "fields": ["#,
                r#"{"name": "stamp", "type": {"type_id": 1, "capacity": 0, "string_capacity": 0, "nested_type_name": "builtin_interfaces/msg/Time"}}, "#,
                r#"{"name": "values", "type": {"type_id": 59, "capacity": 3, "string_capacity": 0, "nested_type_name": ""}}, "#,
                r#"{"name": "more", "type": {"type_id": 145, "capacity": 0, "string_capacity": 0, "nested_type_name": "builtin_interfaces/msg/Time"}}, "#,
                r#"{"name": "gain", "type": {"type_id": 10, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}}]}, "#,
                r#""referenced_type_descriptions": [{"type_name": "builtin_interfaces/msg/Time", "fields": ["#,
                r#"{"name": "sec", "type": {"type_id": 6, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}}, "#,
                r#"{"name": "nanosec", "type": {"type_id": 7, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}}]}]}"#,
            )
        );
        assert!(STAMPED.type_hash().starts_with("RIHS01_"));
        assert_eq!(STAMPED.type_hash().len(), 71);
    }
}
