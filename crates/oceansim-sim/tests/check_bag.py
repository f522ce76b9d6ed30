"""Reads an exported rosbag2 directory with tools nobody here wrote.

1. rosbags opens the bag from its metadata.yaml (MCAP storage) and
   deserialises every message against ROS 2 Jazzy's own definitions.
2. mcap-ros2-support decodes every message of the MCAP file from the
   ros2msg schemas the file embeds.
3. Every frame_id a message names reaches `world` through /tf_static and
   /tf; counts agree with metadata.yaml; images and clouds are the size
   their headers say.

Usage: python check_bag.py BAG_DIR TOPIC [TOPIC ...]
(each TOPIC must be present with at least one message). Prints a summary
line `bag ok: N messages on M topics` and exits non-zero on any failure.
"""

import sys
from pathlib import Path

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_typestore


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def main():
    bag = Path(sys.argv[1])
    wanted = sys.argv[2:]
    store = get_typestore(Stores.ROS2_JAZZY)
    parents = {}
    frames = set()
    counts = {}
    types = {}
    with Reader(bag) as reader:
        for c in reader.connections:
            types[c.topic] = c.msgtype
            if c.msgtype not in store.types:
                fail(f"{c.topic}: {c.msgtype} is not a Jazzy type")
        total = 0
        for conn, stamp, raw in reader.messages():
            msg = store.deserialize_cdr(raw, conn.msgtype)
            # Re-serialising gives the same bytes: nothing was read loosely.
            if bytes(store.serialize_cdr(msg, conn.msgtype)) != bytes(raw):
                fail(f"{conn.topic}: {conn.msgtype} does not re-serialise to its bytes")
            total += 1
            counts[conn.topic] = counts.get(conn.topic, 0) + 1
            header = getattr(msg, "header", None)
            if header is not None:
                ns = header.stamp.sec * 1_000_000_000 + header.stamp.nanosec
                if ns != stamp:
                    fail(f"{conn.topic}: stamp {ns} is not its log time {stamp}")
                frames.add((conn.topic, header.frame_id))
            if conn.msgtype == "tf2_msgs/msg/TFMessage":
                for t in msg.transforms:
                    parents[t.child_frame_id] = t.header.frame_id
            if conn.msgtype == "nav_msgs/msg/Odometry":
                frames.add((conn.topic, msg.child_frame_id))
            if conn.msgtype == "sensor_msgs/msg/Image":
                if msg.step * msg.height != len(msg.data) or msg.height * msg.width == 0:
                    fail(f"{conn.topic}: {msg.width}x{msg.height} step {msg.step}, {len(msg.data)} bytes")
            if conn.msgtype == "sensor_msgs/msg/PointCloud2":
                if msg.point_step * msg.width * msg.height != len(msg.data):
                    fail(f"{conn.topic}: cloud size does not match its data")
            if conn.msgtype == "sensor_msgs/msg/CameraInfo":
                if msg.k[0] <= 0 or msg.k[4] <= 0 or msg.k[8] != 1.0:
                    fail(f"{conn.topic}: K = {list(msg.k)}")
        if total != reader.message_count:
            fail(f"{total} messages read, metadata says {reader.message_count}")
        for c in reader.connections:
            if counts.get(c.topic, 0) != c.msgcount:
                fail(f"{c.topic}: {counts.get(c.topic, 0)} read, metadata says {c.msgcount}")
        latched = [c for c in reader.connections if c.topic == "/tf_static"]
        if not latched or latched[0].ext.offered_qos_profiles[0].durability.name != "TRANSIENT_LOCAL":
            fail("/tf_static is not offered transient local")
    for topic in wanted:
        if counts.get(topic, 0) == 0:
            fail(f"no message on {topic} (topics: {sorted(counts)})")
    for topic, frame in sorted(frames):
        f, seen = frame, set()
        while f != "world":
            if f in seen or f not in parents:
                fail(f"{topic}: frame {frame!r} does not reach world (stuck at {f!r})")
            seen.add(f)
            f = parents[f]
    files = sorted(bag.glob("*.mcap"))
    if len(files) != 1:
        fail(f"expected one MCAP file, found {files}")
    decoded = 0
    with open(files[0], "rb") as fh:
        r = make_reader(fh, decoder_factories=[DecoderFactory()])
        if r.get_header().profile != "ros2":
            fail(f"MCAP profile {r.get_header().profile!r}")
        for schema, channel, message, msg in r.iter_decoded_messages():
            if schema.encoding != "ros2msg" or channel.message_encoding != "cdr":
                fail(f"{channel.topic}: {schema.encoding}/{channel.message_encoding}")
            if schema.name != types[channel.topic]:
                fail(f"{channel.topic}: schema {schema.name}, metadata {types[channel.topic]}")
            decoded += 1
    if decoded != total:
        fail(f"mcap-ros2-support decoded {decoded} of {total}")
    print(f"bag ok: {total} messages on {len(counts)} topics, {len(frames)} (topic, frame) pairs reach world")


if __name__ == "__main__":
    main()
