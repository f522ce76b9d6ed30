//! Keeping the server thread awake between a reply and the next line
//! ([`crate::ServerConfig::spin`]).

use futures::StreamExt;
use std::time::{Duration, Instant};

/// The wait for a connection's next line with the thread kept awake
/// ([`crate::ServerConfig::spin`]).
pub(crate) struct Spin {
    budget: Duration,
    /// Replies after which to try again, since the last miss.
    skip: u32,
    /// How many to skip after the next miss.
    backoff: u32,
}

impl Spin {
    const MAX_BACKOFF: u32 = 1024;

    pub(crate) fn new(budget: Duration) -> Self {
        Spin {
            budget,
            skip: 0,
            backoff: 2,
        }
    }

    /// What the stream gave within the budget (`Some(None)`: it ended);
    /// `None` to wait asleep.
    pub(crate) async fn wait<S>(&mut self, lines: &mut S) -> Option<Option<S::Item>>
    where
        S: futures::Stream + Unpin,
    {
        if self.budget.is_zero() {
            return None;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return None;
        }
        let until = Instant::now() + self.budget;
        loop {
            if let std::task::Poll::Ready(item) = futures::poll!(lines.next()) {
                self.backoff = 2;
                return Some(item);
            }
            if Instant::now() >= until {
                self.skip = self.backoff;
                self.backoff = (self.backoff * 2).min(Self::MAX_BACKOFF);
                return None;
            }
            // Deferred: tokio polls the I/O driver (without sleeping) and
            // runs every other ready task before this one again.
            tokio::task::yield_now().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::stream;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_ready_line_is_taken_and_an_ended_stream_reported() {
        rt().block_on(async {
            let mut spin = Spin::new(Duration::from_millis(50));
            let mut lines = stream::iter([1, 2]);
            assert_eq!(spin.wait(&mut lines).await, Some(Some(1)));
            assert_eq!(spin.wait(&mut lines).await, Some(Some(2)));
            assert_eq!(spin.wait(&mut lines).await, Some(None));
        });
    }

    #[test]
    fn a_line_arriving_within_the_budget_is_caught_awake() {
        rt().block_on(async {
            let (tx, mut rx) = futures::channel::mpsc::unbounded::<u32>();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(2)).await;
                tx.unbounded_send(7).unwrap();
            });
            let mut spin = Spin::new(Duration::from_secs(5));
            assert_eq!(spin.wait(&mut rx).await, Some(Some(7)));
        });
    }

    #[test]
    fn a_miss_backs_off_doubling_and_a_hit_resets() {
        rt().block_on(async {
            let mut spin = Spin::new(Duration::from_millis(2));
            let mut never = stream::pending::<u32>();
            let t = Instant::now();
            assert_eq!(spin.wait(&mut never).await, None);
            assert!(t.elapsed() >= Duration::from_millis(2));
            // The next two replies do not spin at all.
            let t = Instant::now();
            assert_eq!(spin.wait(&mut never).await, None);
            assert_eq!(spin.wait(&mut never).await, None);
            assert!(t.elapsed() < Duration::from_millis(2));
            // A second miss skips four.
            assert_eq!(spin.wait(&mut never).await, None);
            assert_eq!(spin.skip, 4);
            for _ in 0..4 {
                assert_eq!(spin.wait(&mut never).await, None);
            }
            let mut ready = stream::iter([3]);
            assert_eq!(spin.wait(&mut ready).await, Some(Some(3)));
            assert_eq!(spin.backoff, 2);
            for _ in 0..20 {
                spin.wait(&mut never).await;
            }
            assert!(spin.backoff <= Spin::MAX_BACKOFF);
        });
    }

    #[test]
    fn a_zero_budget_never_spins() {
        rt().block_on(async {
            let mut spin = Spin::new(Duration::ZERO);
            assert_eq!(spin.wait(&mut stream::iter([1])).await, None);
        });
    }
}
