#!/usr/bin/env python3
"""Cross-check oceansim-ros2 against independent ROS 2 implementations.

Usage: check_cdr.py DIR

DIR holds, for each message type T (its name with '/' replaced by '__'):
  T.cdr   the CDR payload oceansim-ros2 wrote (header included)
  T.json  the values it was made from (field names as in the .msg file)
  T.msg   oceansim-ros2's ros2msg definition of T
  T.hash  oceansim-ros2's RIHS01 type hash of T

Checks, per type, with rosbags (ROS 2 Jazzy type store) and mcap-ros2-support:
  1. rosbags decodes T.cdr to the values in T.json;
  2. rosbags re-encodes those values to the very same bytes;
  3. rosbags' RIHS01 hash of its own Jazzy definition of T equals T.hash;
  4. rosbags parses T.msg into the same fields and constants as its Jazzy T;
  5. mcap_ros2 builds a decoder from T.msg that decodes T.cdr to T.json's
     values, and its encoder, built from T.msg too, writes the same bytes.

Needs: pip install rosbags mcap-ros2-support
"""

import array
import dataclasses
import json
import sys
from pathlib import Path

from mcap_ros2._dynamic import generate_dynamic, serialize_dynamic
from rosbags.typesys import Stores, get_types_from_msg, get_typestore


def plain(value):
    """Decoded message (rosbags dataclass or mcap_ros2 object) as JSON-like data."""
    if dataclasses.is_dataclass(value):
        # ROS field names are lower case, constants upper case; __msgtype__
        # is the type name.
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.name != "__msgtype__" and not f.name.isupper()}
    if hasattr(value, "__slots__") and not isinstance(value, (str, bytes)):
        return {k: plain(getattr(value, k)) for k in value.__slots__}
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return plain(value.tolist())
    if isinstance(value, (bytes, bytearray, array.array)):
        return list(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def diff(expected, actual, path="msg"):
    """First difference between two JSON-like values, or None."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or list(expected) != list(actual):
            return f"{path}: fields {list(expected)} != {actual if not isinstance(actual, dict) else list(actual)}"
        for k in expected:
            d = diff(expected[k], actual[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            return f"{path}: {expected!r} != {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            d = diff(e, a, f"{path}[{i}]")
            if d:
                return d
        return None
    # bool is an int in Python: compare type-aware for bools.
    if isinstance(expected, bool) or isinstance(actual, bool):
        ok = bool(expected) == bool(actual) and expected in (0, 1) and actual in (0, 1)
    else:
        ok = expected == actual
    return None if ok else f"{path}: expected {expected!r}, got {actual!r}"


def normalize_fields(fielddefs):
    """rosbags field definitions with nested names in one spelling."""
    consts, fields = fielddefs
    return [tuple(c) for c in consts], [(n, repr(d)) for n, d in fields]


def check(store, directory, stem):
    name = stem.replace("__", "/")
    data = (directory / f"{stem}.cdr").read_bytes()
    expected = json.loads((directory / f"{stem}.json").read_text())
    definition = (directory / f"{stem}.msg").read_text()
    our_hash = (directory / f"{stem}.hash").read_text().strip()
    problems = []

    msg = store.deserialize_cdr(data, name)
    d = diff(expected, plain(msg))
    if d:
        problems.append(f"rosbags decode: {d}")
    again = store.serialize_cdr(msg, name)
    if bytes(again) != data:
        problems.append(f"rosbags re-encode: {bytes(again).hex()} != {data.hex()}")

    theirs = store.hash_rihs01(name)
    if theirs != our_hash:
        problems.append(f"hash: rosbags {theirs}, ours {our_hash}")

    parsed = get_types_from_msg(definition, name)
    for typ, fielddefs in parsed.items():
        if typ not in store.fielddefs:
            problems.append(f"definition names unknown type {typ}")
        elif normalize_fields(fielddefs) != normalize_fields(store.fielddefs[typ]):
            problems.append(f"definition of {typ}: {fielddefs} != {store.fielddefs[typ]}")

    decoded = generate_dynamic(name, definition)[name](data)
    d = diff(expected, plain(decoded))
    if d:
        problems.append(f"mcap_ros2 decode: {d}")
    encoded = serialize_dynamic(name, definition)[name](decoded)
    if bytes(encoded) != data:
        problems.append(f"mcap_ros2 encode: {bytes(encoded).hex()} != {data.hex()}")
    return name, problems


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = Path(sys.argv[1])
    store = get_typestore(Stores.ROS2_JAZZY)
    stems = sorted(p.stem for p in directory.glob("*.cdr"))
    if not stems:
        sys.exit(f"no .cdr files in {directory}")
    failed = 0
    for stem in stems:
        try:
            name, problems = check(store, directory, stem)
        except Exception as e:  # a crash in one type is that type's failure
            name, problems = stem.replace("__", "/"), [f"{type(e).__name__}: {e}"]
        if problems:
            failed += 1
            print(f"FAIL {name}")
            for p in problems:
                print(f"    {p}")
        else:
            print(f"ok   {name}")
    print(f"{len(stems) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
