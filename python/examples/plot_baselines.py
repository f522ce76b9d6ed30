"""Returns of the sensed tasks and the fleet under their baselines, a
zero action and uniformly random actions: the table of docs/python.md and
one figure per environment (the mean cumulative return over the episode,
with the 10–90 % band of the episodes).

    pip install ./python pettingzoo matplotlib
    python python/examples/plot_baselines.py [--episodes 100] [--out docs/img]
"""

from __future__ import annotations

import argparse
import pathlib

import gymnasium
import numpy as np

import oceansim  # noqa: F401  (registers the environments)
from oceansim.baselines import baseline_policy

TASKS = ["TerrainFollow", "SonarAvoid", "Remus100Heading"]
SEED = 10_000


def episodes(env_id: str, k: int, policy: str):
    """One episode per lane: the per-step rewards (k, T) and the ends."""
    vec = gymnasium.make_vec(env_id, num_envs=k, vectorization_mode="vector_entry_point", threads=2)
    law = baseline_policy(vec)
    rng = np.random.default_rng(SEED)
    obs, info = vec.reset(seed=SEED)
    start = info["error_m"].copy()
    steps = vec.unwrapped.max_episode_steps
    rewards = np.zeros((k, steps))
    done = np.zeros(k, dtype=bool)
    success = np.zeros(k, dtype=bool)
    outcome = np.full(k, "", dtype=object)
    for t in range(steps):
        if policy == "baseline":
            a = law(obs)
        elif policy == "zero":
            # Zero in the scheme's units (the normalised space's midpoint
            # is not zero for the REMUS's propeller).
            a = vec.unwrapped._actions.normalize(np.zeros(vec.action_space.shape))
        else:
            a = rng.uniform(-1, 1, vec.action_space.shape)
        obs, r, term, trunc, info = vec.step(a)
        rewards[:, t] = np.where(done, 0.0, r)
        ended = (term | trunc) & ~done
        if ended.any():
            success[ended] = info["final_info"]["is_success"][ended]
            outcome[ended] = info["final_info"]["outcome"][ended]
        done |= ended
        if done.all():
            break
    return rewards, success, outcome, start, vec.unwrapped.dt


def fleet_episodes(n_agents: int, count: int, policy: str):
    from oceansim.marl import fleet_formation_v0 as ff

    out = []
    for e in range(count):
        env = ff.parallel_env(n_agents=n_agents, seed=SEED + e, threads=2,
                              normalized_actions=policy == "random")
        obs, _ = env.reset()
        rng = np.random.default_rng(SEED + e)
        rewards = np.zeros((n_agents, env.max_episode_steps))
        for t in range(env.max_episode_steps):
            if not env.agents:
                break
            if policy == "baseline":
                acts = {a: ff.formation_baseline(obs[a]) for a in env.agents}
            elif policy == "zero":
                acts = {a: np.zeros(3) for a in env.agents}
            else:
                acts = {a: rng.uniform(-1, 1, 3) for a in env.agents}
            obs, rew, *_ = env.step(acts)
            for a, r in rew.items():
                rewards[int(a.split("_")[1]), t] = r
        out.append(rewards)
    return np.concatenate(out), env.dt


def summary(name: str, policy: str, rewards, success=None, outcome=None) -> str:
    ret = rewards.sum(axis=1)
    s = f"| {name} | {policy} | {ret.mean():.2f} ± {ret.std():.2f} [{ret.min():.2f}, {ret.max():.2f}] |"
    if success is not None:
        crash = int(np.isin(outcome, ["seabed", "obstacle", "diverged"]).sum())
        s += f" {success.mean():.0%} ({crash} crashed) |"
    return s


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=100)
    p.add_argument("--fleet-episodes", type=int, default=8)
    p.add_argument("--agents", type=int, default=8)
    p.add_argument("--out", default="docs/img")
    args = p.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    colours = {"baseline": "tab:blue", "zero": "tab:gray", "random": "tab:orange"}
    for task in TASKS + ["fleet"]:
        fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
        for policy in ("baseline", "zero", "random"):
            if task == "fleet":
                rewards, dt = fleet_episodes(args.agents, args.fleet_episodes, policy)
                print(summary(f"fleet_formation_v0 ({args.agents} agents)", policy, rewards))
            else:
                rewards, success, outcome, _, dt = episodes(f"OceanSim/{task}-v0", args.episodes, policy)
                print(summary(task, policy, rewards, success, outcome))
            cum = rewards.cumsum(axis=1)
            t = np.arange(1, cum.shape[1] + 1) * dt
            lo, hi = np.percentile(cum, [10, 90], axis=0)
            ax.fill_between(t, lo, hi, color=colours[policy], alpha=0.2, linewidth=0)
            ax.plot(t, cum.mean(axis=0), color=colours[policy], label=policy)
        title = (f"fleet_formation_v0, {args.agents} agents (per agent)" if task == "fleet"
                 else f"OceanSim/{task}-v0")
        ax.set(title=title, xlabel="time in the episode (s)", ylabel="cumulative return")
        ax.axhline(0.0, color="black", linewidth=0.5)
        ax.legend(loc="upper left", frameon=False)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        name = "marl_fleet_formation" if task == "fleet" else f"gym_{task.lower()}"
        fig.savefig(out / f"{name}.png")
        plt.close(fig)


if __name__ == "__main__":
    main()
