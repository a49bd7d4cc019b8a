"""The environments' opponents: one argument, ``opponents=``, in every environment that seats
opponents (``Zilch-v1`` / ``Zilch-v2``, the native vector env behind ``gymnasium.make_vec``, the
Stable-Baselines3 VecEnv), taking agent specs (the strings of ``zilch play/eval --opponent``) or
agent objects.

Specs resolve in two places:

- built in (no other package needed): ``"random"`` (:class:`~zilch_env.RandomMover`), ``"greedy"``
  and ``"greedy:THRESHOLD"`` (:class:`~zilch_env.GreedyMover`, a whole-number bank threshold; default
  300); the batched engine's kernels play all three;
- *opponent providers*: Python entry points of the group :data:`ENTRY_POINT_GROUP`
  (``zilch_rl.opponents``). Each names a factory ``(spec, ruleset) -> policy``; a factory may also
  have ``names()``, the specs' names it knows with a help line each (the errors list them). The
  project's ``agents`` package declares one in ``pyproject.toml``
  (``agents = "agents.base:opponent_factory"``: ``heuristic``, ``optimal-turn``, ``optimal-win``,
  ``ppo:PATH``, ...). ``zilch_env`` never imports ``agents``: the installed package's metadata says
  where the factory is, so any other package can add opponents the same way.

A spec string is JSON, so ``env.spec.kwargs`` of an env made with spec opponents makes the same env
again (``gymnasium.make(env.spec)``).
"""

from __future__ import annotations

import importlib.metadata
from typing import Any, Callable, Sequence

import numpy as np

from zilch_env.players.policy import GreedyMover, Policy, RandomMover
from zilch_env.rules.schema import Ruleset

__all__ = ["ENTRY_POINT_GROUP", "BUILTIN_OPPONENTS", "OpponentSpecError", "opponent_names", "make_opponent",
           "pack_opponents", "seat_opponents", "spec_name", "vector_opponent"]

#: The entry-point group of opponent providers (``[project.entry-points."zilch_rl.opponents"]``).
ENTRY_POINT_GROUP = "zilch_rl.opponents"

#: The specs ``zilch_env`` resolves itself, with their help lines.
BUILTIN_OPPONENTS = {
    "random": "uniformly random among the legal actions (zilch_env.RandomMover)",
    "greedy": "keep the most points, bank from 300, or from THRESHOLD with greedy:THRESHOLD "
              "(zilch_env.GreedyMover)",
}


class OpponentSpecError(ValueError):
    """An opponent spec that names no known opponent, or an opponent an environment cannot seat."""


def _providers() -> list[tuple[str, Callable[..., Any]]]:
    """The installed opponent providers: ``(entry-point name, factory)``, in name order."""
    eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return [(ep.name, ep.load()) for ep in sorted(eps, key=lambda ep: ep.name)]


def _provider_names(factory: Callable[..., Any]) -> dict[str, str]:
    names = getattr(factory, "names", None)
    return dict(names()) if callable(names) else {}


def opponent_names() -> dict[str, str]:
    """Every opponent spec name known here, with its help line: the built-in ones, then those of
    the installed providers (a built-in name stays built in)."""
    out = dict(BUILTIN_OPPONENTS)
    for _, factory in _providers():
        for name, help_ in _provider_names(factory).items():
            out.setdefault(name, help_)
    return out


def spec_name(spec: str) -> str:
    """The agent name of a spec: the text before ``:``."""
    return spec.partition(":")[0]


def _builtin(spec: str) -> Policy | None:
    """The built-in policy of ``spec``, or None when the spec is not one of them."""
    name, sep, arg = spec.partition(":")
    if name == "random" and not sep:
        return RandomMover()
    if name == "greedy":
        if not sep:
            return GreedyMover()
        try:
            threshold = int(arg)
        except ValueError:
            return None  # greedy:1=300,2=300,... is the agents package's
        if threshold < 0:
            raise OpponentSpecError(f"opponent {spec!r}: the bank threshold is a whole number, 0 or more")
        return GreedyMover(threshold, name=spec)
    return None


def _unknown(spec: str, names: dict[str, str]) -> OpponentSpecError:
    return OpponentSpecError(
        f"unknown opponent {spec!r}; known opponents: {', '.join(sorted(names))} (some take an argument "
        f"after ':', e.g. greedy:500 or ppo:PATH). Specs other than random and greedy come from the "
        f"installed opponent providers (entry points {ENTRY_POINT_GROUP!r}; the agents package of "
        f"zilch-rl is one)")


