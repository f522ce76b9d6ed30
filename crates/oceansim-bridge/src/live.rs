//! The running bridge: a Zenoh session (the `zenoh` feature) or a DDS
//! participant (the `dds` feature) on a thread of its own, fed through a
//! bounded queue.

use crate::counters::Counters;
use crate::{BridgeError, BridgeStats, Command, Outgoing, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;

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
    /// Hands `o` to the bridge's thread without waiting; `false` when it was
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
    #[cfg(feature = "zenoh")]
    pub fn start(config: crate::BridgeConfig) -> Result<Bridge> {
        config.validate()?;
        let queue = config.queue;
        Bridge::launch(
            queue,
            move |cmd_tx, counters| {
                let w = crate::worker::Worker::open(config, cmd_tx, counters)?;
                let id = w.zid();
                Ok((w, id))
            },
            |w, rx, stop| w.run(rx, stop),
        )
    }

    /// Validates `config`, makes the DDS participant and publishes the
    /// node (`ros_discovery_info`); returns once its sockets are bound.
    /// [`Bridge::zid`] is then the participant's GUID (hex).
    #[cfg(feature = "dds")]
    pub fn start_dds(config: crate::DdsConfig) -> Result<Bridge> {
        config.validate()?;
        let queue = config.queue;
        Bridge::launch(
            queue,
            move |cmd_tx, counters| {
                let w = crate::dds_worker::DdsWorker::open(config, cmd_tx, counters)?;
                let id = w.id();
                Ok((w, id))
            },
            |w, rx, stop| w.run(rx, stop),
        )
    }

    /// Opens a worker on a thread of its own and waits until it is ready.
    fn launch<W: 'static>(
        queue: usize,
        open: impl FnOnce(SyncSender<Command>, Arc<Counters>) -> Result<(W, String)> + Send + 'static,
        run: fn(W, Receiver<Outgoing>, Arc<AtomicBool>),
    ) -> Result<Bridge> {
        let (tx, rx) = mpsc::sync_channel(queue);
        let (cmd_tx, commands) = mpsc::sync_channel(COMMAND_QUEUE);
        let counters = Arc::new(Counters::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel();
        let thread = {
            let (counters, stop) = (counters.clone(), stop.clone());
            std::thread::Builder::new()
                .name("oceansim-ros2".into())
                .spawn(move || match open(cmd_tx, counters) {
                    Ok((w, id)) => {
                        let _ = ready_tx.send(Ok(id));
                        run(w, rx, stop);
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                })
                .map_err(|e| BridgeError::Config(format!("starting the bridge thread: {e}")))?
        };
        let zid = match ready_rx.recv() {
            Ok(Ok(zid)) => zid,
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(e);
            }
            Err(_) => {
                let _ = thread.join();
                return Err(BridgeError::Config(
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

    /// Hands `o` to the bridge's thread without waiting; `false` when it was
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
            writes_refused: c.writes_refused.load(Ordering::Relaxed),
        }
    }

    /// The Zenoh session id, as it appears in the liveliness tokens; over
    /// DDS, the participant's GUID (hex).
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

#[cfg(all(test, feature = "zenoh"))]
mod tests {
    #[test]
    fn multicast_scouting_is_off_by_default() {
        let z = crate::worker::zenoh_config(&crate::BridgeConfig::default()).unwrap();
        let text = format!("{z}");
        assert!(text.contains("\"tcp/127.0.0.1:7447\""), "{text}");
        let multicast = z.get_json("scouting/multicast/enabled").unwrap();
        assert_eq!(multicast, "false");
    }

    #[test]
    fn handshakes_are_bounded_in_time_and_number() {
        let z = crate::worker::zenoh_config(&crate::BridgeConfig::default()).unwrap();
        let timeout = z.get_json("transport/unicast/accept_timeout").unwrap();
        let pending = z.get_json("transport/unicast/accept_pending").unwrap();
        assert_eq!(timeout, crate::HANDSHAKE_TIMEOUT_MS.to_string());
        assert_eq!(pending, crate::MAX_PENDING_HANDSHAKES.to_string());
    }
}
