"""Environment steps per second: the in-process vector environment at
K = 1, 64 and 1024 worlds against the same task over TCP.

    cargo build --release -p oceansim-server       # the TCP side's server
    python python/bench/env_steps.py [--seconds 3] [--server target/release/oceansim]

WaypointNav with world-frame force actions (force_3d), dt = 0.1 s, tick
0.01 s. In process: WaypointNav's lanes carry no sensors (the sensed
tasks' cost is measured by `sensed_env_steps.py`). Over TCP: one `step` request per environment step to `oceansim
serve --paused` (whose always-on sensors run, as they do for every TCP
user), the observation built from the reply; K worlds over TCP are K
servers, one client thread each, so the TCP column is measured with as
many servers as there are cores (more only queue for the same cores).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import threading
import time

import gymnasium
import numpy as np

import oceansim

REPO = pathlib.Path(__file__).resolve().parents[2]


def in_process(k: int, seconds: float, threads: int) -> float:
    env = gymnasium.make_vec("OceanSim/WaypointNav-v0", num_envs=k, vectorization_mode="vector_entry_point",
                             threads=threads, control_scheme="force_3d")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [rng.uniform(env.action_space.low, env.action_space.high) for _ in range(8)]
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for a in actions:
            env.step(a)
        steps += len(actions)
    return steps * k / (time.perf_counter() - start)


class TcpWaypointNav:
    """The same task over TCP: one `step` request per environment step."""

    def __init__(self, port: int):
        self.auv = oceansim.AUV(port=port)
        assert self.auv.connect(max_retries=50, retry_interval=0.1)
        self.goal = np.array([5.0, -5.0, -8.0])

    def step(self, action) -> tuple:
        s, _, _, _ = self.auv.step(action)
        rel = self.goal - s.position
        obs = np.concatenate([rel, s.velocity, [s.depth, np.linalg.norm(rel)]]).astype(np.float32)
        return obs, -float(np.linalg.norm(rel))


def start_server(binary: str) -> tuple:
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--paused", "--log-level", "error"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(proc.stdout.readline().strip().rsplit(":", 1)[1])
    return proc, port


def over_tcp(k: int, seconds: float, binary: str) -> float:
    servers = [start_server(binary) for _ in range(k)]
    try:
        envs = [TcpWaypointNav(port) for _, port in servers]
        counts = [0] * k
        stop = time.perf_counter() + seconds

        def run(i: int) -> None:
            a = [0.0, -20.0, 0.0]
            while time.perf_counter() < stop:
                envs[i].step(a)
                counts[i] += 1

        start = time.perf_counter()
        threads = [threading.Thread(target=run, args=(i,)) for i in range(k)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return sum(counts) / (time.perf_counter() - start)
    finally:
        for proc, _ in servers:
            proc.kill()
            proc.wait()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=3.0, help="measuring time per row (s)")
    p.add_argument("--server", default=str(REPO / "target" / "release" / "oceansim"),
                   help="oceansim binary for the TCP side")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads of the vector env")
    args = p.parse_args()
    cores = os.cpu_count() or 1
    tcp = {1: over_tcp(1, args.seconds, args.server)}
    tcp_many = over_tcp(cores, args.seconds, args.server) if cores > 1 else tcp[1]
    print(f"{'K':>6} {'in process':>14} {'over TCP':>14} {'ratio':>8}")
    for k in (1, 64, 1024):
        rate = in_process(k, args.seconds, args.threads)
        t = tcp[1] if k == 1 else tcp_many
        note = "" if k == 1 else f"  (TCP: {cores} servers, one per core)"
        print(f"{k:>6} {rate:>14,.0f} {t:>14,.0f} {rate / t:>7.1f}x{note}")


if __name__ == "__main__":
    main()
