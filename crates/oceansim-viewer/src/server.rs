//! The HTTP side: the embedded page and one WebSocket per page.

use crate::{
    Mode, PageRequest, Shared, MAX_PAGES, MAX_PAGE_MESSAGE_BYTES, MAX_PAGE_UNSENT_BYTES,
    MAX_PANELS_PER_PAGE, MAX_SENSOR_KEY_BYTES, PAGE_ACTIONS, PAGE_SEND_TIMEOUT,
};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use oceansim_protocol::view;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{oneshot, watch};

const INDEX_HTML: &str = include_str!("assets/index.html");
const VIEWER_JS: &str = include_str!("assets/viewer.js");
const VIEWER_CSS: &str = include_str!("assets/viewer.css");
const PANELS_JS: &str = include_str!("assets/panels.js");

/// Requests one page may have waiting for the simulation.
const MAX_PENDING_PER_PAGE: usize = 16;

#[derive(Clone)]
struct App {
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
    /// The address served (its IP is an accepted `Host`).
    local: std::net::SocketAddr,
}

/// Serves until `stop` turns true.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
) {
    let local = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!("viewer: {e}");
            return;
        }
    };
    let app = App {
        shared: shared.clone(),
        stop: stop.clone(),
        local,
    };
    let router = Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/viewer.js",
            get(|| async { asset("text/javascript; charset=utf-8", VIEWER_JS) }),
        )
        .route(
            "/panels.js",
            get(|| async { asset("text/javascript; charset=utf-8", PANELS_JS) }),
        )
        .route(
            "/viewer.css",
            get(|| async { asset("text/css; charset=utf-8", VIEWER_CSS) }),
        )
        .route("/healthz", get(health))
        .route("/ws", get(upgrade))
        .with_state(app);
    crate::http::serve(listener, router, shared, stop).await;
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn health(State(app): State<App>) -> Response {
    let s = &app.shared;
    (
        [(header::CONTENT_TYPE, "application/json")],
        view::to_text(&view::Health {
            mode: s.mode.as_str().into(),
            clients: s.clients.load(Ordering::Relaxed) as u64,
            connections: s.connections.load(Ordering::Relaxed) as u64,
            refused_connections: s.refused.load(Ordering::Relaxed),
            frames_sent: s.frames_sent.load(Ordering::Relaxed),
            sensor_messages_sent: s.sensor_messages_sent.load(Ordering::Relaxed),
            panels_shown: s.demand.lock().map(|d| d.len()).unwrap_or(0) as u64,
        }),
    )
        .into_response()
}

/// The host part of a `Host` value (`name:port`, `[v6]:port`, `name`).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    host.rsplit_once(':').map_or(host, |(h, _)| h)
}

/// Whether a socket may be opened. The `Host` must name this machine
/// (`localhost`, a loopback address, or the address the viewer is bound
/// to): a site that points its own name at 127.0.0.1 (DNS rebinding) sends
/// its own name, and is refused. A browser's `Origin` must then be that
/// same host, so no other site open in the browser can use the socket
/// (WebSockets are not bound by the same-origin policy). Clients that send
/// no `Origin` are not browsers and are let in.
fn allowed(headers: &HeaderMap, local: std::net::SocketAddr) -> bool {
    let Some(Ok(host)) = headers.get(header::HOST).map(|h| h.to_str()) else {
        return false;
    };
    let name = host_name(host);
    let this_machine = name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip == local.ip());
    if !this_machine {
        return false;
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    origin.to_str().is_ok_and(|o| {
        o.strip_prefix("http://")
            .or_else(|| o.strip_prefix("https://"))
            .is_some_and(|o| o.eq_ignore_ascii_case(host))
    })
}

async fn upgrade(State(app): State<App>, headers: HeaderMap, ws: WebSocketUpgrade) -> Response {
    if !allowed(&headers, app.local) {
        return (
            StatusCode::FORBIDDEN,
            "viewer connections are taken only from this machine's own pages",
        )
            .into_response();
    }
    // The page is counted from here, so upgrades in flight cannot pass
    // the cap together; a failed upgrade drops the count with the closure.
    let Some(connected) = Connected::take(&app.shared) else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("at most {MAX_PAGES} pages at once"),
        )
            .into_response();
    };
    ws.max_message_size(MAX_PAGE_MESSAGE_BYTES)
        .max_frame_size(MAX_PAGE_MESSAGE_BYTES)
        // A client that pings and never reads queues a pong per ping: past
        // this its pongs are coalesced into one and its messages refused,
        // and the socket's stall timeout then closes it.
        .write_buffer_size(PAGE_WRITE_CHUNK_BYTES)
        .max_write_buffer_size(MAX_PAGE_UNSENT_BYTES)
        .on_upgrade(move |socket| page(socket, app, connected))
}

