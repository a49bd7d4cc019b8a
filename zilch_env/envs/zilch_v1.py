"""``zilch_v1``: the PettingZoo environment under its versioned name, as PettingZoo's classic modules
(``from pettingzoo.classic import tictactoe_v3``) are::

    from zilch_env import zilch_v1

    env = zilch_v1.env(ruleset="zonk", num_players=2)   # wrapped like PettingZoo's classic games
    raw = zilch_v1.raw_env(ruleset="zonk", num_players=2)

The same MDP as the Gymnasium env ``Zilch-v1``: observation layout 3 (471 values); the manual is
:class:`zilch_env.envs.aec.raw_env`. ``zilch_v2`` is the same game with layout 4 (the rules written out).
"""

from __future__ import annotations

from zilch_env.envs import aec

__all__ = ["env", "raw_env", "OBS_VERSION"]

#: The observation layout this version pins.
OBS_VERSION = 3

env, raw_env = aec.pinned(OBS_VERSION)
