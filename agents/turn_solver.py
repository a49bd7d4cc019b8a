"""The exact turn solver: the policy that maximises the points of one turn, for any ruleset.

:func:`solve_turn` answers, for a ruleset and a board status, "how do I play this turn for the most
points?", exactly. The agent ``optimal-turn`` plays from the answer, ``zilch solve`` prints it and
``zilch advise`` explains one decision with it.

The model
---------
A turn is a Markov decision process with chance nodes (the rolls) and decision nodes (the keep, then
bank or roll). Its state between rolls is

* ``a`` — the turn total *at risk* (lost on a zilch),
* ``p`` — the *permanent* points of the turn (straights under ``permanent_straight``, kept on a zilch;
  ``p = 0`` under every other rule), so the turn total is ``t = p + a``,
* ``n`` — the dice to roll next (hot dice: all of them again).

Rolling ``n`` dice gives each sorted roll with its multinomial probability ``n! / (prod c_f!) / 6**n``.
A roll without a legal keep is a zilch: the turn records ``p`` (nothing before the board unless ``p``
reaches the entry threshold), except that all dice rolled without a score under
``six_dice_zilch_bonus = B`` add ``B`` at risk, after which the player banks (where the thresholds
allow) or rolls all dice again (docs/rules.md). Otherwise the player picks a
keep from the engine's :func:`~zilch_env.scoring.scoring_table` (under ``keep = "all_scoring"`` only the
most-points keep with the most dice, as :meth:`GameState.keeps` does), adds its points, and banks —
allowed, as in :meth:`GameState.can_bank`, when the turn total reaches the entry threshold (before the
board) or the minimum bank (after), and not after hot dice when they are forced — or rolls the dice not
set aside. Every keep scores at least one point, so ``a`` only grows between decisions and the
values follow by backward induction from high totals down:

    R(p, a, n) = sum_roll P(roll) * max_keep  after(p', a + points, dice left)
    after(p, a, m) = max(p + a if banking is allowed, R(p, a, m or all dice))

A permanent straight moves points from ``a`` to ``p`` instead. Above the bank threshold ``p`` changes
nothing but the recorded points, so ``R(p + s, a, n) = s + R(p, a, n)`` and only the few levels of ``p``
below the threshold are stored; the one self-reference this leaves (a straight rolled with the
threshold already passed) is solved in closed form.

Where totals stop
-----------------
Turn totals are unbounded (hot dice). The solve stores totals up to a cap and replaces every state
beyond it by a bound: from below, the value of banking when allowed and otherwise of a zilch; from
above, ``p + (1 - z_n) a + S_n``, where ``z_n`` is the zilch probability of ``n`` dice and ``S_n`` the
most points a player can expect to collect from then on, counting points later lost (the fixed point
of "always roll", bounded from above and checked). The Bellman operator is monotone, so the two solves
bracket the exact value; the cap is raised until the bracket is below 1e-9 points and the lower solve
is returned (:attr:`TurnSolution.tail_error` gives the bracket). The same bound proves that
banking is optimal whenever allowed once ``z_n a >= S_n`` (:attr:`TurnSolution.bank_above`).

Zilch streaks
-------------
Under ``zilch_penalty = {count = K, points = P, mode = "subtract"}`` a zilch on the board also moves the
player towards a penalty, so the best turn depends on the current streak. The long-run points per
turn are the gain of an average-reward MDP over the streaks 0 .. K-1 whose transitions are whole turns:

    g + h(k) = max_turn policy  E[turn points] + P(zilch) * (h(k+1), or h(0) - P after the K-th) + P(bank) * h(0)

i.e. each streak plays the turn optimum with a zilch worth ``c_k = h(k+1) - h(0)`` more (``-P`` for the
last). It is solved by policy iteration (each step one turn solve per streak and a K x K linear
system), which ends exactly in finitely many steps. The penalties ``halve`` and ``reset`` depend on the
score, so they have no per-turn average (:attr:`TurnSolution.points_per_turn` is ``None`` then).

Under ``pyramiding`` the state also holds the pass of the dice (:mod:`agents._pyramid_turn`).
Unsupported: pyramiding together with permanent straights; :func:`solve_turn` raises
:class:`zilch_env.UnsupportedRulesError` naming it. The ``optimal-turn`` agent that plays these
solutions is :mod:`agents.optimal_turn`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

import numpy as np
from numba import njit

from zilch_env import GameState, Ruleset, UnsupportedRulesError, load_ruleset
from zilch_env.engine import keep_action
from zilch_env.primitives import can_bank, nb_can_bank
from zilch_env.rules import compile as compile_rules
from zilch_env.rules import roll_probability
from zilch_env.scoring import BONUS_KEEPS, Keep, bonus_of, scoring_table

__all__ = [
    "Advice", "Choice", "SolverError", "TurnPolicy", "TurnSolution", "UnsupportedRulesError",
    "roll_probability", "solve_turn", "warm_up",
]

#: The certified bracket on the optimum (points) below which the solve stops raising the cap.
TAIL_TOLERANCE = 1e-9
#: The first cap on the turn total (points); it is doubled until the bracket is below TAIL_TOLERANCE.
FIRST_CAP = 20_000
#: The largest grid the solver accepts (totals up to the cap, in steps of the points' common divisor).
MAX_GRID = 4_000_000


class SolverError(ValueError):
    """A ruleset the solver cannot give a finite answer for (e.g. every roll scores)."""


# --------------------------------------------------------------------------------------------
# Chance


@dataclass(frozen=True)
class _Tables:
    """The turn's chance and keep structure as flat arrays (rolls grouped by dice count)."""

    dice: int
    unit: int  # gcd of every amount added at risk: totals live on a grid of this step
    straight: int  # points of a permanent straight (0 when straights are not permanent)
    bonus: int  # six-dice zilch bonus (0 = off)
    n_start: np.ndarray  # rolls of n dice are n_start[n] .. n_start[n+1]-1
    roll_p: np.ndarray
    k_start: np.ndarray  # keeps of roll r are k_start[r] .. k_start[r+1]-1 (none: a zilch)
    k_pts: np.ndarray  # points of each keep
    k_left: np.ndarray  # dice not set aside after it (0 = hot dice)
    k_perm: np.ndarray  # a permanent straight
    zilch: tuple[Fraction, ...]  # zilch probability of n dice, exact (index 0 unused)


