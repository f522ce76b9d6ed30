"""Env-steps per second that Stable-Baselines3 sees: the native vector
environment through ``oceansim.sb3.SB3VecEnv`` against SB3's own
``DummyVecEnv`` of as many single environments (DepthHold, K = 16,
uniformly random normalised actions, stepping only: no policy, no update).

    pip install "./python[gym]" stable-baselines3
    python python/bench/sb3_vec_env.py [--num-envs 16] [--steps 2000]
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

import oceansim  # noqa: F401  (registers the environments)
from oceansim.sb3 import SB3VecEnv

ENV_ID = "OceanSim/DepthHold-v0"


def rate(venv, k: int, steps: int) -> float:
    venv.seed(0)
    venv.reset()
    actions = np.random.default_rng(0).uniform(-1, 1, (steps, k, 3)).astype(np.float32)
    start = time.perf_counter()
    for a in actions:
        venv.step(a)
    return steps * k / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--steps", type=int, default=2000, help="vector steps per measurement")
    args = p.parse_args()
    k = args.num_envs
    native = SB3VecEnv.make(ENV_ID, num_envs=k, threads=1)
    dummy = DummyVecEnv([lambda: gymnasium.make(ENV_ID) for _ in range(k)])
    for _ in range(2):  # the first round warms up
        a, b = rate(native, k, args.steps), rate(dummy, k, args.steps)
    print(f"K = {k}: SB3VecEnv {a:,.0f} env-steps/s, DummyVecEnv {b:,.0f} env-steps/s ({a / b:.1f}x)")


if __name__ == "__main__":
    main()
