"""Kernel agents: the agents the batched engine's kernels play, and the batch policies it plays from
Python.

A :class:`KernelAgent` is what the kernels play for many games at once: ``random`` (uniform among the
legal actions, from a per-seat SplitMix64 decision stream), ``greedy`` (:class:`zilch_env.GreedyMover`
with one whole-number threshold) or ``values`` (the turn policy of a :class:`TurnValueTable`, such as
``optimal-turn``'s from ``agents.solver.turn_value_table``). :func:`builtin_kernel_agent` turns the built-in
specs and movers into one (``agents.kernel_agent`` answers for every agent spec). Any other agent
plays as a *batch policy* (:func:`is_batch_policy`): an object with ``act_batch(games, rows)`` or a
callable ``(obs, masks) -> actions``, asked between kernel calls (:func:`batch_policy_actions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from zilch_env.players import agent_kernels as AK
from zilch_env.rules.schema import Ruleset

__all__ = ["KernelAgent", "TableSet", "TurnValueTable", "batch_policy_actions", "is_batch_policy", "builtin_kernel_agent"]


def _check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo or (
        hi is not None and value > hi
    ):
        allowed = f"a whole number from {lo} to {hi}" if hi is not None else f"a whole number, {lo} or more"
        raise ValueError(f"{name} = {value!r}: {allowed}")
    return int(value)




class TurnValueTable:
    """A turn policy given by its values, for the kernels to play (agent kind ``"values"``).

    A turn solver (``agents.solver.solve_turn``) values every state of a turn: ``values[q, j, n, i]``
    is what rolling ``n`` dice is worth under its policy ``q`` with ``j`` permanent straights and
    ``i * unit`` points at risk (the turn total is ``j * straight + i * unit``). The agent plays the
    choice of highest value at every decision, exactly as ``agents.solver.turn.TurnPolicy.best_action``:

    * each legal keep is valued by rolling on: ``values[q, j', left or dice, i']`` at the state it
      leads to (a permanent straight raises ``j``, other points raise ``i``); levels of ``j`` above the
      top one stored (``tops[q]``) fold onto it, the straights' points above it added to the value;
      from ``sizes[q]`` units at risk on, ``beyond[q, j]`` (the solver's bound beyond its cap);
    * banking after the keep, where the rules allow it (a turn total of at least ``thresholds[q]``,
      and not after forced hot dice), is valued at the new turn total;
    * the highest value wins; ties go to banking, then to the keep of more points, then to the
      lower mask.

    The policy depends on the mover's board status and zilch streak: ``select[on_board, k]`` is the
    policy for streak ``k`` (the last column for longer streaks). The values are read, not copied
    per decision, and compared in the same float64 arithmetic as the solver, so the moves are the
    solver's move for move (``tests/agents/solver/test_batched_optimal_turn.py``).

    Args:
        ruleset: the rules the values were solved for (games of other rules refuse the table).
        name: the agent's name in results and errors (e.g. ``"optimal-turn"``).
        values: float ``(policies, levels, dice + 1, N)``; ``values[q, :, 0]`` is unused.
        beyond: float ``(policies, levels)``.
        sizes, tops, thresholds: int ``(policies,)``: totals at risk stored (``<= N``), top level
            stored (``< levels``), least bankable turn total.
        select: int ``(2, streaks)``: a policy index for (off the board, on it) and each streak.
        unit: points per unit at risk (every amount a turn adds is a multiple).
        straight: points of a permanent straight, 0 when straights are not permanent.
    """

    def __init__(self, ruleset: Ruleset, name: str, values: np.ndarray, beyond: np.ndarray,
                 sizes: Sequence[int], tops: Sequence[int], thresholds: Sequence[int],
                 select: np.ndarray | Sequence[Sequence[int]], unit: int, straight: int = 0):
        if not isinstance(ruleset, Ruleset):
            raise TypeError(f"ruleset: a Ruleset, got {type(ruleset).__name__}")
        self.ruleset = ruleset
        self.name = str(name)
        self.values = np.ascontiguousarray(values, dtype=np.float64)
        P, L, D1, N = self.values.shape if self.values.ndim == 4 else (0, 0, 0, 0)
        if self.values.ndim != 4 or min(P, L, N) < 1 or D1 != ruleset.dice + 1:
            raise ValueError(f"values: expected shape (policies, levels, {ruleset.dice + 1}, totals), got "
                             f"{np.shape(values)}")
        self.beyond = np.ascontiguousarray(beyond, dtype=np.float64)
        if self.beyond.shape != (P, L):
            raise ValueError(f"beyond: expected shape {(P, L)}, got {self.beyond.shape}")
        self.sizes, self.tops, self.thresholds = (np.asarray(x, dtype=np.int64).reshape(-1)
                                                  for x in (sizes, tops, thresholds))
        for label, arr, hi in (("sizes", self.sizes, N), ("tops", self.tops, L - 1)):
            if arr.shape != (P,) or arr.min() < 0 or arr.max() > hi:
                raise ValueError(f"{label}: {P} whole numbers from 0 to {hi}, got {arr.tolist()}")
        if self.thresholds.shape != (P,):
            raise ValueError(f"thresholds: {P} whole numbers, got {self.thresholds.tolist()}")
        self.select = np.asarray(select, dtype=np.int64)
        if self.select.ndim != 2 or self.select.shape[0] != 2 or self.select.shape[1] < 1 or (
                self.select.min() < 0 or self.select.max() >= P):
            raise ValueError(f"select: shape (2, streaks) of policy indices 0 to {P - 1}, got {self.select.tolist()}")
        self.unit = _check_int("unit", unit, 1)
        self.straight = _check_int("straight", straight, 0)
        for a in (self.values, self.beyond, self.sizes, self.tops, self.thresholds, self.select):
            a.flags.writeable = False

    def __repr__(self) -> str:
        return f"TurnValueTable({self.name!r}, {self.ruleset.name!r}, policies={self.values.shape[0]})"


#: The value-table arguments of the kernels when no agent plays from a table.
_NO_VALUES = (np.zeros((1, 1, 1, 1)), np.zeros((1, 1)), np.zeros((1, AK.V_SIZE), dtype=np.int64),
              np.zeros((1, 2, 1), dtype=np.int64))


def _pack_value_tables(tables: Sequence[TurnValueTable], rulesets: Sequence[Ruleset]) -> tuple[np.ndarray, ...]:
    """The kernels' arrays for ``tables`` (table ``t`` is kind 3 with threshold ``t``): every policy
    of every table stacked, padded to common sizes (``vint`` holds each one's own sizes), and
    ``vsel[t, on_board, streak]`` its global policy index (the last streak column repeated). Each
    table must be solved for one of the games' ``rulesets`` (a game plays the table its caller seats,
    :class:`~zilch_env.envs.vec_env.BatchedZilchVecEnv` the one of the game's rules)."""
    if not tables:
        return _NO_VALUES
    for t in tables:
        if not any(t.ruleset == r for r in rulesets):
            names = ", ".join(repr(r.name) for r in rulesets[:4]) + (" ..." if len(rulesets) > 4 else "")
            raise ValueError(f"agent {t.name!r}: its turn values were solved for ruleset {t.ruleset.name!r}, "
                             f"not for the games' rules ({names}); build it for these rules")
    P = sum(t.values.shape[0] for t in tables)
    L = max(t.values.shape[1] for t in tables)
    N = max(t.values.shape[3] for t in tables)
    S = max(t.select.shape[1] for t in tables)
    vals = np.zeros((P, L, max(t.values.shape[2] for t in tables), N))
    beyond = np.zeros((P, L))
    vint = np.zeros((P, AK.V_SIZE), dtype=np.int64)
    vsel = np.zeros((len(tables), 2, S), dtype=np.int64)
    q0 = 0
    for i, t in enumerate(tables):
        p, lv, _, n = t.values.shape
        vals[q0: q0 + p, :lv, :, :n] = t.values
        beyond[q0: q0 + p, :lv] = t.beyond
        vint[q0: q0 + p, AK.V_N] = t.sizes
        vint[q0: q0 + p, AK.V_TOP] = t.tops
        vint[q0: q0 + p, AK.V_THR] = t.thresholds
        vint[q0: q0 + p, AK.V_UNIT] = t.unit
        vint[q0: q0 + p, AK.V_STRAIGHT] = t.straight
        sel = t.select + q0
        vsel[i] = np.concatenate([sel, np.repeat(sel[:, -1:], S - sel.shape[1], axis=1)], axis=1)
        q0 += p
    return vals, beyond, vint, vsel


@dataclass(frozen=True)
class KernelAgent:
    """An agent the kernels play: ``kind`` ``"random"``, ``"greedy"`` (:class:`zilch_env.GreedyMover`
    with ``threshold`` and ``min_dice``) or ``"values"`` (the policy of :class:`TurnValueTable`
    ``table``); ``"outside"`` marks a batch policy played from Python."""

    kind: str
    threshold: int = 300
    min_dice: int = 2
    table: TurnValueTable | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("random", "greedy", "values", "outside"):
            raise ValueError(f"KernelAgent kind {self.kind!r}: 'random', 'greedy', 'values' or 'outside'")
        if (self.kind == "values") != isinstance(self.table, TurnValueTable):
            raise ValueError("KernelAgent: kind 'values' takes a TurnValueTable as table, the other kinds none")

    @property
    def name(self) -> str:
        if self.table is not None:
            return self.table.name
        return {"random": "random", "outside": "batch-policy"}.get(self.kind, f"greedy{self.threshold}")


def _kernel_agents(agents: Sequence[KernelAgent], rulesets: Sequence[Ruleset]) -> tuple[np.ndarray, ...]:
    """(kinds, thresholds, min_dice, *value arrays) of ``agents`` for the kernels: kind 0 random,
    1 greedy, 2 outside, 3 values (its threshold the index of its table in the value arrays)."""
    tables: list[TurnValueTable] = []
    kinds, thr, md = [], [], []
    for a in agents:
        kinds.append({"random": 0, "greedy": 1, "outside": 2, "values": 3}[a.kind])
        md.append(a.min_dice)
        if a.table is not None:
            if not any(a.table is t for t in tables):
                tables.append(a.table)
            thr.append(next(i for i, t in enumerate(tables) if t is a.table))
        else:
            thr.append(a.threshold)
    return (np.array(kinds, dtype=np.int64), np.array(thr, dtype=np.int64), np.array(md, dtype=np.int64),
            *_pack_value_tables(tables, rulesets))


def builtin_kernel_agent(spec: "str | KernelAgent | Any") -> KernelAgent:
    """The built-in batched agent for ``spec``: ``"random"``, ``"greedy"`` (threshold 300) or
    ``"greedy:THRESHOLD"``; a :class:`zilch_env.RandomMover` or :class:`zilch_env.GreedyMover` object;
    a :class:`TurnValueTable`; or a :class:`KernelAgent`. Anything else raises ValueError naming what
    the kernels play."""
    from zilch_env.players.policy import GreedyMover, RandomMover

    if isinstance(spec, KernelAgent):
        return spec
    if isinstance(spec, TurnValueTable):
        return KernelAgent("values", table=spec)
    if isinstance(spec, RandomMover):
        return KernelAgent("random")
    if isinstance(spec, GreedyMover) and spec.threshold is not None and float(spec.threshold).is_integer():
        return KernelAgent("greedy", int(spec.threshold), int(spec.min_dice))
    if isinstance(spec, str):
        name, _, arg = spec.partition(":")
        if name == "random" and not arg:
            return KernelAgent("random")
        if name == "greedy":
            if not arg:
                return KernelAgent("greedy")
            try:
                return KernelAgent("greedy", int(arg))
            except ValueError:
                pass
    raise ValueError(f"agent {spec!r}: the batched engine plays 'random', 'greedy' and 'greedy:THRESHOLD' "
                     f"(or RandomMover / GreedyMover objects, and TurnValueTable policies such as "
                     f"agents.solver.turn_value_table(ruleset) for optimal-turn); play other agents with "
                     f"the single-game engine")


@dataclass(frozen=True, eq=False)
class TableSet:
    """A turn-value policy for each rules entry of a batch of several rulesets
    (:class:`~zilch_env.engine.batched.BatchedGames` given a list of rulesets): ``tables[i]`` plays the
    games of entry ``i``, and where it is None (rules no table is solved for) the greedy mover
    (``fallback_threshold``) plays. :class:`~zilch_env.envs.vec_env.BatchedZilchVecEnv` takes one as an
    opponent and seats, in each game, the table of that game's rules (``train/ppo.py --ruleset any``
    builds the ``optimal-turn`` one)."""

    tables: tuple[TurnValueTable | None, ...]
    name: str = "optimal-turn"
    fallback_threshold: int = 300

    def __post_init__(self) -> None:
        object.__setattr__(self, "tables", tuple(self.tables))
        for i, t in enumerate(self.tables):
            if t is not None and not isinstance(t, TurnValueTable):
                raise TypeError(f"TableSet entry {i}: a TurnValueTable or None, got {type(t).__name__}")

    def __repr__(self) -> str:
        solved = sum(t is not None for t in self.tables)
        return f"TableSet({self.name!r}, {solved} of {len(self.tables)} rulesets solved)"


def is_batch_policy(agent: Any) -> bool:
    """Whether ``agent`` is played from Python: an object with ``act_batch(games, rows)``, or a
    callable ``(obs, masks) -> actions`` (not one of the built-in baselines)."""
    if isinstance(agent, TableSet):
        return False
    try:
        builtin_kernel_agent(agent)
        return False
    except ValueError:
        return hasattr(agent, "act_batch") or callable(agent)


def batch_policy_actions(policy: Any, games: Any, rows: np.ndarray,
                         obs_size: int | None = None) -> np.ndarray:
    """The actions of a batch policy for the player to move in games ``rows``.

    Two kinds of batch policy: an object with ``act_batch(games, rows) -> actions`` reads what it
    needs from the :class:`BatchedGames` (``games.rolls[rows]``, ``games.turn_total[rows]``,
    ``games.legal_masks(rows=rows)``, ...; a solver's tables, say); a callable ``(obs, masks) ->
    actions`` gets the observations of those games from the mover's seat (as ``Zilch-v0`` would show
    them) and their legal masks (a network, say)."""
    if hasattr(policy, "act_batch"):
        actions = policy.act_batch(games, rows)
    else:
        seats = games.current[rows]
        obs = games.observe(seats, rows=rows)
        if obs_size is not None and obs_size < obs.shape[1]:  # an env of an earlier layout: its values
            obs = np.ascontiguousarray(obs[:, :obs_size])
        actions = policy(obs, games.legal_masks(rows=rows))
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    if actions.shape != rows.shape:
        raise ValueError(f"batch policy {policy!r} returned {actions.size} actions for {rows.size} games")
    return actions
