"""The rules as data, and compiled once for everything that plays or solves them.

- :mod:`~zilch_env.rules.schema`: a ruleset's fields (:class:`Ruleset`), the allowed values of each
  enumerated field (one list each), the errors.
- :mod:`~zilch_env.rules.load`: presets (the TOML files in ``presets/``), user files and their ``extends``
  chains, dotted-key overrides, validation, TOML written back.
- :mod:`~zilch_env.rules.scoring`: scoring a keep and the legal keeps of every roll.
- :mod:`~zilch_env.rules.primitives`: the rules of a turn and of the game's end as scalar functions,
  compiled by numba for the engine's kernels and the solvers, and called from Python by the loader and
  the turn solver's policy.
- :mod:`~zilch_env.rules.playable`: whether a game can end under a ruleset (the loader refuses it otherwise).
- :mod:`~zilch_env.rules.compiled`: :func:`compile`, one ruleset as the tables the engine's kernels, the
  observation and the solvers read.
- :mod:`~zilch_env.rules.distribution`: the ruleset distribution ``any`` and the rulesets held out of it.
- :mod:`~zilch_env.rules.words`: the rules' words in every language (``words.toml``): the lines of a
  ruleset's summary and the variant toggles of the web game's new-game form.
"""

from zilch_env.rules.schema import PRESETS, Ruleset, RulesetError, UnsupportedRulesError
from zilch_env.rules.load import (load_ruleset, loads_ruleset, parse_override_value, parse_overrides,
                                  ruleset_fingerprint, ruleset_from_dict, ruleset_to_toml)
from zilch_env.rules.scoring import legal_keeps, score_dice, scoring_table
from zilch_env.rules.compiled import ROLLS, CompiledRules, compile, roll_probability  # noqa: A004

__all__ = [
    "PRESETS", "ROLLS", "CompiledRules", "Ruleset", "RulesetError", "UnsupportedRulesError", "compile",
    "legal_keeps", "load_ruleset", "loads_ruleset", "parse_override_value", "parse_overrides",
    "roll_probability", "ruleset_fingerprint", "ruleset_from_dict", "ruleset_to_toml", "score_dice", "scoring_table",
]
