//! Simulated acoustic communication on the swarm crate's shared
//! [`AcousticMedium`] (the same model the fleet controllers use): one
//! channel every modem contends for, so messages that overlap in time queue
//! behind each other at the channel's bandwidth; propagation at 1,500 m/s;
//! seeded packet drop; range checked at send and again at arrival. The
//! channel is a world resource; each message in flight is an entity of the
//! world until the `acoustic_delivery` system moves it into its receiver's
//! inbox at its arrival time; `read_acoustic_inbox` reads and clears it.
//!
//! ## Bounds
//!
//! A payload is measured by [`payload_size`]: the larger of its JSON text
//! and the memory its value holds (a JSON array of zeros holds 16 times
//! its text), so neither replies nor the process grow past these whatever
//! shape the payloads have:
//!
//! | what | bound | past it |
//! |---|---|---|
//! | one payload | what fits the 1 MiB request line (~1 MB of text; its value up to ~16 MB) and [`MAX_AIR_TIME_S`] of air time | `invalid_message` |
//! | messages in flight | [`MAX_IN_FLIGHT`] (1,024) messages and [`MAX_IN_FLIGHT_BYTES`] (32 MiB) | the send is refused (`invalid_message`, "acoustic queue full", naming the bound); nothing changes |
//! | one inbox | [`MAX_INBOX`] (256) messages and [`MAX_INBOX_BYTES`] (4 MiB) | the oldest are dropped and counted (`inbox_overflow`) |
//! | all inboxes | [`MAX_INBOXES_BYTES`] (32 MiB) | the oldest of the largest inbox are dropped and counted |

use oceansim_protocol::payload::AcousticConfig;
use oceansim_protocol::reply::AcousticSummary;
pub use oceansim_protocol::reply::ChannelConfig;
pub use oceansim_protocol::reply::{AcousticDelivery as Delivered, AcousticStats, SendOutcome};
use oceansim_swarm::fleet::{AcousticMedium, MediumConfig};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};

/// Speed of sound in sea water (m/s).
pub const SOUND_SPEED_M_S: f64 = 1500.0;
/// Most messages in flight.
pub const MAX_IN_FLIGHT: usize = 1024;
/// Most payload bytes ([`payload_size`]) in flight, over all messages:
/// the count bound alone let 1,024 messages of 1 MB hold a gigabyte.
pub const MAX_IN_FLIGHT_BYTES: usize = 32 << 20;
/// Most delivered messages kept per inbox (oldest dropped).
pub const MAX_INBOX: usize = 256;
/// Most payload bytes ([`payload_size`]) kept per inbox (oldest
/// dropped), so one read or state reply stays a few MiB whatever was sent.
pub const MAX_INBOX_BYTES: usize = 4 << 20;
/// Most payload bytes ([`payload_size`]) kept over all inboxes (the
/// oldest messages of the largest inbox dropped): 65 agents' full inboxes
/// would otherwise hold 260 MiB.
pub const MAX_INBOXES_BYTES: usize = 32 << 20;

