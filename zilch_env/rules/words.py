"""The words of the rules in every language the game speaks, from one catalogue (``words.toml`` beside
this module): the lines of a ruleset's summary, the lines said whenever a ruleset key is set, and
the variant toggles of the web game's new-game form with their labels. The file's header says its
layout and what a new rule's words need.

:func:`rule_words` reads it once and checks it: every language has the same lines with the same
placeholders, every toggle its label, help and choice labels in every language, every key it names
is a field of :class:`~zilch_env.rules.schema.Ruleset`. An error names the entry at fault.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zilch_env.rules.schema import Ruleset, RulesetError

WORDS_FILE = Path(__file__).with_name("words.toml")
#: The languages of the catalogue, English first (the language of ``zilch rules --summary``).
LANGS = ("en", "pt-BR", "sv")


@dataclass(frozen=True)
class Toggle:
    """A variant toggle of the new-game form: its override ``key``, its value ``on`` and ``off``, the
    ``choices`` (values) it may be on with, and by language its ``label``, ``help`` and the labels of
    its choices (``choice_labels``, in the order of ``choices``)."""

    key: str
    on: Any
    off: Any
    choices: tuple[Any, ...]
    label: dict[str, str]
    help: dict[str, str]
    choice_labels: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class RuleWords:
    """The catalogue: ``lines[lang][key]`` the text of a line; ``said_when_set`` the (ruleset key,
    line key) pairs said whenever the key is set; ``toggles`` the form's toggles in their order."""

    lines: dict[str, dict[str, str]]
    said_when_set: tuple[tuple[str, str], ...]
    toggles: tuple[Toggle, ...]


def ruleset_value(rs: Ruleset, key: str) -> Any:
    """The value of the dotted ruleset ``key`` in ``rs`` (``variants.piggyback``); KeyError names a
    key that is not a field of a ruleset."""
    node: Any = rs
    for part in key.split("."):
        if not dataclasses.is_dataclass(node) or part not in {f.name for f in dataclasses.fields(node)}:
            raise KeyError(f"{key!r} is not a ruleset key")
        node = getattr(node, part)
    return node


_DEFAULT = Ruleset()


def is_set(rs: Ruleset, key: str) -> bool:
    """Whether the dotted ruleset ``key`` of ``rs`` differs from its value in the default ``Ruleset()``."""
    return ruleset_value(rs, key) != ruleset_value(_DEFAULT, key)


@functools.cache
def rule_words() -> RuleWords:
    """The catalogue of ``words.toml``, read once and checked (:func:`read_rule_words`)."""
    return read_rule_words(WORDS_FILE.read_text(encoding="utf-8"), str(WORDS_FILE))


def read_rule_words(text: str, where: str = "words.toml") -> RuleWords:
    """The catalogue in TOML ``text``, checked; RulesetError names the entry at fault (``where`` the
    file, for the message)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesetError(f"{where}: not valid TOML ({e})") from None
    _keys_are(data, {"lines", "said_when_set", "toggles"}, where, required={"lines"})
    lines = _lines(data["lines"], where)
    said = []
    for i, entry in enumerate(_array(data.get("said_when_set", []), f"{where}: said_when_set")):
        at = f"{where}: said_when_set[{i}]"
        _keys_are(entry, {"key", "line"}, at, required={"key", "line"})
        key, line = _string(entry["key"], f"{at}.key"), _string(entry["line"], f"{at}.line")
        _ruleset_key(key, at)
        if line not in lines["en"]:
            raise RulesetError(f"{at}: line {line!r} is not a key of [lines.en]")
        said.append((key, line))
    toggles = [_toggle(entry, f"{where}: toggles[{i}]")
               for i, entry in enumerate(_array(data.get("toggles", []), f"{where}: toggles"))]
    keys = [t.key for t in toggles]
    if len(set(keys)) != len(keys):
        raise RulesetError(f"{where}: toggles: a key appears twice ({', '.join(sorted(k for k in set(keys) if keys.count(k) > 1))})")
    return RuleWords(lines, tuple(said), tuple(toggles))


def _lines(data: Any, where: str) -> dict[str, dict[str, str]]:
    _keys_are(data, set(LANGS), f"{where}: lines", required=set(LANGS))
    lines = {lang: {key: _string(text, f"{where}: lines.{lang}.{key!r}")
                    for key, text in _table(data[lang], f"{where}: lines.{lang}").items()} for lang in LANGS}
    for lang in LANGS[1:]:
        missing, extra = set(lines["en"]) - set(lines[lang]), set(lines[lang]) - set(lines["en"])
        if missing or extra:
            raise RulesetError(f"{where}: lines.{lang} must have the keys of lines.en; "
                               f"missing {sorted(missing)}, not in lines.en {sorted(extra)}")
        for key, en in lines["en"].items():
            if _placeholders(lines[lang][key]) != _placeholders(en):
                raise RulesetError(f"{where}: lines.{lang}.{key!r} has the placeholders "
                                   f"{sorted(_placeholders(lines[lang][key]))}; lines.en has {sorted(_placeholders(en))}")
    return lines


def _toggle(entry: Any, at: str) -> Toggle:
    _keys_are(entry, {"key", "on", "off", "choices", *LANGS}, at, required={"key", "on", "off", *LANGS})
    key = _string(entry["key"], f"{at}.key")
    at = f"{at} ({key})"
    _ruleset_key(key, at)
    choices = []
    for i, c in enumerate(_array(entry.get("choices", []), f"{at}.choices")):
        _keys_are(c, {"value"}, f"{at}.choices[{i}]", required={"value"})
        choices.append(c["value"])
    label, help_, choice_labels = {}, {}, {}
    for lang in LANGS:
        w = entry[lang]
        _keys_are(w, {"label", "help", "choices"}, f"{at}.{lang}",
                  required={"label", "help", "choices"} if choices else {"label", "help"})
        label[lang], help_[lang] = _string(w["label"], f"{at}.{lang}.label"), _string(w["help"], f"{at}.{lang}.help")
        names = tuple(_string(x, f"{at}.{lang}.choices") for x in _array(w.get("choices", []), f"{at}.{lang}.choices"))
        if len(names) != len(choices):
            raise RulesetError(f"{at}.{lang}.choices: {len(names)} labels for {len(choices)} choices")
        choice_labels[lang] = names
    return Toggle(key, entry["on"], entry["off"], tuple(choices), label, help_, choice_labels)


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def _ruleset_key(key: str, at: str) -> None:
    try:
        ruleset_value(_DEFAULT, key)
    except KeyError:
        raise RulesetError(f"{at}: {key!r} is not a ruleset key (a field of Ruleset, dotted: "
                           f"'variants.piggyback')") from None


def _table(x: Any, at: str) -> dict:
    if not isinstance(x, dict):
        raise RulesetError(f"{at} must be a table, not {type(x).__name__}")
    return x


def _keys_are(x: Any, allowed: set[str], at: str, required: set[str] = frozenset()) -> None:
    _table(x, at)
    extra, missing = set(x) - allowed, required - set(x)
    if extra:
        raise RulesetError(f"{at}: unknown keys {sorted(extra)}; the keys are {', '.join(sorted(allowed))}")
    if missing:
        raise RulesetError(f"{at}: missing {', '.join(sorted(missing))}")


def _array(x: Any, at: str) -> list:
    if not isinstance(x, list):
        raise RulesetError(f"{at} must be an array, not {type(x).__name__}")
    return x


def _string(x: Any, at: str) -> str:
    if not isinstance(x, str):
        raise RulesetError(f"{at} must be a string, not {x!r}")
    return x
