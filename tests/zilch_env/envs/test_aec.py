"""The PettingZoo AEC environment ``zilch_env.aec_env``."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

import zilch_env
from zilch_env import NUM_ACTIONS, OBS_SIZE, IllegalActionError, aec_env, load_ruleset, observe
from zilch_env.envs.aec import raw_env

from tests.conftest import CONFIGS


def make(config: str, num_players: int, **kw):
    preset, overrides = CONFIGS[config]
    return aec_env(preset, num_players, overrides=overrides, **kw)


@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_api_test(config, num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the warnings PettingZoo's classic games also give: a dict observation, all-zero masks for
        # the players not to move
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        warnings.filterwarnings("ignore", message="Action mask numpy array is all zeros")
        api_test(make(config, num_players), num_cycles=1000)


def play(env, seed: int, rng: np.random.Generator, check=None):
    """Masked random play of every seat to the end; returns (moves, rewards by agent)."""
    env.reset(seed=seed)
    moves = 0
    totals = {a: 0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        if check:
            check(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        moves += 1
    return moves, totals


@pytest.mark.parametrize("config", list(CONFIGS))
def test_masks_observations_and_rewards_per_player(config):
    rng = np.random.default_rng(0)

    def check(env, agent, obs):
        state = env.unwrapped.state
        seat = int(agent.split("_")[1])
        assert state.current == seat
        assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_actions()
        assert obs["action_mask"].dtype == np.int8 and obs["observation"].shape == (OBS_SIZE,)
        assert np.array_equal(obs["observation"], observe(state, seat))
        for other in env.agents:
            if other != agent:
                o = env.observe(other)
                assert not o["action_mask"].any()
                assert np.array_equal(o["observation"], observe(state, int(other.split("_")[1])))

    for n in (2, 3):
        env = make(config, n)
        for seed in range(2):
            moves, totals = play(env, seed, rng, check)
            state = env.unwrapped.state
            assert state.done and moves == state.decisions
            winners = state.winners
            for q in range(n):
                expected = (0 if len(winners) > 1 else 1) if q in winners else -1
                assert totals[f"player_{q}"] == expected
            assert not env.agents  # every agent was stepped out after the game


def test_agent_selection_follows_the_rules_in_final_turns_and_tiebreaks():
    """Under others_one_turn the final turns skip the player who reached the target; tie-break turns
    may give the same player two turns in a row; agent_selection always names state.current."""
    rs = load_ruleset("zilch5k", {"target": 600})
    rng = np.random.default_rng(1)
    tiebreaks = 0
    for seed in range(60):
        env = aec_env(rs, 3)
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert agent == f"player_{env.unwrapped.state.current}"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        tiebreaks += env.unwrapped.state.tiebreak_round > 0
    assert tiebreaks > 0


def test_one_player_game():
    env = aec_env("zilch", 1)
    moves, totals = play(env, 0, np.random.default_rng(0))
    assert moves > 0 and totals == {"player_0": 1}


def test_same_seed_same_game():
    def run(seed):
        env = make("all_variants", 3)
        rng = np.random.default_rng(seed)
        play(env, seed, rng)
        return env.unwrapped.state.to_record()

    assert run(5) == run(5)
    assert run(5)["rolls"] != run(6)["rolls"]


def test_illegal_move_ends_the_game_with_minus_one():
    env = make("zonk", 2)
    env.reset(seed=0)
    agent = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    rewards = {a: env._cumulative_rewards[a] for a in env.agents}
    assert rewards[agent] == -1 and all(r == 0 for a, r in rewards.items() if a != agent)

    raw = raw_env("zonk", 2)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="player_0"):
        raw.step(NUM_ACTIONS - 1)


def test_render_and_pickle(capsys):
    env = make("farkle", 2, render_mode="ansi")
    env.reset(seed=0)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = env.render()
    assert "player_0 rolls" in text and "player_1" in text
    human = make("farkle", 2, render_mode="human")
    human.reset(seed=0)
    obs, *_ = human.last()
    human.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "player_0" in capsys.readouterr().out
    clone = pickle.loads(pickle.dumps(raw_env("farkle", 3)))
    assert clone.num_players == 3 and clone.ruleset.name == "farkle"


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_players = 0"):
        aec_env("zonk", 0)
    with pytest.raises(ValueError, match="render_mode = 'rgb'"):
        aec_env("zonk", 2, render_mode="rgb")
    with pytest.raises(zilch_env.RulesetError, match="nosuch"):
        aec_env("nosuch", 2)
