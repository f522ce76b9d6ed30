"""Hand-written controllers for the Gymnasium tasks: the bar a learned
policy should clear, and a check that each task can be solved.

``baseline_policy(env)`` gives ``policy(obs) -> action`` for a single or a
vector environment of any task with its default control scheme, in that
environment's action space (normalised or raw) and from its observations
(normalised or raw). Gains are in the scheme's units:

* **DepthHold** (``force_3d``: world force [x east, y north, z up], N): a
  PD law on the depth error ``e`` (target − depth, m, positive = go
  deeper) and the heave velocity ``w`` (m/s, body z down):
  ``f_up = −(20 e − 60 w)``, clipped to the action bounds.
* **WaypointNav** (``body_force_3d``: body force [starboard, forward, up],
  N): a PD law toward the goal in the body frame,
  ``[20 y − 60 v, 20 x − 60 u, −(20 z − 60 w)]`` with goal − vehicle
  ``(x forward, y starboard, z down)`` and body velocity ``(u, v, w)``.
* **TerrainFollow**, **SonarAvoid**, **Remus100Heading**: the native
  controllers of ``oceansim-gym`` (``baseline_action``, documented in
  ``docs/python.md``): a PD law on the DVL's altitude error at 0.45 m/s;
  steering to the goal and away from sonar echoes within 6 m; heading on
  the rudder and depth through a pitch reference on the stern plane.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

# Gains in N/m and N/(m/s).
DEPTH_KP, DEPTH_KD = 20.0, 60.0
WAYPOINT_KP, WAYPOINT_KD = 20.0, 60.0


def depth_hold_force(obs: np.ndarray) -> np.ndarray:
    """``force_3d`` (N, +z up) for raw DepthHold observations ``(..., 8)``."""
    e, w = obs[..., 0], obs[..., 1]
    f = np.zeros(obs.shape[:-1] + (3,))
    f[..., 2] = -(DEPTH_KP * e - DEPTH_KD * w)
    return f


def waypoint_nav_force(obs: np.ndarray) -> np.ndarray:
    """``body_force_3d`` (N: starboard, forward, up) for raw WaypointNav
    observations ``(..., 14)``."""
    x, y, z = obs[..., 0], obs[..., 1], obs[..., 2]
    u, v, w = obs[..., 3], obs[..., 4], obs[..., 5]
    kp, kd = WAYPOINT_KP, WAYPOINT_KD
    return np.stack([kp * y - kd * v, kp * x - kd * u, -(kp * z - kd * w)], axis=-1)


_LAWS = {
    ("depth_hold", "force_3d"): depth_hold_force,
    ("waypoint_nav", "body_force_3d"): waypoint_nav_force,
}


# Tasks whose baseline is the native one, by their default scheme.
_NATIVE = {"terrain_follow": "body_force_3d", "sonar_avoid": "body_velocity_6dof",
           "remus100_heading": "fins"}


def baseline_policy(env: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The baseline controller of ``env``'s task, as ``policy(obs)``."""
    u = env.unwrapped
    native = u._native
    law = _LAWS.get((u.task, native.control_scheme))
    if law is None and u.task in _NATIVE and native.control_scheme == _NATIVE[u.task]:
        def law(obs: np.ndarray) -> np.ndarray:
            rows = np.ascontiguousarray(obs.reshape(-1, obs.shape[-1]), dtype=np.float32)
            return native.baseline_actions(rows).reshape(obs.shape[:-1] + (-1,))
    if law is None:
        raise ValueError(f"no baseline for {u.task} under {native.control_scheme}; "
                         f"baselines: {sorted(_LAWS) + sorted(_NATIVE.items())}")
    low, high = native.action_bounds()

    def policy(obs: np.ndarray) -> np.ndarray:
        f = np.clip(law(u._obs.raw(obs).astype(np.float64)), low, high)
        return u._actions.normalize(f).astype(np.float32)

    return policy


__all__ = ["baseline_policy", "depth_hold_force", "waypoint_nav_force"]
