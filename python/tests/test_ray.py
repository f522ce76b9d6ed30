"""Scale-out on Ray: two local workers run vector environments (a
sensorless task and a sonar one) and a fleet episode; each worker's
rollout equals the same rollout run here."""

from __future__ import annotations

import numpy as np
import pytest

from oceansim.gym import random_rollout

ray = pytest.importorskip("ray")


def test_two_ray_workers_reproduce_local_rollouts():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             ignore_reinit_error=True)
    try:
        remote = ray.remote(num_cpus=1)(random_rollout)
        results = ray.get([remote.remote(seed=seed, num_envs=64, steps=100) for seed in (1, 2)])
        sonar = dict(env_id="OceanSim/SonarAvoid-v0", seed=3, num_envs=8, steps=30)
        fleet = None
        try:
            from oceansim.marl.fleet_formation_v0 import fleet_rollout
        except ImportError:  # pragma: no cover - pettingzoo is optional
            fleet_rollout = None
        if fleet_rollout is not None:
            fleet = ray.get(ray.remote(num_cpus=1)(fleet_rollout).remote(seed=4, n_agents=6, steps=60))
        got_sonar = ray.get(remote.remote(**sonar))
    finally:
        ray.shutdown()
    np.testing.assert_array_equal(got_sonar, random_rollout(**sonar))
    if fleet is not None:
        np.testing.assert_array_equal(fleet, fleet_rollout(seed=4, n_agents=6, steps=60))
    for seed, got in zip((1, 2), results):
        np.testing.assert_array_equal(got, random_rollout(seed=seed, num_envs=64, steps=100))
    assert not np.array_equal(results[0], results[1])
