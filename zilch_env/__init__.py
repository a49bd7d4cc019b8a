"""zilch-rl: the Zilch / Farkle / 10000 / Zonk dice-game family as data, one engine over it, and
Gymnasium / PettingZoo environments on that engine.

>>> import zilch_env
>>> rs = zilch_env.load_ruleset("zonk", {"target": 20000})
>>> zilch_env.rules.scoring.score_dice(rs, [2, 2, 2, 2, 1, 1])
1500
"""

#: The package version, the one source of it: pyproject.toml reads it from here
#: (``[tool.setuptools.dynamic]``), and ``importlib.metadata.version("zilch-rl")`` agrees.
__version__ = "0.3.0"

from zilch_env.rules import scoring
from zilch_env.engine import (CHALLENGE_BASE, FRESH, NO_CHALLENGE, NUM_ACTIONS, PIGGYBACK, GameState,
                              IllegalActionError, Match, Phase, RandomDice, RecordError, ScriptedDice, keep_action,
                              mask_of, replay, split_keep_action)
from zilch_env.players import GreedyMover, Policy, RandomMover, play_game
from zilch_env.rules.schema import PRESETS, Ruleset, RulesetError, UnsupportedRulesError
from zilch_env.rules.load import load_ruleset, loads_ruleset, ruleset_fingerprint, ruleset_to_toml
from zilch_env.rules.scoring import legal_keeps, score_dice, scoring_table

__all__ = [
    "CHALLENGE_BASE", "FRESH", "NO_CHALLENGE", "NUM_ACTIONS", "PIGGYBACK", "PRESETS",
    "GameState", "GreedyMover", "IllegalActionError", "Match", "Phase", "Policy", "RandomDice",
    "RandomMover", "RecordError", "Ruleset", "RulesetError", "UnsupportedRulesError", "ScriptedDice", "keep_action", "legal_keeps",
    "load_ruleset", "loads_ruleset", "mask_of", "play_game", "replay",
    "ruleset_fingerprint", "ruleset_to_toml", "score_dice", "scoring", "scoring_table", "split_keep_action",
]

# Environments: the Gymnasium env registered as Zilch-v1 (pinned) and Zilch-v0 (its first id), the
# PettingZoo AEC env (zilch_v1.env / aec_env), and the observation encoder both share.
import gymnasium as _gym

from zilch_env.envs import zilch_v1, zilch_v2
from zilch_env.envs.aec import aec_env
from zilch_env.envs.gym_env import V1_PINS, V2_PINS, ZilchEnv
from zilch_env.engine.observation import OBS_SIZE, observe

# disable_env_checker: gymnasium's PassiveEnvChecker keeps no data when the first reset fails (say
# reset(seed=-1), refused), and its first step then fails with a TypeError whatever the env does (issue
# 41); the envs are checked by gymnasium's check_env in tests/zilch_env/envs/test_env.py instead.
if "Zilch-v0" not in _gym.registry:
    _gym.register(id="Zilch-v0", entry_point="zilch_env.envs.gym_env:ZilchEnv", disable_env_checker=True)
if "Zilch-v1" not in _gym.registry:
    # The kwargs pin what could otherwise follow a changed default; the observation layout and the
    # action layout are pinned by tests/zilch_env/envs/test_env_v1.py (a change to them is Zilch-v2).
    _gym.register(id="Zilch-v1", entry_point="zilch_env.envs.gym_env:ZilchEnv", disable_env_checker=True,
                  vector_entry_point="zilch_env.envs.vector:ZilchVectorEnv",
                  kwargs={"max_turns": V1_PINS["max_turns"], "reward": "win", "illegal_action": "penalty",
                          "obs_version": V1_PINS["obs_version"]})
if "Zilch-v2" not in _gym.registry:
    _gym.register(id="Zilch-v2", entry_point="zilch_env.envs.gym_env:ZilchEnv", disable_env_checker=True,
                  vector_entry_point="zilch_env.envs.vector:ZilchVectorEnv",
                  kwargs={"max_turns": V2_PINS["max_turns"], "reward": "win", "illegal_action": "penalty",
                          "obs_version": V2_PINS["obs_version"]})
__all__ += ["OBS_SIZE", "V1_PINS", "V2_PINS", "ZilchEnv", "__version__", "aec_env", "observe", "zilch_v1",
            "zilch_v2"]
