//! What the ROS 2 bridge costs, and the rates it publishes: the
//! simulator's speed with the bridge (and a Zenoh subscriber taking every
//! topic, as a ROS 2 graph would) against the same run without it, side by
//! side in alternating rounds; then, free-running at a sweep of time
//! scales, the simulated time achieved and the topics' rates.
//!
//! ```text
//! cargo run --release -p oceansim-server --example ros2_bench [-- --rounds 3 --steps 3000 --scales 1,10,50,200]
//! ```
//!
//! * **steps**: paused `step` requests per second from one TCP client,
//!   default scenario and sensor suite, sensor data recorded (the bridge
//!   publishes it); arms: no bridge, and the bridge with a subscriber on
//!   `0/**`. Target: ratio ≥ 0.9.
//! * **scales**: resumed at each time scale for 3 s with the bridge and
//!   the subscriber: simulated seconds per wall second, and samples per
//!   wall second of `/clock`, the IMU, odometry and the camera.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use oceansim_server::bridge::zenoh;
use oceansim_server::bridge::{Bridge, BridgeConfig};
use oceansim_server::{run_blocking_attached, Attached, ServerConfig};
use oceansim_sim::{SimConfig, Simulation};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use zenoh::Wait;

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_owned())
}

struct Tcp {
    w: std::net::TcpStream,
    r: BufReader<std::net::TcpStream>,
}

impl Tcp {
    fn connect(addr: std::net::SocketAddr) -> Tcp {
        let s = std::net::TcpStream::connect(addr).expect("connects");
        s.set_nodelay(true).ok();
        Tcp {
            w: s.try_clone().expect("a second handle"),
            r: BufReader::new(s),
        }
    }

    fn send(&mut self, v: &Value) -> Value {
        self.w
            .write_all((v.to_string() + "\n").as_bytes())
            .expect("sent");
        let mut line = String::new();
        self.r.read_line(&mut line).expect("a reply");
        serde_json::from_str(&line).expect("JSON")
    }
}

/// Paused `step` requests per second from one client.
fn steps_per_s(tcp: &mut Tcp, n: usize) -> f64 {
    let step = json!({"type": "command", "action": "step", "data": {"force": [10.0, 0.0, 0.0]}});
    let t = Instant::now();
    for _ in 0..n {
        tcp.send(&step);
    }
    n as f64 / t.elapsed().as_secs_f64()
}

/// A paused server on a thread, with or without a bridge on `endpoint`.
fn server(
    endpoint: Option<&str>,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    std::thread::JoinHandle<()>,
) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let addr = listener.local_addr().expect("an address");
    let ros2 = endpoint.map(|e| {
        Bridge::start(BridgeConfig {
            endpoint: e.to_owned(),
            ..BridgeConfig::default()
        })
        .expect("the bridge starts")
    });
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let sim = Simulation::new(SimConfig {
            paused: true,
            ..SimConfig::default()
        })
        .expect("the default scenario");
        let attached = Attached {
            ros2,
            ..Attached::default()
        };
        run_blocking_attached(listener, sim, ServerConfig::default(), attached, async {
            let _ = stop_rx.await;
        })
        .expect("serves");
    });
    (addr, stop_tx, thread)
}

/// Samples received per topic.
type Counts = Arc<Mutex<BTreeMap<String, u64>>>;

/// A Zenoh client counting samples per topic (the key's topic part).
fn subscriber(endpoint: &str) -> (zenoh::Session, zenoh::pubsub::Subscriber<()>, Counts) {
    let mut c = zenoh::Config::default();
    c.insert_json5("mode", "\"client\"").expect("mode");
    c.insert_json5("connect/endpoints", &format!("[\"{endpoint}\"]"))
        .expect("endpoint");
    c.insert_json5("scouting/multicast/enabled", "false")
        .expect("scouting");
    let session = zenoh::open(c).wait().expect("connects");
    let counts = Arc::new(Mutex::new(BTreeMap::new()));
    let sub = {
        let counts = counts.clone();
        session
            .declare_subscriber("0/**")
            .callback(move |s| {
                let key = s.key_expr().as_str();
                let parts: Vec<&str> = key.split('/').collect();
                let topic = format!("/{}", parts[1..parts.len().saturating_sub(2)].join("/"));
                *counts.lock().expect("counts").entry(topic).or_insert(0) += 1;
            })
            .wait()
            .expect("subscribes")
    };
    (session, sub, counts)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn free_endpoint() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    format!("tcp/{}", l.local_addr().expect("an address"))
}

