"""Gymnasium environments on the in-process batched simulator.

Registered on ``import oceansim``: ``OceanSim/WaypointNav-v0`` and
``OceanSim/DepthHold-v0``. In a process that has not imported ``oceansim``
(an RLlib env runner, say), ``gymnasium.make("oceansim:OceanSim/WaypointNav-v0")``
imports it first.

* ``gymnasium.make("OceanSim/WaypointNav-v0")``: one episode at a time.
* ``gymnasium.make_vec("OceanSim/WaypointNav-v0", num_envs=1024,
  vectorization_mode="vector_entry_point", threads=2)``: ``K`` episodes
  stepped in one call into Rust, split across threads, with autoreset in
  the same step (``info["final_obs"]`` holds the last observation of the
  episodes that ended). Deterministic for a seed whatever the threads.

Keyword arguments of both: ``scenario``, ``map_seed`` (terrain and
obstacles, shared by every episode), ``profile``, ``control_scheme`` (any
scheme that drives a vehicle: ``force_3d``, ``body_force_3d``,
``thrusters``, ``waypoint_pid``, ``body_wrench_6dof``,
``body_velocity_6dof``), ``dt`` (control period, s), ``tick`` (physics tick,
s), ``max_episode_steps``, ``normalized_actions`` (default ``True``: the
action space is [-1, 1] per value, mapped linearly onto the scheme's bounds;
``False`` takes the scheme's own units), ``normalized_observations``
(default ``False``: observations in their units within finite bounds;
``True`` divides each by its scale and clips to [-1, 1]). Observations,
rewards, terminations and ``info`` (``outcome``, ``error_m``,
``is_success``) are documented in ``docs/python.md``; actions outside the
bounds are clipped, non-finite or misshapen actions raise the SDK's
exceptions. ``oceansim.sb3.SB3VecEnv`` hands a vector environment to
Stable-Baselines3 or sbx.
"""

from __future__ import annotations

import operator
from typing import Any, Dict, Optional

import numpy as np

from . import _native
from .errors import OceanSimActionShapeError

try:
    import gymnasium
except ImportError:  # pragma: no cover - gymnasium is optional
    gymnasium = None  # type: ignore[assignment]
else:
    # AutoresetMode: Gymnasium >= 1.1 (the wheel's `gym` extra pins it).
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

TASKS = {"WaypointNav": "waypoint_nav", "DepthHold": "depth_hold"}
# Episode lengths (steps): Gymnasium's TimeLimit for single environments,
# the native limit for vector ones.
MAX_EPISODE_STEPS = {"WaypointNav": 600, "DepthHold": 300}


class _Actions:
    """The action space, in the scheme's units or normalised to [-1, 1]."""

    def __init__(self, native: "_native.NativeVecEnv", normalized: bool):
        low, high = native.action_bounds()
        self.mid, self.half = (high + low) / 2.0, (high - low) / 2.0
        self.normalized = bool(normalized)
        self.k, self.n = native.num_envs, native.action_len
        if self.normalized:
            self.space = spaces.Box(-1.0, 1.0, shape=(self.n,), dtype=np.float32)
        else:
            self.space = spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)

    def __call__(self, action: Any, shape: tuple) -> np.ndarray:
        # No copy here: the native step copies the values before it lets
        # go of the interpreter.
        a = np.asarray(action, dtype=np.float64)
        if a.shape != shape:
            raise OceanSimActionShapeError(
                f"actions must have shape {shape}, got {a.shape}",
                error_code="invalid_action_shape")
        a = a.reshape(self.k, self.n)
        return self.mid + self.half * a if self.normalized else a


