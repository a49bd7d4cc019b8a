"""Rulesets: the rules of one member of the Zilch / Farkle / 10000 / Zonk family, as data.

A ruleset is a TOML file (``docs/rules.md``). Every preset is such a file shipped in
``zilch_env/rules/presets/``; a user's file may start from a preset with ``extends`` and change only what
differs. :func:`load_ruleset` reads a preset name or a path, applies dotted-key overrides
(``{"target": 20000, "variants.pyramiding": True}``) and validates everything: unknown keys, wrong
types and impossible values raise :class:`RulesetError` naming the key, the value and what is
allowed. :func:`ruleset_to_toml` writes a ruleset back; loading that text gives an equal ruleset.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any


PRESET_DIR = Path(__file__).with_name("presets")
PRESETS = ("zilch", "zilch15k", "zilch10k", "zilch5k", "farkle", "farkle-basic", "zonk", "zonk20k", "cardgames")

ENDS = ("others_one_turn", "finish_round", "instant")
TIES = ("draw", "tiebreak")
KEEPS = ("free", "all_scoring")
HOT_DICE = ("optional", "forced")
KINDS = ("none", "double", "flat", "multiple")
PENALTY_MODES = ("subtract", "halve", "reset")


#: The largest number any points value, threshold or target may hold. Every keep, turn total and
#: score then fits the fast engine's integer tables (32-bit keep points, 64-bit scores) and the
#: solvers' arrays with room to spare; the family's games use a few thousand points.
MAX_POINTS = 1_000_000
#: The largest target: a score stays within 32-bit integers even after a long last turn beyond it.
MAX_TARGET = 1_000_000_000
#: The largest factor of the triple under ``kinds = "multiple"`` (six of a kind at most 100 triples).
MAX_KIND_FACTOR = 100
#: The longest ``name`` a ruleset may have.
MAX_NAME = 100
#: The most zilches in a row a zilch penalty may wait for.
MAX_PENALTY_COUNT = 100


class RulesetError(ValueError):
    """A ruleset that cannot be loaded: the message names the key, the value and what is allowed."""


class UnsupportedRulesError(ValueError):
    """Rules, a game or an agent that one part of the project cannot play or solve (a solver, the
    fast engine for an agent): the message names the rule and the part. One exception for all."""


def toml_repr(value: Any) -> str:
    """A value as the user writes it in TOML (``true``, ``{4 = 0}``, ``"halve"``), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, Mapping):
        items = list(value.items())
        inner = ", ".join(f"{_toml_key(k)} = {toml_repr(v)}" for k, v in items[:8])
        return "{" + inner + (", ..." if len(items) > 8 else "") + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_repr(v) for v in list(value)[:8]) + (", ..." if len(value) > 8 else "") + "]"
    if isinstance(value, int):
        if abs(value) < 10**30:
            return str(value)
        # (no str() of the whole number: Python refuses to convert one of more than 4300 digits)
        return f"{'-' if value < 0 else ''}a number of about {int(abs(value).bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _toml_key(key: Any) -> str:
    text = str(key)
    if text and all(c.isalnum() or c in "-_" for c in text):
        return text
    return toml_repr(text)


class FrozenMap(Mapping[int, int]):
    """An immutable, hashable ``{int: int}`` map (faces or counts to points), equal to a plain dict."""

    __slots__ = ("_items", "_dict")

    def __init__(self, items: Mapping[int, int] | None = None):
        d = {int(k): int(v) for k, v in dict(items or {}).items()}
        self._dict = dict(sorted(d.items()))
        self._items = tuple(self._dict.items())

    def __getitem__(self, key: int) -> int:
        return self._dict[key]

    def __iter__(self) -> Iterator[int]:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._dict == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(self._dict)


@dataclass(frozen=True)
class ZilchPenalty:
    """After ``count`` zilches in a row (once on the board) the player is penalised; 0 = off."""

    count: int = 0
    points: int = 0
    mode: str = "subtract"  # "subtract" P points | "halve" the score | "reset" it to zero


@dataclass(frozen=True)
class Scoring:
    """What a keep is worth (docs/rules.md, "Scoring a keep")."""

    singles: FrozenMap = field(default_factory=lambda: FrozenMap({1: 100, 5: 50}))
    triples: FrozenMap = field(
        default_factory=lambda: FrozenMap({1: 1000, 2: 200, 3: 300, 4: 400, 5: 500, 6: 600})
    )
    kinds: str = "none"
    kind_values: FrozenMap = field(default_factory=FrozenMap)
    straight: int = 0
    permanent_straight: bool = False
    three_pairs: int = 0
    four_and_pair_is_three_pairs: bool = False
    two_triplets: int = 0
    #: Five dice in a run in one roll (``12345``, ``23456``) -> points; the sixth die of a roll of six
    #: may join as a single. Empty: no partial straights.
    partial_straights: FrozenMap = field(default_factory=FrozenMap)
    #: Points a keep adds when it sets aside every die rolled (hot dice: all the dice are then set
    #: aside), on top of its combinations; 0 = off.
    hot_dice_bonus: int = 0

    def __hash__(self) -> int:
        # The scoring caches (``lru_cache`` on a scoring and a set of dice) hash it at every lookup, a
        # scoring table's build some 150,000 times: hashed once per object. The hash stays out of
        # pickles (``__getstate__``): a string's hash differs from one process to the next.
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)


