"""The agents package as the environments' opponent provider: the entry point ``pyproject.toml``
declares (group ``zilch_rl.opponents``) loads :func:`agents.base.opponent_factory`, and with it installed
(the ``opponent_providers`` fixture sets the declared entry points) every agent spec is an ``opponents=``."""

from __future__ import annotations

import importlib.metadata as md
import tomllib
from pathlib import Path

import gymnasium as gym
import pytest

import zilch_env  # noqa: F401  (registers the envs)
from agents.base import agent_names, opponent_factory
from zilch_env.envs.opponents import ENTRY_POINT_GROUP, OpponentSpecError, opponent_names

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_declares_the_agents_factory():
    """Builds nothing: the declared entry point names the factory, and the factory lists every agent."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert declared == {"agents": "agents.base:opponent_factory"}
    assert md.EntryPoint(name="agents", value=declared["agents"], group=ENTRY_POINT_GROUP).load() is opponent_factory
    assert opponent_factory.names() == agent_names()
    assert {"heuristic", "optimal-turn", "optimal-win", "ppo", "greedy-bold"} <= set(agent_names())
    installed = {ep.name: ep.value for ep in md.entry_points(group=ENTRY_POINT_GROUP)}
    assert installed in ({}, declared)  # an install of an older tree lists none; of this one, the declared


def test_envs_seat_every_agent_spec(opponent_providers):
    assert {"heuristic", "optimal-turn", "greedy-bold"} <= set(opponent_names())
    env = gym.make("Zilch-v2", ruleset="zonk", num_players=3, opponents=["heuristic", "greedy-bold"])
    a, b = env.unwrapped.opponents
    assert type(a).__name__ == "HeuristicAgent" and b.threshold == 1000
    env.reset(seed=0)
    assert gym.make(env.spec).unwrapped.opponents[0].name == a.name  # the spec kwargs make it again
    # the vector envs: optimal-turn in the kernels (its solved turn values), heuristic refused by name
    venv = gym.make_vec("Zilch-v2", num_envs=2, ruleset="zonk", opponents="optimal-turn")
    assert (venv.unwrapped._venv._kinds[:, 1] == 3).all()
    venv.reset(seed=0)
    with pytest.raises(OpponentSpecError, match="opponent 'heuristic': the vector envs play"):
        gym.make_vec("Zilch-v2", num_envs=2, ruleset="zonk", opponents="heuristic")
    with pytest.raises(OpponentSpecError, match="unknown opponent 'nobody'; known opponents: .*heuristic.*optimal-win"):
        gym.make("Zilch-v2", opponents="nobody")


def test_vector_env_plays_a_trained_policy_as_a_batch_policy(opponent_providers):
    """``ppo:PATH`` has no kernel form; its ``act_batch`` moves every game's opponent in one call, the
    moves its ``act`` makes one game at a time."""
    import numpy as np

    from zilch_env.engine.batched import BatchedGames

    path = ROOT / "checkpoints" / "zonk"
    envs = gym.make_vec("Zilch-v2", num_envs=4, ruleset="zonk", opponents=f"ppo:{path}")
    venv = envs.unwrapped._venv
    assert (venv._kinds[:, 1] == 2).all()  # played from Python
    obs, infos = envs.reset(seed=1)
    for _ in range(30):
        obs, r, te, tr, infos = envs.step(infos["action_mask"].argmax(axis=1))
        assert not infos["illegal_action"].any()
    agent = venv._opp_policies[0]
    games = BatchedGames("zonk", 3, 2, seed=4)
    rows = np.arange(3)
    games.reset(rows)
    batch = agent.act_batch(games, rows)
    obs, masks = games.observe(games.current[rows], rows=rows), games.legal_masks(rows=rows)
    for i in rows:  # the decision act() takes on the same observation and mask, one game at a time
        assert batch[i] == agent.policy.action(obs[i], masks[i])
    assert all(games.legal_masks(rows=rows)[i, batch[i]] for i in rows)
