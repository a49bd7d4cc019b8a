"""The final round of a game of any number of players, and the turn that starts it.

Under ``end = "others_one_turn"``, once a player ends a turn at or above the target every other player
plays exactly one more turn, in seat order; then the highest score wins (a draw of ``k`` players is
worth ``1 / k`` to each). :class:`FinalRound` values that ending for every player, whatever the number
of players, the way :mod:`agents.solver.multi` values it at two and three: each last turn maximises its
mover's own chance knowing who still plays after them (the max-n equilibrium), on the same turn DP
(:func:`agents.solver.multi_kernels.dp`, following every other player's chance under the mover's
choices); the very last turn is read from the last-turn tables of :func:`agents.solver.multi_kernels.last_tables`
(leads and bars beyond the final cap valued as the cap, as there).

Only the turns of the round are solved (one turn DP per result of each turn that still has players
after it), never the race before it: a four-player ending costs seconds where the four-player race is
out of reach (docs/benchmarks.md). :meth:`FinalRound.turn_choice` values the bank / roll choice of a
race turn whose every bank reaches the target; the race after a plain zilch of that turn is the one
value it cannot know, so it is an input (a bound, see the method).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from zilch_env import Ruleset, UnsupportedRulesError, load_ruleset
from zilch_env.engine import layout as L
from zilch_env.rules.primitives import nb_bank_bar as bank_bar

from agents.solver import game_kernels as K
from agents.solver import multi_kernels as M
from agents.solver.multi import TAIL_EPS, _params_of
from agents.solver.turn_lanes import LANES, turn_dp_lanes

__all__ = ["FinalRound", "check_final_round_supported"]


def check_final_round_supported(rs: Ruleset, players: int) -> None:
    """Raise :class:`zilch_env.UnsupportedRulesError` naming the first rule :class:`FinalRound` does not model."""
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise UnsupportedRulesError(f"players = {players!r}: a final round needs 2 players or more")
    if rs.end != "others_one_turn":
        raise UnsupportedRulesError(f"end = {rs.end!r}: the final round of one more turn each is end = "
                                    "'others_one_turn'")
    if rs.tie != "draw":
        raise UnsupportedRulesError(f"tie = {rs.tie!r}: the final round is solved with tie = 'draw'")
    v = rs.variants
    for name in ("pyramiding", "challenge", "piggyback"):
        if getattr(v, name):
            raise UnsupportedRulesError(f"variants.{name} = true: the final round is solved without the {name} "
                                        "variant")
    if v.zilch_penalty.count:
        raise UnsupportedRulesError("variants.zilch_penalty: the final round does not model zilch streaks "
                                    "(count 0 turns it off)")


class FinalRound:
    """The final round of ``ruleset`` for ``players`` players (see the module docstring).

    Building one solves the last-turn tables (a second or two for zilch); every query after that
    solves the turns of its round, memoised per situation."""

    def __init__(self, ruleset: Ruleset | str, players: int, tail_eps: float = TAIL_EPS):
        rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
        check_final_round_supported(rs, players)
        self.ruleset, self.players = rs, players
        self.unit, self._rt, self.ip, self.mp = _params_of(rs, players, tail_eps)
        self._rtt = self._rt.as_tuple(int(self.ip[K.IP_NP]), int(self.ip[L.R_DICE]))
        df = int(self.mp[M.MP_DF])
        # ties at the top of the last turn: up to every other player (k + 1 of them)
        self.LV = np.zeros((2, players - 1, df + 1, df + 1))
        self.LW = np.zeros((2, players - 1, df + 1, df + 1))
        M.last_tables(self.ip, self.mp, self._rtt, self._rt.p_allonly, self.LV, self.LW)
        self._entry = int(K.entry_units(self.ip))
        self._minb = int(K.min_bank_units(self.ip))
        self._over = bool(self.ip[L.R_OVERCOMING])
        self._memo: dict[tuple, np.ndarray] = {}  # _core's solved turns
        self._work: tuple | None = None

    # ------------------------------------------------------------------ one turn, every seat followed
    def _follow(self, tcap: int, thr: int, tend: int, vb: np.ndarray, vz: np.ndarray, m: int,
                cut: bool) -> np.ndarray:
        """Seat ``m``'s turn whose endings are ``vb[t]`` (every seat's chance after banking ``t``) and
        ``vz[pi]`` (after a zilch keeping ``pi`` permanent straights): every seat's chance under the
        mover's best play, ``m``'s maximised. The other seats' chances are followed in lanes of one
        :func:`agents.solver.turn_lanes.turn_dp_lanes` call (the same turn in each lane, bit for bit the
        turn solved alone)."""
        ip = self.ip
        n = vb.shape[1]
        W = LANES
        if n - 1 > W:
            raise ValueError(f"{n} players: at most {W + 1} are followed in one turn")
        NP, D = int(ip[K.IP_NP]), int(ip[L.R_DICE])
        bonus = int(K.bonus_units(ip))
        pad = max(int(ip[K.IP_MAXPTS]), bonus)
        rows = tcap + 1 + pad
        others = [j for j in range(n) if j != m]
        nl = len(others)
        B = np.zeros((tcap + 1, W))
        fB = np.zeros((tcap + 1, W))
        Zv = np.zeros((NP, W))
        fZ = np.zeros((NP, W))
        B[:, :nl] = vb[:, m:m + 1]
        Zv[:, :nl] = vz[:, m:m + 1]
        fB[:, :nl] = vb[:, others]
        fZ[:, :nl] = vz[:, others]
        if self._work is None or self._work[0].size < rows * NP * D * W:  # work arrays kept between turns
            self._work = tuple(np.empty(2 * rows * NP * (D + 1) * W) for _ in range(4))
        Q, C, dQ, dC = self._work
        full = np.full(W, 0, np.int64)
        tcaps, thrs, tends = full + tcap, full + thr, full + tend
        out_v, out_d = np.zeros(W), np.zeros(W)
        cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = self._rtt
        turn_dp_lanes(W, nl, tcaps, thrs, tends, ip[L.R_FORCED_HOT_DICE] == 1, bonus, D, int(K.straight_units(ip)), NP,
                      B.ravel(), Zv.ravel(), cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz, self._rt.p_allonly,
                      Q, C, dQ, dC, 0, cut, pad, np.zeros(0, np.int32), fB.ravel(), fZ.ravel(), -1, out_v, out_d)
        out = np.zeros(n)
        out[m] = out_v[0]
        out[others] = out_d[:nl]
        return out

    # ------------------------------------------------------------------ inputs
    def _units(self, scores: Sequence[int]) -> list[int]:
        u = self.unit
        if len(scores) != self.players:
            raise ValueError(f"{len(scores)} scores: this final round is of {self.players} players")
        for s in scores:
            if int(s) % u or s < 0:
                raise ValueError(f"score {s}: scores are multiples of {u} points, 0 or more")
        return [int(s) // u for s in scores]

    def _order(self, after: int) -> tuple[int, ...]:
        return tuple((after + k) % self.players for k in range(1, self.players))

    # ------------------------------------------------------------------ the round
    def chances(self, scores: Sequence[int], on_board: Sequence[bool], reached: int,
                last_result: int = 0) -> np.ndarray:
        """Every seat's win chance once seat ``reached`` has ended a turn at or above the target
        (``scores`` per seat in points, ``reached``'s included; ``last_result`` the points that turn
        recorded, the next player's bar under ``overcoming``): the other seats each play one last
        turn, in seat order after ``reached``."""
        S = self._units(scores)
        if scores[reached] < self.ruleset.target:
            raise ValueError(f"seat {reached} has {scores[reached]}: the final round starts at the target, "
                             f"{self.ruleset.target}")
        rest = self._order(reached)
        for j in rest:
            if scores[j] >= self.ruleset.target:
                raise ValueError(f"seat {j} has {scores[j]}: every seat still to play is below the target")
        top = S[reached]
        on = [bool(o) or self._entry == 0 for o in on_board]
        x = int(last_result) // self.unit if self._over else 0
        core = self._core(tuple(top - S[j] for j in rest), tuple(on[j] for j in rest), 1, x)
        out = np.zeros(self.players)
        out[list(rest)] = core[:-1]
        out[reached] = core[-1]
        return out

    def _core(self, leads: tuple, ons: tuple, k: int, x: int) -> np.ndarray:
        """The final round from the top score's point of view: ``leads`` (units) of the top score over
        each player still to play, in playing order, ``ons`` whether each is on the board, ``k`` the
        players who have played (or reached the target) at the top score, ``x`` the bar (units) of the
        next turn. Returns each player's chance still to play, then the top group's together (shared
        equally: they have the same score and play no more); everybody else who has played has 0.
        Leads beyond the final cap are valued as the cap (as :mod:`agents.solver.multi` does)."""
        df = int(self.mp[M.MP_DF])
        leads = tuple(min(d, df) for d in leads)
        n = len(leads)
        if n == 1:  # the last turn: the tables
            w, t = M.last_share(self.LV, self.LW, int(ons[0]), k - 1, leads[0], x, df)
            return np.array([w + t / (k + 1), (1.0 - w - t) + t * k / (k + 1)])
        key = (leads, ons, k, x)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        ip = self.ip
        lead, on = leads[0], ons[0]
        thr = int(bank_bar(on, self._entry, self._minb, self._over, x))
        tcap = max(lead + df + 1, thr, 1)
        vb = np.array([self._after(leads, ons, k, y if (on or y >= self._entry) else 0) for y in range(tcap + 1)])
        st = int(K.straight_units(ip))
        vz = np.array([self._after(leads, ons, k, int(M.recorded(on, pi * st, ip)))
                       for pi in range(int(ip[K.IP_NP]))])
        # above the top the mover's chance only grows with the result: the end-zone cut is exact there
        out = self._follow(tcap, thr, lead + 1, vb, vz, 0, True)
        self._memo[key] = out
        return out

    def _after(self, leads: tuple, ons: tuple, k: int, rec: int) -> np.ndarray:
        """:meth:`_core`'s vector once its mover records ``rec`` units (their result: the next bar)."""
        n = len(leads)
        out = np.zeros(n + 1)
        x = rec if self._over else 0
        e = rec - leads[0]
        if e < 0:  # below the top: the mover cannot win
            sub = self._core(leads[1:], ons[1:], k, x)
            out[1:] = sub
        elif e == 0:  # ties the top: one more in the top group
            sub = self._core(leads[1:], ons[1:], k + 1, x)
            out[1:n] = sub[:-1]
            out[0] = sub[-1] / (k + 1)
            out[n] = sub[-1] * k / (k + 1)
        else:  # above it: the new top, alone; the old top group cannot win
            sub = self._core(tuple(d + e for d in leads[1:]), ons[1:], 1, x)
            out[1:n] = sub[:-1]
            out[0] = sub[-1]
        return out

    # ------------------------------------------------------------------ the turn that starts it
    def turn_choice(self, scores: Sequence[int], on_board: Sequence[bool], mover: int, turn_total: int,
                    dice: int, zilch: Sequence[float] | None = None, bar: int = 0) -> dict[str, Any]:
        """Bank or roll for ``mover`` with ``turn_total`` points in hand (none of them permanent) and
        ``dice`` dice to roll if they roll on (all of them after hot dice), where every bank reaches the
        target (``scores[mover] + turn_total`` at or above it); ``bar`` the previous turn's result under
        ``overcoming``.

        Returns ``{"bank": chances, "roll": chances, "zilch": p}``: every seat's win chance when the
        mover banks now, and when they roll on and play the rest of the turn for their own best
        chance; ``p`` the chance that rolling on ends in a zilch that leaves the game a race (a plain
        zilch, or one whose permanent straights do not reach the target). ``zilch`` gives every seat's
        chance in that race (default: 0 for everyone), so ``roll`` is exact for those values and, with
        zeros, the roll's chances without that branch: a lower bound, each below the exact value by at
        most ``p``."""
        S = self._units(scores)
        u, ip = self.unit, self.ip
        NP, D = int(ip[K.IP_NP]), int(ip[L.R_DICE])
        if turn_total % u or turn_total < 0 or dice not in range(1, D + 1):
            raise ValueError(f"turn total {turn_total}, {dice} dice: a multiple of {u} points and 1 to {D} dice")
        if scores[mover] + turn_total < self.ruleset.target:
            raise ValueError(f"{scores[mover]} + {turn_total} is below the target: a bank of this turn does not "
                             "end the race")
        t0 = turn_total // u
        tu = -(-self.ruleset.target // u)
        n = self.players
        rest = self._order(mover)
        on = [bool(o) or self._entry == 0 for o in on_board]
        race = np.zeros(n) if zilch is None else np.asarray(zilch, float)
        thr = int(bank_bar(on[mover], self._entry, self._minb, self._over, int(bar) // u if self._over else 0))
        df = int(self.mp[M.MP_DF])
        tcap = max(t0, tu - S[mover]) + df + 1

        def reached(rec: int) -> np.ndarray:
            A = S[mover] + rec
            core = self._core(tuple(A - S[j] for j in rest), tuple(on[j] for j in rest), 1,
                              rec if self._over else 0)
            out = np.zeros(n)
            out[list(rest)] = core[:-1]
            out[mover] = core[-1]
            return out

        B, fB, Zv, fZ, Q, C, dQ, dC = M.buffers(tcap, ip, True)
        vb = np.array([reached(max(y, t0)) for y in range(tcap + 1)])  # (the turn never goes below t0)
        st = int(K.straight_units(ip))
        recs = [int(M.recorded(on[mover], pi * st, ip)) for pi in range(NP)]
        in_race = [S[mover] + r < tu for r in recs]
        vz = np.array([race if in_race[pi] else reached(recs[pi]) for pi in range(NP)])
        B[:] = vb[:, mover]
        Zv[:] = vz[:, mover]
        at = (t0 * NP) * (D + 1) + dice
        roll = np.zeros(n)
        p = 0.0
        for j in [i for i in range(n) if i != mover] + [-1]:
            if j >= 0:
                fB[:] = vb[:, j]
                fZ[:] = vz[:, j]
            else:  # the chance that the turn leaves the game a race
                fB[:] = 0.0
                fZ[:] = np.array(in_race, float)
            M.dp(tcap, thr, t0, ip, self._rtt, self._rt.p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC, -1, False)
            roll[mover] = C[at]
            if j >= 0:
                roll[j] = dC[at]
            else:
                p = float(dC[at])
        return {"bank": vb[t0].copy(), "roll": roll, "zilch": p}

    # ------------------------------------------------------------------ the race from a position
    def race_chances(self, scores: Sequence[int], mover: int, tol: float = 1e-10,
                     progress: bool = False) -> np.ndarray:
        """Every seat's win chance at the start of ``mover``'s race turn, every seat on the board with
        ``scores`` (points, all below the target): the race solved exactly over the states it can
        reach (every score at or above its current one: scores only grow), each turn maximising its
        mover's own chance, the final round by :meth:`chances`. A score tuple's turns are linked by
        plain zilches (seat ``m``'s leads to seat ``m + 1``'s turn at the same scores): Gauss-Seidel on
        them to ``tol``, as :mod:`agents.solver.multi` does. The work is the product over the seats
        of the score steps left to the target (times the players): small near the end of a game."""
        if self._over:
            raise UnsupportedRulesError("variants.overcoming: the race from a position is solved without a bar")
        S0 = self._units(scores)
        u, ip, n = self.unit, self.ip, self.players
        tu = -(-self.ruleset.target // u)
        if any(s >= tu for s in S0) or any(0 < s * u < self.ruleset.entry_threshold for s in S0) or (
                self._entry and min(S0) == 0):
            raise ValueError(f"scores {list(scores)}: every seat on the board (at least the entry threshold, "
                             f"{self.ruleset.entry_threshold}) and below the target, {self.ruleset.target}")
        dims = tuple(tu - s for s in S0)
        V = np.full(dims + (n, n), np.nan)
        df = int(self.mp[M.MP_DF])
        thr = int(bank_bar(True, self._entry, self._minb, False, 0))
        st = int(K.straight_units(ip))
        NP = int(ip[K.IP_NP])
        idx = np.indices(dims).reshape(n, -1).T
        order = np.argsort(-idx.sum(axis=1), kind="stable")  # the highest scores first

        def value(S: list[int], m: int) -> np.ndarray:
            """Every seat's chance once seat ``m`` ends its turn at the scores ``S`` (units)."""
            if S[m] < tu:
                return V[tuple(s - s0 for s, s0 in zip(S, S0)) + ((m + 1) % n,)]
            rest = self._order(m)
            core = self._core(tuple(S[m] - S[j] for j in rest), (True,) * (n - 1), 1, 0)
            out = np.zeros(n)
            out[list(rest)] = core[:-1]
            out[m] = core[-1]
            return out

        from agents.progress import Progress

        with Progress(progress) as bar:
            task = bar.add("race from the position", total=len(order), info="score tuples")
            for i in order:
                S = [int(a + s0) for a, s0 in zip(idx[i], S0)]
                turns = []
                for m in range(n):
                    tcap = max(tu - S[m] + df + 1, thr, 1)
                    vb = np.array([value(S[:m] + [S[m] + t] + S[m + 1:], m) for t in range(tcap + 1)])
                    vz = [value(S[:m] + [S[m] + pi * st] + S[m + 1:], m) if pi else None for pi in range(NP)]
                    turns.append((tcap, vb, vz))
                here = tuple(idx[i])
                V[here] = 1.0 / n
                for it in range(1000):
                    change = 0.0
                    for m in range(n - 1, -1, -1):
                        tcap, vb, vz = turns[m]
                        vz[0] = V[here + ((m + 1) % n,)]  # a plain zilch: the next seat's turn, same scores
                        new = self._follow(tcap, thr, max(tu - S[m], 0), vb, np.array(vz), m, True)
                        change = max(change, float(np.abs(new - V[here + (m,)]).max()))
                        V[here + (m,)] = new
                    if change <= tol:
                        break
                bar.advance(task)
        return V[(0,) * n + (mover,)].copy()
