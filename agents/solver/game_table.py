"""The solved two-player game as data: the roll classes and points grid a solve works on, the rules
it supports, where tables are stored, and :class:`GameTable` (the values of every race position, its
turn-by-turn queries and its file). :mod:`agents.solver.game` solves games into such tables; the
model and the method are described there."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from zilch_env import GameState, Ruleset, UnsupportedRulesError, load_ruleset
from zilch_env.engine.actions import CHALLENGE_BASE, NO_CHALLENGE
from zilch_env.engine.game import Phase
from zilch_env.engine import layout as L
from zilch_env.rules.primitives import MAX_TIEBREAK_ROUNDS
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.load import ruleset_from_dict, ruleset_to_toml
from zilch_env.rules.primitives import bank_bar
from zilch_env.rules.scoring import BONUS_KEEPS, bonus_of, scoring_table

from agents.files import write_whole
from agents.solver import game_kernels as K
from agents.solver import situation_kernels as SK
from agents.solver.game_support import _params, check_supported
from agents.solver.turn_queries import TurnQueries, TurnValues
from agents.solver.roll_classes import RollTables, game_unit, roll_tables

__all__ = ["GameTable", "RollTables", "TurnQueries", "TurnValues", "cache_dir", "check_supported", "game_unit",
           "roll_tables", "ruleset_key", "table_path"]


# ============================================================================================
# The solve's settings

#: A last-turn chance below this is treated as the largest lead's: leads beyond it are not tracked.
TAIL_EPS = 1e-9
#: Largest lead (units) ever tracked.
DCAP_LIMIT = 4000
#: Bumped whenever a change of the solver changes its tables (old cache files are then rebuilt).
SOLVER_VERSION = 1
#: A penalty solve's sweep after one that changed no value by more than this is expected to be the
#: last (the policy iteration converges quadratically): it skips recording the turns' rows, which
#: only the next policy evaluation would read. If it does not converge after all, the solve goes on
#: with rows again.
ROWLESS_BELOW = 1e-4






def default_cache_mb() -> float:
    """``$ZILCH_WIN_CACHE_MB`` (a positive number of megabytes) or 512."""
    raw = os.environ.get("ZILCH_WIN_CACHE_MB", "").strip()
    if not raw:
        return 512.0
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if not mb > 0:
        raise ValueError(f"ZILCH_WIN_CACHE_MB={raw!r}: a positive number of megabytes (the solved turns "
                         "optimal-win keeps in memory; default 512)")
    return mb



def _choose_dcap(rs: Ruleset, rt: RollTables) -> int:
    """The largest lead worth tracking: where the best chance of beating it in one turn (on the
    board, a tie as half) falls below :data:`TAIL_EPS`; at least the target."""
    return lead_cap(rs, rt, _params(rs, rt, DCAP_LIMIT), DCAP_LIMIT, TAIL_EPS, step=64)


def lead_cap(rs: Ruleset, rt: RollTables, ip: np.ndarray, limit: int, tail_eps: float, step: int) -> int:
    """The first lead (units, at most ``limit``) that one turn's best chance of ending above (on the
    board, a tie as half, no bar) is below ``tail_eps``, at least the target; the chances are
    computed ``step`` leads at a time, and only as far as needed."""
    rtt = rt.as_tuple(int(ip[K.IP_NP]), int(ip[L.R_DICE]))
    out = np.zeros(limit + 1)
    d0 = 0
    while d0 <= limit:
        d1 = min(d0 + step - 1, limit)
        K.bar_table(d0, d1, 0.5, True, False, ip, rtt, rt.p_allonly, out)
        below = np.nonzero(out[d0:d1 + 1] < tail_eps)[0]
        if below.size:
            return max(d0 + int(below[0]), int(ip[K.IP_TU]))
        d0 = d1 + 1
    raise UnsupportedRulesError(f"{rs.name}: the chance of a huge single turn decays too slowly (still above "
                                f"{tail_eps} for a lead of {limit * rt.unit} points)")


# ============================================================================================
# The table


@lru_cache(maxsize=1024)
def ruleset_key(rs: Ruleset) -> str:
    """A hash of the rules (not the name) and the solver version: equal rules share a table."""
    d = rs.to_dict()
    d.pop("name", None)
    text = json.dumps(d, sort_keys=True) + f"|game-solver-{SOLVER_VERSION}"
    if rs.score_floor < 0 and not rs.variants.zilch_penalty.count:
        text += "|floor-cycles"  # tables solved before the zilch cycles above a floor were solved are stale
    return hashlib.sha256(text.encode()).hexdigest()


def cache_dir(path: str | os.PathLike | None = None) -> Path:
    """Where tables live: ``path``, else ``$ZILCH_SOLVER_CACHE``, else ``~/.cache/zilch-rl``."""
    if path is not None:
        return Path(path)
    env = os.environ.get("ZILCH_SOLVER_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "zilch-rl"


#: Tables shipped with the code (small ones, for the presets): read when the cache has none.
PACKAGED_TABLES = Path(__file__).with_name("game_tables")


def table_path(ruleset: Ruleset | str, directory: str | os.PathLike | None = None) -> Path:
    """The cache file of a ruleset's game table."""
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in rs.name)
    return cache_dir(directory) / f"game-{safe}-{ruleset_key(rs)[:16]}.npz"


