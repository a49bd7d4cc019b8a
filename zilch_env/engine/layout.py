"""The state of a game as the engine's kernels hold it: one row of int64 columns per game, every column
named and commented here, with the rule parameters (``R_*``), the phases, the turn-start actions and the
packed keep table (``T_*``) they read.

A batch of games is an ``int64`` matrix ``st`` of shape ``(games, WIDTH)``: game ``b`` is the row
``st[b]``. Per-seat fields take six columns (``SCORE + seat``). The rule parameters of a game are the
row ``rps[st[b, RID]]`` (``R_*``: :meth:`zilch_env.rules.compiled.CompiledRules.params`), and its keep
table ``tabs[rp[R_TAB]]`` (``T_*``: one row per sorted roll). :class:`zilch_env.engine.batched.BatchedGames`
reads and writes these columns by name, never by number.
"""

from __future__ import annotations

# State columns (one row per game)

CUR = 0  # the seat to move
FIRST = 1  # the seat that started the game
PHASE = 2  # KEEP, OVER or PENDING
ROLL = 3  # index of the current sorted roll in the tables, -1 for none
LEFT = 4  # dice in the current roll, or to roll next
TOTAL = 5  # turn total
PERM = 6  # permanent points of this turn
LAST = 7  # what the previous turn recorded (overcoming bar)
FQ_ON = 8  # 1 once the final queue exists (the target was reached, or tie-break turns)
FQ_POS = 9  # the queue is FQ[FQ_POS:FQ_LEN]
FQ_LEN = 10
TB_MASK = 11  # tie-break players as a seat bit mask, 0 = no tie-break
TB_ROUND = 12  # tie-break rounds started
WIN_MASK = 13  # winners as a seat bit mask once over
TURNS = 14  # completed turns, all players
DECISIONS = 15  # actions applied
DPOS = 16  # dice codes read from this game's ring buffer
DFILL = 17  # dice codes written to it
SCORE = 18  # 6 columns each: per seat
ONB = 24
STREAK = 30
FQ = 36
P_TURNS = 42  # per seat: turns played, points recorded, turns ended by a zilch
P_POINTS = 48
P_ZILCH = 54
RIT = 60  # rolls made so far in this turn (slot dice)
FZ = 61  # 6 columns: pyramiding, dice of each face frozen (kept) earlier in this pass of the dice
FZP = 67  # 6 columns: the points those frozen dice scored, by face
FZN = 73  # dice frozen in this pass in all (0: the roll's keeps are the table's)
CHAL = 74  # challenge: the seat challenged this turn, -1 for none
CH_USED = 75  # 6 columns: challenges each seat has declared
CH_BR = 81  # 6 columns: the challenge brackets each seat has used (bit 0 below the split, bit 1 at or above)
OF_ON = 87  # piggyback: 1 when the previous player's bank is on offer
OF_TOTAL = 88  # the offer's turn total
OF_DICE = 89  # the offer's dice to roll
OF_FZ = 90  # 6 columns: the offer's frozen dice by face (its pass goes on under pyramiding)
OF_FZP = 96  # 6 columns: their points
PIGGY = 102  # 1 when this turn took over the offer
RID = 103  # the game's rules: its row of the stacked rule parameters and keep tables (kept by a new game)
WIDTH = 104

# Phases (the values of engine.Phase, plus the internal "a roll is due"); a decision is due in
# CHALLENGE, PIGGYBACK and KEEP, so "deciding" is ``phase <= KEEP``.
CHALLENGE = 0
PIGGYBACK = 1
KEEP = 2
OVER = 3
PENDING = 4

# Turn-start actions (engine.FRESH, PIGGYBACK, NO_CHALLENGE, CHALLENGE_BASE)
A_FRESH = 128
A_PIGGYBACK = 129
A_NO_CHALLENGE = 130
A_CHALLENGE = 131
#: A keep that is no keep (pyramiding points of an impossible face choice).
NONE = -(1 << 62)

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

#: The fused play loop stops when a game has fewer dice codes than this left (Python refills).
#: Each game's codes are a ring buffer (a row of ``dbuf``) of two blocks, a power of two in all.
MARGIN = 64
#: Dice codes are uniform in [0, 6**6); a roll of n dice uses code % 6**n.
CODES = 6**6

# The packed table ``tab`` (int32, one row per sorted roll; built by zilch_env.engine.batched.batch_tables):
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
