"""Environment steps per second with the vehicle's senses in the lanes,
side by side with the sensorless lanes, and the fleet's agent-steps.

    pip install ./python pettingzoo      # a release build of the wheel
    python python/bench/sensed_env_steps.py [--k 1024] [--rounds 3] [--seconds 2]

Rows, each measured in every round, the rounds interleaved so that one
row's slow moment is every row's: the sensorless WaypointNav lanes (the
baseline), the same lanes carrying depth, IMU and DVL (the sensors'
cost alone), TerrainFollow with the depth sensor riding along (its own
DVL and IMU; its vehicles fly 2.5–5 m over the seabed, where contacts
cost more), SonarAvoid's 64-beam imaging sonar, and the 16-agent fleet
(agent-steps/s through PettingZoo's parallel API, dict per step and all).
Uniform random actions from a fixed set; dt 0.1 s, tick 0.01 s.
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium
import numpy as np

import oceansim  # noqa: F401  (registers the environments)

ROWS = [
    ("no sensors (WaypointNav)", "OceanSim/WaypointNav-v0", {}),
    ("depth + IMU + DVL (WaypointNav)", "OceanSim/WaypointNav-v0",
     {"extra_sensors": ["depth", "imu", "dvl"]}),
    ("depth + IMU + DVL (TerrainFollow)", "OceanSim/TerrainFollow-v0", {"extra_sensors": ["depth"]}),
    ("64-beam imaging sonar (SonarAvoid)", "OceanSim/SonarAvoid-v0", {}),
]


def vector_rate(env_id: str, kwargs: dict, k: int, seconds: float, threads: int) -> float:
    env = gymnasium.make_vec(env_id, num_envs=k, vectorization_mode="vector_entry_point",
                             threads=threads, **kwargs)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [rng.uniform(-1, 1, env.action_space.shape).astype(np.float32) for _ in range(8)]
    env.step(actions[0])
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for a in actions:
            env.step(a)
        steps += len(actions)
    return steps * k / (time.perf_counter() - start)


def fleet_rate(n: int, seconds: float, threads: int) -> float:
    from oceansim.marl import fleet_formation_v0

    env = fleet_formation_v0.parallel_env(n_agents=n, seed=0, threads=threads,
                                          max_episode_steps=10**6)
    env.reset()
    rng = np.random.default_rng(0)
    sets = [{a: rng.uniform(-1, 1, 3) for a in env.possible_agents} for _ in range(8)]
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for acts in sets:
            if not env.agents:
                env.reset()
            env.step({a: acts[a] for a in env.agents})
            steps += 1
    return steps * n / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--k", type=int, default=1024, help="lanes of the vector environments")
    p.add_argument("--agents", type=int, default=16, help="agents of the fleet")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.0, help="measuring time per row and round (s)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    names = [r[0] for r in ROWS] + [f"fleet, {args.agents} agents (agent-steps/s)"]
    rates = {name: [] for name in names}
    for _ in range(args.rounds):
        for name, env_id, kw in ROWS:
            rates[name].append(vector_rate(env_id, kw, args.k, args.seconds, args.threads))
        rates[names[-1]].append(fleet_rate(args.agents, args.seconds, args.threads))
    base = np.median(rates[names[0]])
    print(f"K = {args.k}, {args.threads} threads, {args.rounds} rounds of {args.seconds} s (median, min..max)")
    print(f"{'row':<40} {'steps/s':>12} {'range':>22} {'vs sensorless':>14}")
    for name in names:
        r = rates[name]
        m = float(np.median(r))
        print(f"{name:<40} {m:>12,.0f} {min(r):>10,.0f}..{max(r):<10,.0f} {m / base:>13.3f}x")


if __name__ == "__main__":
    main()