def _keeps_of(rs: Ruleset, info) -> tuple[Keep, ...]:
    """The keeps the player may choose from after the roll of ``info`` (the compiled rules')."""
    return compile_rules(rs).keeps_of(info.dice)


@lru_cache(maxsize=64)
def _tables(rs: Ruleset) -> _Tables:
    """The compiled rules (:func:`zilch_env.rules.compile`) as the turn solver's flat arrays."""
    cr = compile_rules(rs)
    D = rs.dice
    perm = rs.scoring.permanent_straight and rs.scoring.straight > 0 and D == 6
    bonus = rs.variants.six_dice_zilch_bonus
    n_start = [0] * (D + 2)
    roll_p, k_start, k_pts, k_left, k_perm = [], [0], [], [], []
    for n in range(1, D + 1):
        n_start[n] = len(roll_p)
        for r in cr.rolls_of(n):
            roll_p.append(cr.roll_p[r])
            for k in cr.keeps[r]:
                k_pts.append(k.points)
                k_left.append(n - k.n)
                k_perm.append(bool(perm and k.straight))
            k_start.append(len(k_pts))
    n_start[D + 1] = len(roll_p)
    return _Tables(
        dice=D, unit=cr.unit, straight=rs.scoring.straight if perm else 0, bonus=bonus,
        n_start=np.array(n_start, dtype=np.int64), roll_p=np.array(roll_p),
        k_start=np.array(k_start, dtype=np.int64), k_pts=np.array(k_pts, dtype=np.int64),
        k_left=np.array(k_left, dtype=np.int64), k_perm=np.array(k_perm, dtype=np.bool_),
        zilch=cr.zilch[:D + 1],
    )


# --------------------------------------------------------------------------------------------
# The collect bound S_n: the most points a player can expect to set aside from n dice on, counting
# points later lost to a zilch. Banking stops collecting, so "always roll" attains it.


@njit(cache=True)
def _collect_step(S, D, bonus, n_start, roll_p, k_start, k_pts, k_left):
    out = np.zeros(D + 1)
    for n in range(1, D + 1):
        tot = 0.0
        for r in range(n_start[n], n_start[n + 1]):
            if k_start[r] == k_start[r + 1]:
                if n == D and bonus > 0:
                    tot += roll_p[r] * (bonus + S[D])
                continue
            best = 0.0
            for k in range(k_start[r], k_start[r + 1]):
                left = k_left[k]
                v = k_pts[k] + S[left if left > 0 else D]
                if v > best:
                    best = v
            tot += roll_p[r] * best
        out[n] = tot
    return out


