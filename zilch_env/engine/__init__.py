"""The engine: the game played under a ruleset, for one game or for thousands, by one turn flow.

- :mod:`~zilch_env.engine.layout`: the state of a game, one row of int64 columns, every column named
  and commented; :mod:`~zilch_env.engine.kernels`: the turn flow over that state, in numba, written
  once; :mod:`~zilch_env.engine.decisions`: a game's legal actions and keeps listed, and the kernels
  of the single-game view.
- Two views over the same state and kernels: :mod:`~zilch_env.engine.game`: :class:`GameState`, one
  game stepped action by action, with its record and turn summaries; :mod:`~zilch_env.engine.batched`:
  :class:`~zilch_env.engine.batched.BatchedGames`, many games stepped together (with
  :mod:`~zilch_env.engine.batch_kernels`: every game's legal mask and observation).
- :mod:`~zilch_env.engine.observation`: a game seen from a seat, as the numbers every environment
  observes (its layout, field by field, and its bounds).
- :mod:`~zilch_env.engine.records`: :func:`replay` and :class:`Match`; :mod:`~zilch_env.engine.actions`:
  the action numbering every component shares.
- :mod:`~zilch_env.engine.dice`, :mod:`~zilch_env.engine.splitmix`: where the dice come from.
- :mod:`~zilch_env.engine.text`: a ruleset and a game in words.

The agents that decide in compiled code are :mod:`zilch_env.players.agent_kernels`: the engine steps,
agents decide; the many-game view seats them (``play_to_end``), so :mod:`zilch_env.players` stands
beside the engine, under the environments. The layers, each importing only those before it:
:mod:`zilch_env.rules`, then :mod:`zilch_env.engine` with :mod:`zilch_env.players`, then
:mod:`zilch_env.envs` (``tests/test_layout.py`` checks it). The many-game view is imported from its
module (``from zilch_env.engine.batched import BatchedGames``).
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
