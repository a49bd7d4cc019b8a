"""``zilch_v1``: the PettingZoo environment under its versioned name, as PettingZoo's classic modules
(``from pettingzoo.classic import tictactoe_v3``) are::

    from zilch_env import zilch_v1

    env = zilch_v1.env(ruleset="zonk", num_players=2)   # wrapped like PettingZoo's classic games
    raw = zilch_v1.raw_env(ruleset="zonk", num_players=2)

The same MDP as the Gymnasium env ``Zilch-v1``; the manual is :class:`zilch_env.aec.raw_env`.
"""

from .aec import env, raw_env

__all__ = ["env", "raw_env"]