class _Observations:
    """The observation space: the task's units within their (finite)
    bounds, or each value over its scale, clipped to [-1, 1]."""

    def __init__(self, native: "_native.NativeVecEnv", normalized: bool):
        self.normalized = bool(normalized)
        self.low, self.high = native.observation_bounds()
        self.scale = native.observation_scales()
        if self.normalized:
            self.space = spaces.Box(-1.0, 1.0, shape=(native.observation_len,), dtype=np.float32)
        else:
            self.space = spaces.Box(self.low, self.high, dtype=np.float32)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        if not self.normalized:
            return obs
        return np.clip(obs / self.scale, -1.0, 1.0).astype(np.float32, copy=False)

    def raw(self, obs: np.ndarray) -> np.ndarray:
        """Back to the task's units (exact inside the clipping range)."""
        return np.asarray(obs, dtype=np.float32) * self.scale if self.normalized else np.asarray(obs)


# Outcome codes of the native step, by code.
OUTCOMES = tuple(_native.NativeVecEnv.outcome_names())
_OUTCOME_NAMES = np.array(OUTCOMES, dtype=object)


if gymnasium is not None:

    class OceanSimEnv(gymnasium.Env):
        """One episode of a task (see the module's documentation)."""

        metadata: Dict[str, Any] = {"render_modes": []}

        def __init__(self, task: str = "waypoint_nav", normalized_actions: bool = True,
                     normalized_observations: bool = False, **kwargs: Any):
            # Gymnasium's TimeLimit (max_episode_steps of the registration or
            # of make) truncates single episodes; the native limit is off.
            kwargs.setdefault("max_episode_steps", 2**32 - 1)
            self._native = _native.NativeVecEnv(task, 1, 1, **kwargs)
            self._seeded = False
            self._actions = _Actions(self._native, normalized_actions)
            self._obs = _Observations(self._native, normalized_observations)
            self.observation_space, self.action_space = self._obs.space, self._actions.space
            self.task = task
            self.dt = self._native.dt

        def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
            super().reset(seed=seed)
            if seed is None and not self._seeded:
                # The first unseeded reset draws from entropy (via
                # np_random), so separate instances run different episodes.
                seed = int(self.np_random.integers(0, 2**63 - 1))
            self._seeded = True
            obs = self._native.reset(None if seed is None else operator.index(seed))
            return self._obs(obs[0]), {}

        def step(self, action: Any):
            a = self._actions(action, (self._native.action_len,))
            obs, reward, terminated, truncated, final, outcome, error, success = self._native.step(a)
            done = bool(terminated[0] or truncated[0])
            # The native env restarts ended episodes at once; a single env
            # reports the last observation and waits for reset().
            o = final[0] if done else obs[0]
            # Gymnasium's TimeLimit wrapper, not the task, truncates single
            # episodes: the outcome then stays "running".
            info = {"outcome": OUTCOMES[outcome[0]], "error_m": float(error[0]),
                    "is_success": bool(success[0])}
            return self._obs(o), float(reward[0]), bool(terminated[0]), bool(truncated[0]), info

        def lane_state(self) -> np.ndarray:
            """The vehicle's NED position, attitude (w, x, y, z) and ν."""
            return self._native.lane_states()[0]

    class WaypointNavEnv(OceanSimEnv):
        """``OceanSim/WaypointNav-v0``."""

        def __init__(self, **kwargs: Any):
            super().__init__("waypoint_nav", **kwargs)

    class DepthHoldEnv(OceanSimEnv):
        """``OceanSim/DepthHold-v0``."""

        def __init__(self, **kwargs: Any):
            super().__init__("depth_hold", **kwargs)

    class OceanSimVectorEnv(VectorEnv):
        """``num_envs`` episodes stepped in one call, on ``threads`` threads,
        with same-step autoreset."""

        metadata: Dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

        def __init__(self, task: str = "waypoint_nav", num_envs: int = 1, threads: int = 0,
                     normalized_actions: bool = True, normalized_observations: bool = False,
                     **kwargs: Any):
            import os

            threads = int(threads) or (os.cpu_count() or 1)
            self._native = _native.NativeVecEnv(task, int(num_envs), threads, **kwargs)
            self._actions = _Actions(self._native, normalized_actions)
            self._obs = _Observations(self._native, normalized_observations)
            self.num_envs = int(num_envs)
            self.single_observation_space = self._obs.space
            self.single_action_space = self._actions.space
            self.observation_space = batch_space(self.single_observation_space, self.num_envs)
            self.action_space = batch_space(self.single_action_space, self.num_envs)
            self.task = task
            self.threads = threads
            self.dt = self._native.dt
            self._seeded = False

        def reset(self, *, seed: Any = None, options: Optional[dict] = None):
            if isinstance(seed, (list, tuple)):
                seed = seed[0]  # a list of seeds: the first seeds them all
            if seed is None and not self._seeded:
                # The first unseeded reset draws from entropy, so separate
                # instances (processes, Ray workers) run different episodes.
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
            self._seeded = True
            seed = None if seed is None else operator.index(seed)
            self._np_random_seed = seed
            return self._obs(self._native.reset(seed)), {}

        def step(self, actions: Any):
            a = self._actions(actions, (self.num_envs, self._native.action_len))
            obs, reward, terminated, truncated, final, outcome, error, success = self._native.step(a)
            # Gymnasium's vector info: a value per lane and its mask; of
            # the old episode where one ended.
            every = np.ones(self.num_envs, dtype=bool)
            step_info = {"outcome": _OUTCOME_NAMES[outcome], "_outcome": every,
                         "error_m": error, "_error_m": every,
                         "is_success": success, "_is_success": every}
            info: Dict[str, Any] = dict(step_info)
            ended = terminated | truncated
            if ended.any():
                # Gymnasium's same-step convention: final_obs an object
                # array (None where the episode goes on), final_info a dict
                # of arrays masked by the lanes that ended.
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(ended):
                    final_obs[i] = self._obs(final[i])
                final_info = {k: (ended if k.startswith("_") else v) for k, v in step_info.items()}
                info.update(final_obs=final_obs, _final_obs=ended,
                            final_info=final_info, _final_info=ended)
            return self._obs(obs), reward, terminated, truncated, info

        def lane_states(self) -> np.ndarray:
            """``(K, 13)``: NED position, attitude (w, x, y, z), ν."""
            return self._native.lane_states()

    class WaypointNavVectorEnv(OceanSimVectorEnv):
        def __init__(self, num_envs: int = 1, threads: int = 0, **kwargs: Any):
            super().__init__("waypoint_nav", num_envs, threads, **kwargs)

    class DepthHoldVectorEnv(OceanSimVectorEnv):
        def __init__(self, num_envs: int = 1, threads: int = 0, **kwargs: Any):
            super().__init__("depth_hold", num_envs, threads, **kwargs)


