"""Loading rulesets: validation of plain data (:func:`ruleset_from_dict`), presets and files with their
``extends`` chains, dotted-key overrides, and the TOML text a ruleset writes back.

:func:`load_ruleset` reads a preset name or a path, applies dotted-key overrides
(``{"target": 20000, "variants.pyramiding": True}``) and validates everything: unknown keys, wrong
types and impossible values raise :class:`~zilch_env.rules.schema.RulesetError` naming the key, the value
and what is allowed; so does a ruleset under which no game can end (:mod:`zilch_env.rules.playable`).
:func:`ruleset_to_toml` writes a ruleset back; loading that text gives an equal ruleset, and
:func:`ruleset_fingerprint` is the SHA-256 of that text without its ``name`` line, which names the rules.
"""

from __future__ import annotations

import copy
import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import fields
from functools import lru_cache
from pathlib import Path
from typing import Any
import tomli_w
from zilch_env.rules.playable import why_unplayable
from zilch_env.rules.schema import (ENDS, HOT_DICE, KEEPS, KINDS, MAX_KIND_FACTOR, MAX_NAME, MAX_PENALTY_COUNT, MAX_POINTS, MAX_TARGET, OPTIONAL_KEYS, PENALTY_MODES, POINT_KEYS, PRESETS, PRESET_DIR, Ruleset, RulesetError, Scoring, TIES, Variants, ZilchPenalty, _ARTICLE, _MAP, _PENALTY, _SCORING, _SECTIONS, _TOP, _VARIANTS, _check_choice, _check_keys, _check_points, _check_range, _int_map, _partial_straights, toml_repr)


def _value(data: Mapping[str, Any], dotted: str) -> Any:
    """The value of a dotted key in checked ruleset data, or its default when it is an optional key
    left out (:data:`~zilch_env.rules.schema.OPTIONAL_KEYS`)."""
    node: Any = data
    for part in dotted.split("."):
        if part not in node:
            return OPTIONAL_KEYS[dotted]
        node = node[part]
    return node


def _section(data: Mapping[str, Any], section: str, cls: type) -> dict[str, Any]:
    """The checked values of one section (``""`` the top level) by field name, for its dataclass
    ``cls``; the caller replaces the fields it builds itself (point maps, nested sections)."""
    where = f"{section}." if section else ""
    return {f.name: _value(data, where + f.name) for f in fields(cls)}


