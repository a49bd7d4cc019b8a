"""The exact value of a fixed way of playing a turn: a *rule of thumb* (:class:`Rule`) played out
over every roll, as the turn solver plays the optimum (:mod:`agents.solver.turn`).

A rule banks by the dice it would roll next (all of them after hot dice): once the turn total
reaches ``bank_at`` with ``dice`` dice or fewer to roll, or ``above`` with more dice short of a fresh
roll of all of them (never, when ``above`` is None), and only where the rules allow it. It banks with
the keep of the most points (ties: the most dice, as ``all_scoring`` sets dice aside and the
``greedy`` players keep); where it does not bank with that keep it rolls on with its own keep
(:data:`KEEPS`: the same, or only the combinations). Before the board the rule is the same, but
where ``entry_dice`` is given it banks as soon as it may with that many dice or fewer to roll.

The value is computed by backward induction over the turn total as the turn solver's (the same
state: permanent points, the total at risk, the dice to roll), with the rule's choice in place of
the best one. Above the largest threshold the rule's choices no longer depend on the total, so the
value there is affine in the total at risk (a small linear system closes the grid exactly) and
permanent straights fold as in the solver. :func:`rule_value` gives the expected points of a turn and
the chance it ends in a zilch; :func:`rule_points_per_turn` the long-run points per turn on the board,
a subtracted zilch-streak penalty counted (the streak is a Markov chain of the rule's zilch chance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from zilch_env.jit import njit

from zilch_env import Ruleset, UnsupportedRulesError
from zilch_env.engine import layout as L
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.primitives import nb_can_bank

from agents.solver.turn import MAX_GRID, _collect_bound, _straight

__all__ = ["Rule", "parse_rule", "rule_value", "rule_points_per_turn", "thresholds_value"]

INF = math.inf


@dataclass(frozen=True, order=True)
class Rule:
    """A rule of thumb for a turn (see the module docstring). ``bank_at`` and ``above`` are turn
    totals (points). ``dice``: the most dice to roll next at which ``bank_at`` applies (all the dice
    of the rules: always, hot dice included); with more dice, short of a fresh roll of all of them,
    ``above`` applies (None: never bank); after hot dice the rule rolls again unless ``dice`` is all
    of them. ``entry_dice``: before the board, bank as soon as the rules allow with that many dice
    or fewer to roll (None: as on the board). ``keep``: the keep it rolls on with (:data:`KEEPS`)."""

    bank_at: int
    dice: int
    above: int | None = None
    entry_dice: int | None = None
    keep: str = "most"

    def thresholds(self, all_dice: int, on_board: bool = True) -> np.ndarray:
        """The least turn total to bank at, by the dice that would be rolled next (index 1 to
        ``all_dice``; ``inf``: never), before the rules' own bars."""
        out = np.full(all_dice + 1, INF)
        for n in range(1, all_dice + 1):
            if n <= self.dice:
                out[n] = self.bank_at
            elif self.above is not None and n < all_dice:
                out[n] = self.above
            if not on_board and self.entry_dice is not None and n <= self.entry_dice:
                out[n] = 0.0
        return out

    def numbers(self, all_dice: int) -> int:
        """How many things a person must remember to play it (its simplicity: fewer is simpler):
        the total, the dice, the second total, the entry's dice, the keep of combinations."""
        return (1 + (self.dice < all_dice) + (self.above is not None) + (self.entry_dice is not None)
                + (self.keep != "most"))

    def spec(self) -> str:
        """The agent spec that plays it: ``thumb:bank=300,dice=2[,above=1000][,entry_dice=4][,keep=combos]``."""
        parts = [f"bank={self.bank_at}", f"dice={self.dice}"]
        if self.above is not None:
            parts.append(f"above={self.above}")
        if self.entry_dice is not None:
            parts.append(f"entry_dice={self.entry_dice}")
        if self.keep != "most":
            parts.append(f"keep={self.keep}")
        return "thumb:" + ",".join(parts)


