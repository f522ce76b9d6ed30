//! The blocking clients' direct link against servers that write exactly
//! the bytes a test chose (late, foreign, broken, over-long or split
//! replies), and against the real server: text replies equal the parsed
//! ones, errors read the same either way.

use oceansim_client::blocking::{Auv, OceanSimClient};
use oceansim_client::{ClientError, ConnectOptions};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

fn options(timeout_ms: u64) -> ConnectOptions {
    ConnectOptions {
        retries: 0,
        interval: Duration::from_millis(10),
        timeout: Duration::from_millis(timeout_ms),
    }
}

/// A server whose one connection is driven by `script` (it gets the
/// request lines and the socket to write to).
fn raw_server(
    script: impl FnOnce(&mut dyn Iterator<Item = Value>, &mut TcpStream) + Send + 'static,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut out = conn.try_clone().unwrap();
        let mut lines = BufReader::new(conn)
            .lines()
            .map_while(Result::ok)
            .map(|l| serde_json::from_str::<Value>(&l).unwrap());
        script(&mut lines, &mut out);
    });
    addr
}

fn ok(request: &Value, data: Value) -> String {
    json!({"type": "response", "request_id": request["request_id"], "action": request["action"],
           "status": "ok", "success": true, "data": data})
    .to_string()
}

#[test]
fn a_late_reply_after_a_timeout_is_dropped_and_the_next_call_gets_its_own() {
    let addr = raw_server(|lines, out| {
        let first = lines.next().unwrap();
        let second = lines.next().unwrap();
        // The timed-out request's reply comes first, then the second's,
        // split across two writes mid-line.
        let late = ok(&first, json!({"n": 1}));
        let own = ok(&second, json!({"n": 2}));
        let (a, b) = own.split_at(own.len() / 2);
        write!(out, "{late}\n{a}").unwrap();
        out.flush().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        writeln!(out, "{b}").unwrap();
        for _ in lines {}
    });
    let client = OceanSimClient::connect_with(&addr, options(150)).unwrap();
    let t = Instant::now();
    let err = client.send_command("get_map_info", None, None).unwrap_err();
    assert!(matches!(err, ClientError::Timeout { .. }), "{err}");
    assert!(t.elapsed() >= Duration::from_millis(140));
    let reply = client
        .send_command("get_map_info", None, Some(Duration::from_secs(5)))
        .unwrap();
    assert_eq!(reply.data()["n"], 2);
}

#[test]
fn replies_to_lines_sent_without_waiting_are_read_past() {
    let addr = raw_server(|lines, out| {
        let sent = lines.next().unwrap();
        let asked = lines.next().unwrap();
        // A foreign id and a non-JSON line on the way, too.
        writeln!(out, "{}", ok(&sent, json!("fire and forget"))).unwrap();
        writeln!(out, "not json").unwrap();
        writeln!(
            out,
            r#"{{"type":"response","request_id":"someone-else","status":"ok"}}"#
        )
        .unwrap();
        writeln!(out, "{}", ok(&asked, json!("asked"))).unwrap();
        for _ in lines {}
    });
    let client = OceanSimClient::connect_with(&addr, options(5000)).unwrap();
    client
        .send(&json!({"type": "command", "action": "pause"}))
        .unwrap();
    let text = client
        .send_command_text("get_map_info", None, None)
        .unwrap();
    let reply: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(reply["data"], "asked");
}

#[test]
fn an_unaddressed_error_is_the_only_request_on_the_wire() {
    let addr = raw_server(|lines, out| {
        let _ = lines.next().unwrap();
        writeln!(out, r#"{{"type":"error","status":"error","error_code":"invalid_message","message":"line too long"}}"#).unwrap();
        for _ in lines {}
    });
    let client = OceanSimClient::connect_with(&addr, options(5000)).unwrap();
    let err = client
        .send_command_text("get_state", None, None)
        .unwrap_err();
    assert_eq!(err.code(), "invalid_message");
}

#[test]
fn an_over_long_or_broken_line_is_dropped_and_a_closed_socket_fails_at_once() {
    let addr = raw_server(|lines, out| {
        let first = lines.next().unwrap();
        // Over the client's 256 MiB line limit would take long to write:
        // invalid UTF-8 takes the same dropping path, then the reply.
        out.write_all(b"{\"x\":\"\xff\xfe\"}\n").unwrap();
        writeln!(out, "{}", ok(&first, json!(1))).unwrap();
        let _ = lines.next().unwrap();
        // Half a line, then the connection closes.
        out.write_all(b"{\"type\":\"resp").unwrap();
        out.shutdown(std::net::Shutdown::Both).unwrap();
    });
    let client = OceanSimClient::connect_with(&addr, options(5000)).unwrap();
    assert_eq!(
        client
            .send_command("get_map_info", None, None)
            .unwrap()
            .data(),
        &json!(1)
    );
    let t = Instant::now();
    let err = client.send_command("get_map_info", None, None).unwrap_err();
    assert_eq!(err.code(), "connection_error", "{err}");
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "failed at once, not at the timeout"
    );
    assert!(!client.is_connected());
    let again = client.send_command("get_map_info", None, None).unwrap_err();
    assert_eq!(again.code(), "connection_error");
}

