//! # oceansim-protocol
//!
//! The wire protocol of the OceanSim simulator, version 2: newline-delimited
//! JSON over TCP (default `127.0.0.1:9876`). This crate is the codec only:
//! request and response envelopes, the typed catalogue of every action with
//! its validated payload, the stable error codes, the batch rules and the
//! NDJSON framing for `tokio_util::codec`. It does no I/O of its own and
//! knows nothing of the simulator behind it.
//!
//! ## Wire format
//!
//! One JSON object per line. A request:
//!
//! ```json
//! {"type": "command", "protocol_version": 2, "request_id": "run-001",
//!  "action": "set_force", "data": {"force": [0, 100, 0]}}
//! ```
//!
//! and its answer:
//!
//! ```json
//! {"type": "response", "protocol_version": 2, "request_id": "run-001",
//!  "action": "set_force", "status": "ok", "success": true, "sim_time": 1.25,
//!  "data": {}}
//! ```
//!
//! `type` is `command`, `sim_control` (`reset`, `pause`, `resume`,
//! `set_time_scale`) or `batch` (up to [`MAX_BATCH_REQUESTS`] = 64 children
//! in `requests`, answered in order in `data.responses` with `data.count`).
//! `request_id` (string or number) is echoed back exactly. sim_control
//! parameters may also sit at the top level, as the Python client sends them.
//!
//! A peer that answers builds a [`Reply`]: the envelope's fields and its
//! data, typed, or a state made of JSON rendered before ([`Rendered`]: a
//! state kept rendered, or sensor payloads rendered once per sample; its
//! `write` is the one place such text is copied into a reply).
//! [`Reply::write_json`] is the one encoder: it writes the envelope and
//! serialises the data straight into the output, a batch's children
//! inside it ([`Request::respond`] applies the batch rules). A client
//! reads the line back as a [`Response`].
//!
//! ## Error codes
//!
//! An error response has `type: "error"`, `status: "error"`,
//! `success: false`, a stable `error_code` and a human-readable `message`:
//!
//! | `error_code` | meaning |
//! |---|---|
//! | `unknown_type` | the request `type` is not supported |
//! | `unknown_action` | the action is not recognised for its type |
//! | `invalid_message` | malformed request (bad JSON, over-long line, invalid UTF-8, missing field) or a payload that failed validation |
//! | `invalid_action_shape` | a vector has the wrong length or non-numeric / non-finite values |
//! | `unknown_agent` | no runtime agent has the requested id |
//! | `unsupported_control_scheme` | the agent exists but does not support this control path |
//! | `spawn_failed` | runtime placement failed |
//! | `blocked_pose` | the target pose is blocked |
//! | `batch_limit` | a batch holds more than 64 requests |
//!
//! ## Conventions
//!
//! Units are SI (N, N·m, m, m/s, rad/s, s), with propeller speeds in rpm.
//! AUV force commands
//! (`set_force`, `set_force_world`, `step`) use the user frame (x right/east,
//! y forward/north, z up); `set_force_body`, `set_body_wrench` and
//! `set_body_velocity` use the Fossen body frame (x forward, y starboard,
//! z down). Map-side payloads (agents, obstacles, overlays) use Godot world
//! coordinates (Y up), like scenario files. See [`payload`] for each field.
//!
//! `set_fins` (and `step` with `fins`) commands a vehicle with control
//! surfaces and propellers directly: `{"fins": [rudder_rad, stern_plane_rad,
//! propeller_rpm], "agent_id"?: ...}` for Fossen's REMUS 100, generally one
//! deflection per control surface in profile order (rad), then one speed per
//! propeller (rpm), or an object of the profile's fin/propeller names →
//! value; at most [`payload::MAX_FINS`] values. Signs follow Fossen's
//! convention (`remus100.py`); rpm ≥ 0 drives ahead. The simulator clips
//! each value to the profile's limits and answers with the applied values
//! (`fins`, `saturated`, `requested`); a vehicle without fins answers
//! `unsupported_control_scheme`.
//!
//! ## Example
//!
//! ```
//! use oceansim_protocol::reply::MotionAck;
//! use oceansim_protocol::{Action, ActionName, Data, ErrorCode, Reply, Request, Response, ResponseType};
//!
//! let line = r#"{"type":"command","protocol_version":2,"request_id":7,
//!                "action":"set_force","data":{"force":[0,100,0]}}"#;
//! let request = Request::decode(line).expect("valid request");
//! let reply = request.respond(|single| {
//!     let Action::SetForce(f) = &single.action else { unreachable!() };
//!     assert_eq!(f.force.0, [0.0, 100.0, 0.0]);
//!     let ack = Data::typed(MotionAck::default());
//!     Reply::ok(ResponseType::Response, single.request_id, single.action.name(), Some(0.0), ack)
//! });
//! // What a client reads back.
//! let response = Response::from_line(&reply.to_line()).unwrap();
//! assert_eq!(response.request_id, Some(7u64.into()));
//!
//! // A wrong vector length is `invalid_action_shape`, with the id echoed.
//! let bad = r#"{"type":"command","request_id":"x","action":"set_force","data":{"force":[1]}}"#;
//! let rejected = Request::decode(bad).unwrap_err();
//! assert_eq!(rejected.error.code(), ErrorCode::InvalidActionShape);
//! assert_eq!(rejected.to_response(None).to_value()["request_id"], "x");
//! # let _ = ActionName::ALL;
//! ```
#![warn(missing_docs)]

mod action;
mod codec;
mod envelope;
mod error;
mod ids;
pub mod names;
pub mod payload;
pub mod reply;
pub mod view;

pub use action::{Action, ActionName};
pub use codec::{LineItem, NdjsonCodec, DEFAULT_MAX_LINE_BYTES};
pub use envelope::{
    BatchChild, BatchRequest, Data, Encode, NumberLiteral, Rejected, Rendered, RenderedPayloads,
    Reply, ReplyBody, Request, RequestId, RequestType, Response, ResponseType, SingleRequest,
    Status, MAX_BATCH_REQUESTS, PROTOCOL_VERSION,
};
pub use error::{ErrorCode, Num, ProtocolError, Result};
pub use reply::Frame;
