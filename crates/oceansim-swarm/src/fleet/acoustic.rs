//! Underwater acoustic links: one shared medium (a single channel every
//! modem contends for), propagation at the speed of sound, seeded loss,
//! range checked when a message is sent and again when it arrives.
//!
//! Timing of a message of `bits` sent at `now` over `d` metres:
//! transmission starts when the channel is free (start = max(now,
//! busy_until)), occupies it for bits / bandwidth, and arrives
//! `latency + d / c` after the transmission ends. Messages that overlap
//! in time therefore queue behind each other at the channel's bandwidth.

use super::names;
use oceansim_ecs::{Access, EcsError, Handle, ResourceHandle, Result, Step, System, World};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Parameters of the medium.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MediumConfig {
    /// Fixed processing latency per message (s).
    pub latency_s: f64,
    /// Channel bit rate shared by every sender (bit/s).
    pub bandwidth_bps: f64,
    /// Largest range a message crosses (m).
    pub range_m: f64,
    /// Probability a message is lost, drawn per message and receiver.
    pub packet_drop_rate: f64,
    /// Speed of sound (m/s).
    pub sound_speed_m_s: f64,
    /// Seed of the loss draws.
    pub seed: u64,
}

impl Default for MediumConfig {
    /// 0.2 s latency, 1 kbit/s, 500 m, no loss, 1,500 m/s, seed 0.
    fn default() -> Self {
        MediumConfig {
            latency_s: 0.2,
            bandwidth_bps: 1000.0,
            range_m: 500.0,
            packet_drop_rate: 0.0,
            sound_speed_m_s: 1500.0,
            seed: 0,
        }
    }
}

/// When a transmission holds the channel (s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transmission {
    /// Transmission starts (≥ the send time).
    pub start: f64,
    /// Transmission ends; the channel is free again.
    pub end: f64,
}

/// The shared medium: channel occupancy, loss draws and counters.
#[derive(Debug, Clone)]
pub struct AcousticMedium {
    config: MediumConfig,
    rng: ChaCha8Rng,
    busy_until: f64,
    /// Transmissions put on the channel.
    pub transmissions: u64,
    /// Receptions lost to the drop draw.
    pub lost: u64,
    /// Receptions lost to range (at send or at arrival).
    pub out_of_range: u64,
    /// Receptions delivered.
    pub delivered: u64,
    /// Broadcasts not sent because the channel's backlog was too long (or
    /// their receptions would pass [`MAX_PENDING_RECEPTIONS`]).
    pub skipped_busy: u64,
}

impl AcousticMedium {
    /// A free medium.
    pub fn new(config: MediumConfig) -> Self {
        AcousticMedium {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            config,
            busy_until: f64::NEG_INFINITY,
            transmissions: 0,
            lost: 0,
            out_of_range: 0,
            delivered: 0,
            skipped_busy: 0,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &MediumConfig {
        &self.config
    }

    /// Changes the parameters; a new seed restarts the loss draws.
    pub fn reconfigure(&mut self, config: MediumConfig) {
        if config.seed != self.config.seed {
            self.rng = ChaCha8Rng::seed_from_u64(config.seed);
        }
        self.config = config;
    }

    /// Restarts the loss draws from the configured seed.
    pub fn reseed(&mut self) {
        self.rng = ChaCha8Rng::seed_from_u64(self.config.seed);
    }

    /// Seconds of queued transmission ahead of a message sent at `now`.
    pub fn backlog(&self, now: f64) -> f64 {
        (self.busy_until - now).max(0.0)
    }

    /// Puts `bits` on the channel at `now`: queued behind whatever is
    /// still being transmitted.
    pub fn transmit(&mut self, now: f64, bits: f64) -> Transmission {
        let start = now.max(self.busy_until);
        let end = start + bits.max(0.0) / self.config.bandwidth_bps;
        self.busy_until = end;
        self.transmissions += 1;
        Transmission { start, end }
    }

    /// Arrival time at `distance_m` of a transmission ending at `end`.
    pub fn arrival(&self, end: f64, distance_m: f64) -> f64 {
        end + self.config.latency_s + distance_m / self.config.sound_speed_m_s
    }

    /// Draws whether a reception over `distance_m` is lost: `Some(reason)`
    /// (`"out_of_range"` or `"packet_drop"`). One draw per call whatever
    /// the range, so the loss sequence does not depend on geometry.
    pub fn draw_loss(&mut self, distance_m: f64) -> Option<&'static str> {
        let draw: f64 = self.rng.gen();
        let in_range = distance_m <= self.config.range_m;
        if !in_range {
            self.out_of_range += 1;
            Some("out_of_range")
        } else if draw < self.config.packet_drop_rate {
            self.lost += 1;
            Some("packet_drop")
        } else {
            None
        }
    }

    /// Whether a message may be delivered at arrival, the sender and
    /// receiver now `distance_m` apart; counts the outcome.
    pub fn deliverable(&mut self, distance_m: f64) -> bool {
        if distance_m <= self.config.range_m {
            self.delivered += 1;
            true
        } else {
            self.out_of_range += 1;
            false
        }
    }
}

/// The latest position heard from one vehicle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeardPosition {
    /// Position the sender reported (m, NED).
    pub p_ned: [f64; 3],
    /// When it was sent (s).
    pub sent_at: f64,
    /// When it arrived (s).
    pub arrived_at: f64,
}