def parse_rule(text: str, all_dice: int = 6) -> Rule:
    """A :class:`Rule` from the argument of its spec,
    ``bank=300,dice=2[,above=1000][,entry_dice=4][,keep=combos]`` (``dice`` defaults to all of them);
    ValueError names what is wrong and what is allowed."""
    allowed = ("bank", "dice", "above", "entry_dice", "keep")
    given: dict[str, str] = {}
    for part in text.split(","):
        key, eq, value = (x.strip() for x in part.partition("="))
        if not eq or key not in allowed or key in given:
            raise ValueError(f"thumb:{text}: expected KEY=VALUE pairs, each key once, of {', '.join(allowed)}, "
                             f"e.g. thumb:bank=300,dice=2 (bank at 300 or more with 2 dice or fewer left)")
        given[key] = value
    if "bank" not in given:
        raise ValueError(f"thumb:{text}: bank=POINTS is required (the least turn total to bank at)")
    keep = given.pop("keep", "most")
    if keep not in KEEPS:
        raise ValueError(f"thumb:{text}: keep = {keep!r}: one of {', '.join(KEEPS)}")
    num: dict[str, int] = {}
    for key, value in given.items():
        try:
            num[key] = int(value.replace("_", ""))
        except ValueError:
            raise ValueError(f"thumb:{text}: {key} = {value!r} is not a whole number") from None
    dice = num.get("dice", all_dice)
    if not 1 <= dice <= all_dice:
        raise ValueError(f"thumb:{text}: dice = {dice}: from 1 to {all_dice} (the dice left to roll)")
    if num["bank"] < 0 or num.get("above", num["bank"]) < num["bank"]:
        raise ValueError(f"thumb:{text}: bank >= 0 points and above >= bank")
    ed = num.get("entry_dice")
    if ed is not None and not 1 <= ed <= all_dice:
        raise ValueError(f"thumb:{text}: entry_dice = {ed}: from 1 to {all_dice}")
    return Rule(num["bank"], dice, num.get("above"), ed, keep)


# --------------------------------------------------------------------------------------------
# The value of a rule's turn: backward induction, as agents.solver.turn._backward with the rule's
# choice in place of the best one. Beyond the largest threshold (the *far field*) every choice of the
# rule depends on the dice alone, so the value is affine in the total at risk a: V(j, a, n) =
# a P[j, n] + E[j, n], with P the chance the at-risk points are banked, E the rest, and the zilch
# chance Zf[j, n] (:func:`_far_system`, a small linear system); the stored grid ends there, exactly.


@njit(cache=True)
def _choose(r, n, j, i, s, g, thr, forced, best_k, roll_k, k_pts_u, k_n, k_str, perm, bank_at, D):
    """The rule's keep of roll r (-1: a zilch) and whether it banks after it (at total j s + i g
    before the roll): the most points where it banks then, else the keep it rolls on with."""
    k = best_k[r]
    if k < 0:
        return -1, False
    for attempt in range(2):
        left = 0 if (perm and k_str[k]) else n - k_n[k]
        total = (j + (1 if (perm and k_str[k]) else 0)) * s + (i + (0 if (perm and k_str[k]) else k_pts_u[k])) * g
        if nb_can_bank(total, left, thr, forced) and total >= bank_at[left if left > 0 else D]:
            return k, True
        if attempt == 0 and roll_k[r] != k:
            k = roll_k[r]
        else:
            break
    return k, False


@njit(cache=True)
def _far_system(D, J, g, s, thr, forced, bonus_u, zpay, n_start, roll_p, best_k, roll_k, k_pts_u, k_n, k_str,
                perm, bank_at, far_i):
    """The far field's equations, unknowns u = j * D + n - 1: ``P = bP + M P``, ``Zf = bZ + M Zf``,
    ``E = bE + W P + M E`` (W: the points kept on each move, times its chance)."""
    U = (J + 1) * D
    M = np.zeros((U, U))
    W = np.zeros((U, U))
    bP = np.zeros(U)
    bZ = np.zeros(U)
    bE = np.zeros(U)
    for j in range(J + 1):
        for n in range(1, D + 1):
            u = j * D + n - 1
            for r in range(n_start[n], n_start[n + 1]):
                pr = roll_p[r]
                k, bank = _choose(r, n, j, far_i, s, g, thr, forced, best_k, roll_k, k_pts_u, k_n, k_str, perm,
                                  bank_at, D)
                if k < 0:
                    if n == D and bonus_u > 0:  # the bonus at risk, then bank or roll all the dice
                        if nb_can_bank(j * s + (far_i + bonus_u) * g, D, thr, forced) and \
                                j * s + (far_i + bonus_u) * g >= bank_at[D]:
                            bP[u] += pr
                            bE[u] += pr * (j * s + bonus_u * g)
                        else:
                            M[u, j * D + D - 1] += pr
                            W[u, j * D + D - 1] += pr * bonus_u * g
                    else:
                        bZ[u] += pr
                        bE[u] += pr * zpay[j]
                elif perm and k_str[k]:  # the straight's points join the permanent ones
                    if bank:
                        bP[u] += pr
                        bE[u] += pr * (j + 1) * s
                    elif j < J:
                        M[u, (j + 1) * D + D - 1] += pr
                    else:  # level J + 1 is level J plus s
                        M[u, J * D + D - 1] += pr
                        bE[u] += pr * s
                else:
                    if bank:
                        bP[u] += pr
                        bE[u] += pr * (j * s + k_pts_u[k] * g)
                    else:
                        left = n - k_n[k]
                        v = j * D + (left if left > 0 else D) - 1
                        M[u, v] += pr
                        W[u, v] += pr * k_pts_u[k] * g
    return M, W, bP, bZ, bE