def make_opponent(spec: str | Policy, ruleset: Ruleset) -> Policy:
    """The policy a spec names for ``ruleset``; a policy object (anything with ``act``) passes
    through. An unknown spec raises :class:`OpponentSpecError` naming it and the known ones; an
    object without ``act`` a TypeError."""
    if not isinstance(spec, str):
        if not callable(getattr(spec, "act", None)):
            raise TypeError(f"opponent {spec!r} is not a policy (an object with act(state, legal, rng) -> "
                            f"action, zilch_env.Policy) nor an agent spec (a string such as 'greedy')")
        return spec
    policy = _builtin(spec)
    if policy is not None:
        return policy
    name = spec_name(spec)
    known = dict(BUILTIN_OPPONENTS)
    for _, factory in _providers():
        names = _provider_names(factory)
        if name in names:
            return factory(spec, ruleset)
        known.update({k: v for k, v in names.items() if k not in known})
    raise _unknown(spec, known)


def seat_opponents(opponents: Any, num_players: int, ruleset: Ruleset,
                   default: Callable[[], Policy] = GreedyMover) -> list[Policy]:
    """The policies of the ``num_players - 1`` other seats from ``opponents``: None (``default()``
    in every seat), one spec or policy for every seat, or a list of ``num_players - 1`` of them
    (the first plays the seat right after the agent's, and so on)."""
    n = int(num_players)
    if opponents is None:
        return [default()] * (n - 1)
    if isinstance(opponents, (list, tuple)):
        if len(opponents) != n - 1:
            raise ValueError(f"opponents: {len(opponents)} given, but a game of {n} players has {n - 1} other "
                             f"seats (give one spec or policy for all, or a list of {n - 1})")
        given: Sequence[Any] = list(opponents)
        where = "opponents[{}]: "
    else:
        given = [opponents] * (n - 1)
        where = ""
    made: dict[str, Policy] = {}  # one object per distinct spec, as one object given for every seat
    out = []
    for i, o in enumerate(given):
        try:
            if isinstance(o, str):
                if o not in made:
                    made[o] = make_opponent(o, ruleset)
                out.append(made[o])
            else:
                out.append(make_opponent(o, ruleset))
        except (OpponentSpecError, TypeError) as e:
            raise type(e)(where.format(i) + str(e)) from None
    return out


def vector_opponent(spec: Any, rulesets: Sequence[Ruleset]) -> Any:
    """What the batched engine plays for one opponent: a :class:`KernelAgent` (played in the
    kernels: random, greedy with a whole-number threshold, an agent's own ``kernel_form()`` such as
    ``optimal-turn``'s solved turn values), a ``TableSet`` or ``TurnValueTable`` as given, or a batch
    policy (an object with ``act_batch(games, rows)`` or a callable ``(obs, masks) -> actions``, played
    from Python). A spec resolves as for ``gymnasium.make`` (one ruleset only: with several, a spec
    that is not built in names no one ruleset to build for). Anything else raises
    :class:`OpponentSpecError` naming what the vector envs play."""
    from zilch_env.players.kernel_agents import KernelAgent, TableSet, TurnValueTable, is_batch_policy

    if isinstance(spec, (KernelAgent, TableSet, TurnValueTable)):
        return spec
    if isinstance(spec, str):
        policy = _builtin(spec)
        if policy is None:
            if len(rulesets) > 1:
                raise OpponentSpecError(f"opponent {spec!r}: with a list of rulesets only the built-in specs "
                                        f"({', '.join(BUILTIN_OPPONENTS)}) are resolved; give agent objects, or "
                                        f"a TableSet for optimal-turn")
            policy = make_opponent(spec, rulesets[0])
        spec = policy
    name = getattr(spec, "name", None) or repr(spec)
    act = getattr(type(spec), "act", None)
    if "kernel_form" in type(spec).__dict__:  # an agent's own form in the kernels (optimal-turn's values)
        return spec.kernel_form()
    if isinstance(spec, RandomMover) and act is RandomMover.act:
        return KernelAgent("random")
    if isinstance(spec, GreedyMover) and act is GreedyMover.act:
        t = spec.threshold
        if t is not None and float(t).is_integer():
            return KernelAgent("greedy", int(t), int(spec.min_dice))
    if is_batch_policy(spec):
        return spec
    raise OpponentSpecError(
        f"opponent {name!r}: the vector envs play agents with a form in the batched engine's kernels "
        f"('random', 'greedy', 'greedy:THRESHOLD', agents with kernel_form() such as 'optimal-turn', a "
        f"TurnValueTable) and batch policies (an object with act_batch(games, rows), or a callable "
        f"(obs, masks) -> actions); play {name!r} with gymnasium.make('Zilch-v2', opponents=...)")


