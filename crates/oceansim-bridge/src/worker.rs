//! The Zenoh side, on a thread of its own: Zenoh's calls block on its own
//! runtime, which must not run inside the simulator's.

use crate::commands::{request_line, CommandTopic};
use crate::counters::Counters;
use crate::keys::{self, EntityKind, NodeKey, Qos, TopicKey};
use crate::{BridgeConfig, Command, Message, Mode, Outgoing, Vehicle};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use zenoh::key_expr::KeyExpr;
use zenoh::liveliness::LivelinessToken;
use zenoh::pubsub::{Publisher, Subscriber};
use zenoh::qos::{CongestionControl, Priority};
use zenoh::Wait;

/// How often the latest `/tf_static` is sent again while the simulation
/// moves, for late subscribers that declare no liveliness token (ROS
/// nodes do, and are sent it at once).
const TF_STATIC_PERIOD: Duration = Duration::from_secs(1);

fn zerr(what: &str, e: impl std::fmt::Display) -> crate::BridgeError {
    crate::BridgeError::Zenoh(format!("{what}: {e}"))
}

/// The Zenoh configuration for `c`: one TCP endpoint, multicast scouting
/// off unless asked for, handshakes bounded in time and number
/// ([`crate::HANDSHAKE_TIMEOUT_MS`], [`crate::MAX_PENDING_HANDSHAKES`]).
pub(crate) fn zenoh_config(c: &BridgeConfig) -> crate::Result<zenoh::Config> {
    let mut z = zenoh::Config::default();
    let set = |z: &mut zenoh::Config, key: &str, value: serde_json::Value| {
        z.insert_json5(key, &value.to_string())
            .map_err(|e| crate::BridgeError::Config(format!("zenoh {key}: {e}")))
    };
    let endpoints = serde_json::Value::from(vec![c.endpoint.clone()]);
    match c.mode {
        Mode::Router => {
            set(&mut z, "mode", "router".into())?;
            set(&mut z, "listen/endpoints", endpoints)?;
        }
        Mode::Client => {
            set(&mut z, "mode", "client".into())?;
            set(&mut z, "connect/endpoints", endpoints)?;
            // Fail at start, with a clear error, when no router answers.
            set(&mut z, "connect/timeout_ms", 5000.into())?;
            set(&mut z, "connect/exit_on_failure", true.into())?;
        }
    }
    set(&mut z, "scouting/multicast/enabled", c.scouting.into())?;
    set(
        &mut z,
        "transport/unicast/accept_timeout",
        crate::HANDSHAKE_TIMEOUT_MS.into(),
    )?;
    set(
        &mut z,
        "transport/unicast/accept_pending",
        crate::MAX_PENDING_HANDSHAKES.into(),
    )?;
    Ok(z)
}

struct Pub {
    publisher: Publisher<'static>,
    _token: LivelinessToken,
    gid: [u8; 16],
    sequence: i64,
}

struct Sub {
    _subscriber: Subscriber<()>,
    _token: LivelinessToken,
}

pub(crate) struct Worker {
    session: zenoh::Session,
    config: BridgeConfig,
    node: NodeKey,
    _node_token: LivelinessToken,
    next_id: u64,
    publishers: BTreeMap<String, Pub>,
    /// Per agent, its namespace and subscriptions.
    vehicles: crate::served::Served<Sub>,
    commands: SyncSender<Command>,
    counters: Arc<Counters>,
    tf_static: Option<Message>,
    tf_static_sent: Instant,
    /// Set when a ROS node declares a subscription to `/tf_static` (its
    /// liveliness token appears): it is sent the latest one, as a
    /// transient-local publisher would.
    tf_static_wanted: Arc<AtomicBool>,
    _liveliness: Subscriber<()>,
}

