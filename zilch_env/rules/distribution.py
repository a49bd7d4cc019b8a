"""The ruleset distribution ``any``: the rules one agent is trained on to play every ruleset
(``train/ppo.py --ruleset any``), and the rulesets held out from it to test that agent.

:func:`sample_rules` draws ``(ruleset, players)`` pairs, each a preset with overrides, through the
loader (:func:`zilch_env.load_ruleset`), so every draw is a ruleset the loader accepts. A draw is:

1. a preset, uniformly among :data:`zilch_env.PRESETS`;
2. with probability :data:`P_PRESET` (0.3), that preset exactly, two players;
3. otherwise the preset with overrides, each drawn independently:

   =========================== ====== ==========================================================
   rule                        chance values (uniform among them)
   =========================== ====== ==========================================================
   players                     1      2 (50%), 3 (30%), 4 (20%)
   ``target``                  0.6    :data:`TARGETS` (2,000 to 20,000)
   ``entry_threshold``         0.3    0, 300, 500, 750, 1000 (at most half the target)
   ``min_bank``                0.3    0, 300, 350, 500
   ``keep``                    0.15   the other keep rule
   ``hot_dice``                0.15   the other hot-dice rule
   ``end``                     0.25   ``others_one_turn``, ``finish_round``, ``instant``
   ``tie``                     0.2    the other tie rule
   each variant                0.15   ``pyramiding``, ``challenge``, ``overcoming``,
                                      ``piggyback`` on
   ``six_dice_zilch_bonus``    0.15   500, 1000
   ``zilch_penalty``           0.2    2 or 3 zilches; subtract 500 or 1000, halve, or reset
   ``score_floor``             0.3    -1000, -2500 (with a subtracted penalty)
   triples                     0.4    every triple times 0.5, 0.75, 1.5 or 2 (to 50 points)
   singles                     0.3    a one 100, 150 or 200; a five 50 or 100
   ``straight``                0.3    0, 1000, 1500, 2000, 2500, 3000
   ``three_pairs``             0.3    0, 500, 750, 1000, 1500
   ``two_triplets``            0.2    0, 1000, 2500
   ``partial_straights``       0.1    12345 = 500, 23456 = 750 (not with pyramiding)
   ``permanent_straight``      0.1    flipped
   =========================== ====== ==========================================================

   A draw the loader or the engine refuses (a rule combination that is not playable) is drawn again.

The grids of the table are the module's constants (:data:`TARGETS`, :data:`ENTRY_THRESHOLDS`,
:data:`MIN_BANKS`, :data:`SINGLE_ONES`, ...), read at each draw. :func:`reachable` gives, rule by
rule, every value a draw can have (the presets' own and the grids'); :func:`outside_distribution`
names the values of a ruleset outside it, so that a ruleset is provably never drawn (the held-out
suite of ``train/suite/`` is checked so; the kinds rule, for one, is never drawn).

:func:`held_out_rules` are rulesets outside that distribution, named, for evaluation: targets and
scoring values off its grids, in 2, 3 and 4-player games. :func:`variant_rules` are the variants
alone and all together on zonk and farkle, two players.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, NamedTuple

import numpy as np

from zilch_env.rules.schema import PRESETS, Ruleset, RulesetError, UnsupportedRulesError
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.load import load_ruleset

__all__ = ["RulesDraw", "sample_rules", "held_out_rules", "variant_rules", "reachable", "outside_distribution",
           "scaled_triple", "TARGETS", "P_PRESET"]

#: The targets the distribution draws from.
TARGETS = (2000, 3000, 4000, 5000, 6000, 8000, 10000, 12000, 15000, 20000)
#: The chance that a draw is a preset as it is (two players).
P_PRESET = 0.3
#: The other grids the overrides draw from (the table of the module docstring); :func:`reachable`
#: and the held-out suite's test read them, so a value off them is provably never drawn.
ENTRY_THRESHOLDS = (0, 300, 500, 750, 1000)
MIN_BANKS = (0, 300, 350, 500)
SIX_DICE_BONUSES = (500, 1000)
PENALTY_COUNTS = (2, 3)
PENALTY_MODES = ("subtract", "subtract", "halve", "reset")
PENALTY_POINTS = (500, 1000)
SCORE_FLOORS = (-1000, -2500)
TRIPLE_FACTORS = (0.5, 0.75, 1.5, 2.0)
SINGLE_ONES = (100, 150, 200)
SINGLE_FIVES = (50, 100)
STRAIGHTS = (0, 1000, 1500, 2000, 2500, 3000)
THREE_PAIRS = (0, 500, 750, 1000, 1500)
TWO_TRIPLETS = (0, 1000, 2500)
PARTIAL_STRAIGHTS = {"12345": 500, "23456": 750}
ENDS = ("others_one_turn", "finish_round", "instant")
_VARIANTS = ("pyramiding", "challenge", "overcoming", "piggyback")
_MAX_TRIES = 200


class RulesDraw(NamedTuple):
    """One ruleset of the distribution: the rules, the players, and how it was made (a preset name
    and its overrides in dotted keys, as ``--ruleset`` and ``--set`` take them)."""

    ruleset: Ruleset
    players: int
    preset: str
    overrides: dict[str, Any]
    note: str = ""

    @property
    def label(self) -> str:
        """``preset Np`` and the overrides (or the note that names them)."""
        if self.note:
            return f"{self.preset} {self.players}p {self.note}"
        sets = " ".join(f"{k}={v}" for k, v in self.overrides.items())
        return f"{self.preset} {self.players}p" + (f" {sets}" if sets else "")


def _entry_cap(target: int) -> int:
    """The highest entry threshold drawn at ``target``: half of it, in 50s."""
    return target // 2 // 50 * 50


def scaled_triple(points: int, factor: float) -> int:
    """A triple's points times ``factor``, in 50s, at least 50 (how the draws scale the triples)."""
    return max(50, int(round(points * factor / 50)) * 50)


