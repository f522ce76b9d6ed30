#!/usr/bin/env python3
"""The ROS 2 bridge seen from outside, as a ROS 2 node under rmw_zenoh would.

Usage: check_ros2_bridge.py TCP_ADDR ZENOH_ENDPOINT

TCP_ADDR is a `oceansim serve --paused --deterministic --ros2 ZENOH_ENDPOINT`
server's protocol address (host:port). With the eclipse-zenoh client (no
ROS installed) and rosbags' ROS 2 Jazzy type store as the independent CDR
reader and writer, it checks:

  topics    every topic a ROS 2 user expects arrives on rmw_zenoh's key
            (<domain>/<topic>/<pkg>::msg::dds_::<Type>_/RIHS01_<hash>),
            its hash equal to rosbags' RIHS01 of ROS 2's definition (and,
            for a few types, to the value ROS 2 documents), its payload
            decoded by rosbags with the frames of REP 103/105, each sample
            carrying rmw_zenoh's 33-byte attachment (sequence, timestamp,
            gid) with sequence numbers counting up;
  graph     liveliness tokens for the node, each publisher and each
            subscription, as `ros2 node info` reads them;
  latched   a node that declares a /tf_static subscription late (its
            liveliness token, as rmw_zenoh's nodes do) is sent the latest
            frame tree, even paused, as transient local promises;
  time      /clock is the simulated time; paused, nothing is published
            until a step, which publishes /clock again; at a time scale,
            /clock runs that much faster than the wall clock;
  command   a WrenchStamped (base link, FLU) published on <vehicle>/cmd_wrench
            moves the vehicle exactly as the same wrench (FRD) over TCP does;
  hostile   truncated, garbage, oversized, non-finite and wrongly framed
            messages leave the simulator answering and unmoved.

Prints one `ok <check>` line per check; exits non-zero on the first failure.
Needs: pip install eclipse-zenoh rosbags
"""

import json
import socket
import struct
import sys
import threading
import time
from collections import defaultdict

import zenoh
from rosbags.typesys import Stores, get_typestore

STORE = get_typestore(Stores.ROS2_JAZZY)
# Values ROS 2 Jazzy publishes for these types (rmw_zenoh's design notes
# and `ros2 topic info -v`).
DOCUMENTED = {
    "geometry_msgs/msg/Twist": "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a",
    "std_msgs/msg/String": "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
}

VEHICLE = "auv/main"
NS = "/auv/main"
EXPECTED = {
    "/clock": "rosgraph_msgs/msg/Clock",
    "/tf": "tf2_msgs/msg/TFMessage",
    "/tf_static": "tf2_msgs/msg/TFMessage",
    f"{NS}/odom": "nav_msgs/msg/Odometry",
    f"{NS}/imu": "sensor_msgs/msg/Imu",
    f"{NS}/dvl": "geometry_msgs/msg/TwistWithCovarianceStamped",
    f"{NS}/dvl/altitude": "sensor_msgs/msg/Range",
    f"{NS}/depth/pressure": "sensor_msgs/msg/FluidPressure",
    f"{NS}/camera/image_raw": "sensor_msgs/msg/Image",
    f"{NS}/camera/camera_info": "sensor_msgs/msg/CameraInfo",
    f"{NS}/lidar_2d/scan": "sensor_msgs/msg/LaserScan",
    f"{NS}/lidar_3d/points": "sensor_msgs/msg/PointCloud2",
    f"{NS}/multibeam_sonar/points": "sensor_msgs/msg/PointCloud2",
    f"{NS}/imaging_sonar/image": "sensor_msgs/msg/Image",
    f"{NS}/side_scan_sonar/image": "sensor_msgs/msg/Image",
    f"{NS}/rgbd_dense_cloud/points": "sensor_msgs/msg/PointCloud2",
}
COMMANDS = {
    f"{NS}/cmd_wrench": "geometry_msgs/msg/WrenchStamped",
    f"{NS}/cmd_vel": "geometry_msgs/msg/Twist",
    f"{NS}/thrusters": "std_msgs/msg/Float64MultiArray",
    f"{NS}/fins": "std_msgs/msg/Float64MultiArray",
    f"{NS}/goal_pose": "geometry_msgs/msg/PoseStamped",
}


