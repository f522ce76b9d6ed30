"""The Stable-Baselines3 adapter: SB3's documented ``VecEnv`` interface on
the native vector environment (always), and a real SB3 PPO rollout when
stable_baselines3 is installed (the GitHub workflow installs it; `.ci/run`
does not, torch being several GB)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import oceansim  # noqa: F401
from oceansim.sb3 import HAVE_SB3, SB3VecEnv


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
    assert venv.env_method("lane_states")[0].shape == (4, 13)
    assert venv.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    venv.close()


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
            if d and info["outcome"] == "arrived":
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
