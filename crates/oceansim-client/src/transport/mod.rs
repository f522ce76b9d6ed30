//! The transport: one TCP connection, with one of two links under it.
//!
//! Every request gets a connection-unique `request_id` (`c1`, `c2`, ...).
//! On the **async** link ([`OceanSimClient::connect`]) a background task
//! reads reply lines and hands each to the request whose id it echoes, so
//! many requests are in flight and replies may arrive in any order;
//! another task writes queued request lines, so sending never waits on a
//! slow reader. The **direct** link of the [`crate::blocking`] clients has
//! no task at all: the calling thread writes its line and reads until its
//! id comes back (`crate::direct`), one request on the wire at a time.

mod envelope;
mod options;
mod shared;

pub use options::{
    ConnectOptions, Reply, DEFAULT_ADDR, DEFAULT_TIMEOUT, EXPORT_TIMEOUT, MAX_REPLY_BYTES,
};

use crate::direct::DirectLink;
use crate::error::{ClientError, Result};
use envelope::*;
use futures::StreamExt;
use oceansim_protocol::{NdjsonCodec, SingleRequest, PROTOCOL_VERSION};
use serde_json::{Map, Value};
use shared::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::FramedRead;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The OceanSim client: cheap to clone (clones share the connection),
/// usable from many tasks at once.
///
/// Made by [`OceanSimClient::connect`], its futures run on tokio. The
/// [`crate::blocking`] clients make it on the direct link instead: its
/// futures then do their I/O on the polling thread and never yield, so
/// they are for that thread, not for an async runtime.
#[derive(Debug, Clone)]
pub struct OceanSimClient {
    shared: Arc<Shared>,
    link: Link,
    timeout: Duration,
}

#[derive(Debug, Clone)]
enum Link {
    /// Request lines queued for the writer task; replies routed by the
    /// reader task.
    Tasks(mpsc::UnboundedSender<String>),
    /// The caller's thread writes and reads.
    Direct(Arc<DirectLink>),
}

/// A request ready for the wire.
struct Prepared {
    id: String,
    action: String,
    line: String,
    timeout: Duration,
    /// Whether an ok `state` reply to it is a full state (what
    /// [`OceanSimClient::get_latest_state`] keeps).
    full_state: bool,
}

impl OceanSimClient {
    /// The SDK's protocol version, `2`.
    pub const PROTOCOL_VERSION: u32 = PROTOCOL_VERSION as u32;

    /// Connects to `addr` (`host:port`) with the default retries (10, 1 s
    /// apart) and the default 5 s request timeout.
    pub async fn connect(addr: &str) -> Result<OceanSimClient> {
        OceanSimClient::connect_with(addr, ConnectOptions::default()).await
    }

