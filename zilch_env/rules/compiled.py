"""The rules compiled once: one ruleset as the tables every fast part plays and solves from.

:func:`compile` turns a :class:`~zilch_env.rules.schema.Ruleset` into a :class:`CompiledRules` (cached per
ruleset): every sorted roll of 1 to 6 dice with its exact probability, the keeps a player chooses
from after each roll under the ruleset's keep rule (``keep = "all_scoring"`` leaves one), the zilch
chance of each number of dice, the points grid, and the two forms the numba code reads: the packed
keep table and the rule-parameter vector of the fast engine (:mod:`zilch_env.engine.kernels`).
The batched engine (:mod:`zilch_env.engine.batched`), the turn solver (:mod:`agents.solver.turn`) and the game
solver (:mod:`agents.solver.game`) all read these tables, so a roll's chance and a roll's keeps are
written once, here and in :mod:`zilch_env.rules.scoring`.

Roll ids: roll ``r`` is ``rolls[r]``, in the order of ``itertools.combinations_with_replacement``
grouped by dice count, so the rolls of ``n`` dice are ids ``n_start[n]`` to ``n_start[n + 1] - 1``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache, reduce
from typing import Sequence

import numpy as np


from zilch_env.rules import packed as L
from zilch_env.rules.primitives import CHALLENGE_SPLIT, CHALLENGE_ZILCH_COST, MAX_TIEBREAK_ROUNDS
from zilch_env.rules.packed import sorted_rolls_by_code
from zilch_env.rules.schema import ENDS, PENALTY_MODES
from zilch_env.rules.schema import Ruleset
from zilch_env.rules.scoring import Keep, face_points, pass_keeps, permanent_straight, scoring_table

__all__ = ["CompiledRules", "compile", "roll_probability", "ROLLS", "ROLL_ID"]

#: Every sorted roll of 1 to 6 dice, by roll id.
ROLLS: tuple[tuple[int, ...], ...] = tuple(
    r for n in range(1, 7) for r in itertools.combinations_with_replacement(range(1, 7), n))
_N_START = np.array([0] + [sum(math.comb(n + 5, 5) for n in range(1, k)) for k in range(1, 8)], dtype=np.int64)
_CODES = 6**6
_NOTHING = (0,) * 6  # no dice frozen
#: The roll id of each sorted roll (a tuple of faces).
ROLL_ID: dict[tuple[int, ...], int] = {r: i for i, r in enumerate(ROLLS)}
_ROLL_ID = ROLL_ID


def roll_probability(dice: Sequence[int]) -> Fraction:
    """The exact probability of a sorted roll of ``len(dice)`` dice: the multinomial count of its
    orderings over ``6**n``."""
    counts = [0] * 6
    for d in dice:
        counts[d - 1] += 1
    ways = math.factorial(len(dice))
    for c in counts:
        ways //= math.factorial(c)
    return Fraction(ways, 6 ** len(dice))


@lru_cache(maxsize=1)
def _roll_probabilities() -> tuple[Fraction, ...]:
    """:func:`roll_probability` of every roll of :data:`ROLLS`, in order: the same for every ruleset."""
    return tuple(roll_probability(roll) for roll in ROLLS)


@lru_cache(maxsize=1)
def _code_roll() -> np.ndarray:
    """``code_roll[n, code]``: the roll id of ``sorted_rolls_by_code()[n][code % 6**n]`` (the dice
    of ``RandomDice`` and of the batched engine's keyed streams)."""
    index = {r: i for i, r in enumerate(ROLLS)}
    by_code = sorted_rolls_by_code()
    out = np.zeros((7, _CODES), dtype=np.int16)
    for n in range(1, 7):
        row = np.array([index[r] for r in by_code[n]], dtype=np.int16)
        out[n] = np.tile(row, _CODES // 6**n)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class CompiledRules:
    """One ruleset's tables (see the module docstring). All arrays are read-only.

    Attributes:
        ruleset: the rules compiled.
        dice: dice rolled at the start of a pass.
        n_start: ``(8,)``: the rolls of ``n`` dice are ids ``n_start[n]`` to ``n_start[n + 1] - 1``.
        probability: the exact chance of each roll among the rolls of its dice count.
        roll_p: the same as float64.
        keeps: per roll, the keeps the player chooses from when no dice are frozen (canonical masks
            ascending; under ``all_scoring`` only the keep of the most points, ties to more dice).
        best: per roll, the keep of the most points (ties to more dice, then the lower mask), None for
            a zilch: ``all_scoring``'s keep and the greedy mover's choice.
        zilch: the exact chance that a roll of ``n`` dice has no keep (index 0 unused); under the
            six-dice zilch bonus such a roll of all the dice scores the bonus instead.
        unit: the greatest common divisor of every amount a turn adds at risk (the keeps of up to
            ``dice`` dice and the six-dice zilch bonus): turn totals lie on this grid.
        score_unit: ``unit`` with the subtracted zilch penalty and the score floor too: every score
            lies on this grid.
        table: the packed keep table of the fast kernels (``zilch_env.engine.kernels.T_*``).
        code_roll: ``(7, 6**6)`` roll ids of the dice codes.
        k_start: ``keeps`` flat, for loops over every keep of every roll (the turn solver's): the keeps
            of roll ``r`` are ``k_start[r]`` to ``k_start[r + 1] - 1`` (none: a zilch), in the order of
            ``keeps[r]``, with ``k_pts`` their points, ``k_n`` their dice and ``k_str`` whether each
            is scored as a straight.
    """

    ruleset: Ruleset
    dice: int
    n_start: np.ndarray
    probability: tuple[Fraction, ...]
    roll_p: np.ndarray
    keeps: tuple[tuple[Keep, ...], ...]
    best: tuple[Keep | None, ...]
    zilch: tuple[Fraction, ...]
    unit: int
    score_unit: int
    table: np.ndarray
    code_roll: np.ndarray
    k_start: np.ndarray
    k_pts: np.ndarray
    k_n: np.ndarray
    k_str: np.ndarray
    _params_memo: dict = field(default_factory=dict, repr=False)

    @property
    def rolls(self) -> tuple[tuple[int, ...], ...]:
        return ROLLS

    def keeps_of(self, roll: Sequence[int]) -> tuple[Keep, ...]:
        """The keeps of a sorted roll (as :attr:`keeps`)."""
        return self.keeps[_ROLL_ID[tuple(roll)]]

    def rolls_of(self, n: int) -> range:
        """The ids of the rolls of ``n`` dice."""
        return range(int(self.n_start[n]), int(self.n_start[n + 1]))

    def params(self, num_players: int, keyed: int = 0) -> np.ndarray:
        """The rule-parameter vector of the fast kernels (``zilch_env.engine.kernels.R_*``) for
        ``num_players`` players and dice source ``keyed`` (0 numpy streams, 1 keyed, 2 keyed by slot):
        a new array each call, built once per player count and dice source (the solvers ask per solve)."""
        rp = self._params_memo.get((num_players, keyed))
        if rp is None:
            rp = self._params_memo[(num_players, keyed)] = self._build_params(num_players, keyed)
        return rp.copy()

    def _build_params(self, num_players: int, keyed: int) -> np.ndarray:
        rs = self.ruleset
        rp = np.zeros(L.R_SIZE, dtype=np.int64)
        for i, key in L.COPIED.items():
            node = rs
            for part in key.split("."):
                node = getattr(node, part)
            rp[i] = node
        rp[L.R_FORCED_HOT_DICE] = rs.hot_dice == "forced"
        rp[L.R_PERMANENT_STRAIGHT] = permanent_straight(rs)
        rp[L.R_ZILCH_PENALTY_MODE] = PENALTY_MODES.index(rs.variants.zilch_penalty.mode)
        rp[L.R_END] = ENDS.index(rs.end)
        rp[L.R_TIEBREAK] = rs.tie == "tiebreak"
        rp[L.R_PLAYERS] = num_players
        rp[L.R_MAX_TIEBREAK_ROUNDS] = MAX_TIEBREAK_ROUNDS
        rp[L.R_DICE_SOURCE] = keyed
        rp[L.R_ALL_SCORING] = rs.keep == "all_scoring"
        rp[L.R_CHALLENGE_SPLIT] = CHALLENGE_SPLIT
        rp[L.R_CHALLENGE_COST_FIRST], rp[L.R_CHALLENGE_COST_SECOND] = CHALLENGE_ZILCH_COST
        # the points of the keep that scores roll 1-6 as a straight, as the engine adds them at risk
        # and, for a permanent straight, keeps them through a zilch (scoring.straight when none does)
        rp[L.R_STRAIGHT] = next((k.points for k in self.keeps[ROLL_ID[(1, 2, 3, 4, 5, 6)]] if k.straight),
                                rs.scoring.straight)
        rp[L.R_FACE_POINTS: L.R_FACE_POINTS + 42] = face_points(rs.scoring)  # what pyramiding scores
        return rp


@lru_cache(maxsize=64)
def compile(ruleset: Ruleset) -> CompiledRules:  # noqa: A001 - the verb of this module
    """The compiled tables of ``ruleset`` (cached per ruleset)."""
    st = scoring_table(ruleset)
    all_scoring = ruleset.keep == "all_scoring"
    probability, keeps, best = [], [], []
    zilch = [Fraction(0)] * 7
    for roll, pr in zip(ROLLS, _roll_probabilities()):
        info = st.rolls[roll]
        probability.append(pr)
        ks = pass_keeps(ruleset.scoring, info, _NOTHING, _NOTHING, False, all_scoring)
        keeps.append(ks)
        best.append(info.best)
        if not ks:
            zilch[len(roll)] += pr
    D = ruleset.dice
    amounts = {k.points for r in range(int(_N_START[D + 1])) for k in keeps[r]}
    amounts.add(ruleset.variants.six_dice_zilch_bonus)
    unit = reduce(math.gcd, amounts, 0) or 1
    zp = ruleset.variants.zilch_penalty
    score_unit = math.gcd(unit, zp.points) if (zp.count and zp.mode == "subtract") else unit
    score_unit = math.gcd(score_unit, -ruleset.score_floor)  # a penalty may stop at the floor
    n_start = _N_START.copy()
    roll_p = np.array([float(p) for p in probability])
    flat = [k for ks in keeps for k in ks]
    k_start = np.cumsum([0] + [len(ks) for ks in keeps]).astype(np.int64)
    k_mask = np.array([k.mask for k in flat], dtype=np.int64)
    k_pts = np.array([k.points for k in flat], dtype=np.int64)
    k_n = np.array([k.n for k in flat], dtype=np.int64)
    k_str = np.array([k.straight for k in flat], dtype=np.bool_)
    table = _pack(keeps, best, k_start, k_mask, k_pts, k_n, k_str)
    for a in (n_start, roll_p, table, k_start, k_pts, k_n, k_str):
        a.flags.writeable = False
    return CompiledRules(ruleset, D, n_start, tuple(probability), roll_p, tuple(keeps), tuple(best),
                         tuple(zilch), unit, score_unit, table, _code_roll(), k_start, k_pts, k_n, k_str)


def _pack(keeps: Sequence[tuple[Keep, ...]], best: Sequence[Keep | None], k_start: np.ndarray, k_mask: np.ndarray,
          k_pts: np.ndarray, k_n: np.ndarray, k_str: np.ndarray) -> np.ndarray:
    """The kernels' keep table: one int32 row per roll id (columns ``T_*``), from the keeps of every
    roll side by side (``k_*``, roll ``r``'s from ``k_start[r]``, as :class:`CompiledRules` holds them)."""
    table = _roll_columns().copy()
    counts = np.diff(k_start)
    if counts.max(initial=0) > L.MAX_KEEPS:  # pragma: no cover - 2**6 - 1 at most for six dice
        r = int(np.argmax(counts))
        raise ValueError(f"roll {ROLLS[r]} has {counts[r]} keeps; the tables hold {L.MAX_KEEPS}")
    table[:, L.T_KEEP_COUNT] = counts
    # every keep of every roll at once: its roll (row) and its place among the roll's keeps
    rows = np.repeat(np.arange(len(ROLLS)), counts)
    place = np.arange(len(k_mask)) - np.repeat(k_start[:-1], counts)
    table[rows, L.T_KEEP_MASK + place] = k_mask
    table[rows, L.T_KEEP_POINTS + place] = k_pts
    table[rows, L.T_KEEP_DICE + place] = k_n
    table[rows, L.T_KEEP_STRAIGHT + place] = k_str
    table[rows, L.T_KEEP_OF_MASK + k_mask] = place
    for r, (ks, b) in enumerate(zip(keeps, best)):
        if b in ks:  # (under a keep rule that leaves the best keep out, none)
            table[r, L.T_BEST_KEEP] = ks.index(b)
    return table


@lru_cache(maxsize=1)
def _roll_columns() -> np.ndarray:
    """The keep table's columns that depend on the roll alone (its dice, each face's count and first
    sorted position), the keeps' columns empty (-1 where -1 means none)."""
    table = np.zeros((len(ROLLS), L.T_WIDTH), dtype=np.int32)
    table[:, L.T_BEST_KEEP] = -1
    table[:, L.T_KEEP_OF_MASK: L.T_KEEP_OF_MASK + 64] = -1
    for r, roll in enumerate(ROLLS):
        table[r, L.T_ROLL_DICE] = len(roll)
        for i, d in enumerate(roll):
            if table[r, L.T_FACE_COUNT + d - 1] == 0:
                table[r, L.T_FACE_FIRST + d - 1] = i
            table[r, L.T_FACE_COUNT + d - 1] += 1
    table.flags.writeable = False
    return table


@dataclass(frozen=True)
class BatchTables:
    """The scoring table of one ruleset as arrays, by roll index ``r`` (see :attr:`rolls`).

    ``nk[r]`` legal keeps of roll ``r`` (0 = a zilch); for ``k < nk[r]``: ``kmask[r, k]`` the canonical
    mask over the sorted roll, ``kpts`` its points, ``kn`` its dice, ``kstr`` scored as a straight;
    ``m2k[r, mask]`` the keep with that mask or -1; ``best[r]`` the keep set aside under
    ``all_scoring`` and chosen by the greedy mover (``RollInfo.best``), -1 for a zilch. Under
    ``keep = "all_scoring"`` that keep is the only legal one, as in :meth:`GameState.keeps`.
    ``code_roll[n, code]`` maps a dice code to the roll of ``n`` dice (as ``RandomDice``), ``roll_n``
    and ``faces`` give each roll's size and sorted faces (0-padded). ``packed`` holds the keep
    columns side by side in one int32 array for the kernels (layout: the ``T_*`` constants of
    ``zilch_env.engine.kernels``)."""

    rolls: tuple[tuple[int, ...], ...]
    code_roll: np.ndarray
    roll_n: np.ndarray
    faces: np.ndarray
    nk: np.ndarray
    kmask: np.ndarray
    kpts: np.ndarray
    kn: np.ndarray
    kstr: np.ndarray
    m2k: np.ndarray
    best: np.ndarray
    packed: np.ndarray


@lru_cache(maxsize=32)
def batch_tables(ruleset: Ruleset) -> BatchTables:
    """The compiled keep tables of ``ruleset`` (:func:`zilch_env.rules.compile`) as named arrays."""
    cr = compile(ruleset)
    t = cr.table
    R = len(ROLLS)
    roll_n = t[:, L.T_ROLL_DICE].astype(np.int8)
    faces = np.zeros((R, 6), dtype=np.int8)
    for r, roll in enumerate(ROLLS):
        faces[r, : len(roll)] = roll
    cols = (t[:, L.T_KEEP_COUNT].astype(np.int8), t[:, L.T_KEEP_MASK: L.T_KEEP_MASK + L.MAX_KEEPS].astype(np.int8),
            t[:, L.T_KEEP_POINTS: L.T_KEEP_POINTS + L.MAX_KEEPS].copy(), t[:, L.T_KEEP_DICE: L.T_KEEP_DICE + L.MAX_KEEPS].astype(np.int8),
            t[:, L.T_KEEP_STRAIGHT: L.T_KEEP_STRAIGHT + L.MAX_KEEPS].astype(np.bool_), t[:, L.T_KEEP_OF_MASK: L.T_KEEP_OF_MASK + 64].astype(np.int8),
            t[:, L.T_BEST_KEEP].astype(np.int8))
    arrays = (roll_n, faces, *cols)
    for a in arrays:
        a.flags.writeable = False
    return BatchTables(ROLLS, cr.code_roll, *arrays, t)