/// What a payload costs to hold (bytes): the larger of its JSON text and
/// an estimate of the memory its value takes (every JSON value is a
/// 32-byte node, plus its string's or key's bytes and a map entry's
/// overhead). A payload from the wire nests at most 128 deep (the
/// parser's limit).
pub fn payload_size(v: &Value) -> usize {
    const NODE: usize = std::mem::size_of::<Value>();
    // A map entry: its key (String header and bytes) and tree overhead.
    const ENTRY: usize = std::mem::size_of::<String>() + 16;
    let mut held = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        held += NODE;
        match v {
            Value::String(s) => held += s.len(),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (k, v) in map {
                    held += ENTRY + k.len();
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    held.max(json_len(v))
}

/// Length of `v`'s JSON text (bytes), counted without building it.
pub fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    // Writing a Value to a counter cannot fail.
    let _ = serde_json::to_writer(&mut n, v);
    n.0
}

/// The channel a scenario starts with: 0.2 s latency, 1 kbit/s, 500 m
/// range, no drops, drops seeded by `seed`.
pub fn default_channel(seed: u64) -> ChannelConfig {
    ChannelConfig {
        latency_s: 0.2,
        bandwidth_bps: 1000.0,
        range_m: 500.0,
        packet_drop_rate: 0.0,
        seed,
    }
}

/// A message in flight: the payload of a message entity, and where its
/// sender was when it went out (m, NED) — the arrival's range check is
/// from there, wherever the sender has gone since.
#[derive(Debug, Clone, PartialEq)]
pub struct InFlight(pub Delivered, pub [f64; 3]);

/// Longest air time one message may take (s): a longer one is refused, so
/// one request cannot hold the shared channel for hours.
pub const MAX_AIR_TIME_S: f64 = 600.0;

fn medium_config(c: &ChannelConfig) -> MediumConfig {
    MediumConfig {
        latency_s: c.latency_s,
        bandwidth_bps: c.bandwidth_bps,
        range_m: c.range_m,
        packet_drop_rate: c.packet_drop_rate,
        sound_speed_m_s: SOUND_SPEED_M_S,
        seed: c.seed,
    }
}

/// The channel.
#[derive(Debug, Clone)]
pub struct AcousticChannel {
    /// Parameters.
    pub config: ChannelConfig,
    medium: AcousticMedium,
    next_id: u64,
    in_flight: usize,
    /// Payload bytes ([`payload_size`]) in flight.
    in_flight_bytes: usize,
    /// Inboxes by receiver.
    pub inboxes: BTreeMap<String, VecDeque<Delivered>>,
    /// Payload bytes held per inbox.
    inbox_bytes: BTreeMap<String, usize>,
    /// Running counters since the channel was created.
    pub stats: AcousticStats,
    /// The latest deliveries, oldest first (at most [`RECENT_LINKS`]):
    /// who heard whom, for the viewer.
    recent: VecDeque<HeardLink>,
}

/// Most deliveries [`AcousticChannel::recent_links`] remembers.
pub const RECENT_LINKS: usize = 256;

/// One delivery: `receiver` heard `sender`.
#[derive(Debug, Clone, PartialEq)]
pub struct HeardLink {
    /// Who sent it.
    pub sender: String,
    /// Who heard it.
    pub receiver: String,
    /// When it was sent (s).
    pub sent_at: f64,
    /// When it arrived (s).
    pub heard_at: f64,
}

impl AcousticChannel {
    /// A channel with `config`.
    pub fn new(config: ChannelConfig) -> Self {
        AcousticChannel {
            medium: AcousticMedium::new(medium_config(&config)),
            config,
            next_id: 0,
            in_flight: 0,
            in_flight_bytes: 0,
            inboxes: BTreeMap::new(),
            inbox_bytes: BTreeMap::new(),
            stats: AcousticStats::default(),
            recent: VecDeque::new(),
        }
    }

    /// Applies a configuration change (omitted fields kept); a new seed
    /// restarts the drop process.
    pub fn configure(&mut self, c: &AcousticConfig) {
        let cfg = &mut self.config;
        if let Some(v) = c.latency_s {
            cfg.latency_s = v;
        }
        if let Some(v) = c.bandwidth_bps {
            cfg.bandwidth_bps = v;
        }
        if let Some(v) = c.range_m {
            cfg.range_m = v;
        }
        if let Some(v) = c.packet_drop_rate {
            cfg.packet_drop_rate = v;
        }
        if let Some(seed) = c.seed {
            cfg.seed = seed;
        }
        self.medium.reconfigure(medium_config(cfg));
        // A seed given, even the same one, restarts the drop process.
        if c.seed.is_some() {
            self.medium.reseed();
        }
    }

    /// Air time of a message of `bits` at the current bandwidth (s).
    pub fn air_time(&self, bits: f64) -> f64 {
        bits / self.config.bandwidth_bps
    }

    /// Whether another message fits in flight.
    pub fn has_room(&self) -> bool {
        self.in_flight < MAX_IN_FLIGHT
    }

    /// Whether a payload of `size` bytes ([`payload_size`]) fits in
    /// flight; if not, why (the bound it would pass).
    pub fn room_for(&self, size: usize) -> Result<(), String> {
        if self.in_flight >= MAX_IN_FLIGHT {
            return Err(format!(
                "acoustic queue full ({MAX_IN_FLIGHT} messages in flight)"
            ));
        }
        if self.in_flight_bytes.saturating_add(size) > MAX_IN_FLIGHT_BYTES {
            return Err(format!(
                "acoustic queue full: {} bytes of payload in flight and this one holds {size}, \
                 past the bound of {MAX_IN_FLIGHT_BYTES} bytes; send it when some have arrived",
                self.in_flight_bytes
            ));
        }
        Ok(())
    }

    /// Sends a message at `now` over `distance_m`: the outcome, and the
    /// message to put in flight when it was not lost.
    #[allow(clippy::too_many_arguments)]
    pub fn send(
        &mut self,
        sender: &str,
        receiver: &str,
        payload: Value,
        distance_m: f64,
        origin_ned: [f64; 3],
        now: f64,
    ) -> (SendOutcome, Option<InFlight>) {
        self.next_id += 1;
        self.stats.sent += 1;
        let id = self.next_id;
        // The sender transmits whether or not the receiver will decode it:
        // every message holds the channel, queued behind what is on it.
        let bits = json_len(&payload) as f64 * 8.0;
        let tx = self.medium.transmit(now, bits);
        // One draw per message whatever the range (the medium's rule).
        let reason = self.medium.draw_loss(distance_m);
        if let Some(reason) = reason {
            self.stats.dropped += 1;
            let outcome = SendOutcome {
                message_id: id,
                queued: false,
                dropped_reason: Some(reason.into()),
                distance_m,
                deliver_at: None,
            };
            return (outcome, None);
        }
        let at = self.medium.arrival(tx.end, distance_m);
        let msg = Delivered {
            message_id: id,
            sender_id: sender.into(),
            receiver_id: receiver.into(),
            payload,
            sent_at: now,
            delivered_at: at,
        };
        self.in_flight += 1;
        self.in_flight_bytes += payload_size(&msg.payload);
        let outcome = SendOutcome {
            message_id: id,
            queued: true,
            dropped_reason: None,
            distance_m,
            deliver_at: Some(at),
        };
        (outcome, Some(InFlight(msg, origin_ned)))
    }

    /// A message has arrived with sender and receiver now `distance_m`
    /// apart (`None` when either is gone): out of range it is lost
    /// (counted as dropped), else it goes into the receiver's inbox (the
    /// oldest message of a full inbox makes room). Returns whether it was
    /// delivered.
    pub fn arrive(&mut self, m: Delivered, distance_m: Option<f64>) -> bool {
        self.landed(&m);
        if !distance_m.is_some_and(|d| self.medium.deliverable(d)) {
            self.stats.dropped += 1;
            return false;
        }
        self.push_inbox(m);
        true
    }

    /// Puts an arrived message into its receiver's inbox (the oldest
    /// message of a full inbox makes room), with no range check.
    pub fn deliver(&mut self, m: Delivered) {
        self.landed(&m);
        self.push_inbox(m);
    }

    /// A message left the air: it no longer counts in flight.
    fn landed(&mut self, m: &Delivered) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.in_flight_bytes = self
            .in_flight_bytes
            .saturating_sub(payload_size(&m.payload));
    }

    fn push_inbox(&mut self, m: Delivered) {
        self.stats.delivered += 1;
        if self.recent.len() == RECENT_LINKS {
            self.recent.pop_front();
        }
        self.recent.push_back(HeardLink {
            sender: m.sender_id.clone(),
            receiver: m.receiver_id.clone(),
            sent_at: m.sent_at,
            heard_at: m.delivered_at,
        });
        let receiver = m.receiver_id.clone();
        let inbox = self.inboxes.entry(receiver.clone()).or_default();
        let bytes = self.inbox_bytes.entry(receiver.clone()).or_default();
        *bytes += payload_size(&m.payload);
        while !inbox.is_empty() && (inbox.len() >= MAX_INBOX || *bytes > MAX_INBOX_BYTES) {
            if let Some(old) = inbox.pop_front() {
                *bytes = bytes.saturating_sub(payload_size(&old.payload));
            }
            self.stats.inbox_overflow += 1;
        }
        inbox.push_back(m);
        // Over all inboxes: the largest gives up its oldest (the message
        // just delivered stays, as in a full inbox).
        while self.inbox_bytes.values().sum::<usize>() > MAX_INBOXES_BYTES {
            let largest = self
                .inbox_bytes
                .iter()
                .filter(|(name, b)| {
                    **b > 0
                        && (**name != receiver
                            || self.inboxes.get(*name).is_some_and(|q| q.len() > 1))
                })
                .max_by_key(|(_, b)| **b)
                .map(|(name, _)| name.clone());
            let Some(name) = largest else { break };
            let Some(old) = self.inboxes.get_mut(&name).and_then(VecDeque::pop_front) else {
                break;
            };
            if let Some(b) = self.inbox_bytes.get_mut(&name) {
                *b = b.saturating_sub(payload_size(&old.payload));
            }
            self.stats.inbox_overflow += 1;
        }
    }

    /// The deliveries that arrived at or after `since` (s), oldest first
    /// (of the last [`RECENT_LINKS`]).
    pub fn recent_links(&self, since: f64) -> impl Iterator<Item = &HeardLink> {
        self.recent.iter().filter(move |l| l.heard_at >= since)
    }

    /// Messages in flight.
    pub fn pending(&self) -> usize {
        self.in_flight
    }

    /// Payload bytes ([`payload_size`]) in flight.
    pub fn pending_bytes(&self) -> usize {
        self.in_flight_bytes
    }

    /// The channel's parameters, as `configure_acoustic_comm` answers.
    pub fn config_reply(&self) -> ChannelConfig {
        self.config.clone()
    }

    /// The summary `get_agents` reports.
    pub fn summary(&self) -> AcousticSummary {
        AcousticSummary {
            pending: self.pending(),
            inbox_sizes: self
                .inboxes
                .iter()
                .map(|(k, v)| (k.clone(), v.len()))
                .collect(),
            stats: self.stats,
        }
    }

    /// Takes (and empties) an agent's inbox, oldest first.
    pub fn take_inbox(&mut self, agent: &str) -> Vec<Delivered> {
        self.inbox_bytes.remove(agent);
        self.inboxes
            .remove(agent)
            .map(Vec::from)
            .unwrap_or_default()
    }

    /// An agent's inbox.
    pub fn inbox(&self, agent: &str) -> Vec<Delivered> {
        self.inboxes
            .get(agent)
            .map(|q| q.iter().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(k: u64, to: &str, payload: Value) -> Delivered {
        Delivered {
            message_id: k,
            sender_id: "a".into(),
            receiver_id: to.into(),
            payload,
            sent_at: 0.0,
            delivered_at: 1.0,
        }
    }

    #[test]
    fn payloads_count_by_the_larger_of_their_text_and_their_memory() {
        let text = Value::String("x".repeat(1000));
        assert_eq!(json_len(&text), 1002);
        // The value (32 + 1,000) outweighs the text (1,002).
        assert_eq!(payload_size(&text), 32 + 1000);
        // 2 bytes of text per zero, 32 of memory.
        let zeros = Value::Array(vec![Value::from(0); 1000]);
        assert_eq!(json_len(&zeros), 2001);
        assert_eq!(payload_size(&zeros), 32 * 1001);
        let map = serde_json::json!({"key": [1, 2], "s": "\u{0}\u{0}"});
        assert_eq!(json_len(&map), map.to_string().len());
        assert!(payload_size(&map) >= json_len(&map));
        let mut deep = Value::Null;
        for _ in 0..120 {
            deep = Value::Array(vec![deep]);
        }
        assert_eq!(payload_size(&deep), 32 * 121);
    }

    #[test]
    fn bytes_in_flight_and_in_inboxes_are_bounded() {
        let mut c = AcousticChannel::new(ChannelConfig {
            latency_s: 1000.0,
            bandwidth_bps: 1e9,
            ..default_channel(0)
        });
        let big = Value::String("x".repeat(1 << 20));
        let size = payload_size(&big);
        let mut flying = Vec::new();
        let refusal = loop {
            match c.room_for(size) {
                Ok(()) => {
                    let (o, m) = c.send("a", "b", big.clone(), 1.0, [0.0; 3], 0.0);
                    assert!(o.queued);
                    flying.extend(m);
                }
                Err(e) => break e,
            }
        };
        assert_eq!(flying.len(), MAX_IN_FLIGHT_BYTES / size, "{refusal}");
        assert!(c.pending_bytes() <= MAX_IN_FLIGHT_BYTES);
        assert!(
            refusal.contains("queue full") && refusal.contains(&MAX_IN_FLIGHT_BYTES.to_string()),
            "{refusal}"
        );
        // Small messages still fit by bytes; the count bound holds too.
        assert!(c.room_for(10).is_ok());
        for m in flying {
            c.deliver(m.0);
        }
        assert_eq!((c.pending(), c.pending_bytes()), (0, 0));
        assert!(c.inbox_bytes.values().sum::<usize>() <= MAX_INBOX_BYTES);
        // 40 receivers, 2 MiB each: all inboxes together stay within
        // their bound, the newest message kept.
        for k in 0..80 {
            let half = Value::String("y".repeat(1 << 20));
            c.deliver(message(k, &format!("r{}", k % 40), half));
            let held: usize = c.inbox_bytes.values().sum();
            assert!(held <= MAX_INBOXES_BYTES, "{held} bytes after {k}");
        }
        assert_eq!(c.inbox("r39").last().map(|m| m.message_id), Some(79));
        let kept: usize = c.inboxes.values().map(VecDeque::len).sum();
        assert_eq!(kept as u64 + c.stats.inbox_overflow, c.stats.delivered);
        let held: usize = c.inbox_bytes.values().sum();
        let counted: usize = c
            .inboxes
            .values()
            .flatten()
            .map(|m| payload_size(&m.payload))
            .sum();
        assert_eq!(held, counted, "the byte counts follow the inboxes");
    }

    #[test]
    fn latency_bandwidth_range_and_seeded_drops() {
        let mut c = AcousticChannel::new(ChannelConfig {
            latency_s: 1.0,
            bandwidth_bps: 80.0,
            range_m: 100.0,
            packet_drop_rate: 0.0,
            seed: 1,
        });
        let (o, m) = c.send("a", "b", Value::String("hi".into()), 150.0, [0.0; 3], 0.0);
        assert_eq!(o.dropped_reason.as_deref(), Some("out_of_range"));
        assert!(m.is_none());
        let (o, m) = c.send(
            "a",
            "b",
            Value::String("hello!".into()),
            30.0,
            [0.0; 3],
            0.0,
        );
        // The lost "\"hi\"" still held the channel 32 bits / 80 bit/s = 0.4 s;
        // then 8 bytes ("\"hello!\"") = 64 bits = 0.8 s, + 1 s + 30/1500 s.
        assert!((o.deliver_at.unwrap() - 2.22).abs() < 1e-12);
        assert_eq!(c.pending(), 1);
        c.deliver(m.unwrap().0);
        assert_eq!(c.pending(), 0);
        assert_eq!(c.inbox("b").len(), 1);
        let drops = |seed| {
            let mut c = AcousticChannel::new(ChannelConfig {
                packet_drop_rate: 0.5,
                seed,
                ..default_channel(seed)
            });
            (0..200)
                .map(|_| c.send("a", "b", Value::Null, 1.0, [0.0; 3], 0.0).0.queued)
                .collect::<Vec<_>>()
        };
        assert_eq!(drops(3), drops(3));
        let lost = drops(3).iter().filter(|q| !**q).count();
        assert!(
            (70..130).contains(&lost),
            "{lost} of 200 dropped at p = 0.5"
        );
    }
}
