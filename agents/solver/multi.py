"""The exact game of two or three players under ``overcoming``, or of three players without it.

:mod:`agents.solver.game` solves the two-player game; it does not model ``overcoming`` (the previous
turn's result is a bar every bank must beat) nor a third player. :func:`solve_multi` solves those
games, on the same roll classes and the same turn DP (:func:`agents.solver.game_turn.turn_dp`):

The model
    Every player maximises their own chance of winning (a draw of ``k`` players counts ``1 / k`` to
    each), all with the same policy: the max-n equilibrium that value iteration from the game's end
    reaches (with two players, the minimax of the two-player solver). The state at a race turn's
    start is every score in playing order from the mover (and whether each player is on the board),
    and under ``overcoming`` the bar, the previous turn's recorded result. Once a score reaches the
    target the others play one more turn each: the next player knowing that the last then plays
    against the top score and their own result, the last against what is left. Leads and bars beyond
    the *final cap* (where the best chance of making them up in one turn falls below ``tail_eps``,
    default :data:`TAIL_EPS`) are valued as the cap; the result of the turn that reached the target,
    the next player's bar, is valued as the bar where that chance falls below :data:`BAR_EPS` when it
    is larger.

How it is solved (``agents.solver.multi_kernels``)
    The last turns first (a table per lead, bar and tie), then the race from the highest sum of the
    scores down: a bank raises the sum; a plain zilch keeps it and hands the turn on with bar 0, so
    the rotations of one tuple of scores form a cycle, solved by Gauss-Seidel on their bar-0 values
    (to :data:`TOL`); every other bar of a state is its bar-0 turn with the banks at or below the bar
    forbidden, solved by resuming that turn's DP below the bar.

Rules supported: ``end = "others_one_turn"`` and ``tie = "draw"`` (the presets zilch, zonk and zonk20k,
and rulesets like them), with ``overcoming`` and ``six_dice_zilch_bonus``; no zilch penalty,
pyramiding, challenge or piggyback. Two players only under ``overcoming`` (without it
:mod:`agents.solver.game` solves them), three with or without it. The work grows as the
target's fourth power at three players under overcoming (cube without it): targets up to about 4,000
and 5,000 (:data:`MAX_ROWS`, :func:`solve_rows`). Anything else raises
:class:`zilch_env.UnsupportedRulesError` naming the rule.

Tables are cached like the two-player solver's (``$ZILCH_SOLVER_CACHE``, else ``~/.cache/zilch-rl``),
as ``multi-N-NAME-KEY.npz``; ``zilch solve --players 3`` builds one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from zilch_env import GameState, Ruleset, UnsupportedRulesError, load_ruleset
from zilch_env.engine import layout as L
from zilch_env.engine.game import Phase
from zilch_env.rules.load import ruleset_from_dict, ruleset_to_toml

from agents.solver import game_kernels as K
from agents.solver import multi_kernels as M
from agents.solver.game_table import (TurnQueries, TurnValues, default_cache_mb, _params, cache_dir, lead_cap,
                                      save_npz_whole)
from agents.solver.roll_classes import game_unit, roll_tables
from agents.solver.threads import numba_threads

__all__ = ["MultiTable", "solve_multi", "load_multi_table", "check_multi_supported", "multi_table_path",
           "solve_rows", "TAIL_EPS", "BAR_EPS", "MAX_ROWS"]

#: The final cap: the lead (and bar) from which the best chance of one turn ending above it falls below this.
TAIL_EPS = 1e-5
#: The result of the turn that reached the target is the next player's bar up to where the best chance
#: of one turn ending above it falls below this (larger results are valued as that bar).
BAR_EPS = 1e-3
#: The most turn-DP rows a solve may take (about a quarter of an hour on two cores for zilch-like rules),
#: as :func:`solve_rows` estimates them.
MAX_ROWS = 2.5e9
#: Bumped whenever a change of the solver changes its tables (old cache files are then rebuilt).
MULTI_VERSION = 2
#: Gauss-Seidel tolerance on the zilch cycles' values.
TOL = 1e-10


def check_multi_supported(rs: Ruleset, players: int) -> None:
    """Raise :class:`zilch_env.UnsupportedRulesError` naming the first rule :func:`solve_multi` does not model."""
    if isinstance(players, bool) or players not in (2, 3):
        raise UnsupportedRulesError(f"players = {players!r}: the multi-player solver solves games of 2 or 3 players "
                                    "(agents.solver.final_round values the final round, and the race near the "
                                    "end, of any number)")
    if players == 2 and not rs.variants.overcoming:
        raise UnsupportedRulesError("two players without overcoming: agents.solver.game solves that game "
                                    "(the multi-player solver is for overcoming, or three players)")
    v = rs.variants
    for name in ("pyramiding", "challenge", "piggyback"):
        if getattr(v, name):
            raise UnsupportedRulesError(f"variants.{name} = true: the multi-player solver does not support "
                                        f"the {name} variant (it supports overcoming and six_dice_zilch_bonus)")
    if v.zilch_penalty.count:
        raise UnsupportedRulesError("variants.zilch_penalty: the multi-player solver does not model zilch "
                                    "streaks (count 0 turns it off)")
    if rs.end != "others_one_turn":
        raise UnsupportedRulesError(f"end = {rs.end!r}: the multi-player solver plays end = 'others_one_turn'")
    if rs.tie != "draw":
        raise UnsupportedRulesError(f"tie = {rs.tie!r}: the multi-player solver plays tie = 'draw'")
    if rs.score_floor < 0:
        raise UnsupportedRulesError(f"score_floor = {rs.score_floor}: the multi-player solver keeps scores at "
                                    "0 or more")
    rows = solve_rows(rs, players)
    if rows > MAX_ROWS:
        raise UnsupportedRulesError(f"target = {rs.target}: about {rows:.1e} turn-DP rows to solve a game of "
                                    f"{players} players (at most {MAX_ROWS:.1e}, a quarter of an hour on two cores: "
                                    f"targets up to about 4,000 at three players under overcoming, 5,000 without; "
                                    f"lower the target)")


def solve_rows(rs: Ruleset, players: int) -> float:
    """The work of a solve, in turn-DP rows: per tuple of scores about ten Gauss-Seidel passes over the
    turn totals below the target, and under overcoming every bar's resumed rows (half the bars squared)."""
    ip = _params(rs, roll_tables(rs, game_unit(rs)), 0, players)  # the race's grid (no lead tracked)
    tu = int(ip[K.IP_TU])
    nb = tu + 1 if ip[L.R_OVERCOMING] else 1
    return float((tu + 1) ** players) * (10 * tu + nb * nb / 2)


