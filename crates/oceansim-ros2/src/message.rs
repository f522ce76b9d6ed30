//! The [`RosMessage`] trait, the whole-payload helpers, and the macro that
//! declares a message from one table of its fields.

use crate::cdr::{CdrReader, CdrWriter};
use crate::description::MsgSpec;
use crate::error::Result;
use crate::field::CdrElement;
use std::fmt;

/// A ROS 2 message type: its name, description, definition, type hash and
/// CDR encoding.
pub trait RosMessage: CdrElement + Clone + fmt::Debug + PartialEq + Default {
    /// The full type name, `package/msg/Type` (`"sensor_msgs/msg/Imu"`).
    const TYPE_NAME: &'static str;
    /// Fields and constants, the source of the definition and the hash.
    const SPEC: &'static MsgSpec;

    /// The `ros2msg` definition a bag stores as the schema (see
    /// [`MsgSpec::definition`]).
    fn definition() -> String {
        Self::SPEC.definition()
    }

    /// The REP-2011 type hash, `RIHS01_<64 hex>` (computed on each call: a
    /// SHA-256 over a few hundred bytes).
    fn type_hash() -> String {
        Self::SPEC.type_hash()
    }

    /// Appends the message's fields (no header).
    fn encode(&self, w: &mut CdrWriter) {
        self.write(w);
    }

    /// Reads the message's fields.
    fn decode(r: &mut CdrReader<'_>) -> Result<Self> {
        Self::read(r)
    }
}

/// The message as a whole CDR payload, header included.
pub fn to_cdr<T: RosMessage>(msg: &T) -> Vec<u8> {
    let mut w = CdrWriter::with_capacity(T::MIN_SIZE + 16);
    msg.encode(&mut w);
    w.into_bytes()
}

/// A message from a whole CDR payload, header included; at most 3 bytes of
/// padding may follow it.
pub fn from_cdr<T: RosMessage>(payload: &[u8]) -> Result<T> {
    let mut r = CdrReader::new(payload)?;
    let msg = T::decode(&mut r)?;
    r.finish()?;
    Ok(msg)
}

/// The message as JSON, fields named as in the `.msg` file: for logs and
/// for cross-checks against other ROS tools. Floats read back exactly;
/// `float32` values are written widened to `float64`.
pub fn to_json<T: RosMessage>(msg: &T) -> String {
    let mut out = String::new();
    msg.write_json(&mut out);
    out
}

/// Declares a message: the struct, its `Default`, its constants, and its
/// [`CdrField`](crate::CdrField), [`CdrElement`](crate::CdrElement) and
/// [`RosMessage`] impls, from one list of fields in `.msg` order.
///
/// A field with a `.msg` default is written `name: Type = "text" (value)`:
/// the text goes into the definition, the value into `Default`.
macro_rules! ros_message {
    (
        $(#[$doc:meta])*
        $name:ident = $type_name:literal {
            $(
                $(#[$fdoc:meta])*
                $field:ident: $fty:ty $(= $default_text:literal ($default:expr))?
            ),* $(,)?
        }
        $(
            constants {
                $( $(#[$cdoc:meta])* $cname:ident: $cty:ty = $cval:literal ),* $(,)?
            }
        )?
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( $(#[$fdoc])* pub $field: $fty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    $( $field: ros_message!(@default $fty $(, $default)?), )*
                }
            }
        }

        $(
            impl $name {
                $( $(#[$cdoc])* pub const $cname: $cty = $cval; )*
            }
        )?

        impl $crate::RosMessage for $name {
            const TYPE_NAME: &'static str = $type_name;
            const SPEC: &'static $crate::MsgSpec = &$crate::MsgSpec {
                name: $type_name,
                constants: &[$($(
                    $crate::ConstantSpec {
                        name: stringify!($cname),
                        ty: <$cty as $crate::CdrField>::FIELD_TYPE.base,
                        value: stringify!($cval),
                    },
                )*)?],
                fields: &[$(
                    $crate::FieldSpec {
                        name: stringify!($field),
                        ty: <$fty as $crate::CdrField>::FIELD_TYPE,
                        default: ros_message!(@text $($default_text)?),
                    },
                )*],
            };
        }

        impl $crate::CdrField for $name {
            const FIELD_TYPE: $crate::FieldType = $crate::FieldType::single(
                $crate::BaseType::Nested(<Self as $crate::RosMessage>::SPEC),
            );
            const MIN_SIZE: usize = 0 $( + <$fty as $crate::CdrField>::MIN_SIZE )*;

            fn write(&self, w: &mut $crate::CdrWriter) {
                $( $crate::CdrField::write(&self.$field, w); )*
            }

            fn read(r: &mut $crate::CdrReader<'_>) -> $crate::Result<Self> {
                // Struct expressions evaluate their fields in source order.
                Ok(Self { $( $field: $crate::CdrField::read(r)?, )* })
            }

            // `String` may name std_msgs' String where the macro is used.
            #[allow(unused_assignments)]
            fn write_json(&self, out: &mut ::std::string::String) {
                out.push('{');
                let mut sep = "";
                $(
                    out.push_str(sep);
                    out.push_str(concat!("\"", stringify!($field), "\": "));
                    $crate::CdrField::write_json(&self.$field, out);
                    sep = ", ";
                )*
                out.push('}');
            }

            fn default_value() -> Self {
                Self::default()
            }
        }

        impl $crate::CdrElement for $name {}
    };
    (@default $fty:ty) => { <$fty as $crate::CdrField>::default_value() };
    (@default $fty:ty, $default:expr) => { $default };
    (@text) => { None };
    (@text $text:literal) => { Some($text) };
}

pub(crate) use ros_message;
