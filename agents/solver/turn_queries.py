"""A solved game's turn-by-turn queries: the values of every position of one turn in one game situation
(:class:`TurnValues`), and :class:`TurnQueries`, what :class:`~agents.solver.game_table.GameTable` and
:class:`~agents.solver.multi.MultiTable` answer about a turn: the value of each action, the best one, the
value of a roll."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NamedTuple, Sequence
import numpy as np
from zilch_env import GameState
from zilch_env.engine import layout as L
from zilch_env.engine.game import split_keep_action
from zilch_env.rules.primitives import can_bank
from agents.solver import game_kernels as K


#: The thread pools of :meth:`TurnQueries.prefetch`, one per size.
_TURN_POOLS: dict[int, Any] = {}


def _turn_pool(threads: int):
    """A thread pool for :meth:`TurnQueries.prefetch`, one per size, made on first use."""
    pool = _TURN_POOLS.get(threads)
    if pool is None:
        from concurrent.futures import ThreadPoolExecutor

        pool = _TURN_POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="zilch-turn-dp")
    return pool


class TurnValues(NamedTuple):
    """Every position of one turn in one game situation: ``B[t]`` the win chance of banking turn
    total ``t`` (units), ``C[(t * NP + pi) * (D + 1) + n]`` of rolling ``n`` dice there with ``pi``
    permanent straights (-1 where banking is provably better and rolling was not computed); float32.

    A named tuple of numbers and arrays, which Python's garbage collector stops tracking: a training
    run caches tens of thousands of turns, and as objects the collector walked they cost about 10%
    of the run's time in full collections."""

    tcap: int
    thr: int
    B: np.ndarray
    C: np.ndarray


