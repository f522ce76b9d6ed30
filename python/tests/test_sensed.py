"""The tasks the vehicle solves with its own senses: Gymnasium's checker
passes, each has a vector entry point, the baseline controllers solve
them through the Python API, and lanes are the same on one thread and
two."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import oceansim  # noqa: F401  (registers the environments)
from oceansim import OceanSimValueError
from oceansim.baselines import baseline_policy

SENSED = ["OceanSim/TerrainFollow-v0", "OceanSim/SonarAvoid-v0", "OceanSim/Remus100Heading-v0"]


@pytest.mark.parametrize("env_id", SENSED)
@pytest.mark.parametrize("normalized_observations", [False, True])
def test_check_env_passes_without_a_warning(env_id, normalized_observations):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gymnasium.make(env_id, normalized_observations=normalized_observations).unwrapped)


def test_the_spaces_are_the_documented_ones():
    tf = gymnasium.make("OceanSim/TerrainFollow-v0")
    assert tf.observation_space.shape == (18,) and tf.action_space.shape == (3,)
    sa = gymnasium.make("OceanSim/SonarAvoid-v0")
    assert sa.observation_space.shape == (13 + 64 + 64 * 32,) and sa.action_space.shape == (6,)
    small = gymnasium.make("OceanSim/SonarAvoid-v0", sonar_beams=16, sonar_bins=8, sonar_range_m=10.0)
    assert small.observation_space.shape == (13 + 16 + 16 * 8,)
    assert small.unwrapped._native.sonar == (16, 8, 10.0)
    rh = gymnasium.make("OceanSim/Remus100Heading-v0", scenario="OpenWater")
    assert rh.observation_space.shape == (12,) and rh.action_space.shape == (3,)
    assert rh.unwrapped._native.control_scheme == "fins"
    raw = gymnasium.make("OceanSim/Remus100Heading-v0", normalized_actions=False).action_space
    np.testing.assert_allclose(raw.high[:2], np.radians(15.0), rtol=1e-6)
    assert raw.high[2] == pytest.approx(1525.0)
    with pytest.raises(OceanSimValueError) as e:
        gymnasium.make("OceanSim/TerrainFollow-v0", sonar_beams=8)
    assert e.value.error_code == "config"
    with pytest.raises(OceanSimValueError):
        gymnasium.make("OceanSim/SonarAvoid-v0", sonar_beams=1)
    with pytest.raises(OceanSimValueError):
        gymnasium.make("OceanSim/WaypointNav-v0", extra_sensors=["periscope"])


@pytest.mark.parametrize("env_id", SENSED)
def test_the_baseline_solves_the_task_from_the_python_api(env_id):
    k = 32
    vec = gymnasium.make_vec(env_id, num_envs=k, vectorization_mode="vector_entry_point", threads=2)
    policy = baseline_policy(vec)
    obs, _ = vec.reset(seed=3)
    done = np.zeros(k, dtype=bool)
    success = np.zeros(k, dtype=bool)
    ret = np.zeros(k)
    while not done.all():
        obs, r, term, trunc, info = vec.step(policy(obs))
        ret += np.where(done, 0.0, r)
        ended = (term | trunc) & ~done
        if ended.any():
            success[ended] = info["final_info"]["is_success"][ended]
        done |= ended
    assert success.mean() >= 0.7, f"{success.mean():.0%} of {k}"
    assert ret.mean() > 1.0, ret.mean()


@pytest.mark.parametrize("env_id", SENSED)
def test_vector_envs_are_identical_on_one_and_two_threads(env_id):
    def run(threads):
        vec = gymnasium.make_vec(env_id, num_envs=16, vectorization_mode="vector_entry_point",
                                 threads=threads)
        rng = np.random.default_rng(4)
        obs, _ = vec.reset(seed=9)
        out = [obs]
        for _ in range(30):
            obs, r, *_ = vec.step(rng.uniform(-1, 1, vec.action_space.shape))
            out += [obs, r]
        return out

    for a, b in zip(run(1), run(2)):
        np.testing.assert_array_equal(a, b)


def test_extra_sensors_ride_along_without_changing_the_observation_length():
    env = gymnasium.make("OceanSim/TerrainFollow-v0", extra_sensors=["depth"])
    obs, _ = env.reset(seed=0)
    assert obs.shape == (18,)