def _endless(tb: _Tables) -> list[int]:
    """Dice counts from which a player can roll forever: the largest set C such that from each n in C
    every roll has a keep (or, all dice without a score under six_dice_zilch_bonus, the bonus re-roll)
    leading back into C. Empty iff every way of playing ends with a zilch or a bank with probability 1."""
    D = tb.dice
    C = set(range(1, D + 1))
    changed = True
    while changed:
        changed = False
        for n in sorted(C):
            for r in range(tb.n_start[n], tb.n_start[n + 1]):
                ks = range(tb.k_start[r], tb.k_start[r + 1])
                if not ks:
                    ok = n == D and tb.bonus > 0 and D in C
                else:
                    ok = any((tb.k_left[k] or D) in C for k in ks)
                if not ok:
                    C.discard(n)
                    changed = True
                    break
    return sorted(C)


def _collect_bound(tb: _Tables) -> np.ndarray:
    """An upper bound on S_n, n = 0..D (index 0 unused), verified: T(U) <= U implies S <= U."""
    endless = _endless(tb)
    if endless:
        raise SolverError(
            f"a turn can go on for ever under these rules: with {endless[0]} dice to roll every roll "
            f"can be kept so that the turn continues, so points grow without bound and no optimal turn "
            f"exists; make some roll a zilch")
    args = (tb.dice, tb.bonus, tb.n_start, tb.roll_p, tb.k_start, tb.k_pts, tb.k_left)
    return certified_bound(lambda S: _collect_step(S, *args), tb.dice + 1)


def certified_bound(step, size: int) -> np.ndarray:
    """An upper bound ``U`` on the fixed point of the monotone collect operator ``step`` (arrays of
    ``size``), verified: ``step(U) <= U`` implies the fixed point is at most ``U``. Iterates from 0
    to near the fixed point, then raises it until the check holds."""
    S = np.zeros(size)
    for _ in range(1_000_000):
        new = step(S)
        done = np.all(np.abs(new - S) <= 1e-12 * (1.0 + np.abs(new)))
        S = new
        if done:
            break
    U = S * (1.0 + 1e-6) + 1.0
    for _ in range(60):
        if np.all(step(U) <= U):
            return U
        U = U * 2.0 + 1.0
    raise SolverError("could not bound the points a turn can collect under these rules")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Backward induction (numba): R[j, n, i] = value of rolling n dice with permanent points j*s and
# i*unit at risk; Z the probability that the turn then ends in a zilch under the chosen policy.


@njit(cache=True)
def _cont(R, Z, j, i, n, N, J, g, s, zpay, c, z, S, upper):
    """Rolling n dice at (j, i): stored below the cap, a bound beyond it."""
    if i < N:
        return R[j, n, i], Z[j, n, i]
    if upper:
        return j * s + i * g * (1.0 - z[n]) + S[n] + max(c, 0.0), 0.0
    return zpay[j] + min(c, 0.0), 1.0


@njit(cache=True)
def _after(R, Z, j, i, left, N, D, J, g, s, thr, forced, zpay, c, z, S, upper):
    """The decision after a keep: bank (when allowed) or roll the dice left (all of them: hot dice)."""
    nn = left if left > 0 else D
    rv, rz = _cont(R, Z, j, i, nn, N, J, g, s, zpay, c, z, S, upper)
    total = j * s + i * g
    if nb_can_bank(total, left, thr, forced) and total >= rv:
        return total, 0.0
    return rv, rz


