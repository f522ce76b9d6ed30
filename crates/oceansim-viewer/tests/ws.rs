//! The viewer's WebSocket as a page (and a hostile one) sees it: hello,
//! scene before frames, the newest frame only for a slow reader, requests
//! answered or refused with a reason, other origins and oversized messages
//! turned away.

use futures::{SinkExt, StreamExt};
use oceansim_viewer::{Mode, PageRequest, Viewer, ViewerConfig, MAX_PAGE_MESSAGE_BYTES};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn start(mode: Mode) -> Viewer {
    Viewer::start(ViewerConfig::new("127.0.0.1:0".parse().unwrap(), mode).title("test")).unwrap()
}

async fn connect(v: &Viewer) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", v.addr()))
        .await
        .unwrap();
    ws
}

async fn next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a message in time")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_page_gets_hello_then_the_scene_then_the_newest_frame() {
    let v = start(Mode::Swarm);
    v.publish_scene(r#"{"type":"scene","title":"s","bounds":[0,1,0,1],"obstacles":[]}"#);
    for k in 0..1000 {
        v.publish_frame(format!(r#"{{"type":"frame","t":{k}}}"#));
    }
    rt().block_on(async {
        let mut ws = connect(&v).await;
        let hello = next(&mut ws).await;
        assert_eq!(hello["type"], "hello");
        assert_eq!(hello["mode"], "swarm");
        assert!(
            hello["max_fps"].is_null(),
            "a swarm's sink keeps its own rate"
        );
        assert_eq!(
            hello["controls"], false,
            "only a live simulator has controls"
        );
        assert_eq!(next(&mut ws).await["type"], "scene");
        // A page that connects late gets the newest frame, not the backlog.
        assert_eq!(next(&mut ws).await["t"], 999);
        v.publish_frame(r#"{"type":"frame","t":1000}"#);
        assert_eq!(next(&mut ws).await["t"], 1000);
        assert_eq!(v.clients(), 1);
    });
}

#[test]
fn a_stuck_page_skips_frames_and_never_holds_the_publisher() {
    let v = start(Mode::Swarm);
    rt().block_on(async {
        let mut ws = connect(&v).await;
        assert_eq!(next(&mut ws).await["type"], "hello");
        // The page reads nothing while 20,000 frames of 10 kB are published.
        let pad = "x".repeat(10_000);
        for k in 0..20_000 {
            v.publish_frame(format!(r#"{{"type":"frame","t":{k},"pad":"{pad}"}}"#));
        }
        let mut last = -1;
        let mut seen = 0;
        while last != 19_999 {
            last = next(&mut ws).await["t"].as_i64().unwrap();
            seen += 1;
        }
        assert!(
            seen < 20_000,
            "frames in between were skipped ({seen} seen)"
        );
    });
}

#[test]
fn requests_are_answered_by_whoever_took_them_and_bad_ones_refused() {
    let mut v = start(Mode::Live);
    let mut requests = v.take_requests().expect("a live viewer has requests");
    assert!(v.take_requests().is_none(), "taken once");
    // The simulator's side: echo the line back as a protocol response.
    let answerer = std::thread::spawn(move || {
        while let Some(PageRequest { line, reply }) = requests.blocking_recv() {
            let _ =
                reply.send(json!({"type": "response", "status": "ok", "echo": line}).to_string());
        }
    });
    rt().block_on(async {
        let mut ws = connect(&v).await;
        let hello = next(&mut ws).await;
        assert_eq!(hello["controls"], true);
        let req = json!({"type": "request", "id": 7, "request": {"type": "sim_control", "action": "pause"}});
        ws.send(Message::text(req.to_string())).await.unwrap();
        let reply = next(&mut ws).await;
        assert_eq!(reply["type"], "reply");
        assert_eq!(reply["id"], 7);
        let echoed: Value = serde_json::from_str(reply["response"]["echo"].as_str().unwrap()).unwrap();
        assert_eq!(echoed["action"], "pause");
        for (bad, why) in [
            ("not json".to_owned(), "not JSON"),
            (
                json!({"type": "request", "id": 5, "request": {"type": "command", "action": "spawn_obstacle", "data": {}}}).to_string(),
                "may send only",
            ),
            (json!({"type": "frame"}).to_string(), "expected"),
            (json!({"type": "request", "id": 1, "request": [1, 2]}).to_string(), "protocol request object"),
        ] {
            ws.send(Message::text(bad)).await.unwrap();
            let r = next(&mut ws).await;
            assert!(r["error"].as_str().unwrap().contains(why), "{r}");
        }
        // Past the message limit the page is cut off, and nothing else.
        let huge = format!(r#"{{"type":"request","id":2,"request":{{"pad":"{}"}}}}"#, "x".repeat(MAX_PAGE_MESSAGE_BYTES));
        let _ = ws.send(Message::text(huge)).await;
        let closed = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                match ws.next().await {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return true,
                    Some(Ok(_)) => {}
                }
            }
        })
        .await
        .unwrap_or(false);
        assert!(closed, "an oversized message closes that page");
        let mut again = connect(&v).await;
        assert_eq!(next(&mut again).await["type"], "hello", "the viewer still serves");
    });
    drop(v);
    answerer.join().unwrap();
}

#[test]
fn a_viewer_without_controls_says_so() {
    let v = start(Mode::Replay);
    rt().block_on(async {
        let mut ws = connect(&v).await;
        next(&mut ws).await;
        let req = json!({"type": "request", "id": 3, "request": {"type": "sim_control", "action": "pause"}});
        ws.send(Message::text(req.to_string())).await.unwrap();
        let r = next(&mut ws).await;
        assert_eq!(r["id"], 3);
        assert!(r["error"].as_str().unwrap().contains("no controls"), "{r}");
    });
}

#[test]
fn other_sites_cannot_open_the_socket() {
    let v = start(Mode::Live);
    rt().block_on(async {
        let mut req = format!("ws://{}/ws", v.addr())
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("Origin", "https://evil.example".parse().unwrap());
        let refused = tokio_tungstenite::connect_async(req).await;
        assert!(refused.is_err(), "a cross-origin page is refused");
        let mut own = format!("ws://{}/ws", v.addr())
            .into_client_request()
            .unwrap();
        own.headers_mut()
            .insert("Origin", format!("http://{}", v.addr()).parse().unwrap());
        assert!(tokio_tungstenite::connect_async(own).await.is_ok());
        // DNS rebinding: another site's name pointed at this machine.
        let mut rebound = format!("ws://{}/ws", v.addr())
            .into_client_request()
            .unwrap();
        let port = v.addr().port();
        rebound
            .headers_mut()
            .insert("Host", format!("evil.example:{port}").parse().unwrap());
        rebound.headers_mut().insert(
            "Origin",
            format!("http://evil.example:{port}").parse().unwrap(),
        );
        assert!(tokio_tungstenite::connect_async(rebound).await.is_err());
    });
}

#[test]
fn a_taken_port_is_a_clear_error() {
    let v = start(Mode::Swarm);
    let e = Viewer::start(ViewerConfig::new(v.addr(), Mode::Swarm)).unwrap_err();
    assert_eq!(e.code(), "viewer_bind");
    assert!(e.to_string().contains(&v.addr().to_string()), "{e}");
}

#[test]
fn a_half_sent_request_does_not_hold_the_stop() {
    use std::io::Write;
    let v = start(Mode::Live);
    let mut idle = std::net::TcpStream::connect(v.addr()).unwrap();
    idle.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let t = std::time::Instant::now();
    v.shutdown();
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "stopped despite the idle client"
    );
    drop(idle);
}

#[test]
fn hello_tells_the_page_the_rate_clamped_to_its_range() {
    for (asked, got) in [(5.0, 5.0), (0.01, 1.0), (1e9, 120.0), (f64::NAN, 30.0)] {
        let v = Viewer::start(
            ViewerConfig::new("127.0.0.1:0".parse().unwrap(), Mode::Live).max_fps(asked),
        )
        .unwrap();
        assert_eq!(v.max_fps(), got, "asked {asked}");
        rt().block_on(async {
            let mut ws = connect(&v).await;
            assert_eq!(next(&mut ws).await["max_fps"], got, "asked {asked}");
        });
    }
}
