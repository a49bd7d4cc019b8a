"""``gymnasium.make_vec("Zilch-v1", vectorization_mode="vector_entry_point")``, a
native ``gymnasium.vector.VectorEnv`` over the batched engine (:mod:`zilch_env.envs.vector`).

The mirror tests run it beside one real ``Zilch-v1`` per env that rolls the same keyed dice and
sits in the same seat, playing Gymnasium's autoreset by hand the way ``SyncVectorEnv`` does, and
compare every observation, reward, flag and info key."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

import zilch_env
from zilch_env import GreedyMover, NUM_ACTIONS, ZilchEnv
from zilch_env.engine.batched import KeyedDice, stream_keys
from zilch_env.envs.gym_env import info_keys
from zilch_env.envs.vector import ZilchVectorEnv


def make_vec(n=4, **kw):
    return gym.make_vec("Zilch-v1", num_envs=n, vectorization_mode="vector_entry_point", **kw)


def test_make_vec_gives_a_native_vector_env():
    envs = make_vec(8, ruleset="farkle")
    assert isinstance(envs, VectorEnv) and isinstance(envs.unwrapped, ZilchVectorEnv)
    assert envs.single_observation_space == ZilchEnv(obs_version=3).observation_space  # Zilch-v1
    assert envs.single_action_space == gym.spaces.Discrete(NUM_ACTIONS)
    assert envs.observation_space.shape == (8, 471) and envs.num_envs == 8
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (8, 471) and obs.dtype == np.float32
    assert infos["action_mask"].shape == (8, 136) and infos["action_mask"].dtype == np.int8
    assert infos["action_mask"].any(axis=1).all()
    # the vector entry point is also the default mode of make_vec for Zilch-v1
    assert isinstance(gym.make_vec("Zilch-v1", num_envs=2).unwrapped, ZilchVectorEnv)


def test_infos_have_the_keys_and_shapes_of_a_sync_vector_env():
    sync = gym.make_vec("Zilch-v1", num_envs=3, vectorization_mode="sync", ruleset="zonk")
    native = make_vec(3, ruleset="zonk")
    _, a = sync.reset(seed=0)
    _, b = native.reset(seed=0)
    assert set(a) == set(b)
    for k in a:
        assert np.shape(a[k]) == np.shape(b[k]), k
    assert set(info_keys(2)) == {k for k in b if not k.startswith("_")}


def _mirror(mode, rs, players, n_envs, steps, seed, illegal_every=0, **kw):
    """Run ZilchVectorEnv beside Zilch-v1 envs with the same dice and seats; autoreset by hand."""
    native = ZilchVectorEnv(n_envs, rs, players, autoreset_mode=mode, **kw)
    envs = [ZilchEnv(rs, players, opponents=GreedyMover(), **kw) for _ in range(n_envs)]
    for env, key in zip(envs, stream_keys(seed, n_envs)):
        env._dice = KeyedDice(key)
    obs, infos = native.reset(seed=seed)

    def start(i):
        envs[i].fixed_seat = int(native._venv.seats[i])
        return envs[i].reset()

    def same_info(got, i, want, where):
        for k, w in want.items():
            if k == "illegal_reason":
                assert bool(got[k][i]) == bool(w), f"{where}: {k}"
            else:
                assert np.array_equal(got[k][i], w), f"{where}: {k} {got[k][i]} vs {w}"

    for i in range(n_envs):
        o, info = start(i)
        assert np.array_equal(obs[i], o)
        same_info(infos, i, info, f"reset env {i}")
    rng = np.random.default_rng(seed)
    pending = np.zeros(n_envs, dtype=bool)
    episodes = 0
    for t in range(steps):
        actions = np.zeros(n_envs, np.int64)
        for i in range(n_envs):
            legal = np.flatnonzero(infos["action_mask"][i])
            actions[i] = rng.choice(legal) if legal.size else 0
        if illegal_every and t % illegal_every == 0:
            actions[t % n_envs] = 0 if not pending[t % n_envs] else actions[t % n_envs]
        obs, rewards, term, trunc, infos = native.step(actions)
        for i in range(n_envs):
            where = f"step {t} env {i}"
            if pending[i]:  # next_step: this step restarted env i
                o, info = start(i)
                r, te, tr = 0.0, False, False
                pending[i] = False
            else:
                o, r, te, tr, info = envs[i].step(actions[i])
            if mode == "same_step" and (te or tr):
                assert np.array_equal(infos["final_obs"][i], o), where
                same_info(infos["final_info"], i, info, where + " final_info")
                assert infos["_final_info"][i]
                o, info = start(i)
            elif mode == "next_step" and (te or tr):
                pending[i] = True
            episodes += te or tr
            assert np.array_equal(obs[i], o), f"{where}: observation"
            assert rewards[i] == r and term[i] == te and trunc[i] == tr, f"{where}: {rewards[i], r, term[i], te, trunc[i], tr}"
            same_info(infos, i, info, where)
    return episodes


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("preset,players", [("zonk", 2), ("farkle", 3), ("zilch", 1)])
def test_equals_zilch_v1_step_for_step(mode, preset, players):
    assert _mirror(mode, preset, players, 6, 300, seed=players, illegal_every=37,
                   overrides={"target": 4000}) > 3


def test_equals_zilch_v1_with_every_variant():
    every = {"target": 3000, "variants.pyramiding": True, "variants.challenge": True,
             "variants.piggyback": True, "variants.six_dice_zilch_bonus": 500}
    assert _mirror("next_step", "zonk", 3, 4, 300, seed=9, overrides=every) > 3


def test_equals_zilch_v1_with_score_reward_turn_limit_and_horizon():
    assert _mirror("next_step", "farkle", 2, 4, 300, seed=5, reward="score", turns=3) > 10
    assert _mirror("same_step", "zonk", 2, 4, 300, seed=6, max_turns=4) > 10


def test_disabled_autoreset_needs_a_reset_mask():
    envs = make_vec(4, ruleset="zonk", overrides={"target": 300}, autoreset_mode="disabled")
    obs, infos = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in infos["action_mask"]]
        obs, r, term, trunc, infos = envs.step(actions)
        done = term | trunc
        if done.any():
            break
    assert done.any()
    with pytest.raises(RuntimeError, match="reset_mask"):
        envs.step(np.zeros(4, np.int64))
    obs2, infos = envs.reset(options={"reset_mask": done})
    assert infos["action_mask"][done].any(axis=1).all()
    assert np.array_equal(obs2[~done], obs[~done])
    envs.step([np.flatnonzero(m)[0] for m in infos["action_mask"]])


def test_seeded_runs_repeat():
    def run():
        envs = make_vec(5, ruleset="farkle", opponents="random")
        obs, infos = envs.reset(seed=11)
        out = [obs]
        for _ in range(100):
            obs, r, te, tr, infos = envs.step([np.flatnonzero(m)[-1] if m.any() else 0 for m in infos["action_mask"]])
            out += [obs, r]
        return out
    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_every_opponent_kind_and_variant_of_the_batched_engine():
    def first_legal(obs, masks):
        return np.array([np.flatnonzero(m)[0] for m in masks])

    for kw in ({"opponents": "random"}, {"opponents": "greedy:500"}, {"opponents": GreedyMover(400)},
               {"opponents": ["greedy", "random", first_legal], "num_players": 4},
               {"overrides": {"variants.six_dice_zilch_bonus": 500, "variants.overcoming": True,
                              "variants.zilch_penalty": {"count": 3, "points": 500, "mode": "subtract"}}},
               {"ruleset": "zilch", "num_players": 6}):
        envs = make_vec(3, **({"ruleset": "farkle"} | kw))
        obs, infos = envs.reset(seed=0)
        for _ in range(50):
            obs, r, te, tr, infos = envs.step([np.flatnonzero(m)[0] if m.any() else 0 for m in infos["action_mask"]])
        assert not infos["illegal_action"].any()
    for variant in ("pyramiding", "challenge", "piggyback"):  # every variant plays natively too
        envs = make_vec(2, ruleset="zilch15k", overrides={f"variants.{variant}": True})
        obs, infos = envs.reset(seed=0)
        for _ in range(50):
            obs, r, te, tr, infos = envs.step([np.flatnonzero(m)[0] if m.any() else 0 for m in infos["action_mask"]])
        assert not infos["illegal_action"].any()


def test_bad_arguments_name_the_value():
    with pytest.raises(ValueError, match="autoreset_mode = 'sometimes'"):
        make_vec(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="opponents: 2 given, but a game of 2 players has 1 other seats"):
        make_vec(2, opponents=[GreedyMover()] * 2)
    with pytest.raises(ValueError, match="opponent 'nobody'"):
        make_vec(2, opponents="nobody")
    envs = make_vec(2)
    with pytest.raises(ValueError, match="one int"):
        envs.reset(seed=[1, 2])
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="expected shape"):
        envs.step(np.zeros(3, np.int64))


def test_bench_script_runs():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "bench/vector.py", "--num-envs", "8", "--steps", "200"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "x SyncVectorEnv" in out.stdout


def test_unseeded_reset_goes_on_and_a_seeded_one_repeats():
    envs = make_vec(4, ruleset="zonk")
    a, _ = envs.reset(seed=3)
    b, _ = envs.reset()
    c, _ = envs.reset(seed=3)
    assert np.array_equal(a, c) and not np.array_equal(a, b)


def test_runs_without_stable_baselines3():
    """Stable-Baselines3 is in the train extra: the native vector env must not need it."""
    import subprocess
    import sys

    code = """
import sys
for m in ("stable_baselines3", "stable_baselines3.common", "stable_baselines3.common.vec_env",
          "stable_baselines3.common.vec_env.base_vec_env"):
    sys.modules[m] = None  # importing them raises ImportError
import gymnasium as gym, numpy as np, zilch_env
envs = gym.make_vec("Zilch-v1", num_envs=3, ruleset="farkle")
obs, infos = envs.reset(seed=0)
for _ in range(30):
    obs, r, te, tr, infos = envs.step([np.flatnonzero(m)[0] if m.any() else 0 for m in infos["action_mask"]])
import zilch_env.envs.vec_env as v
assert v.VecEnv.__module__ == "zilch_env.envs.vec_env"
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