    /// Connects with explicit retry and timeout options.
    pub async fn connect_with(addr: &str, options: ConnectOptions) -> Result<OceanSimClient> {
        check_options(&options)?;
        let mut attempt = 0;
        let stream = loop {
            // An unreachable host must not wait for the OS's own timeout.
            let tried = match tokio::time::timeout(options.timeout, TcpStream::connect(addr)).await
            {
                Ok(r) => r,
                Err(_) => Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no answer within {:?}", options.timeout),
                )),
            };
            match tried {
                Ok(s) => break s,
                Err(e) if attempt >= options.retries => {
                    return Err(ClientError::Connection {
                        addr: addr.to_owned(),
                        reason: format!("{e} (after {} attempts)", attempt + 1),
                    })
                }
                Err(e) => {
                    tracing::debug!(addr, attempt, "connect failed: {e}; retrying");
                    attempt += 1;
                    tokio::time::sleep(options.interval).await;
                }
            }
        };
        // Small request lines are latency-bound; do not let Nagle hold them.
        let _ = stream.set_nodelay(true);
        let (read, mut write) = stream.into_split();
        let shared = Shared::new(addr);
        let (outbox, mut queue) = mpsc::unbounded_channel::<String>();
        let writer_shared = Arc::clone(&shared);
        tokio::spawn(async move {
            loop {
                let first = tokio::select! {
                    line = queue.recv() => match line {
                        Some(line) => line,
                        None => break,
                    },
                    () = writer_shared.closing.notified() => break,
                };
                let mut buf = first;
                // Coalesce whatever else is queued into one write.
                while let Ok(more) = queue.try_recv() {
                    buf.push_str(&more);
                }
                if write.write_all(buf.as_bytes()).await.is_err() {
                    break;
                }
            }
            writer_shared.connected.store(false, Ordering::SeqCst);
            let _ = write.shutdown().await;
        });
        let reader_shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut lines =
                FramedRead::new(read, NdjsonCodec::with_max_line_bytes(MAX_REPLY_BYTES));
            while let Some(Ok(line)) = lines.next().await {
                match line {
                    Ok(text) => deliver(&reader_shared, &text),
                    Err(e) => tracing::warn!("unreadable reply line: {e}"),
                }
            }
            reader_shared.connected.store(false, Ordering::SeqCst);
            // Dropping the senders wakes every waiter with a connection error.
            reader_shared.lock_pending().clear();
        });
        Ok(OceanSimClient {
            shared,
            link: Link::Tasks(outbox),
            timeout: options.timeout,
        })
    }

    /// Connects on the direct link (see [`OceanSimClient`]): what the
    /// blocking clients use.
    pub(crate) fn connect_direct(addr: &str, options: ConnectOptions) -> Result<OceanSimClient> {
        check_options(&options)?;
        let link = DirectLink::connect(addr, options)?;
        Ok(OceanSimClient {
            shared: Shared::new(addr),
            link: Link::Direct(Arc::new(link)),
            timeout: options.timeout,
        })
    }

    /// `true` while the connection is open.
    pub fn is_connected(&self) -> bool {
        match &self.link {
            Link::Tasks(outbox) => {
                self.shared.connected.load(Ordering::SeqCst) && !outbox.is_closed()
            }
            Link::Direct(d) => d.is_connected(),
        }
    }

    /// The address this client connected to.
    pub fn addr(&self) -> &str {
        &self.shared.addr
    }

    /// The default per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// A handle on the same connection with another default timeout.
    pub fn with_timeout(&self, timeout: Duration) -> OceanSimClient {
        OceanSimClient {
            timeout,
            ..self.clone()
        }
    }

    fn connection_error(&self, reason: &str) -> ClientError {
        ClientError::Connection {
            addr: self.shared.addr.clone(),
            reason: reason.to_owned(),
        }
    }

    /// Closes the connection for this client and every clone of it:
    /// requests waiting for replies fail with a connection error.
    pub fn disconnect(&self) {
        self.shared.connected.store(false, Ordering::SeqCst);
        match &self.link {
            Link::Tasks(_) => self.shared.closing.notify_one(),
            Link::Direct(d) => d.disconnect(),
        }
    }

    /// Sends one raw JSON request without waiting for its answer. A
    /// `request_id` is added when it has none, so its reply is never taken
    /// for another request's; the reply is discarded.
    pub fn send(&self, msg: &Value) -> Result<()> {
        let mut msg = msg.clone();
        if let Some(obj) = msg.as_object_mut() {
            if !obj.contains_key("request_id") {
                let id = self.next_id();
                match &self.link {
                    Link::Tasks(_) => {
                        lock(&self.shared.unawaited).insert(id.clone());
                    }
                    Link::Direct(d) => d.forget(id.clone()),
                }
                obj.insert("request_id".into(), Value::String(id));
            }
        }
        let line = line_of(&msg)?;
        match &self.link {
            Link::Tasks(outbox) => self.queue(outbox, line),
            Link::Direct(d) => d.send(&self.shared.addr, &line),
        }
    }

    fn queue(&self, outbox: &mpsc::UnboundedSender<String>, line: String) -> Result<()> {
        if !self.is_connected() || outbox.send(line).is_err() {
            return Err(self.connection_error("the connection is closed"));
        }
        Ok(())
    }

    fn next_id(&self) -> String {
        format!("c{}", self.shared.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Gives `msg` its `request_id` and `protocol_version` and renders it.
    fn prepare(&self, mut msg: Value, timeout: Option<Duration>) -> Result<Prepared> {
        let Some(obj) = msg.as_object_mut() else {
            return Err(ClientError::InvalidArgument(
                "a request must be a JSON object".into(),
            ));
        };
        let action = request_action(obj);
        let id = self.next_id();
        let timeout = timeout.unwrap_or_else(|| default_timeout(&action, obj, self.timeout));
        let compact = obj
            .get("data")
            .and_then(|d| d.get("detail"))
            .and_then(Value::as_str)
            == Some("compact");
        let full_state = matches!(action.as_str(), "get_state" | "step") && !compact;
        let line = if obj.contains_key("protocol_version") || obj.contains_key("request_id") {
            obj.insert("protocol_version".into(), PROTOCOL_VERSION.into());
            obj.insert("request_id".into(), Value::String(id.clone()));
            line_of(&msg)?
        } else {
            // The two fields appended to the rendered object: no map
            // insertions for every request.
            let mut line = msg.to_string();
            line.pop();
            if line.len() > 1 {
                line.push(',');
            }
            line.push_str(&format!(
                "\"protocol_version\":{PROTOCOL_VERSION},\"request_id\":\"{id}\"}}\n"
            ));
            check_length(line)?
        };
        Ok(Prepared {
            line,
            id,
            action,
            timeout,
            full_state,
        })
    }

    /// Sends a request object (its `request_id` and `protocol_version` are
    /// set here) and waits for the reply with its id. Error envelopes,
    /// empty replies and replies to another action are errors.
    pub async fn request(&self, msg: Value, timeout: Option<Duration>) -> Result<Reply> {
        let p = self.prepare(msg, timeout)?;
        let reply = match &self.link {
            Link::Tasks(outbox) => self.await_reply(outbox, &p).await?,
            Link::Direct(d) => self.direct_round_trip(d, &p, |line, _| {
                let reply = parse_reply(line, &p.action)?;
                self.shared.cache(&reply);
                Ok(reply)
            })?,
        };
        check_reply(reply, &p.action)
    }

    /// [`OceanSimClient::request`], returning the reply's line as the
    /// server wrote it: ok and answering the request's action (anything
    /// else is the same error as `request`'s), for a caller that parses
    /// it itself. On the direct link only the envelope's header is read
    /// here, so the line is parsed once, by the caller.
    pub async fn request_text(&self, msg: Value, timeout: Option<Duration>) -> Result<String> {
        let p = self.prepare(msg, timeout)?;
        match &self.link {
            Link::Tasks(outbox) => {
                let reply = self.await_reply(outbox, &p).await?;
                check_reply(reply, &p.action).map(|r| r.0.to_string())
            }
            Link::Direct(d) => self.direct_round_trip(d, &p, |line, h| {
                if !h.is_ok() || h.action.as_deref() != Some(p.action.as_str()) {
                    // Errors take the typed path, so they read the same.
                    return check_reply(parse_reply(line, &p.action)?, &p.action)
                        .map(|_| line.to_owned());
                }
                if p.full_state && h.kind.as_deref() == Some("state") {
                    self.shared.cache_line(line);
                }
                Ok(line.to_owned())
            }),
        }
    }

    fn direct_round_trip<T>(
        &self,
        d: &DirectLink,
        p: &Prepared,
        ours: impl FnOnce(&str, &crate::header::Header<'_>) -> Result<T>,
    ) -> Result<T> {
        d.round_trip(
            &self.shared.addr,
            &p.line,
            &p.id,
            &p.action,
            p.timeout,
            |other| self.shared.cache_other(other),
            ours,
        )
    }

    /// The async link's wait: the reader task hands over the reply.
    async fn await_reply(
        &self,
        outbox: &mpsc::UnboundedSender<String>,
        p: &Prepared,
    ) -> Result<Value> {
        let (tx, rx) = oneshot::channel();
        self.shared.lock_pending().insert(p.id.clone(), tx);
        if let Err(e) = self.queue(outbox, p.line.clone()) {
            self.shared.lock_pending().remove(&p.id);
            return Err(e);
        }
        match tokio::time::timeout(p.timeout, rx).await {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(_)) => Err(self.connection_error(&format!(
                "the connection closed before `{}` was answered",
                p.action
            ))),
            Err(_) => {
                self.shared.lock_pending().remove(&p.id);
                Err(ClientError::Timeout {
                    action: p.action.clone(),
                    timeout: p.timeout,
                })
            }
        }
    }

    /// Sends a `command` with optional `data` and waits for its reply.
    pub async fn send_command(
        &self,
        action: &str,
        data: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<Reply> {
        self.request(command(action, data), timeout).await
    }

    /// [`OceanSimClient::send_command`], returning the reply's line (see
    /// [`OceanSimClient::request_text`]).
    pub async fn send_command_text(
        &self,
        action: &str,
        data: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<String> {
        self.request_text(command(action, data), timeout).await
    }

    /// Sends a typed request from the protocol crate (its id is replaced).
    pub async fn send_request(
        &self,
        request: &SingleRequest,
        timeout: Option<Duration>,
    ) -> Result<Reply> {
        self.request(request.to_value(), timeout).await
    }

    /// [`OceanSimClient::send_request`], returning the reply's line (see
    /// [`OceanSimClient::request_text`]).
    pub async fn send_request_text(
        &self,
        request: &SingleRequest,
        timeout: Option<Duration>,
    ) -> Result<String> {
        self.request_text(request.to_value(), timeout).await
    }

    /// Sends a `sim_control` request (`reset`, `pause`, `resume`,
    /// `set_time_scale`); `params` are its fields, e.g.
    /// `{"time_scale": 4.0}` or `{"seed": 3}`.
    pub async fn send_sim_control(
        &self,
        action: &str,
        params: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<Reply> {
        self.request(sim_control(action, params)?, timeout).await
    }

    /// [`OceanSimClient::send_sim_control`], returning the reply's line
    /// (see [`OceanSimClient::request_text`]).
    pub async fn send_sim_control_text(
        &self,
        action: &str,
        params: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<String> {
        self.request_text(sim_control(action, params)?, timeout)
            .await
    }

    /// Sends up to 64 command or sim_control objects as one `batch`; each
    /// child is given the protocol version and, unless it carries one, a
    /// request id of its own (a caller's id is kept, and its reply echoes
    /// it).
    /// Returns the children's replies in order; a child that failed is an
    /// `error` envelope in its place (the batch itself succeeded).
    pub async fn send_batch(
        &self,
        requests: Vec<Value>,
        timeout: Option<Duration>,
    ) -> Result<Vec<Reply>> {
        let children = self.batch_children(requests)?;
        let reply = self.request(batch(&children), timeout).await?;
        let data = reply.into_data();
        let responses = check_batch(&children, &data)?;
        let mut out = Vec::with_capacity(responses.len());
        for resp in responses {
            self.shared.cache(resp);
            out.push(Reply(resp.clone()));
        }
        Ok(out)
    }

    /// [`OceanSimClient::send_batch`], returning the batch reply's line
    /// (see [`OceanSimClient::request_text`]): its children are checked
    /// against the requests (count and ids) without a parse tree being
    /// built; the caller parses the line once.
    pub async fn send_batch_text(
        &self,
        requests: Vec<Value>,
        timeout: Option<Duration>,
    ) -> Result<String> {
        #[derive(serde::Deserialize)]
        struct Envelope<'a> {
            #[serde(borrow)]
            data: Data<'a>,
        }
        #[derive(serde::Deserialize)]
        struct Data<'a> {
            #[serde(borrow)]
            responses: Vec<&'a serde_json::value::RawValue>,
        }
        let children = self.batch_children(requests)?;
        let line = self.request_text(batch(&children), timeout).await?;
        let envelope = serde_json::from_str::<Envelope<'_>>(&line).ok();
        let fits = envelope.as_ref().is_some_and(|e| {
            e.data.responses.len() == children.len()
                && e.data.responses.iter().zip(&children).all(|(r, c)| {
                    // The id as the server echoed it, against the one sent
                    // (text against text: a child is read up to its header).
                    let got = crate::header::peek(r.get()).and_then(|h| h.request_id_raw);
                    got.is_some()
                        && got.map(str::to_owned) == c.get("request_id").map(Value::to_string)
                })
        });
        // The last state a child carries is the latest one (kept unparsed;
        // a compact one is told apart when it is parsed).
        let last_state = envelope
            .iter()
            .flat_map(|e| &e.data.responses)
            .rev()
            .find(|r| {
                let h = crate::header::peek(r.get()).unwrap_or_default();
                h.is_ok() && h.kind.as_deref() == Some("state")
            });
        if let (true, Some(r)) = (fits, last_state) {
            self.shared.cache_line(r.get());
        }
        if !fits {
            // The error, worded as the parsed path words it.
            let reply = parse_reply(&line, "batch")?;
            check_batch(&children, reply.get("data").unwrap_or(&Value::Null))?;
        }
        Ok(line)
    }

    /// Gives each batch child the protocol version and, unless it carries
    /// one, a request id of its own.
    fn batch_children(&self, requests: Vec<Value>) -> Result<Vec<Value>> {
        let mut children = Vec::with_capacity(requests.len());
        for (i, mut child) in requests.into_iter().enumerate() {
            let Some(obj) = child.as_object_mut() else {
                return Err(ClientError::InvalidArgument(format!(
                    "batch request {i} is not a JSON object"
                )));
            };
            obj.insert("protocol_version".into(), PROTOCOL_VERSION.into());
            if obj.get("request_id").is_none_or(Value::is_null) {
                obj.insert("request_id".into(), Value::String(self.next_id()));
            }
            children.push(child);
        }
        Ok(children)
    }

    /// `get_state`: the `data` of the reply (also cached).
    pub async fn request_state(&self) -> Result<Value> {
        let reply = self.send_command("get_state", None, None).await?;
        let data = reply.into_data();
        if !data.is_object() || data.as_object().is_some_and(Map::is_empty) {
            return Err(ClientError::protocol(
                "empty_reply",
                "`get_state` returned no state",
                "get_state",
                None,
            ));
        }
        Ok(data)
    }

    /// The last full state any reply on this connection carried, without
    /// sending anything.
    pub fn get_latest_state(&self) -> Option<Value> {
        self.shared.latest()
    }
}
