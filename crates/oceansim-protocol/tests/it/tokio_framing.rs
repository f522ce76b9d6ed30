//! The codec over a real tokio stream: requests in, responses out, bad lines
//! answered without losing the connection.

use futures::{SinkExt, StreamExt};
use oceansim_protocol::{Data, ErrorCode, NdjsonCodec, Reply, Request, Response, ResponseType};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::codec::{FramedRead, FramedWrite};

#[tokio::test]
async fn framed_stream_answers_each_line_and_survives_garbage() {
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let (rd, wr) = tokio::io::split(server);
    let mut lines = FramedRead::new(rd, NdjsonCodec::with_max_line_bytes(256));
    let mut out = FramedWrite::new(wr, NdjsonCodec::new());

    let server_task = tokio::spawn(async move {
        while let Some(item) = lines.next().await {
            let reply = match item.expect("io") {
                Ok(line) => match Request::decode(&line) {
                    Ok(req) => req.respond(|r| {
                        let data = Data::typed(json!({}));
                        let kind = ResponseType::Response;
                        Reply::ok(kind, r.request_id, r.action.name(), Some(0.0), data)
                    }),
                    Err(rej) => rej.to_reply(Some(0.0)),
                },
                Err(e) => Reply::error(None, None, Some(0.0), &e),
            };
            out.send(reply).await.expect("send");
        }
    });

    let long = "x".repeat(1000);
    client
        .write_all(
            format!(
                "{{\"type\":\"command\",\"action\":\"get_state\",\"request_id\":1}}\r\n\
                 {long}\n\
                 \n\
                 {{\"type\":\"command\",\"action\":\"get_state\",\"request_id\":2}}\n\
                 \u{7f}not json\n\
                 {{\"type\":\"sim_control\",\"action\":\"pause\",\"request_id\":3}}"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    client.shutdown().await.unwrap();
    let mut text = String::new();
    client.read_to_string(&mut text).await.unwrap();
    server_task.await.unwrap();

    let replies: Vec<Response> = text
        .lines()
        .map(|l| Response::from_line(l).unwrap())
        .collect();
    let summary: Vec<_> = replies
        .iter()
        .map(|r| (r.request_id.as_ref().map(|i| i.to_string()), r.error_code))
        .collect();
    assert_eq!(
        summary,
        vec![
            (Some("1".into()), None),
            (None, Some(ErrorCode::InvalidMessage)),
            (Some("2".into()), None),
            (None, Some(ErrorCode::InvalidMessage)),
            (Some("3".into()), None),
        ]
    );
}