@njit(cache=True)
def _backward(N, D, J, g, s, thr, forced, bonus_u, zpay, c, n_start, roll_p, k_start, k_pts_u,
              k_left, k_perm, z, S, upper):
    R = np.zeros((J + 1, D + 1, N))
    Z = np.zeros((J + 1, D + 1, N))
    nroll = roll_p.shape[0]
    lp = np.empty(nroll)  # rolls whose straight loops back to this very state (j == J, n == D)
    lm = np.empty(nroll)
    lz = np.empty(nroll)
    for i in range(N - 1, -1, -1):
        for j in range(J, -1, -1):
            for n in range(1, D + 1):
                val = 0.0
                zz = 0.0
                nl = 0
                for r in range(n_start[n], n_start[n + 1]):
                    pr = roll_p[r]
                    if k_start[r] == k_start[r + 1]:
                        if n == D and bonus_u > 0:  # the bonus at risk, then bank or roll all again
                            v, zr = _after(R, Z, j, i + bonus_u, D, N, D, J, g, s, thr, forced, zpay, c,
                                           z, S, upper)
                        else:
                            v, zr = zpay[j] + c, 1.0
                        val += pr * v
                        zz += pr * zr
                        continue
                    best = -np.inf
                    bz = 0.0
                    loop = False
                    for k in range(k_start[r], k_start[r + 1]):
                        if k_perm[k]:
                            if j < J:
                                v, zk = _after(R, Z, j + 1, i, 0, N, D, J, g, s, thr, forced, zpay, c,
                                               z, S, upper)
                            else:
                                # level J + 1 is level J plus s: s + max(bank, R[J, D, i]), R unknown yet
                                loop = True
                                if forced:
                                    continue
                                v, zk = s + J * s + i * g, 0.0
                        else:
                            v, zk = _after(R, Z, j, i + k_pts_u[k], k_left[k], N, D, J, g, s, thr,
                                           forced, zpay, c, z, S, upper)
                        if v > best:
                            best = v
                            bz = zk
                    if loop:
                        lp[nl] = pr
                        lm[nl] = best
                        lz[nl] = bz
                        nl += 1
                    else:
                        val += pr * best
                        zz += pr * bz
                if nl > 0:
                    # x = val + sum_r lp[r] * max(lm[r], s + x): policy iteration on the loop rolls
                    x = -np.inf
                    zx = 0.0
                    for _ in range(nl + 2):
                        A = 0.0
                        B = val
                        BZ = zz
                        for q in range(nl):
                            if lm[q] == -np.inf or s + x > lm[q]:
                                A += lp[q]
                                B += lp[q] * s
                            else:
                                B += lp[q] * lm[q]
                                BZ += lp[q] * lz[q]
                        xn = B / (1.0 - A)
                        zx = BZ / (1.0 - A)
                        if xn == x:
                            break
                        x = xn
                    val = x
                    zz = zx
                R[j, n, i] = val
                Z[j, n, i] = zz
    return R, Z


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Choice:
    """One choice after a roll: a keep, then bank or roll, and the expected points it leads to."""

    keep: Keep
    bank: bool
    value: float  # expected points of the turn from here on this choice (plus the streak term)
    action: int  # the engine action (keep_action(mask, bank))

    @property
    def dice(self) -> tuple[int, ...]:
        return self.keep.dice

    def describe(self, dice_left: int, all_dice: int) -> str:
        left = dice_left - self.keep.n
        what = "bank" if self.bank else (f"roll {left or all_dice}" + (" (hot dice)" if not left else ""))
        if not self.keep.n:  # the keep of nothing after a six-dice zilch bonus
            return f"take the six-dice bonus, {what}"
        return f"keep {' '.join(map(str, self.dice))} ({self.keep.points}), {what}"


@dataclass(frozen=True)
class Advice:
    """Every choice of one roll, best first."""

    roll: tuple[int, ...]
    turn_total: int
    permanent: int
    choices: tuple[Choice, ...]

    @property
    def best(self) -> Choice:
        return self.choices[0]

    @property
    def zilch(self) -> bool:
        return not self.choices