def multi_key(rs: Ruleset, players: int, tail_eps: float = TAIL_EPS) -> str:
    """A hash of the rules (not the name), the players, the final cap's tail and the solver version
    (with its tolerances, :data:`BAR_EPS` and :data:`TOL`)."""
    d = rs.to_dict()
    d.pop("name", None)
    text = (json.dumps(d, sort_keys=True)
            + f"|players-{players}|multi-solver-{MULTI_VERSION}|eps-{tail_eps!r}|bar-{BAR_EPS!r}|tol-{TOL!r}")
    return hashlib.sha256(text.encode()).hexdigest()


def multi_table_path(ruleset: Ruleset | str, players: int, directory: str | os.PathLike | None = None,
                     tail_eps: float = TAIL_EPS) -> Path:
    """The cache file of a ruleset's table for ``players`` players."""
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in rs.name)
    return cache_dir(directory) / f"multi-{players}-{safe}-{multi_key(rs, players, tail_eps)[:16]}.npz"


def load_multi_table(ruleset: Ruleset | str, players: int, directory: str | os.PathLike | None = None,
                     tail_eps: float = TAIL_EPS) -> "MultiTable | None":
    """The cached table of ``ruleset`` for ``players`` players if there is a valid one, else None."""
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    path = multi_table_path(rs, players, directory, tail_eps)
    if path.exists():
        try:
            return MultiTable.load(path)
        except (ValueError, KeyError, OSError):
            return None
    return None


# ============================================================================================
# Solving


def _final_cap(rs: Ruleset, rt: Any, ip: np.ndarray, tail_eps: float) -> int:
    """The lead from which one turn's best chance of ending above it (on the board, a tie as half,
    no bar) is below ``tail_eps``; at least the target."""
    return lead_cap(rs, rt, ip, int(ip[K.IP_DCAP]), tail_eps, step=32)


