//! `oceansim serve --ros2`: the vehicles as ROS 2 topics over Zenoh.
//!
//! [`rmw_zenoh`] runs `tests/check_ros2_bridge.py` (eclipse-zenoh as the
//! client, rosbags' ROS 2 Jazzy type store as the CDR reader and writer)
//! when `OCEANSIM_ROS2_PY` names a Python that has both (`.ci/run` does).
//! The others use Zenoh's Rust client, so `cargo test` alone checks the
//! keys, a command and the refusals too.

use crate::common::{spawn_oceansim, Client, KillOnDrop};
use oceansim_ros2::msg::builtin_interfaces::Time;
use oceansim_ros2::msg::geometry_msgs::{Vector3, Wrench, WrenchStamped};
use oceansim_ros2::msg::std_msgs::Header;
use oceansim_ros2::{to_cdr, RosMessage};
use serde_json::json;
use std::collections::BTreeSet;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
// A Zenoh client, as a ROS 2 node under rmw_zenoh is: the Zenoh library
// the bridge re-exports (a dev-dependency could not be left out of the
// default build with the `ros2` feature).
use oceansim_server::bridge::zenoh;
use zenoh::Wait;

/// A loopback endpoint nothing listens on (a port the OS just handed out).
fn free_endpoint() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("tcp/{}", l.local_addr().unwrap())
}

fn serve_with_bridge(endpoint: &str, dir: &std::path::Path) -> (KillOnDrop, String) {
    let (child, addr) = spawn_oceansim(&["--paused", "--deterministic", "--ros2", endpoint], dir);
    (KillOnDrop(child), addr)
}

fn zenoh_client(endpoint: &str) -> zenoh::Session {
    try_zenoh_client(endpoint).unwrap()
}

fn try_zenoh_client(endpoint: &str) -> zenoh::Result<zenoh::Session> {
    let mut c = zenoh::Config::default();
    c.insert_json5("mode", "\"client\"").unwrap();
    c.insert_json5("connect/endpoints", &format!("[\"{endpoint}\"]"))
        .unwrap();
    c.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    zenoh::open(c).wait()
}

/// Hardening III, item 2: plain `connect()`s to the bridge's port that
/// never speak Zenoh. Before: Zenoh's defaults (100 pending handshakes,
/// each held 10 s), so at 100 idle sockets a Zenoh client was refused at
/// once ("Unable to connect to any of [tcp/127.0.0.1:…]"), and reopening
/// them every 10 s kept every ROS 2 node out. Now: 300 idle sockets, a
/// client still joins, the TCP protocol answers all along, and the idle
/// sockets are closed once the handshake timeout has passed.
#[test]
fn idle_sockets_cannot_keep_ros2_nodes_out() {
    use oceansim_server::bridge::{HANDSHAKE_TIMEOUT_MS, MAX_PENDING_HANDSHAKES};
    let _ = oceansim_server::raise_open_file_limit();
    let dir = tempfile::tempdir().unwrap();
    let endpoint = free_endpoint();
    let (server, addr) = serve_with_bridge(&endpoint, dir.path());
    let watch = crate::support::attack::Watch::start(&addr);
    let port = endpoint.trim_start_matches("tcp/");
    let idle: Vec<std::net::TcpStream> = (0..300)
        .map(|_| std::net::TcpStream::connect(port).unwrap())
        .collect();
    assert!(idle.len() < MAX_PENDING_HANDSHAKES);
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    let session = try_zenoh_client(&endpoint);
    assert!(
        session.is_ok(),
        "a ROS 2 node is refused behind 300 idle sockets: {:?}",
        session.err()
    );
    eprintln!(
        "a Zenoh client joined behind 300 idle sockets in {:?}",
        t.elapsed()
    );
    let mut tcp = Client::connect(addr.parse().unwrap());
    assert_eq!(tcp.cmd("get_state", json!({}))["status"], "ok");
    // The idle sockets are closed once their handshake time is up.
    let deadline = Instant::now() + Duration::from_millis(HANDSHAKE_TIMEOUT_MS + 5_000);
    let mut open = idle.len();
    while Instant::now() < deadline {
        open = idle
            .iter()
            .filter(|s| !crate::support::attack::closed(s))
            .count();
        if open == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        open, 0,
        "idle sockets still held past the handshake timeout"
    );
    eprintln!("all 300 idle sockets closed after {:?}", t.elapsed());
    assert_eq!(tcp.cmd("get_state", json!({}))["status"], "ok");
    watch.finish();
    let (_, peak_kib) = crate::support::attack::soak::rss_kib(server.0.id()).unwrap();
    eprintln!("peak RSS {peak_kib} KiB");
    assert!(peak_kib <= 256 << 10, "peak RSS {peak_kib} KiB");
}