/// What each vehicle has heard of every other: per receiver, the latest
/// position that arrived from each sender it has heard, sorted by sender
/// (memory grows with the pairs actually in contact, not with N²).
#[derive(Debug, Clone)]
pub struct Heard {
    latest: Vec<Vec<(u32, HeardPosition)>>,
}

impl Heard {
    /// Nobody has heard anything.
    pub fn new(n: usize) -> Self {
        Heard {
            latest: vec![Vec::new(); n],
        }
    }
    /// The latest of `sender` that reached `receiver`.
    pub fn get(&self, receiver: usize, sender: usize) -> Option<&HeardPosition> {
        let heard = self.latest.get(receiver)?;
        let sender = u32::try_from(sender).ok()?;
        let at = heard.binary_search_by_key(&sender, |e| e.0).ok()?;
        Some(&heard[at].1)
    }
    /// Everything `receiver` has heard: (sender, latest report), sorted by
    /// sender.
    pub fn heard_by(&self, receiver: usize) -> &[(u32, HeardPosition)] {
        self.latest.get(receiver).map_or(&[], Vec::as_slice)
    }
    fn put(&mut self, receiver: usize, sender: u32, h: HeardPosition) {
        let Some(heard) = self.latest.get_mut(receiver) else {
            return;
        };
        match heard.binary_search_by_key(&sender, |e| e.0) {
            // Arrivals can overtake each other (different distances): keep
            // the newest report.
            Ok(at) if heard[at].1.sent_at <= h.sent_at => heard[at].1 = h,
            Ok(_) => {}
            Err(at) => heard.insert(at, (sender, h)),
        }
    }
}

/// How far back [`heard_links`] reaches (s, simulated).
pub const HEARD_VIEW_S: f64 = 2.0;

/// Who heard whom lately, from a logged frame of a world with
/// [`AcousticBeacons`]: `[sender, receiver, sent_at, arrived_at]` (entity
/// indices, s) of each pair's latest report that arrived in the last
/// [`HEARD_VIEW_S`]; empty without the heard table. Fits
/// `oceansim_viewer::SwarmView::links`.
pub fn heard_links(frame: &oceansim_ecs::loggers::Frame<'_>) -> Vec<[f64; 4]> {
    let Ok(h) = frame.world.resource_handle::<Heard>(names::HEARD) else {
        return Vec::new();
    };
    let heard = frame.world.resource(h);
    let since = frame.time - HEARD_VIEW_S;
    let mut out = Vec::new();
    for (receiver, list) in heard.latest.iter().enumerate() {
        for (sender, r) in list {
            if r.arrived_at >= since && r.arrived_at <= frame.time {
                out.push([f64::from(*sender), receiver as f64, r.sent_at, r.arrived_at]);
            }
        }
    }
    out
}