def ruleset_from_dict(data: Mapping[str, Any]) -> Ruleset:
    """Validate a complete ruleset given as plain data (``extends`` already resolved)."""
    _check_keys("", data, _TOP)
    if "extends" in data:
        raise RulesetError(f"extends = {toml_repr(data['extends'])}: ruleset_from_dict takes a complete "
                           f"ruleset; load a file or text that extends a preset with load_ruleset or loads_ruleset")
    missing = [k for k in _TOP if k not in data and k != "extends" and k not in OPTIONAL_KEYS]
    if missing:
        raise RulesetError(f"missing keys: {', '.join(missing)} (a ruleset file without extends "
                           f"must give every key of docs/rules.md, \"The ruleset file\")")
    sc, va = data["scoring"], data["variants"]
    _check_keys("scoring.", sc, _SCORING)
    _check_keys("variants.", va, _VARIANTS)
    for section, schema in (("scoring", _SCORING), ("variants", _VARIANTS)):
        lacking = [k for k in schema if k not in data[section] and f"{section}.{k}" not in OPTIONAL_KEYS]
        if lacking:
            raise RulesetError(f"missing keys in [{section}]: {', '.join(lacking)}")
    zp = va["zilch_penalty"]
    _check_keys("variants.zilch_penalty.", zp, _PENALTY)
    lacking = [k for k in _PENALTY if k not in zp]
    if lacking:
        raise RulesetError(f"missing keys in variants.zilch_penalty: {', '.join(lacking)}")

    if len(data["name"]) > MAX_NAME or not data["name"].isprintable():
        raise RulesetError(f"name = {toml_repr(data['name'])}: a name is printable text of at most {MAX_NAME} characters")
    _check_range("dice", data["dice"], 1, 6)
    _check_range("target", data["target"], 1, MAX_TARGET, "so that every score fits the engines' integers")
    _check_choice("end", data["end"], ENDS)
    _check_choice("tie", data["tie"], TIES)
    _check_choice("keep", data["keep"], KEEPS)
    _check_choice("hot_dice", data["hot_dice"], HOT_DICE)
    _check_choice("scoring.kinds", sc["kinds"], KINDS)
    for key in POINT_KEYS:
        _check_points(key, _value(data, key))
    floor = _value(data, "score_floor")
    _check_range("score_floor", floor, -MAX_POINTS, 0, "penalties may take a banked score down to this "
                 "floor, 0 or below; 0 = no score goes below zero")
    _check_range("variants.zilch_penalty.count", zp["count"], 0, MAX_PENALTY_COUNT)
    _check_points("variants.zilch_penalty.points", zp["points"])
    _check_choice("variants.zilch_penalty.mode", zp["mode"], PENALTY_MODES)

    singles = _int_map("scoring.singles", sc["singles"], range(1, 7), "face")
    triples = _int_map("scoring.triples", sc["triples"], range(1, 7), "face")
    if sc["kinds"] == "multiple":
        kind_values = _int_map("scoring.kind_values", sc["kind_values"], range(4, 7), "count", 1,
                               MAX_KIND_FACTOR, "with kinds = \"multiple\" each value is a factor of the triple")
    else:
        kind_values = _int_map("scoring.kind_values", sc["kind_values"], range(4, 7), "count")
    if sc["kinds"] in ("flat", "multiple") and not any(kind_values.values()):
        what = "points by count" if sc["kinds"] == "flat" else "factors of the triple by count"
        example = "{4 = 1000, 5 = 2000, 6 = 3000}" if sc["kinds"] == "flat" else "{4 = 2, 5 = 3, 6 = 4}"
        raise RulesetError(f"scoring.kinds = {toml_repr(sc['kinds'])} needs scoring.kind_values, the {what}, "
                           f"e.g. kind_values = {example}; got {toml_repr(sc['kind_values'])}")
    if sc["kinds"] in ("none", "double") and kind_values:
        raise RulesetError(f"scoring.kind_values = {toml_repr(sc['kind_values'])} is given, but kinds = "
                           f"{toml_repr(sc['kinds'])} does not use it: set kinds = \"flat\" or \"multiple\", "
                           f"or kind_values = {{}}")
    partial = _partial_straights(sc.get("partial_straights", {}))
    if partial and va["pyramiding"]:
        raise RulesetError(f"scoring.partial_straights = {toml_repr(sc['partial_straights'])} with "
                           f"variants.pyramiding = true: not supported (a partial straight's dice have no "
                           f"points by face for later dice to join); set partial_straights = {{}} or "
                           f"pyramiding = false")
    if not any(singles.values()) and not any(triples.values()) and not (
        sc["straight"] or sc["three_pairs"] or sc["two_triplets"] or any(partial.values())
    ):
        raise RulesetError("scoring: no combination scores anything; at least one single, triple "
                           "or special combination must be worth points")
    scoring = Scoring(**{**_section(data, "scoring", Scoring), "singles": singles, "triples": triples,
                         "kind_values": kind_values, "partial_straights": partial})
    variants = Variants(**{**_section(data, "variants", Variants),
                           "zilch_penalty": ZilchPenalty(count=zp["count"], points=zp["points"], mode=zp["mode"])})
    rs = Ruleset(**{**_section(data, "", Ruleset), "scoring": scoring, "variants": variants})

    reason = why_unplayable(rs)
    if reason:
        raise RulesetError(f"ruleset {rs.name!r} cannot be played to an end: {reason} "
                           f"(docs/rules.md, 'Rulesets the loader refuses')")
    return rs


