"""``opponents=``, one argument in every environment that seats opponents (:mod:`zilch_env.envs.opponents`):
agent specs or objects, the built-in specs without any provider, the others through the entry points
``zilch_rl.opponents`` (set here by the ``opponent_providers`` fixture), per-seat lists, and errors that
name the bad value and the known ones."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import zilch_env  # noqa: F401  (registers the envs)
from zilch_env import GreedyMover, RandomMover
from zilch_env.envs.opponents import OpponentSpecError, opponent_names
from zilch_env.envs.vec_env import BatchedZilchVecEnv


def _episode(env, seed=3, steps=60):
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        out += [obs, np.array([r])]
        if term or trunc:
            obs, info = env.reset()
    return np.concatenate(out)


def test_spec_kwargs_remake_the_same_env():
    env = gym.make("Zilch-v2", ruleset="farkle", num_players=3, opponents=["greedy:500", "random"])
    assert env.spec.kwargs["opponents"] == ["greedy:500", "random"]
    a, b = env.unwrapped.opponents
    assert type(a) is GreedyMover and a.threshold == 500 and type(b) is RandomMover
    for again in (gym.make(env.spec), gym.make("Zilch-v2", **env.spec.kwargs)):
        assert np.array_equal(_episode(again), _episode(env))
    # and a spec plays as the object it names
    obj = gym.make("Zilch-v2", ruleset="farkle", num_players=3, opponents=[GreedyMover(500), RandomMover()])
    assert np.array_equal(_episode(obj), _episode(env))


def test_unknown_specs_list_the_known_ones(opponent_providers):
    opponent_providers()  # no provider installed: the built-in specs only
    assert set(opponent_names()) == {"random", "greedy"}
    with pytest.raises(OpponentSpecError, match=r"unknown opponent 'heuristic'; known opponents: greedy, random"):
        gym.make("Zilch-v2", opponents="heuristic")
    with pytest.raises(OpponentSpecError, match=r"opponents\[1\]: unknown opponent 'nobody'"):
        gym.make("Zilch-v2", num_players=3, opponents=["greedy", "nobody"])
    with pytest.raises(OpponentSpecError, match="unknown opponent 'random:3'"):
        gym.make("Zilch-v2", opponents="random:3")
    with pytest.raises(OpponentSpecError, match="'greedy:-5'"):
        gym.make("Zilch-v2", opponents="greedy:-5")
    with pytest.raises(OpponentSpecError, match="unknown opponent 'nobody'"):
        gym.make_vec("Zilch-v2", num_envs=2, opponents="nobody")


class _Cautious(GreedyMover):
    """A provider's agent that plays in Python only (its own ``act``)."""

    def act(self, state, legal, rng):
        return int(legal[-1])


def _factory(spec, ruleset):
    name, _, arg = spec.partition(":")
    assert ruleset.name == "zonk"  # the env's ruleset reaches the factory
    return GreedyMover(int(arg or 700), name=spec) if name == "steady" else _Cautious(name=spec)


_factory.names = lambda: {"steady": "bank from 700", "cautious": "python only"}


def test_providers_resolve_the_other_specs(opponent_providers):
    opponent_providers(demo=_factory)
    assert {"random", "greedy", "steady", "cautious"} <= set(opponent_names())
    env = gym.make("Zilch-v2", ruleset="zonk", num_players=3, opponents=["steady:650", "cautious"])
    a, b = env.unwrapped.opponents
    assert a.threshold == 650 and isinstance(b, _Cautious)
    with pytest.raises(OpponentSpecError, match="known opponents: cautious, greedy, random, steady"):
        gym.make("Zilch-v2", opponents="nobody")
    # the vector env plays the provider's greedy in the kernels, the Python-only agent it refuses by name
    venv = BatchedZilchVecEnv("zonk", 4, 2, seed=0, opponents="steady")
    assert (venv._kinds[:, 1] == 1).all() and (venv._thr[:, 1] == 700).all()
    with pytest.raises(OpponentSpecError, match="opponent 'cautious': the vector envs play"):
        gym.make_vec("Zilch-v2", num_envs=2, ruleset="zonk", opponents="cautious")


def test_vector_env_seats_a_per_seat_list():
    """``opponents=[a, b]`` at three players: ``a`` plays the seat after the agent's, ``b`` the one
    after that, as in ``gymnasium.make``."""
    asked = []

    class Last:
        def act_batch(self, games, rows):
            asked.append((games.current[rows] - venv.seats[rows]) % 3)
            return np.array([np.flatnonzero(m)[-1] for m in games.legal_masks(rows=rows)])

    venv = BatchedZilchVecEnv("farkle", 6, 3, seed=2, opponents=["random", Last()])
    assert (venv._kinds[:, 1] == 0).all() and (venv._kinds[:, 2] == 2).all()
    venv.reset()
    for _ in range(40):
        venv.step(venv.action_masks().argmax(axis=1))
    assert asked and all((k == 2).all() for k in asked)
    envs = gym.make_vec("Zilch-v2", num_envs=3, ruleset="farkle", num_players=3, opponents=["greedy:400", "random"])
    assert envs.unwrapped._venv._thr[0, 1] == 400 and envs.unwrapped._venv._kinds[0, 2] == 0
    again = gym.make_vec(envs.spec).unwrapped._venv  # the spec kwargs make the same vector env
    assert np.array_equal(again._kinds, envs.unwrapped._venv._kinds) and np.array_equal(again._thr, envs.unwrapped._venv._thr)
    with pytest.raises(ValueError, match="3 given, but a game of 3 players has 2 other seats"):
        BatchedZilchVecEnv("farkle", 2, 3, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="not both"):
        BatchedZilchVecEnv("farkle", 2, 3, opponent="random", opponents="random")