def _params_of(rs: Ruleset, players: int, tail_eps: float) -> tuple[int, Any, np.ndarray, np.ndarray]:
    """(unit, roll tables, ip, mp) of a solve."""
    unit = game_unit(rs)
    rt = roll_tables(rs, unit)
    ip = _params(rs, rt, 4000, players)
    df = _final_cap(rs, rt, ip, tail_eps)
    over = bool(ip[L.R_OVERCOMING])
    rb = min(_final_cap(rs, rt, ip, max(BAR_EPS, tail_eps)), df) if over else 0
    # the permanent-straight levels cover every turn total a DP reaches: the next player's last turn
    # runs up to two final caps (its own lead and the last player's); IP_DCAP only sizes them here
    ip = _params(rs, rt, 2 * df + 1, players)
    mp = np.zeros(M.MP_SIZE, np.int64)
    mp[M.MP_NB] = int(ip[K.IP_TU]) + 1 if over else 1
    mp[M.MP_DF] = df
    mp[M.MP_RB] = rb
    return unit, rt, ip, mp


def _schedule(ip: np.ndarray, mp: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The race's tuples of score indices grouped by level (sum of the scores), highest first: per
    level ``(rots, ks)``, ``rots[i, j]`` the ``j``-th rotation of tuple ``i`` (the next mover first),
    ``ks[i]`` how many distinct rotations it has."""
    n, tu, entry = int(ip[L.R_PLAYERS]), int(ip[K.IP_TU]), int(K.entry_units(ip))
    # off the board (index 0) only under an entry rule; on it, a score of at least the entry
    valid = ([0] if entry else []) + [1 + s for s in range(entry, tu)]
    grids = np.meshgrid(*[np.array(valid)] * n, indexing="ij")
    tup = np.stack([g.ravel() for g in grids], axis=1)
    rots = np.stack([np.roll(tup, -j, axis=1) for j in range(n)], axis=1)  # (T, n, n)
    # the canonical tuple of a class: its least rotation (lexicographic)
    weights = (tu + 2) ** np.arange(n - 1, -1, -1)
    codes = (rots * weights).sum(axis=2)
    keep = codes[:, 0] == codes.min(axis=1)
    rots, codes = rots[keep], codes[keep]
    ks = np.array([len(set(c)) for c in codes.tolist()], np.int64)
    scores = np.where(rots[:, 0] > 0, rots[:, 0] - 1, 0).sum(axis=1)
    out = []
    for level in sorted(set(scores.tolist()), reverse=True):
        sel = np.flatnonzero(scores == level)
        r = np.zeros((sel.size, n, 3), np.int64)
        r[:, :, :n] = rots[sel]
        out.append((r, ks[sel]))
    return out


def _batches(ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The batches of one level's tuples solved side by side: ``(order, bptr)``, batch ``b`` the tuples
    ``order[bptr[b]:bptr[b + 1]]``, at most :data:`agents.solver.turn_lanes.LANES` of one rotation count."""
    from agents.solver.turn_lanes import LANES

    order = np.argsort(ks, kind="stable").astype(np.int64)
    bptr = [0]
    for i in range(1, order.size + 1):
        if i == order.size or ks[order[i]] != ks[order[bptr[-1]]] or i - bptr[-1] == LANES:
            bptr.append(i)
    return order, np.array(bptr, np.int64)


def solve_multi(ruleset: Ruleset | str, players: int = 3, *, cache: bool = True,
                directory: str | os.PathLike | None = None, force: bool = False, progress: bool = True,
                threads: int | None = None, tail_eps: float = TAIL_EPS, lanes: bool = True) -> "MultiTable":
    """The solved game of ``ruleset`` for ``players`` players (see the module docstring).

    With ``cache`` the table is read from (or, once solved, written to) :func:`multi_table_path`;
    ``force`` solves again anyway. ``threads`` is the number of numba threads (default: numba's);
    ``tail_eps`` the final cap's tail (a larger one solves the last turns faster and values the
    largest leads less exactly). ``lanes`` solves the turns of eight score tuples side by side
    (:func:`agents.solver.multi_kernels.solve_level`; the same table, bit for bit, in fewer CPU-seconds)."""
    import numba

    from agents.progress import Progress

    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    check_multi_supported(rs, players)
    if not 0 < tail_eps < 0.5:
        raise ValueError(f"tail_eps = {tail_eps!r}: a chance above 0 and below 0.5")
    if cache and not force:
        table = load_multi_table(rs, players, directory, tail_eps)
        if table is not None:
            return table
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    with numba_threads(threads):
        unit, rt, ip, mp = _params_of(rs, players, tail_eps)
        rtt = rt.as_tuple(int(ip[K.IP_NP]), int(ip[L.R_DICE]))
        df, nb, ns, rb = int(mp[M.MP_DF]), int(mp[M.MP_NB]), int(ip[K.IP_NS]), int(mp[M.MP_RB])
        LV = np.zeros((2, 2, df + 1, df + 1))
        LW = np.zeros((2, 2, df + 1, df + 1))
        M.last_tables(ip, mp, rtt, rt.p_allonly, LV, LW)
        if players == 3:
            F3a = np.zeros((2, 2, df + 1, df + 1, rb + 1))
            F3b = np.zeros((2, 2, df + 1, df + 1, rb + 1))
            M.second_tables(ip, mp, rtt, rt.p_allonly, LV, LW, F3a, F3b)
        else:
            F3a = F3b = np.zeros((1, 1, 1, 1, 1))
        t_final = time.perf_counter() - t0
        total = ns ** players * nb
        W0 = np.full(total, np.nan)
        W1 = np.full(total if players == 3 else 0, np.nan)
        levels = _schedule(ip, mp)
        workers = numba.get_num_threads()
        dps = 0
        with Progress(progress) as bar:
            task = bar.add(f"solve {rs.name} ({players} players)", total=sum(len(k) for _, k in levels),
                           info="score tuples")
            for rots, ks in levels:
                order, bptr = _batches(ks) if lanes else (np.zeros(0, np.int64), np.zeros(0, np.int64))
                nw = min(workers, len(ks) if not lanes else len(bptr) - 1)
                dps += int(M.solve_level(rots, ks, ip, mp, rtt, rt.p_allonly, W0, W1, LV, LW, F3a, F3b, TOL,
                                         nw, order, bptr))
                bar.advance(task, len(ks))
        meta = {
            "ruleset": rs.name, "players": players, "unit": unit, "final_cap_points": df * unit,
            "result_bar_cap_points": rb * unit,
            "bars": nb, "tail_eps": tail_eps, "seconds": round(time.perf_counter() - t0, 2),
            "final_seconds": round(t_final, 2), "cpu_seconds": round(time.process_time() - cpu0, 1),
            "turn_dps": dps, "states": int(sum(k.sum() for _, k in levels)) * nb,
            "threads": numba.get_num_threads(), "solver_version": MULTI_VERSION, "lanes": lanes,
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
    table = MultiTable(ruleset=rs, players=players, unit=unit, ip=ip, mp=mp, W0=W0.astype(np.float32),
                       W1=W1.astype(np.float32), LV=LV, LW=LW, F3a=F3a.astype(np.float32),
                       F3b=F3b.astype(np.float32), meta=meta, tail_eps=tail_eps)
    if cache:
        table.path = table.save(multi_table_path(rs, players, directory, tail_eps))
    return table


# ============================================================================================
# The table


@dataclass
class MultiTable(TurnQueries):
    """The solved game of one ruleset for ``players`` players (see the module docstring).

    ``W0``/``W1`` are the race values (float32, indexed by ``agents.solver.multi_kernels.encode``), ``LV``,
    ``LW``, ``F3a``, ``F3b`` the last turns' tables; ``ip``/``mp`` the kernels' parameters. A
    *situation* (:meth:`situation_of`) is ``("race", ia, ib, ic, bar)``, ``("second", dB, dC, r, on_b,
    on_c)`` (the first of two last turns) or ``("last", d, x, k, on)`` (the last turn), in units."""

    ruleset: Ruleset
    players: int
    unit: int
    ip: np.ndarray
    mp: np.ndarray
    W0: np.ndarray
    W1: np.ndarray
    LV: np.ndarray
    LW: np.ndarray
    F3a: np.ndarray
    F3b: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)
    #: The final cap's tail the table was solved with (:func:`solve_multi`).
    tail_eps: float = TAIL_EPS
    path: Path | None = None
    #: Megabytes of solved turns kept for play (as ``GameTable.cache_mb``).
    cache_mb: float = field(default_factory=lambda: default_cache_mb())

    def __post_init__(self) -> None:
        self._rt = roll_tables(self.ruleset, self.unit)
        self._rtt = self._rt.as_tuple(int(self.ip[K.IP_NP]), int(self.ip[L.R_DICE]))
        self._key = multi_key(self.ruleset, self.players, self.tail_eps)
        self._checked_rules = self.ruleset
        self._init_queries()

    # ------------------------------------------------------------------ values
    def stable_cap(self, situation: tuple) -> int:
        """0: every situation's default cap is where its bank values stop changing (every lead and
        bar at the final cap), so a higher cap changes no value."""
        return 0

    def start_values(self, scores: Sequence[int], on_board: Sequence[bool] | None = None, bar: int = 0) -> np.ndarray:
        """Each player's win chance at the start of a race turn, in playing order from the mover:
        ``scores`` in points (below the target), ``bar`` the previous turn's result in points."""
        sit = self._race(list(scores), list(on_board) if on_board is not None else [s > 0 for s in scores], bar)
        _, ia, ib, ic, b = sit
        nb = int(self.mp[M.MP_NB])
        sid = int(M.encode(ia, ib, ic, min(b, nb - 1), self.ip, self.mp))
        if self.players == 2:
            return np.array([float(self.W0[sid]), 1.0 - float(self.W0[sid])])
        v0, v1 = float(self.W0[sid]), float(self.W1[sid])
        return np.array([v0, v1, 1.0 - v0 - v1])

    @property
    def first_player_win(self) -> float:
        """The first player's win chance at the start of the game (everyone off the board, bar 0)."""
        entry = self.ip[L.R_ENTRY_THRESHOLD] > 0
        return float(self.start_values([0] * self.players, [not entry] * self.players)[0])

    # ------------------------------------------------------------------ situations
    def _race(self, scores: list[int], on_board: list[bool], bar: int) -> tuple:
        u, tu = self.unit, int(self.ip[K.IP_TU])
        idx = []
        entry = int(self.ip[L.R_ENTRY_THRESHOLD])
        for s, on in zip(scores, on_board):
            if s % u or not 0 <= s // u < tu:
                raise ValueError(f"score {s}: race scores are multiples of {u} from 0 to {(tu - 1) * u}")
            if entry and ((on and s < entry) or (not on and s)):
                raise ValueError(f"score {s} {'on' if on else 'off'} the board: off the board a score is 0, on it at "
                                 f"least the entry threshold, {entry}")
            idx.append(1 + s // u if (on or entry == 0) else 0)
        idx += [0] * (3 - len(idx))
        return ("race", idx[0], idx[1], idx[2], max(int(bar), 0) // u if self.ip[L.R_OVERCOMING] else 0)

    def situation(self, state: GameState) -> tuple:
        """The table's view of whose turn it is in ``state`` (see the class docstring)."""
        if state.num_players != self.players:
            raise UnsupportedRulesError(f"a game of {state.num_players} players: this table solves "
                                        f"{self.players}-player games")
        if state.done:
            raise ValueError("the game is over: there is no move to choose")
        if state.phase != Phase.KEEP:
            raise UnsupportedRulesError(f"phase {state.phase.name}: only the variants the multi-player solver "
                                        f"does not support have turn-start decisions")
        if state.ruleset is not self._checked_rules:
            if multi_key(state.ruleset, self.players, self.tail_eps) != self._key:
                raise ValueError(f"this table solves {self.ruleset.name!r}, but the game is played under other "
                                 f"rules ({state.ruleset.name!r})")
            self._checked_rules = state.ruleset
        return self.situation_of(state.current, state.scores, state.on_board, state.final_queue,
                                 state.last_result)

    def situation_of(self, me: int, scores: Sequence[int], on_board: Sequence[bool],
                     final_queue: Sequence[int] | None, last_result: int = 0) -> tuple:
        """:meth:`situation` from the fields of a game: the mover, per seat the scores and board
        status, the final queue (None before the target is reached) and the previous turn's result."""
        n, u = self.players, self.unit
        order = [(me + k) % n for k in range(n)]
        sc = [int(scores[q]) for q in order]
        on = [bool(on_board[q]) or self.ip[L.R_ENTRY_THRESHOLD] == 0 for q in order]
        bar = int(last_result) if self.ip[L.R_OVERCOMING] else 0
        if final_queue is None:
            return self._race(sc, on, bar)
        if not final_queue or final_queue[0] != me:
            raise ValueError(f"final queue {list(final_queue)}: the mover, seat {me}, plays first in it")
        if len(final_queue) == 2:  # three players: b, then c, after a reached the target
            A = sc[2]
            return ("second", (A - sc[0]) // u, (A - sc[1]) // u, bar // u, bool(on[0]), int(on[1]))
        top = max(sc[1:])
        k = sum(1 for s in sc[1:] if s == top) - 1
        return ("last", (top - sc[0]) // u, bar // u, k, bool(on[0]))

    def _solve_turn(self, situation: tuple, tmin: int, cut: bool) -> TurnValues:
        """The turn DP of a situation (not cached; safe to call from several threads at once)."""
        ip, mp, rtt, pa = self.ip, self.mp, self._rtt, self._rt.p_allonly
        kind = situation[0]
        if kind == "race":
            _, ia, ib, ic, bar = situation
            tcap, thr, B, Q, C, _, _ = M.race_situation(ia, ib, ic, bar, ip, mp, rtt, pa, self.W0, self.W1,
                                                        self.LV, self.LW, self.F3a, self.F3b, tmin, cut)
        elif kind == "second":
            _, dB, dC, r, on_b, on_c = situation
            tcap, thr, B, Q, C, _, _ = M.second_situation(dB, dC, r, on_b, on_c, ip, mp, rtt, pa, self.LV,
                                                          self.LW, tmin, cut)
        elif kind == "last":
            _, d, x, k, on = situation
            tcap, thr, B, Q, C, _, _ = M.last_situation(d, x, 1.0 / (k + 2), on, ip, mp, rtt, pa, tmin, cut)
        else:
            raise ValueError(f"situation {situation!r}: not one of this table's ('race', 'second', 'last')")
        with np.errstate(invalid="ignore", over="ignore"):
            return TurnValues(int(tcap), int(thr), B[:tcap + 1].astype(np.float32),
                              C[:(tcap + 1) * int(ip[K.IP_NP]) * (int(ip[L.R_DICE]) + 1)].astype(np.float32))

    def start_value(self, situation: tuple) -> float:
        """The mover's win chance at the start of the turn of ``situation``."""
        tv = self.turn_values(situation, 0, True)
        return float(tv.C[int(self.ip[L.R_DICE])])

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike) -> Path:
        """Write the table (atomically) as a compressed ``.npz`` with its ruleset and key inside."""
        return save_npz_whole(
            path, W0=self.W0, W1=self.W1, LV=self.LV, LW=self.LW, F3a=self.F3a, F3b=self.F3b, ip=self.ip, mp=self.mp,
            ip_names=np.array(K.ip_names()),
            players=np.int64(self.players), unit=np.int64(self.unit), tail_eps=np.float64(self.tail_eps),
            ruleset=np.array(ruleset_to_toml(self.ruleset)),
            key=np.array(self._key), version=np.int64(MULTI_VERSION), meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: str | os.PathLike) -> "MultiTable":
        """Read a table written by :meth:`save`."""
        import tomllib

        with np.load(path, allow_pickle=False) as z:
            rs = ruleset_from_dict(tomllib.loads(str(z["ruleset"])))
            players, unit, mp = int(z["players"]), int(z["unit"]), z["mp"].astype(np.int64)
            # the vector is the rules' and the grid's, matched by name: one of other rules is stale
            ip = K.stored_ip(z["ip"].astype(np.int64), z["ip_names"] if "ip_names" in z.files else None,
                             lambda dcap: _params(rs, roll_tables(rs, unit), dcap, players), str(path))
            if mp.size != M.MP_SIZE:
                raise ValueError(f"{path}: the table's parameters are not this solver's for its rules")
            t = cls(ruleset=rs, players=players, unit=unit, ip=ip, mp=mp, W0=z["W0"], W1=z["W1"], LV=z["LV"], LW=z["LW"], F3a=z["F3a"],
                    F3b=z["F3b"], meta=json.loads(str(z["meta"])), tail_eps=float(z["tail_eps"]), path=Path(path))
            if str(z["key"]) != t._key or int(z["version"]) != MULTI_VERSION:
                raise ValueError(f"{path}: the table was built by another solver version or for other rules")
        return t
