"""``zilch_v2``: the PettingZoo environment under its versioned name, as PettingZoo's classic modules
(``from pettingzoo.classic import tictactoe_v3``) are::

    from zilch_env import zilch_v2

    env = zilch_v2.env(ruleset="zonk", num_players=2)   # wrapped like PettingZoo's classic games
    raw = zilch_v2.raw_env(ruleset="zonk", num_players=2)

The same MDP as the Gymnasium env ``Zilch-v2``: observation layout 4 (516 values, the rules written
out in ``rules_table``, for an agent of any ruleset); the manual is :class:`zilch_env.envs.aec.raw_env`.
"""

from __future__ import annotations

from zilch_env.envs import aec

__all__ = ["env", "raw_env", "OBS_VERSION"]

#: The observation layout this version pins.
OBS_VERSION = 4

env, raw_env = aec.pinned(OBS_VERSION)
