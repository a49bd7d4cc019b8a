"""The actions every component shares, and what is refused.

Actions are small integers, the same flat layout the Gymnasium environment uses:

* ``0 .. 127`` -- after a roll (shown sorted): ``mask * 2 + bank``, where bit *i* of ``mask`` keeps the
  die at sorted position *i*, and ``bank`` is 1 to bank after keeping, 0 to roll the remaining dice
  (all of them again after hot dice). :func:`keep_action` and :func:`split_keep_action` convert.
* ``128`` ``FRESH`` / ``129`` ``PIGGYBACK`` -- at turn start under ``piggyback``: roll six fresh dice, or
  take over the previous player's banked turn total and remaining dice.
* ``130`` ``NO_CHALLENGE`` / ``131 + k - 1`` -- at turn start under ``challenge``: no challenge, or
  challenge the opponent *k* seats after you (k = 1 .. 5)."""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Sequence
import numpy as np


MAX_PLAYERS = 6
KEEP_ACTIONS = 128
FRESH = 128
PIGGYBACK = 129
NO_CHALLENGE = 130
CHALLENGE_BASE = 131
NUM_ACTIONS = CHALLENGE_BASE + MAX_PLAYERS - 1  # 136



class Phase(IntEnum):
    """What the player to move decides now."""

    CHALLENGE = 0  # turn start: challenge an opponent or not
    PIGGYBACK = 1  # turn start: take over the previous player's banked turn or roll fresh
    KEEP = 2  # after a scoring roll: the keep, then bank or roll
    OVER = 3  # the game has ended


class IllegalActionError(ValueError):
    """An action the rules forbid in this state; the message names the rule. The state is unchanged."""


class RecordError(ValueError):
    """A game record that cannot be replayed: the message names what is missing, malformed or differs."""


def action_number(action: Any) -> int | None:
    """``action`` as an ``int`` when it is an action number (a Python or NumPy integer, not a bool,
    0 to :data:`NUM_ACTIONS` - 1), else ``None``. :meth:`GameState.apply`, :meth:`GameState.why_illegal`
    and the environments all read actions through this one rule."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return None
    a = int(action)
    return a if 0 <= a < NUM_ACTIONS else None


def player_count(num_players: Any) -> int:
    """``num_players`` as an ``int`` when it is a player count (an integer 1 to 6, not a bool); else a
    :class:`ValueError` naming the value. Every game, environment and tool checks counts through it."""
    if (isinstance(num_players, (bool, np.bool_)) or not isinstance(num_players, (int, np.integer))
            or not 1 <= num_players <= MAX_PLAYERS):
        raise ValueError(f"num_players = {num_players!r}: a game has 1 to {MAX_PLAYERS} players (a whole number)")
    return int(num_players)


def keep_action(mask: int, bank: bool) -> int:
    """The action that keeps the dice at the sorted positions in ``mask`` and then banks or rolls."""
    return mask * 2 + int(bool(bank))


def split_keep_action(action: int) -> tuple[int, bool]:
    """``(mask, bank)`` of a keep action."""
    return action >> 1, bool(action & 1)


def mask_of(roll: Sequence[int], dice: Sequence[int]) -> int:
    """The canonical mask that keeps ``dice`` (faces) from a sorted ``roll``: each face's leftmost positions."""
    mask, used = 0, [False] * len(roll)
    for d in dice:
        for i, r in enumerate(roll):
            if r == d and not used[i]:
                used[i] = True
                mask |= 1 << i
                break
        else:
            raise ValueError(f"cannot keep {list(dice)!r}: the roll {list(roll)!r} lacks a {d}")
    return mask


