//! `oceansim serve --ros2-dds`: the vehicles as ROS 2 topics over DDS.
//!
//! [`rclpy_sees_the_simulator_over_dds`] runs `tests/check_ros2_dds.py`
//! with real ROS 2 (rclpy and Fast DDS from PyPI's `ros-rclpy` wheels)
//! when `OCEANSIM_RCLPY_PY` names that Python (`.ci/run` does). DDS
//! discovers by UDP: these tests run inside a network namespace that has
//! only loopback (`unshare -n`), and refuse to run with `OCEANSIM_RCLPY_PY`
//! set anywhere else. The others use the rustdds peer the bridge
//! re-exports, on a DDS domain of their own, discovering on 127.0.0.1 only.

use crate::common::{Client, KillOnDrop};
use oceansim_ros2::msg::builtin_interfaces::Time;
use oceansim_ros2::msg::geometry_msgs::{Vector3, Wrench, WrenchStamped};
use oceansim_ros2::msg::nav_msgs::Odometry;
use oceansim_ros2::msg::std_msgs::Header;
use oceansim_ros2::{from_cdr, to_cdr};
use oceansim_server::bridge::rustdds::{
    self, no_key::DataReader, no_key::DataWriter, policy::History, DomainParticipant,
    DomainParticipantBuilder, QosPolicyBuilder, TopicKind,
};
use oceansim_server::bridge::{RawAdapter, RawCdr};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The server with the DDS bridge on `domain`, its log in `dir/stderr.log`.
fn serve_dds(domain: u32, dir: &Path) -> (KillOnDrop, String) {
    serve_dds_range(domain, "localhost", dir)
}

/// [`serve_dds`] with `--ros2-dds-range range`.
fn serve_dds_range(domain: u32, range: &str, dir: &Path) -> (KillOnDrop, String) {
    let log = std::fs::File::create(dir.join("stderr.log")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_oceansim"))
        .args(["serve", "--port", "0", "--paused", "--deterministic"])
        .args(["--ros2-dds", "--ros2-domain", &domain.to_string()])
        .args(["--ros2-dds-range", range])
        .arg("--export-root")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| {
            let log = std::fs::read_to_string(dir.join("stderr.log")).unwrap_or_default();
            panic!("first line: {first:?}; the server's log:\n{log}")
        })
        .to_owned();
    let mut second = String::new();
    out.read_line(&mut second).unwrap();
    assert!(
        second.starts_with("ros2 bridge: dds participant ")
            && second.contains(&format!("domain {domain}, discovery {range}")),
        "{second:?}"
    );
    (KillOnDrop(child), addr)
}

/// A DDS participant on this host only, as a ROS 2 node with
/// `ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST` is.
fn peer(domain: u16) -> DomainParticipant {
    DomainParticipantBuilder::new(domain)
        .with_only_networks([IpAddr::V4(Ipv4Addr::LOCALHOST)])
        .same_host_loopback(true)
        .build()
        .unwrap()
}

fn reliable(depth: i32) -> rustdds::QosPolicies {
    QosPolicyBuilder::new()
        .reliable(rustdds::Duration::from_millis(100))
        .history(History::KeepLast { depth })
        .build()
}

fn reader(dp: &DomainParticipant, topic: &str, ty: &str) -> DataReader<RawCdr, RawAdapter> {
    let qos = reliable(10);
    let t = dp
        .create_topic(topic.into(), ty.into(), &qos, TopicKind::NoKey)
        .unwrap();
    dp.create_subscriber(&qos)
        .unwrap()
        .create_datareader_no_key::<RawCdr, RawAdapter>(&t, Some(qos))
        .unwrap()
}

fn writer(dp: &DomainParticipant, topic: &str, ty: &str) -> DataWriter<RawCdr, RawAdapter> {
    let qos = reliable(100);
    let t = dp
        .create_topic(topic.into(), ty.into(), &qos, TopicKind::NoKey)
        .unwrap();
    dp.create_publisher(&qos)
        .unwrap()
        .create_datawriter_no_key::<RawCdr, RawAdapter>(&t, Some(qos))
        .unwrap()
}