/// Bytes gathered before a page's socket is written (tungstenite's
/// default).
const PAGE_WRITE_CHUNK_BYTES: usize = 128 << 10;

/// Counts a connected page while it lives.
struct Connected(Arc<Shared>);

impl Connected {
    /// A page's place among [`MAX_PAGES`], if one is free.
    fn take(shared: &Arc<Shared>) -> Option<Connected> {
        if shared.clients.fetch_add(1, Ordering::Relaxed) >= MAX_PAGES {
            shared.clients.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        Some(Connected(shared.clone()))
    }
}

impl Drop for Connected {
    fn drop(&mut self) {
        self.0.clients.fetch_sub(1, Ordering::Relaxed);
    }
}

type Pending = FuturesUnordered<
    std::pin::Pin<Box<dyn std::future::Future<Output = (Value, Option<String>)> + Send>>,
>;

/// Sends one message; a page that takes none of it for
/// [`PAGE_SEND_TIMEOUT`] is dropped.
async fn send_text(socket: &mut WebSocket, text: &str) -> bool {
    let send = socket.send(Message::Text(Utf8Bytes::from(text)));
    matches!(
        tokio::time::timeout(PAGE_SEND_TIMEOUT, send).await,
        Ok(Ok(()))
    )
}

/// One page: the hello, then the scene and the newest frames as they come,
/// and the answers to its requests.
async fn page(mut socket: WebSocket, app: App, connected: Connected) {
    let shared = app.shared;
    let _connected = connected;
    let hello = view::Hello {
        mode: shared.mode.as_str().into(),
        title: shared.title.clone(),
        controls: shared.controls.load(Ordering::Relaxed),
        // The cap this viewer's publisher keeps: the live simulator's. A
        // swarm's sink keeps its own and a replay has none, so null there.
        max_fps: (shared.mode == Mode::Live).then_some(shared.max_fps),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    if !send_text(&mut socket, &view::to_text(&hello)).await {
        return;
    }
    let (mut scene, mut overlays, mut frame, mut sensors, mut stop) = (
        shared.scene.clone(),
        shared.overlays.clone(),
        shared.frame.clone(),
        shared.sensors.clone(),
        app.stop.clone(),
    );
    scene.mark_changed();
    overlays.mark_changed();
    frame.mark_changed();
    let mut pending = Pending::new();
    let mut panels = Panels::new(shared.clone());
    loop {
        // Reads and replies come first: a busy stream of frames must not
        // keep a page's requests waiting.
        tokio::select! {
            biased;
            _ = stop.changed() => break,
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    let mut replay_changed = false;
                    let outcome = match page_message(text.as_str()) {
                        Ok(PageMessage::Panels(keys)) => {
                            panels.show(keys);
                            // What the new panels show is sent at once.
                            sensors.mark_changed();
                            replay_changed = true;
                            Ok(())
                        }
                        Ok(PageMessage::Seek(t)) => {
                            panels.replay_time = Some(t);
                            replay_changed = true;
                            Ok(())
                        }
                        Ok(PageMessage::Request(msg)) => take_request(&shared, msg, &mut pending),
                        Err(refusal) => Err(refusal),
                    };
                    if let Err(refusal) = outcome {
                        if !send_text(&mut socket, &view::to_text(&refusal)).await { break }
                    }
                    // A replay's panels follow the page's time; the files
                    // are read off this thread, so other pages never wait.
                    if replay_changed {
                        let mut gone = false;
                        for m in panels.replay_due().await {
                            if !send_text(&mut socket, &m).await { gone = true; break }
                            shared.sensor_messages_sent.fetch_add(1, Ordering::Relaxed);
                        }
                        if gone { break }
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
            Some((id, outcome)) = pending.next(), if !pending.is_empty() => {
                let msg = match outcome {
                    Some(response) => format!(r#"{{"type":"reply","id":{id},"response":{response}}}"#),
                    None => view::to_text(&view::Refusal {
                        id,
                        error: "the simulation did not answer".into(),
                    }),
                };
                if !send_text(&mut socket, &msg).await { break }
            }
            changed = scene.changed() => {
                if changed.is_err() { break }
                let msg = scene.borrow_and_update().clone();
                if let Some(m) = msg {
                    if !send_text(&mut socket, &m).await { break }
                }
            }
            changed = overlays.changed() => {
                if changed.is_err() { break }
                let msg = overlays.borrow_and_update().clone();
                if let Some(m) = msg {
                    if !send_text(&mut socket, &m).await { break }
                }
            }
            changed = frame.changed() => {
                if changed.is_err() { break }
                let msg = frame.borrow_and_update().clone();
                if let Some(m) = msg {
                    if !send_text(&mut socket, &m).await { break }
                    shared.frames_sent.fetch_add(1, Ordering::Relaxed);
                }
            }
            changed = sensors.changed() => {
                if changed.is_err() { break }
                let bundle = sensors.borrow_and_update().clone();
                let mut gone = false;
                for m in panels.live_due(&bundle) {
                    if !send_text(&mut socket, &m).await { gone = true; break }
                    shared.sensor_messages_sent.fetch_add(1, Ordering::Relaxed);
                }
                if gone { break }
            }
        }
    }
}

/// What a page said.
enum PageMessage {
    /// The panels it shows now (sensor keys).
    Panels(BTreeSet<String>),
    /// The replay time it shows (s).
    Seek(f64),
    /// A protocol request.
    Request(Value),
}

fn page_message(text: &str) -> Result<PageMessage, view::Refusal> {
    let msg: Value = serde_json::from_str(text).map_err(|e| view::Refusal {
        id: Value::Null,
        error: format!("not JSON: {e}"),
    })?;
    let refuse = |why: String| view::Refusal {
        id: msg.get("id").cloned().unwrap_or(Value::Null),
        error: why,
    };
    match msg.get("type").and_then(Value::as_str) {
        Some("panels") => {
            let Some(list) = msg.get("sensors").and_then(Value::as_array) else {
                return Err(refuse(
                    "`panels` needs `sensors`: a list of sensor keys".into(),
                ));
            };
            if list.len() > MAX_PANELS_PER_PAGE {
                return Err(refuse(format!(
                    "at most {MAX_PANELS_PER_PAGE} panels per page (asked for {})",
                    list.len()
                )));
            }
            let mut keys = BTreeSet::new();
            for k in list {
                match k.as_str() {
                    Some(k) if !k.is_empty() && k.len() <= MAX_SENSOR_KEY_BYTES => {
                        keys.insert(k.to_owned());
                    }
                    _ => {
                        return Err(refuse(format!(
                            "a sensor key is a string of 1 to {MAX_SENSOR_KEY_BYTES} bytes, got {k}"
                        )))
                    }
                }
            }
            Ok(PageMessage::Panels(keys))
        }
        Some("seek") => match msg.get("t").and_then(Value::as_f64) {
            Some(t) if t.is_finite() => Ok(PageMessage::Seek(t)),
            _ => Err(refuse("`seek` needs a finite time `t` (s)".into())),
        },
        _ => Ok(PageMessage::Request(msg)),
    }
}

/// The panels one page shows: its share of the viewer's demand (given back
/// when the page goes), and what it was last sent of each.
struct Panels {
    shared: Arc<Shared>,
    keys: BTreeSet<String>,
    sent: BTreeMap<String, u64>,
    /// The viewer's sensor epoch `sent` belongs to.
    epoch: u64,
    replay_time: Option<f64>,
}

impl Panels {
    fn new(shared: Arc<Shared>) -> Self {
        Panels {
            shared,
            keys: BTreeSet::new(),
            sent: BTreeMap::new(),
            epoch: 0,
            replay_time: None,
        }
    }

    fn show(&mut self, keys: BTreeSet<String>) {
        if let Ok(mut demand) = self.shared.demand.lock() {
            for k in keys.difference(&self.keys) {
                *demand.entry(k.clone()).or_default() += 1;
            }
            for k in self.keys.difference(&keys) {
                release(&mut demand, k);
            }
        }
        self.sent.retain(|k, _| keys.contains(k));
        self.keys = keys;
    }

    /// The live messages this page has not been sent yet.
    fn live_due(&mut self, bundle: &crate::SensorBundle) -> Vec<Arc<str>> {
        // A new scene's sequence numbers start again.
        let epoch = self.shared.sensor_epoch.load(Ordering::Relaxed);
        if epoch != self.epoch {
            self.epoch = epoch;
            self.sent.clear();
        }
        let mut out = Vec::new();
        for k in &self.keys {
            if let Some((seq, msg)) = bundle.get(k) {
                if self.sent.get(k) != Some(seq) {
                    self.sent.insert(k.clone(), *seq);
                    out.push(msg.clone());
                }
            }
        }
        out
    }

    /// A replay's messages for the page's time, those not sent yet (the
    /// index says which, before anything is read).
    async fn replay_due(&mut self) -> Vec<Arc<str>> {
        let (Some(t), Some(source)) = (self.replay_time, self.shared.sensor_source.get().cloned())
        else {
            return Vec::new();
        };
        let due: Vec<String> = self
            .keys
            .iter()
            .filter(|k| {
                source
                    .sequence_at(k, t)
                    .is_some_and(|seq| self.sent.get(*k) != Some(&seq))
            })
            .cloned()
            .collect();
        if due.is_empty() {
            return Vec::new();
        }
        let read = tokio::task::spawn_blocking(move || {
            due.into_iter()
                .filter_map(|k| source.at(&k, t).map(|(seq, m)| (k, seq, m)))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        read.into_iter()
            .map(|(k, seq, m)| {
                self.sent.insert(k, seq);
                m
            })
            .collect()
    }
}

fn release(demand: &mut BTreeMap<String, usize>, key: &str) {
    if let Some(n) = demand.get_mut(key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            demand.remove(key);
        }
    }
}

impl Drop for Panels {
    fn drop(&mut self) {
        if let Ok(mut demand) = self.shared.demand.lock() {
            for k in &self.keys {
                release(&mut demand, k);
            }
        }
    }
}

/// Forwards a page's `{"type":"request","id":..,"request":{..}}` to the
/// simulation, or says why not (as a `reply` with an `error`).
fn take_request(shared: &Shared, msg: Value, pending: &mut Pending) -> Result<(), view::Refusal> {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let refuse = |why: &str| view::Refusal {
        id: id.clone(),
        error: why.into(),
    };
    if msg.get("type").and_then(Value::as_str) != Some("request") {
        return Err(refuse(
            "expected {\"type\":\"request\",\"id\":..,\"request\":{..}}",
        ));
    }
    let Some(request) = msg.get("request").filter(|r| r.is_object()) else {
        return Err(refuse("`request` must be a protocol request object"));
    };
    let action = request.get("action").and_then(Value::as_str).unwrap_or("");
    if !PAGE_ACTIONS.contains(&action) {
        return Err(refuse(&format!(
            "a page may send only {}; `{action}` is refused (drive the simulator over its TCP protocol)",
            PAGE_ACTIONS.join(", ")
        )));
    }
    let (Some(tx), true) = (&shared.requests, shared.controls.load(Ordering::Relaxed)) else {
        return Err(refuse(
            "this viewer has no controls (it is not attached to a simulator)",
        ));
    };
    if pending.len() >= MAX_PENDING_PER_PAGE {
        return Err(refuse("too many requests waiting; retry"));
    }
    let (reply, answer) = oneshot::channel();
    tx.try_send(PageRequest {
        line: request.to_string(),
        reply,
    })
    .map_err(|e| match e {
        tokio::sync::mpsc::error::TrySendError::Full(_) => refuse("the simulator is busy; retry"),
        tokio::sync::mpsc::error::TrySendError::Closed(_) => refuse("the simulator has stopped"),
    })?;
    pending.push(Box::pin(async move { (id, answer.await.ok()) }));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn only_this_machines_own_pages_connect() {
        let local: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let h = |host: &str, origin: Option<&str>| {
            let mut m = HeaderMap::new();
            m.insert(header::HOST, HeaderValue::from_str(host).unwrap());
            if let Some(o) = origin {
                m.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
            }
            allowed(&m, local)
        };
        assert!(h("127.0.0.1:8080", None), "no Origin: not a browser");
        assert!(h("127.0.0.1:8080", Some("http://127.0.0.1:8080")));
        assert!(h("localhost:8080", Some("http://localhost:8080")));
        assert!(h("[::1]:8080", Some("http://[::1]:8080")));
        assert!(!h("127.0.0.1:8080", Some("https://evil.example")));
        assert!(!h("127.0.0.1:8080", Some("http://127.0.0.1:8081")));
        // DNS rebinding: the attacker's name resolves here, and says so.
        assert!(!h("evil.example:8080", Some("http://evil.example:8080")));
        assert!(!h("evil.example:8080", None));
        assert_eq!(host_name("[::1]:80"), "::1");
        assert_eq!(host_name("localhost"), "localhost");
    }
}
