//! The HTTP side: the embedded page and one WebSocket per page.

use crate::{PageRequest, Shared, MAX_PAGE_MESSAGE_BYTES};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{oneshot, watch};

const INDEX_HTML: &str = include_str!("assets/index.html");
const VIEWER_JS: &str = include_str!("assets/viewer.js");
const VIEWER_CSS: &str = include_str!("assets/viewer.css");

/// Requests one page may have waiting for the simulation.
const MAX_PENDING_PER_PAGE: usize = 16;

#[derive(Clone)]
struct App {
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
}

/// Serves until `stop` turns true.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
) {
    let app = App {
        shared,
        stop: stop.clone(),
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
            "/viewer.css",
            get(|| async { asset("text/css; charset=utf-8", VIEWER_CSS) }),
        )
        .route("/healthz", get(health))
        .route("/ws", get(upgrade))
        .with_state(app);
    let mut stopped = stop;
    let shutdown = async move {
        while !*stopped.borrow_and_update() {
            if stopped.changed().await.is_err() {
                break;
            }
        }
    };
    if let Err(e) = axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
    {
        tracing::warn!("viewer stopped: {e}");
    }
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
        json!({
            "mode": s.mode.as_str(),
            "clients": s.clients.load(Ordering::Relaxed),
            "frames_sent": s.frames_sent.load(Ordering::Relaxed),
        })
        .to_string(),
    )
        .into_response()
}

/// A browser page may only connect from the viewer's own origin: any other
/// site open in the same browser could otherwise drive the simulator
/// (WebSockets are not bound by the same-origin policy). Clients that send
/// no `Origin` (not browsers) are let in.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let (Ok(origin), Some(Ok(host))) = (
        origin.to_str(),
        headers.get(header::HOST).map(|h| h.to_str()),
    ) else {
        return false;
    };
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|o| o.eq_ignore_ascii_case(host))
}

async fn upgrade(State(app): State<App>, headers: HeaderMap, ws: WebSocketUpgrade) -> Response {
    if !same_origin(&headers) {
        return (
            StatusCode::FORBIDDEN,
            "cross-origin viewer connections are refused",
        )
            .into_response();
    }
    ws.max_message_size(MAX_PAGE_MESSAGE_BYTES)
        .on_upgrade(move |socket| page(socket, app))
}

/// Counts a connected page while it lives.
struct Connected(Arc<Shared>);

impl Drop for Connected {
    fn drop(&mut self) {
        self.0.clients.fetch_sub(1, Ordering::Relaxed);
    }
}

type Pending = FuturesUnordered<
    std::pin::Pin<Box<dyn std::future::Future<Output = (Value, Option<String>)> + Send>>,
>;

async fn send_text(socket: &mut WebSocket, text: &str) -> bool {
    socket
        .send(Message::Text(Utf8Bytes::from(text)))
        .await
        .is_ok()
}

/// One page: the hello, then the scene and the newest frames as they come,
/// and the answers to its requests.
async fn page(mut socket: WebSocket, app: App) {
    let shared = app.shared;
    shared.clients.fetch_add(1, Ordering::Relaxed);
    let _connected = Connected(shared.clone());
    let hello = json!({
        "type": "hello",
        "mode": shared.mode.as_str(),
        "title": shared.title,
        "controls": shared.controls.load(Ordering::Relaxed),
        "version": env!("CARGO_PKG_VERSION"),
    });
    if !send_text(&mut socket, &hello.to_string()).await {
        return;
    }
    let (mut scene, mut frame, mut stop) =
        (shared.scene.clone(), shared.frame.clone(), app.stop.clone());
    scene.mark_changed();
    frame.mark_changed();
    let mut pending = Pending::new();
    loop {
        tokio::select! {
            biased;
            _ = stop.changed() => break,
            changed = scene.changed() => {
                if changed.is_err() { break }
                let msg = scene.borrow_and_update().clone();
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
            Some((id, outcome)) = pending.next(), if !pending.is_empty() => {
                let msg = match outcome {
                    Some(response) => format!(r#"{{"type":"reply","id":{id},"response":{response}}}"#),
                    None => json!({"type": "reply", "id": id, "error": "the simulation did not answer"}).to_string(),
                };
                if !send_text(&mut socket, &msg).await { break }
            }
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    if let Err(refusal) = take_request(&shared, text.as_str(), &mut pending) {
                        if !send_text(&mut socket, &refusal.to_string()).await { break }
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
        }
    }
}

/// Forwards a page's `{"type":"request","id":..,"request":{..}}` to the
/// simulation, or says why not (as a `reply` with an `error`).
fn take_request(shared: &Shared, text: &str, pending: &mut Pending) -> Result<(), Value> {
    let msg: Value = serde_json::from_str(text)
        .map_err(|e| json!({"type": "reply", "id": null, "error": format!("not JSON: {e}")}))?;
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let refuse = |why: &str| json!({"type": "reply", "id": id, "error": why});
    if msg.get("type").and_then(Value::as_str) != Some("request") {
        return Err(refuse(
            "expected {\"type\":\"request\",\"id\":..,\"request\":{..}}",
        ));
    }
    let Some(request) = msg.get("request").filter(|r| r.is_object()) else {
        return Err(refuse("`request` must be a protocol request object"));
    };
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
    fn only_the_viewers_own_origin_connects() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert!(same_origin(&h), "no Origin: not a browser");
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:8080"),
        );
        assert!(same_origin(&h));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://evil.example"),
        );
        assert!(!same_origin(&h));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:8081"),
        );
        assert!(!same_origin(&h));
    }
}
