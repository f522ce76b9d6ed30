#!/usr/bin/env python3
"""The DDS bridge seen by real ROS 2: an rclpy node on Fast DDS.

Usage: check_ros2_dds.py TCP_ADDR BAG_DIR

TCP_ADDR is a `oceansim serve --paused --deterministic --ros2-dds` server's
protocol address; BAG_DIR the rosbag2 directory of an `oceansim run` of the
same scenario. Run with RMW_IMPLEMENTATION=rmw_fastrtps_cpp,
ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and the server's ROS_DOMAIN_ID,
inside a loopback-only network namespace. With PyPI's ROS 2 Jazzy wheels
(ros-rclpy 7.1.6, ros-rmw-fastrtps-cpp, the message packages) or
Kilted's (ros-rclpy 9.1.2) and the `mcap` reader, it checks:

  graph     `ros2 node list` shows /oceansim; its publishers and
            subscriptions, with their types, are those of the Zenoh bridge;
            `ros2 topic info -v` names the node and shows the QoS (sensor
            data best effort, the rest reliable, /tf_static transient
            local);
  values    at one paused instant, /clock, odom, imu, the camera's image
            and camera_info, a PointCloud2 and a sonar image, decoded by
            rclpy, equal what get_state / get_sensors say over TCP;
  command   cmd_wrench and cmd_vel published by rclpy arrive as the TCP
            protocol's set_body_wrench / set_body_velocity (FLU -> FRD),
            and the wrench moves the vehicle;
  reset     after the simulator's reset the node and its topics stay, and
            the topics restart from the new run's first frame;
  bag       one message of every type the rosbag2 export writes, its raw
            CDR from the bag's MCAP file, decoded by
            rclpy.serialization.deserialize_message (tf2_msgs has no wheel:
            named as skipped).

Prints one `ok <check>` line per check (values: one line per topic, the
rclpy value beside the TCP value); exits non-zero on the first failure.
"""

import base64
import importlib
import json
import math
import os
import socket
import struct
import sys
import tempfile
import time
import zlib
from pathlib import Path

# Fast DDS reads its UDP sockets with the system's default receive buffer
# (net.core.rmem_default, 208 KiB here): one frame's images (the camera's
# 230 KB, its depth, segmentation, the sonars') arrive in a burst of about
# 1 MB of best-effort fragments, and a full buffer loses a fragment, so the
# whole sample. As ROS 2 users with cameras on Fast DDS do, the checker's
# participant asks for 4 MiB (capped by net.core.rmem_max).
FASTDDS_PROFILE = """<?xml version="1.0" encoding="UTF-8" ?>
<profiles xmlns="http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles">
  <transport_descriptors>
    <transport_descriptor>
      <transport_id>udp_large_buffers</transport_id>
      <type>UDPv4</type>
      <receiveBufferSize>4194304</receiveBufferSize>
      <sendBufferSize>4194304</sendBufferSize>
    </transport_descriptor>
  </transport_descriptors>
  <participant profile_name="checker" is_default_profile="true">
    <rtps>
      <userTransports><transport_id>udp_large_buffers</transport_id></userTransports>
      <useBuiltinTransports>false</useBuiltinTransports>
    </rtps>
  </participant>
</profiles>
"""

import rclpy
from rclpy.node import Node
from rclpy.qos import (
    DurabilityPolicy,
    QoSProfile,
    ReliabilityPolicy,
)
from rclpy.serialization import deserialize_message
from geometry_msgs.msg import Twist, Vector3, WrenchStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image, Imu, PointCloud2

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
# The topics whose values are compared with TCP, and their rclpy types.
WATCHED = {
    "/clock": Clock,
    f"{NS}/odom": Odometry,
    f"{NS}/imu": Imu,
    f"{NS}/camera/image_raw": Image,
    f"{NS}/camera/camera_info": CameraInfo,
    f"{NS}/lidar_3d/points": PointCloud2,
    f"{NS}/imaging_sonar/image": Image,
}