class TurnQueries:
    """The queries every solved game answers from its turn DPs, whatever its state: the values of a
    situation's turn (cached, least recently used dropped first beyond ``cache_mb``), of each legal
    action of a game's state, and the best action. A table provides ``ruleset``, ``unit``, ``ip``
    (the turn kernels' parameters), ``cache_mb``, ``situation(state)`` and ``_solve_turn(situation,
    tmin, cut)``, and calls :meth:`_init_queries` once made."""

    def _init_queries(self) -> None:
        self._cache: OrderedDict = OrderedDict()
        self._cache_bytes = 0
        self._sit_key: tuple | None = None
        self._sit: tuple | None = None
        #: A permanent straight in units (0: not permanent), read once: the queries below run per decision.
        self.straight_units = int(K.straight_units(self.ip))

    def turn_values(self, situation: tuple, tmin: int = 0, cut: bool = True) -> TurnValues:
        """The turn DP of a situation, with a turn-total cap of at least ``tmin`` units (cached)."""
        key = (situation, cut)
        hit = self._cache.get(key)
        if hit is not None and hit.tcap >= tmin:
            self._cache.move_to_end(key)
            return hit
        return self._store(key, self._solve_turn(situation, tmin, cut))

    def prefetch(self, requests: Sequence[tuple[tuple, int]], cut: bool = True, threads: int = 2) -> int:
        """Solve the turns of ``requests`` (``(situation, tmin)`` pairs, as :meth:`turn_values`
        takes them) that the cache does not hold yet, on up to ``threads`` threads (the turn DP
        releases the GIL), and cache them in the order asked; returns how many were solved. The
        values are those :meth:`turn_values` would compute one by one (the DP is a pure function of
        its situation and cap), so a caller that prefetches what it is about to read gets the same
        numbers, sooner on a machine with a free core."""
        need: dict[tuple, int] = {}
        for sit, tmin in requests:
            hit = self._cache.get((sit, cut))
            if hit is not None and hit.tcap >= tmin:
                continue
            if need.get(sit, -1) < tmin:
                need[sit] = tmin
        if not need:
            return 0
        jobs = list(need.items())
        if threads < 2 or len(jobs) < 2:
            solved = [self._solve_turn(sit, tmin, cut) for sit, tmin in jobs]
        else:
            solved = list(_turn_pool(threads).map(lambda job: self._solve_turn(job[0], job[1], cut), jobs))
        for (sit, _), tv in zip(jobs, solved):
            self._store((sit, cut), tv)
        return len(jobs)

    def _store(self, key: tuple, tv: TurnValues) -> TurnValues:
        """Cache a solved turn (least recently used dropped first beyond :attr:`cache_mb`)."""
        old = self._cache.pop(key, None)
        if old is not None:
            self._cache_bytes -= old.B.nbytes + old.C.nbytes
        self._cache[key] = tv
        self._cache_bytes += tv.B.nbytes + tv.C.nbytes
        limit = self.cache_mb * 1e6
        while self._cache_bytes > limit and len(self._cache) > 1:
            _, dropped = self._cache.popitem(last=False)
            self._cache_bytes -= dropped.B.nbytes + dropped.C.nbytes
        return tv

    def action_values(self, state: GameState, cut: bool = False, tmin: int = 0,
                      situation: tuple | None = None) -> dict[int, float]:
        """The win chance of each legal action of the player to move, if both play optimally after
        it (to about 3e-8: see :meth:`turn_values`). With ``cut`` the value of rolling on where
        banking is provably better is omitted (-1). ``tmin`` is a least turn-total cap (units) for
        the turn DP: :meth:`stable_cap` makes the values independent of which turns were solved
        before (see there). ``situation`` is ``situation(state)`` if the caller has it already (it
        is the same at every decision of a turn)."""
        sit = self.situation(state) if situation is None else situation
        keeps = {k.mask: k for k in state.keeps()}
        vals = self._keep_values(sit, keeps.values(), state.turn_total, state.permanent, state.dice_left, cut,
                                 tmin)
        out = {}
        for a in state.legal_actions():
            mask, bank = split_keep_action(a)
            out[a] = vals[mask][1 if bank else 0]
        return out

    def roll_value(self, situation: tuple, turn_total: int, dice: int, permanent: int = 0, tmin: int = 0) -> float:
        """The mover's win chance in the turn of ``situation`` when about to roll ``dice`` dice with
        ``turn_total`` points (and ``permanent`` points of permanent straights), under optimal play by
        both from then on: ``(0, all the dice)`` is the turn's start; under ``piggyback`` an offer
        taken is rolled on from its total and dice. ``tmin`` as in :meth:`action_values`."""
        u, ip = self.unit, self.ip
        D = int(ip[L.R_DICE])
        if not 1 <= dice <= D:
            raise ValueError(f"{dice} dice: under these rules a roll has 1 to {D} dice")
        for name, v in (("turn_total", turn_total), ("permanent", permanent)):
            if v < 0 or v % u:
                raise ValueError(f"{name} = {v}: a multiple of {u} points, 0 or more (the table's unit)")
        S, NP = self.straight_units, int(ip[K.IP_NP])
        t = turn_total // u
        pi = min(permanent // (S * u), NP - 1) if S else 0
        tv = self.turn_values(situation, max(t + int(ip[K.IP_MAXPTS]) + 1, tmin), False)
        return float(tv.C[(t * NP + pi) * (D + 1) + dice])

    def _keep_values(self, situation: tuple, keeps, turn_total: int, permanent: int, dice_left: int,
                     cut: bool, tmin: int = 0) -> dict[int, tuple[float, float | None]]:
        """``{mask: (value of keeping and rolling on, value of keeping and banking or None)}``."""
        u, ip = self.unit, self.ip
        D = int(ip[L.R_DICE])
        S, NP = self.straight_units, int(ip[K.IP_NP])
        t = turn_total // u
        pi = permanent // (S * u) if S else 0
        tv = self.turn_values(situation, max(t + int(ip[K.IP_MAXPTS]) + 1, tmin), cut)
        forced = bool(ip[L.R_FORCED_HOT_DICE])
        out = {}
        for k in keeps:
            t2 = t + k.points // u
            pi2 = min(pi + (1 if (S and k.straight) else 0), NP - 1)
            m = dice_left - k.n
            roll = float(tv.C[(t2 * NP + pi2) * (D + 1) + (m if m > 0 else D)])
            bank = float(tv.B[t2]) if can_bank(t2, m, tv.thr, forced) else None
            out[k.mask] = (roll, bank)
        return out

    def best_action(self, state: GameState, legal: Sequence[int] | None = None) -> int:
        """The win-maximising action (ties: bank before rolling on, then the lowest action)."""
        key = (id(state), len(state.turns), state.tiebreak_round, state.current, state.challenged)
        if key != self._sit_key:
            self._sit = self.situation(state)
            self._sit_key = key
        ip, u = self.ip, self.unit
        D = int(ip[L.R_DICE])
        S, NP = self.straight_units, int(ip[K.IP_NP])
        t = state.turn_total // u
        pi = state.permanent // (S * u) if S else 0
        tv = self.turn_values(self._sit, t + int(ip[K.IP_MAXPTS]) + 1, True)
        B, C, thr = tv.B, tv.C, tv.thr
        forced = bool(ip[L.R_FORCED_HOT_DICE])
        left = state.dice_left
        best, bv = -1, -2.0
        for k in state.keeps():
            t2 = t + k.points // u
            m = left - k.n
            if can_bank(t2, m, thr, forced):
                v = float(B[t2])
                if v > bv + 1e-12 or (v > bv - 1e-12 and best & 1 == 0):
                    best, bv = k.mask * 2 + 1, v
            pi2 = min(pi + (1 if (S and k.straight) else 0), NP - 1)
            v = float(C[(t2 * NP + pi2) * (D + 1) + (m if m > 0 else D)])
            if v > bv + 1e-12:
                best, bv = k.mask * 2, v
        return best

    def value(self, state: GameState) -> float:
        """The win chance of the player to move in ``state`` (under optimal play by both)."""
        return max(self.action_values(state, cut=True).values())
