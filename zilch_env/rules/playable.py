"""Whether a game can end under a ruleset: the loader refuses rules under which it cannot.

A game ends when a player's score reaches the target, and scores only grow by the points a turn
records: a bank, or a permanent straight kept before a zilch. So a ruleset is playable to an end
exactly when

1. **a first roll can score** (or, under the six-dice zilch bonus, earn the bonus, which may be
   banked); and
2. **a player can get on the board**: some turn, from its first roll, can record at least the entry
   threshold (and at least one point); and
3. **the target can be reached**: once on the board some turn can record at least the minimum bank
   (and at least one point), or a first turn can already record the target; and a score on the
   board can keep what it records (not when its only records are permanent straights at a zilch and
   every zilch resets the score: zilch penalty count 1, mode reset).

"Can" means with positive probability for some sequence of rolls and choices: every roll of ``n``
dice has positive probability, so this is reachability over the turn's states, computed exactly
from the same keep functions the engine plays with (:func:`~zilch_env.rules.scoring.pass_keeps`,
:func:`~zilch_env.rules.scoring.pyramid_freeze`). Overcoming never blocks: the bar after a zilch is 0, and
a zilch is always possible where turn totals are bounded. Challenges and zilch penalties only take
points away from scores that can grow again. ``docs/rules.md`` ("Rulesets the loader refuses")
states the same condition for users.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import NamedTuple

from zilch_env.rules.schema import Ruleset, Scoring
from zilch_env.rules.primitives import bank_need, may_bank
from zilch_env.rules.scoring import pass_keeps, pyramid_freeze, scoring_table

NEVER = -math.inf


class TurnReach(NamedTuple):
    """What one turn can do under a ruleset's turn rules (thresholds aside)."""

    first_roll_scores: bool  # some roll of all the dice has a keep
    most_banked: float  # the most points a legal bank can take (math.inf: no bound; NEVER: no bank)
    permanent_route: bool  # a permanent straight can be kept and then a zilch record it (no bound)


def _rolls(n: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations_with_replacement(range(1, 7), n))


@lru_cache(maxsize=256)
def turn_reach(scoring: Scoring, dice: int, hot_dice: str, keep: str, pyramiding: bool,
               bonus: int) -> TurnReach:
    """Exact reachability over one turn: the most a bank can take and whether a permanent straight
    can be recorded, for the rules that shape a turn (the thresholds are applied by the caller)."""
    table = scoring_table(scoring)
    forced, all_scoring = hot_dice == "forced", keep == "all_scoring"
    zero = (0,) * 6
    memo: dict[tuple, tuple[float, float, bool, bool]] = {}

    def pass_from(k: int, frozen: tuple[int, ...], points: tuple[int, ...]) -> tuple[float, float, bool, bool]:
        """From rolling ``k`` dice in a pass: (most gained at a legal bank, most gained on reaching
        hot dice, a zilch is reachable, a permanent straight keep is reachable) within this pass."""
        key = (k, frozen, points) if pyramiding else (k,)
        if key in memo:
            return memo[key]
        bank = hot = NEVER
        zilch = straight = False
        # which keeps may bank by the rule alone: the thresholds are applied by the caller
        need, no_bank_n = bank_need(-(1 << 62), 0, k, forced)
        for roll in _rolls(k):
            keeps = pass_keeps(scoring, table.rolls[roll], frozen, points, pyramiding, all_scoring)
            if not keeps:
                if k == dice and bonus:
                    # the six-dice zilch bonus, then the keep of nothing: bank it, or roll all again
                    bank, hot = max(bank, bonus), max(hot, bonus)
                else:
                    zilch = True
                continue
            for kp in keeps:
                left = k - kp.n
                straight |= kp.straight
                if may_bank(kp.points, kp.n, need, no_bank_n):
                    bank = max(bank, kp.points)
                if left == 0:  # hot dice: the next roll starts a new pass with all the dice
                    hot = max(hot, kp.points)
                    continue
                nf, np_ = (pyramid_freeze(scoring, kp, frozen, points) if pyramiding else (frozen, points))
                b, h, z, s = pass_from(left, tuple(nf), tuple(np_))
                bank, hot = max(bank, kp.points + b), max(hot, kp.points + h)
                zilch, straight = zilch or z, straight or s
        memo[key] = bank, hot, zilch, straight
        return memo[key]

    first_scores = bonus > 0 or any(table.rolls[r].keeps for r in _rolls(dice))
    if not first_scores:
        return TurnReach(False, NEVER, False)
    bank, hot, zilch, straight = pass_from(dice, zero, zero)
    # a pass that returns to all the dice with points (hot dice, or the bonus) can repeat
    most = math.inf if hot > 0 and bank > NEVER else bank
    permanent = scoring.permanent_straight and straight and zilch
    return TurnReach(True, most, permanent)


def why_unplayable(rs: Ruleset) -> str | None:
    """Why no game under ``rs`` can end (the reason, in a sentence), or ``None`` when one can."""
    v = rs.variants
    if v.pyramiding:
        # Pyramiding only adds keeps to a pass, so a bank the plain rules allow is allowed with it:
        # the cheaper search without it settles every ruleset whose banks alone make it playable.
        plain = turn_reach(rs.scoring, rs.dice, rs.hot_dice, rs.keep, False, v.six_dice_zilch_bonus)
        if _reason(rs, plain._replace(permanent_route=False)) is None:
            return None
    return _reason(rs, turn_reach(rs.scoring, rs.dice, rs.hot_dice, rs.keep, v.pyramiding,
                                  v.six_dice_zilch_bonus))


def _reason(rs: Ruleset, reach: TurnReach) -> str | None:
    v = rs.variants
    dice = f"{rs.dice} {'die' if rs.dice == 1 else 'dice'}"
    if not reach.first_roll_scores:
        return f"no roll of all {dice} scores, so every turn is a zilch and no score can grow"
    most, perm = reach.most_banked, reach.permanent_route
    if most == NEVER and not perm:
        return (f"no turn can ever bank: with hot_dice = 'forced' every keep of {dice} sets all the dice "
                f"aside, and they must be rolled again")
    shown = {math.inf: "without bound", NEVER: "nothing"}.get(most) or f"{int(most)} points"
    entry, floor, target = rs.entry_threshold, max(1, rs.min_bank), rs.target
    if entry and not perm and most < entry:
        return (f"no player can get on the board: the most a turn can bank is {shown}, below "
                f"entry_threshold = {entry}")
    zp = v.zilch_penalty
    if (perm and most < floor and zp.count == 1 and zp.mode == "reset"
            and not (entry and most >= max(entry, target))):
        # the only way to record points on the board is a zilch, and every such zilch is penalised
        return (f"once on the board every turn ends in a zilch (no bank reaches min_bank = {rs.min_bank}; "
                f"the most a turn can bank is {shown}), and zilch_penalty count = 1, mode = 'reset' "
                f"returns the score to 0 at each: no score can grow")
    if not perm and most < floor and not (entry and most >= max(entry, target)):
        return (f"the target cannot be reached: once on the board a turn must bank at least "
                f"min_bank = {rs.min_bank}, more than the most a turn can bank ({shown}), and no first "
                f"turn reaches target = {target}")
    return None
