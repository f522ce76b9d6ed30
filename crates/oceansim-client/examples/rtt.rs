//! Request round trips through the client, side by side with the same
//! requests written and read on a plain socket: what the client's own
//! machinery (id routing, header checks, reply parsing, and for the async
//! client its runtime handoffs) costs per call.
//!
//! ```sh
//! cargo run --release -p oceansim-client --example rtt                    # its own server
//! cargo run --release -p oceansim-client --example rtt -- 127.0.0.1:9876  # a running one
//! ```
//!
//! The request is `get_map_info` (a 3.8 KB reply that no simulation step
//! changes); each client has its own connection, and the five take turns
//! in rounds of 500 calls so that the machine's drift lands on all alike.
//! Each client is compared with the plain socket that delivers what it
//! delivers: the reply's line (`send_command_text`), or the reply parsed
//! into a JSON value (`send_command`).

use oceansim_client::{blocking, ConnectOptions, OceanSimClient};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const ROUNDS: u32 = 10;
const PER_ROUND: u32 = 500;

/// A plain socket: writes the request, reads the reply's line.
struct Plain {
    write: TcpStream,
    read: BufReader<TcpStream>,
    line: String,
}

impl Plain {
    fn connect(addr: &str) -> std::io::Result<Plain> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        Ok(Plain {
            write: stream.try_clone()?,
            read: BufReader::with_capacity(1 << 16, stream),
            line: String::new(),
        })
    }

    fn call(&mut self, i: u32, parse: bool) {
        // One write per request, as a client does (`writeln!` on a socket
        // would make a system call per formatted piece).
        let request = format!(
            "{{\"type\":\"command\",\"action\":\"get_map_info\",\"protocol_version\":2,\"request_id\":\"r{i}\"}}\n"
        );
        let sent = self.write.write_all(request.as_bytes());
        self.line.clear();
        let got = self.read.read_line(&mut self.line);
        assert!(
            sent.is_ok() && got.is_ok_and(|n| n > 0),
            "the server went away"
        );
        if parse {
            let reply: serde_json::Value = serde_json::from_str(&self.line).expect("a JSON reply");
            assert_eq!(reply["success"], true);
        }
    }
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
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut plain = Plain::connect(&addr)?;
    let mut plain_parsed = Plain::connect(&addr)?;
    let text = blocking::OceanSimClient::connect_with(&addr, options)?;
    let parsed = blocking::OceanSimClient::connect_with(&addr, options)?;
    let asynchronous = rt.block_on(OceanSimClient::connect_with(&addr, options))?;

    // Total seconds per kind, over all rounds (the first round warms up).
    let mut secs = [0.0f64; 5];
    for round in 0..=ROUNDS {
        let mut timed = |k: usize, f: &mut dyn FnMut(u32)| {
            let t = Instant::now();
            for i in 0..PER_ROUND {
                f(i);
            }
            if round > 0 {
                secs[k] += t.elapsed().as_secs_f64();
            }
        };
        timed(0, &mut |i| plain.call(i, false));
        timed(1, &mut |_| {
            text.send_command_text("get_map_info", None, None)
                .expect("reply");
        });
        timed(2, &mut |i| plain_parsed.call(i, true));
        timed(3, &mut |_| {
            parsed
                .send_command("get_map_info", None, None)
                .expect("reply");
        });
        timed(4, &mut |_| {
            rt.block_on(asynchronous.send_command("get_map_info", None, None))
                .expect("reply");
        });
    }
    let us = secs.map(|s| s / f64::from(ROUNDS * PER_ROUND) * 1e6);
    println!(
        "{} get_map_info round trips each, interleaved, server {addr}",
        ROUNDS * PER_ROUND
    );
    println!("  the reply's line:");
    println!("    plain socket              {:7.1} us/call", us[0]);
    println!(
        "    blocking client (text)    {:7.1} us/call  {:.2}x the plain rate (target >= 0.95x)",
        us[1],
        us[0] / us[1]
    );
    println!("  the reply parsed into a JSON value:");
    println!("    plain socket + parse      {:7.1} us/call", us[2]);
    println!(
        "    blocking client           {:7.1} us/call  {:.2}x the plain rate (target >= 0.95x)",
        us[3],
        us[2] / us[3]
    );
    println!(
        "    async client              {:7.1} us/call  {:.2}x the plain rate",
        us[4],
        us[2] / us[4]
    );
    Ok(())
}
