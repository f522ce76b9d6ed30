"""``fleet_formation_v0``: a fleet holds a ring formation over one shared
acoustic channel (PettingZoo parallel API).

``parallel_env(n_agents=4, seed=None, threads=0, normalized_actions=True,
**kwargs)`` builds it; ``env(...)`` is the same game in PettingZoo's AEC
form (``parallel_to_aec``). Agents are named ``auv_0`` … ``auv_{N-1}``.

Each agent is one vehicle of the batched simulator (the simulator's own
Fossen dynamics and sensor models). Every second each broadcasts its
position over a 5 kbit/s acoustic channel shared by all (0.2 s latency,
sound at 1,500 m/s, 10 % loss; agents take turns within the second, and a
report that would queue behind more than a second of traffic is not sent).

* **Observation** (``Box``, ``float32``, ``17 + 4 (N − 1)`` values): the
  agent's depth (m, pressure sensor); IMU specific force (3, m/s², body
  FRD), rates (3, rad/s), roll, pitch (rad); DVL velocity over ground (3,
  m/s, body), altitude (m) and bottom lock (0/1); its slot − its position
  in its body frame (3, m); then for every other agent, in id order, the
  position it last heard from it − its own, in its body frame (3, m), and
  the report's age (s, 60 when never heard).
* **Action** (``Box``): the control scheme's vector (``body_force_3d`` by
  default: body force [starboard, forward, up], N), normalised to [-1, 1]
  unless ``normalized_actions=False``.
* **Reward** per step, ``T`` the episode length, ``R`` the ring radius
  (6 m), ``e`` the distance to the slot, ``s`` the mean error of the
  distances to the two ring neighbours against the chord
  ``2 R sin(π/N)``: ``(1 − min(e/R, 1) − min(s/chord, 1))/T − 0.1
  effort/T``, and −1 on touching the seabed, an obstacle or another
  vehicle, which terminates that agent. Returns lie within [−2.1, 1].
* **Episodes** truncate after ``max_episode_steps`` (600, 60 s at
  ``dt`` = 0.1 s). ``info[agent]`` has ``slot_error_m``.

Deterministic for a seed whatever ``threads``. Keyword arguments:
``scenario`` (PaleMap), ``map_seed``, ``profile``, ``control_scheme``,
``dt``, ``tick``, ``max_episode_steps`` (or ``episode_steps``),
``ring_radius_m``, ``ping_period_s`` (from ``dt`` to 3,600 s),
``packet_drop_rate``, ``bandwidth_bps``. An agent whose episode ended
leaves the water: it neither sends nor hears, and no ray or hull meets it.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from .. import _native
from ..errors import OceanSimActionShapeError, OceanSimValueError
from ..gym import _count, _native_kwargs, _seed, _threads

try:
    from gymnasium import spaces
    from pettingzoo import ParallelEnv
except ImportError as e:  # pragma: no cover - optional
    raise ImportError("oceansim.marl needs pettingzoo and gymnasium: pip install pettingzoo") from e



class FleetFormationEnv(ParallelEnv):
    """``N`` vehicles holding a ring (see the module's documentation)."""

    metadata: Dict[str, Any] = {"render_modes": [], "name": "fleet_formation_v0",
                                "is_parallelizable": True}

    def __init__(self, n_agents: int = 4, seed: Optional[int] = None, threads: int = 0,
                 normalized_actions: bool = True, render_mode: Optional[str] = None,
                 **kwargs: Any):
        if render_mode is not None:
            raise OceanSimValueError(f"render_mode {render_mode!r}: this environment does not render",
                                     error_code="config")
        n = _count("n_agents", n_agents, 2, 64)
        # The vector environments' checks: episode_steps as another name
        # of max_episode_steps, integers in range, else the SDK's errors.
        kwargs = _native_kwargs(kwargs)
        self._native = _native.NativeFleetEnv(n, _threads(threads), **kwargs)
        self._seed = _seed(seed)
        self._normalized = bool(normalized_actions)
        low, high = self._native.action_bounds()
        self._mid, self._half = (high + low) / 2.0, (high - low) / 2.0
        self._a = self._native.action_len
        self.possible_agents = [f"auv_{i}" for i in range(n)]
        self._index = {name: i for i, name in enumerate(self.possible_agents)}
        self.agents = list(self.possible_agents)
        olow, ohigh = self._native.observation_bounds()
        obs_space = spaces.Box(olow, ohigh, dtype=np.float32)
        if self._normalized:
            act_space = spaces.Box(-1.0, 1.0, shape=(self._a,), dtype=np.float32)
        else:
            act_space = spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)
        # One space object per agent, the same at every call (PettingZoo's
        # API test checks it).
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.render_mode = None
        self.dt = self._native.dt
        self.max_episode_steps = self._native.max_episode_steps
        self._seeded = False

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        seed = _seed(seed)
        if seed is None and not self._seeded:
            seed = self._seed
            if seed is None:
                # First unseeded reset: from entropy, so separate instances
                # run different episodes.
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
        self._seeded = True
        obs = self._native.reset(seed)
        self.agents = list(self.possible_agents)
        err = self._slot_errors()
        return ({a: obs[i] for i, a in enumerate(self.agents)},
                {a: {"slot_error_m": float(err[i])} for i, a in enumerate(self.agents)})

    def _slot_errors(self) -> np.ndarray:
        pos = self._native.states()[:, :3]
        return np.linalg.norm(pos - self._native.slots_ned(), axis=1)

    def step(self, actions: Dict[str, Any]):
        n = len(self.possible_agents)
        a = np.zeros((n, self._a), dtype=np.float64)
        for name, act in actions.items():
            i = self._index.get(name)
            if i is None:
                raise OceanSimValueError(f"unknown agent {name!r}", error_code="invalid_action")
            v = np.asarray(act, dtype=np.float64)
            if v.shape != (self._a,):
                raise OceanSimActionShapeError(f"{name}: action must have shape ({self._a},), got {v.shape}",
                                               error_code="invalid_action_shape")
            if self._normalized:
                if not np.isfinite(v).all():
                    raise OceanSimValueError(f"{name}: invalid action: a value is not finite",
                                             error_code="invalid_action")
                v = self._mid + self._half * np.clip(v, -1.0, 1.0)
            a[i] = v
        live = self.agents
        obs, reward, terminated, truncated, err = self._native.step(a)
        idx = [self._index[name] for name in live]
        out = ({name: obs[i] for name, i in zip(live, idx)},
               {name: float(reward[i]) for name, i in zip(live, idx)},
               {name: bool(terminated[i]) for name, i in zip(live, idx)},
               {name: bool(truncated[i]) for name, i in zip(live, idx)},
               {name: {"slot_error_m": float(err[i])} for name, i in zip(live, idx)})
        self.agents = [name for name, i in zip(live, idx) if not (terminated[i] or truncated[i])]
        return out

    def state(self) -> np.ndarray:
        """Every agent's state ``(N, 13)``: NED position, attitude (w, x, y,
        z), body velocity ν."""
        return self._native.states()

    def slots_ned(self) -> np.ndarray:
        """Every agent's slot in NED ``(N, 3)`` (m)."""
        return self._native.slots_ned()

    def message_counts(self) -> Dict[str, int]:
        """Reports sent, delivered, lost and not sent (busy channel)."""
        return dict(zip(("sent", "delivered", "lost", "busy"), self._native.message_counts()))

    def render(self) -> None:
        return None

    def close(self) -> None:
        pass


