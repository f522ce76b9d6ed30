//! Simulated acoustic communication: latency, bandwidth, range and seeded
//! packet drop; messages are delivered to per-agent inboxes at their
//! arrival time.

use oceansim_protocol::payload::AcousticConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};

/// Speed of sound in sea water (m/s).
pub const SOUND_SPEED_M_S: f64 = 1500.0;
/// Most messages in flight.
pub const MAX_IN_FLIGHT: usize = 1024;
/// Most delivered messages kept per inbox (oldest dropped).
pub const MAX_INBOX: usize = 256;

/// Channel parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChannelConfig {
    /// One-way latency (s).
    pub latency_s: f64,
    /// Bandwidth (bit/s).
    pub bandwidth_bps: f64,
    /// Maximum range (m).
    pub range_m: f64,
    /// Drop probability.
    pub packet_drop_rate: f64,
    /// Seed of the drop process.
    pub seed: u64,
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig {
            latency_s: 0.2,
            bandwidth_bps: 1000.0,
            range_m: 500.0,
            packet_drop_rate: 0.0,
            seed: 0,
        }
    }
}

/// A delivered message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delivered {
    /// Sequence number of the message.
    pub message_id: u64,
    /// Sender.
    pub sender_id: String,
    /// Receiver.
    pub receiver_id: String,
    /// Body.
    pub payload: Value,
    /// When it was sent (s).
    pub sent_at: f64,
    /// When it arrived (s).
    pub delivered_at: f64,
}

/// The channel.
#[derive(Debug, Clone)]
pub struct AcousticChannel {
    /// Parameters.
    pub config: ChannelConfig,
    rng: ChaCha8Rng,
    next_id: u64,
    in_flight: VecDeque<Delivered>,
    /// Inboxes by receiver.
    pub inboxes: BTreeMap<String, VecDeque<Delivered>>,
    /// Running counters since the channel was created.
    pub stats: AcousticStats,
}

/// Running counters of an acoustic channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct AcousticStats {
    /// Messages accepted by `send` (queued or dropped).
    pub sent: u64,
    /// Messages lost to range or packet drop.
    pub dropped: u64,
    /// Messages that reached an inbox.
    pub delivered: u64,
    /// Delivered messages later pushed out of a full inbox, oldest first.
    pub inbox_overflow: u64,
}

/// What happened to a sent message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SendOutcome {
    /// Sequence number.
    pub message_id: u64,
    /// Whether it will arrive.
    pub queued: bool,
    /// Why it will not (`out_of_range`, `packet_drop`).
    pub dropped_reason: Option<&'static str>,
    /// Sender–receiver distance (m).
    pub distance_m: f64,
    /// Arrival time (s) if queued.
    pub deliver_at: Option<f64>,
}

impl AcousticChannel {
    /// A channel with `config`.
    pub fn new(config: ChannelConfig) -> Self {
        AcousticChannel {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            config,
            next_id: 0,
            in_flight: VecDeque::new(),
            inboxes: BTreeMap::new(),
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
            self.rng = ChaCha8Rng::seed_from_u64(seed);
        }
    }

    /// Whether another message fits in flight.
    pub fn has_room(&self) -> bool {
        self.in_flight.len() < MAX_IN_FLIGHT
    }

    /// Sends a message at `now` over `distance_m`.
    pub fn send(
        &mut self,
        sender: &str,
        receiver: &str,
        payload: Value,
        distance_m: f64,
        now: f64,
    ) -> SendOutcome {
        self.next_id += 1;
        self.stats.sent += 1;
        let id = self.next_id;
        // Draw for every message so the drop sequence does not depend on range.
        let draw: f64 = self.rng.gen();
        let reason = if distance_m > self.config.range_m {
            Some("out_of_range")
        } else if draw < self.config.packet_drop_rate {
            Some("packet_drop")
        } else {
            None
        };
        if reason.is_some() {
            self.stats.dropped += 1;
            return SendOutcome {
                message_id: id,
                queued: false,
                dropped_reason: reason,
                distance_m,
                deliver_at: None,
            };
        }
        let bits = payload.to_string().len() as f64 * 8.0;
        let at = now
            + self.config.latency_s
            + bits / self.config.bandwidth_bps
            + distance_m / SOUND_SPEED_M_S;
        let msg = Delivered {
            message_id: id,
            sender_id: sender.into(),
            receiver_id: receiver.into(),
            payload,
            sent_at: now,
            delivered_at: at,
        };
        let pos = self
            .in_flight
            .iter()
            .position(|m| m.delivered_at > at)
            .unwrap_or(self.in_flight.len());
        self.in_flight.insert(pos, msg);
        SendOutcome {
            message_id: id,
            queued: true,
            dropped_reason: None,
            distance_m,
            deliver_at: Some(at),
        }
    }

    /// Moves messages due by `now` into their inboxes.
    pub fn deliver(&mut self, now: f64) {
        while self
            .in_flight
            .front()
            .is_some_and(|m| m.delivered_at <= now)
        {
            if let Some(m) = self.in_flight.pop_front() {
                self.stats.delivered += 1;
                let inbox = self.inboxes.entry(m.receiver_id.clone()).or_default();
                if inbox.len() >= MAX_INBOX {
                    inbox.pop_front();
                    self.stats.inbox_overflow += 1;
                }
                inbox.push_back(m);
            }
        }
    }

    /// Messages in flight.
    pub fn pending(&self) -> usize {
        self.in_flight.len()
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
        let o = c.send("a", "b", Value::String("hi".into()), 150.0, 0.0);
        assert_eq!(o.dropped_reason, Some("out_of_range"));
        let o = c.send("a", "b", Value::String("hello!".into()), 30.0, 0.0);
        // 8 bytes ("\"hello!\"") = 64 bits at 80 bit/s = 0.8 s, + 1 s + 30/1500 s.
        assert!((o.deliver_at.unwrap() - 1.82).abs() < 1e-12);
        c.deliver(1.8);
        assert!(c.inbox("b").is_empty());
        c.deliver(1.83);
        assert_eq!(c.inbox("b").len(), 1);
        let drops = |seed| {
            let mut c = AcousticChannel::new(ChannelConfig {
                packet_drop_rate: 0.5,
                seed,
                ..ChannelConfig::default()
            });
            (0..200)
                .map(|_| c.send("a", "b", Value::Null, 1.0, 0.0).queued)
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
