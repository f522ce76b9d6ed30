"""Gymnasium environments: the checker, seeding, vector determinism
across threads, autoreset, bad actions, info, safe starts, Gymnasium's
vector wrappers and the baselines."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import oceansim
from oceansim import OceanSimActionShapeError, OceanSimValueError

IDS = ["OceanSim/WaypointNav-v0", "OceanSim/DepthHold-v0"]


def test_the_import_line_of_the_readme():
    env = gymnasium.make("OceanSim/WaypointNav-v0")
    obs, info = env.reset(seed=0)
    assert obs.shape == (14,) and obs.dtype == np.float32


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("normalized_observations", [False, True])
def test_check_env_passes_without_a_warning(env_id, normalized_observations):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's checker warns through `warnings`
        check_env(gymnasium.make(env_id, normalized_observations=normalized_observations).unwrapped)


@pytest.mark.parametrize("env_id", IDS)
def test_raw_actions_pass_check_env_with_only_the_normalisation_advice(env_id):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(env_id, normalized_actions=False).unwrapped)
    assert all("symmetric and normalized" in str(w.message) for w in caught), \
        [str(w.message) for w in caught]


@pytest.mark.parametrize("env_id", IDS)
def test_the_defaults_are_normalised_actions_and_finite_observation_bounds(env_id):
    env = gymnasium.make(env_id)
    assert (env.action_space.low == -1).all() and (env.action_space.high == 1).all()
    space = env.observation_space
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    norm = gymnasium.make(env_id, normalized_observations=True).observation_space
    assert (norm.low == -1).all() and (norm.high == 1).all()
    raw = gymnasium.make(env_id, normalized_actions=False)
    assert (raw.action_space.high > 1).all(), "raw units: the scheme's newtons"


@pytest.mark.parametrize("scheme", ["force_3d", "body_force_3d", "thrusters", "waypoint_pid",
                                    "body_wrench_6dof", "body_velocity_6dof"])
def test_every_vehicle_scheme_is_an_action_space(scheme):
    env = gymnasium.make("OceanSim/DepthHold-v0", control_scheme=scheme)
    env.reset(seed=1)
    n = oceansim.ActionSpace.for_scheme(scheme).shape[0]
    assert env.action_space.shape == (n,)
    obs, r, *_ = env.step(env.action_space.sample())
    assert np.isfinite(obs).all() and np.isfinite(r)


def test_schemes_that_drive_no_vehicle_are_refused():
    with pytest.raises(OceanSimValueError):
        gymnasium.make("OceanSim/WaypointNav-v0", control_scheme="external_velocity")


def test_seeding_makes_episodes_reproducible():
    def episode(seed):
        env = gymnasium.make("OceanSim/WaypointNav-v0")
        env.action_space.seed(seed)
        obs, _ = env.reset(seed=seed)
        trace = [obs]
        for _ in range(50):
            obs, r, term, trunc, _ = env.step(env.action_space.sample())
            trace.append(obs)
            if term or trunc:
                break
        return np.array(trace)

    np.testing.assert_array_equal(episode(3), episode(3))
    assert not np.array_equal(episode(3), episode(4))


def vector_rollout(threads, seed=7, steps=120, k=24):
    env = gymnasium.make_vec("OceanSim/WaypointNav-v0", num_envs=k,
                             vectorization_mode="vector_entry_point", threads=threads,
                             max_episode_steps=50)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    out = [obs]
    ended = 0
    low, high = env.single_observation_space.low, env.single_observation_space.high
    for _ in range(steps):
        a = rng.uniform(env.action_space.low, env.action_space.high)
        obs, r, term, trunc, info = env.step(a)
        # Observations are clipped to their bounds, so containment alone
        # says nothing: a value exactly at a bound is one that was clipped.
        # The bounds are wide enough that none is.
        assert ((low < obs) & (obs < high)).all(), np.argwhere(~((low < obs) & (obs < high)))
        out += [obs, r[:, None].astype(np.float32)]
        if (term | trunc).any():
            ended += int((term | trunc).sum())
            assert info["_final_obs"].sum() == (term | trunc).sum()
    return np.concatenate([o.reshape(-1) for o in out]), ended


def test_vector_env_is_identical_on_one_and_two_threads():
    one, ended = vector_rollout(1)
    two, _ = vector_rollout(2)
    np.testing.assert_array_equal(one, two)
    assert ended >= 24 * 2, "every lane reset at least twice (50-step episodes)"


def test_bad_actions_raise_the_sdk_exceptions():
    env = gymnasium.make("OceanSim/WaypointNav-v0")
    env.reset(seed=0)
    with pytest.raises(OceanSimActionShapeError) as e:
        env.step(np.zeros(5))
    assert e.value.error_code == "invalid_action_shape"
    with pytest.raises(OceanSimValueError):
        env.step(np.array([np.nan, 0.0, 0.0]))
    # Far out of bounds is clipped, not an error.
    obs, *_ = env.step(np.array([1e30, -1e30, 0.0]))
    assert np.isfinite(obs).all()
    vec = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=4, vectorization_mode="vector_entry_point")
    vec.reset(seed=0)
    with pytest.raises(OceanSimActionShapeError):
        vec.step(np.zeros((3, 3)))


def test_transposed_or_flat_action_batches_are_refused():
    vec = gymnasium.make_vec("OceanSim/WaypointNav-v0", num_envs=3, vectorization_mode="vector_entry_point")
    vec.reset(seed=0)
    with pytest.raises(OceanSimActionShapeError):
        vec.step(np.zeros(9))
    env = gymnasium.make("OceanSim/WaypointNav-v0")
    env.reset(seed=0)
    with pytest.raises(OceanSimActionShapeError):
        env.step(np.zeros((1, 3)))


def test_unseeded_instances_run_different_episodes():
    a = gymnasium.make("OceanSim/WaypointNav-v0").reset()[0]
    b = gymnasium.make("OceanSim/WaypointNav-v0").reset()[0]
    assert not np.array_equal(a, b)
    va = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=2, vectorization_mode="vector_entry_point")
    vb = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert not np.array_equal(va.reset()[0], vb.reset()[0])
    # NumPy integers seed as well as ints do.
    np.testing.assert_array_equal(va.reset(seed=np.int64(5))[0], vb.reset(seed=5)[0])


def test_final_observations_follow_gymnasiums_same_step_convention():
    vec = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=4, vectorization_mode="vector_entry_point",
                             max_episode_steps=3)
    vec.reset(seed=0)
    for k in range(3):
        obs, r, term, trunc, info = vec.step(np.zeros((4, 3)))
    assert trunc.all() and info["_final_obs"].all() and info["_final_info"].all()
    assert info["final_obs"].dtype == object and info["final_obs"][0].shape == (8,)
    assert not np.array_equal(info["final_obs"][0], obs[0])
    # Gymnasium's layout: final_info a dict of per-lane arrays and masks.
    fin = info["final_info"]
    assert list(fin["outcome"]) == ["time_limit"] * 4 and fin["_outcome"].all()
    assert fin["error_m"].shape == (4,) and fin["is_success"].dtype == bool


def test_single_environments_end_at_the_time_limit_with_outcome_time_limit():
    # The native limit truncates: no Gymnasium TimeLimit is registered (it
    # would cut first and leave the outcome "running").
    assert gymnasium.spec("OceanSim/WaypointNav-v0").max_episode_steps is None
    assert gymnasium.make("OceanSim/WaypointNav-v0").unwrapped.max_episode_steps == 600
    assert oceansim.gym.MAX_EPISODE_STEPS == {"WaypointNav": 600, "DepthHold": 300,
                                              "TerrainFollow": 300, "SonarAvoid": 400,
                                              "Remus100Heading": 400}
    env = gymnasium.make("OceanSim/DepthHold-v0", episode_steps=4)
    for _ in range(2):
        env.reset(seed=0)
        for k in range(1, 5):
            _, _, term, trunc, info = env.step(np.zeros(3))
            assert info["outcome"] == ("time_limit" if k == 4 else "running")
            assert trunc == (k == 4) and not term
    # Gymnasium's own vector environments of single ones, as SB3's
    # make_vec_env builds them.
    sync = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=2, vectorization_mode="sync",
                              episode_steps=3)
    sync.reset(seed=0)
    for k in range(3):
        _, _, term, trunc, info = sync.step(np.zeros((2, 3)))
    assert trunc.all() and list(info["outcome"]) == ["time_limit"] * 2


def test_the_vector_info_has_the_layout_of_gymnasiums_own_same_step_vector_env():
    from gymnasium.vector import AutoresetMode

    def layout(info):
        return {k: (layout(v) if isinstance(v, dict) else
                    (np.asarray(v).dtype.kind, tuple(np.asarray(v).tolist()) if k.startswith("_") else None))
                for k, v in sorted(info.items())}

    k = 3
    native = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=k,
                                vectorization_mode="vector_entry_point", episode_steps=2)
    sync = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=k, vectorization_mode="sync",
                              vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
                              episode_steps=2)
    (no, ni), (so, si) = native.reset(seed=4), sync.reset(seed=4)
    assert layout(ni) == layout(si)
    for step in range(2):
        no, _, _, ntr, ni = native.step(np.zeros((k, 3)))
        so, _, _, str_, si = sync.step(np.zeros((k, 3)))
        assert layout(ni) == layout(si), step
    assert ntr.all() and str_.all()
    for info, obs in ((ni, no), (si, so)):
        # The top level is the new episode's (its reset info), the ended
        # one's in final_info.
        assert list(info["outcome"]) == ["running"] * k and not info["is_success"].any()
        np.testing.assert_allclose(info["error_m"], np.abs(obs[:, 0]), atol=1e-4)
        assert list(info["final_info"]["outcome"]) == ["time_limit"] * k
        assert not np.allclose(info["final_info"]["error_m"], info["error_m"])


@pytest.mark.parametrize("env_id", IDS)
def test_info_says_the_outcome_the_error_and_success(env_id):
    env = gymnasium.make(env_id)
    obs, info = env.reset(seed=3)
    assert info["outcome"] == "running" and info["is_success"] is False
    assert info["error_m"] == pytest.approx(abs(obs[0]) if "Depth" in env_id else obs[13], abs=1e-4)
    _, _, _, _, info = env.step(np.zeros(3))
    assert set(info) == {"outcome", "error_m", "is_success"}
    assert info["outcome"] in oceansim.gym.OUTCOMES and info["outcome"] == "running"
    assert info["error_m"] >= 0 and isinstance(info["is_success"], bool)
    if env_id.endswith("DepthHold-v0"):
        assert info["error_m"] == pytest.approx(abs(obs[0]), abs=0.05)
    else:
        assert info["error_m"] == pytest.approx(obs[13], abs=0.05)


@pytest.mark.parametrize("env_id", IDS)
def test_ten_thousand_resets_never_end_at_the_first_step(env_id):
    # Issue #34: 3 % of episodes used to start in contact and end at once.
    vec = gymnasium.make_vec(env_id, num_envs=10_000, vectorization_mode="vector_entry_point")
    obs, _ = vec.reset(seed=0)
    assert vec.observation_space.contains(obs)
    _, r, term, trunc, info = vec.step(np.zeros((10_000, 3)))
    assert not term.any() and not trunc.any() and (info["outcome"] == "running").all()


def test_gymnasiums_vector_wrappers_run_on_the_native_vector_env():
    from gymnasium.wrappers.vector import ClipAction, RecordEpisodeStatistics, RescaleAction

    vec = gymnasium.make_vec("OceanSim/DepthHold-v0", num_envs=8, vectorization_mode="vector_entry_point",
                             max_episode_steps=20)
    # (Gymnasium's NormalizeObservation refuses same-step autoreset; the
    # environment's normalized_observations option does without it.)
    vec = RecordEpisodeStatistics(ClipAction(RescaleAction(vec, np.float32(-2), np.float32(2))))
    vec.reset(seed=0)
    episodes = 0
    for _ in range(45):
        _, _, term, trunc, info = vec.step(vec.action_space.sample())
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (info["episode"]["l"][info["_episode"]] == 20).all()
    assert episodes == 16, "two 20-step episodes per lane"


@pytest.mark.parametrize("env_id, goal", [("OceanSim/DepthHold-v0", 0.9), ("OceanSim/WaypointNav-v0", 0.6)])
@pytest.mark.parametrize("normalized_observations", [False, True])
def test_the_baseline_controller_reaches_the_goal(env_id, goal, normalized_observations):
    from oceansim.baselines import baseline_policy

    k = 64
    vec = gymnasium.make_vec(env_id, num_envs=k, vectorization_mode="vector_entry_point",
                             normalized_observations=normalized_observations)
    policy = baseline_policy(vec)
    obs, _ = vec.reset(seed=21)
    done = np.zeros(k, dtype=bool)
    success = np.zeros(k, dtype=bool)
    ret = np.zeros(k)
    while not done.all():
        obs, r, term, trunc, info = vec.step(policy(obs))
        ret += np.where(done, 0.0, r)
        ended = (term | trunc) & ~done
        if ended.any():
            # The ended episodes' last info (the top level is the new ones').
            success[ended] = info["final_info"]["is_success"][ended]
        done |= ended
    assert success.mean() >= goal, f"{success.mean():.0%} of {k} episodes reached the goal"
    # On the rewards' one scale (docs/python.md): a perfect episode ~2.
    assert ret.mean() > 1.2, ret.mean()


def test_hostile_inputs_raise_the_sdks_errors():
    env = gymnasium.make("OceanSim/WaypointNav-v0")
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning
        obs, *_ = env.step(np.array([1e308, -1e308, 1e308]))  # clipped to [-1, 1] first
    assert np.isfinite(obs).all()
    for bad in (np.inf, -np.inf, np.nan):
        with pytest.raises(OceanSimValueError) as e:
            env.step(np.array([bad, 0.0, 0.0]))
        assert e.value.error_code == "invalid_action"
    for kwargs in ({"num_envs": -1}, {"num_envs": 0}, {"threads": -2}, {"map_seed": -1},
                   {"max_episode_steps": -5}, {"max_episode_steps": 0}, {"num_envs": 2**70}):
        with pytest.raises(OceanSimValueError):
            oceansim.gym.OceanSimVectorEnv("depth_hold", **{"num_envs": 2, **kwargs})
    with pytest.raises(OceanSimValueError):
        gymnasium.make("OceanSim/DepthHold-v0", episode_steps=-1)
    with pytest.raises(OceanSimValueError):
        env.reset(seed=-1)
    vec = oceansim.gym.OceanSimVectorEnv("depth_hold", num_envs=2)
    with pytest.raises(OceanSimValueError):
        vec.reset(seed=2**64)
    import os

    if hasattr(os, "sched_getaffinity"):
        assert vec.threads == len(os.sched_getaffinity(0))