def fail(msg):
    print(f"FAIL {msg}", flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def stamp_ns(t):
    return t.sec * 1_000_000_000 + t.nanosec


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
        return json.loads(self.file.readline())

    def ok(self, action, data=None, kind="command"):
        r = self.request(action, data, kind)
        check(r.get("success"), f"{action}: {r}")
        return r

    def state(self):
        return self.ok("get_state")["data"]


def png_pixels(b64):
    """(width, height, channels, bytes) of an 8-bit, non-interlaced PNG."""
    raw = base64.b64decode(b64)
    check(raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(raw):
        n, kind = struct.unpack_from(">I4s", raw, pos)
        body = raw[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, color, _, _, interlace = header
    check(depth == 8 and interlace == 0, f"PNG depth {depth}, interlace {interlace}")
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    data = zlib.decompress(idat)
    stride = w * ch
    out = bytearray()
    prev = bytearray(stride)
    for y in range(h):
        f = data[y * (stride + 1)]
        line = bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 0xFF
        out += line
        prev = line
    return w, h, ch, bytes(out)


class Checker(Node):
    def __init__(self):
        super().__init__("checker")
        self.got = {t: [] for t in WATCHED}
        for topic, ty in WATCHED.items():
            # Best effort matches reliable and best-effort writers alike.
            self.create_subscription(ty, topic, lambda m, t=topic: self.got[t].append(m),
                                     QoSProfile(depth=50, reliability=ReliabilityPolicy.BEST_EFFORT))
        self.wrench = self.create_publisher(WrenchStamped, f"{NS}/cmd_wrench", 10)
        self.vel = self.create_publisher(Twist, f"{NS}/cmd_vel", 10)

    def spin_for(self, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.01)

    def spin_until(self, cond, secs, what):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            if cond():
                return
            rclpy.spin_once(self, timeout_sec=0.01)
        fail(f"{what} within {secs} s")

    def at(self, topic, ns):
        """The message of `topic` stamped `ns`, or None."""
        for m in reversed(self.got[topic]):
            s = m.clock if topic == "/clock" else m.header.stamp
            if stamp_ns(s) == ns:
                return m
        return None


def check_graph(node, tcp):
    names = lambda: node.get_node_names_and_namespaces()  # noqa: E731

    def seen():
        # Publishers are made on a topic's first message: step meanwhile.
        tcp.ok("step")
        pubs = dict(node.get_publisher_names_and_types_by_node("oceansim", "/")) \
            if ("oceansim", "/") in names() else {}
        return all(t in pubs for t in EXPECTED)

    node.spin_until(seen, 20.0, f"node /oceansim with its publishers (nodes {names()})")
    pubs = dict(node.get_publisher_names_and_types_by_node("oceansim", "/"))
    subs = dict(node.get_subscriber_names_and_types_by_node("oceansim", "/"))
    topics = dict(node.get_topic_names_and_types())
    for topic, ros_type in EXPECTED.items():
        check(pubs[topic] == [ros_type], f"{topic}: publisher type {pubs[topic]}, expected {ros_type}")
        check(ros_type in topics.get(topic, []), f"{topic} not in the graph's topics")
    for topic, ros_type in COMMANDS.items():
        check(subs.get(topic) == [ros_type], f"{topic}: subscription {subs.get(topic)}, expected {ros_type}")
    qos = {}
    for topic in ("/clock", "/tf_static", f"{NS}/odom", f"{NS}/imu", f"{NS}/camera/image_raw"):
        infos = [i for i in node.get_publishers_info_by_topic(topic) if i.node_name == "oceansim"]
        check(len(infos) == 1, f"{topic}: `ros2 topic info -v` lists {len(infos)} publishers of node oceansim")
        i = infos[0]
        check(i.node_namespace == "/", f"{topic}: node namespace {i.node_namespace}")
        qos[topic] = (i.qos_profile.reliability, i.qos_profile.durability)
    check(qos[f"{NS}/imu"][0] == ReliabilityPolicy.BEST_EFFORT, f"imu: {qos[f'{NS}/imu']}")
    check(qos[f"{NS}/camera/image_raw"][0] == ReliabilityPolicy.BEST_EFFORT, "camera not best effort")
    check(qos[f"{NS}/odom"] == (ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE), f"odom: {qos[f'{NS}/odom']}")
    check(qos["/clock"][0] == ReliabilityPolicy.RELIABLE, f"clock: {qos['/clock']}")
    check(qos["/tf_static"] == (ReliabilityPolicy.RELIABLE, DurabilityPolicy.TRANSIENT_LOCAL),
          f"/tf_static: {qos['/tf_static']}")
    cmd = [i for i in node.get_subscriptions_info_by_topic(f"{NS}/cmd_wrench") if i.node_name == "oceansim"]
    check(len(cmd) == 1, f"cmd_wrench subscriptions of oceansim: {cmd}")
    print(f"ok graph: node /oceansim; {len(EXPECTED)} publishers and {len(COMMANDS)} subscriptions "
          f"with their types; QoS best effort for sensors, reliable otherwise, /tf_static transient local",
          flush=True)


def flu(v):
    return [v[0], -v[1], -v[2]]


def close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b)) and len(a) == len(b)


def check_values(node, tcp):
    # A whole second of simulated time: every sensor samples then.
    r = tcp.ok("step")
    while round(r["sim_time"] * 10) % 10 != 0:
        r = tcp.ok("step")
    t = r["sim_time"]
    state = tcp.state()
    sensors = tcp.ok("get_sensors")["data"]["sensors"]
    # The origin of the stamps: /clock of this frame is origin + t.
    node.spin_until(lambda: node.got["/clock"], 5.0, "a /clock")

    node.spin_for(0.3)
    # Paused after the step: the latest /clock is this frame's.
    clock = max(node.got["/clock"], key=lambda m: stamp_ns(m.clock))
    ns = stamp_ns(clock.clock)
    prev = [stamp_ns(m.clock) for m in node.got["/clock"] if stamp_ns(m.clock) < ns]
    check(prev and ns - max(prev) == 100_000_000, f"/clock steps by {ns - max(prev) if prev else None} ns, not 0.1 s")
    node.spin_until(lambda: all(node.at(tp, ns) is not None for tp in WATCHED), 5.0,
                    f"every watched topic stamped {ns} (ms from it, per topic: "
                    f"{ {tp: [(stamp_ns(m.clock if tp == '/clock' else m.header.stamp) - ns) // 1_000_000 for m in v[-12:]] for tp, v in node.got.items()} })")
    print(f"ok values at sim_time {t} s (stamp {ns} ns), rclpy | TCP:", flush=True)
    print(f"  /clock                    {clock.clock.sec}.{clock.clock.nanosec:09d} | "
          f"step {t} s after the previous /clock {max(prev)} (+0.1 s)")

    odom = node.at(f"{NS}/odom", ns)
    p = odom.pose.pose.position
    check([p.x, p.y, p.z] == state["position"], f"odom position {p} != get_state {state['position']}")
    lin = odom.twist.twist.linear
    bv = state["body_velocity"]
    check([lin.x, lin.y, lin.z] == flu(bv[:3]), f"odom twist {lin} != FLU of body_velocity {bv[:3]}")
    check(odom.header.frame_id == "world" and odom.child_frame_id == f"{VEHICLE}/base_link",
          f"odom frames {odom.header.frame_id} -> {odom.child_frame_id}")
    print(f"  {NS}/odom position        ({p.x}, {p.y}, {p.z}) | get_state position {state['position']}")
    print(f"  {NS}/odom twist.linear    ({lin.x}, {lin.y}, {lin.z}) | body_velocity FRD {bv[:3]} (y, z negated)")

    imu = node.at(f"{NS}/imu", ns)
    s_imu = sensors["imu"]
    check(s_imu["sim_time"] == t, f"imu sample at {s_imu['sim_time']}, not {t}")
    a = imu.linear_acceleration
    w = imu.angular_velocity
    # TCP rounds to 3 decimals; the ROS message carries the full value.
    check(close([a.x, a.y, a.z], flu(s_imu["linear_acceleration"]), 5.1e-4),
          f"imu acceleration {a} != FLU of {s_imu['linear_acceleration']}")
    check(close([w.x, w.y, w.z], flu(s_imu["angular_velocity"]), 5.1e-4),
          f"imu rates {w} != FLU of {s_imu['angular_velocity']}")
    check(imu.header.frame_id == f"{VEHICLE}/imu", f"imu frame {imu.header.frame_id}")
    print(f"  {NS}/imu accel            ({a.x:.6f}, {a.y:.6f}, {a.z:.6f}) | get_sensors FRD "
          f"{s_imu['linear_acceleration']} (y, z negated; TCP rounds to 1 mm/s^2)")
    print(f"  {NS}/imu rates            ({w.x:.6f}, {w.y:.6f}, {w.z:.6f}) | get_sensors FRD {s_imu['angular_velocity']}")

    cam = sensors["camera"]
    check(cam["sim_time"] == t, f"camera sample at {cam['sim_time']}, not {t}")
    img = node.at(f"{NS}/camera/image_raw", ns)
    w_, h_, ch, pixels = png_pixels(cam["rgb_png_base64"])
    check((img.width, img.height) == (cam["width"], cam["height"]) == (w_, h_),
          f"camera {img.width}x{img.height} vs TCP {cam['width']}x{cam['height']}")
    check(img.encoding == "rgb8" and ch == 3, f"camera encoding {img.encoding}, PNG channels {ch}")
    check(bytes(img.data) == pixels, "camera pixels differ from get_sensors' PNG")
    print(f"  {NS}/camera/image_raw     {img.width}x{img.height} {img.encoding}, {len(img.data)} bytes, "
          f"crc32 {zlib.crc32(bytes(img.data)):08x} | get_sensors PNG {w_}x{h_}, crc32 {zlib.crc32(pixels):08x}")

    info = node.at(f"{NS}/camera/camera_info", ns)
    k = cam["intrinsics"]
    want_k = [k["fx"], 0.0, k["cx"], 0.0, k["fy"], k["cy"], 0.0, 0.0, 1.0]
    check(close(list(info.k), want_k, 1e-9), f"camera_info K {list(info.k)} != {want_k}")
    check((info.width, info.height) == (cam["width"], cam["height"]), "camera_info size")
    print(f"  {NS}/camera/camera_info   K fx {info.k[0]} fy {info.k[4]} cx {info.k[2]} cy {info.k[5]} | "
          f"get_sensors intrinsics {k}")

    lid = sensors["lidar_3d"]
    check(lid["sim_time"] == t, f"lidar_3d sample at {lid['sim_time']}, not {t}")
    cloud = node.at(f"{NS}/lidar_3d/points", ns)
    n = cloud.width * cloud.height
    check(n == lid["point_count"] == len(lid["points"]), f"cloud {n} points, TCP {lid['point_count']}")
    off = {f.name: f.offset for f in cloud.fields}
    data = bytes(cloud.data)
    pts = [struct.unpack_from("<fff", data, i * cloud.point_step + off["x"]) for i in range(n)]
    ranges = sorted(math.sqrt(x * x + y * y + z * z) for x, y, z in pts)
    want = sorted(math.sqrt(sum(c * c for c in q)) for q in lid["points"])
    check(close(ranges, want, 2e-3), f"cloud ranges {ranges} != TCP {want}")
    print(f"  {NS}/lidar_3d/points      {n} points, ranges {[round(r_, 3) for r_ in ranges[:3]]}... | "
          f"get_sensors {lid['point_count']} points, ranges {[round(r_, 3) for r_ in want[:3]]}...")

    son = sensors["imaging_sonar"]
    check(son["sim_time"] == t, f"imaging_sonar sample at {son['sim_time']}, not {t}")
    simg = node.at(f"{NS}/imaging_sonar/image", ns)
    sw, sh, sch, spx = png_pixels(son["intensity_png_base64"])
    check((simg.width, simg.height) == (sw, sh), f"sonar {simg.width}x{simg.height} vs PNG {sw}x{sh}")
    check(sch == 1 and simg.encoding == "mono8", f"sonar encoding {simg.encoding}, PNG channels {sch}")
    check(bytes(simg.data) == spx, "sonar pixels differ from get_sensors' PNG")
    print(f"  {NS}/imaging_sonar/image  {simg.width}x{simg.height} {simg.encoding}, crc32 "
          f"{zlib.crc32(bytes(simg.data)):08x} | get_sensors PNG {sw}x{sh} ({son['beams']} beams x "
          f"{son['bins']} bins), crc32 {zlib.crc32(spx):08x}", flush=True)
    return ns


def last_command(tcp):
    return tcp.state()["control"]["last_command"]


def check_command(node, tcp):
    tcp.ok("reset", kind="sim_control")
    for _ in range(20):
        tcp.ok("step")
    reference = tcp.state()["position"]
    tcp.ok("reset", kind="sim_control")
    m = WrenchStamped()
    m.header.frame_id = f"{VEHICLE}/base_link"
    m.wrench.force = Vector3(x=60.0, y=5.0, z=2.0)
    m.wrench.torque = Vector3(x=0.0, y=1.0, z=3.0)
    node.wrench.publish(m)
    node.spin_until(lambda: last_command(tcp) is not None, 10.0, "cmd_wrench reaching the simulator")
    c = last_command(tcp)
    check(c["action"] == "set_body_wrench" and c["data"]["wrench"] == [60.0, -5.0, -2.0, 0.0, -1.0, -3.0],
          f"cmd_wrench arrived as {c}")
    for _ in range(20):
        tcp.ok("step")
    pushed = tcp.state()["position"]
    moved = math.dist(pushed, reference)
    check(moved > 0.3, f"the wrench moved the vehicle {moved} m")
    tw = Twist(linear=Vector3(x=0.5, y=0.25, z=-0.1), angular=Vector3(x=0.0, y=0.0, z=0.2))
    node.vel.publish(tw)
    node.spin_until(lambda: last_command(tcp)["action"] == "set_body_velocity", 10.0,
                    "cmd_vel reaching the simulator")
    c = last_command(tcp)
    check(c["data"]["velocity"] == [0.5, -0.25, 0.1, 0.0, -0.0, -0.2], f"cmd_vel arrived as {c}")
    for _ in range(10):
        tcp.ok("step")
    u = tcp.state()["body_velocity"][0]
    check(u > 0.2, f"after cmd_vel the surge is {u} m/s")
    print(f"ok command: cmd_wrench -> set_body_wrench {[60.0, -5.0, -2.0, 0.0, -1.0, -3.0]} (FRD), "
          f"vehicle moved {moved:.3f} m from the unpushed run; cmd_vel -> set_body_velocity, surge {u:.3f} m/s",
          flush=True)


def check_reset(node, tcp, before_ns):
    tcp.ok("reset", kind="sim_control")
    for tp in node.got:
        node.got[tp].clear()
    r = tcp.ok("step")
    check(abs(r["sim_time"] - 0.1) < 1e-9, f"after reset a step is at {r['sim_time']} s")
    node.spin_until(lambda: node.got["/clock"] and node.got[f"{NS}/odom"], 10.0, "topics after a reset")
    node.spin_for(0.2)
    clock = node.got["/clock"][-1]
    odom = node.got[f"{NS}/odom"][-1]
    check(stamp_ns(odom.header.stamp) == stamp_ns(clock.clock), "odom and clock stamps differ after reset")
    p = odom.pose.pose.position
    check([p.x, p.y, p.z] == tcp.state()["position"], "odom after reset != get_state")
    check(("oceansim", "/") in node.get_node_names_and_namespaces(), "node gone after reset")
    check(len([i for i in node.get_publishers_info_by_topic(f"{NS}/odom") if i.node_name == "oceansim"]) == 1,
          "odom publisher gone after reset")
    print(f"ok reset: node and publishers unchanged; the new run's first step (0.1 s) arrives on /clock "
          f"({stamp_ns(clock.clock)} ns, on the new run's origin; the last before the reset {before_ns} ns) "
          f"and odom, equal to get_state", flush=True)


def check_bag(bag_dir):
    from mcap.reader import make_reader

    files = sorted(Path(bag_dir).glob("*.mcap"))
    check(files, f"no .mcap in {bag_dir}")
    first = {}
    with open(files[0], "rb") as f:
        for schema, channel, message in make_reader(f).iter_messages():
            first.setdefault(schema.name, (channel.topic, message.data))
    decoded, skipped = [], []
    for ros_type, (topic, data) in sorted(first.items()):
        pkg, _, name = ros_type.split("/")
        try:
            module = importlib.import_module(f"{pkg}.msg")
        except ImportError:
            skipped.append(ros_type)
            continue
        msg = deserialize_message(data, getattr(module, name))
        check(type(msg).__name__ == name, f"{ros_type} on {topic} decoded as {type(msg)}")
        decoded.append(ros_type)
    check(skipped == ["tf2_msgs/msg/TFMessage"], f"types without a wheel: {skipped}")
    check(len(decoded) >= 10, f"only {decoded} decoded")
    print(f"ok bag: {len(decoded)} types decoded by rclpy from the bag's raw CDR ({', '.join(decoded)}); "
          f"skipped (no wheel): {', '.join(skipped)}", flush=True)


def main():
    tcp_addr, bag_dir = sys.argv[1], sys.argv[2]
    t0 = time.monotonic()
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(FASTDDS_PROFILE)
    # Fast DDS 2 (Jazzy) reads the first name, Fast DDS 3 (Kilted) the second.
    os.environ["FASTRTPS_DEFAULT_PROFILES_FILE"] = f.name
    os.environ["FASTDDS_DEFAULT_PROFILES_FILE"] = f.name
    rclpy.init()
    node = Checker()
    try:
        tcp = Tcp(tcp_addr)
        check_graph(node, tcp)
        ns = check_values(node, tcp)
        check_command(node, tcp)
        check_reset(node, tcp, ns)
        check_bag(bag_dir)
    finally:
        node.destroy_node()
        rclpy.shutdown()
    print(f"all ok in {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    main()
