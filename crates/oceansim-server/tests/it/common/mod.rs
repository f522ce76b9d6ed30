//! Test harness: the real server on 127.0.0.1:0 (in a background runtime)
//! and a blocking line client.

#![allow(dead_code)]

use oceansim_server::{run_blocking, ServerConfig};
use oceansim_sim::SimConfig;
use oceansim_sim::Simulation;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    pub export_root: tempfile::TempDir,
}

impl TestServer {
    pub fn start(config: SimConfig) -> Self {
        Self::start_with(config, ServerConfig::default())
    }

    pub fn start_with(mut config: SimConfig, server: ServerConfig) -> Self {
        let export_root = tempfile::tempdir().unwrap();
        config.export_root = export_root.path().to_owned();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let sim = Simulation::new(config).expect("simulation starts");
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            run_blocking(listener, sim, server, async {
                let _ = stop_rx.await;
            })
            .unwrap();
        });
        let addr = addr_rx.recv().unwrap();
        TestServer {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
            export_root,
        }
    }

    /// Paused, keeping no sensor data: imaging sensors render when a
    /// request asks for a sample, not at their rates every tick. The tests
    /// on it drive the world and read replies; a debug build rendering
    /// every camera and sonar frame for a recording nobody exports only
    /// slowed them (the export tests ask for sensor data themselves).
    pub fn paused() -> Self {
        Self::start(SimConfig {
            paused: true,
            record_sensor_data: false,
            ..SimConfig::default()
        })
    }

    pub fn client(&self) -> Client {
        Client::connect(self.addr)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    next_id: u64,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Self {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.set_nodelay(true).unwrap();
        Client {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
            next_id: 0,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
    }

    pub fn recv_line(&mut self) -> String {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).unwrap();
        assert!(n > 0, "server closed the connection");
        line
    }

    pub fn recv(&mut self) -> Value {
        serde_json::from_str(&self.recv_line()).unwrap()
    }

    pub fn request(&mut self, v: Value) -> Value {
        self.send_raw(format!("{v}\n").as_bytes());
        self.recv()
    }

    /// A `command` with a fresh numeric request id, checked on the way back.
    pub fn cmd(&mut self, action: &str, data: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let r = self.request(json!({"type": "command", "protocol_version": 2, "request_id": id, "action": action, "data": data}));
        assert_eq!(r["request_id"], id, "{r}");
        r
    }

    pub fn ok(&mut self, action: &str, data: Value) -> Value {
        let r = self.cmd(action, data.clone());
        assert_eq!(r["success"], true, "{action} {data} -> {r}");
        assert_eq!(r["status"], "ok");
        r
    }

    pub fn sim(&mut self, action: &str, data: Value) -> Value {
        self.request(
            json!({"type": "sim_control", "protocol_version": 2, "action": action, "data": data}),
        )
    }

    pub fn code(&mut self, action: &str, data: Value) -> String {
        let r = self.cmd(action, data);
        assert_eq!(r["success"], false, "{r}");
        assert_eq!(r["type"], "error");
        r["error_code"].as_str().unwrap().to_owned()
    }

    pub fn state(&mut self) -> Value {
        self.ok("get_state", json!({}))["data"].clone()
    }

    pub fn step_n(&mut self, n: usize, data: Value) -> Value {
        let mut last = Value::Null;
        for _ in 0..n {
            last = self.ok("step", data.clone());
        }
        last["data"].clone()
    }
}

pub fn v3(v: &Value) -> [f64; 3] {
    [
        v[0].as_f64().unwrap(),
        v[1].as_f64().unwrap(),
        v[2].as_f64().unwrap(),
    ]
}

/// Starts the real `oceansim serve --port 0` binary with `args` appended and
/// exports confined to `export_root`; returns the child and the address from
/// its first stdout line, `listening on HOST:PORT`.
pub fn spawn_oceansim(
    args: &[&str],
    export_root: &std::path::Path,
) -> (std::process::Child, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_oceansim"))
        .args(["serve", "--port", "0"])
        .args(args)
        .arg("--export-root")
        .arg(export_root)
        // The allocator hands freed pages back at once, so resident memory
        // measures what the server holds, not what mimalloc keeps cached.
        .env("MIMALLOC_PURGE_DELAY", "0")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_owned();
    (child, addr)
}

/// A child process killed (and reaped) when the test lets go of it, pass
/// or fail.
pub struct KillOnDrop(pub std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