#[test]
fn a_disconnect_from_another_thread_wakes_a_blocked_caller() {
    let addr = raw_server(|lines, _out| for _ in lines {});
    let client = OceanSimClient::connect_with(&addr, options(20_000)).unwrap();
    let other = client.clone();
    let t = Instant::now();
    let closer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        other.disconnect();
    });
    let err = client.send_command("get_state", None, None).unwrap_err();
    closer.join().unwrap();
    assert_eq!(err.code(), "connection_error", "{err}");
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[test]
fn text_replies_are_the_servers_lines_and_errors_read_the_same_either_way() {
    let root = tempfile::tempdir().unwrap();
    let config = oceansim_sim::SimConfig {
        paused: true,
        deterministic: true,
        export_root: root.path().to_owned(),
        ..Default::default()
    };
    let server = oceansim_server::spawn("127.0.0.1:0", config, Default::default()).unwrap();
    let addr = server.addr().to_string();
    let auv = Auv::connect_with(&addr, options(20_000)).unwrap();
    let client = auv.client();

    let text = client
        .send_command_text("get_map_info", None, None)
        .unwrap();
    let parsed = client.send_command("get_map_info", None, None).unwrap();
    let from_text: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(from_text["data"], parsed.0["data"]);
    assert_eq!(from_text["action"], "get_map_info");

    // The same refusal through both paths: same code, same message.
    let bad = Some(json!({"force": [1e9, 0, "x"]}));
    let a = client.send_command("step", bad.clone(), None).unwrap_err();
    let b = client.send_command_text("step", bad, None).unwrap_err();
    assert_eq!((a.code(), a.to_string()), (b.code(), b.to_string()));

    // A full state kept from a text reply; a compact one does not replace it.
    assert!(client.get_latest_state().is_none());
    client
        .send_command_text("step", Some(json!({"force": [0, 50, 0]})), None)
        .unwrap();
    let after_full = client.get_latest_state().unwrap();
    client
        .send_command_text("step", Some(json!({"detail": "compact"})), None)
        .unwrap();
    assert_eq!(client.get_latest_state().unwrap(), after_full);
    assert!(after_full["sim_time"].as_f64().unwrap() > 0.0);

    let step = auv.step(&[0.0, 100.0, 0.0]).unwrap();
    assert!(step.observation.velocity()[1] > 0.0);

    // A batch: the line's children are the parsed path's replies, and the
    // state a child carries becomes the latest.
    let batch = || {
        vec![
            json!({"type": "command", "action": "get_map_info"}),
            json!({"type": "command", "action": "step", "request_id": 7, "data": {"force": [0, 10, 0]}}),
        ]
    };
    let parsed = client.send_batch(batch(), None).unwrap();
    let text = client.send_batch_text(batch(), None).unwrap();
    let from_text: Value = serde_json::from_str(&text).unwrap();
    let children = from_text["data"]["responses"].as_array().unwrap();
    assert_eq!(children.len(), 2);
    assert_eq!(children[1]["request_id"], 7);
    assert_eq!(children[0]["data"], parsed[0].0["data"]);
    assert!(children[1]["sim_time"].as_f64() > parsed[1].0["sim_time"].as_f64());
    assert_eq!(
        client.get_latest_state().unwrap()["sim_time"],
        children[1]["data"]["sim_time"]
    );
}

#[test]
fn a_batch_reply_that_does_not_answer_its_requests_is_refused_on_the_text_path() {
    let addr = raw_server(|lines, out| {
        let batch = lines.next().unwrap();
        // One response for two requests.
        let reply = json!({"type": "response", "request_id": batch["request_id"], "action": "batch",
                           "status": "ok", "success": true,
                           "data": {"count": 1, "responses": [{"request_id": "nope", "status": "ok"}]}});
        writeln!(out, "{reply}").unwrap();
        for _ in lines {}
    });
    let client = OceanSimClient::connect_with(&addr, options(5000)).unwrap();
    let two = vec![
        json!({"type": "command", "action": "get_state"}),
        json!({"type": "command", "action": "get_state"}),
    ];
    let err = client.send_batch_text(two, None).unwrap_err();
    assert_eq!(err.code(), "mismatched_reply", "{err}");
    assert!(
        err.to_string().contains("2 requests but 1 responses"),
        "{err}"
    );
}
