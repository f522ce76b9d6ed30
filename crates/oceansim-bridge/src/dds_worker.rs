//! The DDS participant's thread (the `dds` feature): a rustdds
//! participant, a writer per topic, readers for the vehicles' command
//! topics, and the `ros_discovery_info` writer that names the node.

use crate::commands::{request_line, CommandTopic};
use crate::counters::Counters;
use crate::dds::{self, DiscoveryRange};
use crate::keys::{self, Qos};
use crate::{BridgeError, Command, DdsConfig, Message, Outgoing, Vehicle};
use rustdds::bytes::Bytes;
use rustdds::no_key::{DataReader, DataWriter, DeserializerAdapter, SerializerAdapter};
use rustdds::policy::{Durability, History};
use rustdds::{
    DomainParticipant, DomainParticipantBuilder, QosPolicies, QosPolicyBuilder, RTPSEntity,
    RepresentationIdentifier, TopicKind,
};
use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;

/// How long the thread waits for a batch before it reads the command
/// topics again: a command's latency on this side.
const POLL: Duration = Duration::from_millis(5);

/// Command samples taken from one reader per poll (more wait for the
/// next; the reader keeps the last [`Qos::DEFAULT`]`.depth`).
const TAKE_PER_POLL: usize = 16;

fn derr(what: &str, e: impl std::fmt::Debug) -> BridgeError {
    BridgeError::Dds(format!("{what}: {e:?}"))
}

/// A sample as CDR bytes (encapsulation header included), passed through
/// rustdds as they are: the bridge's payloads come encoded
/// ([`Message::payload`]), and commands are decoded by [`request_line`] so
/// that a bad one is counted, not lost inside rustdds. Public for a peer
/// in the same build (the server's tests write and read with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCdr(Bytes);

impl RawCdr {
    /// A payload, its 4-byte encapsulation header first.
    pub fn new(payload: Vec<u8>) -> RawCdr {
        RawCdr(Bytes::from(payload))
    }

    /// The payload, its 4-byte encapsulation header first.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// rustdds's adapter for [`RawCdr`]: writes the body after the 4-byte
/// encapsulation header (rustdds writes its own), reads it back with one.
#[derive(Debug)]
pub struct RawAdapter;

impl SerializerAdapter<RawCdr> for RawAdapter {
    type Error = std::convert::Infallible;

    fn output_encoding() -> RepresentationIdentifier {
        RepresentationIdentifier::CDR_LE
    }

    fn to_bytes(value: &RawCdr) -> Result<Bytes, Self::Error> {
        Ok(value.0.slice(value.0.len().min(4)..))
    }
}

impl DeserializerAdapter<RawCdr> for RawAdapter {
    type Error = std::convert::Infallible;
    type Decoded = RawCdr;

    fn supported_encodings() -> &'static [RepresentationIdentifier] {
        &[
            RepresentationIdentifier::CDR_LE,
            RepresentationIdentifier::CDR_BE,
        ]
    }

    fn transform_decoded(decoded: RawCdr) -> RawCdr {
        decoded
    }
}

impl rustdds::no_key::DefaultDecoder<RawCdr> for RawAdapter {
    type Decoder = RawDecoder;
    const DECODER: RawDecoder = RawDecoder;
}

/// Puts the encapsulation header back in front of a received body. A
/// body past [`crate::commands::MAX_COMMAND_BYTES`] is not copied: its
/// first bytes are kept with its length, which [`request_line`] refuses.
#[derive(Debug, Clone)]
pub struct RawDecoder;

impl rustdds::no_key::Decode<'_, RawCdr> for RawDecoder {
    type Error = std::convert::Infallible;

    fn decode_bytes(
        self,
        input: &[u8],
        encoding: RepresentationIdentifier,
    ) -> Result<RawCdr, Self::Error> {
        let id = encoding.to_bytes();
        let mut v = Vec::with_capacity(4 + input.len().min(crate::commands::MAX_COMMAND_BYTES + 1));
        v.extend_from_slice(&[id[0], id[1], 0, 0]);
        if input.len() > crate::commands::MAX_COMMAND_BYTES {
            // Oversized: a marker of the right length class, no copy.
            v.resize(4 + crate::commands::MAX_COMMAND_BYTES + 1, 0);
        } else {
            v.extend_from_slice(input);
        }
        Ok(RawCdr(Bytes::from(v)))
    }
}

