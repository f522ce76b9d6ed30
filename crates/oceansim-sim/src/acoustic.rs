//! Simulated acoustic communication on the swarm crate's shared
//! [`AcousticMedium`] (the same model the fleet controllers use): one
//! channel every modem contends for, so messages that overlap in time queue
//! behind each other at the channel's bandwidth; propagation at 1,500 m/s;
//! seeded packet drop; range checked at send and again at arrival. The
//! channel is a world resource; each message in flight is an entity of the
//! world until the `acoustic_delivery` system moves it into its receiver's
//! inbox at its arrival time; `read_acoustic_inbox` reads and clears it.

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
/// Most delivered messages kept per inbox (oldest dropped).
pub const MAX_INBOX: usize = 256;
/// Most payload bytes (serialised JSON) kept per inbox (oldest dropped),
/// so one read or state reply stays a few MiB whatever was sent.
pub const MAX_INBOX_BYTES: usize = 4 << 20;

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
    /// Inboxes by receiver.
    pub inboxes: BTreeMap<String, VecDeque<Delivered>>,
    /// Payload bytes held per inbox.
    inbox_bytes: BTreeMap<String, usize>,
    /// Running counters since the channel was created.
    pub stats: AcousticStats,
}

impl AcousticChannel {
    /// A channel with `config`.
    pub fn new(config: ChannelConfig) -> Self {
        AcousticChannel {
            medium: AcousticMedium::new(medium_config(&config)),
            config,
            next_id: 0,
            in_flight: 0,
            inboxes: BTreeMap::new(),
            inbox_bytes: BTreeMap::new(),
            stats: AcousticStats::default(),
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
        let bits = payload.to_string().len() as f64 * 8.0;
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
        self.in_flight = self.in_flight.saturating_sub(1);
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
        self.in_flight = self.in_flight.saturating_sub(1);
        self.push_inbox(m);
    }

    fn push_inbox(&mut self, m: Delivered) {
        self.stats.delivered += 1;
        let size = |m: &Delivered| m.payload.to_string().len();
        let inbox = self.inboxes.entry(m.receiver_id.clone()).or_default();
        let bytes = self.inbox_bytes.entry(m.receiver_id.clone()).or_default();
        *bytes += size(&m);
        while !inbox.is_empty() && (inbox.len() >= MAX_INBOX || *bytes > MAX_INBOX_BYTES) {
            if let Some(old) = inbox.pop_front() {
                *bytes -= size(&old);
            }
            self.stats.inbox_overflow += 1;
        }
        inbox.push_back(m);
    }

    /// Messages in flight.
    pub fn pending(&self) -> usize {
        self.in_flight
    }

    /// Forgets messages in flight to agents that no longer exist.
    pub fn forget_in_flight(&mut self, n: usize) {
        self.in_flight = self.in_flight.saturating_sub(n);
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
