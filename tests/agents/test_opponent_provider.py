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