/// The DDS QoS of a bridge [`Qos`]: reliable writers never wait for a
/// reader's acknowledgements (a full window refuses the sample at once).
fn dds_qos(q: Qos) -> QosPolicies {
    let b = QosPolicyBuilder::new()
        .history(History::KeepLast {
            depth: q.depth.clamp(1, i32::MAX as u32) as i32,
        })
        .durability(if q.transient_local {
            Durability::TransientLocal
        } else {
            Durability::Volatile
        });
    let b = if q.reliable {
        b.reliable(rustdds::Duration::ZERO)
    } else {
        b.best_effort()
    };
    b.build()
}

struct Writer {
    writer: DataWriter<RawCdr, RawAdapter>,
    gid: [u8; 16],
}

struct Reader {
    reader: DataReader<RawCdr, RawAdapter>,
    gid: [u8; 16],
    which: CommandTopic,
    topic: String,
}

/// The gids of a node's readers and writers, as `ros_discovery_info` lists
/// them.
type Entities = (BTreeSet<[u8; 16]>, BTreeSet<[u8; 16]>);

pub(crate) struct DdsWorker {
    // Field order is drop order: endpoints before the participant.
    writers: BTreeMap<String, Writer>,
    /// Per agent, its namespace and command readers.
    vehicles: crate::served::Served<Reader>,
    info: DataWriter<RawCdr, RawAdapter>,
    /// The entities `ros_discovery_info` last said the node has.
    announced: Option<Entities>,
    publisher: rustdds::Publisher,
    subscriber: rustdds::Subscriber,
    participant: DomainParticipant,
    config: DdsConfig,
    commands: SyncSender<Command>,
    counters: Arc<Counters>,
    warn: oceansim_log::Throttle,
    bad: oceansim_log::Throttle,
}

impl DdsWorker {
    pub(crate) fn open(
        config: DdsConfig,
        commands: SyncSender<Command>,
        counters: Arc<Counters>,
    ) -> crate::Result<DdsWorker> {
        let domain = u16::try_from(config.domain_id)
            .map_err(|_| BridgeError::Config(format!("domain id {}", config.domain_id)))?;
        let builder = DomainParticipantBuilder::new(domain).same_host_loopback(true);
        let builder = match config.range {
            // Only loopback is used for multicast (loopback carries none
            // unless configured to) and advertised; peers are announced
            // to by unicast on 127.0.0.1's well-known ports.
            DiscoveryRange::Localhost => {
                builder.with_only_networks([IpAddr::V4(Ipv4Addr::LOCALHOST)])
            }
            DiscoveryRange::Subnet => builder,
        };
        let participant = builder
            .build()
            .map_err(|e| derr(&format!("making a participant on domain {domain}"), e))?;
        let publisher = participant
            .create_publisher(&QosPolicyBuilder::new().build())
            .map_err(|e| derr("making a publisher", e))?;
        let subscriber = participant
            .create_subscriber(&QosPolicyBuilder::new().build())
            .map_err(|e| derr("making a subscriber", e))?;
        // rmw_dds_common's qos_profile_ros_discovery_info.
        let info_qos = dds_qos(Qos::LATCHED);
        let topic = participant
            .create_topic(
                dds::DISCOVERY_INFO_TOPIC.to_owned(),
                dds::DISCOVERY_INFO_TYPE.to_owned(),
                &info_qos,
                TopicKind::NoKey,
            )
            .map_err(|e| derr("making ros_discovery_info", e))?;
        let info = publisher
            .create_datawriter_no_key::<RawCdr, RawAdapter>(&topic, Some(info_qos))
            .map_err(|e| derr("writing ros_discovery_info", e))?;
        let mut w = DdsWorker {
            writers: BTreeMap::new(),
            vehicles: BTreeMap::new(),
            info,
            announced: None,
            publisher,
            subscriber,
            participant,
            config,
            commands,
            counters,
            warn: oceansim_log::Throttle::new(Duration::from_secs(5)),
            bad: oceansim_log::Throttle::new(Duration::from_secs(5)),
        };
        w.announce()?;
        Ok(w)
    }

