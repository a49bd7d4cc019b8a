"""The state of a game as the engine's kernels hold it: one row of int64 columns per game, every column
named and commented here, with the rule parameters (``R_*``), the phases, the turn-start actions and the
packed keep table (``T_*``) they read.

A batch of games is an ``int64`` matrix ``st`` of shape ``(games, WIDTH)``: game ``b`` is the row
``st[b]``. Per-seat fields take six columns (``SCORE + seat``). The rule parameters of a game are the
row ``rps[st[b, RULES_ROW]]`` (``R_*``: :meth:`zilch_env.rules.compiled.CompiledRules.params`), and its keep
table ``tabs[rp[R_KEEP_TABLE]]`` (``T_*``: one row per sorted roll). :class:`zilch_env.engine.batched.BatchedGames`
reads and writes these columns by name, never by number.
"""

from __future__ import annotations

# The rule parameters (R_*) and the keep table's columns (T_*) are the compiled rules' layout
# (zilch_env.rules.packed); the kernels read them with the state's columns, from here.
from zilch_env.rules.packed import *  # noqa: F401,F403

# State columns (one row per game)

CURRENT = 0  # the seat to move
FIRST_SEAT = 1  # the seat that started the game
PHASE = 2  # KEEP, OVER or PENDING
ROLL = 3  # index of the current sorted roll in the tables, -1 for none
DICE_LEFT = 4  # dice in the current roll, or to roll next
TURN_TOTAL = 5  # turn total
PERMANENT = 6  # permanent points of this turn
LAST_RESULT = 7  # what the previous turn recorded (overcoming bar)
FINAL_QUEUE_ON = 8  # 1 once the final queue exists (the target was reached, or tie-break turns)
FINAL_QUEUE_POS = 9  # the queue is FINAL_QUEUE[FINAL_QUEUE_POS:FINAL_QUEUE_END]
FINAL_QUEUE_END = 10
TIEBREAK_SEATS = 11  # tie-break players as a seat bit mask, 0 = no tie-break
TIEBREAK_ROUND = 12  # tie-break rounds started
WINNER_SEATS = 13  # winners as a seat bit mask once over
TURNS = 14  # completed turns, all players
DECISIONS = 15  # actions applied
DICE_READ = 16  # dice codes read from this game's ring buffer
DICE_WRITTEN = 17  # dice codes written to it
SCORE = 18  # 6 columns each: per seat
ON_BOARD = 24
ZILCH_STREAK = 30
FINAL_QUEUE = 36
SEAT_TURNS = 42  # per seat: turns played, points recorded, turns ended by a zilch
SEAT_POINTS = 48
SEAT_ZILCHES = 54
TURN_ROLLS = 60  # rolls made so far in this turn (slot dice)
FROZEN = 61  # 6 columns: pyramiding, dice of each face frozen (kept) earlier in this pass of the dice
FROZEN_POINTS = 67  # 6 columns: the points those frozen dice scored, by face
FROZEN_DICE = 73  # dice frozen in this pass in all (0: the roll's keeps are the table's)
CHALLENGED = 74  # challenge: the seat challenged this turn, -1 for none
CHALLENGES_USED = 75  # 6 columns: challenges each seat has declared
CHALLENGE_BRACKETS = 81  # 6 columns: the challenge brackets each seat has used (bit 0 below the split, bit 1 at or above)
OFFER_ON = 87  # piggyback: 1 when the previous player's bank is on offer
OFFER_TOTAL = 88  # the offer's turn total
OFFER_DICE = 89  # the offer's dice to roll
OFFER_FROZEN = 90  # 6 columns: the offer's frozen dice by face (its pass goes on under pyramiding)
OFFER_FROZEN_POINTS = 96  # 6 columns: their points
PIGGYBACKED = 102  # 1 when this turn took over the offer
RULES_ROW = 103  # the game's rules: its row of the stacked rule parameters and keep tables (kept by a new game)
# The last turn that ended, as its end left it (written by the end of every turn; the single-game view
# GameState reads its turn summaries and typed events from these columns)
END_SEAT = 104  # the seat that played it
END_BANKED = 105  # 1 when banked, 0 when it ended in a zilch
END_TOTAL = 106  # its turn total
END_SCORE = 107  # the seat's banked score after it
END_CHALLENGED = 108  # the seat it challenged, -1 for none
END_PIGGYBACKED = 109  # 1 when it took over the previous player's offer
END_TAKEN = 110  # challenge: the points a bank took from the challenged seat
END_COST = 111  # challenge: what a zilch cost the challenger
END_PENALISED = 112  # 1 when the zilch penalty struck
END_PENALTY = 113  # the points the penalty took (down to the score floor)
WIDTH = 114

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
NOT_A_KEEP = -(1 << 62)

#: The fused play loop stops when a game has fewer dice codes than this left (Python refills).
#: Each game's codes are a ring buffer (a row of ``dbuf``) of two blocks, a power of two in all.
MARGIN = 64