@njit(cache=True)
def _backward(N, D, J, g, s, thr, forced, bonus_u, zpay, n_start, roll_p, best_k, roll_k, k_pts_u, k_n, k_str,
              perm, bank_at, P, E, Zf):
    """R[j, n, i]: the rule's expected points rolling n dice with j permanent straights and i units
    at risk; Z the chance the turn then ends in a zilch. Beyond the grid (i >= N) the far field."""
    R = np.zeros((J + 1, D + 1, N))
    Z = np.zeros((J + 1, D + 1, N))
    for i in range(N - 1, -1, -1):
        for j in range(J, -1, -1):
            for n in range(1, D + 1):
                val = 0.0
                zz = 0.0
                loop = 0.0  # the chance of a straight back to this very state (j == J, n == D)
                for r in range(n_start[n], n_start[n + 1]):
                    pr = roll_p[r]
                    k, bank = _choose(r, n, j, i, s, g, thr, forced, best_k, roll_k, k_pts_u, k_n, k_str, perm,
                                      bank_at, D)
                    if k < 0:
                        if n == D and bonus_u > 0:  # the bonus at risk, then bank or roll all the dice
                            t, jj, ii, nn = j * s + (i + bonus_u) * g, j, i + bonus_u, D
                            if nb_can_bank(t, D, thr, forced) and t >= bank_at[D]:
                                val += pr * t
                                continue
                        else:
                            val += pr * zpay[j]
                            zz += pr
                            continue
                    elif perm and k_str[k]:
                        if bank:
                            val += pr * ((j + 1) * s + i * g)
                            continue
                        jj, ii, nn = j + 1, i, D
                    else:
                        if bank:
                            val += pr * (j * s + (i + k_pts_u[k]) * g)
                            continue
                        left = n - k_n[k]
                        jj, ii, nn = j, i + k_pts_u[k], (left if left > 0 else D)
                    extra = 0.0
                    if jj > J:  # level J + 1 is level J plus s
                        jj, extra = J, s
                    if ii < N and not (jj == j and ii == i and nn == n):
                        val += pr * (extra + R[jj, nn, ii])
                        zz += pr * Z[jj, nn, ii]
                    elif ii < N:
                        loop += pr
                    else:
                        val += pr * (extra + ii * g * P[jj, nn] + E[jj, nn])
                        zz += pr * Zf[jj, nn]
                if loop > 0.0:  # x = val + loop * (s + x)
                    val = (val + loop * s) / (1.0 - loop)
                    zz = zz / (1.0 - loop)
                R[j, n, i] = val
                Z[j, n, i] = zz
    return R, Z


#: The keeps a rule rolls on with (it banks with the most points): ``most`` the most points (ties:
#: the most dice); ``combos`` only the three-of-a-kinds and better, or, when the roll has none, one
#: die: the single that scores most. A keep of every die (hot dice, the six-dice combinations) is
#: always kept whole. Under ``keep = "all_scoring"`` the rules keep for the player: ``most``.
KEEPS = ("most", "combos")


@lru_cache(maxsize=32)
def rule_keeps(rs: Ruleset, keep: str) -> tuple[np.ndarray, np.ndarray]:
    """``(best, roll)``: per roll id the flat index (into the compiled ``k_*`` arrays) of its keep
    of the most points (ties: the most dice, then the lower mask: the greedy keep) and of the keep
    the rule rolls on with (:data:`KEEPS`); -1 for a zilch."""
    if keep not in KEEPS:
        raise ValueError(f"keep = {keep!r}: one of {', '.join(KEEPS)}")
    cr = compile_rules(rs)
    best = cr.table[:, L.T_BEST_KEEP].astype(np.int64)
    best_flat = np.where(best >= 0, cr.k_start[:-1] + best, -1)
    roll = best_flat.copy()
    if keep == "combos" and rs.keep == "free":
        for r, ks in enumerate(cr.keeps):
            k = combos_keep(rs, cr.rolls[r], ks, int(best[r]))
            if k is not None:
                roll[r] = cr.k_start[r] + k
    best_flat.flags.writeable = False
    roll.flags.writeable = False
    return best_flat, roll


def combos_keep(rs: Ruleset, roll, keeps, best: int) -> int | None:
    """The index in ``keeps`` (a roll's keeps) of the ``combos`` keep of ``roll`` (:data:`KEEPS`),
    None when it is the keep of the most points (``keeps[best]``) or there is no keep."""
    if best < 0 or keeps[best].n == len(roll):
        return None  # a zilch, or every die scores: kept whole
    top = keeps[best]
    singles = rs.scoring.singles
    by_counts = {k.counts: i for i, k in enumerate(keeps)}
    combos = tuple(c if c >= 3 else 0 for c in top.counts)
    if any(combos):
        pick = combos
    else:
        faces = [f for f in set(roll) if singles.get(f, 0) > 0]
        if not faces:
            return None
        one = max(faces, key=lambda f: (singles[f], -f))
        pick = tuple(int(f + 1 == one) for f in range(6))
    i = by_counts.get(pick)
    return None if i is None or i == best else i


