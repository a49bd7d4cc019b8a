"""Scoring a keep, and the legal keeps of every roll, precomputed per ruleset.

The points of a keep are the **maximum** over the ways to split the kept dice into combinations,
each kept die in exactly one combination (docs/rules.md, "Scoring a keep"); a keep that cannot be split
completely is illegal. There are only 923 sorted rolls of 1 to 6 dice, so :func:`scoring_table`
computes every roll's legal keeps once per scoring rule and play never searches partitions.

Positions and masks: a roll is shown sorted, and a keep is a bit mask over those positions. Of
several keeps with the same faces only the *canonical* one (for each face, its leftmost positions)
is listed, so no two listed keeps do the same thing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, NamedTuple, Sequence

import numpy as np

from zilch_env.rules.schema import Ruleset, Scoring
from zilch_env.rules.primitives import pass_freeze, pass_keep

Counts = tuple[int, int, int, int, int, int]  # how many dice show each face 1..6


class Keep(NamedTuple):
    """One legal keep of a roll."""

    mask: int  # bit i set = the die at sorted position i is kept
    counts: Counts  # kept dice by face
    n: int  # number of dice kept
    points: int  # the most points these dice score together
    straight: bool  # scored as a straight (permanent under ``permanent_straight``)

    @property
    def dice(self) -> tuple[int, ...]:
        return tuple(f for f in range(1, 7) for _ in range(self.counts[f - 1]))


@dataclass(frozen=True)
class RollInfo:
    """A sorted roll with its legal keeps (canonical masks, sorted by mask)."""

    dice: tuple[int, ...]
    counts: Counts
    keeps: tuple[Keep, ...]
    by_mask: dict[int, Keep]
    best: Keep | None  # the most points; ties go to more dice ("all scoring dice set aside")

    @property
    def zilch(self) -> bool:
        return not self.keeps


def face(d: object) -> int:
    """A die's face as an ``int``: Python and NumPy integers 1 to 6 are faces; bools and anything else
    are refused with a :class:`ValueError` naming the value."""
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or not 1 <= d <= 6:
        raise ValueError(f"die {d!r} is not a face; faces are whole numbers from 1 to 6")
    return int(d)


def to_counts(dice: Iterable[int]) -> Counts:
    c = [0] * 6
    for d in dice:
        c[face(d) - 1] += 1
    return tuple(c)  # type: ignore[return-value]


def kind_value(scoring: Scoring, face: int, n: int) -> int:
    """Points of ``n`` (4 to 6) dice of ``face`` scored as one n-of-a-kind; 0 if not a combination."""
    triple = scoring.triples.get(face, 0)
    if scoring.kinds == "double":
        return triple * 2 ** (n - 3)
    if scoring.kinds == "flat":
        return scoring.kind_values.get(n, 0)
    if scoring.kinds == "multiple":
        return triple * scoring.kind_values.get(n, 0)
    return 0


@lru_cache(maxsize=None)
def _split(scoring: Scoring, counts: Counts) -> int | None:
    """Most points from splitting ``counts`` into singles, triples and n-of-a-kinds (None: impossible)."""
    if not any(counts):
        return 0
    # Split off a combination containing the lowest face present: every die must belong to one.
    f = next(i for i, c in enumerate(counts) if c)
    face, have = f + 1, counts[f]
    best: int | None = None
    options = []
    if scoring.singles.get(face, 0) > 0:
        options.append((1, scoring.singles[face]))
    if have >= 3 and scoring.triples.get(face, 0) > 0:
        options.append((3, scoring.triples[face]))
    for n in range(4, have + 1):
        v = kind_value(scoring, face, n)
        if v > 0:
            options.append((n, v))
    for used, value in options:
        rest = list(counts)
        rest[f] -= used
        r = _split(scoring, tuple(rest))  # type: ignore[arg-type]
        if r is not None and (best is None or value + r > best):
            best = value + r
    return best


def split_points(scoring: Scoring, counts: Counts) -> int | None:
    """Most points from splitting ``counts`` into singles, triples and n-of-a-kinds (None: they cannot
    all score); what a keep of these dice is worth short of the six-dice combinations."""
    return _split(scoring, counts)


@lru_cache(maxsize=None)
def score_counts(scoring: Scoring, counts: Counts) -> tuple[int | None, bool]:
    """(most points, scored as a straight) for keeping exactly ``counts``; points None = illegal."""
    best = _split(scoring, counts)
    straight = False
    n = sum(counts)
    if scoring.partial_straights and n in (5, 6):
        # a partial straight: five faces in a run from this roll, and the sixth die (if any) scores
        # on its own (docs/rules.md, partial straights); not a straight for permanent_straight
        for run, value in scoring.partial_straights.items():
            faces = [int(d) - 1 for d in str(run)]
            if value <= 0 or any(counts[f] == 0 for f in faces):
                continue
            rest = list(counts)
            for f in faces:
                rest[f] -= 1
            r = _split(scoring, tuple(rest))  # type: ignore[arg-type]
            if r is not None and (best is None or value + r > best):
                best = value + r
    if n == 6:
        shape = sorted(c for c in counts if c)
        specials = []
        if scoring.straight and shape == [1] * 6:
            specials.append((scoring.straight, True))
        if scoring.three_pairs and (
            shape == [2, 2, 2] or (scoring.four_and_pair_is_three_pairs and shape == [2, 4])
        ):
            specials.append((scoring.three_pairs, False))
        if scoring.two_triplets and shape == [3, 3]:
            specials.append((scoring.two_triplets, False))
        for value, is_straight in specials:
            if best is None or value > best:
                best, straight = value, is_straight
    return best, straight


def score_dice(ruleset: Ruleset | Scoring, dice: Sequence[int]) -> int | None:
    """The most points for keeping exactly these dice (in one roll), ``None`` when they cannot all score.

    >>> from zilch_env import load_ruleset
    >>> score_dice(load_ruleset("zonk"), [2, 2, 2, 2, 1, 1])
    1500
    """
    scoring = ruleset.scoring if isinstance(ruleset, Ruleset) else ruleset
    dice = list(dice)
    if len(dice) > 6:
        raise ValueError(f"{len(dice)} dice: at most 6 dice are kept at once")
    return score_counts(scoring, to_counts(dice))[0]


def best_of(keeps: Iterable[Keep]) -> Keep | None:
    """The keep of the most points, ties to more dice, then the lower mask (None among no keeps): the
    keep ``all_scoring`` sets aside and the greedy mover takes. The kernels choose by the same order
    (:func:`zilch_env.engine.keeps._best_keep`, from the table's best keep and, under pyramiding, in order)."""
    return max(keeps, key=lambda k: (k.points, k.n, -k.mask), default=None)


@lru_cache(maxsize=1)
def _roll_subsets() -> tuple[tuple[Counts, ...], tuple[tuple[tuple[int, ...], Counts,
                                                               tuple[tuple[int, int, int], ...]], ...]]:
    """Every set of 1 to 6 kept dice as face counts, and every sorted roll of 1 to 6 dice with its
    face counts and every keep it allows, whatever the scoring: each kept set's index among those
    counts, its number of dice and its canonical mask (for each face, its leftmost positions), sorted
    by mask. The same for every scoring rule, so made once."""
    kept: dict[Counts, int] = {}
    out = []
    for n in range(1, 7):
        for roll in itertools.combinations_with_replacement(range(1, 7), n):
            counts = to_counts(roll)
            first = {}  # face -> first sorted position
            for i, d in enumerate(roll):
                first.setdefault(d, i)
            subs = []
            for sub in itertools.product(*(range(c + 1) for c in counts)):
                k = sum(sub)
                if k == 0:
                    continue
                mask = 0
                for f in range(6):
                    for j in range(sub[f]):
                        mask |= 1 << (first[f + 1] + j)
                subs.append((kept.setdefault(sub, len(kept)), k, mask))  # type: ignore[arg-type]
            subs.sort(key=lambda t: t[2])
            out.append((roll, counts, tuple(subs)))
    return tuple(kept), tuple(out)


class ScoringTable:
    """Every sorted roll of 1 to 6 dice with its legal keeps, for one scoring rule."""

    def __init__(self, scoring: Scoring):
        self.scoring = scoring
        self.rolls: dict[tuple[int, ...], RollInfo] = {}
        kept, rolls = _roll_subsets()
        # the points of a kept set depend on its face counts alone, and each set of counts is a keep of
        # many rolls: scored once here (some 900 sets of at most six dice, against some 75,000 keeps)
        scored = [score_counts(scoring, counts) for counts in kept]
        for roll, counts, subs in rolls:
            self.rolls[roll] = self._roll_info(roll, counts, subs, kept, scored)

    def _roll_info(self, roll: tuple[int, ...], counts: Counts, subs: tuple[tuple[int, int, int], ...],
                   kept: tuple[Counts, ...], scored: list[tuple[int | None, bool]]) -> RollInfo:
        bonus, rolled = self.scoring.hot_dice_bonus, len(roll)
        keeps = []
        for i, n, mask in subs:  # by mask
            points, straight = scored[i]
            if points is None:
                continue
            if n == rolled:  # hot dice: every die rolled is set aside
                points += bonus
            keeps.append(Keep(mask, kept[i], n, points, straight))
        best = best_of(keeps)
        return RollInfo(roll, counts, tuple(keeps), {k.mask: k for k in keeps}, best)

    def info(self, dice: Sequence[int]) -> RollInfo:
        """The roll's entry; ``dice`` in any order."""
        key = tuple(sorted(dice))
        try:
            return self.rolls[key]
        except KeyError:
            raise ValueError(f"roll {list(dice)!r}: expected 1 to 6 dice with faces 1 to 6") from None


@lru_cache(maxsize=64)
def _table(scoring: Scoring) -> ScoringTable:
    return ScoringTable(scoring)


def scoring_table(ruleset: Ruleset | Scoring) -> ScoringTable:
    """The precomputed table for a ruleset's scoring (built once per scoring rule, then cached)."""
    return _table(ruleset.scoring if isinstance(ruleset, Ruleset) else ruleset)


def legal_keeps(ruleset: Ruleset | Scoring, roll: Sequence[int]) -> tuple[Keep, ...]:
    """Every legal keep of a roll with its points (masks over the sorted roll's positions)."""
    return scoring_table(ruleset).info(roll).keeps


# --------------------------------------------------------------------------------------------
# The keeps of a roll within a pass of the dice (pyramiding, the keep rule): the one implementation
# the engine and the loader's playability check both use.


@lru_cache(maxsize=64)
def face_points(scoring: Scoring) -> tuple[int, ...]:
    """The points of ``m`` dice of one face scored alone, entry ``f * 7 + m`` for face index ``f``
    (-1 where they do not score): what pyramiding scores a face's new dice from
    (:func:`zilch_env.rules.primitives.face_gain`; the compiled rules' ``R_FACE_POINTS``)."""
    out = []
    for f in range(6):
        for m in range(7):
            c = [0] * 6
            c[f] = m
            pts = split_points(scoring, tuple(c))  # type: ignore[arg-type]
            out.append(-1 if pts is None else pts)
    return tuple(out)


def _firsts(counts: Sequence[int]) -> list[int]:
    """The sorted position of each face's first die in a roll of these face counts."""
    out, at = [], 0
    for c in counts:
        out.append(at)
        at += c
    return out


def pyramid_keeps(scoring: Scoring, info: RollInfo, frozen: Sequence[int],
                  frozen_points: Sequence[int]) -> tuple[Keep, ...]:
    """Legal keeps of a roll when dice are frozen in this pass (so fewer than all dice were rolled and
    the six-dice combinations cannot occur): each canonical keep scored by
    :func:`zilch_env.rules.primitives.pass_keep`, as the engine's kernels score it."""
    fp = face_points(scoring)
    roll = [(*info.counts, *_firsts(info.counts))]  # the roll's face counts, then first positions
    state = [(*frozen, *frozen_points)]
    rolled = len(info.dice)
    out = []
    for sub in itertools.product(*(range(c + 1) for c in info.counts)):
        mask = 0
        for f in range(6):
            mask |= ((1 << sub[f]) - 1) << roll[0][6 + f]
        pts, n = pass_keep(fp, 0, roll, 0, 0, 6, rolled, state, 0, 0, 6, mask, scoring.hot_dice_bonus, None)
        if pts is not None:
            out.append(Keep(mask, sub, n, pts, False))  # type: ignore[arg-type]
    out.sort(key=lambda k: k.mask)
    return tuple(out)


#: The keep of nothing: after a six-dice zilch bonus (a roll of all the dice in which nothing scores,
#: under ``variants.six_dice_zilch_bonus``) the player keeps no die and banks or rolls all the dice
#: again (docs/rules.md, the six-dice zilch bonus). Action 0 rolls, action 1 banks.
NO_KEEP = Keep(0, (0, 0, 0, 0, 0, 0), 0, 0, False)
BONUS_KEEPS = (NO_KEEP,)


def permanent_straight(ruleset: Ruleset) -> bool:
    """Whether a straight's points survive a zilch under ``ruleset`` (``scoring.permanent_straight``,
    source 000): the rule is on, a straight scores, and there are six dice to roll one. The engine,
    its kernels (through the compiled rules) and the solvers all ask this one function."""
    sc = ruleset.scoring
    return bool(sc.permanent_straight and sc.straight > 0 and ruleset.dice == 6)


def bonus_of(ruleset: Ruleset, info: RollInfo) -> int:
    """The six-dice zilch bonus the roll of ``info`` earns (docs/rules.md): the bonus when it is a roll
    of all the ruleset's dice in which nothing scores and ``variants.six_dice_zilch_bonus`` is on; 0
    otherwise. Such a roll's one keep is :data:`NO_KEEP`."""
    bonus = ruleset.variants.six_dice_zilch_bonus
    return bonus if bonus and not info.keeps and len(info.dice) == ruleset.dice else 0


def pass_keeps(scoring: Scoring, info: RollInfo, frozen: Sequence[int], frozen_points: Sequence[int],
               pyramiding: bool, all_scoring: bool, bonus: bool = False) -> tuple[Keep, ...]:
    """The legal keeps of a roll in the current pass of the dice (docs/rules.md, the keep rule and the
    ``pyramiding`` variant): under ``all_scoring`` the one keep of the most points (ties to more dice).
    ``bonus``: the roll took all the dice under the six-dice zilch bonus, so a roll in which nothing
    scores has the one keep :data:`NO_KEEP` (its bonus joins the turn total, then bank or roll)."""
    if not info.keeps and bonus:
        return BONUS_KEEPS
    if pyramiding and any(frozen):
        keeps = pyramid_keeps(scoring, info, frozen, frozen_points)
        if all_scoring and keeps:
            keeps = (best_of(keeps),)  # type: ignore[assignment]
        return keeps
    if all_scoring:
        return (info.best,) if info.best is not None else ()
    return info.keeps


def pyramid_freeze(scoring: Scoring, keep: Keep, frozen: Sequence[int],
                   frozen_points: Sequence[int]) -> tuple[list[int], list[int]]:
    """Pyramiding bookkeeping: the kept dice join this pass's frozen dice; each face's points become
    its frozen points plus what the new dice added (:func:`zilch_env.rules.primitives.pass_freeze`,
    the keep read as a roll of its own dice, all kept)."""
    state = [[*frozen, *frozen_points]]
    pass_freeze(face_points(scoring), 0, [(*keep.counts, *_firsts(keep.counts))], 0, 0, 6, state, 0, 0, 6,
                (1 << keep.n) - 1)
    return state[0][:6], state[0][6:]