def _overrides(rng: np.random.Generator, base: Ruleset) -> tuple[dict[str, Any], int]:
    def pick(values):
        return values[int(rng.integers(len(values)))]

    o: dict[str, Any] = {}
    players = int(rng.choice([2, 3, 4], p=[0.5, 0.3, 0.2]))
    target = base.target
    if rng.random() < 0.6:
        o["target"] = target = pick(TARGETS)
    if rng.random() < 0.3:
        o["entry_threshold"] = min(pick(ENTRY_THRESHOLDS), _entry_cap(target))
    if rng.random() < 0.3:
        o["min_bank"] = pick(MIN_BANKS)
    if rng.random() < 0.15:
        o["keep"] = "free" if base.keep == "all_scoring" else "all_scoring"
    if rng.random() < 0.15:
        o["hot_dice"] = "optional" if base.hot_dice == "forced" else "forced"
    if rng.random() < 0.25:
        o["end"] = pick(ENDS)
    if rng.random() < 0.2:
        o["tie"] = "draw" if base.tie == "tiebreak" else "tiebreak"
    for v in _VARIANTS:
        if rng.random() < 0.15:
            o[f"variants.{v}"] = True
    if rng.random() < 0.15:
        o["variants.six_dice_zilch_bonus"] = pick(SIX_DICE_BONUSES)
    if rng.random() < 0.2:
        o["variants.zilch_penalty.count"] = pick(PENALTY_COUNTS)
        mode = pick(PENALTY_MODES)
        o["variants.zilch_penalty.mode"] = mode
        o["variants.zilch_penalty.points"] = pick(PENALTY_POINTS) if mode == "subtract" else 0
        if mode == "subtract" and rng.random() < 0.3:
            o["score_floor"] = pick(SCORE_FLOORS)
    sc = base.scoring
    if rng.random() < 0.4:
        f = pick(TRIPLE_FACTORS)
        for face, pts in sc.triples.items():
            o[f"scoring.triples.{face}"] = scaled_triple(pts, f)
    if rng.random() < 0.3:
        if 1 in sc.singles:
            o["scoring.singles.1"] = pick(SINGLE_ONES)
        if 5 in sc.singles:
            o["scoring.singles.5"] = pick(SINGLE_FIVES)
    if rng.random() < 0.3:
        o["scoring.straight"] = pick(STRAIGHTS)
    if rng.random() < 0.3:
        o["scoring.three_pairs"] = pick(THREE_PAIRS)
    if rng.random() < 0.2:
        o["scoring.two_triplets"] = pick(TWO_TRIPLETS)
    if rng.random() < 0.1 and not o.get("variants.pyramiding") and not base.variants.pyramiding:
        o["scoring.partial_straights"] = dict(PARTIAL_STRAIGHTS)
    if rng.random() < 0.1:
        o["scoring.permanent_straight"] = not sc.permanent_straight
    return o, players