@lru_cache(maxsize=32)
def _bound(rs: Ruleset) -> np.ndarray:
    """The turn solver's certified bound on the points collectable from n dice (per ruleset)."""
    return _collect_bound(compile_rules(rs))


def _check(rs: Ruleset) -> None:
    if rs.variants.pyramiding:
        raise UnsupportedRulesError("variants.pyramiding = true: a rule of thumb's turn is valued over the "
                                    "state of the turn solver without the dice frozen in a pass; "
                                    "pyramiding's greedy keeps depend on them")


def rule_value(rs: Ruleset, rule: Rule, on_board: bool = True) -> tuple[float, float]:
    """``(expected points, chance of ending in a zilch)`` of one turn played by ``rule`` from its
    start, on the board or before it (a zilch records permanent points only; no streak penalty).
    Exact (up to float64 rounding): beyond the largest threshold the far field closes the grid."""
    _check(rs)
    return thresholds_value(rs, tuple(float(t) for t in rule.thresholds(rs.dice, on_board)), bool(on_board),
                            rule.keep)


@lru_cache(maxsize=4096)
def thresholds_value(rs: Ruleset, thresholds: tuple[float, ...], on_board: bool,
                     keep: str = "most") -> tuple[float, float]:
    """:func:`rule_value` of any bank threshold by the dice to roll next (``thresholds[n]``, n = 1 ..
    dice; index 0 unused; ``inf``: never) with the keeps ``keep`` (:data:`KEEPS`)."""
    cr = compile_rules(rs)
    rp = cr.params(1)
    D, g = cr.dice, cr.unit
    thr = int(rs.min_bank if on_board else rs.entry_threshold)
    bank_at = np.array(thresholds, dtype=np.float64)
    top = max([thr] + [float(t) for t in bank_at[1:] if math.isfinite(t)])
    s = _straight(cr)
    J = int(math.ceil(top / s)) if s else 0
    zpay = np.array([float(j * s if (on_board or j * s >= rs.entry_threshold) else 0) for j in range(J + 1)])
    N = int(math.ceil(top / g)) + 1  # every total from N units on is above every threshold: the far field
    if N > MAX_GRID:
        raise UnsupportedRulesError(f"a threshold of {top:,.0f} points is beyond what the turn solver stores "
                                    f"({MAX_GRID} totals in steps of {g})")
    args = (D, J, float(g), float(s), float(thr), bool(rp[L.R_FORCED_HOT_DICE]), int(rp[L.R_SIX_DICE_BONUS]) // g,
            zpay, cr.n_start, cr.roll_p, *rule_keeps(rs, keep), cr.k_pts // g, cr.k_n, cr.k_str, s > 0, bank_at)
    _bound(rs)  # refuses the rules of endless turns, as the turn solver does
    M, W, bP, bZ, bE = _far_system(*args, N)
    A = np.eye(len(bP)) - M
    try:
        P, Zf = np.linalg.solve(A, bP), np.linalg.solve(A, bZ)
        E = np.linalg.solve(A, bE + W @ P)
    except np.linalg.LinAlgError:  # pragma: no cover - _bound refuses the rules of endless turns
        raise UnsupportedRulesError("under this rule a turn can go on for ever") from None

    def grid(x: np.ndarray) -> np.ndarray:
        out = np.zeros((J + 1, D + 1))
        out[:, 1:] = x.reshape(J + 1, D)
        return out

    R, Z = _backward(N, *args, grid(P), grid(E), grid(Zf))
    return float(R[0, D, 0]), float(Z[0, D, 0])


def rule_points_per_turn(rs: Ruleset, rule: Rule) -> float:
    """The long-run points per turn of ``rule`` on the board: its expected turn points less, under a
    subtracted zilch-streak penalty of P points after K zilches in a row, P times the penalties per
    turn, ``z**K / (1 + z + ... + z**(K-1))`` for the rule's zilch chance z (the streak 0..K-1 is a
    Markov chain: every zilch moves it up, the K-th pays and starts it again, a bank starts it
    again). The penalties that halve or reset the score have no per-turn figure: they are left out
    (the turn solver's ``points_per_turn`` is None for them)."""
    e, zp = rule_value(rs, rule, True)
    pen = rs.variants.zilch_penalty
    if pen.count and pen.mode == "subtract" and zp > 0:
        e -= pen.points * zp ** pen.count / sum(zp ** k for k in range(pen.count))
    return e
