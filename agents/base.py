"""The one agent interface, and agent specs: how every part of the project names an agent.

An agent is any object with a ``name`` and ``act(state, legal, rng) -> action`` (the
:class:`zilch_env.Policy` protocol): it sees the game from its seat (``state.current``) and its legal
actions, and returns one. The environments take agents as opponents; the evaluation module, training
and the web game call the same method.

Agent specs are strings, the same on every command line: a name (``random``, ``greedy``,
``heuristic``, ``optimal-turn``, ``optimal-win``, ...) optionally followed by ``:ARG``
(``greedy:500``, ``ppo:checkpoints/zonk``). :func:`make_agent` turns a spec into an agent for a ruleset.
"""

from __future__ import annotations

import importlib
from typing import Callable, Protocol, Sequence

import numpy as np

from zilch_env import GameState, Policy, Ruleset, load_ruleset

__all__ = ["Agent", "Policy", "AgentSpecError", "register_agent", "make_agent", "agent_names"]


class Agent(Protocol):
    """What every agent is: :class:`zilch_env.Policy`."""

    name: str

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int: ...


class AgentSpecError(ValueError):
    """An agent spec that names no agent, or an argument the agent cannot take."""


# name -> (factory "module:function" or callable, one-line help). A factory takes (ruleset, arg) where
# arg is the text after ':' or None. Strings keep heavy imports (torch, solvers) out until used.
_REGISTRY: dict[str, tuple[str | Callable[[Ruleset, str | None], Agent], str]] = {}


def register_agent(name: str, factory: str | Callable[[Ruleset, str | None], Agent], help: str) -> None:
    """Make ``name`` (and ``name:ARG``) a valid agent spec everywhere."""
    _REGISTRY[name] = (factory, help)


def agent_names() -> dict[str, str]:
    """Every registered agent name with its help line."""
    _load_builtins()
    return {k: h for k, (_, h) in sorted(_REGISTRY.items())}


def make_agent(spec: str | Agent, ruleset: Ruleset | str) -> Agent:
    """The agent a spec names, for ``ruleset``; an agent object passes through unchanged."""
    if not isinstance(spec, str):
        return spec
    _load_builtins()
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    name, _, arg = spec.partition(":")
    if name not in _REGISTRY:
        raise AgentSpecError(f"unknown agent {spec!r}; known agents: {', '.join(sorted(_REGISTRY))} "
                             f"(some take an argument after ':', e.g. greedy:500 or ppo:PATH)")
    factory, _ = _REGISTRY[name]
    if isinstance(factory, str):
        mod, _, fn = factory.partition(":")
        factory = getattr(importlib.import_module(mod), fn)
    return factory(rs, arg or None)


_BUILTINS_LOADED = False


def _load_builtins() -> None:
    """Register the agents shipped with the project (modules register themselves on import)."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    for mod in ("agents.baselines", "agents.solver", "agents.game_solver", "agents.learned"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