@dataclass(frozen=True, eq=False)
class TurnPolicy:
    """The solved values of one turn MDP: a board status, a bank threshold and a zilch offset.

    ``zilch_offset`` is added to what a zilch records (the streak term of :class:`TurnSolution`; 0 for
    the plain turn optimum). Values are expected points of the turn (plus that term) from a state.
    """

    ruleset: Ruleset
    on_board: bool
    bank_threshold: int
    zilch_offset: float
    unit: int
    straight: int  # permanent straight points (0: no permanent straights)
    levels: int  # J: permanent levels 0..J stored
    cap: int  # largest stored total at risk
    R: np.ndarray = field(repr=False)  # R[j, n, i]
    Z: np.ndarray = field(repr=False)  # zilch probability under this policy

    @property
    def values(self) -> np.ndarray:
        """Every stored value (the last axis: the total at risk, in units)."""
        return self.R

    # ---------------------------------------------------------------- values

    def _index(self, turn_total: int, permanent: int) -> tuple[int, int, int]:
        """(level j, extra permanent points folded above level J, grid index i)."""
        if permanent < 0 or turn_total < permanent:
            raise ValueError(f"turn total {turn_total} with permanent {permanent}: the turn total "
                             f"includes the permanent points, so 0 <= permanent <= turn total")
        at_risk = turn_total - permanent
        if at_risk % self.unit:
            raise ValueError(f"turn total {turn_total} cannot occur: every score under these rules is "
                             f"a multiple of {self.unit}")
        j, extra = 0, 0
        if permanent:
            if not self.straight or permanent % self.straight:
                raise ValueError(f"permanent {permanent}: permanent points are whole permanent "
                                 f"straights ({self.straight or 'none under these rules'})")
            j = permanent // self.straight
            if j > self.levels:
                extra, j = (j - self.levels) * self.straight, self.levels
        return j, extra, at_risk // self.unit

    def _zpay(self, j: int) -> float:
        p = j * self.straight
        rs = self.ruleset
        return float(p if (self.on_board or p >= rs.entry_threshold) else 0) + self.zilch_offset

    def _roll(self, j: int, i: int, n: int) -> tuple[float, float]:
        if i < self.R.shape[2]:
            return float(self.R[j, n, i]), float(self.Z[j, n, i])
        return self._zpay(j) + min(self.zilch_offset, 0.0), 1.0  # beyond the cap: the lower bound

    def roll_value(self, turn_total: int, dice: int, permanent: int = 0, frozen: Sequence[int] | None = None,
                   frozen_points: Sequence[int] | None = None) -> float:
        """Expected points when about to roll ``dice`` dice with this turn total (no bank choice).
        ``frozen`` / ``frozen_points`` (the dice frozen in this pass) matter only under pyramiding
        (:class:`agents._pyramid_turn.PassPolicy`); here they change nothing."""
        self._check_dice(dice)
        j, extra, i = self._index(turn_total, permanent)
        return extra + self._roll(j, i, dice)[0]

    def can_bank(self, turn_total: int, left: int) -> bool:
        """GameState.can_bank for this board status (``left`` = dice not set aside, 0 = hot dice)."""
        return can_bank(turn_total, left, self.bank_threshold, self.ruleset.hot_dice == "forced")

    def value(self, turn_total: int, dice_left: int, permanent: int = 0) -> float:
        """Expected points at a decision where the player may bank ``turn_total`` or roll ``dice_left``
        dice (``dice_left`` = all dice means hot dice: banking then needs ``hot_dice = "optional"``)."""
        self._check_dice(dice_left)
        left = 0 if dice_left == self.ruleset.dice and turn_total > 0 else dice_left
        return self._after(turn_total, permanent, left)[0]

    def _after(self, turn_total: int, permanent: int, left: int) -> tuple[float, bool]:
        """(value, bank?) of the decision after a keep."""
        j, extra, i = self._index(turn_total, permanent)
        roll = extra + self._roll(j, i, left or self.ruleset.dice)[0]
        if self.can_bank(turn_total, left) and turn_total >= roll:
            return float(turn_total), True
        return roll, False

    def _check_dice(self, n: int) -> None:
        if not 1 <= n <= self.ruleset.dice:
            raise ValueError(f"{n} dice: under these rules a roll has 1 to {self.ruleset.dice} dice")

    # ---------------------------------------------------------------- the policy

    def decide(self, roll: Sequence[int], turn_total: int, permanent: int = 0, frozen: Sequence[int] | None = None,
               frozen_points: Sequence[int] | None = None) -> Advice:
        """Every legal keep of ``roll`` with bank and roll, valued, best first (``turn_total`` before it;
        ``frozen`` / ``frozen_points`` matter only under pyramiding).

        Banking is listed only where allowed. Ties go to banking, then to more points kept.
        """
        rs = self.ruleset
        info = scoring_table(rs).info(roll)
        if len(info.dice) > rs.dice:
            raise ValueError(f"roll {list(roll)!r}: these rules roll at most {rs.dice} dice")
        self._index(turn_total, permanent)
        n = len(info.dice)
        # all the dice and nothing scores, under the six-dice zilch bonus: the bonus joins the turn
        # total and the one keep is the keep of nothing (bank, or roll all the dice again)
        bonus = bonus_of(rs, info)
        choices = []
        for k in (BONUS_KEEPS if bonus else _keeps_of(rs, info)):
            left = n - k.n
            total = turn_total + bonus + k.points
            perm = permanent + (k.points if (k.straight and self.straight) else 0)
            j, extra, i = self._index(total, perm)
            roll_v = extra + self._roll(j, i, left or rs.dice)[0]
            choices.append(Choice(k, False, roll_v, keep_action(k.mask, False)))
            if self.can_bank(total, left):
                choices.append(Choice(k, True, float(total), keep_action(k.mask, True)))
        choices.sort(key=lambda ch: (-ch.value, not ch.bank, -ch.keep.points, ch.keep.mask))
        return Advice(info.dice, turn_total, permanent, tuple(choices))

    def advise(self, state: GameState) -> Advice:
        """:meth:`decide` for the roll of ``state`` (a KEEP phase): from the turn total before that roll
        (a six-dice zilch bonus it earned is already in the state's), with the dice frozen in this pass."""
        before = state.turn_total - bonus_of(self.ruleset, state.roll_info)
        return self.decide(state.roll, before, state.permanent, state.frozen, state.frozen_points)

    def best_action(self, state: GameState, legal: Sequence[int] | None = None) -> int:
        """The best legal keep action of ``state`` (a KEEP phase) by these values."""
        legal = state.legal_actions() if legal is None else legal
        allowed = set(legal)
        for ch in self.advise(state).choices:
            if ch.action in allowed:
                return ch.action
        return int(legal[0])  # pragma: no cover - every legal keep-and-roll is among the choices

    def bank_totals(self) -> dict[int, int | None]:
        """For n dice to roll, the least turn total from which this policy banks whenever it may and
        never rolls again below the cap (p = 0); None when it rolls up to the cap."""
        rs = self.ruleset
        out: dict[int, int | None] = {}
        N = self.R.shape[2]
        for n in range(1, rs.dice + 1):
            left = 0 if n == rs.dice else n
            first = None
            for i in range(N - 1, -1, -1):
                t = i * self.unit
                if not self.can_bank(t, left) or t < self.R[0, n, i]:
                    break
                first = t
            out[n] = first
        return out


