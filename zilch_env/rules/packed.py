"""The compiled rules' packed layout: the rule-parameter vector (``R_*``) and the keep table's
columns (``T_*``) that :func:`zilch_env.rules.compile` fills and the engine's kernels and the solvers
read, and the dice codes' rolls (:func:`sorted_rolls_by_code`).

A ruleset's parameters are one int64 vector ``rp`` (:meth:`zilch_env.rules.compiled.CompiledRules.params`),
its keep table one int32 matrix ``tab`` with a row per sorted roll (``CompiledRules.table``).
"""

from __future__ import annotations

import functools

__all__ = [
    "R_DICE", "R_TARGET", "R_ENTRY_THRESHOLD", "R_MIN_BANK", "R_FORCED_HOT_DICE", "R_OVERCOMING",
    "R_PERMANENT_STRAIGHT", "R_SIX_DICE_BONUS", "R_ZILCH_PENALTY_COUNT", "R_ZILCH_PENALTY_POINTS",
    "R_ZILCH_PENALTY_MODE", "R_END", "R_TIEBREAK", "R_PLAYERS", "R_MAX_TIEBREAK_ROUNDS", "R_DICE_SOURCE",
    "R_PYRAMIDING", "R_CHALLENGE", "R_PIGGYBACK", "R_ALL_SCORING", "R_CHALLENGE_SPLIT",
    "R_CHALLENGE_COST_FIRST", "R_CHALLENGE_COST_SECOND", "R_FACE_POINTS", "R_SCORE_FLOOR", "R_KEEP_TABLE",
    "R_STRAIGHT", "R_HOT_DICE_BONUS", "R_SIZE", "COPIED", "param_names", "CODES", "MAX_KEEPS", "T_KEEP_COUNT", "T_BEST_KEEP", "T_KEEP_MASK",
    "T_KEEP_POINTS", "T_KEEP_DICE", "T_KEEP_STRAIGHT", "T_KEEP_OF_MASK", "T_ROLL_DICE", "T_FACE_COUNT",
    "T_FACE_FIRST", "T_WIDTH", "sorted_rolls_by_code",
]

# Rule parameters
R_DICE = 0
R_TARGET = 1
R_ENTRY_THRESHOLD = 2
R_MIN_BANK = 3
R_FORCED_HOT_DICE = 4
R_OVERCOMING = 5
R_PERMANENT_STRAIGHT = 6
R_SIX_DICE_BONUS = 7
R_ZILCH_PENALTY_COUNT = 8
R_ZILCH_PENALTY_POINTS = 9
R_ZILCH_PENALTY_MODE = 10  # 0 subtract, 1 halve, 2 reset
R_END = 11  # end: 0 others_one_turn, 1 finish_round, 2 instant (rules.schema.ENDS)
R_TIEBREAK = 12
R_PLAYERS = 13
R_MAX_TIEBREAK_ROUNDS = 14
R_DICE_SOURCE = 15  # dice codes: 0 from the ring buffers (numpy streams); from per-game SplitMix64 keys:
# 1 the game's rolls in order, 2 by turn slot (seat, that seat's turn, roll of the turn)
R_PYRAMIDING = 16  # pyramiding
R_CHALLENGE = 17  # challenge
R_PIGGYBACK = 18  # piggyback
R_ALL_SCORING = 19  # keep = "all_scoring"
R_CHALLENGE_SPLIT = 20  # the score that splits the two challenge brackets
R_CHALLENGE_COST_FIRST = 21  # what a zilch costs the challenger on its first challenge
R_CHALLENGE_COST_SECOND = 22  # and on its second
R_FACE_POINTS = 23  # 6 x 7: points of m dice of one face scored alone (scoring._split), -1 for none
R_SCORE_FLOOR = R_FACE_POINTS + 42  # score_floor: the lowest a penalty takes a banked score (0 or below)
R_KEEP_TABLE = R_SCORE_FLOOR + 1  # the rules' keep table in the stack ``tabs`` (rulesets of one scoring share one)
R_STRAIGHT = R_KEEP_TABLE + 1  # points of the keep of a straight (roll 1-6): what a permanent straight keeps through a zilch
R_HOT_DICE_BONUS = R_STRAIGHT + 1  # scoring.hot_dice_bonus: what a keep of every die rolled adds
R_SIZE = R_HOT_DICE_BONUS + 1

#: The parameters that hold one ruleset value as it is (true and false as 1 and 0), by dotted key:
#: :func:`zilch_env.rules.compile` copies them from the ruleset, so such a parameter needs its
#: ``R_*`` index above and its line here. The others are derived (:meth:`CompiledRules.params`).
COPIED = {
    R_DICE: "dice", R_TARGET: "target", R_ENTRY_THRESHOLD: "entry_threshold", R_MIN_BANK: "min_bank",
    R_SCORE_FLOOR: "score_floor", R_HOT_DICE_BONUS: "scoring.hot_dice_bonus", R_OVERCOMING: "variants.overcoming",
    R_PYRAMIDING: "variants.pyramiding", R_CHALLENGE: "variants.challenge", R_PIGGYBACK: "variants.piggyback",
    R_SIX_DICE_BONUS: "variants.six_dice_zilch_bonus", R_ZILCH_PENALTY_COUNT: "variants.zilch_penalty.count",
    R_ZILCH_PENALTY_POINTS: "variants.zilch_penalty.points",
}



def param_names() -> tuple[str, ...]:
    """The name of each entry of the rule-parameter vector, by index (``R_FACE_POINTS+k`` for the
    entries of that block): what a file that stores a vector names its entries by, so that a reader
    with another layout can match them."""
    names = [""] * R_SIZE
    for name, value in globals().items():
        if name.startswith("R_") and name != "R_SIZE" and isinstance(value, int):
            names[value] = name
    for k in range(1, 42):
        names[R_FACE_POINTS + k] = f"R_FACE_POINTS+{k}"
    return tuple(names)


#: Dice codes are uniform in [0, 6**6); a roll of n dice uses code % 6**n.
CODES = 6**6

# The packed table ``tab`` (int32, one row per sorted roll; built by zilch_env.rules.compile):
# helpers take one table array instead of seven, because every array passed to a compiled helper
# costs reference counting on each call, which dominated the step time.
MAX_KEEPS = 63  # the most keeps any roll can have: six different faces, every one scoring (2**6 - 1)
T_KEEP_COUNT = 0  # legal keeps of the roll (0: a zilch)
T_BEST_KEEP = 1  # the best keep (all_scoring's keep, the greedy choice), -1 for a zilch
T_KEEP_MASK = 2  # MAX_KEEPS columns each: canonical mask, points, dice, scored as a straight
T_KEEP_POINTS = T_KEEP_MASK + MAX_KEEPS
T_KEEP_DICE = T_KEEP_POINTS + MAX_KEEPS
T_KEEP_STRAIGHT = T_KEEP_DICE + MAX_KEEPS
T_KEEP_OF_MASK = T_KEEP_STRAIGHT + MAX_KEEPS  # 64 columns: the keep with this mask, -1 for none
T_ROLL_DICE = T_KEEP_OF_MASK + 64  # dice in the roll
T_FACE_COUNT = T_ROLL_DICE + 1  # 6 columns: dice showing each face
T_FACE_FIRST = T_FACE_COUNT + 6  # 6 columns: the sorted position of each face's first die (0 when absent)
T_WIDTH = T_FACE_FIRST + 6


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
