//! # oceansim-bridge
//!
//! A live ROS 2 bridge over Zenoh or DDS. Over Zenoh it speaks what ROS 2's Zenoh middleware
//! (`rmw_zenoh_cpp`, Jazzy and later) speaks: CDR payloads on its key
//! expressions, its liveliness tokens for the node, every publisher and
//! every subscription, and its attachment on every sample. ROS 2 nodes
//! started with `RMW_IMPLEMENTATION=rmw_zenoh_cpp` see the simulator's
//! topics in `ros2 topic list`, echo them, and publish commands to it. No
//! ROS installation is needed on this side.
//!
//! Over DDS ([`Bridge::start_dds`]) it is a DDS-RTPS participant, as ROS
//! 2's default middlewares (Fast DDS, Cyclone DDS) are: the same topics,
//! types and QoS on the DDS topics `rt/<topic>`, and a node in the graph
//! through `ros_discovery_info` ([`dds`]), so stock ROS 2 nodes see it
//! with no change to their middleware.
//!
//! The bridge knows nothing of the simulator: the caller hands it
//! [`Message`]s (a topic, a ROS type and its CDR bytes) and the set of
//! [`Vehicle`]s, and takes [`Command`]s (a TCP-protocol request line per
//! command message received). `oceansim serve --ros2` does this from the
//! server's thread; see the server crate and `docs/ros2.md`.
//!
//! ## Conventions
//!
//! * One Zenoh session on a thread of its own (Zenoh's blocking calls must
//!   not run on the simulator's runtime). [`Bridge::offer`] never blocks:
//!   when the thread falls behind, batches are dropped and counted.
//! * Topic keys, tokens, QoS text and attachments: [`keys`]. Command
//!   topics and their conversion from ROS frames (REP 103 FLU base link,
//!   ENU world) to the protocol's (Fossen FRD body, Godot map plane):
//!   [`commands`].
//! * `/clock`, `/tf` and `/tf_static` stay at the root; everything else
//!   goes under [`BridgeConfig::namespace`] (empty: the root).
//! * Multicast scouting is off unless [`BridgeConfig::scouting`]; the
//!   default endpoint is loopback only. Over DDS, discovery stays on the
//!   host unless [`DdsConfig::range`] is [`DiscoveryRange::Subnet`].
//! * A connection that has not completed Zenoh's handshake within
//!   [`HANDSHAKE_TIMEOUT_MS`] is closed, and at most
//!   [`MAX_PENDING_HANDSHAKES`] may be pending at once, so idle sockets
//!   cannot keep ROS 2 nodes out. On an endpoint that listens beyond
//!   loopback, a flood of that many connections per timeout still can:
//!   firewall the port to the hosts of your ROS 2 graph.
//!
//! ## Features
//!
//! * `zenoh` (off by default): the live [`Bridge`] on a Zenoh session.
//!   Without it the crate holds what needs no network, rmw_zenoh's naming
//!   ([`keys`]) and the command conversions ([`commands`]), so that a
//!   workspace build that does not serve ROS 2 compiles no Zenoh.
//! * `dds` (off by default): the live [`Bridge`] as a DDS participant
//!   ([`Bridge::start_dds`], on rustdds, pure Rust).
//!
//! ## Example
//!
//! With the `zenoh` feature:
//!
//! ```no_run
//! # #[cfg(feature = "zenoh")] {
//! use oceansim_bridge::{Bridge, BridgeConfig, Message, Outgoing, Qos};
//! use oceansim_ros2::msg::{builtin_interfaces::Time, rosgraph_msgs::Clock};
//! use oceansim_ros2::{to_cdr, RosMessage};
//!
//! // A router on 127.0.0.1:7447 that ROS 2 nodes connect to.
//! let bridge = Bridge::start(BridgeConfig::default())?;
//! let clock = Clock { clock: Time { sec: 1, nanosec: 0 } };
//! bridge.offer(Outgoing::Messages(vec![Message {
//!     topic: "/clock".into(),
//!     ros_type: Clock::TYPE_NAME,
//!     type_hash: Clock::type_hash,
//!     payload: to_cdr(&clock),
//!     qos: Qos::DEFAULT,
//! }]));
//! for c in bridge.commands() {
//!     println!("{} asks: {}", c.agent, c.line);
//! }
//! # }
//! # Ok::<(), oceansim_bridge::BridgeError>(())
//! ```
#![warn(missing_docs)]
// Without `zenoh` the docs still speak of the live `Bridge` they cannot
// link to; docs.rs and `.ci/run`'s ROS 2 stage document the crate with it.
#![cfg_attr(
    not(all(feature = "zenoh", feature = "dds")),
    allow(rustdoc::broken_intra_doc_links)
)]

