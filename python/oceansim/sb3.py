"""Stable-Baselines3 and sbx: a Gymnasium vector environment as an SB3
``VecEnv``.

SB3 (and sbx, its JAX port) accept only instances of
``stable_baselines3.common.vec_env.VecEnv``; a ``gymnasium.vector.VectorEnv``
such as ``OceanSimVectorEnv`` is refused ("not a Gymnasium environment").
``SB3VecEnv`` wraps one, keeping its one call into Rust per step::

    import gymnasium, oceansim, sbx
    from stable_baselines3.common.vec_env import VecMonitor
    from oceansim.sb3 import SB3VecEnv

    venv = VecMonitor(SB3VecEnv.make("OceanSim/DepthHold-v0", num_envs=16))
    sbx.PPO("MlpPolicy", venv).learn(100_000)

Gymnasium's same-step autoreset maps onto SB3's conventions: a lane whose
episode ended returns its new episode's first observation, with the old
episode's last one in ``infos[i]["terminal_observation"]`` and
``infos[i]["TimeLimit.truncated"]`` true when it was cut by the time limit
rather than terminated (so SB3 bootstraps its value). Each lane's info also
carries the environment's per-lane values (``outcome``, ``error_m``,
``is_success``: SB3's success rate reads the last).

The class subclasses SB3's ``VecEnv`` when Stable-Baselines3 is installed
and is otherwise a plain class with the same interface, so this module
imports (and is tested) without SB3 or torch.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv as _Base
except ImportError:  # pragma: no cover - depends on what is installed
    _Base = object  # type: ignore[assignment,misc]

HAVE_SB3 = _Base is not object

# Keys of a Gymnasium vector info that are not per-lane values.
_RESERVED = ("final_obs", "final_info")


def _lanes(info: Dict[str, Any], n: int) -> List[Dict[str, Any]]:
    """The ``n`` per-lane dicts of a Gymnasium vector info (masked arrays,
    nested for dict-valued entries): one ``tolist()`` per key, so that
    building them costs little at thousands of lanes."""
    out: List[Dict[str, Any]] = [{} for _ in range(n)]
    for key, value in info.items():
        if key.startswith("_") or key in _RESERVED:
            continue
        mask = info.get("_" + key)
        values = _lanes(value, n) if isinstance(value, dict) else \
            value.tolist() if isinstance(value, np.ndarray) else list(value)
        if mask is None or mask.all():
            for lane, v in zip(out, values):
                lane[key] = v
        else:
            for i in np.flatnonzero(mask).tolist():
                out[i][key] = values[i]
    return out


def _lane(info: Dict[str, Any], i: int, out: Dict[str, Any]) -> Dict[str, Any]:
    """Lane ``i``'s values of a Gymnasium vector info into ``out``."""
    for key, value in info.items():
        if key.startswith("_") or key in _RESERVED:
            continue
        mask = info.get("_" + key)
        if mask is not None and not mask[i]:
            continue
        v = _lane(value, i, {}) if isinstance(value, dict) else value[i]
        out[key] = v.item() if isinstance(v, np.generic) else v
    return out