@dataclass(frozen=True)
class Variants:
    """Toggles that combine with any preset (docs/rules.md, "Variants")."""

    pyramiding: bool = False
    challenge: bool = False
    overcoming: bool = False
    piggyback: bool = False
    six_dice_zilch_bonus: int = 0
    zilch_penalty: ZilchPenalty = field(default_factory=ZilchPenalty)


@dataclass(frozen=True)
class Ruleset:
    """One complete, validated set of rules. Hashable, so per-ruleset tables can be cached on it.

    The keys added after the first layout (:data:`OPTIONAL_KEYS`: ``score_floor``,
    ``scoring.partial_straights``) have defaults that change nothing: a file or dict may leave
    them out, and :meth:`to_dict` leaves them out at their defaults, so every ruleset that could be
    written before keeps the same data (and the same hashes: game tables, golden records, the
    rules a trained policy names)."""

    name: str = "custom"
    dice: int = 6
    target: int = 10000
    end: str = "others_one_turn"
    tie: str = "draw"
    entry_threshold: int = 500
    min_bank: int = 0
    keep: str = "free"
    hot_dice: str = "optional"
    #: The lowest a banked score may go through penalties (the zilch penalty, challenge costs); 0 or less.
    score_floor: int = 0
    scoring: Scoring = field(default_factory=Scoring)
    variants: Variants = field(default_factory=Variants)

    def to_dict(self) -> dict[str, Any]:
        """The ruleset as plain TOML-ready data (the layout of docs/rules.md, "The ruleset file"): every
        field in its order, point maps with text keys, the keys of :data:`OPTIONAL_KEYS` left out at
        their defaults. Made once per ruleset (a ruleset never changes) and handed out as a fresh copy,
        which the caller may change."""
        plain = self.__dict__.get("_plain")
        if plain is None:
            plain = _plain(self, "")
            object.__setattr__(self, "_plain", plain)
        return _copy_plain(plain)


