"""The turn solver under pyramiding: the pass of the dice is part of the state.

Under ``variants.pyramiding`` newly kept dice may join the dice of their face frozen earlier in the
same pass of the dice (docs/rules.md, the variants), so what a roll is worth depends on them. The
turn's state between rolls is the total at risk ``a`` and the *pass state*: the frozen dice of each
face and the points they scored, from which the dice to roll follow. The pass states are those
reachable from an empty pass through the engine's own keep functions
(:func:`zilch_env.rules.scoring.pass_keeps`, :func:`zilch_env.rules.scoring.pyramid_freeze`); hot dice (every
die set aside) return to the empty pass, and a six-dice zilch bonus is a keep of nothing worth the
bonus that stays in the empty pass with all the dice to roll. The values follow by backward induction
over ``a`` from the cap down, as in :mod:`agents.solver.turn`:

    R(s, a) = sum_roll P(roll) * max_keep after(s', a + points, dice left)
    after(s, a, m) = max(a if banking is allowed, R(s, a))

with the same bounds beyond the cap, per pass state: from below a zilch (or the bank), from above
``(1 - z_s) a + S_s`` (``z_s`` the zilch chance of a roll in state ``s``, ``S_s`` the collect bound
from ``s``). Permanent straights under pyramiding are not modelled (refused by the caller).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from zilch_env.jit import njit

from zilch_env import Ruleset
from zilch_env.engine import layout as L
from zilch_env.engine.game import keep_action
from zilch_env.rules.primitives import nb_can_bank
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.scoring import BONUS_KEEPS, bonus_of, pass_keeps, pyramid_freeze, scoring_table

from agents.solver.turn_policy import MAX_GRID, Advice, Choice, SolverError, TurnPolicy, certified_bound

_EMPTY = (0, 0, 0, 0, 0, 0)


@dataclass(frozen=True, eq=False)
class PassGraph:
    """Every pass state of a ruleset with its rolls and keeps, as flat arrays (state 0: the empty pass)."""

    states: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # (frozen, frozen points) per state
    index: dict  # (frozen, frozen points) -> state
    dice: np.ndarray  # dice rolled from each state
    r_lo: np.ndarray  # the rolls of state s are entries r_lo[s] .. r_lo[s + 1] - 1
    r_p: np.ndarray  # probability of each roll entry
    k_lo: np.ndarray  # the keeps of roll entry e are k_lo[e] .. k_lo[e + 1] - 1 (none: a zilch)
    k_pts: np.ndarray  # points a keep adds at risk (the six-dice bonus for the keep of nothing)
    k_next: np.ndarray  # the pass state after the keep (0 after hot dice)
    k_left: np.ndarray  # dice not set aside after it (0: hot dice)
    zilch: np.ndarray  # chance that a roll from each state has no keep
    unit: int  # every amount added at risk is a multiple of it


@lru_cache(maxsize=16)
def pass_graph(rs: Ruleset) -> PassGraph:
    """The reachable pass states of ``rs`` (pyramiding on), by breadth-first search from the empty pass."""
    cr = compile_rules(rs)
    rp = cr.params(1)
    sc, D = rs.scoring, int(rp[L.R_DICE])
    table = scoring_table(rs)
    all_scoring = bool(rp[L.R_ALL_SCORING])
    bonus = int(rp[L.R_SIX_DICE_BONUS])
    states = [(_EMPTY, _EMPTY)]
    index = {states[0]: 0}
    dice, r_lo, r_p, k_lo, k_pts, k_next, k_left, zil = [], [0], [], [0], [], [], [], []
    s = 0
    while s < len(states):
        fz, fp = states[s]
        n = D - sum(fz)
        dice.append(n)
        z = 0.0
        for r in cr.rolls_of(n):
            roll, p = cr.rolls[r], float(cr.roll_p[r])
            keeps = pass_keeps(sc, table.rolls[roll], fz, fp, True, all_scoring, bool(bonus) and n == D)
            r_p.append(p)
            if not keeps:
                z += p
            for k in keeps:
                if keeps is BONUS_KEEPS:
                    pts, nxt, left = bonus, 0, D
                else:
                    pts, left = k.points, n - k.n
                    if pts <= 0:
                        raise SolverError(f"under pyramiding the keep {list(k.dice)} of {list(roll)} adds "
                                          f"{pts} points: the turn solver needs every keep to add points")
                    if left == 0:
                        nxt = 0
                    else:
                        key = tuple(map(tuple, pyramid_freeze(sc, k, fz, fp)))
                        nxt = index.get(key)
                        if nxt is None:
                            nxt = index[key] = len(states)
                            states.append(key)
                k_pts.append(pts)
                k_next.append(nxt)
                k_left.append(left)
            k_lo.append(len(k_pts))
        r_lo.append(len(r_p))
        zil.append(z)
        s += 1
    unit = math.gcd(cr.unit, *k_pts) if k_pts else cr.unit
    i64 = np.int64
    return PassGraph(tuple(states), index, np.array(dice, i64), np.array(r_lo, i64), np.array(r_p),
                     np.array(k_lo, i64), np.array(k_pts, i64), np.array(k_next, i64), np.array(k_left, i64),
                     np.array(zil), unit)


def endless(pg: PassGraph) -> bool:
    """Whether some pass states let a turn go on for ever: the largest set C of states from each of
    which every roll has a keep leading back into C is not empty."""
    C = set(range(len(pg.states)))
    changed = True
    while changed:
        changed = False
        for s in sorted(C):
            for e in range(pg.r_lo[s], pg.r_lo[s + 1]):
                if not any(int(pg.k_next[k]) in C for k in range(pg.k_lo[e], pg.k_lo[e + 1])):
                    C.discard(s)
                    changed = True
                    break
    return bool(C)


@njit(cache=True)
def _collect_step(S, r_lo, r_p, k_lo, k_pts, k_next):
    out = np.zeros(S.shape[0])
    for s in range(S.shape[0]):
        tot = 0.0
        for e in range(r_lo[s], r_lo[s + 1]):
            best = 0.0
            for k in range(k_lo[e], k_lo[e + 1]):
                v = k_pts[k] + S[k_next[k]]
                if v > best:
                    best = v
            tot += r_p[e] * best
        out[s] = tot
    return out


def collect_bound(pg: PassGraph) -> np.ndarray:
    """An upper bound on the points a turn can still collect from each pass state, verified (T(U) <= U)."""
    if endless(pg):
        raise SolverError("a turn can go on for ever under these rules: from some pass of the dice every "
                          "roll can be kept so that the turn continues; make some roll a zilch")
    args = (pg.r_lo, pg.r_p, pg.k_lo, pg.k_pts, pg.k_next)
    return certified_bound(lambda S: _collect_step(S, *args), len(pg.states))


@njit(cache=True)
def _backward(N, g, thr, forced, c, r_lo, r_p, k_lo, k_pts_u, k_next, k_left, zs, S, upper):
    ns = zs.shape[0]
    R = np.zeros((ns, N))
    Z = np.zeros((ns, N))
    for i in range(N - 1, -1, -1):
        for s in range(ns):
            val = 0.0
            zz = 0.0
            for e in range(r_lo[s], r_lo[s + 1]):
                pr = r_p[e]
                if k_lo[e] == k_lo[e + 1]:  # a zilch: nothing recorded, plus the streak term
                    val += pr * c
                    zz += pr
                    continue
                best = -np.inf
                bz = 0.0
                for k in range(k_lo[e], k_lo[e + 1]):
                    i2 = i + k_pts_u[k]
                    s2 = k_next[k]
                    if i2 < N:
                        rv, rz = R[s2, i2], Z[s2, i2]
                    elif upper:
                        rv, rz = i2 * g * (1.0 - zs[s2]) + S[s2] + max(c, 0.0), 0.0
                    else:
                        rv, rz = min(c, 0.0), 1.0
                    total = i2 * g
                    if nb_can_bank(total, k_left[k], thr, forced) and total >= rv:
                        v, zk = total, 0.0
                    else:
                        v, zk = rv, rz
                    if v > best:
                        best = v
                        bz = zk
                val += pr * best
                zz += pr * bz
            R[s, i] = val
            Z[s, i] = zz
    return R, Z


def solve_policy(rs: Ruleset, on_board: bool, threshold: int, offset: float, cap: int, upper: bool = False):
    """The pyramiding counterpart of ``agents.solver.turn._solve_policy``: a :class:`PassPolicy`."""
    pg = pass_graph(rs)
    S = collect_bound(pg)
    g = pg.unit
    N = cap // g + 1
    if N * len(pg.states) > MAX_GRID * (rs.dice + 1):
        raise SolverError(f"the turn solve needs totals up to {cap} in steps of {g} for {len(pg.states)} "
                          f"passes of the dice: too many states")
    Rp, Zp = _backward(N, float(g), float(threshold), rs.hot_dice == "forced", float(offset), pg.r_lo, pg.r_p,
                       pg.k_lo, pg.k_pts // g, pg.k_next, pg.k_left, pg.zilch, S, upper)
    R = np.zeros((1, rs.dice + 1, N))
    Z = np.zeros((1, rs.dice + 1, N))
    R[0, rs.dice], Z[0, rs.dice] = Rp[0], Zp[0]  # the empty pass: a fresh roll of all the dice
    return PassPolicy(rs, on_board, threshold, float(offset), g, 0, 0, (N - 1) * g, R, Z, pg, Rp, Zp)


class PassPolicy(TurnPolicy):
    """A :class:`agents.solver.turn.TurnPolicy` under pyramiding: its values are per pass state
    (``Rp[s, i]``; ``R[0, dice]`` holds the empty pass's, a fresh roll of all the dice), so the value
    of rolling fewer dice needs the dice frozen in this pass (``frozen``, ``frozen_points``, as
    :class:`zilch_env.GameState` has them)."""

    def __init__(self, rs, on_board, threshold, offset, unit, straight, levels, cap, R, Z, graph, Rp, Zp):
        super().__init__(rs, on_board, threshold, offset, unit, straight, levels, cap, R, Z)
        object.__setattr__(self, "graph", graph)
        object.__setattr__(self, "Rp", Rp)
        object.__setattr__(self, "Zp", Zp)

    @property
    def values(self) -> np.ndarray:
        return self.Rp

    def _state(self, dice: int, frozen: Sequence[int] | None, frozen_points: Sequence[int] | None) -> int:
        D = self.ruleset.dice
        if frozen is None or not any(frozen):
            if dice != D and frozen is None:
                raise ValueError(f"under pyramiding the value of rolling {dice} of {D} dice depends on the "
                                 f"dice frozen in this pass: give frozen and frozen_points")
            if dice != D:
                raise ValueError(f"nothing frozen in this pass, so all {D} dice are rolled, not {dice}")
            return 0
        key = (tuple(int(x) for x in frozen), tuple(int(x) for x in (frozen_points or _EMPTY)))
        s = self.graph.index.get(key)
        if s is None:
            raise ValueError(f"frozen dice {list(key[0])} with points {list(key[1])}: no pass of the dice "
                             f"under these rules reaches them")
        if int(self.graph.dice[s]) != dice:
            raise ValueError(f"with {sum(key[0])} dice frozen in this pass {D - sum(key[0])} dice are "
                             f"rolled, not {dice}")
        return s

    def _rollp(self, s: int, i: int) -> float:
        if i < self.Rp.shape[1]:
            return float(self.Rp[s, i])
        return min(self.zilch_offset, 0.0)  # beyond the cap: the lower bound

    def roll_value(self, turn_total: int, dice: int, permanent: int = 0,
                   frozen: Sequence[int] | None = None, frozen_points: Sequence[int] | None = None) -> float:
        """Expected points when about to roll ``dice`` dice with this turn total and frozen dice."""
        self._check_dice(dice)
        _, _, i = self._index(turn_total, permanent)
        return self._rollp(self._state(dice, frozen, frozen_points), i)

    def value(self, turn_total: int, dice_left: int, permanent: int = 0,
              frozen: Sequence[int] | None = None, frozen_points: Sequence[int] | None = None) -> float:
        """Expected points at a decision to bank ``turn_total`` or roll ``dice_left`` dice."""
        self._check_dice(dice_left)
        D = self.ruleset.dice
        hot = dice_left == D and turn_total > 0 and (frozen is None or not any(frozen))
        roll = self.roll_value(turn_total, dice_left, permanent, frozen, frozen_points)
        if self.can_bank(turn_total, 0 if hot else dice_left) and turn_total >= roll:
            return float(turn_total)
        return roll

    def decide(self, roll: Sequence[int], turn_total: int, permanent: int = 0,
               frozen: Sequence[int] | None = None, frozen_points: Sequence[int] | None = None):
        """Every legal keep of ``roll`` with bank and roll, valued, best first (``turn_total`` before
        it, ``frozen``/``frozen_points`` the dice frozen earlier in this pass)."""
        rs = self.ruleset
        info = scoring_table(rs).info(roll)
        n = len(info.dice)
        s = self._state(n, frozen, frozen_points)
        fz, fp = self.graph.states[s]
        self._index(turn_total, permanent)
        bonus = bonus_of(rs, info)
        keeps = pass_keeps(rs.scoring, info, fz, fp, True, rs.keep == "all_scoring", bool(bonus))
        choices = []
        for k in keeps:
            left = n - k.n
            total = turn_total + bonus + k.points
            if left == 0 or keeps is BONUS_KEEPS:
                s2 = 0
            else:
                s2 = self.graph.index[tuple(map(tuple, pyramid_freeze(rs.scoring, k, fz, fp)))]
            roll_v = self._rollp(s2, self._index(total, 0)[2])
            choices.append(Choice(k, False, roll_v, keep_action(k.mask, False)))
            if self.can_bank(total, left):
                choices.append(Choice(k, True, float(total), keep_action(k.mask, True)))
        choices.sort(key=lambda ch: (-ch.value, not ch.bank, -ch.keep.points, ch.keep.mask))
        return Advice(info.dice, turn_total, permanent, tuple(choices))

    def bank_totals(self) -> dict[int, int | None]:
        """For a fresh roll of all the dice (the empty pass), the least turn total from which this
        policy banks whenever it may and never rolls again below the cap; under pyramiding the other
        dice counts depend on the frozen dice and are not listed."""
        D = self.ruleset.dice
        first = None
        for i in range(self.Rp.shape[1] - 1, -1, -1):
            t = i * self.unit
            if not self.can_bank(t, 0) or t < self.Rp[0, i]:
                break
            first = t
        return {D: first}


__all__ = ["PassGraph", "PassPolicy", "pass_graph", "solve_policy"]