def _playable(rs: Ruleset, players: int) -> bool:
    """Whether the engine's compiled rules take ``rs`` at ``players`` players (what every game under
    them is built from)."""
    try:
        compile_rules(rs).params(players)
    except (RulesetError, UnsupportedRulesError, ValueError):
        return False
    return True


def sample_rules(count: int, seed: int | None = None) -> list[RulesDraw]:
    """``count`` draws of the distribution (see the module docstring), seeded: the same seed gives
    the same rulesets."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"count = {count!r}: a whole number of rulesets, 1 or more")
    rng = np.random.default_rng(seed)
    out: list[RulesDraw] = []
    while len(out) < count:
        preset = PRESETS[int(rng.integers(len(PRESETS)))]
        base = load_ruleset(preset)
        if rng.random() < P_PRESET:
            out.append(RulesDraw(base, 2, preset, {}))
            continue
        for _ in range(_MAX_TRIES):
            overrides, players = _overrides(rng, base)
            try:
                rs = load_ruleset(preset, overrides)
            except (RulesetError, UnsupportedRulesError):
                continue
            if _playable(rs, players):
                out.append(RulesDraw(rs, players, preset, overrides))
                break
        else:  # pragma: no cover - every preset has playable draws
            raise RuntimeError(f"no playable ruleset drawn around {preset!r} in {_MAX_TRIES} tries")
    return out


def _named(preset: str, players: int, overrides: dict[str, Any], note: str = "") -> RulesDraw:
    return RulesDraw(load_ruleset(preset, overrides), players, preset, overrides, note)


def held_out_rules() -> list[RulesDraw]:
    """Rulesets outside the distribution: targets off :data:`TARGETS`, scoring values off its grids
    (triples times 1.25, a straight of 1,800, a one of 120, three pairs 1,200), in 2, 3 and 4-player
    games."""
    triples = {f"scoring.triples.{f}": v for f, v in
               {1: 1250, 2: 250, 3: 375, 4: 500, 5: 625, 6: 750}.items()}
    return [
        _named("zonk", 2, {"target": 2500}),
        _named("farkle", 2, {"target": 7000}),
        _named("zilch", 2, {"target": 17500}),
        _named("farkle", 2, {**triples, "scoring.straight": 1800}, "triples x1.25, straight=1800"),
        _named("zonk", 2, {"scoring.singles.1": 120, "scoring.three_pairs": 1200, "target": 11000}),
        _named("zonk", 3, {"target": 7000}),
        _named("farkle", 3, {"scoring.straight": 1800, "variants.piggyback": True}),
        _named("zilch", 3, {"target": 3500, "variants.overcoming": True}),
        _named("zonk", 4, {"target": 6500, **triples}, "target=6500, triples x1.25"),
        _named("farkle-basic", 4, {"target": 4500, "variants.challenge": True}),
    ]


def variant_rules() -> list[RulesDraw]:
    """Each variant alone and all together, on zonk and on farkle, two players."""
    alone = [{"variants.pyramiding": True}, {"variants.challenge": True}, {"variants.overcoming": True},
             {"variants.piggyback": True}, {"variants.six_dice_zilch_bonus": 500},
             {"variants.zilch_penalty.count": 3, "variants.zilch_penalty.mode": "halve",
              "variants.zilch_penalty.points": 0}]
    together = {k: v for d in alone[:5] for k, v in d.items()}
    notes = ["pyramiding", "challenge", "overcoming", "piggyback", "six-dice bonus 500", "zilch penalty: halve",
             "pyramiding+challenge+overcoming+piggyback+bonus"]
    return [_named(p, 2, o, note) for p in ("zonk", "farkle") for o, note in zip((*alone, together), notes)]


def _leaves(rs: Ruleset) -> dict[str, Any]:
    """The rules of ``rs`` as the independent choices the distribution makes, dotted key -> value:
    every field, a point map face by face (and its faces), the kinds rule with its values as one
    choice (the draws never change them) and the zilch penalty as one ``(count, points, mode)``."""
    sc, va = rs.scoring, rs.variants
    out: dict[str, Any] = {f.name: getattr(rs, f.name) for f in fields(rs) if f.name not in ("name", "scoring",
                                                                                              "variants")}
    for f in fields(sc):
        v = getattr(sc, f.name)
        if f.name in ("singles", "triples"):
            out[f"scoring.{f.name}"] = tuple(sorted(v))
            out.update({f"scoring.{f.name}.{k}": x for k, x in v.items()})
        elif f.name == "kind_values":
            continue
        elif f.name == "kinds":
            out["scoring.kinds"] = (v, tuple(sorted(sc.kind_values.items())))
        elif f.name == "partial_straights":
            out["scoring.partial_straights"] = tuple(sorted(v.items()))
        else:
            out[f"scoring.{f.name}"] = v
    for f in fields(va):
        v = getattr(va, f.name)
        out[f"variants.{f.name}"] = (v.count, v.points, v.mode) if f.name == "zilch_penalty" else v
    return out


def _grids() -> tuple:
    return (TARGETS, ENTRY_THRESHOLDS, MIN_BANKS, SIX_DICE_BONUSES, PENALTY_COUNTS, PENALTY_MODES, PENALTY_POINTS,
            SCORE_FLOORS, TRIPLE_FACTORS, SINGLE_ONES, SINGLE_FIVES, STRAIGHTS, THREE_PAIRS, TWO_TRIPLETS,
            tuple(PARTIAL_STRAIGHTS.items()), ENDS)


_REACHABLE: dict[tuple, dict[str, frozenset]] = {}


def reachable() -> dict[str, frozenset]:
    """Every value :func:`sample_rules` can give each choice of :func:`_leaves`: the presets' own, and
    the grids above wherever the draws override it (a superset of the distribution's rules, choice by
    choice; a ruleset with one value outside it is never drawn). Built once per value of the grids."""
    key = _grids()
    if key not in _REACHABLE:
        _REACHABLE[key] = _reachable()
    return _REACHABLE[key]


def _reachable() -> dict[str, frozenset]:
    bases = [load_ruleset(p) for p in PRESETS]
    targets = {b.target for b in bases} | set(TARGETS)
    add: dict[str, set] = {
        "target": set(TARGETS),
        "entry_threshold": {min(e, _entry_cap(t)) for e in ENTRY_THRESHOLDS for t in targets},
        "min_bank": set(MIN_BANKS), "keep": {"free", "all_scoring"}, "hot_dice": {"optional", "forced"},
        "end": set(ENDS), "tie": {"draw", "tiebreak"}, "score_floor": set(SCORE_FLOORS),
        "variants.six_dice_zilch_bonus": set(SIX_DICE_BONUSES),
        "variants.zilch_penalty": {(c, pts if m == "subtract" else 0, m) for c in PENALTY_COUNTS
                                   for m in PENALTY_MODES for pts in PENALTY_POINTS},
        "scoring.singles.1": set(SINGLE_ONES), "scoring.singles.5": set(SINGLE_FIVES),
        "scoring.straight": set(STRAIGHTS), "scoring.three_pairs": set(THREE_PAIRS),
        "scoring.two_triplets": set(TWO_TRIPLETS),
        "scoring.partial_straights": {tuple(sorted((k, v) for k, v in
                                                   load_ruleset("zonk", {"scoring.partial_straights":
                                                                         PARTIAL_STRAIGHTS}).scoring
                                                   .partial_straights.items()))},
        "scoring.permanent_straight": {True, False},
        **{f"variants.{v}": {True} for v in _VARIANTS},
    }
    out: dict[str, set] = {}
    for b in bases:
        for key, value in _leaves(b).items():
            out.setdefault(key, set()).add(value)
        for face, pts in b.scoring.triples.items():
            out[f"scoring.triples.{face}"].update(scaled_triple(pts, f) for f in TRIPLE_FACTORS)
    for key, values in add.items():
        out.setdefault(key, set()).update(values)
    return {k: frozenset(v) for k, v in out.items()}


def outside_distribution(rs: Ruleset) -> list[str]:
    """Why :func:`sample_rules` never draws ``rs``: each choice whose value is outside
    :func:`reachable` (with what the distribution draws there); empty when every value is reachable
    (``rs`` may still not be drawn: the values' combination may be impossible)."""
    can = reachable()
    why = []
    for key, value in _leaves(rs).items():
        allowed = can.get(key, frozenset())
        if value not in allowed:
            shown = ", ".join(sorted(map(str, allowed))) or "nothing"
            why.append(f"{key} = {value} (the distribution draws {shown})")
    return why
