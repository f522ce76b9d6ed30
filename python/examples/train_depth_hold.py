"""Train PPO on OceanSim/DepthHold-v0 with sbx (Stable-Baselines3's JAX
port) or Stable-Baselines3, on the native vector environment through
``oceansim.sb3.SB3VecEnv``; then score it against a random policy and the
PD baseline (``oceansim.baselines``) on the same 100 seeded episodes.

    pip install "./python[gym]" sbx-rl matplotlib    # or stable-baselines3
    python python/examples/train_depth_hold.py --steps 1000000 --plot docs/img/depth_hold_ppo.svg

About 30 s for the default 300,000 steps, a minute and a half for
1,000,000, on 2 cores with sbx (16 lanes, normalised actions and observations).
Prints the three scores (mean ± std of the episode return, and the share
of episodes that end within 0.5 m of the target) and writes the learning
curve (mean return of the last 100 training episodes after each update,
against environment steps) as CSV and, with matplotlib, a plot. Results
and the plot of the 1,000,000-step run: docs/python.md.
"""

from __future__ import annotations

import argparse
import csv
import time

import gymnasium
import numpy as np

import oceansim  # noqa: F401  (registers the environments)
from oceansim.baselines import baseline_policy
from oceansim.sb3 import SB3VecEnv

ENV_ID = "OceanSim/DepthHold-v0"
ENV_KWARGS = {"normalized_observations": True}  # --raw-observations: {}


def score(policy, episodes: int, seed: int) -> tuple:
    """Returns and final successes of one episode per lane (300 steps)."""
    env = gymnasium.make_vec(ENV_ID, num_envs=episodes, vectorization_mode="vector_entry_point",
                             threads=1, **ENV_KWARGS)
    obs, _ = env.reset(seed=seed)
    ret, done = np.zeros(episodes), np.zeros(episodes, dtype=bool)
    success = np.zeros(episodes, dtype=bool)
    while not done.all():
        obs, r, term, trunc, info = env.step(policy(obs, env))
        ret += np.where(done, 0.0, r)
        ended = (term | trunc) & ~done
        if ended.any():
            # The ended episodes' last info; the top level is the new ones'.
            success[ended] = info["final_info"]["is_success"][ended]
        done |= ended
    return ret, success


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--algo", choices=["sbx", "sb3"], default="sbx")
    p.add_argument("--steps", type=int, default=300_000, help="environment steps of training")
    p.add_argument("--num-envs", type=int, default=16, help="lanes of the training vector env")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--episodes", type=int, default=100, help="evaluation episodes per policy")
    p.add_argument("--csv", default="depth_hold_ppo.csv", help="learning curve (steps, mean return)")
    p.add_argument("--plot", default=None, help="learning curve plot (.svg or .png; needs matplotlib)")
    p.add_argument("--raw-observations", action="store_true",
                   help="the environment's default observations, in their units")
    args = p.parse_args()
    if args.raw_observations:
        ENV_KWARGS.clear()
    if args.algo == "sbx":
        from sbx import PPO
    else:
        from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    venv = VecMonitor(SB3VecEnv.make(ENV_ID, num_envs=args.num_envs, threads=1, **ENV_KWARGS))
    curve = []

    class Curve(BaseCallback):
        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            if self.model.ep_info_buffer:
                curve.append((self.num_timesteps,
                              float(np.mean([e["r"] for e in self.model.ep_info_buffer]))))

    # 2,048 steps per update (16 lanes x 128), SB3's other defaults.
    model = PPO("MlpPolicy", venv, n_steps=2048 // args.num_envs, batch_size=256, seed=args.seed,
                verbose=0)
    start = time.perf_counter()
    model.learn(args.steps, callback=Curve())
    took = time.perf_counter() - start

    rng = np.random.default_rng(args.seed)
    seed = 10_000 + args.seed  # evaluation episodes, not those of training
    results = {
        "random": score(lambda o, e: rng.uniform(-1, 1, e.action_space.shape), args.episodes, seed),
        "PD baseline": score(lambda o, e: baseline_policy(e)(o), args.episodes, seed),
        "PPO": score(lambda o, e: model.predict(o, deterministic=True)[0], args.episodes, seed),
    }
    print(f"PPO ({args.algo}) on {ENV_ID}: {args.steps:,} steps in {took:.0f} s "
          f"({args.steps / took:,.0f} env-steps/s with updates)")
    print(f"{'policy':<12} {'return (mean ± std)':>22} {'within 0.5 m at the end':>24}")
    for name, (ret, ok) in results.items():
        print(f"{name:<12} {ret.mean():>13.2f} ± {ret.std():<6.2f} {ok.mean():>23.0%}")
    with open(args.csv, "w", newline="") as f:
        csv.writer(f).writerows([("steps", "mean_return")] + curve)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.rcParams["svg.hashsalt"] = "oceansim"  # the same file for the same curve

        fig, ax = plt.subplots(figsize=(6, 3.6))
        if curve:
            ax.plot(*zip(*curve), label=f"PPO ({args.algo}), training episodes")
        for name, style in (("random", ":"), ("PD baseline", "--")):
            ax.axhline(results[name][0].mean(), linestyle=style, color="grey", label=name)
        ax.axhline(results["PPO"][0].mean(), linestyle="-.", color="C0", label="PPO, evaluated")
        ax.set_xlabel("environment steps")
        ax.set_ylabel("episode return")
        ax.set_title(f"{ENV_ID}, {args.num_envs} lanes, seed {args.seed}")
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, metadata={"Date": None} if args.plot.endswith(".svg") else None)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
