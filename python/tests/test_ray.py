"""Scale-out on Ray: two local workers run vector environments; each
worker's rollout equals the same rollout run here."""

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
    finally:
        ray.shutdown()
    for seed, got in zip((1, 2), results):
        np.testing.assert_array_equal(got, random_rollout(seed=seed, num_envs=64, steps=100))
    assert not np.array_equal(results[0], results[1])
