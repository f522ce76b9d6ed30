"""Gymnasium environments on the in-process batched simulator.

Registered on ``import oceansim``: ``OceanSim/WaypointNav-v0``,
``OceanSim/DepthHold-v0``, and three tasks the vehicle solves with its own
senses (the simulator's sensor models in every lane, noise included):
``OceanSim/TerrainFollow-v0`` (DVL and IMU), ``OceanSim/SonarAvoid-v0``
(forward-looking imaging sonar) and ``OceanSim/Remus100Heading-v0``
(Fossen's REMUS 100 on its fins). Fleets are multi-agent environments in
``oceansim.marl`` (PettingZoo). In a process that has not imported ``oceansim``
(an RLlib env runner, say), ``gymnasium.make("oceansim:OceanSim/WaypointNav-v0")``
imports it first.

* ``gymnasium.make("OceanSim/WaypointNav-v0")``: one episode at a time.
* ``gymnasium.make_vec("OceanSim/WaypointNav-v0", num_envs=1024,
  vectorization_mode="vector_entry_point", threads=2)``: ``K`` episodes
  stepped in one call into Rust, split across threads, with autoreset in
  the same step in Gymnasium's layout (``info["final_obs"]`` and
  ``info["final_info"]`` hold the last observation and info of the
  episodes that ended; the top level is each lane's current episode).
  Deterministic for a seed whatever the threads.

Keyword arguments of both: ``scenario``, ``map_seed`` (terrain and
obstacles, shared by every episode), ``profile``, ``control_scheme`` (any
scheme that drives a vehicle: ``force_3d``, ``body_force_3d``,
``thrusters``, ``waypoint_pid``, ``body_wrench_6dof``,
``body_velocity_6dof``), ``dt`` (control period, s), ``tick`` (physics tick,
s), ``max_episode_steps`` (the environment's own limit: an episode that
reaches it is truncated with outcome ``time_limit``; ``gymnasium.make``
takes that name for Gymnasium's ``TimeLimit`` wrapper, so pass
``episode_steps`` there), ``normalized_actions`` (default ``True``: the
action space is [-1, 1] per value, mapped linearly onto the scheme's bounds,
values outside it clipped first; ``False`` takes the scheme's own units),
``normalized_observations``
(default ``False``: observations in their units within finite bounds;
``True`` divides each by its scale and clips to [-1, 1]), and for
SonarAvoid ``sonar_beams``, ``sonar_bins``, ``sonar_range_m`` (default 64,
32, 15 m); ``extra_sensors`` (family names, e.g. ``["depth"]``) has every
lane carry more sensors than its task reads. Observations,
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
from .errors import OceanSimActionShapeError, OceanSimValueError

try:
    import gymnasium
except ImportError:  # pragma: no cover - gymnasium is optional
    gymnasium = None  # type: ignore[assignment]
else:
    # AutoresetMode: Gymnasium >= 1.1 (the wheel's `gym` extra pins it).
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

TASKS = {"WaypointNav": "waypoint_nav", "DepthHold": "depth_hold",
         "TerrainFollow": "terrain_follow", "SonarAvoid": "sonar_avoid",
         "Remus100Heading": "remus100_heading"}
# Default episode lengths (steps), the native environment's own.
MAX_EPISODE_STEPS = {name: _native.NativeVecEnv.default_max_episode_steps(task)
                     for name, task in TASKS.items()}
_U64, _U32 = 2**64 - 1, 2**32 - 1


def _count(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in ``[low, high]``, else the SDK's
    ``OceanSimValueError`` (code ``config``) rather than a bare
    ``OverflowError`` from the native boundary."""
    try:
        v = operator.index(value)
    except TypeError:
        raise OceanSimValueError(f"{name} must be an integer, got {value!r}",
                                 error_code="config") from None
    if not low <= v <= high:
        raise OceanSimValueError(f"{name} must be in {low}..={high}, got {v}", error_code="config")
    return v