def pack_opponents(opponent: Any, n_envs: int, num_players: int, rulesets: Sequence[Ruleset], mixed: bool,
                   per_seat: bool = False) -> dict[str, Any]:
    """The opponents of :class:`~zilch_env.envs.vec_env.BatchedZilchVecEnv` as its kernels read them,
    per env and seat offset k (1 .. players-1): ``_kinds`` 0 random, 1 greedy, 2 a batch policy, 3 a
    turn-value table (its index in the packed ``_values`` as ``_thr``), ``_opp_who`` the entrant
    (``_opp_policies[j]`` is entrant ``j``'s batch policy, or None). ``opponent`` is one entrant, or
    a list of them for the envs round-robin, or with ``per_seat`` for the seat offsets 1, 2, ... A
    TableSet's env takes the kind and table of each game's rules when its episode starts
    (``_set_envs``, ``_set_kind``, ``_set_thr``)."""
    from zilch_env.players.kernel_agents import (KernelAgent, TableSet, TurnValueTable, _kernel_agents,
                                                 builtin_kernel_agent, is_batch_policy)

    out: dict[str, Any] = {}
    specs = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
    name = "opponents" if per_seat else "opponent"
    if not specs:
        raise ValueError(f"{name}: an empty list; give one opponent or a list of them")
    if per_seat and len(specs) > 1 and len(specs) != num_players - 1:
        raise ValueError(f"opponents: {len(specs)} given, but a game of {num_players} players has "
                         f"{num_players - 1} other seats (give one spec or policy for all, or a list "
                         f"of {num_players - 1})")
    agents, policies, sets = [], [], []
    for spec in specs:
        spec = vector_opponent(spec, rulesets)
        if isinstance(spec, TableSet):
            if per_seat and len(specs) > 1:
                raise ValueError("opponents: a TableSet plays every seat of its envs; give it alone")
            if len(spec.tables) != len(rulesets):
                raise ValueError(f"opponent {spec!r}: {len(spec.tables)} tables for the env's "
                                 f"{len(rulesets)} rulesets; give one per ruleset (None where unsolved)")
            for e, t in enumerate(spec.tables):
                if t is not None and t.ruleset != rulesets[e]:
                    raise ValueError(f"opponent {spec!r}: table {e} was solved for {t.ruleset.name!r}, not "
                                     f"for the env's ruleset {e} ({rulesets[e].name!r})")
            agents.append(KernelAgent("greedy", spec.fallback_threshold))
            policies.append(None)
            sets.append(spec)
            continue
        if mixed and (isinstance(spec, TurnValueTable)
                      or (isinstance(spec, KernelAgent) and spec.table is not None)):
            raise ValueError(f"opponent {spec!r}: one turn-value table plays one ruleset; with a list "
                             f"of rulesets give a TableSet (a table per ruleset)")
        sets.append(None)
        if is_batch_policy(spec):
            agents.append(KernelAgent("outside"))
            policies.append(spec)
            continue
        agents.append(builtin_kernel_agent(spec))
        policies.append(None)
    # the TableSets' tables are packed after the specs' own agents
    extra = [KernelAgent("values", table=t) for ts in sets if ts is not None for t in ts.tables if t is not None]
    kinds, thr, md, *values = _kernel_agents(agents + extra, rulesets)
    n = num_players
    if per_seat:  # entrant k - 1 plays seat offset k (column 0, the agent's, is never read)
        who = np.broadcast_to(np.maximum(np.arange(n) - 1, 0) % len(specs), (n_envs, n))
    else:
        who = np.repeat((np.arange(n_envs) % len(specs))[:, None], n, axis=1)
    which = who[:, -1] if n > 1 else who[:, 0]  # the entrant of each env, for its TableSet
    out["_opp_who"] = np.ascontiguousarray(who)
    out["_opp_policies"] = policies
    out["_kinds"] = np.ascontiguousarray(kinds[who])
    out["_thr"] = np.ascontiguousarray(thr[who])
    out["_md"] = np.ascontiguousarray(md[who])
    out["_values"] = tuple(values)
    # per TableSet env: the (kind, threshold) of each rules entry
    out["_set_envs"] = np.flatnonzero([sets[w] is not None for w in which])
    out["_set_kind"] = np.zeros((n_envs, len(rulesets)), dtype=np.int64)
    out["_set_thr"] = np.zeros((n_envs, len(rulesets)), dtype=np.int64)
    at = len(agents)
    for j, ts in enumerate(sets):
        if ts is None:
            continue
        envs = np.flatnonzero(which == j)
        for e, t in enumerate(ts.tables):
            if t is None:
                out["_set_kind"][envs, e], out["_set_thr"][envs, e] = 1, ts.fallback_threshold
            else:
                out["_set_kind"][envs, e], out["_set_thr"][envs, e] = 3, thr[at]
                at += 1
    return out