# --------------------------------------------------------------------------------------------
# Loading: files, presets, extends and overrides.


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``: the [scoring] and [variants] tables merge key by key; every other value,
    including the point maps (``singles = {...}``), is replaced whole, so a file says exactly which
    faces score."""
    out = copy.deepcopy(base)
    for key, value in top.items():
        if key in _SECTIONS and isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            merged = dict(out[key])
            for k, v in value.items():
                if k == "zilch_penalty" and isinstance(v, Mapping) and isinstance(merged.get(k), Mapping):
                    merged[k] = {**merged[k], **v}
                else:
                    merged[k] = copy.deepcopy(v)
            out[key] = merged
        else:
            out[key] = copy.deepcopy(value)
    return out


#: The largest ruleset file the loader reads (a complete ruleset is about 1 KB).
MAX_RULESET_BYTES = 64 * 1024

#: The most files an ``extends`` chain may pass through (the presets extend one another at most twice).
MAX_EXTENDS_DEPTH = 16


def _parse_toml(text: str, where: str) -> dict[str, Any]:
    """TOML text to data; a syntax error or a number Python will not read is a RulesetError."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesetError(f"{where}not valid TOML: {e}") from None
    except ValueError as e:  # an integer of more than 4300 digits (sys.get_int_max_str_digits)
        raise RulesetError(f"{where}a number too long to read ({str(e).split(';')[0]}); "
                           f"numbers in a ruleset are at most {MAX_TARGET:,}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    """A ruleset file's data. Only a regular file of at most MAX_RULESET_BYTES, UTF-8 text (TOML's
    encoding): a FIFO, a device (/dev/zero), a folder or a larger file is refused naming the path,
    without reading it."""
    import os
    import stat

    try:
        # O_NONBLOCK: opening a FIFO with no writer does not wait; it is refused just below
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise RulesetError(f"{path}: cannot read the ruleset file: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                    else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
            raise RulesetError(f"{path}: {kind}, not a ruleset file: a ruleset is read from a regular file")
        if st.st_size > MAX_RULESET_BYTES:
            raise RulesetError(f"{path}: {st.st_size:,} bytes; a ruleset file is at most "
                               f"{MAX_RULESET_BYTES:,} bytes")
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(MAX_RULESET_BYTES + 1)
    except OSError as e:
        raise RulesetError(f"{path}: cannot read the ruleset file: {e.strerror}") from None
    finally:
        os.close(fd)
    if len(raw) > MAX_RULESET_BYTES:  # (the file grew while being read)
        raise RulesetError(f"{path}: more than {MAX_RULESET_BYTES:,} bytes; a ruleset file is at most "
                           f"{MAX_RULESET_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RulesetError(f"{path}: not UTF-8 text (byte {raw[e.start]:#04x} at offset {e.start}); "
                           f"TOML files are UTF-8: save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
    return _parse_toml(text, f"{path}: ")


def _resolve(name_or_path: str | Path, seen: tuple[str, ...] = (), base_dir: Path | None = None) -> dict[str, Any]:
    """The fully merged data of a preset or file, following ``extends`` chains."""
    text = str(name_or_path)
    if text in PRESETS:
        path = PRESET_DIR / f"{text}.toml"
    else:
        path = Path(text)
        if not path.is_absolute() and base_dir is not None and not path.exists():
            path = base_dir / path
        if not path.exists():
            hint = "a preset name (" + ", ".join(PRESETS) + ") or the path of a .toml file"
            raise RulesetError(f"unknown ruleset {text!r}: expected {hint}")
    key = str(path.resolve())
    if key in seen:
        raise RulesetError(f"extends = {text!r}: circular extends chain ({' -> '.join(seen + (key,))})")
    if len(seen) >= MAX_EXTENDS_DEPTH:
        raise RulesetError(f"{path}: an extends chain deeper than {MAX_EXTENDS_DEPTH} files (from {seen[0]}); "
                           f"a ruleset may extend at most {MAX_EXTENDS_DEPTH} files in a row")
    data = _read_toml(path)
    if not isinstance(data.get("extends", ""), str):
        raise RulesetError(f"{path}: extends = {data['extends']!r}: expected a preset name or a path")
    parent = data.pop("extends", None)
    _check_keys("", data, _TOP)
    for section, schema in _SECTIONS.items():
        if section in data:
            _check_keys(f"{section}.", data[section], schema)
    if parent is None:
        return data
    base = _resolve(parent, seen + (key,), path.parent)
    merged = _merge(base, data)
    if "name" not in data:
        merged["name"] = path.stem
    return merged


def parse_override_value(text: str) -> Any:
    """A command-line override value: TOML syntax (``20000``, ``true``, ``"halve"``, ``{1 = 100}``),
    falling back to a bare string (``--set keep=free``)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except ValueError as e:  # an integer of more than 4300 digits
        raise RulesetError(f"--set value of {len(text):,} characters: a number too long to read "
                           f"({str(e).split(';')[0]}); numbers in a ruleset are at most {MAX_TARGET:,}") from None


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """``["target=20000", "variants.pyramiding=true"]`` to ``{"target": 20000, ...}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise RulesetError(f"--set {item!r}: expected KEY=VALUE, e.g. --set target=20000")
        key, _, value = item.partition("=")
        out[key.strip()] = parse_override_value(value.strip())
    return out


def _apply_overrides(data: dict[str, Any], overrides: Mapping[str, Any]) -> None:
    if not isinstance(overrides, Mapping):
        raise RulesetError(f"overrides {toml_repr(overrides)}: expected a table of dotted keys to values, "
                           f"e.g. {{target = 20000}}")
    for dotted, value in overrides.items():
        if not isinstance(dotted, str):
            raise RulesetError(f"override key {toml_repr(dotted)}: expected a dotted key such as \"target\" "
                               f"or \"variants.pyramiding\"")
        parts = dotted.split(".")
        if dotted == "extends":
            raise RulesetError(f"override extends = {toml_repr(value)}: the preset a ruleset starts from is its "
                               f"name (--ruleset {value if isinstance(value, str) else 'farkle'}), not an override")
        node: Any = data
        schema: Mapping[str, str] | None = _TOP
        for i, part in enumerate(parts[:-1]):
            where = ".".join(parts[: i + 1])
            if schema is None:  # inside a point map (singles, triples, kind_values): its keys are numbers
                raise RulesetError(f"override {dotted!r}: {where!r} is a number of points, not a table; "
                                   f"e.g. --set {where}=100")
            if part not in schema:
                raise RulesetError(f"unknown key {dotted!r} in override (no {where!r}); allowed "
                                   f"keys: {', '.join(k for k in schema if k != 'extends')}")
            if schema[part] != _MAP:
                raise RulesetError(f"override {dotted!r}: {where!r} is {_ARTICLE[schema[part]]}{schema[part]}, not a table")
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            elif not isinstance(child, dict):
                if not isinstance(child, Mapping):
                    raise RulesetError(f"override {dotted!r}: {where!r} is {toml_repr(child)}, not a table")
                child = node[part] = dict(child)
            node = child
            schema = _SECTIONS.get(part) if i == 0 else (_PENALTY if part == "zilch_penalty" else None)
        last = parts[-1]
        if schema is not None and last not in schema:
            raise RulesetError(f"unknown key {dotted!r} in override; allowed keys here: "
                               f"{', '.join(k for k in schema if k != 'extends')}")
        node[last] = value


@lru_cache(maxsize=None)
def _preset(name: str) -> Ruleset:
    """A preset as it ships (read and checked once: a ruleset never changes, so all share it)."""
    return ruleset_from_dict(_resolve(name))


def load_ruleset(name_or_path: "str | Path | Ruleset", overrides: Mapping[str, Any] | None = None) -> Ruleset:
    """Load a preset by name or a TOML file by path (or take a ruleset), apply dotted-key overrides,
    validate.

    >>> load_ruleset("zonk", {"target": 20000, "variants.pyramiding": True}).target
    20000
    """
    if isinstance(name_or_path, Ruleset):  # a ruleset with overrides: a new one, validated again
        if not overrides:
            return name_or_path
        data = name_or_path.to_dict()
    elif not overrides and isinstance(name_or_path, str) and name_or_path in PRESETS:
        return _preset(name_or_path)
    else:
        data = _resolve(name_or_path)
    if overrides:
        _apply_overrides(data, overrides)
    return ruleset_from_dict(data)


def ruleset_to_toml(ruleset: Ruleset) -> str:
    """The ruleset as a complete TOML file; ``load_ruleset`` of it gives an equal ruleset."""
    return tomli_w.dumps(ruleset.to_dict())


def ruleset_fingerprint(ruleset: Ruleset) -> str:
    """The rules' fingerprint: the SHA-256 (64 hex digits) of the ruleset's canonical TOML, the text of
    :func:`ruleset_to_toml` (``zilch rules``) without its first line, ``name = ...``. Equal rules have
    equal fingerprints whatever their name or the file, ``extends`` chain or overrides that made them;
    any change of a rule changes it. ``zilch rules RULESET | tail -n +2 | sha256sum`` computes it too."""
    data = ruleset.to_dict()
    data.pop("name", None)
    return hashlib.sha256(tomli_w.dumps(data).encode("utf-8")).hexdigest()


def loads_ruleset(text: str) -> Ruleset:
    """A ruleset from TOML text (``extends`` resolved against the presets and the working folder)."""
    data = _parse_toml(text, "")
    parent = data.pop("extends", None)
    if parent is not None:
        data = _merge(_resolve(parent), data)
    return ruleset_from_dict(data)
