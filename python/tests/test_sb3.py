"""The Stable-Baselines3 adapter: SB3's documented ``VecEnv`` interface on
the native vector environment (always: without SB3 the adapter is a plain
class, with SB3 a subclass of SB3's ``VecEnv``), and where
stable_baselines3 is installed SB3's own ``check_env`` on each single
environment and a real PPO run on the adapter (sbx's too where sbx is
installed). The GitHub workflow's sb3 job installs both; `.ci/run` does
not, torch being several GB, so there only the plain-class branch runs."""

from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest

import oceansim  # noqa: F401
from oceansim.sb3 import HAVE_SB3, SB3VecEnv

IDS = ["OceanSim/WaypointNav-v0", "OceanSim/DepthHold-v0"]

if os.environ.get("OCEANSIM_REQUIRE_SB3") == "1":
    # Where SB3 and sbx must be tested (the workflow's sb3 job), their
    # absence fails rather than skips.
    import sbx  # noqa: F401
    import stable_baselines3  # noqa: F401


def make(k=4, steps=5, **kwargs):
    return SB3VecEnv.make("OceanSim/DepthHold-v0", num_envs=k, max_episode_steps=steps, **kwargs)


def test_the_adapter_follows_sb3s_vecenv_interface():
    venv = make()
    assert venv.num_envs == 4
    assert venv.observation_space.shape == (8,) and venv.action_space.shape == (3,)
    venv.seed(7)
    obs = venv.reset()
    assert obs.shape == (4, 8) and len(venv.reset_infos) == 4
    for k in range(1, 6):
        obs, rew, dones, infos = venv.step(np.zeros((4, 3), dtype=np.float32))
        assert obs.shape == (4, 8) and rew.shape == (4,) and rew.dtype == np.float32
        assert dones.dtype == bool and len(infos) == 4
        assert all(i["outcome"] == ("time_limit" if k == 5 else "running") for i in infos)
    # Same-step autoreset as SB3 has it: the last observation apart, and a
    # time-limit cut flagged so the value is bootstrapped.
    assert dones.all()
    for i, info in enumerate(infos):
        assert info["TimeLimit.truncated"] is True
        assert info["terminal_observation"].shape == (8,)
        assert not np.array_equal(info["terminal_observation"], obs[i])
        assert {"error_m", "is_success"} <= set(info)
    assert venv.get_attr("task") == ["depth_hold"] * 4
    # A per-lane method gives each lane its own row.
    states = venv.env_method("lane_states")
    assert len(states) == 4 and all(s.shape == (13,) for s in states)
    np.testing.assert_array_equal(venv.env_method("lane_states", indices=[2])[0], states[2])
    assert venv.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    venv.close()


def test_attributes_and_methods_reach_a_wrapped_vector_env_and_refuse_some_lanes_only():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    vec = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=3, vectorization_mode="vector_entry_point")
    venv = SB3VecEnv(RecordEpisodeStatistics(vec))
    venv.reset()
    assert venv.get_attr("task") == ["depth_hold"] * 3
    assert venv.get_attr("dt", indices=[1]) == [pytest.approx(0.1)]
    assert [g.shape for g in venv.env_method("goals_ned")] == [(3,)] * 3
    venv.set_attr("task", "depth_hold")
    assert vec.task == "depth_hold"
    with pytest.raises(NotImplementedError):
        venv.set_attr("task", "other", indices=[0])
    with pytest.raises(NotImplementedError):
        venv.env_method("reset", indices=[1])
    venv.env_method("reset", indices=[0, 1, 2])  # every lane: one call


def test_sb3_seeding_reproduces_episodes():
    a, b = make(), make()
    a.seed(3)
    b.seed(3)
    np.testing.assert_array_equal(a.reset(), b.reset())


def test_a_terminated_episode_is_not_marked_truncated():
    venv = SB3VecEnv.make("OceanSim/WaypointNav-v0", num_envs=8, max_episode_steps=600)
    from oceansim.baselines import baseline_policy

    policy = baseline_policy(venv.venv)
    venv.seed(5)
    obs = venv.reset()
    for _ in range(600):
        obs, _, dones, infos = venv.step(policy(obs))
        for d, info in zip(dones, infos):
            if not d:
                assert info["outcome"] == "running"
            elif info["outcome"] == "arrived":
                assert info["TimeLimit.truncated"] is False and info["is_success"] is True
                return
    pytest.fail("no lane arrived in 600 steps")


def test_only_same_step_vector_envs_are_accepted():
    sync = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=2, vectorization_mode="sync")
    with pytest.raises(ValueError, match="same-step"):
        SB3VecEnv(sync)


@pytest.mark.skipif(not HAVE_SB3, reason="stable_baselines3 not installed (the GitHub workflow runs this)")
def test_sb3_ppo_accepts_and_trains_on_the_adapter():
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor

    venv = VecMonitor(make(k=4, steps=50))
    assert isinstance(venv.unwrapped, VecEnv)
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    assert len(model.ep_info_buffer) > 0, "VecMonitor saw whole episodes"
    actions, _ = model.predict(venv.reset(), deterministic=True)
    assert actions.shape == (4, 3)


@pytest.mark.skipif(not HAVE_SB3, reason="stable_baselines3 not installed (the GitHub workflow runs this)")
@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("normalized_observations", [False, True])
def test_sb3s_check_env_passes_without_a_warning(env_id, normalized_observations):
    import warnings

    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gymnasium.make(env_id, normalized_observations=normalized_observations), warn=True)


@pytest.mark.skipif(not HAVE_SB3, reason="stable_baselines3 not installed (the GitHub workflow runs this)")
def test_sb3s_make_vec_env_reports_the_time_limit():
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env("OceanSim/DepthHold-v0", n_envs=2, seed=0, env_kwargs={"episode_steps": 3})
    venv.reset()
    for _ in range(3):
        _, _, dones, infos = venv.step(np.zeros((2, 3), dtype=np.float32))
    assert dones.all()
    assert [i["outcome"] for i in infos] == ["time_limit"] * 2
    assert all(i["TimeLimit.truncated"] for i in infos)


def test_sbx_ppo_accepts_and_trains_on_the_adapter():
    sbx = pytest.importorskip("sbx", reason="sbx not installed (the GitHub workflow runs this)")
    from stable_baselines3.common.vec_env import VecMonitor

    venv = VecMonitor(make(k=4, steps=50))
    model = sbx.PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(512)
    assert len(model.ep_info_buffer) > 0, "VecMonitor saw whole episodes"
    actions, _ = model.predict(venv.reset(), deterministic=True)
    assert actions.shape == (4, 3)