def parallel_env(**kwargs: Any) -> FleetFormationEnv:
    """The parallel environment (PettingZoo's ``parallel_env`` convention)."""
    return FleetFormationEnv(**kwargs)


raw_env = parallel_env


def env(**kwargs: Any):
    """The same game as an AEC environment (``parallel_to_aec``)."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(parallel_env(**kwargs))


def formation_baseline(obs: np.ndarray, keep_m: float = 4.0) -> np.ndarray:
    """A hand-written formation law in raw ``body_force_3d`` units (N) for
    one agent's raw observation: PD towards its slot (slot − position and
    the DVL's velocity), pushed away from neighbours heard within
    ``keep_m`` in the last 5 s. The bar a learned policy should clear."""
    o = np.asarray(obs, dtype=np.float64)
    target = o[14:17].copy()
    heard = o[17:].reshape(-1, 4)
    for rel, age in zip(heard[:, :3], heard[:, 3]):
        d = float(np.linalg.norm(rel))
        if age < 5.0 and 1e-6 < d < keep_m:
            target -= rel / d * (keep_m - d) * 2.0
    u, v, w = o[9], o[10], o[11]
    x, y, z = target
    return np.array([20.0 * y - 60.0 * v, 20.0 * x - 60.0 * u, -(20.0 * z - 60.0 * w)])


def fleet_rollout(seed: int = 0, n_agents: int = 8, steps: int = 300, threads: int = 1,
                  policy: str = "random", **kwargs: Any) -> np.ndarray:
    """Per-agent returns of one seeded episode (``steps`` at most) under
    uniformly random normalised actions (``policy="random"``) or
    :func:`formation_baseline` (``"baseline"``): a self-contained unit of
    work for scale-out engines (Ray tasks, process pools), reproducible
    anywhere."""
    baseline = policy == "baseline"
    e = FleetFormationEnv(n_agents=n_agents, seed=seed, threads=threads,
                          normalized_actions=not baseline, **kwargs)
    obs, _ = e.reset()
    rng = np.random.default_rng(seed)
    total = np.zeros(n_agents)
    for _ in range(steps):
        if not e.agents:
            break
        if baseline:
            acts = {a: formation_baseline(obs[a]) for a in e.agents}
        else:
            acts = {a: rng.uniform(-1.0, 1.0, e._a) for a in e.agents}
        obs, rew, *_ = e.step(acts)
        for a, r in rew.items():
            total[e._index[a]] += r
    return total


__all__ = ["FleetFormationEnv", "parallel_env", "raw_env", "env", "formation_baseline",
           "fleet_rollout"]