#[test]
fn rmw_zenoh() {
    let Ok(python) = std::env::var("OCEANSIM_ROS2_PY") else {
        eprintln!("skipped: set OCEANSIM_ROS2_PY to a python with eclipse-zenoh and rosbags");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let endpoint = free_endpoint();
    let (_server, addr) = serve_with_bridge(&endpoint, dir.path());
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_ros2_bridge.py");
    let out = Command::new(python)
        .arg(script)
        .args([&addr, &endpoint])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "check_ros2_bridge.py failed:\n{stdout}"
    );
    assert!(stdout.contains("all ok"), "{stdout}");
}

#[test]
fn topics_arrive_on_rmw_zenoh_keys_and_a_wrench_moves_the_vehicle() {
    let dir = tempfile::tempdir().unwrap();
    let endpoint = free_endpoint();
    let (_server, addr) = serve_with_bridge(&endpoint, dir.path());
    let session = zenoh_client(&endpoint);
    let keys = Arc::new(Mutex::new(BTreeSet::new()));
    let _sub = {
        let keys = keys.clone();
        session
            .declare_subscriber("0/**")
            .callback(move |s| {
                keys.lock().unwrap().insert(s.key_expr().to_string());
            })
            .wait()
            .unwrap()
    };
    std::thread::sleep(Duration::from_millis(300));
    let mut tcp = Client::connect(addr.parse().unwrap());
    let deadline = Instant::now() + Duration::from_secs(10);
    let odom = format!(
        "0/auv/main/odom/nav_msgs::msg::dds_::Odometry_/{}",
        oceansim_ros2::msg::nav_msgs::Odometry::type_hash()
    );
    // Odometry and the clock go out on their own publishers, whose samples
    // Zenoh may hand to this subscriber in either order: step until both
    // have come.
    let clock = |k: &String| k.starts_with("0/clock/rosgraph_msgs::msg::dds_::Clock_/RIHS01_");
    loop {
        let (has_odom, has_clock) = {
            let keys = keys.lock().unwrap();
            (keys.contains(&odom), keys.iter().any(clock))
        };
        if has_odom && has_clock {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no {}: {:?}",
            if has_odom { "/clock" } else { odom.as_str() },
            keys.lock().unwrap()
        );
        tcp.ok("step", json!({}));
        std::thread::sleep(Duration::from_millis(20));
    }

    let wrench_key = format!(
        "0/auv/main/cmd_wrench/geometry_msgs::msg::dds_::WrenchStamped_/{}",
        WrenchStamped::type_hash()
    );
    let publisher = session.declare_publisher(wrench_key).wait().unwrap();
    // Malformed first: truncated, garbage, oversized; none may move it.
    let good = to_cdr(&WrenchStamped {
        header: Header {
            stamp: Time { sec: 0, nanosec: 0 },
            frame_id: String::new(),
        },
        wrench: Wrench {
            force: Vector3 {
                x: 60.0,
                y: 0.0,
                z: 0.0,
            },
            torque: Vector3::default(),
        },
    });
    // The reference: 20 steps with no command.
    tcp.sim("reset", json!({}));
    tcp.step_n(20, json!({}));
    let reference = tcp.state()["position"].clone();
    tcp.sim("reset", json!({}));
    publisher
        .put(good[..good.len() - 4].to_vec())
        .wait()
        .unwrap();
    publisher.put(vec![0xffu8; 9]).wait().unwrap();
    publisher.put(vec![0u8; 1 << 20]).wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // The simulator answers on (each step is checked `ok`), and nothing
    // refused moved the vehicle: the run is the reference's, bit for bit.
    tcp.step_n(20, json!({}));
    assert_eq!(
        tcp.state()["position"],
        reference,
        "a refused message moved it"
    );
    tcp.sim("reset", json!({}));
    publisher.put(good).wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    tcp.step_n(20, json!({}));
    let pushed = tcp.state()["position"].clone();
    let apart = (0..3)
        .map(|i| (pushed[i].as_f64().unwrap() - reference[i].as_f64().unwrap()).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(
        apart > 0.3,
        "the wrench did not move it: {reference} -> {pushed}"
    );
    let _ = session.close().wait();
}

#[test]
fn bad_bridge_options_are_clear_errors_before_serving() {
    let bin = env!("CARGO_BIN_EXE_oceansim");
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(["serve", "--port", "0"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stdout, err) = run(&["--ros2", "udp/127.0.0.1:7447"]);
    assert!(
        !ok && err.contains("bridge_config") && stdout.is_empty(),
        "{err}"
    );
    let (ok, _, err) = run(&["--ros2", "--ros2-namespace", "not a name"]);
    assert!(!ok && err.contains("bridge_config"), "{err}");
    let (ok, _, err) = run(&["--ros2", "--ros2-domain", "300"]);
    assert!(!ok && err.contains("300"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = format!("tcp/{}", taken.local_addr().unwrap());
    let (ok, stdout, err) = run(&["--ros2", &at]);
    assert!(
        !ok && err.contains("bridge_zenoh") && stdout.is_empty(),
        "{err}"
    );
    // A client with no router to reach gives up at start.
    let (ok, _, err) = run(&["--ros2", &free_endpoint(), "--ros2-connect"]);
    assert!(!ok && err.contains("bridge_zenoh"), "{err}");
}
