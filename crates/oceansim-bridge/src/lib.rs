//! # oceansim-bridge
//!
//! A live ROS 2 bridge over Zenoh, speaking what ROS 2's Zenoh middleware
//! (`rmw_zenoh_cpp`, Jazzy and later) speaks: CDR payloads on its key
//! expressions, its liveliness tokens for the node, every publisher and
//! every subscription, and its attachment on every sample. ROS 2 nodes
//! started with `RMW_IMPLEMENTATION=rmw_zenoh_cpp` see the simulator's
//! topics in `ros2 topic list`, echo them, and publish commands to it. No
//! ROS installation is needed on this side.
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
//!   default endpoint is loopback only.
//!
//! ## Example
//!
//! ```no_run
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
//! # Ok::<(), oceansim_bridge::BridgeError>(())
//! ```
#![warn(missing_docs)]

pub mod commands;
mod error;
pub mod keys;
mod worker;

pub use error::{BridgeError, Result};
pub use keys::Qos;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The default endpoint: rmw_zenoh's router address, loopback only.
pub const DEFAULT_ENDPOINT: &str = "tcp/127.0.0.1:7447";

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

/// Counters the bridge keeps.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    published: AtomicU64,
    dropped_batches: AtomicU64,
    received: AtomicU64,
    bad_messages: AtomicU64,
    commands_dropped: AtomicU64,
}

/// What the bridge has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BridgeStats {
    /// Samples published.
    pub published: u64,
    /// Batches dropped because the Zenoh thread was behind.
    pub dropped_batches: u64,
    /// Command samples received.
    pub received: u64,
    /// Of those, refused as malformed (`bridge_bad_message`).
    pub bad_messages: u64,
    /// Of those, dropped because the simulator was behind.
    pub commands_dropped: u64,
}

fn offer(tx: &SyncSender<Outgoing>, counters: &Counters, o: Outgoing) -> bool {
    match tx.try_send(o) {
        Ok(()) => true,
        Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
            counters.dropped_batches.fetch_add(1, Ordering::Relaxed);
            false
        }
    }
}

/// [`Bridge::offer`] for another thread ([`Bridge::outlet`]).
#[derive(Debug, Clone)]
pub struct Outlet {
    tx: Option<SyncSender<Outgoing>>,
    counters: Arc<Counters>,
}

impl Outlet {
    /// Hands `o` to the Zenoh thread without waiting; `false` when it was
    /// dropped (the thread is behind, or gone).
    pub fn offer(&self, o: Outgoing) -> bool {
        match &self.tx {
            Some(tx) => offer(tx, &self.counters, o),
            None => false,
        }
    }
}

/// Most commands waiting for the simulator; more are dropped and counted.
const COMMAND_QUEUE: usize = 256;

/// A running bridge; dropping it withdraws every token and closes the
/// session.
#[derive(Debug)]
pub struct Bridge {
    tx: Option<SyncSender<Outgoing>>,
    commands: Receiver<Command>,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    zid: String,
}

impl Bridge {
    /// Validates `config`, opens the Zenoh session and declares the node;
    /// returns once the endpoint listens (router) or is connected (client).
    pub fn start(config: BridgeConfig) -> Result<Bridge> {
        config.validate()?;
        let (tx, rx) = mpsc::sync_channel(config.queue);
        let (cmd_tx, commands) = mpsc::sync_channel(COMMAND_QUEUE);
        let counters = Arc::new(Counters::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel();
        let thread = {
            let (counters, stop) = (counters.clone(), stop.clone());
            std::thread::Builder::new()
                .name("oceansim-ros2".into())
                .spawn(
                    move || match worker::Worker::open(config, cmd_tx, counters) {
                        Ok(w) => {
                            let _ = ready_tx.send(Ok(w.zid()));
                            w.run(rx, stop);
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                        }
                    },
                )
                .map_err(|e| BridgeError::Zenoh(format!("starting the bridge thread: {e}")))?
        };
        let zid = match ready_rx.recv() {
            Ok(Ok(zid)) => zid,
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(e);
            }
            Err(_) => {
                let _ = thread.join();
                return Err(BridgeError::Zenoh(
                    "the bridge thread ended at start".into(),
                ));
            }
        };
        Ok(Bridge {
            tx: Some(tx),
            commands,
            counters,
            stop,
            thread: Some(thread),
            zid,
        })
    }

    /// Hands `o` to the Zenoh thread without waiting; `false` when it was
    /// dropped (the thread is behind, or gone).
    pub fn offer(&self, o: Outgoing) -> bool {
        match &self.tx {
            Some(tx) => offer(tx, &self.counters, o),
            None => false,
        }
    }

    /// A handle that offers from another thread (converting frames to
    /// CDR off the simulator's thread, say), while this one keeps the
    /// commands. It stops working once the bridge is dropped.
    pub fn outlet(&self) -> Outlet {
        Outlet {
            tx: self.tx.clone(),
            counters: self.counters.clone(),
        }
    }

    /// The commands received since the last call, oldest first, without
    /// waiting.
    pub fn commands(&self) -> impl Iterator<Item = Command> + '_ {
        self.commands.try_iter()
    }

    /// The counters so far.
    pub fn stats(&self) -> BridgeStats {
        let c = &self.counters;
        BridgeStats {
            published: c.published.load(Ordering::Relaxed),
            dropped_batches: c.dropped_batches.load(Ordering::Relaxed),
            received: c.received.load(Ordering::Relaxed),
            bad_messages: c.bad_messages.load(Ordering::Relaxed),
            commands_dropped: c.commands_dropped.load(Ordering::Relaxed),
        }
    }

    /// The Zenoh session id, as it appears in the liveliness tokens.
    pub fn zid(&self) -> &str {
        &self.zid
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
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

    #[test]
    fn multicast_scouting_is_off_by_default() {
        let z = worker::zenoh_config(&BridgeConfig::default()).unwrap();
        let text = format!("{z}");
        assert!(text.contains("\"tcp/127.0.0.1:7447\""), "{text}");
        let multicast = z.get_json("scouting/multicast/enabled").unwrap();
        assert_eq!(multicast, "false");
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
