//! What a connection's reader, writer and callers share: the waiters by
//! request id, the ids sent without waiting, the latest full state; and
//! the routing of the async link's reply lines to their waiters.

use super::*;

pub(super) type Pending = Mutex<HashMap<String, oneshot::Sender<Value>>>;

#[derive(Debug)]
pub(super) struct Shared {
    pub(super) addr: String,
    pub(super) pending: Pending,
    pub(super) latest_state: Mutex<Option<Value>>,
    /// A newer full state than `latest_state`, as its reply line (parsed
    /// only if someone asks for it).
    pub(super) latest_line: Mutex<Option<String>>,
    pub(super) connected: AtomicBool,
    pub(super) next_id: AtomicU64,
    /// Ids of lines sent without waiting: their replies are expected and
    /// discarded quietly.
    pub(super) unawaited: Mutex<std::collections::HashSet<String>>,
    /// Wakes the writer to close the connection ([`OceanSimClient::disconnect`]).
    pub(super) closing: tokio::sync::Notify,
}

impl Shared {
    pub(super) fn new(addr: &str) -> Arc<Shared> {
        Arc::new(Shared {
            addr: addr.to_owned(),
            pending: Mutex::new(HashMap::new()),
            latest_state: Mutex::new(None),
            latest_line: Mutex::new(None),
            connected: AtomicBool::new(true),
            next_id: AtomicU64::new(1),
            unawaited: Mutex::new(Default::default()),
            closing: tokio::sync::Notify::new(),
        })
    }

    /// Keeps `reply`'s data when it is an ok full state.
    pub(super) fn cache(&self, reply: &Value) {
        let full = reply.get("type").and_then(Value::as_str) == Some("state") && is_ok(reply);
        if let Some(data) = reply.get("data").filter(|d| full && is_full_state(d)) {
            *lock(&self.latest_state) = Some(data.clone());
            *lock(&self.latest_line) = None;
        }
    }

    /// Keeps a reply line known to be an ok full state, unparsed.
    pub(super) fn cache_line(&self, line: &str) {
        *lock(&self.latest_line) = Some(line.to_owned());
    }

    /// Keeps a reply line read past on the direct link when it is a state.
    pub(super) fn cache_other(&self, line: &str) {
        let h = crate::header::peek(line).unwrap_or_default();
        if h.is_ok() && h.kind.as_deref() == Some("state") {
            if let Ok(reply) = serde_json::from_str::<Value>(line) {
                self.cache(&reply);
            }
        }
    }

    pub(super) fn latest(&self) -> Option<Value> {
        // Taken first: `cache` locks `latest_line` too.
        let line = lock(&self.latest_line).take();
        if let Some(line) = line {
            let reply = serde_json::from_str::<Value>(&line).unwrap_or_default();
            self.cache(&reply);
        }
        lock(&self.latest_state).clone()
    }

    pub(super) fn lock_pending(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Value>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Routes a reply line read by the async link to its waiter.
pub(super) fn deliver(shared: &Shared, text: &str) {
    let reply: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!("reply is not JSON: {e}");
            return;
        }
    };
    let is_error = reply.get("type").and_then(Value::as_str) == Some("error");
    let waiter = match reply.get("request_id") {
        Some(Value::String(id)) => {
            let waiter = shared.lock_pending().remove(id);
            if waiter.is_none()
                && shared
                    .unawaited
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(id)
            {
                return;
            }
            waiter
        }
        // An error the server could not address (it can for every line
        // this client writes): the only waiter, if exactly one, owns it.
        None | Some(Value::Null) if is_error => {
            let mut pending = shared.lock_pending();
            if pending.len() == 1 {
                let key = pending.keys().next().cloned();
                key.and_then(|k| pending.remove(&k))
            } else {
                None
            }
        }
        _ => None,
    };
    shared.cache(&reply);
    match waiter {
        Some(tx) => {
            let _ = tx.send(reply);
        }
        None => {
            let id = reply.get("request_id").cloned().unwrap_or_default();
            tracing::warn!(request_id = %id, "a reply matches no request in flight (timed out, or not ours); dropped");
        }
    }
}