pub mod commands;
#[cfg(any(feature = "zenoh", feature = "dds"))]
mod counters;
pub mod dds;
#[cfg(feature = "dds")]
mod dds_worker;
mod error;
pub mod keys;
#[cfg(any(feature = "zenoh", feature = "dds"))]
mod live;
#[cfg(any(feature = "zenoh", feature = "dds"))]
mod served;
#[cfg(feature = "zenoh")]
mod worker;

pub use dds::{DdsConfig, DiscoveryRange};
#[cfg(feature = "dds")]
pub use dds_worker::{RawAdapter, RawCdr, RawDecoder};
pub use error::{BridgeError, Result};
pub use keys::Qos;
#[cfg(any(feature = "zenoh", feature = "dds"))]
pub use live::{Bridge, Outlet};
/// The DDS library the bridge speaks, for a peer in the same build (the
/// server's tests publish commands with it as a ROS 2 node would).
#[cfg(feature = "dds")]
pub use rustdds;
/// The Zenoh library the bridge speaks, for a peer in the same build (the
/// server's tests and benches subscribe with it as a ROS 2 node would).
#[cfg(feature = "zenoh")]
pub use zenoh;

/// The default endpoint: rmw_zenoh's router address, loopback only.
pub const DEFAULT_ENDPOINT: &str = "tcp/127.0.0.1:7447";

/// How long a connection to the bridge's port may take to complete Zenoh's
/// handshake before it is closed (ms). Zenoh's default is 10 s; a ROS 2
/// node's handshake takes milliseconds on one host and a few round trips
/// across a network, while a socket that never speaks held a handshake
/// slot for the whole 10 s.
pub const HANDSHAKE_TIMEOUT_MS: u64 = 2_000;

/// Most connections in the middle of the handshake at once; a connection
/// past it is refused until one completes or times out. Zenoh's default
/// is 100, which about 100 idle sockets filled, keeping every ROS 2 node
/// out for as long as they were reopened. Each pending handshake holds a
/// descriptor and a few KiB; an attacker now needs this many sockets
/// reopened every [`HANDSHAKE_TIMEOUT_MS`].
pub const MAX_PENDING_HANDSHAKES: usize = 1_024;

/// Whether the bridge is the Zenoh router ROS 2 nodes connect to, or a
/// client of a router that runs already (`ros2 run rmw_zenoh_cpp rmw_zenohd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Listen on the endpoint as a router (the default).
    #[default]
    Router,
    /// Connect to a router at the endpoint.
    Client,
}

/// How the bridge joins the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeConfig {
    /// `tcp/<host>:<port>`: where to listen (router) or connect (client).
    pub endpoint: String,
    /// Router or client.
    pub mode: Mode,
    /// ROS domain id (`ROS_DOMAIN_ID`, 0–232), the first chunk of every key.
    pub domain_id: u32,
    /// A namespace for the vehicles' topics and the node (`""` or `/`:
    /// the root; `/sim`: `/sim/<vehicle>/odom`).
    pub namespace: String,
    /// The node's name.
    pub node_name: String,
    /// Zenoh multicast scouting (UDP multicast: off by default so nothing
    /// leaves the machine unasked).
    pub scouting: bool,
    /// Batches that may wait for the Zenoh thread; more are dropped.
    pub queue: usize,
}

impl Default for BridgeConfig {
    fn default() -> Self {
        BridgeConfig {
            endpoint: DEFAULT_ENDPOINT.to_owned(),
            mode: Mode::Router,
            domain_id: 0,
            namespace: String::new(),
            node_name: "oceansim".to_owned(),
            scouting: false,
            queue: 64,
        }
    }
}