impl Worker {
    pub(crate) fn open(
        config: BridgeConfig,
        commands: SyncSender<Command>,
        counters: Arc<Counters>,
    ) -> crate::Result<Worker> {
        let session = zenoh::open(zenoh_config(&config)?)
            .wait()
            .map_err(|e| zerr(&format!("opening {}", config.endpoint), e))?;
        let node = NodeKey {
            domain: config.domain_id,
            zid: session.zid().to_string(),
            namespace: config.namespace.clone(),
            name: config.node_name.clone(),
        };
        let token = keys::liveliness_token(&node, 0, EntityKind::Node, None);
        let node_token = session
            .liveliness()
            .declare_token(token)
            .wait()
            .map_err(|e| zerr("declaring the node", e))?;
        let tf_static_wanted = Arc::new(AtomicBool::new(false));
        let liveliness = {
            let wanted = tf_static_wanted.clone();
            // A subscription token's topic chunk, as rmw_zenoh writes it.
            let topic = keys::mangle(&keys::join_namespace(&config.namespace, "/tf_static"));
            session
                .liveliness()
                .declare_subscriber(format!("{}/{}/**", keys::ADMIN_SPACE, config.domain_id))
                .callback(move |sample| {
                    let key = sample.key_expr().as_str();
                    let chunks: Vec<&str> = key.split('/').collect();
                    if sample.kind() == zenoh::sample::SampleKind::Put
                        && chunks.get(5) == Some(&"MS")
                        && chunks.get(9) == Some(&topic.as_str())
                    {
                        wanted.store(true, Ordering::Relaxed);
                    }
                })
                .wait()
                .map_err(|e| zerr("watching the graph's subscriptions", e))?
        };
        Ok(Worker {
            session,
            config,
            node,
            _node_token: node_token,
            next_id: 1,
            publishers: BTreeMap::new(),
            vehicles: BTreeMap::new(),
            commands,
            counters,
            tf_static: None,
            tf_static_sent: Instant::now(),
            tf_static_wanted,
            _liveliness: liveliness,
        })
    }

    pub(crate) fn zid(&self) -> String {
        self.node.zid.clone()
    }

    /// The topic's name on the network: under the bridge's namespace
    /// unless it is one of [`keys::GLOBAL_TOPICS`].
    fn full_topic(&self, topic: &str) -> String {
        keys::join_namespace(&self.config.namespace, topic)
    }

    fn token(
        &mut self,
        kind: EntityKind,
        topic: &TopicKey<'_>,
    ) -> crate::Result<(LivelinessToken, [u8; 16])> {
        let id = self.next_id;
        self.next_id += 1;
        let key = keys::liveliness_token(&self.node, id, kind, Some(topic));
        let gid = keys::gid(&key);
        let token = self
            .session
            .liveliness()
            .declare_token(key)
            .wait()
            .map_err(|e| zerr("declaring a liveliness token", e))?;
        Ok((token, gid))
    }

    pub(crate) fn run(mut self, rx: Receiver<Outgoing>, stop: Arc<AtomicBool>) {
        let mut warn = oceansim_log::Throttle::new(Duration::from_secs(5));
        while !stop.load(Ordering::Relaxed) {
            let got = match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(o) => Some(o),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let result = match got {
                Some(Outgoing::Vehicles(v)) => self.set_vehicles(v),
                Some(Outgoing::Messages(batch)) => self.publish_all(batch),
                None => Ok(()),
            }
            .and_then(|()| self.serve_late_subscribers());
            if let Err(e) = result {
                if let Some(held) = warn.admit() {
                    tracing::warn!("ros2 bridge: {e}{}", oceansim_log::held_back(held));
                }
            }
        }
        self.publishers.clear();
        self.vehicles.clear();
        let _ = self.session.close().wait();
    }

    fn publish_all(&mut self, batch: Vec<Message>) -> crate::Result<()> {
        let moving = batch.iter().any(|m| m.topic == "/clock");
        for m in batch {
            if m.topic == "/tf_static" {
                self.tf_static = Some(m.clone());
                self.tf_static_sent = Instant::now();
            }
            self.publish(m)?;
        }
        if moving && self.tf_static_sent.elapsed() >= TF_STATIC_PERIOD {
            if let Some(m) = self.tf_static.clone() {
                self.tf_static_sent = Instant::now();
                self.publish(m)?;
            }
        }
        Ok(())
    }

    /// Sends the latest `/tf_static` when a subscription to it appeared.
    fn serve_late_subscribers(&mut self) -> crate::Result<()> {
        if !self.tf_static_wanted.swap(false, Ordering::Relaxed) {
            return Ok(());
        }
        match self.tf_static.clone() {
            Some(m) => {
                self.tf_static_sent = Instant::now();
                self.publish(m)
            }
            None => Ok(()),
        }
    }