/// Most receptions [`AcousticBeacons`] holds in flight (48 bytes each, no
/// payload: a position report is fixed-size, so the count bounds the
/// bytes, ~3 MiB). The busy-channel rule bounds the air time, not the
/// latency: a long latency with a short period would otherwise pile up
/// N − 1 receptions per broadcast for as long as the latency lasts. A
/// broadcast whose receptions would pass it is skipped and counted in
/// `skipped_busy`.
pub const MAX_PENDING_RECEPTIONS: usize = 1 << 16;

/// A reception in flight.
#[derive(Debug, Clone, Copy)]
struct Pending {
    arrival: f64,
    sender: u32,
    receiver: u32,
    report: [f64; 3],
    sent_at: f64,
}

/// `acoustic_beacons`: every `period_s` each vehicle broadcasts its
/// position (`bits` per message) on the shared [`AcousticMedium`]
/// (resource [`names::MEDIUM`]); receptions arrive per the medium's timing
/// and loss, are re-checked for range on arrival, and land in the
/// [`Heard`] table (resource [`names::HEARD`]). Vehicle i's first
/// broadcast is at i·period/N (staggered); a broadcast is skipped when the
/// channel's backlog exceeds one period (the channel is saturated).
#[derive(Debug)]
pub struct AcousticBeacons {
    period_s: f64,
    bits: f64,
    next_due: Vec<f64>,
    pending: Vec<Pending>,
    h: Option<(
        Handle<f64>,
        ResourceHandle<AcousticMedium>,
        ResourceHandle<Heard>,
    )>,
}

impl AcousticBeacons {
    /// Registers the medium and the heard table on `world` and returns the
    /// system.
    pub fn install(
        world: &mut World,
        config: MediumConfig,
        period_s: f64,
        bits: f64,
    ) -> Result<Self> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !(positive(period_s)
            && positive(bits)
            && positive(config.bandwidth_bps)
            && positive(config.sound_speed_m_s)
            && positive(config.range_m)
            && config.latency_s.is_finite()
            && config.latency_s >= 0.0)
        {
            return Err(EcsError::Shape {
                name: "acoustic_beacons".into(),
                expected: "positive period, message size and bandwidth".into(),
                got: format!(
                    "period {period_s} s, {bits} bits, {} bit/s",
                    config.bandwidth_bps
                ),
            });
        }
        let n = world.len();
        world.insert_resource(names::MEDIUM, AcousticMedium::new(config))?;
        world.insert_resource(names::HEARD, Heard::new(n))?;
        Ok(AcousticBeacons {
            period_s,
            bits,
            next_due: (0..n).map(|i| i as f64 * period_s / n as f64).collect(),
            pending: Vec::new(),
            h: None,
        })
    }
}

fn dist(p: &[f64], a: usize, b: usize) -> f64 {
    let d = |k: usize| p[3 * a + k] - p[3 * b + k];
    (d(0) * d(0) + d(1) * d(1) + d(2) * d(2)).sqrt()
}