impl BridgeConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(BridgeError::Config(m));
        let Some(addr) = self.endpoint.strip_prefix("tcp/") else {
            return bad(format!(
                "endpoint {:?}: only tcp/<host>:<port> endpoints are built in",
                self.endpoint
            ));
        };
        match addr.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {}
            _ => {
                return bad(format!(
                    "endpoint {:?}: expected tcp/<host>:<port>",
                    self.endpoint
                ))
            }
        }
        if self.domain_id > 232 {
            return bad(format!(
                "domain id {}: ROS domain ids are 0 to 232",
                self.domain_id
            ));
        }
        keys::check_ros_name("namespace", &self.namespace, true).map_err(BridgeError::Config)?;
        keys::check_ros_name("node name", &self.node_name, false).map_err(BridgeError::Config)?;
        if self.queue == 0 {
            return bad("queue must hold at least one batch".into());
        }
        Ok(())
    }
}

/// One message to publish.
#[derive(Debug, Clone)]
pub struct Message {
    /// Fully qualified topic name before the bridge's namespace (`/auv/odom`).
    pub topic: String,
    /// ROS type name (`nav_msgs/msg/Odometry`).
    pub ros_type: &'static str,
    /// Its RIHS01 hash (called once per topic).
    pub type_hash: fn() -> String,
    /// CDR bytes, with their 4-byte encapsulation header.
    pub payload: Vec<u8>,
    /// The QoS its publisher declares.
    pub qos: Qos,
}

/// A vehicle: what it is called in the simulator and its topic namespace
/// (`/auv`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vehicle {
    /// Agent name, as the protocol's `agent_id`.
    pub agent: String,
    /// Its namespace, before the bridge's (`/auv`).
    pub namespace: String,
}

/// What the caller hands the bridge.
#[derive(Debug, Clone)]
pub enum Outgoing {
    /// The vehicles now in the scene: each gets its command subscriptions;
    /// the publishers and subscriptions of vehicles gone are withdrawn.
    Vehicles(Vec<Vehicle>),
    /// Messages to publish, in order.
    Messages(Vec<Message>),
}

/// A command received: the TCP protocol's request line for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The agent it is for.
    pub agent: String,
    /// The topic it came on.
    pub topic: String,
    /// The request line (`{"type":"command","action":"set_body_wrench",...}`).
    pub line: String,
}

/// What the bridge has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BridgeStats {
    /// Samples published.
    pub published: u64,
    /// Batches dropped because the bridge's thread was behind.
    pub dropped_batches: u64,
    /// Command samples received.
    pub received: u64,
    /// Of those, refused as malformed (`bridge_bad_message`).
    pub bad_messages: u64,
    /// Of those, dropped because the simulator was behind.
    pub commands_dropped: u64,
    /// Samples a reliable DDS writer refused because a reader had not
    /// acknowledged the ones before (the bridge never waits for one).
    pub writes_refused: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_are_checked() {
        assert!(BridgeConfig::default().validate().is_ok());
        let with = |f: fn(&mut BridgeConfig)| {
            let mut c = BridgeConfig::default();
            f(&mut c);
            c.validate().map_err(|e| e.code())
        };
        assert_eq!(
            with(|c| c.endpoint = "udp/1.2.3.4:7".into()),
            Err("bridge_config")
        );
        assert_eq!(
            with(|c| c.endpoint = "tcp/127.0.0.1".into()),
            Err("bridge_config")
        );
        assert_eq!(
            with(|c| c.endpoint = "tcp/:7447".into()),
            Err("bridge_config")
        );
        assert_eq!(with(|c| c.domain_id = 233), Err("bridge_config"));
        assert_eq!(
            with(|c| c.namespace = "sim ns".into()),
            Err("bridge_config")
        );
        assert_eq!(with(|c| c.node_name = "a/b".into()), Err("bridge_config"));
        assert_eq!(with(|c| c.queue = 0), Err("bridge_config"));
        assert_eq!(with(|c| c.namespace = "/sim".into()), Ok(()));
    }
}

#[cfg(all(doctest, feature = "zenoh"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
