"""The compiled rules' packed layout: the rule-parameter vector (``R_*``) and the keep table's
columns (``T_*``) that :func:`zilch_env.rules.compile` fills and the engine's kernels and the solvers
read, and the dice codes' rolls (:func:`sorted_rolls_by_code`).

A ruleset's parameters are one int64 vector ``rp`` (:meth:`zilch_env.rules.compiled.CompiledRules.params`),
its keep table one int32 matrix ``tab`` with a row per sorted roll (``CompiledRules.table``).
"""

from __future__ import annotations

import functools

__all__ = [
    "R_DICE", "R_TARGET", "R_ENTRY", "R_MIN_BANK", "R_FORCED", "R_OVERCOMING", "R_PERM_STRAIGHT", "R_BONUS", "R_ZP_COUNT", "R_ZP_POINTS", "R_ZP_MODE", "R_END", "R_TIEBREAK", "R_PLAYERS", "R_MAX_TB", "R_KEYED", "R_PYR", "R_CHALLENGE", "R_PIGGYBACK", "R_ALL_SCORING", "R_CH_SPLIT", "R_CH_COST1", "R_CH_COST2", "R_SPLIT1", "R_FLOOR", "R_TAB", "R_STRAIGHT", "R_SIZE", "CODES", "MAX_KEEPS", "T_NK", "T_BEST", "T_MASK", "T_PTS", "T_N", "T_STR", "T_M2K", "T_LEN", "T_CNT", "T_FIRST", "T_WIDTH", "sorted_rolls_by_code",
]

# Rule parameters
R_DICE = 0
R_TARGET = 1
R_ENTRY = 2
R_MIN_BANK = 3
R_FORCED = 4
R_OVERCOMING = 5
R_PERM_STRAIGHT = 6
R_BONUS = 7
R_ZP_COUNT = 8
R_ZP_POINTS = 9
R_ZP_MODE = 10  # 0 subtract, 1 halve, 2 reset
R_END = 11  # end: 0 others_one_turn, 1 finish_round, 2 instant (rules.schema.ENDS)
R_TIEBREAK = 12
R_PLAYERS = 13
R_MAX_TB = 14
R_KEYED = 15  # dice codes: 0 from the ring buffers (numpy streams); from per-game SplitMix64 keys:
# 1 the game's rolls in order, 2 by turn slot (seat, that seat's turn, roll of the turn)
R_PYR = 16  # pyramiding
R_CHALLENGE = 17  # challenge
R_PIGGYBACK = 18  # piggyback
R_ALL_SCORING = 19  # keep = "all_scoring"
R_CH_SPLIT = 20  # the score that splits the two challenge brackets
R_CH_COST1 = 21  # what a zilch costs the challenger on its first challenge
R_CH_COST2 = 22  # and on its second
R_SPLIT1 = 23  # 6 x 7: points of m dice of one face scored alone (scoring._split), -1 for none
R_FLOOR = R_SPLIT1 + 42  # score_floor: the lowest a penalty takes a banked score (0 or below)
R_TAB = R_FLOOR + 1  # the rules' keep table in the stack ``tabs`` (rulesets of one scoring share one)
R_STRAIGHT = R_TAB + 1  # points of a straight (scoring.straight): what a permanent straight keeps through a zilch
R_SIZE = R_STRAIGHT + 1


#: Dice codes are uniform in [0, 6**6); a roll of n dice uses code % 6**n.
CODES = 6**6

# The packed table ``tab`` (int32, one row per sorted roll; built by zilch_env.rules.compile):
# helpers take one table array instead of seven, because every array passed to a compiled helper
# costs reference counting on each call, which dominated the step time.
MAX_KEEPS = 63  # the most keeps any roll can have: six different faces, every one scoring (2**6 - 1)
T_NK = 0  # legal keeps of the roll (0: a zilch)
T_BEST = 1  # the best keep (all_scoring's keep, the greedy choice), -1 for a zilch
T_MASK = 2  # MAX_KEEPS columns each: canonical mask, points, dice, scored as a straight
T_PTS = T_MASK + MAX_KEEPS
T_N = T_PTS + MAX_KEEPS
T_STR = T_N + MAX_KEEPS
T_M2K = T_STR + MAX_KEEPS  # 64 columns: the keep with this mask, -1 for none
T_LEN = T_M2K + 64  # dice in the roll
T_CNT = T_LEN + 1  # 6 columns: dice showing each face
T_FIRST = T_CNT + 6  # 6 columns: the sorted position of each face's first die (0 when absent)
T_WIDTH = T_FIRST + 6


@functools.lru_cache(maxsize=1)
def sorted_rolls_by_code() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``[n][code]``: the sorted roll of ``n`` dice whose faces are the base-6 digits of ``code``
    (0 <= code < 6**n). Equal rolls are the same tuple object."""
    canon: dict[tuple[int, ...], tuple[int, ...]] = {}
    out: list[tuple[tuple[int, ...], ...]] = [()]
    for n in range(1, 7):
        row = []
        for code in range(6**n):
            faces, c = [], code
            for _ in range(n):
                faces.append(c % 6 + 1)
                c //= 6
            t = tuple(sorted(faces))
            row.append(canon.setdefault(t, t))
        out.append(tuple(row))
    return tuple(out)