impl System for AcousticBeacons {
    fn name(&self) -> &str {
        "acoustic_beacons"
    }
    fn access(&self) -> Access {
        Access::new()
            .read(names::P)
            .writes([names::MEDIUM, names::HEARD])
    }
    fn init(&mut self, w: &World) -> Result<()> {
        self.h = Some((
            w.handle(names::P)?,
            w.resource_handle(names::MEDIUM)?,
            w.resource_handle(names::HEARD)?,
        ));
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let Some((hp, hm, hh)) = self.h else { return };
        let p = w.read(hp);
        let (mut medium, mut heard) = (w.resource_mut(hm), w.resource_mut(hh));
        let now = step.time;
        let n = self.next_due.len();
        for i in 0..n {
            if self.next_due[i] > now {
                continue;
            }
            self.next_due[i] += self.period_s
                * ((now - self.next_due[i]) / self.period_s).floor().max(0.0)
                + self.period_s;
            if medium.backlog(now) > self.period_s
                || self.pending.len() + n.saturating_sub(1) > MAX_PENDING_RECEPTIONS
            {
                medium.skipped_busy += 1;
                continue;
            }
            let tx = medium.transmit(now, self.bits);
            let report = [p[3 * i], p[3 * i + 1], p[3 * i + 2]];
            for j in 0..n {
                if j == i {
                    continue;
                }
                let d = dist(&p, i, j);
                if medium.draw_loss(d).is_some() {
                    continue;
                }
                self.pending.push(Pending {
                    arrival: medium.arrival(tx.end, d),
                    sender: i as u32,
                    receiver: j as u32,
                    report,
                    sent_at: now,
                });
            }
        }
        // Deliver what has arrived by the end of this tick.
        let end = now + step.dt;
        let mut k = 0;
        while k < self.pending.len() {
            let m = self.pending[k];
            if m.arrival > end {
                k += 1;
                continue;
            }
            self.pending.swap_remove(k);
            // From where the sender was when it transmitted to where the
            // receiver is now.
            let r = 3 * m.receiver as usize;
            let d = (0..3)
                .map(|k| (p[r + k] - m.report[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            if medium.deliverable(d) {
                heard.put(
                    m.receiver as usize,
                    m.sender,
                    HeardPosition {
                        p_ned: m.report,
                        sent_at: m.sent_at,
                        arrived_at: m.arrival,
                    },
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_messages_queue_at_the_channel_bandwidth() {
        let mut m = AcousticMedium::new(MediumConfig {
            latency_s: 0.5,
            bandwidth_bps: 100.0,
            ..MediumConfig::default()
        });
        // Two 200-bit messages at t = 0: the second waits 2 s for the first.
        let a = m.transmit(0.0, 200.0);
        let b = m.transmit(0.0, 200.0);
        assert_eq!((a.start, a.end), (0.0, 2.0));
        assert_eq!((b.start, b.end), (2.0, 4.0));
        assert_eq!(m.arrival(b.end, 300.0), 4.0 + 0.5 + 0.2);
        assert_eq!(m.backlog(1.0), 3.0);
        // A message after the channel went quiet starts at once.
        let c = m.transmit(10.0, 100.0);
        assert_eq!((c.start, c.end), (10.0, 11.0));
        // Range at send and at arrival; NaN distances are out of range.
        assert_eq!(m.draw_loss(501.0), Some("out_of_range"));
        assert_eq!(m.draw_loss(f64::NAN), Some("out_of_range"));
        assert!(m.deliverable(499.0) && !m.deliverable(600.0));
    }

    #[test]
    fn receptions_in_flight_stay_bounded_whatever_the_latency() {
        // 40 vehicles broadcasting every 10 ms on a fast channel with an
        // hour of latency: 39 receptions per broadcast, none arriving.
        let n = 40;
        let mut w = World::new(n);
        let p: Vec<f64> = (0..n).flat_map(|i| [i as f64, 0.0, 5.0]).collect();
        w.add_self_integrated_state(names::P, &[3], Some(&p))
            .unwrap();
        let cfg = MediumConfig {
            latency_s: 3600.0,
            bandwidth_bps: 1e9,
            ..MediumConfig::default()
        };
        let mut b = AcousticBeacons::install(&mut w, cfg, 0.01, 64.0).unwrap();
        b.init(&w).unwrap();
        for k in 0..2000u64 {
            let step = Step {
                index: k,
                time: k as f64 * 0.01,
                dt: 0.01,
            };
            b.run(&w, &step);
            assert!(b.pending.len() <= MAX_PENDING_RECEPTIONS);
        }
        let medium = w.resource(w.resource_handle::<AcousticMedium>(names::MEDIUM).unwrap());
        assert!(
            medium.skipped_busy > 0,
            "broadcasts past the bound are skipped"
        );
        assert!(b.pending.len() + 39 > MAX_PENDING_RECEPTIONS);
    }

    #[test]
    fn seeded_loss_repeats_and_has_its_rate() {
        let lost = |seed| {
            let mut m = AcousticMedium::new(MediumConfig {
                packet_drop_rate: 0.3,
                seed,
                ..MediumConfig::default()
            });
            (0..1000)
                .map(|_| m.draw_loss(10.0).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(lost(7), lost(7));
        assert_ne!(lost(7), lost(8));
        let k = lost(7).iter().filter(|l| **l).count();
        assert!((240..360).contains(&k), "{k} of 1000 at p = 0.3");
    }
}
