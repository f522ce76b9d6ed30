"""Scale out on Ray: each task runs a vector environment of 256 worlds
in its own process (on this machine or any node of a Ray cluster) and
returns the per-world returns of a random policy; or, with ``--fleet N``,
one multi-agent fleet episode of N vehicles per task.

    pip install "oceansim[ray]"            # or the built wheel plus ray
    python python/examples/ray_rollouts.py --tasks 8 --num-envs 256
    python python/examples/ray_rollouts.py --env OceanSim/SonarAvoid-v0 --num-envs 64
    python python/examples/ray_rollouts.py --fleet 16 --tasks 4   # needs pettingzoo

With RLlib, register the environment the same way and point the env
runners at it: ``tune.register_env("ocean", lambda cfg:
gymnasium.make("oceansim:OceanSim/WaypointNav-v0", **cfg))`` (the
``oceansim:`` prefix imports the package in the runner processes).
"""

import argparse
import time

import numpy as np
import ray

from oceansim.gym import TASKS, random_rollout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=4, help="Ray tasks (one vector env each)")
    p.add_argument("--num-envs", type=int, default=256, help="worlds per task")
    p.add_argument("--steps", type=int, default=200, help="steps per world")
    p.add_argument("--env", default="OceanSim/WaypointNav-v0",
                   choices=[f"OceanSim/{t}-v0" for t in TASKS], help="the vector environment")
    p.add_argument("--fleet", type=int, default=0, metavar="N",
                   help="run fleet_formation_v0 episodes of N agents instead (pettingzoo)")
    p.add_argument("--address", default=None, help="Ray cluster address (default: start locally)")
    args = p.parse_args()
    ray.init(address=args.address, include_dashboard=False)
    start = time.perf_counter()
    if args.fleet:
        from oceansim.marl.fleet_formation_v0 import fleet_rollout

        rollout = ray.remote(num_cpus=1)(fleet_rollout)
        returns = ray.get([rollout.remote(seed=s, n_agents=args.fleet, steps=args.steps)
                           for s in range(args.tasks)])
        steps, unit = args.tasks * args.fleet * args.steps, "agent-steps"
    else:
        rollout = ray.remote(num_cpus=1)(random_rollout)
        returns = ray.get([rollout.remote(env_id=args.env, seed=s, num_envs=args.num_envs,
                                          steps=args.steps) for s in range(args.tasks)])
        steps, unit = args.tasks * args.num_envs * args.steps, "env-steps"
    elapsed = time.perf_counter() - start
    print(f"{steps:,} {unit} on {int(ray.cluster_resources().get('CPU', 0))} CPUs "
          f"in {elapsed:.1f} s: {steps / elapsed:,.0f} {unit}/s")
    print(f"mean return of a random policy: {np.mean(np.concatenate(returns)):.2f}")
    ray.shutdown()


if __name__ == "__main__":
    main()
