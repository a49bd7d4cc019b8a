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
from typing import Callable


from zilch_env import Policy, Ruleset, load_ruleset

__all__ = ["Agent", "Policy", "AgentSpecError", "register_agent", "make_agent", "agent_names", "kernel_agent",
           "opponent_factory"]


#: What every agent is: :class:`zilch_env.Policy`, the one player protocol (one name for it here).
Agent = Policy


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


def opponent_factory(spec: str, ruleset: Ruleset) -> Agent:
    """The environments' opponent provider: ``pyproject.toml`` declares it as the entry point
    ``agents`` of the group ``zilch_rl.opponents`` (:mod:`zilch_env.envs.opponents`), so that
    ``gymnasium.make("Zilch-v2", opponents="heuristic")`` and the vector envs build every agent spec
    of this module without ``zilch_env`` importing ``agents``. Its ``names()`` lists the specs."""
    return make_agent(spec, ruleset)


opponent_factory.names = agent_names  # type: ignore[attr-defined]


_BUILTINS_LOADED = False


#: The agent names whose agents may have a kernel form (:func:`kernel_agent` builds only these).
_KERNEL_FAMILIES = ("random", "greedy", "optimal-turn")


def kernel_agent(agent: "str | Agent | object", ruleset: Ruleset | str | None = None) -> "object":
    """The one answer to "can the fast engine play this agent?": the agent's form in the batched
    engine's kernels (a :class:`zilch_env.engine.batched.KernelAgent`), or :class:`zilch_env.UnsupportedRulesError`
    naming why not. The fast engine plays every ruleset; what decides is the agent.

    ``agent`` is a spec (then ``ruleset`` is needed), an agent object, a ``KernelAgent`` or a
    ``TurnValueTable``. The kernels play exactly: :class:`zilch_env.RandomMover` and its subclasses that
    keep its ``act`` (``random``); :class:`zilch_env.GreedyMover` with a whole-number threshold, and
    ``agents.baselines``' greedy players with one threshold for every dice count (``greedy``,
    ``greedy:500``, ``greedy-bold``, ...); ``optimal-turn`` / ``optimal-turn:plain``
    (:class:`agents.solver.OptimalTurnAgent`, as its solved values, :func:`agents.solver.turn_value_table`)
    under every rule the turn solver solves once per ruleset (not ``pyramiding``, which it does not
    model, nor ``overcoming``, whose bar needs a solve per previous turn). Greedy and optimal-turn
    games are the same move for move in both engines (tested); random players draw their moves from
    the kernels' SplitMix64 streams, equal in distribution.
    """
    import math

    from zilch_env import GreedyMover, RandomMover, UnsupportedRulesError
    from zilch_env.engine.batched import KernelAgent, TurnValueTable

    if isinstance(agent, KernelAgent):
        return agent
    if isinstance(agent, TurnValueTable):
        return KernelAgent("values", table=agent)
    if isinstance(agent, str):
        if ruleset is None:
            raise ValueError(f"kernel_agent({agent!r}): a spec needs the ruleset it plays")
        if not agent.partition(":")[0].startswith(_KERNEL_FAMILIES):
            # refused by name: building it (an ONNX policy, a game solve) only to refuse it would be waste
            raise _no_kernel_form(agent)
        agent = make_agent(agent, ruleset)
    name = getattr(agent, "name", type(agent).__name__)
    if "kernel_form" in type(agent).__dict__:  # the agent's own kernel form (optimal-turn's turn values)
        return agent.kernel_form()
    act = getattr(type(agent), "act", None)
    if isinstance(agent, RandomMover) and act is RandomMover.act:
        return KernelAgent("random")
    if isinstance(agent, GreedyMover) and act is GreedyMover.act:
        t = agent.threshold
        if t is not None and math.isfinite(t) and float(t).is_integer():
            return KernelAgent("greedy", int(t), int(agent.min_dice))
        raise UnsupportedRulesError(f"agent {name!r}: its bank thresholds differ by dice left, which the "
                                    f"kernels' greedy player does not take; it plays on the single-game engine")
    raise _no_kernel_form(name)


def _no_kernel_form(name: str) -> Exception:
    from zilch_env import UnsupportedRulesError

    return UnsupportedRulesError(f"agent {name!r} has no form in the fast engine's kernels (they play "
                                 f"random, greedy players and optimal-turn); it plays on the single-game engine")


def _load_builtins() -> None:
    """Register the agents shipped with the project (modules register themselves on import)."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    for mod in ("agents.baselines", "agents.solver.optimal_turn", "agents.solver.game", "agents.learned"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