    /// The participant's GUID, hex.
    pub(crate) fn id(&self) -> String {
        self.participant
            .guid()
            .to_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    pub(crate) fn run(mut self, rx: Receiver<Outgoing>, stop: Arc<AtomicBool>) {
        while !stop.load(Ordering::Relaxed) {
            let got = match rx.recv_timeout(POLL) {
                Ok(o) => Some(o),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let result = match got {
                Some(Outgoing::Vehicles(v)) => self.set_vehicles(v),
                Some(Outgoing::Messages(batch)) => self.publish_all(batch),
                None => Ok(()),
            }
            .and_then(|()| self.announce());
            if let Err(e) = result {
                if let Some(held) = self.warn.admit() {
                    tracing::warn!("ros2 dds bridge: {e}{}", oceansim_log::held_back(held));
                }
            }
            self.take_commands();
        }
        self.vehicles.clear();
        self.writers.clear();
    }

    fn full_topic(&self, topic: &str) -> String {
        keys::join_namespace(&self.config.namespace, topic)
    }

    /// Publishes the node's entities on `ros_discovery_info` when they
    /// changed since the last time.
    fn announce(&mut self) -> crate::Result<()> {
        let readers: BTreeSet<[u8; 16]> = self
            .vehicles
            .values()
            .flat_map(|(_, rs)| rs.iter().map(|r| r.gid))
            .collect();
        let writers: BTreeSet<[u8; 16]> = self.writers.values().map(|w| w.gid).collect();
        if self
            .announced
            .as_ref()
            .is_some_and(|(r, w)| *r == readers && *w == writers)
        {
            return Ok(());
        }
        let readers_v: Vec<[u8; 16]> = readers.iter().copied().collect();
        let writers_v: Vec<[u8; 16]> = writers.iter().copied().collect();
        let cdr = dds::participant_entities_info(
            self.participant.guid().to_bytes(),
            &self.config.node_namespace(),
            &self.config.node_name,
            &readers_v,
            &writers_v,
        );
        self.info
            .write(RawCdr(Bytes::from(cdr)), None)
            .map_err(|e| derr("publishing ros_discovery_info", e))?;
        self.announced = Some((readers, writers));
        Ok(())
    }

    fn publish_all(&mut self, batch: Vec<Message>) -> crate::Result<()> {
        let mut first_err = None;
        for m in batch {
            if let Err(e) = self.publish(m) {
                first_err.get_or_insert(e);
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    fn publish(&mut self, m: Message) -> crate::Result<()> {
        let topic = self.full_topic(&m.topic);
        if !self.writers.contains_key(&topic) {
            let qos = dds_qos(m.qos);
            let t = self
                .participant
                .create_topic(
                    dds::topic_name(&topic),
                    keys::dds_type_name(m.ros_type),
                    &qos,
                    TopicKind::NoKey,
                )
                .map_err(|e| derr(&format!("making topic {topic}"), e))?;
            let writer = self
                .publisher
                .create_datawriter_no_key::<RawCdr, RawAdapter>(&t, Some(qos))
                .map_err(|e| derr(&format!("writing {topic}"), e))?;
            let gid = writer.guid().to_bytes();
            self.writers.insert(topic.clone(), Writer { writer, gid });
        }
        let w = self.writers.get(&topic).expect("made above");
        match w.writer.write(RawCdr(Bytes::from(m.payload)), None) {
            Ok(()) => {
                self.counters.published.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(rustdds::dds::result::WriteError::WouldBlock { .. }) => {
                self.counters.writes_refused.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => Err(derr(&format!("publishing {topic}"), e)),
        }
    }

    fn set_vehicles(&mut self, vehicles: Vec<Vehicle>) -> crate::Result<()> {
        let prefixes =
            crate::served::drop_departed(&mut self.vehicles, &vehicles, &self.config.namespace);
        self.writers
            .retain(|topic, _| !prefixes.iter().any(|p| topic.starts_with(p.as_str())));
        for v in vehicles {
            if self.vehicles.contains_key(&v.agent) {
                continue;
            }
            let mut readers = Vec::new();
            for which in CommandTopic::ALL {
                readers.push(self.subscribe(&v, which)?);
            }
            self.vehicles
                .insert(v.agent.clone(), (v.namespace.clone(), readers));
        }
        Ok(())
    }

    fn subscribe(&mut self, v: &Vehicle, which: CommandTopic) -> crate::Result<Reader> {
        let topic = self.full_topic(&format!("{}/{}", v.namespace, which.suffix()));
        let (ros_type, _) = which.ros_type();
        let qos = dds_qos(Qos::DEFAULT);
        let t = self
            .participant
            .create_topic(
                dds::topic_name(&topic),
                keys::dds_type_name(ros_type),
                &qos,
                TopicKind::NoKey,
            )
            .map_err(|e| derr(&format!("making topic {topic}"), e))?;
        let reader = self
            .subscriber
            .create_datareader_no_key::<RawCdr, RawAdapter>(&t, Some(qos))
            .map_err(|e| derr(&format!("reading {topic}"), e))?;
        let gid = reader.guid().to_bytes();
        Ok(Reader {
            reader,
            gid,
            which,
            topic,
        })
    }

    /// Takes what arrived on the command topics and hands each on as a
    /// request line; a bad sample is counted and logged at a bounded rate.
    fn take_commands(&mut self) {
        for (agent, (_, readers)) in &mut self.vehicles {
            for r in readers.iter_mut() {
                for _ in 0..TAKE_PER_POLL {
                    let sample = match r.reader.take_next_sample() {
                        Ok(Some(s)) => s.into_value(),
                        Ok(None) => break,
                        Err(e) => {
                            if let Some(held) = self.warn.admit() {
                                tracing::warn!(
                                    "ros2 dds bridge: reading {}: {e:?}{}",
                                    r.topic,
                                    oceansim_log::held_back(held)
                                );
                            }
                            break;
                        }
                    };
                    self.counters.received.fetch_add(1, Ordering::Relaxed);
                    match request_line(agent, r.which, &sample.0) {
                        Ok(line) => {
                            let c = Command {
                                agent: agent.clone(),
                                topic: r.topic.clone(),
                                line,
                            };
                            if let Err(TrySendError::Full(_)) = self.commands.try_send(c) {
                                self.counters
                                    .commands_dropped
                                    .fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Err(e) => {
                            self.counters.bad_messages.fetch_add(1, Ordering::Relaxed);
                            if let Some(held) = self.bad.admit() {
                                tracing::warn!(
                                    "ros2 dds bridge: {} refused: {e}{}",
                                    r.topic,
                                    oceansim_log::held_back(held)
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustdds::no_key::Decode;

    #[test]
    fn raw_payloads_pass_through_with_their_header() {
        let payload = vec![0, 1, 0, 0, 7, 0, 0, 0];
        let body = RawAdapter::to_bytes(&RawCdr(Bytes::from(payload.clone()))).unwrap();
        assert_eq!(&body[..], &payload[4..]);
        let back = RawDecoder
            .decode_bytes(&body, RepresentationIdentifier::CDR_LE)
            .unwrap();
        assert_eq!(&back.0[..], &payload[..]);
        let be = RawDecoder
            .decode_bytes(&body, RepresentationIdentifier::CDR_BE)
            .unwrap();
        assert_eq!(&be.0[..4], &[0, 0, 0, 0]);
        // Oversized: refused by request_line without being copied whole.
        let huge = vec![0u8; 1 << 20];
        let raw = RawDecoder
            .decode_bytes(&huge, RepresentationIdentifier::CDR_LE)
            .unwrap();
        assert_eq!(raw.0.len(), 4 + crate::commands::MAX_COMMAND_BYTES + 1);
        let e = request_line("auv", CommandTopic::Wrench, &raw.0).unwrap_err();
        assert_eq!(e.code(), "bridge_bad_message");
    }

    #[test]
    fn qos_is_rmws() {
        let s = dds_qos(Qos::SENSOR_DATA);
        assert!(!s.is_reliable());
        assert_eq!(s.history(), Some(History::KeepLast { depth: 5 }));
        let l = dds_qos(Qos::LATCHED);
        assert!(l.is_reliable());
        assert_eq!(l.durability(), Some(Durability::TransientLocal));
        assert_eq!(
            l.reliable_max_blocking_time(),
            Some(rustdds::Duration::ZERO)
        );
        assert!(dds_qos(Qos::DEFAULT).is_volatile());
    }
}