def fail(msg):
    print(f"FAIL {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def dds(ros_type):
    pkg, kind, name = ros_type.split("/")
    return f"{pkg}::{kind}::dds_::{name}_"


def ros_type_of(dds_name):
    pkg, kind, _, name = dds_name.split("::")
    return f"{pkg}/{kind}/{name[:-1]}"


def key(topic, ros_type, domain=0):
    return f"{domain}/{topic.strip('/')}/{dds(ros_type)}/{STORE.hash_rihs01(ros_type)}"


class Tcp:
    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.file = self.sock.makefile("rb")

    def request(self, action, data=None, kind="command"):
        msg = {"type": kind, "action": action}
        if data is not None:
            msg["data"] = data
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        reply = json.loads(self.file.readline())
        return reply

    def ok(self, action, data=None, kind="command"):
        r = self.request(action, data, kind)
        check(r.get("success"), f"{action}: {r}")
        return r

    def state(self):
        return self.ok("get_state")["data"]


class Listener:
    """Every sample under domain 0, by topic name."""

    def __init__(self, session):
        self.lock = threading.Lock()
        self.samples = defaultdict(list)
        self.keys = {}
        self.sub = session.declare_subscriber("0/**", self.on_sample)

    def on_sample(self, sample):
        k = str(sample.key_expr)
        parts = k.split("/")
        topic = "/" + "/".join(parts[1:-2])
        att = sample.attachment.to_bytes() if sample.attachment is not None else None
        with self.lock:
            self.keys[topic] = k
            self.samples[topic].append((bytes(sample.payload.to_bytes()), att, time.monotonic()))

    def snapshot(self):
        with self.lock:
            return {t: list(v) for t, v in self.samples.items()}, dict(self.keys)

    def clear(self):
        with self.lock:
            self.samples.clear()

    def wait_for(self, topic, count=1, timeout=5.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if len(self.samples.get(topic, ())) >= count:
                    return True
            time.sleep(0.01)
        return False


def decode(ros_type, payload):
    return STORE.deserialize_cdr(payload, ros_type)


def stamp_ns(t):
    return t.sec * 1_000_000_000 + t.nanosec


def check_topics(tcp, listener):
    for _ in range(20):
        tcp.ok("step")
    for topic in EXPECTED:
        check(listener.wait_for(topic), f"no sample on {topic}")
    samples, keys = listener.snapshot()
    for topic, ros_type in EXPECTED.items():
        k = keys[topic]
        parts = k.split("/")
        check(parts[0] == "0", f"{k}: domain chunk")
        check(ros_type_of(parts[-2]) == ros_type, f"{k}: type {parts[-2]}, expected {ros_type}")
        check(parts[-1] == STORE.hash_rihs01(ros_type), f"{k}: hash {parts[-1]} != rosbags' {STORE.hash_rihs01(ros_type)}")
        if ros_type in DOCUMENTED:
            check(parts[-1] == DOCUMENTED[ros_type], f"{k}: hash differs from ROS 2's")
        seqs = []
        for payload, att, _ in samples[topic]:
            decode(ros_type, payload)  # raises on any mismatch
            check(att is not None and len(att) == 33, f"{topic}: attachment {att!r}")
            seq, ts = struct.unpack_from("<qq", att)
            check(att[16] == 16, f"{topic}: gid length byte {att[16]}")
            check(abs(ts - time.time_ns()) < 60e9, f"{topic}: source timestamp {ts}")
            seqs.append(seq)
        check(seqs == sorted(seqs) and len(set(seqs)) == len(seqs), f"{topic}: sequence {seqs}")
    # The twist and the string are subscribed/publishable types too.
    for ros_type, h in DOCUMENTED.items():
        check(STORE.hash_rihs01(ros_type) == h, f"rosbags' hash of {ros_type}")
    # Frames (REP 103/105).
    odom = decode(EXPECTED[f"{NS}/odom"], samples[f"{NS}/odom"][-1][0])
    check(odom.header.frame_id == "world", f"odom frame {odom.header.frame_id}")
    check(odom.child_frame_id == f"{VEHICLE}/base_link", f"odom child {odom.child_frame_id}")
    imu = decode(EXPECTED[f"{NS}/imu"], samples[f"{NS}/imu"][-1][0])
    check(imu.header.frame_id == f"{VEHICLE}/imu", f"imu frame {imu.header.frame_id}")
    # At rest near the surface the IMU feels gravity up in FLU: +z.
    check(imu.linear_acceleration.z > 8.0, f"imu acceleration {imu.linear_acceleration}")
    tf = decode("tf2_msgs/msg/TFMessage", samples["/tf"][-1][0])
    check(any(t.child_frame_id == f"{VEHICLE}/base_link" and t.header.frame_id == "world"
              for t in tf.transforms), "/tf lacks world -> base_link")
    statics = decode("tf2_msgs/msg/TFMessage", samples["/tf_static"][-1][0])
    children = {t.child_frame_id for t in statics.transforms}
    check(f"{VEHICLE}/camera_optical" in children, f"/tf_static children {sorted(children)}")
    state = tcp.state()
    pos = odom.pose.pose.position
    check(abs(pos.x - state["position"][0]) < 1.0, f"odom x {pos.x} vs state {state['position']}")
    print(f"ok topics: {len(EXPECTED)} topics, {sum(len(v) for v in samples.values())} samples, "
          f"hashes equal rosbags', payloads decoded, attachments rmw_zenoh's")


def check_graph(session):
    tokens = [str(r.ok.key_expr) for r in session.liveliness().get("@ros2_lv/0/**", timeout=5.0) if r.ok]
    nodes = [t for t in tokens if t.split("/")[5] == "NN"]
    check(any(t.endswith("/%/%/oceansim") for t in nodes), f"no node token: {nodes}")
    pubs, subs = {}, {}
    for t in tokens:
        parts = t.split("/")
        if parts[5] in ("MP", "MS"):
            topic = parts[9].replace("%", "/")
            (pubs if parts[5] == "MP" else subs)[topic] = (ros_type_of(parts[10]), parts[11], parts[12])
    for topic, ros_type in EXPECTED.items():
        check(topic in pubs, f"no publisher token for {topic}")
        check(pubs[topic][0] == ros_type and pubs[topic][1] == STORE.hash_rihs01(ros_type),
              f"publisher token of {topic}: {pubs[topic]}")
    check(pubs["/tf_static"][2].split(":")[1] == "1", f"/tf_static not transient local: {pubs['/tf_static'][2]}")
    check(pubs[f"{NS}/imu"][2].split(":")[0] == "2", f"imu not best effort: {pubs[f'{NS}/imu'][2]}")
    for topic, ros_type in COMMANDS.items():
        check(topic in subs, f"no subscription token for {topic}")
        check(subs[topic][0] == ros_type, f"subscription token of {topic}: {subs[topic]}")
    print(f"ok graph: node /oceansim, {len(pubs)} publishers, {len(subs)} subscriptions")


def subscription_token(session, entity, topic, ros_type, qos):
    """The liveliness token a ROS 2 node under rmw_zenoh declares for a
    subscription (node /checker)."""
    zid = str(session.info.zid())
    mangled = topic.replace("/", "%")
    return session.liveliness().declare_token(
        f"@ros2_lv/0/{zid}/0/{entity}/MS/%/%/checker/{mangled}/{dds(ros_type)}/"
        f"{STORE.hash_rihs01(ros_type)}/{qos}")


def check_latched(tcp, session, listener):
    tcp.ok("pause", kind="sim_control")
    time.sleep(0.3)
    listener.clear()
    # A node joining late, while the simulation is paused, subscribes to
    # /tf_static transient local: it is sent the latest transforms.
    token = subscription_token(session, 2, "/tf_static", "tf2_msgs/msg/TFMessage", ":1:,1:,:,:,,")
    check(listener.wait_for("/tf_static", timeout=3.0), "a late /tf_static subscriber got nothing")
    samples, _ = listener.snapshot()
    check(set(samples) == {"/tf_static"}, f"paused, more than /tf_static was sent: {sorted(samples)}")
    token.undeclare()
    print("ok latched: a late /tf_static subscriber is sent the frame tree, paused")


def check_time(tcp, listener):
    tcp.ok("pause", kind="sim_control")
    time.sleep(0.3)
    listener.clear()
    time.sleep(0.5)
    samples, _ = listener.snapshot()
    check(not samples, f"paused, yet published: {sorted(samples)}")
    r = tcp.ok("step")
    check(listener.wait_for("/clock"), "no /clock after a step")
    samples, _ = listener.snapshot()
    clock = decode("rosgraph_msgs/msg/Clock", samples["/clock"][-1][0]).clock
    odom = decode("nav_msgs/msg/Odometry", samples[f"{NS}/odom"][-1][0])
    check(stamp_ns(clock) == stamp_ns(odom.header.stamp), "clock and odometry stamps differ")
    # The clock's origin on the Unix clock: the stamp of simulated time 0.
    origin_ns = stamp_ns(clock) - round(r["sim_time"] * 1e9)
    rates = {}
    for scale in (1.0, 5.0):
        tcp.ok("set_time_scale", {"time_scale": scale}, kind="sim_control")
        tcp.ok("resume", kind="sim_control")
        time.sleep(0.3)
        listener.clear()
        time.sleep(1.5)
        tcp.ok("pause", kind="sim_control")
        time.sleep(0.5)  # what is still queued arrives
        samples, _ = listener.snapshot()
        clocks = [(stamp_ns(decode("rosgraph_msgs/msg/Clock", p).clock), t) for p, _, t in samples["/clock"]]
        check(len(clocks) >= 3, f"{scale}x: {len(clocks)} clocks")
        # /clock is the simulator's clock: a step (one control period,
        # 0.1 s) from where it paused records one frame, in that period,
        # and /clock publishes its time.
        after = tcp.ok("step")["sim_time"]
        want = origin_ns + round(after * 1e9)
        period = 100_000_000
        end = time.monotonic() + 3.0
        seen = None
        while time.monotonic() < end and not (seen is not None and want - period < seen <= want):
            got, _ = listener.snapshot()
            seen = stamp_ns(decode("rosgraph_msgs/msg/Clock", got["/clock"][-1][0]).clock)
            time.sleep(0.02)
        check(seen is not None and want - period < seen <= want,
              f"{scale}x: /clock {seen} after a step to {after} s ({want})")
        sim_s = (clocks[-1][0] - clocks[0][0]) / 1e9
        wall_s = clocks[-1][1] - clocks[0][1]
        rates[scale] = sim_s / wall_s
        imu_hz = len(samples.get(f"{NS}/imu", [])) / 1.5
        print(f"rate {scale}x: /clock {len(clocks) / 1.5:.0f} Hz, imu {imu_hz:.0f} Hz, "
              f"odom {len(samples.get(f'{NS}/odom', [])) / 1.5:.0f} Hz, "
              f"camera {len(samples.get(f'{NS}/camera/image_raw', [])) / 1.5:.0f} Hz")
    # In real time /clock keeps the wall clock's pace; at 5x it runs well
    # ahead of it (a debug build on a loaded machine may not reach 5x).
    check(0.7 < rates[1.0] < 1.3, f"1x: /clock ran {rates[1.0]:.2f}x the wall clock")
    check(rates[5.0] > 1.8, f"5x: /clock ran {rates[5.0]:.2f}x the wall clock")
    print(f"ok time: paused publishes nothing until a step, then that step's time; "
          f"running {rates[1.0]:.2f}x and {rates[5.0]:.2f}x wall time at 1x and 5x")


def wrench_msg(force, torque, frame):
    T = STORE.types
    return bytes(STORE.serialize_cdr(
        T["geometry_msgs/msg/WrenchStamped"](
            header=T["std_msgs/msg/Header"](stamp=T["builtin_interfaces/msg/Time"](sec=0, nanosec=0), frame_id=frame),
            wrench=T["geometry_msgs/msg/Wrench"](
                force=T["geometry_msgs/msg/Vector3"](x=force[0], y=force[1], z=force[2]),
                torque=T["geometry_msgs/msg/Vector3"](x=torque[0], y=torque[1], z=torque[2]),
            ),
        ),
        "geometry_msgs/msg/WrenchStamped",
    ))


def run_wrench(tcp, steps):
    for _ in range(steps):
        tcp.ok("step")
    s = tcp.state()
    return s["position"] + s["velocity"] + [s["heading_deg"]]


def check_command(tcp, session):
    force, torque = [40.0, 15.0, 8.0], [0.0, 2.0, 3.0]
    pub = session.declare_publisher(key(f"{NS}/cmd_wrench", "geometry_msgs/msg/WrenchStamped"))
    tcp.ok("reset", kind="sim_control")
    before = tcp.state()["position"]
    pub.put(wrench_msg(force, torque, f"{VEHICLE}/base_link"))
    time.sleep(0.3)
    over_ros = run_wrench(tcp, 30)
    tcp.ok("reset", kind="sim_control")
    # The same wrench in Fossen's body frame (FRD): y and z change sign.
    frd = [force[0], -force[1], -force[2], torque[0], -torque[1], -torque[2]]
    tcp.ok("set_body_wrench", {"wrench": frd})
    over_tcp = run_wrench(tcp, 30)
    moved = sum((a - b) ** 2 for a, b in zip(over_ros[:3], before)) ** 0.5
    check(moved > 0.1, f"the wrench moved the vehicle {moved} m")
    diff = max(abs(a - b) for a, b in zip(over_ros, over_tcp))
    check(diff < 1e-9, f"over ROS {over_ros} != over TCP {over_tcp}")
    print(f"ok command: cmd_wrench moved the vehicle {moved:.3f} m, as set_body_wrench does (max diff {diff:.1e})")
    return pub


def check_hostile(tcp, session, wrench_pub):
    tcp.ok("reset", kind="sim_control")
    before = tcp.state()
    good = wrench_msg([50.0, 0.0, 0.0], [0.0, 0.0, 0.0], "")
    vel = session.declare_publisher(key(f"{NS}/cmd_vel", "geometry_msgs/msg/Twist"))
    fins = session.declare_publisher(key(f"{NS}/fins", "std_msgs/msg/Float64MultiArray"))
    attacks = [
        good[:-5],                                      # truncated
        b"\x00\x01\x00\x00" + b"\xff" * 7,              # garbage
        b"",                                            # empty
        good + b"\x00" * (2 << 20),                     # oversized (2 MiB)
        wrench_msg([float("nan"), 0, 0], [0, 0, 0], ""),  # non-finite
        wrench_msg([50.0, 0, 0], [0, 0, 0], "world"),   # wrong frame
    ]
    for a in attacks:
        wrench_pub.put(a)
    vel.put(b"\x00\x01\x00\x00\x01")
    fins.put(b"\x00\x01\x00\x00" + struct.pack("<I", 0xFFFFFFF0))  # a huge array length
    time.sleep(0.5)
    after = tcp.state()
    check(after["position"] == before["position"] and after["velocity"] == before["velocity"],
          "a refused message moved the vehicle")
    r = tcp.ok("step")
    check(r["success"], "the simulator stopped answering")
    print(f"ok hostile: {len(attacks) + 2} malformed messages refused, the simulator unmoved and answering")


def main():
    tcp_addr, endpoint = sys.argv[1], sys.argv[2]
    conf = zenoh.Config()
    conf.insert_json5("mode", '"client"')
    conf.insert_json5("connect/endpoints", json.dumps([endpoint]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    session = zenoh.open(conf)
    try:
        tcp = Tcp(tcp_addr)
        listener = Listener(session)
        # As a ROS 2 node subscribing to /tf_static would (rmw_zenoh).
        token = subscription_token(session, 1, "/tf_static", "tf2_msgs/msg/TFMessage", ":1:,1:,:,:,,")
        time.sleep(0.3)
        check_topics(tcp, listener)
        check_graph(session)
        check_latched(tcp, session, listener)
        check_time(tcp, listener)
        pub = check_command(tcp, session)
        check_hostile(tcp, session, pub)
    finally:
        session.close()
    print("all ok")


if __name__ == "__main__":
    main()
