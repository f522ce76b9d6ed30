"""Scale out on Ray: each task runs a vector environment of 256 worlds
in its own process (on this machine or any node of a Ray cluster) and
returns the per-world returns of a random policy.

    pip install "oceansim[ray]"            # or the built wheel plus ray
    python python/examples/ray_rollouts.py --tasks 8 --num-envs 256

With RLlib, register the environment the same way and point the env
runners at it: ``tune.register_env("ocean", lambda cfg:
gymnasium.make("oceansim:OceanSim/WaypointNav-v0", **cfg))`` (the
``oceansim:`` prefix imports the package in the runner processes).
"""

import argparse
import time

import numpy as np
import ray

from oceansim.gym import random_rollout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=4, help="Ray tasks (one vector env each)")
    p.add_argument("--num-envs", type=int, default=256, help="worlds per task")
    p.add_argument("--steps", type=int, default=200, help="steps per world")
    p.add_argument("--address", default=None, help="Ray cluster address (default: start locally)")
    args = p.parse_args()
    ray.init(address=args.address, include_dashboard=False)
    rollout = ray.remote(num_cpus=1)(random_rollout)
    start = time.perf_counter()
    returns = ray.get([rollout.remote(seed=s, num_envs=args.num_envs, steps=args.steps)
                       for s in range(args.tasks)])
    elapsed = time.perf_counter() - start
    steps = args.tasks * args.num_envs * args.steps
    print(f"{steps:,} env-steps on {int(ray.cluster_resources().get('CPU', 0))} CPUs "
          f"in {elapsed:.1f} s: {steps / elapsed:,.0f} env-steps/s")
    print(f"mean return of a random policy: {np.mean(np.concatenate(returns)):.2f}")
    ray.shutdown()


if __name__ == "__main__":
    main()
