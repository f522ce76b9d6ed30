//! Rate-limited logging for events a peer can repeat at will (failed
//! accepts, refused connections): one line per period with the count of
//! those held back, so a flood cannot grow the log without bound; and what
//! an accept loop does with a failed accept ([`AcceptErrors`]).

use std::time::{Duration, Instant};

/// Admits at most one event per `period` for logging and counts the rest.
///
/// ```
/// use oceansim_log::Throttle;
/// use std::time::Duration;
/// let mut t = Throttle::new(Duration::from_secs(3600));
/// assert_eq!(t.admit(), Some(0), "the first event is logged");
/// assert_eq!(t.admit(), None);
/// assert_eq!(t.admit(), None);
/// assert_eq!(t.held(), 2, "two held back, reported with the next one logged");
/// ```
#[derive(Debug, Clone)]
pub struct Throttle {
    period: Duration,
    last: Option<Instant>,
    held: u64,
}

impl Throttle {
    /// A throttle admitting one event per `period` (wall time).
    pub const fn new(period: Duration) -> Self {
        Throttle {
            period,
            last: None,
            held: 0,
        }
    }

    /// One event: `Some(n)` when it should be logged, `n` being how many
    /// were held back since the last one logged (and the count restarts);
    /// `None` when it is held back.
    pub fn admit(&mut self) -> Option<u64> {
        self.admit_at(Instant::now())
    }

    /// [`Throttle::admit`] at the instant `now`.
    pub fn admit_at(&mut self, now: Instant) -> Option<u64> {
        match self.last {
            Some(t) if now.saturating_duration_since(t) < self.period => {
                self.held = self.held.saturating_add(1);
                None
            }
            _ => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.held))
            }
        }
    }

    /// Events held back since the last one logged.
    pub fn held(&self) -> u64 {
        self.held
    }
}

/// What an accept loop does with failed accepts: pauses before the next
/// one, doubling from [`AcceptErrors::FIRST_PAUSE`] to
/// [`AcceptErrors::LONGEST_PAUSE`] (a success starts over), and logs at
/// most once a second, with the count of failures held back (the caller
/// logs, under its own target).
///
/// A process out of file descriptors (EMFILE) fails every accept at once
/// while the connection waits in the queue: a loop that retried at once
/// would spin a core and log each failure, hundreds of thousands a second.
/// A peer that gave up while queued (ECONNABORTED, ECONNRESET) is no
/// reason to wait, and is not logged.
///
/// ```
/// use oceansim_log::AcceptErrors;
/// use std::time::Duration;
/// let mut errors = AcceptErrors::new();
/// let emfile = std::io::Error::from_raw_os_error(24);
/// assert_eq!(errors.failed(&emfile), Some(0), "log this one");
/// assert_eq!(errors.pause(), AcceptErrors::FIRST_PAUSE);
/// assert_eq!(errors.failed(&emfile), None, "held back");
/// errors.accepted();
/// assert_eq!(errors.pause(), Duration::ZERO);
/// ```
#[derive(Debug, Clone)]
pub struct AcceptErrors {
    next: Duration,
    log: Throttle,
}

impl Default for AcceptErrors {
    fn default() -> Self {
        Self::new()
    }
}

impl AcceptErrors {
    /// The pause after the first failure of a run.
    pub const FIRST_PAUSE: Duration = Duration::from_millis(10);
    /// The longest pause.
    pub const LONGEST_PAUSE: Duration = Duration::from_secs(1);

    /// No failure yet.
    pub const fn new() -> Self {
        AcceptErrors {
            next: Duration::ZERO,
            log: Throttle::new(Duration::from_secs(1)),
        }
    }

    /// How long to wait before the next accept (zero after a success).
    pub fn pause(&self) -> Duration {
        self.next
    }

    /// A connection was accepted: the next accept waits for nothing.
    pub fn accepted(&mut self) {
        self.next = Duration::ZERO;
    }

    /// An accept failed with `e`: `Some(held)` when the caller should log
    /// it, `held` being the failures held back since the last one logged.
    pub fn failed(&mut self, e: &std::io::Error) -> Option<u64> {
        use std::io::ErrorKind;
        if matches!(
            e.kind(),
            ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
        ) {
            return None;
        }
        self.next = (self.next * 2).clamp(Self::FIRST_PAUSE, Self::LONGEST_PAUSE);
        self.log.admit()
    }
}

/// The tail of a throttled log line: how many like it were not logged
/// since the last one (`""` for none, else ` (N more since the last
/// report)`).
pub fn held_back(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} more since the last report)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_event_a_period_with_the_count_held_back() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut t = Throttle::new(s);
        assert_eq!(t.admit_at(t0), Some(0));
        for k in 1..1000u32 {
            assert_eq!(t.admit_at(t0 + s * k / 1000), None);
        }
        assert_eq!(t.admit_at(t0 + s), Some(999));
        assert_eq!(t.admit_at(t0 + s + s / 2), None);
        assert_eq!(t.admit_at(t0 + s * 3), Some(1));
        assert_eq!(t.held(), 0);
    }

    #[test]
    fn failed_accepts_back_off_and_a_success_starts_over() {
        let mut b = AcceptErrors::new();
        assert_eq!(b.pause(), Duration::ZERO);
        let emfile = std::io::Error::from_raw_os_error(24);
        let mut logged = 0;
        let pauses: Vec<Duration> = (0..10)
            .map(|_| {
                logged += usize::from(b.failed(&emfile).is_some());
                b.pause()
            })
            .collect();
        assert_eq!(logged, 1, "ten at once are logged once");
        assert_eq!(pauses[0], AcceptErrors::FIRST_PAUSE);
        assert!(pauses.windows(2).all(|w| w[1] >= w[0]), "{pauses:?}");
        assert_eq!(pauses[9], AcceptErrors::LONGEST_PAUSE);
        assert_eq!(
            b.failed(&std::io::ErrorKind::ConnectionAborted.into()),
            None
        );
        assert_eq!(
            b.pause(),
            AcceptErrors::LONGEST_PAUSE,
            "a peer giving up changes nothing"
        );
        b.accepted();
        assert_eq!(b.pause(), Duration::ZERO);
    }
}