@dataclass(frozen=True, eq=False)
class TurnSolution:
    """The solved turn of a ruleset for one board status (see the module docstring for the model).

    Attributes:
        expected_points: points of one turn under the optimal policy (a zilch scores nothing beyond
            permanent points; streak penalties not counted).
        points_per_turn: the optimal long-run average per turn under a ``subtract`` zilch-streak
            penalty (on the board), from the streak-dependent policies; ``expected_points`` without a
            penalty or before the board; ``None`` for the ``halve`` / ``reset`` penalties.
        policy: the plain turn optimum; streak_policies: one per current streak (0 .. K-1) when a
            subtract penalty applies, else ``(policy,)``. streak_values: h(0..K-1), h(0) = 0.
        zilch_probabilities: exact probability that a roll of n dice has no legal keep (index n; under
            six_dice_zilch_bonus such a roll of all the dice scores the bonus instead of ending the turn).
        bank_above: a proven total at risk from which banking is optimal whenever allowed (for every
            dice count that can zilch).
        cap, tail_error: the stored totals and the certified bracket on ``expected_points``.
        solve_seconds: wall time of the solve (first call; later calls are cached).
    """

    ruleset: Ruleset
    on_board: bool
    bank_threshold: int
    expected_points: float
    points_per_turn: float | None
    policy: TurnPolicy
    streak_policies: tuple[TurnPolicy, ...]
    streak_values: tuple[float, ...]
    zilch_probabilities: tuple[Fraction, ...]
    bank_above: float | None
    cap: int
    tail_error: float
    solve_seconds: float
    policy_iterations: int = 0

    def value(self, turn_total: int, dice_left: int, permanent: int = 0) -> float:
        """Expected points at a decision to bank ``turn_total`` or roll ``dice_left`` dice (no streak)."""
        return self.policy.value(turn_total, dice_left, permanent)

    def roll_value(self, turn_total: int, dice: int, permanent: int = 0) -> float:
        """Expected points when about to roll ``dice`` dice with ``turn_total`` (no bank choice)."""
        return self.policy.roll_value(turn_total, dice, permanent)

    def decide(self, roll: Sequence[int], turn_total: int, permanent: int = 0, streak: int | None = None,
               **frozen: Sequence[int]) -> Advice:
        """Every choice for ``roll`` valued, best first; ``streak`` picks the streak-dependent policy.
        Under pyramiding ``frozen=`` and ``frozen_points=`` give the dice frozen earlier in this pass."""
        return self.policy_for(streak).decide(roll, turn_total, permanent, **frozen)

    def best_action(self, state: GameState, legal: Sequence[int] | None = None) -> int:
        """The best legal keep action of ``state`` under the plain turn optimum."""
        return self.policy.best_action(state, legal)

    def policy_for(self, streak: int | None) -> TurnPolicy:
        """The policy for the current zilch streak (None: the plain turn optimum)."""
        if streak is None or len(self.streak_policies) == 1:
            return self.policy
        return self.streak_policies[min(max(streak, 0), len(self.streak_policies) - 1)]

    def to_dict(self) -> dict:
        return {
            "ruleset": self.ruleset.name,
            "on_board": self.on_board,
            "bank_threshold": self.bank_threshold,
            "expected_points": self.expected_points,
            "points_per_turn": self.points_per_turn,
            "streak_values": list(self.streak_values),
            "bank_totals": {str(n): t for n, t in self.policy.bank_totals().items()},
            "zilch_probabilities": {str(n): str(z) for n, z in enumerate(self.zilch_probabilities) if n},
            "bank_above": self.bank_above,
            "cap": self.cap,
            "tail_error": self.tail_error,
            "solve_seconds": self.solve_seconds,
        }


