"""zilch-rl: the Zilch / Farkle / 10000 / Zonk dice-game family as data, one engine over it, and
Gymnasium / PettingZoo environments on that engine.

>>> import zilch_env
>>> rs = zilch_env.load_ruleset("zonk", {"target": 20000})
>>> zilch_env.scoring.score_dice(rs, [2, 2, 2, 2, 1, 1])
1500
"""

from . import scoring
from .engine import (
    CHALLENGE_BASE,
    FRESH,
    NO_CHALLENGE,
    NUM_ACTIONS,
    PIGGYBACK,
    GameState,
    IllegalActionError,
    Match,
    Phase,
    RandomDice,
    RecordError,
    ScriptedDice,
    keep_action,
    mask_of,
    new_game,
    replay,
    split_keep_action,
)
from .policy import GreedyMover, Policy, RandomMover, play_game
from .ruleset import PRESETS, Ruleset, RulesetError, load_ruleset, loads_ruleset, ruleset_to_toml
from .scoring import legal_keeps, score_dice, scoring_table

__all__ = [
    "CHALLENGE_BASE", "FRESH", "NO_CHALLENGE", "NUM_ACTIONS", "PIGGYBACK", "PRESETS",
    "GameState", "GreedyMover", "IllegalActionError", "Match", "Phase", "Policy", "RandomDice",
    "RandomMover", "RecordError", "Ruleset", "RulesetError", "ScriptedDice", "keep_action", "legal_keeps",
    "load_ruleset", "loads_ruleset", "mask_of", "new_game", "play_game", "replay",
    "ruleset_to_toml", "score_dice", "scoring", "scoring_table", "split_keep_action",
]

# Environments (issue 3): the Gymnasium env registered as Zilch-v0, the PettingZoo AEC env, and the
# observation encoder both share.
import gymnasium as _gym

from .aec import aec_env
from .env import ZilchEnv
from .observation import OBS_SIZE, observe

if "Zilch-v0" not in _gym.registry:
    _gym.register(id="Zilch-v0", entry_point="zilch_env.env:ZilchEnv")
__all__ += ["OBS_SIZE", "ZilchEnv", "aec_env", "observe"]
