"""The solved game as a reward-shaping potential for training (``train/ppo.py --shaping``):
:class:`WinPotential`, each seat's chance to win under optimal play from where a game stands."""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from zilch_env import Ruleset, UnsupportedRulesError, load_ruleset
from zilch_env.engine import layout as L
from zilch_env.engine.game import Phase
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.primitives import can_bank
from zilch_env.rules.scoring import bonus_of, scoring_table

from agents.solver import game_kernels as K
from agents.solver.game_table import GameTable

__all__ = ["WinPotential", "RulesPotential"]


class WinPotential:
    """The solved game as a *potential* for reward shaping (``zilch_env.envs.vec_env.BatchedZilchVecEnv(
    potential=...)``, ``train/ppo.py --shaping``): called with the batched engine's games
    (``zilch_env.engine.batched.BatchedGames``), rows and a seat per row, it returns each seat's chance of
    winning (a draw as half) under optimal play by both from where each row stands:

    * ``per="decision"``: at a decision (a roll to keep from), the value of the best choice there
      (:meth:`GameTable.action_values`' maximum: the optimal value of the position);
    * ``per="turn"``: the value of the current turn's start (:meth:`GameTable.start_value`), the same
      at every decision of a turn;
    * between turns (a turn due, not rolled yet), with either: the value of that turn's start;
    * once the game is over: the result (1, 0.5 or 0).

    The VecEnv pays the agent the change of this value over each of its moves (``per="decision"``)
    or turns (``per="turn"``): in expectation minus the move's (or turn's) regret against
    ``optimal-win``, zero for optimal play; the optimal policy is unchanged (potential-based shaping,
    Ng, Harada and Russell 1999), while a move's return carries only the luck of the next roll.

    The turns a call reads that are not solved yet are solved first, together, on ``threads``
    threads (default: 2 where the machine has them; :meth:`GameTable.prefetch`): early in a run most
    of the potential's time is such turn DPs, and the PPO process leaves the second core idle while
    the games step. The values do not depend on ``threads``.

    Every turn is solved with :meth:`GameTable.stable_cap`'s turn-total cap: its DP costs about 7%
    more than the default cap's, but a turn that goes on past the default cap does not solve its
    situation again at a higher one (40% of the turn DPs a farkle run solved were such repeats), and
    the values do not depend on which turns came first."""

    PER = ("decision", "turn")

    def __init__(self, ruleset: Ruleset | str, table: GameTable | None = None, per: str = "decision",
                 threads: int | None = None):
        if per not in self.PER:
            raise ValueError(f"per = {per!r}: allowed are {', '.join(map(repr, self.PER))}")
        if threads is None:
            threads = min(2, os.cpu_count() or 1)
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ValueError(f"threads = {threads!r}: a whole number, 1 or more (threads solving new turns)")
        #: Threads that solve the turns a call meets for the first time (:meth:`GameTable.prefetch`).
        self.threads = int(threads)
        from agents.solver.game import solve_game  # agents.solver.game names this class: imported when used
        from agents.solver.game_support import check_teachable

        check_teachable(table.ruleset if table is not None else
                        (ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)))
        self.table = table if table is not None else solve_game(ruleset)
        self.ruleset = self.table.ruleset
        self.per = per
        self._scoring = scoring_table(self.ruleset)
        self._keeps: dict[tuple, tuple] = {}

    def _decision_value(self, sit: tuple, roll: Sequence[int], turn_total: int, permanent: int,
                        dice_left: int) -> float:
        """The mover's optimal value after ``roll``: the best keep, then bank or roll on (what
        :meth:`GameTable._keep_values` gives, its best, without building its dictionary)."""
        tab, ip, u = self.table, self.table.ip, self.table.unit
        D = int(ip[L.R_DICE])
        S, NP = self.table.straight_units, int(ip[K.IP_NP])
        opts = self._keeps.get(roll)
        if opts is None:  # per keep: its points (units), whether a permanent straight, its dice
            info = self._scoring.info(list(roll))
            keeps = compile_rules(self.ruleset).keeps_of(info.dice)
            opts = tuple((k.points // u, 1 if (S and k.straight) else 0, k.n) for k in keeps)
            if bonus_of(self.ruleset, info):
                opts = ((0, 0, 0),)  # after a six-dice zilch bonus (in the turn total): the keep of nothing
            self._keeps[roll] = opts
        t = turn_total // u
        pi = permanent // (S * u) if S else 0
        tv = tab.turn_values(sit, max(t + int(ip[K.IP_MAXPTS]) + 1, self.table.stable_cap(sit)), True)
        B, C, thr = tv.B, tv.C, tv.thr
        forced = bool(ip[L.R_FORCED_HOT_DICE])
        best = -1.0
        for dt, st, n in opts:
            t2 = t + dt
            m = dice_left - n
            v = float(C[(t2 * NP + min(pi + st, NP - 1)) * (D + 1) + (m if m > 0 else D)])
            if can_bank(t2, m, thr, forced):
                v = max(v, float(B[t2]))
            best = max(best, v)
        return best

    def _roll_value(self, sit: tuple, turn_total: int, permanent: int, dice: int) -> float:
        """The mover's optimal value with ``dice`` dice to roll on at ``turn_total``."""
        ip, u = self.table.ip, self.table.unit
        D = int(ip[L.R_DICE])
        S, NP = self.table.straight_units, int(ip[K.IP_NP])
        t = turn_total // u
        pi = min(permanent // (S * u) if S else 0, NP - 1)
        k = (t * NP + pi) * (D + 1) + dice
        tmin = max(t + int(ip[K.IP_MAXPTS]) + 1, self.table.stable_cap(sit))
        v = float(self.table.turn_values(sit, tmin, True).C[k])
        if v < 0.0:  # rolling on where banking is provably better: not computed by the cut DP
            v = float(self.table.turn_values(sit, tmin, False).C[k])
        return v

    def __call__(self, games: Any, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        counts = games.players[np.asarray(rows, dtype=np.int64)]
        if (counts != 2).any():
            raise UnsupportedRulesError(f"a game of {int(counts[counts != 2][0])} players: the game solver plays "
                                        f"two-player games only")
        tab, ip, u = self.table, self.table.ip, self.table.unit
        rows = np.asarray(rows, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        out = np.empty(rows.size)
        done, cur = games.done[rows], games.current[rows]
        keep = games.phase[rows] == int(Phase.KEEP)
        mid = games.roll_due[rows] & (games.rolls_this_turn[rows] > 0)  # a roll due inside a turn
        dense = self.per == "decision"
        inrace = ~done & ~games.final_round[rows]  # a race situation: the table's state ids, vectorised
        race = inrace & ~((keep | mid) & dense)  # of these, the start of a turn: the table's value
        sid = np.zeros(rows.size, np.int64)
        if inrace.any():
            r, me = rows[inrace], cur[inrace]
            opp = 1 - me
            sc, onb, zs = games.scores[r], games.on_board[r], games.zilch_streak[r]
            k = np.arange(r.size)
            entry = ip[L.R_ENTRY_THRESHOLD] > 0
            on_a = onb[k, me] | (not entry)
            on_b = onb[k, opp] | (not entry)
            pc = ip[L.R_ZILCH_PENALTY_COUNT] > 0
            f = int(ip[K.IP_FLOOR])
            ia = np.where(on_a, 1 + f + sc[k, me] // u, 0)
            ib = np.where(on_b, 1 + f + sc[k, opp] // u, 0)
            za = np.where(on_a & pc, zs[k, me], 0)
            zb = np.where(on_b & pc, zs[k, opp], 0)
            seat = (me - games.first[r]) % 2 if ip[K.IP_NSEAT] == 2 else np.zeros_like(me)
            NS, NZ = int(ip[K.IP_NS]), int(ip[K.IP_NZ])
            sid[inrace] = (((seat * NS + ia) * NZ + za) * NS + ib) * NZ + zb
        if race.any():
            w = tab.W[sid[race]].astype(np.float64)
            out[race] = np.where(cur[race] == seats[race], w, 1.0 - w)
        if done.any():  # the result
            win = games.winners[rows[done]]
            s = seats[done]
            mine = win[np.arange(s.size), s]
            out[done] = np.where(mine, np.where(win.sum(axis=1) > 1, 0.5, 1.0), 0.0)
        rest = np.flatnonzero(~done & ~race)  # decisions, last turns and tie-break turns
        if rest.size:
            scores, onb, streak, first, tbr = (games.scores, games.on_board, games.zilch_streak, games.first,
                                               games.tiebreak_round)
            rolls, total, perm, left = games.rolls, games.turn_total, games.permanent, games.dice_left
            sits = []
            need = []  # the turns the rows read, solved up front (in parallel where a core is free)
            extra = int(ip[K.IP_MAXPTS]) + 1
            for i in rest.tolist():
                b = int(rows[i])
                if inrace[i]:
                    sit = ("race", int(sid[i]))
                else:
                    sit = tab.situation_of(int(cur[i]), int(first[b]), scores[b, :2].tolist(), onb[b, :2].tolist(),
                                           streak[b, :2].tolist(), games.final_queue(b), games.tiebreak_players(b),
                                           int(tbr[b]))  # (a batch of more seats: this game's two)
                sits.append(sit)
                if dense and (keep[i] or mid[i]):
                    need.append((sit, max(int(total[b]) // u + extra, self.table.stable_cap(sit))))
                elif sit[0] != "race":
                    need.append((sit, 0))
            tab.prefetch(need, True, self.threads)
            for i, sit in zip(rest.tolist(), sits):
                b, me = int(rows[i]), int(cur[i])
                if dense and keep[i]:
                    roll = tuple(f for f in rolls[b].tolist() if f)
                    v = self._decision_value(sit, roll, int(total[b]), int(perm[b]), int(left[b]))
                elif dense and mid[i]:
                    v = self._roll_value(sit, int(total[b]), int(perm[b]), int(left[b]))
                else:
                    v = tab.start_value(sit)
                out[i] = v if me == seats[i] else 1.0 - v
        return out


class RulesPotential:
    """The shaping potential of a batch of several rulesets (``train/ppo.py --ruleset any``): the
    :class:`WinPotential` of each game's rules where one is given (``potentials[i]`` for the games of
    rules entry ``i``: a two-player ruleset whose game table is stored), NaN elsewhere, where
    :class:`~zilch_env.envs.vec_env.BatchedZilchVecEnv` pays the game's result alone."""

    def __init__(self, potentials: Sequence[WinPotential | None]):
        self.potentials = list(potentials)
        if not any(p is not None for p in self.potentials):
            raise ValueError("RulesPotential: no ruleset has a potential (no stored two-player game table)")

    def __call__(self, games: Any, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        out = np.full(rows.size, np.nan)
        rid = games.rule_ids[rows]
        for e in np.unique(rid).tolist():
            p = self.potentials[e]
            if p is not None:
                on = rid == e
                out[on] = p(games, rows[on], seats[on])
        return out
