"""The fleet as a PettingZoo parallel environment: PettingZoo's own API
tests pass, a seed gives the same run whatever the threads, agents hear
each other, and flying to the slots beats doing nothing."""

from __future__ import annotations

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, parallel_api_test  # noqa: E402

from oceansim import OceanSimActionShapeError, OceanSimValueError  # noqa: E402
from oceansim.marl import fleet_formation_v0  # noqa: E402


def test_pettingzoos_parallel_api_test_passes():
    parallel_api_test(fleet_formation_v0.parallel_env(n_agents=4, seed=0, max_episode_steps=60),
                      num_cycles=200)


def test_pettingzoos_aec_api_test_passes():
    api_test(fleet_formation_v0.env(n_agents=3, seed=1, max_episode_steps=40), num_cycles=100)


def _rollout(threads, seed, steps=80, policy=None, n=6):
    env = fleet_formation_v0.parallel_env(n_agents=n, seed=seed, threads=threads,
                                          normalized_actions=policy is None)
    obs, _ = env.reset()
    rng = np.random.default_rng(seed)
    trace, ret = [], {a: 0.0 for a in env.possible_agents}
    for _ in range(steps):
        if not env.agents:
            break
        if policy is None:
            acts = {a: rng.uniform(-1, 1, 3) for a in env.agents}
        else:
            acts = {a: policy(obs[a]) for a in env.agents}
        obs, rew, term, trunc, info = env.step(acts)
        for a, r in rew.items():
            ret[a] += r
        trace += [np.stack([obs[a] for a in sorted(obs)]), np.array([rew[a] for a in sorted(rew)])]
    return env, trace, ret


def test_a_seed_gives_the_same_run_on_one_thread_and_two():
    _, a, _ = _rollout(1, 5)
    _, b, _ = _rollout(2, 5)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    _, c, _ = _rollout(2, 6)
    assert not np.array_equal(a[0], c[0])


def test_agents_hear_each_other_and_the_baseline_beats_doing_nothing():
    law = fleet_formation_v0.formation_baseline
    env, _, ret = _rollout(2, 1, steps=300, policy=law)
    counts = env.message_counts()
    assert counts["sent"] >= 170 and counts["delivered"] > 600 and counts["lost"] > 0, counts
    _, _, idle = _rollout(2, 1, steps=300, policy=lambda o: np.zeros(3))
    assert np.mean(list(ret.values())) > np.mean(list(idle.values())) + 0.1


def test_sixteen_agents_observe_their_neighbours():
    env = fleet_formation_v0.parallel_env(n_agents=16, seed=2)
    obs, info = env.reset()
    assert len(obs) == 16 and obs["auv_3"].shape == (17 + 4 * 15,)
    assert env.observation_space("auv_3") is env.observation_space("auv_3")
    for _ in range(25):
        obs, *_ = env.step({a: np.zeros(3) for a in env.agents})
    ages = obs["auv_0"][17:].reshape(15, 4)[:, 3]
    assert (ages < 3.5).sum() >= 12, ages


def test_bad_input_raises_the_sdks_errors():
    env = fleet_formation_v0.parallel_env(n_agents=2, seed=0)
    env.reset()
    with pytest.raises(OceanSimActionShapeError):
        env.step({"auv_0": np.zeros(2), "auv_1": np.zeros(3)})
    with pytest.raises(OceanSimValueError):
        env.step({"auv_0": np.array([np.nan, 0, 0]), "auv_1": np.zeros(3)})
    with pytest.raises(OceanSimValueError):
        env.step({"auv_7": np.zeros(3)})
    with pytest.raises(OceanSimValueError):
        fleet_formation_v0.parallel_env(n_agents=1)
    with pytest.raises(OceanSimValueError):
        fleet_formation_v0.parallel_env(n_agents=4, ring_radius_m=-1.0)
    for bad in (dict(ping_period_s=1e-20), dict(ping_period_s=float("nan")), dict(map_seed=-1),
                dict(packet_drop_rate=2.0), dict(bandwidth_bps=0.0), dict(episode_steps=0)):
        with pytest.raises(OceanSimValueError):
            fleet_formation_v0.parallel_env(n_agents=3, **bad)
    env = fleet_formation_v0.parallel_env(n_agents=3, episode_steps=2)
    env.reset(seed=0)
    env.step({a: np.zeros(3) for a in env.agents})
    *_, trunc, _ = env.step({a: np.zeros(3) for a in env.agents})
    assert all(trunc.values()) and env.agents == []