# --------------------------------------------------------------------------------------------
# Solving


def _check_supported(rs: Ruleset) -> None:
    if rs.variants.pyramiding and _tables(rs).straight:
        raise UnsupportedRulesError(
            "variants.pyramiding = true with scoring.permanent_straight = true is not supported by the "
            "turn solver: it solves pyramiding (the pass of the dice in its state) or permanent straights "
            "(their count in its state), not both; solve the ruleset without one of them")


def _solve_policy(rs: Ruleset, on_board: bool, threshold: int, offset: float, cap: int,
                  upper: bool = False) -> TurnPolicy:
    if rs.variants.pyramiding:  # the pass of the dice in the state: agents._pyramid_turn
        from agents._pyramid_turn import solve_policy

        return solve_policy(rs, on_board, threshold, offset, cap, upper)
    tb = _tables(rs)
    S = _collect_bound(tb)
    g = tb.unit
    N = cap // g + 1
    if N > MAX_GRID:
        raise SolverError(f"the turn solve needs totals up to {cap} in steps of {g}: more than "
                          f"{MAX_GRID} states per dice count")
    s = tb.straight
    J = -(-max(threshold, 0) // s) if s else 0
    zpay = np.array([float(j * s if (on_board or j * s >= rs.entry_threshold) else 0) for j in range(J + 1)])
    z = np.array([float(x) for x in tb.zilch])
    if tb.bonus:
        z[tb.dice] = 0.0
    R, Z = _backward(N, tb.dice, J, float(g), float(s), float(threshold), rs.hot_dice == "forced",
                     tb.bonus // g, zpay, float(offset), tb.n_start, tb.roll_p, tb.k_start,
                     tb.k_pts // g, tb.k_left, tb.k_perm, z, S, upper)
    return TurnPolicy(rs, on_board, threshold, float(offset), g, s, J, (N - 1) * g, R, Z)


def _bank_above(tb: _Tables) -> float | None:
    S = _collect_bound(tb)
    out = None
    for n in range(1, tb.dice + 1):
        zn = float(tb.zilch[n]) if not (tb.bonus and n == tb.dice) else 0.0
        if zn > 0:
            out = max(out or 0.0, S[n] / zn)
    return out


def warm_up() -> float:
    """Compile (first run) or load (later runs) the numba kernels; returns the seconds it took."""
    t0 = time.perf_counter()
    _solve_policy(load_ruleset("zonk", {"dice": 1}), True, 0, 0.0, 100)
    _solve_policy(load_ruleset("zonk", {"dice": 1}), True, 0, 0.0, 100, upper=True)
    return time.perf_counter() - t0


def solve_turn(ruleset: Ruleset | str, on_board: bool = True, bank_threshold: int | None = None,
               reach: int = 0) -> TurnSolution:
    """The exact optimal play of one turn (cached per ruleset, board status, threshold and reach).

    ``bank_threshold`` overrides the least bankable turn total (default: ``min_bank`` on the board,
    ``entry_threshold`` before it); the ``optimal-turn`` agent passes the bar of ``overcoming`` here.
    ``reach`` is the largest turn total the caller will ask about: the solve then stores totals far
    enough beyond it that every value up to it is certified within :data:`TAIL_TOLERANCE`, as the
    turn-start value always is. Under ``pyramiding`` the policy is an ``agents._pyramid_turn.PassPolicy``
    (values per pass of the dice). Raises :class:`zilch_env.UnsupportedRulesError` under pyramiding
    with permanent straights.
    """
    rs = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
    return _solve_turn(rs, bool(on_board), bank_threshold, max(0, int(reach)))


@lru_cache(maxsize=256)
def _solve_turn(rs: Ruleset, on_board: bool, bank_threshold: int | None, reach: int = 0) -> TurnSolution:
    _check_supported(rs)
    t0 = time.perf_counter()
    base = rs.min_bank if on_board else rs.entry_threshold
    thr = base if bank_threshold is None else max(int(bank_threshold), base)
    D = rs.dice
    cap = max(FIRST_CAP, 8 * thr, 2 * reach)
    unit = _tables(rs).unit
    if cap // unit + 1 > MAX_GRID:
        raise SolverError(f"a turn total of {reach} is beyond what the turn solver stores ({MAX_GRID} "
                          f"totals in steps of {unit}, up to {(MAX_GRID - 1) * unit // 2} asked about)")
    while True:
        lo = _solve_policy(rs, on_board, thr, 0.0, cap)
        hi = _solve_policy(rs, on_board, thr, 0.0, cap, upper=True)
        gap = float(hi.R[0, D, 0] - lo.R[0, D, 0])
        if reach:  # every stored value up to the reach, not only the turn start
            top = min(reach // unit, lo.values.shape[-1] - 1)
            gap = max(gap, float((hi.values[..., :top + 1] - lo.values[..., :top + 1]).max()))
        if gap <= TAIL_TOLERANCE:
            break
        if cap // _tables(rs).unit * 2 > MAX_GRID:
            raise SolverError(f"could not bound the turn value within {TAIL_TOLERANCE} points below "
                              f"a turn total of {cap} (bracket {gap:.3g}); the rules let turns grow too long")
        cap *= 2
    expected = float(lo.R[0, D, 0])
    zp = rs.variants.zilch_penalty
    streak_policies: tuple[TurnPolicy, ...] = (lo,)
    streak_values: tuple[float, ...] = (0.0,)
    iterations = 0
    if not on_board or not zp.count:
        ppt: float | None = expected
    elif zp.mode != "subtract":
        ppt = None
    else:
        ppt, streak_policies, streak_values, iterations = _streak_gain(rs, thr, cap, zp.count, zp.points, lo)
    return TurnSolution(
        ruleset=rs, on_board=on_board, bank_threshold=thr, expected_points=expected,
        points_per_turn=ppt, policy=lo, streak_policies=streak_policies, streak_values=streak_values,
        zilch_probabilities=_tables(rs).zilch,
        bank_above=None if rs.variants.pyramiding else _bank_above(_tables(rs)), cap=cap,
        tail_error=gap, solve_seconds=time.perf_counter() - t0, policy_iterations=iterations,
    )


def _streak_gain(rs: Ruleset, thr: int, cap: int, K: int, P: int, plain: TurnPolicy):
    """Policy iteration for the average-reward MDP over zilch streaks 0..K-1 (module docstring)."""
    D = rs.dice

    def stats(pol: TurnPolicy) -> tuple[float, float]:
        v, zprob = float(pol.R[0, D, 0]), float(pol.Z[0, D, 0])
        return v - pol.zilch_offset * zprob, zprob  # (expected turn points, P(zilch))

    pols = [plain] * K
    e_z = [stats(plain)] * K
    for it in range(1, 100):
        # Evaluate: unknowns x = (g, h1 .. h_{K-1}), h0 = 0.
        A = np.zeros((K, K))
        b = np.zeros(K)
        for k in range(K):
            e, zk = e_z[k]
            A[k, 0] = 1.0
            if k:
                A[k, k] += 1.0
            if k + 1 < K:
                A[k, k + 1] -= zk
                b[k] = e
            else:
                b[k] = e - zk * P
        x = np.linalg.solve(A, b)
        gain, h = float(x[0]), [0.0] + [float(v) for v in x[1:]]
        offsets = [h[k + 1] if k + 1 < K else -float(P) for k in range(K)]
        new = [_solve_policy(rs, True, thr, offsets[k], cap) for k in range(K)]
        improved = False
        for k in range(K):
            old_val = e_z[k][0] + offsets[k] * e_z[k][1]
            if float(new[k].R[0, D, 0]) > old_val + 1e-9 * (1.0 + abs(old_val)):
                improved = True
        pols = new
        e_z = [stats(p) for p in new]
        if not improved:
            return gain, tuple(pols), tuple(h), it
    raise SolverError("the zilch-streak policy iteration did not converge")  # pragma: no cover
