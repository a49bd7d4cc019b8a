"""The engine: the game played under a ruleset, for one game or for thousands.

- :mod:`~zilch_env.engine.game`: :class:`GameState`, one game stepped action by action, and its
  record; :mod:`~zilch_env.engine.records`: :func:`replay` and :class:`Match`;
  :mod:`~zilch_env.engine.actions`: the action numbering every component shares.
- :mod:`~zilch_env.engine.batched`: :class:`~zilch_env.engine.batched.BatchedGames`, many games stepped
  together over arrays by the numba kernels of :mod:`~zilch_env.engine.kernels` (the turn flow) and
  :mod:`~zilch_env.engine.play_kernels` (legal masks, whole decisions and games, the observation).
- :mod:`~zilch_env.engine.dice`, :mod:`~zilch_env.engine.splitmix`: where the dice come from.
- :mod:`~zilch_env.engine.text`: a ruleset and a game in words.

The many-game view is imported from its module (``from zilch_env.engine.batched import BatchedGames``),
so that importing the engine does not load the compiled kernels.
"""

from zilch_env.engine.dice import RandomDice, ScriptedDice
from zilch_env.engine.actions import (CHALLENGE_BASE, FRESH, MAX_PLAYERS, NO_CHALLENGE, NUM_ACTIONS, PIGGYBACK,
                                      IllegalActionError, Phase, RecordError, keep_action, mask_of,
                                      split_keep_action)
from zilch_env.engine.game import GameState
from zilch_env.engine.records import Match, replay

__all__ = [
    "CHALLENGE_BASE", "FRESH", "MAX_PLAYERS", "NO_CHALLENGE", "NUM_ACTIONS", "PIGGYBACK", "GameState",
    "IllegalActionError", "Match", "Phase", "RandomDice", "RecordError", "ScriptedDice", "keep_action",
    "mask_of", "replay", "split_keep_action",
]
