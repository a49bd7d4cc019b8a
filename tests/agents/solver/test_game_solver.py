"""The exact two-player game solver (agents.solver.game) and the optimal-win agent.

* On small rulesets (two dice, low targets, every ending rule) the table equals an independent,
  deliberately plain brute-force expectimax written here.
* The table is the value of its own play: the Markov chain of optimal turns gives each player's
  chance of winning and of a draw; the mover's and the other player's chances (each its own
  absorption probability) add up to one with the draws, and match the table (the mirror check).
* Tie-break rounds: the first player's chance and the second player's (averaged over the first
  player's optimal results) add up to one.
* Self-play in the engine wins what the table says, within a confidence interval.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from zilch_env import GameState, UnsupportedRulesError, load_ruleset, play_game
from zilch_env.engine.game import IllegalActionError
from zilch_env.engine import layout as L
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.primitives import MAX_TIEBREAK_ROUNDS
from zilch_env.rules.scoring import scoring_table

from agents import make_agent
from agents.solver import game_kernels as K
from agents.solver.game import GameTable, OptimalWinAgent, load_game_table, solve_game, table_path
from agents.solver.game_table import ROWLESS_BELOW


def _solve(rs, **kw):
    return solve_game(rs, cache=False, progress=False, **kw)


# ============================================================================================
# An independent brute force


class BruteForce:
    """Plain expectimax of the two-player game, independent of the solver's code.

    Points (not units), the engine's own keep list of every sorted roll, a turn solved backwards over
    every turn total up to ``cap`` (the player banks there), the end of the game and the tie-breaks
    played out literally with the engine's bookkeeping, and value iteration (sweeps until nothing
    moves) for the zilch cycles. Fewer than six dice only: no permanent straights. Under
    ``challenge`` each player's state holds the brackets they challenged in (below the split, at or
    above it), and a player free to challenge takes the better of a plain turn and a challenge turn
    (a bank also takes its total from the opponent, a zilch costs 600 on the first challenge and
    2,000 on the second).

    Many turns are solved side by side in numpy arrays (:meth:`turns`; each turn's sums are those of
    the turn alone): a sweep solves every race state's turn at once from the values of the sweep
    before (Jacobi), and the last turns and the tie-break turns the race reads are solved in batches
    before the sweeps.
    """

    def __init__(self, rs, cap_extra=1000):
        self.rs, self.T, self.D, self.cap_extra = rs, rs.target, rs.dice, cap_extra
        # a tie-break turn goes further past the score to beat before it banks: its value is computed
        # once per game and checked to 1e-9
        self.tiebreak_cap = cap_extra * 3 // 2
        tab = scoring_table(rs)
        self.rolls = {}
        for n in range(1, self.D + 1):
            lst = []
            for roll, info in tab.rolls.items():
                if len(roll) == n:
                    p = math.factorial(n) / math.prod(math.factorial(c) for c in info.counts) / 6 ** n
                    keeps = info.keeps
                    if rs.keep == "all_scoring" and keeps:
                        keeps = (max(keeps, key=lambda k: (k.points, k.n, -k.mask)),)
                    lst.append((p, [(k.points, n - k.n) for k in keeps]))
            self.rolls[n] = lst
        self.maxpts = max(pts for lst in self.rolls.values() for _, ks in lst for pts, _ in ks)
        self._tb, self._p1, self._final = {}, {}, {}
        self.split = int(compile_rules(rs).params(2)[L.R_CHALLENGE_SPLIT])

    def challenge(self, score, used, on, opp_on=True):
        """``(cost of a zilch, the brackets used after it)`` of a challenge by a player at ``score``
        who used the brackets ``used`` (bit 0 below the split, bit 1 at or above), or None if they may not."""
        bit = 2 if score >= self.split else 1
        n = bin(used).count("1")
        if not (self.rs.variants.challenge and on and opp_on) or n >= 2 or used & bit:
            return None
        return (600 if n == 0 else 2000), used | bit

    @functools.cached_property
    def rolls_at(self):
        """The rolls for :meth:`turns`: per number of dice, each roll's chance and its keeps as
        (points / 50, dice left), the rolls with the same keeps (the zilches among them: no keeps) as
        one, their chances added."""
        assert all(pts % 50 == 0 for lst in self.rolls.values() for _, ks in lst for pts, _ in ks)
        out = {}
        for n, lst in self.rolls.items():
            alike = {}
            for p, ks in lst:
                key = tuple(sorted((pts // 50, m) for pts, m in ks))
                alike[key] = alike.get(key, 0.0) + p
            out[n] = [(p, list(key)) for key, p in alike.items()]
        return out

    def top(self, cap):
        """The highest turn total (in steps of 50) a turn banked at ``cap`` reaches."""
        return (cap + max(self.maxpts, self.rs.variants.six_dice_zilch_bonus)) // 50 + 1

    def turns(self, B, z, thr, cap):
        """The values of turns from no points on all the dice, side by side (turn ``s`` in row ``s``):
        ``B[s, i]`` that of banking ``50 * i`` (read from ``thr[s]`` up; the player banks at ``cap[s]``
        and above), ``z[s]`` that of a zilch. Backwards over the turn totals in steps of 50, up to
        :meth:`top` of the largest cap (``B``'s columns)."""
        D = self.D
        forced = self.rs.hot_dice == "forced"
        bonus = self.rs.variants.six_dice_zilch_bonus
        thr, cap = np.asarray(thr), np.asarray(cap)
        top, bi, ci = self.top(int(cap.max())), bonus // 50, cap // 50
        assert B.shape == (len(z), top + 1) and (thr <= cap).all()  # a bank is allowed from the cap up
        allowed = 50 * np.arange(top + 1)[None, :] >= thr[:, None]
        post = [None] * (top + 1)  # post[i][m]: after a keep that leaves m dice (0: hot dice)
        roll_all = [None] * (top + 1)  # roll_all[i]: about to roll all the dice
        for i in range(top, -1, -1):
            bank = B[:, i]
            beyond = i >= ci  # the turns that bank here
            if beyond.all():
                post[i] = [bank] * D
                roll_all[i] = bank
                continue
            ri = [None] * (D + 1)  # ri[n]: about to roll n dice
            for n in range(1, D + 1):
                v = 0.0
                for pr, keeps in self.rolls_at[n]:
                    if not keeps:
                        if n == D and bonus:  # the bonus, then bank (if allowed) or roll all again
                            r2 = roll_all[i + bi]
                            v = v + pr * np.where(allowed[:, i + bi], np.maximum(B[:, i + bi], r2), r2)
                        else:
                            v = v + pr * z
                    elif len(keeps) == 1:
                        k, m = keeps[0]
                        v = v + pr * post[i + k][m]
                    else:
                        v = v + pr * functools.reduce(np.maximum, [post[i + k][m] for k, m in keeps])
                ri[n] = v
            roll_all[i] = np.where(beyond, bank, ri[D])
            post[i] = []
            for m in range(D):
                r = ri[m or D]
                if m or not forced:  # bank or roll on (hot dice: roll all, unless forced)
                    r = np.where(allowed[:, i], np.maximum(bank, r), r)
                post[i].append(np.where(beyond, bank, r))
        return roll_all[0]

    def _batch(self, turns):
        """:meth:`turns` of ``(bank_value, zilch value, thr, cap)`` tuples: ``bank_value(t)`` the value
        of banking ``t``."""
        top = self.top(max(cap for *_, cap in turns))
        B = np.array([[bank(50 * i) if 50 * i >= thr else 0.0 for i in range(top + 1)] for bank, _, thr, _ in turns])
        return self.turns(B, np.array([zv for _, zv, _, _ in turns]), [thr for *_, thr, _ in turns],
                          [cap for *_, cap in turns])

    def end_score(self, score, on, streak, recorded, banked, cost=0):
        """(score, on the board, streak) after a turn, as GameState._end_turn does (``cost``: what a
        zilch in a challenge costs)."""
        zp = self.rs.variants.zilch_penalty
        floor = self.rs.score_floor
        was_on = on
        if not was_on:
            if recorded and recorded >= self.rs.entry_threshold:
                on = True
            else:
                recorded = 0
        s = score + recorded - cost
        if banked:
            streak = 0
        elif was_on:
            streak += 1
            if zp.count and streak >= zp.count:
                streak = 0
                s = max(floor, s)
                s = s - zp.points if zp.mode == "subtract" else min(s, 0)
        return max(floor, s), on, (streak if zp.count else 0)

    def tie_value(self, pos):
        if self.rs.tie == "draw":
            return 0.5
        return self.tiebreak(1) if pos == 0 else 1.0 - self.tiebreak(1)

    def final(self, pos, b, on, z, A, used=0):
        """The last turn of the player at ``b`` against the leader's ``A`` (``used``: their brackets used)."""
        key = (pos, b, on, z, A, used)
        self.finals([key])
        return self._final[key]

    def finals(self, keys):
        """:meth:`final` of the keys ``(pos, b, on, z, A, used)`` not solved yet, side by side."""
        keys = [k for k in dict.fromkeys(keys) if k not in self._final]
        if not keys:
            return
        floor = self.rs.score_floor

        def last_turn(pos, b, on, z, A, cost=None):  # cost: a challenge of the leader, at that cost of a zilch
            tv = self.tie_value(pos)

            def res(score, leader=A):
                return 1.0 if score > leader else (tv if score == leader else 0.0)

            cap = A - b + self.cap_extra
            if cost is None:
                return (lambda t: res(self.end_score(b, on, z, t, True)[0]),
                        res(self.end_score(b, on, z, 0, False)[0]),
                        self.rs.min_bank if on else self.rs.entry_threshold, cap)
            return (lambda t: res(self.end_score(b, on, z, t, True)[0], max(A - t, floor)),
                    res(self.end_score(b, on, z, 0, False, cost=cost)[0]), self.rs.min_bank, cap)

        v = self._batch([last_turn(*k[:5]) for k in keys])
        ch = [(j, self.challenge(k[1], k[5], k[2])) for j, k in enumerate(keys)]
        ch = [(j, c[0]) for j, c in ch if c is not None]
        if ch:  # a challenge of the leader
            rows = [j for j, _ in ch]
            v[rows] = np.maximum(v[rows], self._batch([last_turn(*keys[j][:5], cost=cost) for j, cost in ch]))
        self._final.update(zip(keys, v.tolist()))

    def p1(self, r, x):
        """The second player's chance in tie-break round ``r`` after the first player's ``x``."""
        self._p1s(r, [x])
        return self._p1[r, x]

    def _p1s(self, r, xs):
        """:meth:`p1` of the ``xs`` not solved yet, side by side."""
        xs = [x for x in dict.fromkeys(xs) if (r, x) not in self._p1]
        if not xs:
            return
        tv = 0.5 if r == MAX_TIEBREAK_ROUNDS else 1.0 - self.tiebreak(r + 1)

        def chase(x):
            def res(y):
                return 1.0 if y > x else (tv if y == x else 0.0)

            return res, res(0), self.rs.min_bank, x + self.tiebreak_cap

        self._p1.update(zip([(r, x) for x in xs], self._batch([chase(x) for x in xs]).tolist()))

    def tiebreak(self, r):
        if r not in self._tb:
            mb, cap = self.rs.min_bank, self.tiebreak_cap
            self._p1s(r, [0] + [t for t in range(0, 50 * self.top(cap) + 1, 50) if t >= mb])
            self._tb[r] = float(self._batch([(lambda t: 1.0 - self.p1(r, t), 1.0 - self.p1(r, 0), mb, cap)])[0])
        return self._tb[r]

    def states(self):
        rs = self.rs
        zc = rs.variants.zilch_penalty.count or 1
        for pos in (0, 1):
            for a in range(rs.score_floor, self.T, 50):
                for b in range(rs.score_floor, self.T, 50):
                    for on_a in (False, True):
                        for on_b in (False, True):
                            if (not on_a and a) or (not on_b and b):
                                continue
                            if rs.entry_threshold == 0 and not (on_a and on_b):
                                continue
                            for za in range(zc if on_a else 1):
                                for zb in range(zc if on_b else 1):
                                    nu = (4 if self.split < self.T else 2) if rs.variants.challenge else 1
                                    for ua in range(nu if on_a else 1):
                                        for ub in range(nu if on_b else 1):
                                            yield (pos, a, b, on_a, on_b, za, zb, ua, ub)

    def race_turns(self, s):
        """The plain turn of race state ``s`` and its challenge turn (None if it may not challenge), each
        as ``(bank_value, zilch value, thr, cap)``, the values links: a number, ``("V", state)`` for one
        minus that state's value (the other player moves next) or ``("final", key)`` for one minus that
        last turn's value."""
        pos, a, b, on_a, on_b, za, zb, ua, ub = s
        cap, floor = self.T + self.cap_extra, self.rs.score_floor

        def after(score, on, z, used=ua, opp=b):
            if score >= self.T:
                if self.rs.end == "instant" or (self.rs.end == "finish_round" and pos == 1):
                    return 1.0
                return "final", (1 - pos, opp, on_b, zb, score, ub)
            return "V", (1 - pos, opp, score, on_b, on, zb, z, ub, used)

        plain = (lambda t: after(*self.end_score(a, on_a, za, t, True)),
                 after(*self.end_score(a, on_a, za, 0, False)),
                 self.rs.min_bank if on_a else self.rs.entry_threshold, cap)
        ch = self.challenge(a, ua, on_a, on_b)
        if ch is None:
            return plain, None
        cost, used = ch
        return plain, (lambda t: after(*self.end_score(a, on_a, za, t, True), used, max(b - t, floor)),
                       after(*self.end_score(a, on_a, za, 0, False, cost=cost), used), self.rs.min_bank, cap)

    def solve(self, tol=3e-10):
        """Value iteration until no value moves by ``tol`` in a sweep (each sweep reads the values of
        the sweep before; the zilch cycles shrink the change by a factor of 0.5-0.9 a sweep here, so
        the values are then within about 3e-9)."""
        S = list(self.states())
        index = {s: j for j, s in enumerate(S)}
        groups = [[], []]  # the plain turns of every state; the challenge turns (state, turn)
        for j, s in enumerate(S):
            plain, ch = self.race_turns(s)
            groups[0].append((j, plain))
            if ch is not None:
                groups[1].append((j, ch))
        top = self.top(self.T + self.cap_extra)
        arrays = []
        for group in groups:
            links = [[bank(50 * i) if 50 * i >= thr else 0.0 for i in range(top + 1)] + [zv]
                     for _, (bank, zv, thr, _) in group]
            self.finals([x[1] for row in links for x in row if isinstance(x, tuple) and x[0] == "final"])
            const = np.array([[x if not isinstance(x, tuple) else 1.0 - self._final[x[1]] if x[0] == "final" else 0.0
                               for x in row] for row in links])
            at = np.array([[index[x[1]] if isinstance(x, tuple) and x[0] == "V" else -1 for x in row] for row in links])
            arrays.append((np.array([j for j, _ in group], dtype=int), const, at,
                           [t[2] for _, t in group], [t[3] for _, t in group]))
        def sweep(rows, const, at, thr, cap):  # the turns of a group from the values V
            X = np.where(at >= 0, 1.0 - V[at], const)
            return self.turns(X[:, :-1], X[:, -1], thr, cap)

        V = np.full(len(S), 0.5)
        for _ in range(5000):
            new = sweep(*arrays[0])  # every state's plain turn, in order
            if len(arrays[1][0]):  # the better of it and the challenge turn
                rows = arrays[1][0]
                new[rows] = np.maximum(new[rows], sweep(*arrays[1]))
            delta = float(np.abs(new - V).max())
            V = new
            if delta < tol:
                return dict(zip(S, V.tolist()))
        raise RuntimeError("value iteration did not converge")


BRUTE_CASES = {
    # free keeps, others get one turn, draws
    "zonk-2-dice": ("zonk", {"target": 300, "dice": 2, "entry_threshold": 0}),
    # finish the round (seat order matters), entry threshold, a zilch penalty that lowers the score sum
    "farkle-2-dice-penalty": ("farkle", {"target": 200, "dice": 2, "entry_threshold": 100, "min_bank": 0,
                                         "variants.zilch_penalty.count": 2,
                                         "variants.zilch_penalty.points": 100}),
    # tie-break turns, forced hot dice, all scoring dice kept, minimum bank
    "zilch5k-2-dice-tiebreak": ("zilch5k", {"target": 300, "dice": 2, "entry_threshold": 0, "min_bank": 100}),
    # a penalty that resets the score (same level at 0: longer zilch cycles), six-dice zilch bonus
    "reset-penalty-bonus": ("farkle", {"target": 200, "dice": 2, "entry_threshold": 0, "min_bank": 50,
                                       "variants.zilch_penalty.count": 2,
                                       "variants.zilch_penalty.mode": "reset",
                                       "variants.six_dice_zilch_bonus": 50}),
    # scores below zero: a subtracted penalty down to the floor (lower levels than both at 0)
    "floor-penalty": ("farkle", {"target": 200, "dice": 2, "entry_threshold": 0, "min_bank": 0,
                                 "score_floor": -150, "variants.zilch_penalty.count": 2,
                                 "variants.zilch_penalty.points": 100}),
    # ... with an entry threshold, the instant ending and a penalty at every zilch
    "floor-instant": ("farkle", {"target": 200, "dice": 2, "entry_threshold": 100, "min_bank": 0,
                                 "end": "instant", "score_floor": -100,
                                 "variants.zilch_penalty": {"count": 1, "points": 100, "mode": "subtract"}}),
    # a reset leaves a score below zero where it is (a penalty never raises a score)
    "floor-reset": ("zonk", {"target": 200, "dice": 2, "entry_threshold": 0, "score_floor": -100,
                             "variants.zilch_penalty": {"count": 2, "points": 100, "mode": "reset"}}),
    # scores below zero allowed but never reached without a penalty: the floor's rows join the race's
    # levels, whose zilch cycles are still solved as cycles (they were once guessed, not solved)
    "floor-no-penalty": ("zonk", {"target": 300, "dice": 2, "entry_threshold": 0, "score_floor": -100}),
    # the instant-win ending (either player's bank at or above the target wins at once), no entry
    "instant-2-dice": ("cardgames", {"target": 300, "dice": 2}),
    # the instant ending with an entry threshold and the six-dice zilch bonus
    "instant-entry-bonus": ("zonk", {"end": "instant", "target": 250, "dice": 2, "entry_threshold": 100,
                                     "variants.six_dice_zilch_bonus": 50}),
    # the bonus under forced hot dice, all scoring dice kept and tie-break turns (zilch5k's rules)
    "forced-tiebreak-bonus": ("zilch5k", {"target": 300, "dice": 2, "entry_threshold": 0, "min_bank": 100,
                                          "variants.six_dice_zilch_bonus": 50}),
    # challenges: a bank takes its total from the opponent, a zilch costs 600 (down to the floor)
    "challenge": ("zonk", {"target": 300, "dice": 2, "entry_threshold": 0, "variants.challenge": True}),
    # ... with an entry threshold, finish the round, scores below zero and a zilch penalty (the floor
    # one step below zero: a penalty's 100 and a failed challenge's 600 both stop at it, and the
    # brute force has a third fewer states to sweep than at -100)
    "challenge-floor-penalty": ("farkle", {"target": 150, "dice": 2, "entry_threshold": 100, "min_bank": 0,
                                           "score_floor": -50, "variants.challenge": True,
                                           "variants.zilch_penalty.count": 2,
                                           "variants.zilch_penalty.points": 100}),
    # ... with tie-break turns (no challenges in them), forced hot dice and a minimum bank
    "challenge-tiebreak": ("zilch5k", {"target": 300, "dice": 2, "entry_threshold": 0, "min_bank": 100,
                                       "variants.challenge": True}),
}


@pytest.mark.parametrize("case", list(BRUTE_CASES))
def test_matches_brute_force(case):
    name, overrides = BRUTE_CASES[case]
    rs = load_ruleset(name, overrides)
    bonus = rs.variants.six_dice_zilch_bonus > 0
    # the bonus makes rolls of all the dice free, so turns run long: the brute force needs a higher cap
    bf = BruteForce(rs, cap_extra=2000 if bonus else 1000)
    V = bf.solve()
    table = _solve(rs, sweep_tol=1e-13)
    assert table.meta["converged"]
    worst = 0.0
    for (pos, a, b, on_a, on_b, za, zb, ua, ub), v in V.items():
        w = float(table.W[table._race_sid(pos, a, on_a, za, b, on_b, zb, ua, ub)])
        worst = max(worst, abs(w - v))
    # the table is stored as float32 (half a unit in the last place: 3e-8); the brute force
    # truncates turns at its cap and stops iterating within about 3e-9 (together below 8e-8 here)
    assert worst < 1.5e-7, f"{case}: largest difference {worst:.3g}"
    if rs.tie == "tiebreak":
        assert abs(float(table.TB0[1]) - bf.tiebreak(1)) < 1e-9


def test_matches_brute_force_with_both_challenge_brackets(monkeypatch):
    """The upper challenge bracket and the second challenge's cost, with the split (5,000 in the rules,
    beyond a brute force's reach) moved below the target for this test: every race value equals
    the brute force's."""
    import zilch_env.rules.compiled as compiled

    monkeypatch.setattr(compiled, "CHALLENGE_SPLIT", 100)  # brackets -50..50 and 100..150
    compiled.compile.cache_clear()
    try:
        rs = load_ruleset("zonk", {"target": 200, "dice": 2, "entry_threshold": 0, "score_floor": -50,
                                   "variants.challenge": True})
        bf = BruteForce(rs)
        assert bf.split == 100
        V = bf.solve()
        table = _solve(rs, sweep_tol=1e-13)
        assert int(table.ip[K.IP_NU]) == 4  # both brackets tracked
        worst = max(abs(float(table.W[table._race_sid(pos, a, on_a, za, b, on_b, zb, ua, ub)]) - v)
                    for (pos, a, b, on_a, on_b, za, zb, ua, ub), v in V.items())
        assert worst < 1.5e-7, f"largest difference {worst:.3g}"
        assert any(ua == 3 for (_, _, _, _, _, _, _, ua, _) in V)  # states after two challenges
    finally:
        compiled.compile.cache_clear()  # no other test sees the moved split


# ============================================================================================
# The table is the value of its own play


def _chain(table):
    """Absorption probabilities of the Markov chain of race turns under the table's policy:
    for every race state, P(the mover wins), P(the other player wins), P(draw)."""
    rs, ip, u = table.ruleset, table.ip, table.unit
    assert rs.tie == "draw" and rs.end == "others_one_turn" and not rs.variants.zilch_penalty.count
    Tu = int(ip[K.IP_TU])
    entry = rs.entry_threshold > 0
    states = []
    for a in range(Tu):
        for b in range(Tu):
            for on_a in ((False, True) if entry and a == 0 else (True,)):
                for on_b in ((False, True) if entry and b == 0 else (True,)):
                    states.append((a, on_a, b, on_b))
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    # unknowns: x = P(mover wins), y = P(other wins), z = P(draw) for every state
    M = np.eye(3 * n)
    rhs = np.zeros(3 * n)
    last = {}
    for i, (a, on_a, b, on_b) in enumerate(states):
        sit = ("race", table._race_sid(0, a * u, on_a, 0, b * u, on_b, 0))
        bank, zilch, _, _ = table.turn_outcomes(sit)
        outcomes = [(t // u, p) for t, p in bank.items()] + [(None, p) for p in zilch.values()]
        for t, p in outcomes:
            if t is None:  # zilch: the opponent moves, nothing recorded
                a2, on2 = a, on_a
            else:
                a2, on2 = a + t, True
            if a2 >= Tu:  # the other player's last turn against the lead
                key = ("bar", a2 - b, table.tie_value(1), on_b, False)
                if key not in last:  # the same last turns recur: each solved once
                    last[key] = table.turn_outcomes(key)
                lb, lz, lB, _ = last[key]
                for t2, q in list(lb.items()) + [(None, q) for q in lz.values()]:
                    got = 0 if t2 is None else t2 // u
                    if got > a2 - b:
                        rhs[n + i] += p * q
                    elif got == a2 - b:
                        rhs[2 * n + i] += p * q
                    else:
                        rhs[i] += p * q
            else:  # the other player moves next: roles swap
                j = index[(b, on_b, a2, on2)]
                M[i, n + j] -= p  # I win if the next mover's opponent (me) wins
                M[n + i, j] -= p
                M[2 * n + i, 2 * n + j] -= p
    sol = np.linalg.solve(M, rhs)
    return states, sol[:n], sol[n:2 * n], sol[2 * n:]


def test_mirror_each_side_wins_what_the_table_says(solve_once):
    rs = load_ruleset("zonk", {"target": 400, "entry_threshold": 100})
    table = solve_once(rs)
    states, x, y, z = _chain(table)
    u = table.unit
    assert np.all(x >= -1e-12) and np.all(y >= -1e-12) and np.all(z >= -1e-12)
    # the mover's and the other player's chances, each its own absorption probability, plus the
    # draws cover every game
    np.testing.assert_allclose(x + y + z, 1.0, atol=1e-9)
    for i, (a, on_a, b, on_b) in enumerate(states):
        w = table.race_value(0, a * u, on_a, 0, b * u, on_b, 0)
        assert abs(x[i] + z[i] / 2 - w) < 1e-6  # the mover wins what the table says
        assert abs(y[i] + z[i] / 2 - (1 - w)) < 1e-6  # and the other side the rest


def test_tiebreak_rounds_add_up(solve_once):
    """In the first tie-break round and the last, the first player's chance and the second player's
    (over the first player's results) add up to one. The rounds do not depend on the target: the
    table of zilch5k to 1,000, which the self-play and last-turn tests read too."""
    rs = load_ruleset("zilch5k", {"target": 1000})
    table = solve_once(rs)
    assert 0.4 < table.TB0[1] < 0.6
    for r in (1, MAX_TIEBREAK_ROUNDS):
        bank, zilch, _, _ = table.turn_outcomes(("tiebreak", r))
        G = table.G[r]
        u = table.unit
        second = sum(p * G[min(t // u, len(G) - 1)] for t, p in bank.items()) + sum(zilch.values()) * G[0]
        assert abs(table.TB0[r] + second - 1.0) < 1e-9


# ============================================================================================
# Self-play in the engine


#: Farkle's rules to 600 with a two-zilch penalty: four penalty sweeps, the last rowless (what
#: test_penalty_sweeps_skip_rows_only_where_it_changes_nothing needs), and a self-play case: one solve.
PENALTY_SWEEPS = {"target": 600, "entry_threshold": 300, "variants.zilch_penalty.count": 2}
#: Zilch with challenges to 800: self-played, and its challenge decisions checked (one solve).
CHALLENGE_GAME = {"target": 800, "variants.challenge": True}


@pytest.mark.parametrize("name, overrides, games", [
    ("zonk", {"target": 1000}, 3000),
    ("zilch5k", {"target": 1000}, 2000),  # tie-break turns, forced hot dice
    ("zilch", {"target": 1000}, 2000),  # all scoring dice kept, permanent straights (6 = 50)
    # finish the round, zilch penalty (the table test_penalty_sweeps_skip_rows_only_where_it_changes_nothing reads)
    ("farkle", PENALTY_SWEEPS, 1500),
    ("cardgames", {"target": 1000}, 2000),  # the instant-win ending
    ("farkle", {"target": 600, "entry_threshold": 0, "score_floor": -300,  # scores below zero
                "variants.zilch_penalty": {"count": 2, "points": 300, "mode": "subtract"}}, 1500),
    # the six-dice zilch bonus (the web form's 500): bank it or roll six again, as the table decides
    ("zonk", {"target": 1000, "variants.six_dice_zilch_bonus": 500}, 1500),
    ("zilch5k", {"target": 1000, "variants.six_dice_zilch_bonus": 500}, 1500),  # forced hot dice, tie-breaks
    # challenges (the agent decides at the turn's start, and plays a challenge turn and a challenged
    # last turn from the table), with permanent straights (test_a_challenge_is_declared_where_it_is_worth_more
    # reads the same table)
    ("zilch", CHALLENGE_GAME, 2000),
])
def test_self_play_wins_what_the_table_says(name, overrides, games, solve_once):
    rs = load_ruleset(name, overrides)
    table = solve_once(rs)
    agent = OptimalWinAgent(rs, table)
    rng = np.random.default_rng(0)
    score, below, bonuses, challenges = 0.0, 0, 0, 0
    for g in range(games):
        first = g % 2
        state = play_game(GameState(rs, 2, seed=10_000 + g, first=first), [agent, agent], rng)
        score += state.result()[first]
        below += any(t["score"] < 0 for t in state.turns)
        bonuses += sum(e["kind"] == "bonus" for t in state.turns for e in t["events"])
        challenges += sum(t["challenged"] is not None for t in state.turns)
    rate = score / games
    p = table.first_player_win
    sigma = math.sqrt(p * (1 - p) / games)
    assert abs(rate - p) < 4 * sigma, f"{name}: first player won {rate:.4f}, the table says {p:.4f}"
    assert (below > 0) == (rs.score_floor < 0)  # the games went below zero where they may
    assert (bonuses > 0) == (rs.variants.six_dice_zilch_bonus > 0)  # the bonus was played where it exists
    assert (challenges > 0) == rs.variants.challenge  # and challenges where they exist


def test_a_challenge_is_declared_where_it_is_worth_more(solve_once):
    """At every challenge decision the agent compares the plain turn with the challenge turn: in the
    race the better of the two is the table's value of the state, the challenge's its ``CH``; and
    the agent challenges exactly where the challenge is worth more (in the race and in last turns)."""
    from zilch_env import NO_CHALLENGE, Phase

    rs = load_ruleset("zilch", CHALLENGE_GAME)
    table = solve_once(rs)
    agent = OptimalWinAgent(rs, table)
    rng = np.random.default_rng(3)
    race = last = taken = 0
    for g in range(60):
        state = GameState(rs, 2, seed=500 + g, first=g % 2)
        while not state.done:
            a = agent.act(state, state.legal_actions(), rng)
            if state.phase == Phase.CHALLENGE:
                plain, ch = table.challenge_choice(state)
                sit = table.situation(state)
                if sit[0] == "race":
                    race += 1
                    assert abs(max(plain, ch) - float(table.W[sit[1]])) < 1e-6
                    assert abs(ch - float(table.CH[sit[1]])) < 1e-6
                else:
                    last += 1
                assert (a != NO_CHALLENGE) == (ch > plain + 1e-12)
                taken += a != NO_CHALLENGE
            state.apply(a)
    assert race > 50 and last > 0 and 0 < taken < race + last


def test_agent_values_are_consistent_with_the_table(solve_once):
    rs = load_ruleset("zonk", {"target": 1000})
    table = solve_once(rs)
    agent = OptimalWinAgent(rs, table)
    rng = np.random.default_rng(1)
    checked = 0
    for g in range(30):
        state = GameState(rs, 2, seed=g)
        while not state.done:
            legal = state.legal_actions()
            if state.current == 0:
                vals = table.action_values(state)
                assert set(vals) == set(legal)
                best = agent.act(state, legal, rng)
                assert vals[best] == pytest.approx(max(vals.values()), abs=1e-12)
                me = state.current
                for a in legal:
                    if a & 1 and state.final_queue is None:
                        k = next(k for k in state.keeps() if k.mask == a >> 1)
                        total = state.scores[me] + state.turn_total + k.points
                        if total < rs.target:  # banking hands the opponent the move at turn start
                            w = table.race_value(1 - (me - state.first) % 2, state.scores[1 - me],
                                                 state.on_board[1 - me], 0, total, True, 0)
                            assert vals[a] == pytest.approx(1 - w, abs=1e-7)  # float32 values
                            checked += 1
                state.apply(best)
            else:
                state.apply(int(rng.choice(legal)))
    assert checked > 20


def test_seat_mirror_and_round_position(solve_once):
    """Relabelling the seats is a mirror of the game under every rule: the same dice give the same
    values whoever sits first. What matters is the position in the round, and only where the rules
    make it matter: under finish_round (the second player's reaching the target ends the game), not
    when everyone else gets one more turn."""
    for name, position_matters in (("zonk", False), ("farkle", True)):
        rs = load_ruleset(name, {"target": 600, "entry_threshold": 0, "variants.zilch_penalty.count": 0})
        table = solve_once(rs)
        values = [table.value(GameState(rs, 2, dice=[[1, 5, 2, 3, 4, 6]] * 50, first=first)) for first in (0, 1)]
        assert values[0] == values[1]
        for a, b in ((0, 0), (300, 450), (550, 500)):
            w0 = table.race_value(0, a, True, 0, b, True, 0)
            w1 = table.race_value(1, a, True, 0, b, True, 0)
            assert (abs(w0 - w1) > 1e-6) == position_matters, (name, a, b, w0, w1)


# ============================================================================================
# Files, registry, errors


def test_cache_roundtrip_and_registry(tmp_path, monkeypatch):
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    rs = load_ruleset("zonk", {"target": 500})
    assert load_game_table(rs) is None
    table = solve_game(rs, progress=False)
    path = table_path(rs)
    assert path.exists() and path.parent == tmp_path
    loaded = GameTable.load(path)
    np.testing.assert_array_equal(loaded.W, table.W)
    assert loaded.first_player_win == table.first_player_win
    assert loaded.meta["seconds"] == table.meta["seconds"]
    again = solve_game(rs, progress=False)  # from the cache: the same table, not a new solve
    assert again.meta["date"] == table.meta["date"]
    agent = make_agent("optimal-win", rs)
    assert isinstance(agent, OptimalWinAgent)
    state = play_game(GameState(rs, 2, seed=3), [agent, make_agent("random", rs)], 0)
    assert state.done
    by_path = make_agent(f"optimal-win:{path}", rs)
    assert by_path.table.first_player_win == table.first_player_win
    with pytest.raises(ValueError, match="not"):
        make_agent(f"optimal-win:{path}", load_ruleset("zonk", {"target": 600}))


@pytest.mark.parametrize("overrides, word", [
    ({"variants.pyramiding": True}, "pyramiding"),
    ({"variants.overcoming": True}, "overcoming"),
    ({"variants.piggyback": True}, "piggyback"),
    ({"variants.zilch_penalty.count": 3, "variants.zilch_penalty.mode": "halve"}, "halve"),
])
def test_unsupported_rules_are_named(overrides, word):
    rs = load_ruleset("zonk", {"target": 500, **overrides})
    with pytest.raises(UnsupportedRulesError, match=word) as err:
        solve_game(rs, cache=False, progress=False)
    if word in ("pyramiding", "piggyback"):  # with the size the game would need
        assert "GB while solving" in str(err.value) and "turn-DP rows" in str(err.value)
    if word != "overcoming":  # optimal-win plays overcoming from agents.solver.multi (tests/agents/solver/test_multi_solver.py)
        with pytest.raises(UnsupportedRulesError, match=word):
            make_agent("optimal-win", rs)


def test_the_size_check_counts_the_sweeps_the_rules_take():
    """check_solve_size counts ten sweeps under a zilch penalty (its policy iteration), one without,
    and a turn more for a challenge: zilch15k with challenges (no penalty) is solved, farkle with
    challenges (a penalty, 16 times the plain game's states) is refused with its figures."""
    from agents.solver.game import MAX_GAME_ROWS, check_solve_size, solve_size, solve_sweeps

    fifteen = load_ruleset("zilch15k", {"variants.challenge": True})
    assert solve_sweeps(fifteen) == 2 and solve_sweeps(load_ruleset("zilch15k")) == 1
    assert solve_size(fifteen, 2)[0] < MAX_GAME_ROWS < solve_size(fifteen)[0]
    check_solve_size(fifteen)  # no refusal
    farkle = load_ruleset("farkle", {"variants.challenge": True})
    assert solve_sweeps(farkle) == 11
    with pytest.raises(UnsupportedRulesError, match="turn-DP rows"):
        check_solve_size(farkle)


def test_variant_sizes_are_on_the_solvers_grid(solve_once):
    """The sizes a refusal gives start from the race table the solver allocates for the plain rules."""
    from agents.solver.game_support import PYRAMID_WORK, variant_size

    plain = load_ruleset("zonk", {"target": 1000})  # a table other tests read
    table = solve_once(plain)
    tu, dice = int(table.ip[K.IP_TU]), plain.dice
    for variant in ("piggyback", "pyramiding"):
        size = variant_size(load_ruleset(plain, {f"variants.{variant}": True}), variant)
        assert size.plain_states == table.W.size
        assert size.bytes == 8 * size.states
    assert variant_size(plain, "piggyback").states == table.W.size * (1 + tu * dice)
    py = variant_size(plain, "pyramiding")
    assert py.rows == (py.plain_rows * PYRAMID_WORK[0], py.plain_rows * PYRAMID_WORK[1])
    for other in ("overcoming", "challenge"):  # challenge is modelled (test_matches_brute_force)
        with pytest.raises(ValueError, match="'piggyback', 'pyramiding'"):
            variant_size(plain, other)


def test_more_than_three_players_is_refused(solve_once):
    """Three players are the multi-player solver's (tests/agents/solver/test_multi_solver.py); four no solver plays."""
    rs = load_ruleset("zonk", {"target": 1000})  # a table other tests read
    table = solve_once(rs)
    state = GameState(rs, 4, seed=0)
    with pytest.raises(UnsupportedRulesError, match="2 or 3 players"):
        OptimalWinAgent(rs, table).act(state, state.legal_actions(), np.random.default_rng(0))


def test_agent_moves_are_legal_against_random(solve_once):
    rs = load_ruleset("zilch5k", {"target": 1000})  # a table other tests read
    agent = OptimalWinAgent(rs, solve_once(rs))
    for g in range(40):
        state = GameState(rs, 2, seed=g, first=g % 2)
        try:
            play_game(state, [agent, make_agent("random", rs)], g)
        except IllegalActionError as e:  # pragma: no cover - the failure message
            pytest.fail(f"illegal move: {e}")
        assert state.done


def test_turn_cache_is_bounded_by_memory_and_keeps_the_same_moves(monkeypatch, solve_once):
    rs = load_ruleset("zonk", {"target": 1000})
    table = solve_once(rs)
    free = OptimalWinAgent(rs, table)
    tiny = GameTable(table.ruleset, table.unit, table.ip, table.W, table.F, table.G, table.TB0, cache_mb=0.02)
    small = OptimalWinAgent(rs, tiny)
    rng = np.random.default_rng(0)
    for g in range(30):
        state = GameState(rs, 2, seed=g, first=g % 2)
        while not state.done:
            legal = state.legal_actions()
            a = small.act(state, legal, rng)
            assert a == free.act(state, legal, rng)
            state.apply(a)
    sizes = [tv.B.nbytes + tv.C.nbytes for tv in tiny._cache.values()]
    assert tiny._cache_bytes == sum(sizes) <= 0.02e6
    assert len(table._cache) > len(tiny._cache) >= 1
    monkeypatch.setenv("ZILCH_WIN_CACHE_MB", "64")
    assert GameTable(table.ruleset, table.unit, table.ip, table.W, table.F, table.G, table.TB0).cache_mb == 64
    monkeypatch.setenv("ZILCH_WIN_CACHE_MB", "lots")
    with pytest.raises(ValueError, match="ZILCH_WIN_CACHE_MB='lots'"):
        GameTable(table.ruleset, table.unit, table.ip, table.W, table.F, table.G, table.TB0)


# ============================================================================================
# The command line


def test_cli_solve_and_advise_win(tmp_path, monkeypatch, capsys):
    import json

    from zilch_cli import main

    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    rules = ["--ruleset", "zonk", "--set", "target=600"]
    assert main(["solve", *rules, "--objective", "win", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert not first["loaded_from_cache"] and first["table"].startswith(str(tmp_path))
    assert main(["solve", *rules, "--objective", "win", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["loaded_from_cache"] and again["first_player_win"] == first["first_player_win"]
    table = load_game_table(load_ruleset("zonk", {"target": 600}))
    assert first["first_player_win"] == table.first_player_win

    # the race: every choice with its win chance, best first; --score implies the win objective
    assert main(["advise", *rules, "--score", "200", "--opponent", "350", "--turn-total", "150",
                 "--dice", "1", "5", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["objective"] == "win" and out["phase"] == "the race to the target"
    chances = [c["win_chance"] for c in out["choices"]]
    assert chances == sorted(chances, reverse=True) and len(chances) == 6  # 3 keeps, each to bank or roll on
    sit = table.race_situation(200, 350)
    assert chances[0] == pytest.approx(table.choices(sit, [1, 5, 2], 150)[0]["value"])
    # the last turn: the opponent reached the target; banking to a tie is worth half
    assert main(["advise", *rules, "--score", "300", "--opponent", "650", "--turn-total", "200",
                 "--dice", "1", "5", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by = {(tuple(c["keep"]), c["bank"]): c["win_chance"] for c in out["choices"]}
    assert by[((1, 5), True)] == 0.5 and by[((1,), True)] == 0.0 and by[((5,), True)] == 0.0
    assert 0.0 < by[((1,), False)] < 1.0
    assert main(["advise", *rules, "--score", "300", "--opponent", "650", "--turn-total", "200",
                 "--dice", "1", "2", "3"]) == 0  # banking 600 loses: roll on
    assert "Best: keep 1 and roll on" in capsys.readouterr().out
    # errors name the problem
    assert main(["advise", *rules, "--score", "420", "--dice", "1", "2"]) == 2
    assert "multiple of 50" in capsys.readouterr().err
    assert main(["advise", "--ruleset", "farkle", "--opponent", "10000", "--dice", "1", "2"]) == 2
    assert "--position 2" in capsys.readouterr().err
    assert main(["advise", "--ruleset", "zonk", "--set", "variants.piggyback=true", "--score", "0",
                 "--dice", "1", "2"]) == 2
    assert "piggyback" in capsys.readouterr().err


def test_penalty_sweeps_skip_rows_only_where_it_changes_nothing(solve_once):
    """The last sweep of a penalty solve records no rows (the sweep expected to be the last, after one
    that changed no value by more than ROWLESS_BELOW), and it is the last: the solve converged. That
    the values are those of plain policy iteration is what the brute-force cases with a zilch penalty
    (test_matches_brute_force) and the self-play of farkle (test_self_play_wins_what_the_table_says,
    on this very table) prove."""
    rs = load_ruleset("farkle", PENALTY_SWEEPS)  # four sweeps, the last rowless
    fast = solve_once(rs)  # solve_game(rs, cache=False, progress=False), as _solve
    assert len(fast.meta["sweep_changes"]) == 4 and 0 < fast.meta["sweep_changes"][2] < ROWLESS_BELOW
    assert fast.meta["converged"] and fast.meta["rowless_sweeps"] == 1
    assert fast.meta["sweep_changes"][-1] < 1e-8


def test_values_do_not_depend_on_the_cap_from_the_stable_cap_on(tmp_path, monkeypatch):
    """What the luck adjustment of agents.evaluate relies on for worker-independent results: from
    GameTable.stable_cap on, a higher turn-total cap changes no action value (float32 as cached),
    so it does not matter which turns of a situation a process happened to solve first."""
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))  # the shipped table, not this machine's
    table = load_game_table("zilch")
    agents = [make_agent("heuristic", table.ruleset), make_agent("greedy", table.ruleset)]
    rng = np.random.default_rng(0)
    g, checked = GameState(table.ruleset, 2, seed=8), 0
    while not g.done:
        sit = table.situation(g)
        cap = table.stable_cap(sit)
        values = []
        for extra in (0, 37, 300):
            table._cache.clear()  # solve afresh with this cap
            values.append(table.action_values(g, True, cap + extra, sit))
        assert values[0] == values[1] == values[2]
        checked += 1
        g.apply(agents[g.current].act(g, g.legal_actions(), rng))
    assert checked > 20


# ============================================================================================
# The last turns of games the solved game does not play: overcoming's bar, seats still to play


def test_final_situation_of_two_players_is_the_tables_last_turn(solve_once):
    """Two players and no bar above the lead: the two-player game's own last turn. A bar above the
    lead (overcoming) is the turn against that bar with no tie (a bank equal to it is refused)."""
    rs = load_ruleset("zonk", {"target": 1000})
    table = solve_once(rs)
    u = table.unit
    for me, first, scores in ((1, 0, [1100, 600]), (0, 1, [400, 1050]), (1, 1, [1000, 950])):
        want = table.situation_of(me, first, scores, [True, True], [0, 0], [me], None, 0)
        assert table.final_situation_of(me, first, scores, [True, True], [0, 0], [me]) == want
        assert table.final_situation_of(me, first, scores, [True, True], [0, 0], [me], bar=5000) == want
    lead = 1100 - 600
    below = table.final_situation_of(1, 0, [1100, 600], [True, True], [0, 0], [1], bar=lead - u, overcoming=True)
    assert below == ("bar", lead // u, 0.5, True, False)
    above = table.final_situation_of(1, 0, [1100, 600], [True, True], [0, 0], [1], bar=800, overcoming=True)
    assert above[0] == "chase" and above[3] == 800 // u
    assert table.start_value(above) == pytest.approx(table.start_value(("bar", 800 // u, 0.0, True, False)), abs=1e-12)
    assert table.start_value(above) < table.start_value(below)
    with pytest.raises(ValueError, match=r"final queue \[0, 1\]: the mover, seat 1, plays first"):
        table.final_situation_of(1, 0, [1100, 600], [True, True], [0, 0], [0, 1])


def test_a_last_turn_with_a_seat_after_it_leaves_that_seat_its_chance(solve_once):
    """The first of two last turns: a bank above the leader wins if the seat after it then fails to
    end above the new top score (and, under overcoming, above the mover's result). Every bank's
    value is checked against that seat's own last turn, solved on its own."""
    rs = load_ruleset("zilch5k", {"target": 1000})
    table = solve_once(rs)
    u = table.unit
    scores = [1200, 700, 550]  # seat 0 reached the target; seat 1 plays, then seat 2
    for overcoming, bar in ((False, 0), (True, 300)):
        sit = table.final_situation_of(1, 0, scores, [True] * 3, [0] * 3, [1, 2], bar=bar, overcoming=overcoming)
        _, d, v, b, on, penf, later = sit
        assert (d, b, later) == (10, bar // u, ((-3, table.tie_value(1), True, False, overcoming),))
        B, _, _ = table._chase_inputs(sit, 0)
        for t in (b, b + 1, d - 1, d, d + 1, d + 4, d + 12):
            if t <= b or t < d:
                assert B[t] == 0.0
                continue
            need = max(t, d) + 3
            if overcoming:
                need = max(need, t)
            other = table.start_value(("bar", need, v, True, False))
            assert B[t] == pytest.approx((1.0 if t > d else v) * (1.0 - other), abs=1e-7)  # float32 turns
        alone = table.start_value(table.final_situation_of(1, 0, scores[:2], [True] * 2, [0] * 2, [1], bar=bar,
                                                           overcoming=overcoming))
        assert 0.0 < table.start_value(sit) < alone
    with pytest.raises(ValueError, match="outcomes are not tabled"):
        table.turn_outcomes(sit)


def test_the_next_seat_above_the_mover_must_also_beat_its_result(solve_once):
    """Under overcoming the seat after the mover must bank above the mover's result as well as above
    the top score: where the result is the larger (or equal), ending at it is refused, not a tie.
    A bank below the bar is not one the turn offers."""
    rs = load_ruleset("zilch5k", {"target": 1000})
    table = solve_once(rs)
    u = table.unit
    scores = [1200, 550, 700]  # seat 0 reached the target; seat 1 plays, then seat 2 (ahead of it)
    sit = table.final_situation_of(1, 0, scores, [True] * 3, [0] * 3, [1, 2], bar=300, overcoming=True)
    _, d, v, b, on, penf, later = sit
    assert (d, b) == (13, 6) and later[0][0] == 3 and later[0][4]
    B, _, thr = table._chase_inputs(sit, 0)
    assert thr == b + 1
    seen = set()
    for t in range(d, d + 25):
        score_need = max(t, d) - 3  # seat 2's turn total that ties the top
        if t >= score_need:  # it must beat t, and ending at t is refused
            other, kind = table.start_value(("bar", t, 0.0, True, False)), "bar"
        else:
            other, kind = table.start_value(("bar", score_need, later[0][1], True, False)), "score"
        seen.add(kind)
        assert B[t] == pytest.approx((1.0 if t > d else v) * (1.0 - other), abs=1e-7)
    assert seen == {"bar"}  # 3 ahead of the mover, seat 2 ties the top below the mover's result
    # the tie value of a later seat is its own, by who plays first in the round
    wrap = table.final_situation_of(2, 0, [0, 1100, 900], [True] * 3, [0] * 3, [2, 0])
    assert wrap[6][0][1] == table.tie_value(0) and wrap[2] == table.tie_value(1)