def table_files(rs: Ruleset, directory: str | os.PathLike | None = None) -> tuple[Path, Path]:
    """Where a stored table of ``rs`` is looked for, in order: the cache's file, then a packaged one
    with the same key (file name)."""
    path = table_path(rs, directory)
    return path, PACKAGED_TABLES / path.name


def _stored_table(rs: Ruleset, directory: str | os.PathLike | None) -> GameTable | None:
    """A valid stored table: the cache's, else a packaged one with the same key (file name)."""
    for p in table_files(rs, directory):
        if p.exists():
            try:
                return GameTable.load(p)
            except (ValueError, KeyError, OSError):
                continue  # stale or damaged
    return None


def save_npz_whole(path: str | os.PathLike, **arrays: Any) -> Path:
    """``np.savez_compressed(path, **arrays)`` whole or not at all (:func:`agents.files.write_whole`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_whole(path, lambda tmp: np.savez_compressed(tmp, **arrays))


@dataclass
class GameTable(TurnQueries):
    """The solved game of one ruleset (see the module docstring for the method).

    Fields: ``W`` the race values (float32, indexed by ``agents.solver.game_kernels.encode``), ``F`` the
    last-turn chances ``[position in the round, board index, penalty due, lead]`` (the board index:
    0 off the board, 1 on it, under ``challenge`` 2 and 3 free to challenge, see
    ``game_turn.last_turn_index``), ``G`` and ``TB0`` the tie-break tables, ``ip`` the kernel
    parameters, ``meta`` how the solve went (seconds, peak memory, sweeps, ...), and under
    ``challenge`` ``CH`` the value of each race state's challenge turn (-1 where its mover may not
    challenge; ``W`` is the better of it and the plain turn).
    """

    ruleset: Ruleset
    unit: int
    ip: np.ndarray
    W: np.ndarray
    F: np.ndarray
    G: np.ndarray
    TB0: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)
    CH: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    _rt: RollTables | None = field(default=None, repr=False)
    _rtt: tuple | None = field(default=None, repr=False)
    _W64: np.ndarray | None = field(default=None, repr=False)
    #: The file the table was loaded from (None if solved in this process).
    path: Path | None = None
    #: Megabytes of solved turns (situations) kept for play, least recently used dropped first; a
    #: turn is a few kilobytes (float32). Default ``$ZILCH_WIN_CACHE_MB`` or 512: long evaluations
    #: (every situation a preset's games visit, up to its number of states) want more.
    cache_mb: float = field(default_factory=lambda: default_cache_mb())

    # ------------------------------------------------------------------ set-up
    def __post_init__(self) -> None:
        self._rt = roll_tables(self.ruleset, self.unit)
        self._rtt = self._rt.as_tuple(int(self.ip[K.IP_NP]), int(self.ip[L.R_DICE]))
        self._W64 = self.W.astype(np.float64)
        self._key = ruleset_key(self.ruleset)
        self._checked_rules = self.ruleset
        self._init_queries()
        self._caps: dict[tuple, int] = {}  # stable_cap's memo: decoding a situation is Python work
        self._curves: dict[tuple, np.ndarray] = {}  # _chase_curve's memo

    @property
    def dcap(self) -> int:
        return int(self.ip[K.IP_DCAP])

    def stable_cap(self, situation: tuple) -> int:
        """The least turn-total cap (units) from which no value of the turn of ``situation``
        depends on the cap any more (a ``tmin`` for :meth:`turn_values` / :meth:`action_values`).

        A turn DP values every position at or above its cap by banking there. The cap a race turn
        gets by default is where that is exact or harmless for choosing moves (the end-zone cut), but
        the values below it can move slightly when a later, longer turn of the same situation solves
        it again with a higher cap, so what a cached turn holds would depend on which turns came
        first. From a lead of :attr:`dcap` (the largest lead tracked) on, every bank of a race turn
        is valued as that lead, so from the cap ``dcap + b - a`` (mover at ``a``, opponent at ``b``)
        on, any higher cap gives the same values (up to the rounding of float64 sums, far below the
        float32 the cache keeps). A last or tie-break turn's default cap is already there (above the
        bar every bank wins; the first tie-break turn's cap is the deepest bar tracked): 0. The
        evaluation's luck adjustment asks for it, so that its numbers do not depend on how the work
        was split between processes; it costs about 7% more per turn DP than the default cap.
        Memoised (up to a million situations): the shaping potential and the teacher ask it at
        every decision."""
        if situation[0] != "race":
            return 0
        cap = self._caps.get(situation)
        if cap is None:
            if len(self._caps) > 1_000_000:
                self._caps.clear()
            _, ia, _, ib, _ = K.decode(situation[1], self.ip)
            cap = self._caps[situation] = (int(self.ip[K.IP_DCAP]) + int(K.score_of(ib, self.ip))
                                           - int(K.score_of(ia, self.ip)))
        return cap

    @property
    def first_player_win(self) -> float:
        """The first player's win chance at the start of the game (a draw as half)."""
        return self.race_value(0, 0, 0, 0, 0, 0, 0, start=True)

    def race_value(self, position: int, score: int, on_board: bool | int, streak: int,
                   opp_score: int, opp_on_board: bool | int, opp_streak: int, start: bool = False) -> float:
        """The mover's win chance at the start of a race turn (scores in points, below the target).

        ``position`` is the mover's place in the round (0 = first); ``start`` sets both players off
        the board as at the start of the game (when there is an entry threshold)."""
        ip = self.ip
        entry = ip[L.R_ENTRY_THRESHOLD] > 0
        if start:
            on_board = opp_on_board = not entry
        sid = self._race_sid(position, score, bool(on_board) or not entry, streak, opp_score,
                             bool(opp_on_board) or not entry, opp_streak)
        return float(self.W[sid])

    def _race_sid(self, position, score, on, streak, opp_score, opp_on, opp_streak, usage=0, opp_usage=0) -> int:
        """The race state: ``usage`` and ``opp_usage`` the challenge brackets each player has used
        (bit 0 below the split, bit 1 at or above it; under ``challenge`` only)."""
        ip, u = self.ip, self.unit
        Tu, f = int(ip[K.IP_TU]), int(ip[K.IP_FLOOR])
        for name, s in (("score", score), ("opponent score", opp_score)):
            if s % u or not -f <= s // u < Tu:
                raise ValueError(f"{name} {s}: race scores are multiples of {u} from {-f * u} to "
                                 f"{(Tu - 1) * u} (at the target the game is in its last turns)")
        if (not on and score) or (not opp_on and opp_score):
            raise ValueError("a player off the board has score 0")
        nz = int(K.streak_values(ip))
        za = streak if (ip[L.R_ZILCH_PENALTY_COUNT] and on) else 0
        zb = opp_streak if (ip[L.R_ZILCH_PENALTY_COUNT] and opp_on) else 0
        if not (0 <= za < nz and 0 <= zb < nz):
            raise ValueError(f"zilch streaks {streak}, {opp_streak}: from 0 to {nz - 1} under this penalty")
        nu = max(int(ip[K.IP_NU]), 1)
        for used, o in ((usage, on), (opp_usage, opp_on)):
            if not 0 <= used < nu or (used and not o):
                raise ValueError(f"challenge usages {usage}, {opp_usage}: from 0 to {nu - 1} under these rules, "
                                 "0 off the board")
        za += nz * usage
        zb += nz * opp_usage
        seat = position if ip[K.IP_NSEAT] == 2 else 0
        ia = 1 + f + score // u if on else 0
        ib = 1 + f + opp_score // u if opp_on else 0
        return int(K.encode(seat, ia, za, ib, zb, ip))

    # ------------------------------------------------------------------ situations of a real game
    def tie_value(self, position: int) -> float:
        """What a tie at the end is worth to the player at ``position`` in the round."""
        if not self.ip[L.R_TIEBREAK]:
            return 0.5
        return float(self.TB0[1]) if position == 0 else 1.0 - float(self.TB0[1])

    def situation(self, state: GameState) -> tuple:
        """The solver's view of whose turn it is in ``state``: ``("race", sid)``, ``("bar", d, v,
        on, penalty_due)`` (a last turn, or the second tie-break turn of a round: end above ``d``
        units, ``d`` ties and is worth ``v``) or ``("tiebreak", round)`` (the first tie-break turn)."""
        if state.num_players != 2:
            raise UnsupportedRulesError(f"a game of {state.num_players} players: the game solver plays "
                                   f"two-player games only")
        if state.done:
            raise ValueError("the game is over: there is no move to choose")
        if state.phase not in (Phase.KEEP, Phase.CHALLENGE):
            raise UnsupportedRulesError(f"phase {state.phase.name}: only the variants the game solver does "
                                   f"not support have this turn-start decision")
        if state.ruleset is not self._checked_rules:
            if ruleset_key(state.ruleset) != self._key:
                raise ValueError(f"this table solves {self.ruleset.name!r}, but the game is played "
                                 f"under other rules ({state.ruleset.name!r})")
            self._checked_rules = state.ruleset
        return self.situation_of(state.current, state.first, state.scores, state.on_board, state.zilch_streak,
                                 state.final_queue, state.tiebreak_players, state.tiebreak_round,
                                 **self.challenge_fields(state))

    def challenge_fields(self, state: GameState) -> dict[str, Any]:
        """The keywords of :meth:`situation_of` that tell challenges apart, read from ``state``: each
        seat's brackets used and whether this turn is a challenge (none under rules without challenge)."""
        if not self.ip[K.IP_NU]:
            return {}
        return {"usage": [int(lo) | int(hi) << 1 for lo, hi in state.challenge_brackets],
                "challenged": state.challenged is not None}

    def situation_of(self, me: int, first: int, scores: Sequence[int], on_board: Sequence[bool],
                     zilch_streak: Sequence[int], final_queue: Sequence[int] | None,
                     tiebreak_players: Sequence[int] | None, tiebreak_round: int,
                     usage: Sequence[int] | None = None, challenged: bool = False) -> tuple:
        """:meth:`situation` from the fields of a game (for states kept elsewhere than in a
        ``GameState``, e.g. the batched engine's rows): the mover, the first player, per seat the
        scores, board status and zilch streaks, the final queue and the tie-break players and round;
        under ``challenge`` per seat the brackets used (bit 0 below the split, bit 1 at or above it,
        as the state holds them) and whether the mover's turn is a challenge. A challenge turn is
        ``("challenge", sid)`` (``sid`` the race state it was declared in) or, as a last turn,
        ``("chbar", d, v, k, penalty_due)`` (``k`` challenges declared before it)."""
        ip, u = self.ip, self.unit
        opp = 1 - me
        pos = (me - first) % 2
        if tiebreak_players is not None:
            r = tiebreak_round
            if len(final_queue) == 2:
                return ("tiebreak", r)
            v = 0.5 if r >= MAX_TIEBREAK_ROUNDS else 1.0 - float(self.TB0[r + 1])
            return ("bar", (scores[opp] - scores[me]) // u, v, True, False)
        pc = int(ip[L.R_ZILCH_PENALTY_COUNT])
        ua, ub = (usage[me], usage[opp]) if usage is not None and ip[K.IP_NU] else (0, 0)
        if challenged:  # the bracket of this challenge was not used when it was declared
            ua &= ~int(K.challenge_bit(scores[me] // u, ip))
        if final_queue is not None:
            on = bool(on_board[me])
            penf = bool(pc and on and zilch_streak[me] == pc - 1)
            if challenged:
                return ("chbar", (scores[opp] - scores[me]) // u, self.tie_value(pos), bin(ua).count("1"), penf)
            return ("bar", (scores[opp] - scores[me]) // u, self.tie_value(pos), on, penf)
        sid = self._race_sid(pos, scores[me], on_board[me], zilch_streak[me], scores[opp], on_board[opp],
                             zilch_streak[opp], ua, ub)
        return ("challenge" if challenged else "race", sid)

    def challenge_choice(self, state: GameState, tmin: int = 0) -> tuple[float, float]:
        """At a challenge decision of ``state`` (phase ``CHALLENGE``): the mover's win chance if they
        play a plain turn and if they challenge, under optimal play by both from then on (``tmin``: a
        least turn-total cap for both turns, as :meth:`action_values` takes it)."""
        sit = self.situation(state)
        D = int(self.ip[L.R_DICE])
        if sit[0] == "race":
            ch = ("challenge", sit[1])
        else:
            _, d, v, on, penf = sit
            usage = int(state.challenge_brackets[state.current][0]) | int(state.challenge_brackets[state.current][1]) << 1
            ch = ("chbar", d, v, bin(usage).count("1"), penf)
        plain = float(self.turn_values(sit, tmin, True).C[D])
        return plain, float(self.turn_values(ch, tmin, True).C[D])

    def action_values(self, state: GameState, cut: bool = False, tmin: int = 0,
                      situation: tuple | None = None) -> dict[int, float]:
        if state.phase == Phase.CHALLENGE:
            plain, ch = self.challenge_choice(state, tmin)
            return {a: (ch if a == CHALLENGE_BASE else plain) for a in state.legal_actions()
                    if a in (NO_CHALLENGE, CHALLENGE_BASE)}
        return super().action_values(state, cut, tmin, situation)

    def best_action(self, state: GameState, legal: Sequence[int] | None = None) -> int:
        if state.phase == Phase.CHALLENGE:
            plain, ch = self.challenge_choice(state)
            return CHALLENGE_BASE if ch > plain + 1e-12 else NO_CHALLENGE
        return super().best_action(state, legal)

    def final_situation_of(self, me: int, first: int, scores: Sequence[int], on_board: Sequence[bool],
                           zilch_streak: Sequence[int], final_queue: Sequence[int], bar: int = 0,
                           overcoming: bool = False) -> tuple:
        """The last turn of seat ``me`` in a game of any number of seats (``final_queue``: the seats
        still to play their last turn, ``me`` first): it must end above the leader, the highest score
        among the others, and under ``overcoming`` a bank must also beat ``bar`` points (the previous
        turn's result). A bank above the leader then wins if each seat still to play after ``me``
        fails to end above the new top score (and, the next of them under ``overcoming``, to beat the
        mover's result): their best chances of one turn against those bars, as if independent. With
        no bar above the leader's lead and no one after the mover, this is the two-player game's last
        turn, ``("bar", d, v, on, penalty_due)``; else ``("chase", d, v, bar, on, penalty_due,
        later)`` in units, ``later`` the seats after the mover as ``(their score - the mover's,
        their tie value, on the board, penalty due, bar from the mover's result)``. The solved
        game's rules know neither three players nor overcoming: this is the model a teacher of those
        games uses, exact for two players and for the last seat to play (but for a tie of three or
        more at the top, valued as a tie of two)."""
        ip, u = self.ip, self.unit
        n = len(scores)
        if not final_queue or final_queue[0] != me:
            raise ValueError(f"final queue {list(final_queue)}: the mover, seat {me}, plays first in it")
        others = [q for q in range(n) if q != me]
        lead = max(others, key=lambda q: (scores[q], -((q - me) % n)))
        mine = (me - first) % n
        pos = 0 if mine < (lead - first) % n else 1
        pc = int(ip[L.R_ZILCH_PENALTY_COUNT])

        def due(q: int) -> bool:
            return bool(pc and on_board[q] and zilch_streak[q] == pc - 1)

        d = (scores[lead] - scores[me]) // u
        b = bar // u if overcoming else 0

        def tie(q: int) -> float:  # a tie between seat q and the mover, to q (by who plays first)
            return self.tie_value(0 if (q - first) % n < mine else 1)

        later = tuple(((scores[q] - scores[me]) // u, tie(q), bool(on_board[q]), due(q), bool(overcoming and i == 0))
                      for i, q in enumerate(final_queue[1:]))
        if b < d and not later:
            return ("bar", d, self.tie_value(pos), bool(on_board[me]), due(me))
        return ("chase", d, self.tie_value(pos), b, bool(on_board[me]), due(me), later)

    def _chase_curve(self, v: float, on: bool, penf: bool) -> np.ndarray:
        """``out[x]``: the best chance of one turn ending above ``x`` units (``x`` ties, worth
        ``v``), for x = 0 .. :attr:`dcap` (beyond it below :data:`TAIL_EPS`); memoised."""
        key = (float(v), bool(on), bool(penf))
        out = self._curves.get(key)
        if out is None:  # one thread: prefetch may solve turns on several at once
            out = np.zeros(self.dcap + 1)
            K.bar_curve(0, self.dcap, float(v), bool(on), bool(penf), self.ip, self._rtt, self._rt.p_allonly, out)
            self._curves[key] = out
        return out

    def _chase_inputs(self, situation: tuple, tmin: int) -> tuple[np.ndarray, np.ndarray, int]:
        """``(B, Zv, thr)`` of a ``"chase"`` situation (:meth:`final_situation_of`); ``thr`` the
        least bank, above overcoming's bar ``b`` as the engine has it."""
        _, d, v, b, on, penf, later = situation
        ip = self.ip
        thr = bank_bar(on, int(K.entry_units(ip)), int(K.min_bank_units(ip)), b > 0, b)  # in units
        # from tcap on every bank is worth B[tcap]: above the lead, and every later seat's bar at or
        # beyond dcap, where its chance is below TAIL_EPS (the curves end there)
        tcap = max(d + 1, b + 1, thr, 1, tmin)
        if later:
            tcap = max(tcap, self.dcap + max(0, max(g for g, *_ in later)) + 1)
        curves = [self._chase_curve(vk, onk, pk) for _, vk, onk, pk, _ in later]
        no_tie = [self._chase_curve(0.0, onk, pk) if nb else None for _, _, onk, pk, nb in later]

        def ending(gain: np.ndarray, result: np.ndarray) -> np.ndarray:
            """The mover's chance after its score moves by ``gain`` units, the turn recording
            ``result`` (the next seat's bar under overcoming)."""
            val = np.where(gain > d, 1.0, np.where(gain == d, v, 0.0))
            top = np.maximum(gain, d)  # the top score, less the mover's before this turn
            for (g, _, _, _, next_bar), curve, strict in zip(later, curves, no_tie):
                need = top - g  # above it wins, at it ties
                chance = curve[np.clip(need, 0, self.dcap)]
                if next_bar:  # a bank must also beat the mover's result (equal to it is refused)
                    barred = result >= need
                    chance = np.where(barred, strict[np.clip(result, 0, self.dcap)], chance)
                val = val * (1.0 - chance)
            return val

        t = np.arange(tcap + 1)
        B = np.where(t > b, ending(t, t), 0.0)
        S, NP = int(K.straight_units(ip)), int(ip[K.IP_NP])
        rec = np.arange(NP) * S
        rec = np.where(on | ((rec > 0) & (rec >= int(K.entry_units(ip)))), rec, 0)
        Zv = ending(rec - (int(K.penalty_units(ip)) if penf else 0), rec)
        if penf and K.penalty_resets(ip):
            Zv[:] = 0.0
        return B, Zv, thr

    def start_value(self, situation: tuple) -> float:
        """The mover's win chance at the start of the turn of ``situation`` (before its first roll),
        under optimal play by both."""
        if situation[0] == "race" and not self.ip[K.IP_NU]:
            return float(self.W[situation[1]])
        # (under challenge the race value is the better of this turn and a challenge: the turn's own DP)
        tv = self.turn_values(situation, 0, True)
        return float(tv.C[int(self.ip[L.R_DICE])])  # turn total 0, no permanent straight, all dice to roll

    def _solve_turn(self, situation: tuple, tmin: int, cut: bool) -> TurnValues:
        """The turn DP of a situation (not cached; safe to call from several threads at once)."""
        ip, rtt, pa = self.ip, self._rtt, self._rt.p_allonly
        kind = situation[0]
        if kind == "race":
            tcap, thr, B, Q, C = SK.race_situation(situation[1], self._W64, self.F, ip, rtt, pa, tmin, cut)
        elif kind == "challenge":
            tcap, thr, B, Q, C = SK.race_situation(situation[1], self._W64, self.F, ip, rtt, pa, tmin, cut, True)
        elif kind == "chbar":
            _, d, v, k, penf = situation
            tcap, thr, B, Q, C = SK.bar_situation(d, v, True, penf, ip, rtt, pa, tmin, cut, k)
        elif kind == "bar":
            _, d, v, on, penf = situation
            tcap, thr, B, Q, C = SK.bar_situation(d, v, on, penf, ip, rtt, pa, tmin, cut)
        elif kind == "chase":
            Bv, Zvv, thr0 = self._chase_inputs(situation, tmin)
            tcap, thr, B, Q, C = SK.given_situation(Bv, Zvv, thr0, ip, rtt, pa, cut)
        else:
            tcap, thr, B, Q, C = SK.tiebreak_situation(self.G[situation[1]], ip, rtt, pa, tmin, cut)
        # Only turn totals up to the cap are read (the cap is above every total one keep can reach
        # from the position asked about); float32 keeps a cached turn to a few kilobytes, so values
        # read from here are rounded to about 3e-8 (the DP itself runs in float64).
        with np.errstate(invalid="ignore", over="ignore"):
            return TurnValues(int(tcap), int(thr), B[:tcap + 1].astype(np.float32),
                              C[:(tcap + 1) * int(ip[K.IP_NP]) * (int(ip[L.R_DICE]) + 1)].astype(np.float32))

    def choices(self, situation: tuple, roll: Sequence[int], turn_total: int = 0,
                permanent: int = 0) -> list[dict[str, Any]]:
        """Every legal choice after ``roll`` in a situation (:meth:`situation`, or built with
        :meth:`race_situation` / :meth:`last_turn_situation`), best first: the keep, whether to
        bank, the action number and the win chance under optimal play by both from then on."""
        from zilch_env.engine.game import keep_action

        rs = self.ruleset
        info = scoring_table(rs).info(roll)
        keeps = compile_rules(rs).keeps_of(info.dice)
        if bonus_of(rs, info):
            # the six-dice zilch bonus joins the turn total; then bank or roll (the keep of nothing)
            keeps, turn_total = BONUS_KEEPS, turn_total + bonus_of(rs, info)
        vals = self._keep_values(situation, keeps, turn_total, permanent, len(roll), cut=False)
        out = []
        for k in keeps:
            roll_v, bank_v = vals[k.mask]
            out.append({"keep": k, "bank": False, "action": keep_action(k.mask, False), "value": roll_v})
            if bank_v is not None:
                out.append({"keep": k, "bank": True, "action": keep_action(k.mask, True), "value": bank_v})
        out.sort(key=lambda c: (-c["value"], not c["bank"], c["action"]))
        return out

    def race_situation(self, score: int, opp_score: int, on_board: bool = True, opp_on_board: bool = True,
                       streak: int = 0, opp_streak: int = 0, position: int = 0) -> tuple:
        """The situation of a race turn (both scores below the target), for :meth:`choices`."""
        return ("race", self._race_sid(position, score, on_board, streak, opp_score, opp_on_board, opp_streak))

    def last_turn_situation(self, score: int, leader: int, on_board: bool = True, streak: int = 0,
                            position: int = 1) -> tuple:
        """The situation of a last turn against the leader's score, for :meth:`choices`."""
        if leader <= score:
            raise ValueError(f"a last turn is played from behind: the leader has {leader}, the player {score}")
        pc = int(self.ip[L.R_ZILCH_PENALTY_COUNT])
        penf = bool(pc and on_board and streak == pc - 1)
        return ("bar", (leader - score) // self.unit, self.tie_value(position), bool(on_board), penf)

    def turn_outcomes(self, situation: tuple) -> tuple[dict[int, float], dict[int, float], np.ndarray, np.ndarray]:
        """How the optimal turn of a situation (:meth:`situation`) ends, played forwards: ``(bank,
        zilch, B, Zv)`` with ``bank[points]`` the chance of banking that turn total, ``zilch[points]``
        the chance of a zilch keeping that many permanent points, and ``B``/``Zv`` the win chances of
        those endings (by turn total and by permanent straights, in units); the turn's value is
        ``sum(bank * B) + sum(zilch * Zv)``. A turn pushed past the solver's cap counts as banked there."""
        kind = situation[0]
        if kind == "chase":
            raise ValueError("turn_outcomes: a 'chase' situation (final_situation_of) is a teacher's model of "
                             "games the solved game does not play; its outcomes are not tabled")
        u, S = self.unit, int(K.straight_units(self.ip))
        args = dict(sid=0, d=0, v=0.5, on=True, penf=False, G=self.G[1], ch=-1)
        if kind in ("race", "challenge"):
            k, args["sid"] = (0 if kind == "race" else 3), situation[1]
        elif kind == "bar":
            k = 1
            _, args["d"], args["v"], args["on"], args["penf"] = situation
        elif kind == "chbar":  # a last turn against the leader, played as a challenge
            k = 1
            _, args["d"], args["v"], args["ch"], args["penf"] = situation
        else:
            k, args["G"] = 2, self.G[situation[1]]
        bank, zil, B, Zv = SK.situation_outcomes(k, args["sid"], args["d"], args["v"], args["on"], args["penf"],
                                                self._W64, self.F, args["G"], self.ip, self._rtt,
                                                self._rt.p_allonly, args["ch"])
        return ({t * u: float(p) for t, p in enumerate(bank) if p > 0.0},
                {pi * S * u: float(p) for pi, p in enumerate(zil) if p > 0.0}, B, Zv)

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike) -> Path:
        """Write the table (atomically) as a compressed ``.npz`` with its ruleset and key inside."""
        return save_npz_whole(
            path, W=self.W.astype(np.float32), F=self.F, G=self.G, TB0=self.TB0, ip=self.ip,
            CH=np.asarray(self.CH, np.float32),
            ip_names=np.array(K.ip_names()),
            unit=np.int64(self.unit), ruleset=np.array(ruleset_to_toml(self.ruleset)),
            key=np.array(self._key), version=np.int64(SOLVER_VERSION), meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: str | os.PathLike) -> "GameTable":
        """Read a table written by :meth:`save`."""
        import tomllib

        with np.load(path, allow_pickle=False) as z:
            rs = ruleset_from_dict(tomllib.loads(str(z["ruleset"])))
            unit = int(z["unit"])
            # the vector is the rules' and the grid's, matched by name: one of other rules is stale
            ip = K.stored_ip(z["ip"].astype(np.int64), z["ip_names"] if "ip_names" in z.files else None,
                             lambda dcap: _params(rs, roll_tables(rs, unit), dcap), str(path))
            t = cls(ruleset=rs, unit=unit, ip=ip, W=z["W"],
                    F=z["F"], G=z["G"], TB0=z["TB0"], meta=json.loads(str(z["meta"])), path=Path(path),
                    CH=z["CH"] if "CH" in z.files else np.zeros(0, np.float32))
            if str(z["key"]) != t._key or int(z["version"]) != SOLVER_VERSION:
                raise ValueError(f"{path}: the table was built by another solver version or for other rules")
        return t