fn main() {
    let rounds: usize = arg("--rounds", "3").parse().unwrap_or(3).max(1);
    let steps: usize = arg("--steps", "3000").parse().unwrap_or(3000).max(10);
    let scales: Vec<f64> = arg("--scales", "1,10,50,200")
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();

    println!("steps: paused `step` requests per second, one client, default scenario, sensor data recorded");
    println!(
        "{:>6} {:>11} {:>13} {:>8} {:>14}",
        "round", "no bridge", "bridge+sub", "ratio", "samples/step"
    );
    let (mut base, mut bridged) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let (addr, stop, thread) = server(None);
        let a = steps_per_s(&mut Tcp::connect(addr), steps);
        let _ = stop.send(());
        let _ = thread.join();

        let endpoint = free_endpoint();
        let (addr, stop, thread) = server(Some(&endpoint));
        let (session, _sub, counts) = subscriber(&endpoint);
        std::thread::sleep(Duration::from_millis(300));
        let b = steps_per_s(&mut Tcp::connect(addr), steps);
        std::thread::sleep(Duration::from_millis(300));
        let samples: u64 = counts.lock().expect("counts").values().sum();
        let _ = stop.send(());
        let _ = thread.join();
        let _ = session.close().wait();
        println!(
            "{round:>6} {a:>11.0} {b:>13.0} {:>8.3} {:>14.1}",
            b / a,
            samples as f64 / steps as f64
        );
        base.push(a);
        bridged.push(b);
    }
    println!(
        "steps median: {:.0}/s with the bridge vs {:.0}/s without, ratio {:.3} (target >= 0.9)",
        median(&bridged),
        median(&base),
        median(&bridged) / median(&base)
    );

    println!();
    println!("scales: resumed 3 s at each time scale, bridge and subscriber on");
    println!(
        "{:>7} {:>10} {:>9} {:>9} {:>9} {:>10}",
        "scale", "achieved", "/clock", "imu", "odom", "camera"
    );
    for scale in scales {
        let endpoint = free_endpoint();
        let (addr, stop, thread) = server(Some(&endpoint));
        let (session, _sub, counts) = subscriber(&endpoint);
        let mut tcp = Tcp::connect(addr);
        tcp.send(&json!({"type": "sim_control", "action": "set_time_scale", "data": {"time_scale": scale}}));
        let t0 = tcp.send(&json!({"type": "command", "action": "get_state"}))["sim_time"]
            .as_f64()
            .unwrap_or(0.0);
        counts.lock().expect("counts").clear();
        let wall = Instant::now();
        tcp.send(&json!({"type": "sim_control", "action": "resume"}));
        std::thread::sleep(Duration::from_secs(3));
        let t1 = tcp.send(&json!({"type": "command", "action": "get_state"}))["sim_time"]
            .as_f64()
            .unwrap_or(0.0);
        let wall_s = wall.elapsed().as_secs_f64();
        let c = counts.lock().expect("counts").clone();
        let rate = |t: &str| c.get(t).copied().unwrap_or(0) as f64 / wall_s;
        println!(
            "{scale:>6}x {:>9.1}x {:>8.0}/s {:>8.0}/s {:>8.0}/s {:>9.0}/s",
            (t1 - t0) / wall_s,
            rate("/clock"),
            rate("/auv/main/imu"),
            rate("/auv/main/odom"),
            rate("/auv/main/camera/image_raw")
        );
        let _ = stop.send(());
        let _ = thread.join();
        let _ = session.close().wait();
    }
}