def random_rollout(env_id: str = "OceanSim/WaypointNav-v0", seed: int = 0, num_envs: int = 64,
                   steps: int = 100, threads: int = 1, **kwargs: Any) -> np.ndarray:
    """Per-lane returns of ``steps`` uniformly random actions on a vector
    environment seeded with ``seed``: a self-contained unit of work for
    scale-out engines (Ray tasks, process pools), reproducible anywhere."""
    env = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                             threads=threads, **kwargs)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    total = np.zeros(num_envs)
    low, high = env.action_space.low, env.action_space.high
    for _ in range(steps):
        _, r, _, _, _ = env.step(rng.uniform(low, high))
        total += r
    env.close()
    return total


def register_envs() -> None:
    """Registers the environments with Gymnasium (idempotent)."""
    if gymnasium is None:
        return
    for name in TASKS:
        env_id = f"OceanSim/{name}-v0"
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point=f"oceansim.gym:{name}Env",
            vector_entry_point=f"oceansim.gym:{name}VectorEnv",
            max_episode_steps=MAX_EPISODE_STEPS[name],
        )


__all__ = ["TASKS", "OUTCOMES", "random_rollout", "register_envs"] + (
    ["OceanSimEnv", "OceanSimVectorEnv", "WaypointNavEnv", "DepthHoldEnv",
     "WaypointNavVectorEnv", "DepthHoldVectorEnv"] if gymnasium is not None else [])
