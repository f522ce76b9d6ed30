"""Round trips per second through the Python SDK, side by side with a plain
Python socket and ``json.loads`` on the same server.

    cargo build --release -p oceansim-server
    python python/bench/rtt.py [--rounds 40] [--calls 50] [--server target/release/oceansim]

One ``oceansim serve --paused`` (default scenario, its ten sensors); every
kind of call has its own connection, and the kinds take turns in rounds so
that the machine's drift lands on all of them alike. Compared:

* ``get_map_info``: ``OceanSimClient.send_command`` against the plain socket
  (target >= 0.9x);
* ``step`` (a world force): ``OceanSimClient.send_command`` against the plain
  socket (target >= 0.9x), and ``AUV.step`` (the Gym-style step, observation
  with its frame conversions) against the same plain socket (target >= 0.85x);
* a lockstep batch: 16 proxy agents' velocities and the AUV's ``step`` in
  one ``batch`` line, ``OceanSimClient.send_batch`` against the plain socket
  (on a second server, so the others keep the default scene);
* the in-process ``oceansim.Simulation``'s ``step`` request, no socket.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import socket
import subprocess
import time

import oceansim

REPO = pathlib.Path(__file__).resolve().parents[2]


class Plain:
    """A plain socket: writes one request line, reads one reply line and
    parses it with ``json.loads`` (what a hand-written client does)."""

    def __init__(self, port: int, action: str, data: dict | None, requests: list | None = None):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb", buffering=1 << 16)
        self.action, self.data, self.requests, self.n = action, data, requests, 0

    def call(self) -> dict:
        self.n += 1
        if self.requests is not None:
            msg = {"type": "batch", "protocol_version": 2, "request_id": f"p{self.n}",
                   "requests": [dict(r, protocol_version=2, request_id=i)
                                for i, r in enumerate(self.requests)]}
        else:
            msg = {"type": "command", "action": self.action, "protocol_version": 2,
                   "request_id": f"p{self.n}"}
        if self.data is not None:
            msg["data"] = self.data
        self.sock.sendall((json.dumps(msg) + "\n").encode())
        reply = json.loads(self.file.readline())
        assert reply["status"] == "ok", reply
        return reply


def start_server(binary: pathlib.Path) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([str(binary), "serve", "--port", "0", "--paused", "--log-level", "warn"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    assert line.startswith("listening on "), f"server said {line!r}"
    return proc, int(line.strip().rsplit(":", 1)[1])


def spawn_proxies(auv: "oceansim.AUV", n: int) -> list[str]:
    """Spawns ``n`` proxy agents around the AUV (skipping blocked spots)."""
    x, y, z = auv.get_state().position_godot_xyz
    names, k = [], 0
    while len(names) < n and k < 20 * n:
        k += 1
        dx, dz = 4.0 * (k % 7 - 3), 4.0 * (k // 7 % 7 - 3)
        try:
            auv.spawn_agent({"agent_name": f"p{k}", "location": [x + dx, y, z + dz], "size_m": 1.0})
            names.append(f"p{k}")
        except oceansim.OceanSimProtocolError:
            continue
    assert len(names) == n, f"only {len(names)} proxies fit"
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--calls", type=int, default=50, help="calls per kind per round")
    ap.add_argument("--server", type=pathlib.Path,
                    default=pathlib.Path(os.environ.get("OCEANSIM_SERVER_BIN",
                                                        REPO / "target" / "release" / "oceansim")))
    args = ap.parse_args()
    proc, port = start_server(args.server)
    proc2, port2 = start_server(args.server)
    try:
        force = {"force": [0.0, 20.0, 0.0]}
        map_client = oceansim.OceanSimClient(port=port)
        step_client = oceansim.OceanSimClient(port=port)
        auv = oceansim.AUV(port=port)
        for c in (map_client, step_client):
            assert c.connect(retry=False)
        assert auv.connect()
        sim = oceansim.Simulation(seed=0)
        fleet = oceansim.AUV(port=port2)
        assert fleet.connect()
        proxies = spawn_proxies(fleet, 16)
        lockstep = [{"type": "command", "action": "set_agent_velocity",
                     "data": {"id": p, "velocity": [0.1, 0.0, 0.0]}} for p in proxies]
        lockstep.append({"type": "command", "action": "step", "data": force})
        batch_client = oceansim.OceanSimClient(port=port2)
        assert batch_client.connect(retry=False)
        step_msg = {"type": "command", "action": "step", "protocol_version": 2, "request_id": 1,
                    "data": force}
        kinds = {
            "get_map_info, plain socket": Plain(port, "get_map_info", None).call,
            "get_map_info, send_command": lambda: map_client.send_command("get_map_info"),
            "step, plain socket": Plain(port, "step", force).call,
            "step, send_command": lambda: step_client.send_command("step", force),
            "step, AUV.step": lambda: auv.step([0.0, 20.0, 0.0]),
            "batch of 17, plain socket": Plain(port2, "", None, lockstep).call,
            "batch of 17, send_batch": lambda: batch_client.send_batch(lockstep),
            "step, Simulation in process": lambda: sim.request(step_msg),
        }
        secs = dict.fromkeys(kinds, 0.0)
        for r in range(args.rounds + 1):  # the first round warms up
            for name, call in kinds.items():
                t = time.perf_counter()
                for _ in range(args.calls):
                    call()
                if r > 0:
                    secs[name] += time.perf_counter() - t
        n = args.rounds * args.calls
        rate = {k: n / s for k, s in secs.items()}
        print(f"oceansim Python SDK round trips: {n} calls per kind, interleaved, "
              f"server {args.server} on port {port} (paused, default scenario)")
        targets = {"get_map_info, send_command": ("get_map_info, plain socket", 0.9),
                   "step, send_command": ("step, plain socket", 0.9),
                   "step, AUV.step": ("step, plain socket", 0.85),
                   "batch of 17, send_batch": ("batch of 17, plain socket", None)}
        for name, r in rate.items():
            line = f"  {name:30} {r:9.0f} calls/s  {1e6 / r:7.1f} us"
            if name in targets:
                base, want = targets[name]
                line += f"   {r / rate[base]:.2f}x the plain socket"
                if want is not None:
                    line += f" (target >= {want}x)"
            print(line)
    finally:
        for p in (proc, proc2):
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