def _native_kwargs(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The native constructor's keyword arguments, checked;
    ``episode_steps`` is ``max_episode_steps`` under a name
    ``gymnasium.make`` passes through."""
    kwargs = dict(kwargs)
    steps = kwargs.pop("episode_steps", None)
    if steps is not None:
        if kwargs.get("max_episode_steps") not in (None, steps):
            raise OceanSimValueError("episode_steps and max_episode_steps disagree", error_code="config")
        kwargs["max_episode_steps"] = steps
    if kwargs.get("max_episode_steps") is not None:
        kwargs["max_episode_steps"] = _count("max_episode_steps", kwargs["max_episode_steps"], 1, _U32)
    if kwargs.get("map_seed") is not None:
        kwargs["map_seed"] = _count("map_seed", kwargs["map_seed"], 0, _U64)
    return kwargs


def _seed(seed: Any) -> Optional[int]:
    return None if seed is None else _count("seed", seed, 0, _U64)


def _threads(threads: Any) -> int:
    """``threads``, or with 0 the CPUs this process may run on."""
    threads = _count("threads", threads, 0, 256)
    if threads:
        return threads
    import os

    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


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
        # No copy here in raw units: the native step copies the values
        # before it lets go of the interpreter (and clips them).
        a = np.asarray(action, dtype=np.float64)
        if a.shape != shape:
            raise OceanSimActionShapeError(
                f"actions must have shape {shape}, got {a.shape}",
                error_code="invalid_action_shape")
        a = a.reshape(self.k, self.n)
        if not self.normalized:
            return a
        # Clipped to [-1, 1] before the mapping, so that a huge finite value
        # cannot overflow; a non-finite one is refused as in raw units.
        if not np.isfinite(a).all():
            raise OceanSimValueError("invalid action: a value is not finite",
                                     error_code="invalid_action")
        return self.mid + self.half * np.clip(a, -1.0, 1.0)

    def normalize(self, a: np.ndarray) -> np.ndarray:
        """An action in the scheme's units as this space has it."""
        return (a - self.mid) / self.half if self.normalized else a


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
            # The native limit truncates (outcome time_limit): the
            # registration adds no Gymnasium TimeLimit.
            self._native = _native.NativeVecEnv(task, 1, 1, **_native_kwargs(kwargs))
            self._seeded = False
            self._actions = _Actions(self._native, normalized_actions)
            self._obs = _Observations(self._native, normalized_observations)
            self.observation_space, self.action_space = self._obs.space, self._actions.space
            self.task = task
            self.dt = self._native.dt
            self.max_episode_steps = self._native.max_episode_steps

        def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
            seed = _seed(seed)
            super().reset(seed=seed)
            if seed is None and not self._seeded:
                # The first unseeded reset draws from entropy (via
                # np_random), so separate instances run different episodes.
                seed = int(self.np_random.integers(0, 2**63 - 1))
            self._seeded = True
            obs = self._native.reset(seed)
            info = {"outcome": "running", "error_m": float(self._native.errors()[0]),
                    "is_success": False}
            return self._obs(obs[0]), info

        def step(self, action: Any):
            a = self._actions(action, (self._native.action_len,))
            obs, reward, terminated, truncated, final, outcome, error, success, _ = \
                self._native.step(a)
            done = bool(terminated[0] or truncated[0])
            # The native env restarts ended episodes at once; a single env
            # reports the last observation and waits for reset().
            o = final[0] if done else obs[0]
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

    class TerrainFollowEnv(OceanSimEnv):
        """``OceanSim/TerrainFollow-v0``: an altitude over the seabed from
        the DVL and the IMU."""

        def __init__(self, **kwargs: Any):
            super().__init__("terrain_follow", **kwargs)

    class SonarAvoidEnv(OceanSimEnv):
        """``OceanSim/SonarAvoid-v0``: a goal past an obstacle seen by the
        forward-looking imaging sonar."""

        def __init__(self, **kwargs: Any):
            super().__init__("sonar_avoid", **kwargs)

    class Remus100HeadingEnv(OceanSimEnv):
        """``OceanSim/Remus100Heading-v0``: heading and depth changes of the
        REMUS 100 on its fins."""

        def __init__(self, **kwargs: Any):
            super().__init__("remus100_heading", **kwargs)

    class OceanSimVectorEnv(VectorEnv):
        """``num_envs`` episodes stepped in one call, on ``threads`` threads,
        with same-step autoreset."""

        metadata: Dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

        def __init__(self, task: str = "waypoint_nav", num_envs: int = 1, threads: int = 0,
                     normalized_actions: bool = True, normalized_observations: bool = False,
                     **kwargs: Any):
            num_envs = _count("num_envs", num_envs, 1, 1 << 20)
            threads = _threads(threads)
            self._native = _native.NativeVecEnv(task, num_envs, threads, **_native_kwargs(kwargs))
            self._actions = _Actions(self._native, normalized_actions)
            self._obs = _Observations(self._native, normalized_observations)
            self.num_envs = num_envs
            self.single_observation_space = self._obs.space
            self.single_action_space = self._actions.space
            self.observation_space = batch_space(self.single_observation_space, self.num_envs)
            self.action_space = batch_space(self.single_action_space, self.num_envs)
            self.task = task
            self.threads = threads
            self.dt = self._native.dt
            self.max_episode_steps = self._native.max_episode_steps
            self._seeded = False
            self._every = np.ones(num_envs, dtype=bool)
            self._running = np.full(num_envs, "running", dtype=object)

        def _info(self, error: np.ndarray, success: np.ndarray) -> Dict[str, Any]:
            # Gymnasium's vector info: a value per lane and its mask.
            every = self._every
            return {"outcome": self._running.copy(), "_outcome": every,
                    "error_m": error, "_error_m": every, "is_success": success, "_is_success": every}

        def reset(self, *, seed: Any = None, options: Optional[dict] = None):
            if isinstance(seed, (list, tuple)):
                seed = seed[0]  # a list of seeds: the first seeds them all
            seed = _seed(seed)
            if seed is None and not self._seeded:
                # The first unseeded reset draws from entropy, so separate
                # instances (processes, Ray workers) run different episodes.
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
            self._seeded = True
            self._np_random_seed = seed
            obs = self._obs(self._native.reset(seed))
            return obs, self._info(self._native.errors(), np.zeros(self.num_envs, dtype=bool))

        def step(self, actions: Any):
            a = self._actions(actions, (self.num_envs, self._native.action_len))
            obs, reward, terminated, truncated, final, outcome, error, success, now = \
                self._native.step(a)
            ended = terminated | truncated
            if not ended.any():
                return self._obs(obs), reward, terminated, truncated, self._info(error, success)
            # Gymnasium's same-step layout: the top level describes the
            # episode each lane is in now (on ended lanes the new one, as
            # its reset would), final_obs an object array (None where the
            # episode goes on) and final_info the ended episodes' last info,
            # masked by the lanes that ended.
            info = self._info(now, success & ~ended)
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended):
                final_obs[i] = self._obs(final[i])
            info.update(
                final_obs=final_obs, _final_obs=ended,
                final_info={"outcome": _OUTCOME_NAMES[outcome], "_outcome": ended,
                            "error_m": error, "_error_m": ended,
                            "is_success": success, "_is_success": ended},
                _final_info=ended)
            return self._obs(obs), reward, terminated, truncated, info

        # Methods whose result has a row per lane (the SB3 adapter's
        # env_method hands each lane its own row).
        PER_LANE_METHODS = ("lane_states", "goals_ned")

        def lane_states(self) -> np.ndarray:
            """``(K, 13)``: NED position, attitude (w, x, y, z), ν."""
            return self._native.lane_states()

        def goals_ned(self) -> np.ndarray:
            """``(K, 3)``: each lane's goal in NED (m; DepthHold: the target
            depth is ``z``)."""
            return self._native.goals_ned()

    class WaypointNavVectorEnv(OceanSimVectorEnv):
        def __init__(self, num_envs: int = 1, threads: int = 0, **kwargs: Any):
            super().__init__("waypoint_nav", num_envs, threads, **kwargs)

    class DepthHoldVectorEnv(OceanSimVectorEnv):
        def __init__(self, num_envs: int = 1, threads: int = 0, **kwargs: Any):
            super().__init__("depth_hold", num_envs, threads, **kwargs)

    class TerrainFollowVectorEnv(OceanSimVectorEnv):
        def __init__(self, num_envs: int = 1, threads: int = 0, **kwargs: Any):
            super().__init__("terrain_follow", num_envs, threads, **kwargs)

    class SonarAvoidVectorEnv(OceanSimVectorEnv):
        def __init__(self, num_envs: int = 1, threads: int = 0, **kwargs: Any):
            super().__init__("sonar_avoid", num_envs, threads, **kwargs)

    class Remus100HeadingVectorEnv(OceanSimVectorEnv):
        def __init__(self, num_envs: int = 1, threads: int = 0, **kwargs: Any):
            super().__init__("remus100_heading", num_envs, threads, **kwargs)


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
            # The native limit truncates, with outcome time_limit; a
            # Gymnasium TimeLimit on top would truncate first and leave the
            # outcome running.
            max_episode_steps=None,
        )


__all__ = ["TASKS", "OUTCOMES", "random_rollout", "register_envs"] + (
    ["OceanSimEnv", "OceanSimVectorEnv"]
    + [f"{name}{kind}" for name in TASKS for kind in ("Env", "VectorEnv")]
    if gymnasium is not None else [])