    /// Publishes `m`, its payload moved into Zenoh (no copy on this path).
    fn publish(&mut self, m: Message) -> crate::Result<()> {
        let topic = self.full_topic(&m.topic);
        if !self.publishers.contains_key(&topic) {
            let hash = (m.type_hash)();
            let key = keys::topic_key(self.config.domain_id, &topic, m.ros_type, &hash);
            let key = KeyExpr::try_from(key).map_err(|e| zerr("topic key", e))?;
            // State (/clock, /tf, odometry: small, and what every node
            // needs) goes ahead of sensor data in Zenoh's queues, so a
            // link full of images drops images, not the clock.
            let priority = if m.qos.reliable {
                Priority::InteractiveHigh
            } else {
                Priority::Data
            };
            let publisher = self
                .session
                .declare_publisher(key)
                // Never wait for a slow subscriber: drop, like the viewer.
                .congestion_control(CongestionControl::Drop)
                .priority(priority)
                .wait()
                .map_err(|e| zerr("declaring a publisher", e))?;
            let (token, gid) = self.token(
                EntityKind::Publisher,
                &TopicKey {
                    topic: &topic,
                    ros_type: m.ros_type,
                    type_hash: &hash,
                    qos: m.qos,
                },
            )?;
            self.publishers.insert(
                topic.clone(),
                Pub {
                    publisher,
                    _token: token,
                    gid,
                    sequence: 0,
                },
            );
        }
        let p = self.publishers.get_mut(&topic).expect("declared above");
        p.sequence += 1;
        let now_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i64);
        let attachment = keys::attachment(p.sequence, now_ns, &p.gid);
        p.publisher
            .put(m.payload)
            .attachment(attachment)
            .wait()
            .map_err(|e| zerr(&format!("publishing {topic}"), e))?;
        self.counters.published.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn set_vehicles(&mut self, vehicles: Vec<Vehicle>) -> crate::Result<()> {
        // Vehicles gone (or renamespaced): their publishers and
        // subscriptions go, and with them their tokens.
        let prefixes =
            crate::served::drop_departed(&mut self.vehicles, &vehicles, &self.config.namespace);
        self.publishers
            .retain(|topic, _| !prefixes.iter().any(|p| topic.starts_with(p.as_str())));
        for v in vehicles {
            if self.vehicles.contains_key(&v.agent) {
                continue;
            }
            let mut subs = Vec::new();
            for which in CommandTopic::ALL {
                subs.push(self.subscribe(&v, which)?);
            }
            self.vehicles
                .insert(v.agent.clone(), (v.namespace.clone(), subs));
        }
        Ok(())
    }

    fn subscribe(&mut self, v: &Vehicle, which: CommandTopic) -> crate::Result<Sub> {
        let topic = self.full_topic(&format!("{}/{}", v.namespace, which.suffix()));
        let (ros_type, hash) = which.ros_type();
        let key = keys::topic_key(self.config.domain_id, &topic, ros_type, &hash);
        let key = KeyExpr::try_from(key).map_err(|e| zerr("topic key", e))?;
        let (tx, counters, agent) = (
            self.commands.clone(),
            self.counters.clone(),
            v.agent.clone(),
        );
        let topic_name = topic.clone();
        let warn = std::sync::Mutex::new(oceansim_log::Throttle::new(Duration::from_secs(5)));
        let subscriber = self
            .session
            .declare_subscriber(key)
            .callback(move |sample| {
                counters.received.fetch_add(1, Ordering::Relaxed);
                let payload = sample.payload();
                let line = if payload.len() > crate::commands::MAX_COMMAND_BYTES {
                    Err(crate::BridgeError::BadMessage(format!(
                        "{} bytes on {topic_name}: more than {}",
                        payload.len(),
                        crate::commands::MAX_COMMAND_BYTES
                    )))
                } else {
                    request_line(&agent, which, &payload.to_bytes())
                };
                match line {
                    Ok(line) => {
                        let c = Command {
                            agent: agent.clone(),
                            topic: topic_name.clone(),
                            line,
                        };
                        if let Err(TrySendError::Full(_)) = tx.try_send(c) {
                            counters.commands_dropped.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Err(e) => {
                        counters.bad_messages.fetch_add(1, Ordering::Relaxed);
                        if let Some(held) = warn.lock().ok().and_then(|mut t| t.admit()) {
                            tracing::warn!("ros2 bridge: {e}{}", oceansim_log::held_back(held));
                        }
                    }
                }
            })
            .wait()
            .map_err(|e| zerr("declaring a subscription", e))?;
        let (token, _) = self.token(
            EntityKind::Subscription,
            &TopicKey {
                topic: &topic,
                ros_type,
                type_hash: &hash,
                qos: Qos::DEFAULT,
            },
        )?;
        Ok(Sub {
            _subscriber: subscriber,
            _token: token,
        })
    }
}
