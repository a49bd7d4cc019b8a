"""The new-game form's rules: the variant toggles it offers, and how the rules a client sends are read
(``set.KEY=VALUE`` values as the command line's ``--set``) and refused (which errors are the request's
fault, and the sentence that says why)."""

from __future__ import annotations

from typing import Any

from zilch_env import Ruleset, RulesetError
from zilch_env.rules.words import rule_words

#: Errors a ruleset can raise when it is loaded or played that are the rules' fault, not the
#: server's: answered 4xx with their message. The loader raises RulesetError; values the engine or
#: a solver cannot hold raise ValueError or OverflowError (too many digits, beyond 64 bits); rules
#: under which no turn can end may recurse without end in the engine's constructor.
RULES_ERRORS = (RulesetError, ValueError, OverflowError, RecursionError)
#: What loading client-given overrides may raise: the above, and the loader's own slips on shapes it
#: does not expect (``scoring.triples.1.x``: an override inside a number) -- still the request's
#: fault, so a 422 naming the overrides, never a 500.
LOAD_ERRORS = RULES_ERRORS + (TypeError, KeyError, AttributeError, IndexError)

#: The variant toggles of the new-game screen, from the rules' catalogue (zilch_env/rules/words.toml,
#: ``[[toggles]]``): (override key, value when on, value when off, English label, English help).
TOGGLES = [(tg.key, tg.on, tg.off, tg.label["en"], tg.help["en"]) for tg in rule_words().toggles]
#: Ways a variant toggle can be on, shown as a choice beside it: key -> [(English label, value when on)].
TOGGLE_CHOICES = {tg.key: list(zip(tg.choice_labels["en"], tg.choices)) for tg in rule_words().toggles if tg.choices}


def toggle_texts(w: Any) -> list[dict[str, Any]]:
    """The toggles as /api/setup sends them, their label, help and choices in the language of ``w``
    (a :class:`zilch_web.words.Words`, keys ``variant.KEY.label``, ``.help`` and ``.choice.N``:
    the rules' words of its language, :func:`zilch_web.words.rule_texts`)."""
    return [{"key": k, "on": on, "off": off, "label": w.t(f"variant.{k}.label"), "help": w.t(f"variant.{k}.help"),
             "choices": [{"label": w.t(f"variant.{k}.choice.{i}"), "value": cv}
                         for i, (_, cv) in enumerate(TOGGLE_CHOICES.get(k, []))]}
            for k, on, off, _, _ in TOGGLES]


def get_key(rs: Ruleset, dotted: str) -> Any:
    from zilch_env.rules.schema import OPTIONAL_KEYS

    node: Any = rs.to_dict()
    for part in dotted.split("."):
        if part not in node:  # a key left out at its default (Ruleset.to_dict)
            return OPTIONAL_KEYS[dotted]
        node = node[part]
    return node


def parse_value(key: str, text: str) -> Any:
    """A ``set.KEY=VALUE`` query value as the command line's ``--set`` reads it; a value the TOML
    parser refuses to hold (an integer of more than 4,300 digits) is a RulesetError naming the key."""
    from zilch_env.rules.load import parse_override_value

    try:
        return parse_override_value(text)
    except (ValueError, OverflowError) as e:
        raise RulesetError(f"set.{key}: {len(text)} characters that cannot be read as a value ({e})") from None


def rules_message(e: BaseException, overrides: dict[str, Any] | None = None) -> str:
    """The sentence for a ruleset error: the loader's own message, or what the engine's error means."""
    if isinstance(e, RulesetError):
        return str(e)
    if isinstance(e, RecursionError):
        return "under these rules a turn can never end (every roll leads to another without a decision)"
    if not isinstance(e, RULES_ERRORS):
        keys = ", ".join(map(repr, overrides or {})) or "none"
        return f"these rule overrides cannot be applied (keys {keys}): {type(e).__name__}: {e}"
    return f"a value is too large or not valid for the engine ({type(e).__name__}: {e})"