class SB3VecEnv(_Base):  # type: ignore[misc,valid-type]
    """A Gymnasium ``VectorEnv`` with same-step autoreset (``venv``) as a
    Stable-Baselines3 ``VecEnv``; observations and actions pass unchanged."""

    def __init__(self, venv: Any):
        from gymnasium.vector import AutoresetMode

        mode = venv.metadata.get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise ValueError(
                f"SB3VecEnv needs a vector environment with same-step autoreset, got {mode}: "
                "make it with vectorization_mode='vector_entry_point'")
        self.venv = venv
        self._actions: Optional[np.ndarray] = None
        n = int(venv.num_envs)
        if HAVE_SB3:
            _Base.__init__(self, n, venv.single_observation_space, venv.single_action_space)
        else:
            self.num_envs = n
            self.observation_space = venv.single_observation_space
            self.action_space = venv.single_action_space
            self.reset_infos: List[Dict[str, Any]] = [{} for _ in range(n)]
            self._seeds: List[Optional[int]] = [None] * n
            self._options: List[Dict[str, Any]] = [{} for _ in range(n)]
            self.render_mode = None
            self.metadata = {"render_modes": []}

    @classmethod
    def make(cls, env_id: str, num_envs: int, **kwargs: Any) -> "SB3VecEnv":
        """``gymnasium.make_vec(env_id, num_envs, vectorization_mode=
        "vector_entry_point", **kwargs)``, wrapped."""
        import gymnasium

        return cls(gymnasium.make_vec(env_id, num_envs=num_envs,
                                      vectorization_mode="vector_entry_point", **kwargs))

    # -- SB3's VecEnv interface --------------------------------------------

    def reset(self) -> np.ndarray:
        # SB3 gives each env seed + index; lane i of the native env is
        # seeded from one seed and i already.
        seed = self._seeds[0]
        obs, info = self.venv.reset(seed=seed, options=self._options[0] or None)
        self.reset_infos = _lanes(info, self.num_envs)
        self._seeds = [None] * self.num_envs
        self._options = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        dones = np.logical_or(terminated, truncated)
        infos = _lanes(info, self.num_envs)
        if dones.any():
            final_info = info.get("final_info", {})
            for i in np.flatnonzero(dones).tolist():
                _lane(final_info, i, infos[i])  # the ended episode's last info
                infos[i]["terminal_observation"] = info["final_obs"][i]
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, np.asarray(reward, dtype=np.float32), dones, infos

    def step(self, actions: np.ndarray):
        self.step_async(actions)
        return self.step_wait()

    def seed(self, seed: Optional[int] = None) -> Sequence[Optional[int]]:
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._seeds = [seed + i for i in range(self.num_envs)]
        return self._seeds

    def set_options(self, options: Any = None) -> None:
        options = options or {}
        self._options = [dict(options) for _ in range(self.num_envs)] if isinstance(options, dict) \
            else [dict(o) for o in options]

    def close(self) -> None:
        self.venv.close()

    def _indices(self, indices: Any) -> List[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [int(indices)] if isinstance(indices, (int, np.integer)) else [int(i) for i in indices]

    def _every(self, indices: Any, what: str) -> List[int]:
        """``indices``, which must cover every lane: one environment holds
        them all, so there is no setting or calling on some of them only."""
        idx = self._indices(indices)
        if sorted(set(idx)) != list(range(self.num_envs)):
            raise NotImplementedError(
                f"{what} on some lanes only ({idx}): every lane is one vector environment; "
                "pass indices=None")
        return idx

    def _holder(self, name: str) -> Any:
        """The object of the wrapper chain that has ``name``: the outermost
        wrapper that defines it, else the unwrapped vector environment
        (Gymnasium's vector wrappers do not forward attributes)."""
        env = self.venv
        while env is not None:
            if name in getattr(env, "__dict__", {}) or hasattr(type(env), name):
                return env
            inner = getattr(env, "env", None)
            env = inner if inner is not env else None
        return self.venv.unwrapped

    def get_attr(self, attr_name: str, indices: Any = None) -> List[Any]:
        # One environment holds every lane: the same value for each.
        value = getattr(self._holder(attr_name), attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._every(indices, "set_attr")
        setattr(self._holder(attr_name), attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> List[Any]:
        holder = self._holder(method_name)
        per_lane = method_name in getattr(self.venv.unwrapped, "PER_LANE_METHODS", ())
        # A per-lane method gives each lane its own row; any other runs
        # once for the whole vector environment, so only for every lane.
        idx = self._indices(indices) if per_lane else self._every(indices, "env_method")
        result = getattr(holder, method_name)(*method_args, **method_kwargs)
        return [result[i] for i in idx] if per_lane else [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> List[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]

    def render(self, mode: Optional[str] = None) -> Optional[np.ndarray]:
        return None


__all__ = ["SB3VecEnv", "HAVE_SB3"]
