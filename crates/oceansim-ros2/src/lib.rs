//! # oceansim-ros2
//!
//! ROS 2 messages for oceansim-rs without a ROS installation: the message
//! types a marine robot publishes ([`msg`]), their CDR encoding
//! ([`to_cdr`], [`from_cdr`], [`CdrWriter`], [`CdrReader`]), the `ros2msg`
//! definitions that rosbag2 and MCAP files store as schemas
//! ([`RosMessage::definition`]), and the REP-2011 type hashes
//! (`RIHS01_…`) that rmw_zenoh keys and rosbag2 metadata carry
//! ([`RosMessage::type_hash`]).
//!
//! ## Conventions
//!
//! * Types, field names, field types and field order are those of ROS 2
//!   Jazzy's `.msg` files; each message lives in the module of its package
//!   (`msg::sensor_msgs::Imu` is `sensor_msgs/msg/Imu`). Fixed arrays are
//!   Rust arrays (`float64[36]` is `[f64; 36]`), unbounded sequences are
//!   `Vec`s.
//! * Units and frames are ROS's (SI, REP-103: x forward, y left, z up;
//!   quaternions `w` last). Converting from the simulator's frames is the
//!   caller's job.
//! * CDR is plain XCDR1 as rmw writes it: header `00 01 00 00` (little
//!   endian), each primitive aligned to its size counted from after the
//!   header. Decoding also reads big-endian payloads, checks every length
//!   against the bytes left and returns a [`Ros2Error`], never panics.
//! * Definitions follow rosbag2's `LocalMessageDefinitionSource`: the
//!   type's `.msg` text (comments stripped, constants and defaults kept),
//!   then each dependency once, depth first, after 80 `=` and a
//!   `MSG: package/Type` line.
//! * Type hashes are computed as `rosidl_generator_type_description` does:
//!   SHA-256 of the type description JSON ([`MsgSpec::type_description_json`]).
//!
//! ## Example
//!
//! ```
//! use oceansim_ros2::msg::geometry_msgs::{Twist, Vector3};
//! use oceansim_ros2::{from_cdr, to_cdr, RosMessage};
//!
//! let cmd = Twist {
//!     linear: Vector3 { x: 0.5, y: 0.0, z: -0.1 },
//!     angular: Vector3 { x: 0.0, y: 0.0, z: 0.2 },
//! };
//! let bytes = to_cdr(&cmd);
//! assert_eq!(&bytes[..4], &[0x00, 0x01, 0x00, 0x00]);
//! assert_eq!(bytes.len(), 4 + 6 * 8);
//! assert_eq!(from_cdr::<Twist>(&bytes)?, cmd);
//!
//! assert_eq!(Twist::TYPE_NAME, "geometry_msgs/msg/Twist");
//! assert!(Twist::definition().contains("MSG: geometry_msgs/Vector3\nfloat64 x\n"));
//! assert_eq!(
//!     Twist::type_hash(),
//!     "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a"
//! );
//! assert!(from_cdr::<Twist>(&bytes[..20]).is_err()); // truncated
//! # Ok::<(), oceansim_ros2::Ros2Error>(())
//! ```
#![warn(missing_docs)]

mod cdr;
mod description;
mod error;
mod field;
mod message;
pub mod msg;

pub use cdr::{CdrReader, CdrWriter, CDR_LE_HEADER};
pub use description::{BaseType, ConstantSpec, Container, FieldSpec, FieldType, MsgSpec};
pub use error::{Result, Ros2Error};
pub use field::{CdrElement, CdrField};
pub use message::{from_cdr, to_cdr, to_json, RosMessage};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
