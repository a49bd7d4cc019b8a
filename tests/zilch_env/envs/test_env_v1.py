"""``Zilch-v1`` pins the MDP; ``__version__``; the
``rgb_array`` render and ``RecordVideo``; PettingZoo's ``env()`` / ``raw_env`` names."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import zilch_env
from zilch_env import NUM_ACTIONS, OBS_SIZE, V1_PINS, V2_PINS, ZilchEnv
from zilch_env.engine.observation import LAYOUT, OBS_SIZES, OBS_VERSION

ROOT = Path(__file__).resolve().parents[3]

#: Observation layout 3, field by field: (name, size). Changing it is Zilch-v2.
V1_LAYOUT = [("phase", 4), ("to_move", 1), ("roll_counts", 6), ("roll_dice", 36), ("dice_left", 1),
             ("turn_total", 1), ("permanent", 1), ("bank_threshold", 1), ("to_bank", 1),
             ("bank_allowed", 1), ("last_result", 1), ("to_overcome", 1), ("offer", 3), ("frozen", 6),
             ("final_round", 1), ("final_turns_left", 1), ("tiebreak", 1), ("tiebreak_round", 1),
             ("lead", 1), ("deficit", 1), ("challenge_options", 3), ("players", 60), ("rules", 18),
             ("keep_points", 64), ("keep_dice", 64), ("keep_lead", 64), ("keep_ahead", 64),
             ("keep_target", 64)]


def test_zilch_v1_pins_the_layouts_horizon_and_rewards():
    assert V1_PINS["obs_version"] == 3 and OBS_SIZES[3] == V1_PINS["obs_size"] == 471
    assert V1_PINS["num_actions"] == NUM_ACTIONS == 136
    assert [(f.name, f.index.stop - f.index.start) for f in LAYOUT][: len(V1_LAYOUT)] == V1_LAYOUT
    spec = gym.spec("Zilch-v1")
    assert spec.kwargs == {"max_turns": 1000, "reward": "win", "illegal_action": "penalty", "obs_version": 3}
    assert spec.vector_entry_point == "zilch_env.envs.vector:ZilchVectorEnv"
    env = gym.make("Zilch-v1")
    assert env.unwrapped.max_turns == 1000 and env.unwrapped.obs_version == 3
    assert env.observation_space.shape == (471,) and env.action_space.n == 136
    assert gym.make_vec("Zilch-v1", num_envs=3).single_observation_space.shape == (471,)


def test_zilch_v2_is_v1_with_the_rules_written_out():
    assert V2_PINS == {**V1_PINS, "obs_version": 4, "obs_size": 516} and OBS_VERSION == 4 and OBS_SIZE == 516
    assert [(f.name, f.index.stop - f.index.start) for f in LAYOUT] == V1_LAYOUT + [("rules_table", 45)]
    spec = gym.spec("Zilch-v2")
    assert spec.kwargs == {"max_turns": 1000, "reward": "win", "illegal_action": "penalty", "obs_version": 4}
    v1, v2 = gym.make("Zilch-v1", ruleset="farkle"), gym.make("Zilch-v2", ruleset="farkle")
    o1, _ = v1.reset(seed=5)
    o2, _ = v2.reset(seed=5)
    assert o2.shape == (516,) and np.array_equal(o2[:471], o1) and v2.observation_space.contains(o2)
    vec = gym.make_vec("Zilch-v2", num_envs=3)
    obs, _ = vec.reset(seed=1)
    assert obs.shape == (3, 516)
    with pytest.raises(ValueError, match="obs_version = 7: one of the observation layouts 1, 2, 3, 4"):
        ZilchEnv(obs_version=7)


def test_zilch_v1_seeded_episode_is_pinned():
    """A seeded episode's observations and rewards, bit for bit: a change of the MDP (observation,
    dice stream, default opponent, rewards) shows here and needs a new version."""
    env = gym.make("Zilch-v1", ruleset="zonk")
    obs, info = env.reset(seed=123)
    h = hashlib.sha256(obs.tobytes())
    rng = np.random.default_rng(0)
    rewards = []
    while True:
        legal = np.flatnonzero(info["action_mask"])
        obs, r, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
        h.update(obs.tobytes())
        rewards.append(r)
        if term or trunc:
            break
    assert (len(rewards), sum(rewards), env.unwrapped.state.scores) == (40, -1.0, [4400, 10050])
    assert h.hexdigest()[:16] == "0f3eba8795fb2e8a"


def test_zilch_v0_keeps_working_and_says_what_it_is():
    env = gym.make("Zilch-v0", ruleset="farkle")
    obs, info = env.reset(seed=0)
    assert obs.shape == (516,) and gym.spec("Zilch-v0").vector_entry_point is None
    doc = ZilchEnv.__doc__
    assert "- v1 (``Zilch-v1``)" in doc and "- v0 (``Zilch-v0``)" in doc and "151" in doc
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make("Zilch-v1", render_mode="rgb_array").unwrapped, skip_render_check=False)


def test_version_is_single_sourced_with_pyproject():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "zilch_env.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", zilch_env.__version__)
    cff = (ROOT / "CITATION.cff").read_text()
    assert f'version: "{zilch_env.__version__}"' in cff
    # the release: CHANGELOG's section of this version is dated, and CITATION.cff gives the same date
    released = re.search(r'^date-released: "(\d{4}-\d{2}-\d{2})"$', cff, re.M)
    assert released, "CITATION.cff has no date-released"
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{zilch_env.__version__}] - {released.group(1)}" in changelog
    for env_id in ("Zilch-v0", "Zilch-v1", "Zilch-v2", "zilch_v1", "zilch_v2", "python_zilch"):
        assert env_id in cff and env_id in changelog, env_id
    assert (ROOT / "LICENSE").read_text().startswith("MIT License") and meta["project"]["license"] == "MIT"
    # the installed wheel's metadata agrees: tests/test_build.py


# ------------------------------------------------------------------ rgb_array


def test_rgb_array_render_shows_the_game():
    env = gym.make("Zilch-v1", ruleset="farkle", render_mode="rgb_array")
    obs, info = env.reset(seed=3)
    first = env.render()
    assert first.shape == (400, 640, 3) and first.dtype == np.uint8
    frames = [first]
    while True:
        legal = np.flatnonzero(info["action_mask"])
        obs, r, term, trunc, info = env.step(int(legal[0]))
        frames.append(env.render())
        if term or trunc:
            break
    assert len({f.tobytes() for f in frames}) > len(frames) // 2  # the picture follows the game
    assert (frames[0] != frames[0][0, 0]).any(axis=-1).mean() > 0.05  # something is drawn
    from zilch_env import aec_env

    a = aec_env("zonk", 2, render_mode="rgb_array")
    a.reset(seed=0)
    assert a.render().shape == (400, 640, 3)


def test_record_video_records_one_episode(tmp_path):
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gym.make("Zilch-v1", ruleset="zonk", render_mode="rgb_array",
                               overrides={"target": 1500}),
                      str(tmp_path), episode_trigger=lambda ep: ep == 0, disable_logger=True)
    obs, info = env.reset(seed=0)
    steps = 0
    while True:
        legal = np.flatnonzero(info["action_mask"])
        obs, r, term, trunc, info = env.step(int(legal[-1]))
        steps += 1
        if term or trunc:
            break
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000, (steps, list(tmp_path.iterdir()))


# ------------------------------------------------------------------ PettingZoo names


def test_pettingzoo_classic_module_names():
    from pettingzoo.test import api_test, render_test, seed_test

    from zilch_env.envs import zilch_v1, zilch_v2
    from zilch_env.envs.aec import raw_env

    assert zilch_env.envs.aec.env is zilch_env.aec_env and issubclass(zilch_v1.raw_env, raw_env)
    with pytest.raises(ValueError, match="pins observation layout 3"):
        zilch_v1.raw_env(obs_version=4)
    assert zilch_v2.raw_env().metadata["name"] == "zilch_v2"
    assert zilch_v2.raw_env().observation_space("player_0")["observation"].shape == (516,)
    api_test(zilch_v2.env(ruleset="farkle", num_players=3), num_cycles=20)
    e = zilch_v1.env(ruleset="zonk", num_players=2)
    assert e.metadata["name"] == "zilch_v1" and not e.metadata["is_parallelizable"]
    assert e.unwrapped.observation_space("player_0")["observation"].shape == (471,)
    api_test(e, num_cycles=50)
    seed_test(lambda: zilch_v1.env(ruleset="zonk"), num_cycles=20)
    render_test(lambda render_mode=None: zilch_v1.env(ruleset="zonk", render_mode=render_mode))  # rgb_array too
    assert "Why there is no Parallel API" in raw_env.__doc__


def test_action_mask_dict_wrapper_for_rllib():
    from gymnasium.utils.env_checker import check_env

    from zilch_env.envs.wrappers import ActionMaskDict

    env = ActionMaskDict(gym.make("Zilch-v1", ruleset="farkle"))
    check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert set(obs) == {"action_mask", "observations"} and env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"], info["action_mask"]) and obs["action_mask"].dtype == np.float32
    while True:
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert env.observation_space.contains(obs)
        if term or trunc:
            break
    assert not obs["action_mask"].any()