fn wrench(fx: f64, frame: &str) -> Vec<u8> {
    to_cdr(&WrenchStamped {
        header: Header {
            stamp: Time { sec: 0, nanosec: 0 },
            frame_id: frame.into(),
        },
        wrench: Wrench {
            force: Vector3 {
                x: fx,
                y: 0.0,
                z: 0.0,
            },
            torque: Vector3::default(),
        },
    })
}

/// A DDS peer on `rt/` topics: odometry arrives as the TCP state says,
/// malformed and oversized command samples are refused (counted in the
/// log at a bounded rate) while the TCP side answers within 100 ms, and a
/// good wrench moves the vehicle.
#[test]
fn a_dds_peer_reads_odometry_and_hostile_commands_are_refused() {
    // Timed: not beside the other timed cases on the same cores.
    let _turn = crate::support::attack::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = serve_dds(23, dir.path());
    let dp = peer(23);
    let mut odom = reader(&dp, "rt/auv/main/odom", "nav_msgs::msg::dds_::Odometry_");
    let cmd = writer(
        &dp,
        "rt/auv/main/cmd_wrench",
        "geometry_msgs::msg::dds_::WrenchStamped_",
    );
    let mut tcp = Client::connect(addr.parse().unwrap());
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut last: Option<Odometry> = None;
    while last.is_none() {
        assert!(Instant::now() < deadline, "no odometry over DDS in 15 s");
        tcp.ok("step", json!({}));
        std::thread::sleep(Duration::from_millis(20));
        while let Ok(Some(s)) = odom.take_next_sample() {
            last = Some(from_cdr(s.value().bytes()).unwrap());
        }
    }
    // Paused: one more step, then the odometry of that frame is the state.
    tcp.ok("step", json!({}));
    let state = tcp.state();
    let t = Instant::now();
    let mut seen = None;
    while t.elapsed() < Duration::from_secs(5) {
        while let Ok(Some(s)) = odom.take_next_sample() {
            seen = Some(from_cdr::<Odometry>(s.value().bytes()).unwrap());
        }
        let p = seen.as_ref().map(|o| &o.pose.pose.position);
        if p.is_some_and(|p| json!([p.x, p.y, p.z]) == state["position"]) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let p = seen.expect("no odometry after the step").pose.pose.position;
    assert_eq!(
        json!([p.x, p.y, p.z]),
        state["position"],
        "odometry over DDS"
    );
    eprintln!(
        "odometry over DDS: ({}, {}, {}) = get_state {}",
        p.x, p.y, p.z, state["position"]
    );

    // The command reader is matched before anything is sent.
    let deadline = Instant::now() + Duration::from_secs(10);
    let matched = || {
        dp.discovered_readers()
            .iter()
            .any(|r| r.subscription_topic_data.topic_name() == "rt/auv/main/cmd_wrench")
    };
    while !matched() {
        assert!(Instant::now() < deadline, "cmd_wrench never matched");
        std::thread::sleep(Duration::from_millis(20));
    }
    tcp.sim("reset", json!({}));
    tcp.step_n(20, json!({}));
    let reference = tcp.state()["position"].clone();
    tcp.sim("reset", json!({}));
    // Hostile: truncated, garbage, empty bodies, a 1 MiB sample (sent in
    // DDS fragments), a non-finite force and a wrong frame, 200 times
    // each, while the TCP side is timed.
    let good = wrench(60.0, "");
    let attacks: Vec<Vec<u8>> = vec![
        good[..good.len() - 4].to_vec(),
        vec![0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff],
        vec![0, 1, 0, 0],
        {
            let mut v = good.clone();
            v.resize(1 << 20, 0x5a);
            v
        },
        wrench(f64::NAN, ""),
        wrench(60.0, "world"),
    ];
    let sender = std::thread::spawn(move || {
        let mut sent = 0;
        for _ in 0..200 {
            for a in &attacks {
                if cmd.write(RawCdr::new(a.clone()), None).is_ok() {
                    sent += 1;
                }
            }
        }
        // The writer waits for the last ones to be acknowledged.
        let _ = cmd.wait_for_acknowledgments(Duration::from_secs(5));
        (cmd, sent)
    });
    let mut worst = Duration::ZERO;
    while !sender.is_finished() {
        let t = Instant::now();
        assert_eq!(tcp.cmd("get_state", json!({}))["status"], "ok");
        worst = worst.max(t.elapsed());
        std::thread::sleep(Duration::from_millis(5));
    }
    let (cmd, sent) = sender.join().unwrap();
    eprintln!("{sent} hostile samples sent; slowest get_state meanwhile {worst:?}");
    assert!(sent >= 600, "only {sent} hostile samples written");
    assert!(
        worst < Duration::from_millis(100),
        "get_state took {worst:?} during the flood"
    );
    std::thread::sleep(Duration::from_millis(300));
    tcp.step_n(20, json!({}));
    assert_eq!(
        tcp.state()["position"],
        reference,
        "a refused sample moved the vehicle"
    );
    // Refusals are logged, at a bounded rate (one line per 5 s, then a
    // count of those held back).
    let log = std::fs::read_to_string(dir.path().join("stderr.log")).unwrap();
    let refused = log.lines().filter(|l| l.contains("refused")).count();
    assert!(
        (1..=3).contains(&refused),
        "{refused} refusal lines logged:\n{log}"
    );

    // A good wrench still goes through: the control state shows it as
    // the last command. It comes from a controller's own writer, as it
    // would in a fleet, not from the flooding one, whose reliable queue
    // may still be repairing a thousand fragmented megabytes (a clean run
    // saw ten seconds of resends behind it); the flooder stays connected.
    // Sent again every half second, as a controller would, while the new
    // writer is discovered.
    let _flooder = cmd;
    let cmd = writer(
        &dp,
        "rt/auv/main/cmd_wrench",
        "geometry_msgs::msg::dds_::WrenchStamped_",
    );
    tcp.sim("reset", json!({}));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut sent = Instant::now() - Duration::from_secs(1);
    loop {
        if sent.elapsed() >= Duration::from_millis(500) {
            cmd.write(RawCdr::new(good.clone()), None).unwrap();
            sent = Instant::now();
        }
        let w = tcp.state()["control"]["last_command"].clone();
        if !w.is_null() {
            assert_eq!(w["action"], "set_body_wrench", "{w}");
            assert_eq!(
                w["data"]["wrench"],
                json!([60.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
                "cmd_wrench in FRD"
            );
            break;
        }
        let log = std::fs::read_to_string(dir.path().join("stderr.log")).unwrap();
        let log: String = log.lines().rev().take(30).collect::<Vec<_>>().join("\n");
        assert!(
            Instant::now() < deadline,
            "the good wrench never arrived: {w}\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
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
}

/// The first odometry a peer on `domain` receives while the server steps
/// (panics after 15 s).
fn odometry_arrives(domain: u16, tcp: &mut Client) -> Odometry {
    let dp = peer(domain);
    let mut odom = reader(&dp, "rt/auv/main/odom", "nav_msgs::msg::dds_::Odometry_");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        assert!(Instant::now() < deadline, "no odometry over DDS in 15 s");
        tcp.ok("step", json!({}));
        std::thread::sleep(Duration::from_millis(20));
        if let Ok(Some(s)) = odom.take_next_sample() {
            return from_cdr(s.value().bytes()).unwrap();
        }
    }
}

/// Every occurrence of `from` in `bytes` replaced by `to` (same length).
fn replace_all(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            i += from.len();
        } else {
            i += 1;
        }
    }
}

/// A flood of discovery traffic: the server's own participant
/// announcement (caught on a well-known discovery port of its domain, to
/// which it announces itself) replayed as 3,000 participants that do not
/// exist, and 9,000 malformed datagrams on its discovery, user and
/// multicast ports. The TCP side answers within 100 ms throughout, memory
/// stays bounded, and a peer then still receives odometry.
#[test]
fn a_discovery_flood_leaves_the_simulator_answering() {
    use std::net::UdpSocket;
    let _turn = crate::support::attack::exclusive();
    let domain: u16 = 25;
    let base = 7400 + 250 * domain;
    // The server (participant 0) announces itself to participants 0 to 11
    // on 127.0.0.1; the port of participant 11 is this test's.
    let trap = UdpSocket::bind(("127.0.0.1", base + 10 + 2 * 11)).unwrap();
    trap.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (server, addr) = serve_dds(u32::from(domain), dir.path());
    let mut buf = vec![0u8; 65_536];
    let n = trap
        .recv(&mut buf)
        .expect("no participant announcement from the server on 127.0.0.1");
    let spdp = buf[..n].to_vec();
    assert_eq!(&spdp[..4], b"RTPS", "not an RTPS message");
    let prefix = spdp[8..20].to_vec();
    let pid = server.0.id();
    let (rss_before, _) = crate::support::attack::soak::rss_kib(pid).unwrap();
    let watch = crate::support::attack::Watch::start(&addr);
    let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut junk = |len: usize| {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect::<Vec<u8>>()
    };
    let t = Instant::now();
    for i in 0..3_000u32 {
        let mut fake = prefix.clone();
        fake[0] ^= 0x5a;
        fake[8..12].copy_from_slice(&i.to_be_bytes());
        let mut p = spdp.clone();
        replace_all(&mut p, &prefix, &fake);
        let _ = tx.send_to(&p, ("127.0.0.1", base + 10));
        // An RTPS header then garbage; garbage alone; a header cut short.
        let mut rtps = spdp[..20].to_vec();
        rtps.extend(junk(200));
        let _ = tx.send_to(&rtps, ("127.0.0.1", base + 11));
        let _ = tx.send_to(&junk(1_000), ("127.0.0.1", base + 10));
        let _ = tx.send_to(&spdp[..12], ("127.0.0.1", base));
        if i % 50 == 0 {
            // Paced a little, so the flood is read rather than lost in the
            // socket buffer.
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    eprintln!("discovery flood sent in {:?}", t.elapsed());
    std::thread::sleep(Duration::from_secs(1));
    watch.finish();
    let (rss_after, peak) = crate::support::attack::soak::rss_kib(pid).unwrap();
    eprintln!("RSS {rss_before} KiB before the flood, {rss_after} KiB after, peak {peak} KiB");
    assert!(peak <= 512 << 10, "peak RSS {peak} KiB");
    let mut tcp = Client::connect(addr.parse().unwrap());
    let o = odometry_arrives(domain, &mut tcp);
    eprintln!(
        "after the flood, odometry still arrives: {:?}",
        o.pose.pose.position
    );
}

/// A `/tf_static` subscriber (transient local, as tf2's static listener
/// is) that joins while the simulation is paused, after the frame tree
/// went out, still gets it, with no further step. (That the writer offers
/// transient local, which such a reader requires of it in Fast DDS, is
/// checked by rclpy's `topic info` in `check_ros2_dds.py`.)
#[test]
fn a_late_tf_static_subscriber_gets_the_frame_tree() {
    use oceansim_ros2::msg::tf2_msgs::TFMessage;
    use oceansim_server::bridge::rustdds::policy::Durability;
    let domain: u16 = 28;
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = serve_dds(u32::from(domain), dir.path());
    let mut tcp = Client::connect(addr.parse().unwrap());
    // The first frames make the publishers, /tf_static among them.
    let _ = odometry_arrives(domain, &mut tcp);
    std::thread::sleep(Duration::from_millis(300));
    let dp = peer(domain);
    let qos = QosPolicyBuilder::new()
        .reliable(rustdds::Duration::from_millis(100))
        .durability(Durability::TransientLocal)
        .history(History::KeepLast { depth: 1 })
        .build();
    let t = dp
        .create_topic(
            "rt/tf_static".into(),
            "tf2_msgs::msg::dds_::TFMessage_".into(),
            &qos,
            TopicKind::NoKey,
        )
        .unwrap();
    let mut r = dp
        .create_subscriber(&qos)
        .unwrap()
        .create_datareader_no_key::<RawCdr, RawAdapter>(&t, Some(qos))
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let tf: TFMessage = loop {
        if let Ok(Some(s)) = r.take_next_sample() {
            break from_cdr(s.value().bytes()).unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "a late transient-local /tf_static reader got nothing in 10 s, paused"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let children: Vec<&str> = tf
        .transforms
        .iter()
        .map(|t| t.child_frame_id.as_str())
        .collect();
    assert!(
        children.contains(&"auv/main/camera_optical"),
        "/tf_static children {children:?}"
    );
}

/// `--ros2-dds-range subnet` (every interface, DDS multicast) starts,
/// warns that the network can drive the vehicles, and is found by a peer.
/// Only in the loopback-only namespace of the DDS stage, where its
/// multicast cannot leave the machine.
#[test]
fn the_subnet_range_warns_and_is_found() {
    if rclpy_python().is_none() {
        return;
    }
    let domain: u16 = 27;
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = serve_dds_range(u32::from(domain), "subnet", dir.path());
    let mut tcp = Client::connect(addr.parse().unwrap());
    let o = odometry_arrives(domain, &mut tcp);
    eprintln!(
        "subnet range: odometry arrives ({:?})",
        o.pose.pose.position
    );
    let log = std::fs::read_to_string(dir.path().join("stderr.log")).unwrap();
    assert!(
        log.contains("any host of the network can read and drive the vehicles"),
        "no warning for the subnet range:\n{log}"
    );
}

#[test]
fn bad_dds_options_are_clear_errors_before_serving() {
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
    let (ok, stdout, err) = run(&["--ros2-dds", "--ros2"]);
    assert!(
        !ok && stdout.is_empty() && err.contains("cannot be used with"),
        "{err}"
    );
    let (ok, _, err) = run(&["--ros2-dds", "--ros2-dds-range", "lan"]);
    assert!(
        !ok && err.contains("localhost") && err.contains("subnet"),
        "{err}"
    );
    let (ok, _, err) = run(&["--ros2-dds-range", "subnet"]);
    assert!(!ok && err.contains("--ros2-dds"), "{err}");
    let (ok, _, err) = run(&["--ros2-dds", "--ros2-namespace", "not a name"]);
    assert!(!ok && err.contains("bridge_config"), "{err}");
}

/// Whether this process sees only loopback (a namespace made by
/// `unshare -n`), so that no DDS discovery can leave it. Read from
/// `/proc/self/net/dev`, which is the process's own network namespace
/// (`/sys/class/net` stays the host's unless sysfs is mounted again).
fn loopback_only() -> Result<(), String> {
    let dev = std::fs::read_to_string("/proc/self/net/dev")
        .map_err(|e| format!("reading /proc/self/net/dev: {e}"))?;
    let names: Vec<&str> = dev
        .lines()
        .skip(2)
        .filter_map(|l| l.split(':').next().map(str::trim))
        .collect();
    if names == ["lo"] {
        Ok(())
    } else {
        Err(format!("interfaces {names:?}"))
    }
}

/// `OCEANSIM_RCLPY_PY`, checked to run only where no DDS traffic can
/// leave the machine; `None` (the test skips) when it is not set.
fn rclpy_python() -> Option<String> {
    let Ok(python) = std::env::var("OCEANSIM_RCLPY_PY") else {
        eprintln!("skipped: set OCEANSIM_RCLPY_PY to a python with ros-rclpy (see .ci/run)");
        return None;
    };
    if let Err(e) = loopback_only() {
        panic!(
            "OCEANSIM_RCLPY_PY is set but this test is not in a loopback-only network \
             namespace ({e}): run it under `unshare -n sh -c 'ip link set lo up; ...'` \
             as .ci/run does, so that no DDS discovery leaves the machine"
        );
    }
    Some(python)
}

/// A ROS 2 node (rclpy) with reliable subscriptions to /clock and
/// odometry, stopped (SIGSTOP) once it has received odometry: a reader
/// that never acknowledges again. The bridge's reliable writers never
/// wait for it: a healthy peer keeps receiving each step's odometry, the
/// TCP side answers within 100 ms, and memory stays bounded.
#[test]
fn a_ros2_node_that_stops_acknowledging_holds_nothing_up() {
    let Some(python) = rclpy_python() else {
        return;
    };
    let _turn = crate::support::attack::exclusive();
    let domain: u16 = 32;
    let dir = tempfile::tempdir().unwrap();
    let (server, addr) = serve_dds(u32::from(domain), dir.path());
    let node = r#"
import sys, rclpy
from rclpy.node import Node
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
rclpy.init()
n = Node("frozen")
got = []
n.create_subscription(Odometry, "/auv/main/odom", got.append, 10)
n.create_subscription(Clock, "/clock", lambda m: None, 10)
while not got:
    rclpy.spin_once(n, timeout_sec=0.05)
print("ready", flush=True)
while True:
    rclpy.spin_once(n, timeout_sec=1.0)
"#;
    let mut frozen = KillOnDrop(
        Command::new(python)
            .args(["-c", node])
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            .env("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let ready = {
        let out = frozen.0.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(out).read_line(&mut line);
            let _ = tx.send(line);
        });
        rx
    };
    let mut tcp = Client::connect(addr.parse().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        tcp.ok("step", json!({}));
        if let Ok(line) = ready.recv_timeout(Duration::from_millis(50)) {
            assert_eq!(line.trim(), "ready", "the rclpy node said {line:?}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the rclpy node got no odometry in 20 s"
        );
    }
    // What 600 steps cost in memory with the node alive (the recording
    // grows with every frame): the baseline for the stopped node's.
    let rss = || {
        crate::support::attack::soak::rss_kib(server.0.id())
            .unwrap()
            .0
    };
    let rss_start = rss();
    for _ in 0..600 {
        tcp.ok("step", json!({}));
    }
    let rss_alive = rss();
    let stopped = Command::new("kill")
        .args(["-STOP", &frozen.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success(), "kill -STOP");
    let dp = peer(domain);
    let mut odom = reader(&dp, "rt/auv/main/odom", "nav_msgs::msg::dds_::Odometry_");
    let watch = crate::support::attack::Watch::start(&addr);
    // 60 s of simulated time with the stopped reader matched: far more
    // than any reliable window holds.
    for _ in 0..600 {
        tcp.ok("step", json!({}));
    }
    let want = tcp.state()["position"].clone();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut last = None;
    while Instant::now() < deadline {
        while let Ok(Some(s)) = odom.take_next_sample() {
            last = Some(from_cdr::<Odometry>(s.value().bytes()).unwrap());
        }
        let p = last.as_ref().map(|o| &o.pose.pose.position);
        if p.is_some_and(|p| json!([p.x, p.y, p.z]) == want) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The test's own steps (each renders every sensor) hold the loop tens
    // of milliseconds: a few answers may wait behind one.
    watch.finish_allowing(0.1);
    let p = last
        .expect("a healthy peer got no odometry beside the stopped node")
        .pose
        .pose
        .position;
    assert_eq!(
        json!([p.x, p.y, p.z]),
        want,
        "beside the stopped node, the healthy peer's odometry lags the simulator"
    );
    let (rss_stopped, peak) = crate::support::attack::soak::rss_kib(server.0.id()).unwrap();
    let (alive, stopped) = (
        rss_alive.saturating_sub(rss_start),
        rss_stopped.saturating_sub(rss_alive),
    );
    eprintln!(
        "RSS grew {alive} KiB over 600 steps with the rclpy node alive, {stopped} KiB over \
         600 more with it stopped (peak {peak} KiB); the healthy peer's odometry at the last step"
    );
    assert!(peak <= 768 << 10, "peak RSS {peak} KiB");
    assert!(
        stopped <= alive + (32 << 10),
        "600 steps beside a stopped reader grew RSS by {stopped} KiB, against {alive} KiB with it alive"
    );
}

#[test]
fn rclpy_sees_the_simulator_over_dds() {
    let Some(python) = rclpy_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A bag of the same scenario, for rclpy to decode every type it holds.
    let run = Command::new(env!("CARGO_BIN_EXE_oceansim"))
        .args(["run", "--duration", "1", "--out"])
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "oceansim run: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let domain = 31;
    let (_server, addr) = serve_dds(domain, dir.path());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_ros2_dds.py");
    let t = Instant::now();
    let out = Command::new(python)
        .arg(script)
        .arg(&addr)
        .arg(dir.path().join("run/rosbag2"))
        .env("ROS_DOMAIN_ID", domain.to_string())
        .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
        .env("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "check_ros2_dds.py failed:\n{stdout}");
    assert!(stdout.contains("all ok"), "{stdout}");
    eprintln!("check_ros2_dds.py took {:?}", t.elapsed());
}
