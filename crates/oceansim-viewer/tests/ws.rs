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

/// Reads messages until one of `kind` comes (others skipped).
async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let m = next(ws).await;
        if m["type"] == kind {
            return m;
        }
    }
}

async fn wait_demand(v: &Viewer, want: &[&str]) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while v.sensor_demand() != want {
        assert!(
            tokio::time::Instant::now() < deadline,
            "demand {:?}, want {want:?}",
            v.sensor_demand()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[test]
fn a_page_is_sent_only_the_sensors_its_panels_show() {
    let v = start(Mode::Live);
    rt().block_on(async {
        let mut a = connect(&v).await;
        let mut b = connect(&v).await;
        next_of(&mut a, "hello").await;
        next_of(&mut b, "hello").await;
        assert!(v.sensor_demand().is_empty());
        let panels =
            |keys: &[&str]| Message::text(json!({"type": "panels", "sensors": keys}).to_string());
        a.send(panels(&["auv/main/sonar"])).await.unwrap();
        b.send(panels(&["auv/main/sonar", "auv/main/camera"]))
            .await
            .unwrap();
        wait_demand(&v, &["auv/main/camera", "auv/main/sonar"]).await;
        let msg = |k: &str, seq: u64| {
            (
                k.to_owned(),
                seq,
                format!(r#"{{"type":"sensor","key":"{k}","seq":{seq}}}"#).into(),
            )
        };
        v.publish_sensors([msg("auv/main/camera", 1), msg("auv/main/sonar", 7)]);
        let got = next_of(&mut a, "sensor").await;
        assert_eq!(got["key"], "auv/main/sonar", "page a shows the sonar only");
        let mut seen: Vec<String> = Vec::new();
        for _ in 0..2 {
            seen.push(
                next_of(&mut b, "sensor").await["key"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            );
        }
        seen.sort();
        assert_eq!(seen, ["auv/main/camera", "auv/main/sonar"]);
        // The same sample again is not resent; a newer one is.
        v.publish_sensors([msg("auv/main/sonar", 7)]);
        v.publish_sensors([msg("auv/main/sonar", 8)]);
        assert_eq!(next_of(&mut a, "sensor").await["seq"], 8);
        // A new scene starts sequences again: the same number is news.
        v.clear_sensors();
        v.publish_sensors([msg("auv/main/sonar", 8)]);
        assert_eq!(next_of(&mut a, "sensor").await["seq"], 8);
        // A bad `panels` is refused and changes nothing.
        let too_many: Vec<String> = (0..65).map(|i| format!("k{i}")).collect();
        for bad in [
            json!({"type": "panels", "sensors": too_many}),
            json!({"type": "panels", "sensors": [7]}),
            json!({"type": "panels", "sensors": ["x".repeat(300)]}),
            json!({"type": "panels"}),
            json!({"type": "seek", "t": "soon"}),
        ] {
            a.send(Message::text(bad.to_string())).await.unwrap();
            let r = next_of(&mut a, "reply").await;
            assert!(
                r["error"].as_str().is_some_and(|e| !e.is_empty()),
                "{bad} -> {r}"
            );
        }
        assert_eq!(v.sensor_demand(), ["auv/main/camera", "auv/main/sonar"]);
        // A page that goes gives its panels back.
        drop(b);
        wait_demand(&v, &["auv/main/sonar"]).await;
        a.send(panels(&[])).await.unwrap();
        wait_demand(&v, &[]).await;
    });
}

struct Series;

impl oceansim_viewer::SensorSource for Series {
    fn at(&self, key: &str, t: f64) -> Option<(u64, std::sync::Arc<str>)> {
        // One sample a second.
        let seq = t.max(0.0).floor() as u64;
        Some((
            seq,
            format!(r#"{{"type":"sensor","key":"{key}","seq":{seq}}}"#).into(),
        ))
    }
}

#[test]
fn a_replay_page_is_sent_the_sample_of_the_time_it_shows() {
    let v = start(Mode::Replay);
    v.serve_sensors_from(std::sync::Arc::new(Series));
    rt().block_on(async {
        let mut a = connect(&v).await;
        next_of(&mut a, "hello").await;
        a.send(Message::text(
            json!({"type": "panels", "sensors": ["r/s"]}).to_string(),
        ))
        .await
        .unwrap();
        a.send(Message::text(json!({"type": "seek", "t": 2.5}).to_string()))
            .await
            .unwrap();
        assert_eq!(next_of(&mut a, "sensor").await["seq"], 2);
        // Within the same sample nothing new; the next second, the next.
        a.send(Message::text(json!({"type": "seek", "t": 2.9}).to_string()))
            .await
            .unwrap();
        a.send(Message::text(json!({"type": "seek", "t": 3.1}).to_string()))
            .await
            .unwrap();
        assert_eq!(next_of(&mut a, "sensor").await["seq"], 3);
    });
    // Counted once the socket took each (just after the page read it).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while v.sensor_messages_sent() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            v.sensor_messages_sent()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
