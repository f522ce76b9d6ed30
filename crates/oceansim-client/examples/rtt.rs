//! Request round trips through the client, side by side with the same
//! requests written and read on a plain socket: what the client's own
//! machinery (runtime handoffs, id routing, reply parsing) costs per call.
//!
//! ```sh
//! cargo run --release -p oceansim-client --example rtt                    # its own server
//! cargo run --release -p oceansim-client --example rtt -- 127.0.0.1:9876  # a running one
//! ```
//!
//! The request is `get_map_info` (a 3.8 KB reply that no simulation step
//! changes); each client runs alone on its own connection.

use oceansim_client::{blocking, ConnectOptions, OceanSimClient};
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

const ROUNDS: u32 = 3000;

fn per_call(mut call: impl FnMut(u32)) -> f64 {
    for i in 0..200 {
        call(i); // warm up
    }
    let t = Instant::now();
    for i in 0..ROUNDS {
        call(i);
    }
    t.elapsed().as_secs_f64() / f64::from(ROUNDS) * 1e6
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = tempfile::tempdir()?;
    let (addr, _server) = match std::env::args().nth(1) {
        Some(addr) => (addr, None),
        None => {
            let config = oceansim_sim::SimConfig {
                paused: true,
                export_root: root.path().to_owned(),
                ..oceansim_sim::SimConfig::default()
            };
            let server = oceansim_server::spawn("127.0.0.1:0", config, Default::default())?;
            (server.addr().to_string(), Some(server))
        }
    };
    let options = ConnectOptions {
        retries: 10,
        interval: Duration::from_millis(200),
        timeout: Duration::from_secs(10),
    };

    let stream = std::net::TcpStream::connect(&addr)?;
    stream.set_nodelay(true)?;
    let mut write = stream.try_clone()?;
    let mut read = BufReader::new(stream);
    let mut line = String::new();
    // Written and read on a plain socket; with `parse`, each reply is also
    // parsed into a JSON value, as the client does.
    let mut plain = |parse: bool| {
        per_call(|i| {
            let sent = writeln!(
                write,
                r#"{{"type":"command","action":"get_map_info","protocol_version":2,"request_id":"r{i}"}}"#
            );
            line.clear();
            let got = read.read_line(&mut line);
            assert!(
                sent.is_ok() && got.is_ok_and(|n| n > 0),
                "the server went away"
            );
            if parse {
                let reply: serde_json::Value = serde_json::from_str(&line).expect("a JSON reply");
                assert_eq!(reply["success"], true);
            }
        })
    };
    let raw = plain(false);
    let parsed = plain(true);

    let client = blocking::OceanSimClient::connect_with(&addr, options)?;
    let blocking = per_call(|_| {
        client
            .send_command("get_map_info", None, None)
            .expect("reply");
    });

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let asynchronous = rt.block_on(async {
        let client = OceanSimClient::connect_with(&addr, options).await?;
        let t = Instant::now();
        for _ in 0..ROUNDS {
            client.send_command("get_map_info", None, None).await?;
        }
        Ok::<_, oceansim_client::ClientError>(t.elapsed().as_secs_f64() / f64::from(ROUNDS) * 1e6)
    })?;

    println!("{ROUNDS} get_map_info round trips each, server {addr}");
    println!("  plain socket (baseline)   {raw:7.1} us/call");
    println!(
        "  plain socket + parse      {parsed:7.1} us/call  {:.2}x",
        parsed / raw
    );
    println!(
        "  async client              {asynchronous:7.1} us/call  {:.2}x",
        asynchronous / raw
    );
    println!(
        "  blocking client           {blocking:7.1} us/call  {:.2}x",
        blocking / raw
    );
    Ok(())
}
