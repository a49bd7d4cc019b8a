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
keep from the engine's :func:`~zilch_env.rules.scoring.scoring_table` (under ``keep = "all_scoring"`` only the
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

Under ``pyramiding`` the state also holds the pass of the dice (:mod:`agents.solver.turn_pyramid`).
Unsupported: pyramiding together with permanent straights; :func:`solve_turn` raises
:class:`zilch_env.UnsupportedRulesError` naming it. The ``optimal-turn`` agent that plays these
solutions is :mod:`agents.solver.optimal_turn`.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np
from zilch_env.jit import njit

from zilch_env import Ruleset, UnsupportedRulesError, load_ruleset
from zilch_env.rules.primitives import nb_can_bank
from zilch_env.engine import layout as L
from zilch_env.rules.compiled import CompiledRules, roll_probability
from zilch_env.rules.compiled import compile as compile_rules
from agents.solver.turn_policy import (FIRST_CAP, MAX_GRID, TAIL_TOLERANCE, Advice, Choice, SolverError, TurnPolicy,
                                      TurnSolution, certified_bound)
from agents.solver.turn_pyramid import solve_policy as solve_pyramid_policy

__all__ = [
    "Advice", "Choice", "SolverError", "TurnPolicy", "TurnSolution", "UnsupportedRulesError",
    "roll_probability", "solve_turn", "warm_up",
]



# --------------------------------------------------------------------------------------------
# The rules: one ruleset's compiled rules (zilch_env.rules.compile), read as they are. Rolls of n dice
# are ids n_start[n] .. n_start[n + 1] - 1 with chance roll_p; the keeps of roll r are k_start[r] ..
# k_start[r + 1] - 1 (k_pts points, k_n dice, k_str a straight); the rule values come from params().


def _straight(cr: CompiledRules) -> int:
    """The points a permanent straight keeps through a zilch (0 when straights are not permanent)."""
    rp = cr.params(1)
    return int(rp[L.R_STRAIGHT]) if rp[L.R_PERMANENT_STRAIGHT] else 0


# --------------------------------------------------------------------------------------------
# The collect bound S_n: the most points a player can expect to set aside from n dice on, counting
# points later lost to a zilch. Banking stops collecting, so "always roll" attains it.


@njit(cache=True)
def _collect_step(S, D, bonus, n_start, roll_p, k_start, k_pts, k_n):
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
                left = n - k_n[k]
                v = k_pts[k] + S[left if left > 0 else D]
                if v > best:
                    best = v
            tot += roll_p[r] * best
        out[n] = tot
    return out


def _endless(cr: CompiledRules) -> list[int]:
    """Dice counts from which a player can roll forever: the largest set C such that from each n in C
    every roll has a keep (or, all dice without a score under six_dice_zilch_bonus, the bonus re-roll)
    leading back into C. Empty iff every way of playing ends with a zilch or a bank with probability 1."""
    D, bonus = cr.dice, cr.ruleset.variants.six_dice_zilch_bonus
    C = set(range(1, D + 1))
    changed = True
    while changed:
        changed = False
        for n in sorted(C):
            for r in cr.rolls_of(n):
                ks = range(cr.k_start[r], cr.k_start[r + 1])
                if not ks:
                    ok = n == D and bonus > 0 and D in C
                else:
                    ok = any((n - cr.k_n[k] or D) in C for k in ks)
                if not ok:
                    C.discard(n)
                    changed = True
                    break
    return sorted(C)


def _collect_bound(cr: CompiledRules) -> np.ndarray:
    """An upper bound on S_n, n = 0..D (index 0 unused), verified: T(U) <= U implies S <= U."""
    endless = _endless(cr)
    if endless:
        raise SolverError(
            f"a turn can go on for ever under these rules: with {endless[0]} dice to roll every roll "
            f"can be kept so that the turn continues, so points grow without bound and no optimal turn "
            f"exists; make some roll a zilch")
    args = (cr.dice, cr.ruleset.variants.six_dice_zilch_bonus, cr.n_start, cr.roll_p, cr.k_start, cr.k_pts, cr.k_n)
    return certified_bound(lambda S: _collect_step(S, *args), cr.dice + 1)


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
              k_n, k_str, perm, z, S, upper):
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
                        if perm and k_str[k]:
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
                            v, zk = _after(R, Z, j, i + k_pts_u[k], n - k_n[k], N, D, J, g, s, thr,
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


def _check_supported(rs: Ruleset) -> None:
    if rs.variants.pyramiding and _straight(compile_rules(rs)):
        raise UnsupportedRulesError(
            "variants.pyramiding = true with scoring.permanent_straight = true is not supported by the "
            "turn solver: it solves pyramiding (the pass of the dice in its state) or permanent straights "
            "(their count in its state), not both; solve the ruleset without one of them")


def _solve_policy(rs: Ruleset, on_board: bool, threshold: int, offset: float, cap: int,
                  upper: bool = False) -> TurnPolicy:
    if rs.variants.pyramiding:  # the pass of the dice in the state: agents.solver.turn_pyramid

        return solve_pyramid_policy(rs, on_board, threshold, offset, cap, upper)
    cr = compile_rules(rs)
    rp = cr.params(1)
    S = _collect_bound(cr)
    g = cr.unit
    N = cap // g + 1
    if N > MAX_GRID:
        raise SolverError(f"the turn solve needs totals up to {cap} in steps of {g}: more than "
                          f"{MAX_GRID} states per dice count")
    s = _straight(cr)
    D, bonus = int(rp[L.R_DICE]), int(rp[L.R_SIX_DICE_BONUS])
    J = -(-max(threshold, 0) // s) if s else 0
    zpay = np.array([float(j * s if (on_board or j * s >= rp[L.R_ENTRY_THRESHOLD]) else 0) for j in range(J + 1)])
    z = np.array([float(x) for x in cr.zilch[:D + 1]])
    if bonus:
        z[D] = 0.0
    R, Z = _backward(N, D, J, float(g), float(s), float(threshold), bool(rp[L.R_FORCED_HOT_DICE]),
                     bonus // g, zpay, float(offset), cr.n_start, cr.roll_p, cr.k_start,
                     cr.k_pts // g, cr.k_n, cr.k_str, s > 0, z, S, upper)
    return TurnPolicy(rs, on_board, threshold, float(offset), g, s, J, (N - 1) * g, R, Z)


def _bank_above(cr: CompiledRules) -> float | None:
    S = _collect_bound(cr)
    bonus = cr.ruleset.variants.six_dice_zilch_bonus
    out = None
    for n in range(1, cr.dice + 1):
        zn = float(cr.zilch[n]) if not (bonus and n == cr.dice) else 0.0
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
    turn-start value always is. Under ``pyramiding`` the policy is an ``agents.solver.turn_pyramid.PassPolicy``
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
    unit = compile_rules(rs).unit
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
        if cap // unit * 2 > MAX_GRID:
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
        zilch_probabilities=compile_rules(rs).zilch[:D + 1],
        bank_above=None if rs.variants.pyramiding else _bank_above(compile_rules(rs)), cap=cap,
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