def _copy_plain(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of plain ruleset data whose dicts and lists are new (the rest is immutable)."""
    return {k: _copy_plain(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v
            for k, v in data.items()}


def _plain(obj: Any, where: str) -> dict[str, Any]:
    """A ruleset section (a frozen dataclass) as plain data, field by field (see :meth:`Ruleset.to_dict`)."""
    out: dict[str, Any] = {}
    for f in fields(obj):
        key = f"{where}{f.name}"
        value = getattr(obj, f.name)
        if key in OPTIONAL_KEYS and value == OPTIONAL_KEYS[key]:
            continue
        if isinstance(value, FrozenMap):
            value = {str(k): x for k, x in value.items()}
        elif is_dataclass(value):
            value = _plain(value, f"{key}.")
        out[f.name] = value
    return out


# --------------------------------------------------------------------------------------------
# Validation: one schema, used for files, extends, overrides and dicts alike.

_INT, _BOOL, _STR, _MAP = "integer", "true or false", "string", "table"
_ARTICLE = {_INT: "an ", _BOOL: "", _STR: "a ", _MAP: "a "}

_TOP = {
    "name": _STR,
    "extends": _STR,
    "dice": _INT,
    "target": _INT,
    "end": _STR,
    "tie": _STR,
    "entry_threshold": _INT,
    "min_bank": _INT,
    "keep": _STR,
    "hot_dice": _STR,
    "score_floor": _INT,
    "scoring": _MAP,
    "variants": _MAP,
}
_SCORING = {
    "singles": _MAP,
    "triples": _MAP,
    "kinds": _STR,
    "kind_values": _MAP,
    "straight": _INT,
    "permanent_straight": _BOOL,
    "three_pairs": _INT,
    "four_and_pair_is_three_pairs": _BOOL,
    "two_triplets": _INT,
    "partial_straights": _MAP,
    "hot_dice_bonus": _INT,
}
#: Keys added after the first layout, with the default each takes when a ruleset leaves it out (and
#: :meth:`Ruleset.to_dict` leaves out at that default).
OPTIONAL_KEYS = {"score_floor": 0, "scoring.partial_straights": {}, "scoring.hot_dice_bonus": 0}
#: The integer keys that hold a number of points: each is checked to lie in 0 to :data:`MAX_POINTS`.
#: The loader checks every other key by its own rule (ranges, choices, point maps). A ruleset field
#: of plain points needs its type above, its line here, and (when added after the first layout) its
#: default in :data:`OPTIONAL_KEYS`: the loader and :meth:`Ruleset.to_dict` then take it as they are.
POINT_KEYS = ("entry_threshold", "min_bank", "scoring.straight", "scoring.three_pairs", "scoring.two_triplets",
              "scoring.hot_dice_bonus", "variants.six_dice_zilch_bonus")
_VARIANTS = {
    "pyramiding": _BOOL,
    "challenge": _BOOL,
    "overcoming": _BOOL,
    "piggyback": _BOOL,
    "six_dice_zilch_bonus": _INT,
    "zilch_penalty": _MAP,
}
_PENALTY = {"count": _INT, "points": _INT, "mode": _STR}
_SECTIONS = {"scoring": _SCORING, "variants": _VARIANTS}


def _check_type(key: str, value: Any, kind: str) -> None:
    ok = {
        _INT: isinstance(value, int) and not isinstance(value, bool),
        _BOOL: isinstance(value, bool),
        _STR: isinstance(value, str),
        _MAP: isinstance(value, Mapping),
    }[kind]
    if not ok:
        raise RulesetError(f"{key} = {toml_repr(value)}: expected {_ARTICLE[kind]}{kind}")


def _check_choice(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise RulesetError(f"{key} = {toml_repr(value)}: allowed values are {', '.join(map(toml_repr, allowed))}")


def _check_range(key: str, value: int, lo: int, hi: int, why: str = "") -> None:
    if value < lo or value > hi:
        raise RulesetError(f"{key} = {toml_repr(value)}: allowed values are whole numbers from {lo} to {hi}"
                           + (f" ({why})" if why else ""))


_POINTS_WHY = "so that every keep, turn total and score fits the engines' integers"


def _check_points(key: str, value: int, lo: int = 0) -> None:
    _check_range(key, value, lo, MAX_POINTS, _POINTS_WHY)


def _check_keys(where: str, data: Mapping[str, Any], schema: Mapping[str, str]) -> None:
    for key, value in data.items():
        full = f"{where}{key}"
        if not isinstance(key, str):
            raise RulesetError(f"key {toml_repr(key)}{' in [' + where[:-1] + ']' if where else ''} is not "
                               f"a name: keys are strings such as {', '.join(list(schema)[:3])}")
        if key not in schema:
            raise RulesetError(
                f"unknown key {full!r} (value {toml_repr(value)}); allowed keys"
                f"{' in [' + where[:-1] + ']' if where else ''}: {', '.join(schema)}"
            )
        _check_type(full, value, schema[key])


def _int_map(key: str, value: Mapping[Any, Any], keys: range, what: str,
             lo: int = 0, hi: int = MAX_POINTS, why: str = _POINTS_WHY) -> FrozenMap:
    out: dict[int, Any] = {}
    seen: dict[int, Any] = {}
    for k, v in value.items():
        ik = None
        if isinstance(k, int) and not isinstance(k, bool):
            ik = k
        elif isinstance(k, str) and k.strip().isascii() and k.strip().isdigit() and len(k.strip()) < 4:
            ik = int(k)  # (ASCII digits only: "²".isdigit() is true, int("²") fails)
        if ik is None or ik not in keys:
            raise RulesetError(
                f"{key}.{_toml_key(k)} = {toml_repr(v)}: {_toml_key(k)} "
                f"is not a {what}; allowed {what}s are {keys.start} to {keys.stop - 1}, written as digits"
            )
        if ik in out:
            raise RulesetError(f"{key}: {what} {ik} is given twice (as {toml_repr(seen[ik])} and "
                               f"{toml_repr(k)}); give each {what} once")
        seen[ik] = k
        _check_type(f"{key}.{ik}", v, _INT)
        _check_range(f"{key}.{ik}", v, lo, hi, why)
        out[ik] = v
    return FrozenMap(out)


#: The runs of five faces a partial straight may be (five distinct faces in a run of the die's faces).
PARTIAL_RUNS = (12345, 23456)


def _partial_straights(value: Mapping[Any, Any]) -> FrozenMap:
    """``scoring.partial_straights``: keys are runs of five faces written as their digits (``12345``,
    ``23456``; a TOML key is text, a --set dotted key too), values points within MAX_POINTS."""
    out = {}
    for k, v in value.items():
        text = str(k).strip() if not isinstance(k, bool) else ""
        run = int(text) if text.isascii() and text.isdigit() and len(text) == 5 else None
        if run not in PARTIAL_RUNS:
            raise RulesetError(
                f"scoring.partial_straights.{_toml_key(k)} = {toml_repr(v)}: {_toml_key(k)} is not a "
                f"partial straight; a key is five distinct faces in a run, written as their digits: "
                f"{', '.join(map(str, PARTIAL_RUNS))}")
        _check_type(f"scoring.partial_straights.{run}", v, _INT)
        _check_points(f"scoring.partial_straights.{run}", v)
        if run in out:
            raise RulesetError(f"scoring.partial_straights: {run} is given twice; give each run once")
        out[run] = v
    return FrozenMap(out)
