#!/usr/bin/env python3
"""Drive the headless OceanSim server from plain Python (standard library only).

Connects, reads the AUV state, drives a 6 m square with `step` (world-frame
forces from a small PD controller), spawns a proxy AUV, moves it with an
external velocity and prints `get_agents`. It leaves the server as it found
it (the proxy removed, the clock running again if it was), so it can be run
any number of times against one server.

    cargo run --release -p oceansim-server -- serve &
    python3 examples/python/oceansim_demo.py            # 127.0.0.1:9876
    python3 examples/python/oceansim_demo.py --port 40123
"""

import argparse
import itertools
import json
import math
import socket
import sys


class Client:
    """A minimal protocol v2 client: one JSON object per line."""

    def __init__(self, host, port, timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("r", encoding="utf-8")
        self.ids = itertools.count(1)

    def request(self, msg_type, action, data=None):
        request_id = next(self.ids)
        msg = {"type": msg_type, "protocol_version": 2, "request_id": request_id, "action": action}
        if data is not None:
            msg["data"] = data
        self.sock.sendall((json.dumps(msg) + "\n").encode("utf-8"))
        reply = json.loads(self.reader.readline())
        if reply.get("request_id") != request_id:
            raise RuntimeError(f"mismatched reply: {reply}")
        if not reply.get("success"):
            raise RuntimeError(f"{action} failed: {reply.get('error_code')}: {reply.get('message')}")
        return reply

    def command(self, action, data=None):
        return self.request("command", action, data)

    def sim_control(self, action, data=None):
        return self.request("sim_control", action, data)

    def close(self):
        self.sock.close()


def fmt(v):
    return "[" + ", ".join(f"{x:7.2f}" for x in v) + "]"


def drive_to(client, target, tolerance=0.4, max_steps=400):
    """World-frame PD on x/y (east/north) and depth hold, one `step` per 0.1 s."""
    kp, kd, limit = 12.0, 25.0, 40.0
    state = None
    for _ in range(max_steps):
        state = state or client.command("get_state")["data"]
        p, v = state["position"], state["velocity"]
        err = [target[0] - p[0], target[1] - p[1], target[2] - p[2]]
        if math.hypot(err[0], err[1]) < tolerance:
            break
        force = [max(-limit, min(limit, kp * e - kd * dv)) for e, dv in zip(err, v)]
        state = client.command("step", {"force": force})["data"]
    return state


def demo(client):
    client.sim_control("pause")  # lockstep: the square is driven with `step`
    state = client.command("get_state")["data"]
    print(f"AUV at {fmt(state['position'])} (x east, y north, z up), depth {state['depth']:.2f} m, "
          f"heading {state['heading_deg']:.1f} deg, t = {state['sim_time']:.2f} s")
    print(f"sensors: {', '.join(sorted(state['sensors']))}")

    x0, y0, z0 = state["position"]
    corners = [(x0 + 6, y0, z0), (x0 + 6, y0 + 6, z0), (x0, y0 + 6, z0), (x0, y0, z0)]
    for i, corner in enumerate(corners, 1):
        state = drive_to(client, corner)
        print(f"corner {i}: reached {fmt(state['position'])} at t = {state['sim_time']:6.1f} s")

    # A run interrupted before its clean-up may have left its target behind.
    if any(a["id"] == "target_01" for a in client.command("get_agents")["data"]["agents"]):
        client.command("remove_agent", {"id": "target_01"})
    client.command("spawn_agent", {
        "agent_name": "target_01", "agent_type": "proxy_auv", "is_main_agent": False,
        # Godot coordinates (Y up): user [x, y, z] is Godot [x, z, -y]; 1 m deeper than the AUV.
        "location": [x0 + 4.0, z0 - 1.0, -y0], "control_scheme": "external_velocity",
        "metadata": {"role": "moving_target"},
    })
    client.command("set_agent_velocity", {"id": "target_01", "velocity": [0.2, 0.0, -0.1]})
    for _ in range(20):
        client.command("step")
    agents = client.command("get_agents")["data"]["agents"]
    print(f"get_agents: {len(agents)} agents")
    for a in agents:
        print(f"  {a['id']:<10} {a['agent_type']:<9} mode {a['mode']:<17} position {fmt(a['position'])} "
              f"speed {a['speed']:.2f} m/s scheme {a['control_scheme']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9876)
    args = parser.parse_args()

    client = Client(args.host, args.port)
    was_paused = client.command("get_state")["data"]["paused"]
    try:
        demo(client)
    finally:
        # Leave the server as we found it: no demo agent, clock as it was.
        if any(a["id"] == "target_01" for a in client.command("get_agents")["data"]["agents"]):
            client.command("remove_agent", {"id": "target_01"})
        if not was_paused:
            client.sim_control("resume")
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
