"""Words for people: a ruleset's summary and a game told turn by turn (``zilch simulate``, rules pages)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from zilch_env.engine.game import GameState
from zilch_env.rules.schema import Ruleset
from zilch_env.rules.words import is_set, rule_words, ruleset_value

#: The English of each line of :func:`rules_lines`, by key: ``{name}`` is a value of the line. Every
#: language's lines are in the rules' catalogue (zilch_env/rules/words.toml, ``[lines.LANG]``), which
#: the web game's rules page says in the player's language.
RULES_TEXT = rule_words().lines["en"]

#: A line of :func:`rules_lines`: its key in :data:`RULES_TEXT` and its values (numbers, strings,
#: ``{face: points}`` maps, or lists of lines joined with "; ").
Line = tuple[str, dict[str, Any]]


def rules_lines(rs: Ruleset) -> list[Line]:
    """The rules of ``rs`` as keyed lines: which lines apply and their figures, said in words by
    :func:`say_line` (English by :data:`RULES_TEXT`, another language by its own texts). The last
    are the catalogue's lines said whenever their key is set (``[[said_when_set]]`` of
    zilch_env/rules/words.toml), with ``n`` the key's value."""
    s, v = rs.scoring, rs.variants
    lines: list[Line] = [
        ("title", {"name": rs.name, "dice": rs.dice, "target": rs.target}),
        ("turn", {}),
        ("keep.all_scoring" if rs.keep == "all_scoring" else "keep.choose", {}),
        ("hot.forced" if rs.hot_dice == "forced" else "hot.optional", {}),
        ("entry", {"n": rs.entry_threshold}) if rs.entry_threshold else ("entry.none", {}),
    ]
    if rs.min_bank:
        lines.append(("min_bank", {"n": rs.min_bank}))
    lines.append(("singles", {"singles": dict(s.singles), "triples": dict(s.triples)}))
    lines.append(("kinds." + s.kinds, {"values": dict(s.kind_values)} if s.kinds in ("flat", "multiple") else {}))
    specials: list[Line] = []
    if s.straight:
        specials.append(("special.straight_permanent" if s.permanent_straight else "special.straight",
                         {"points": s.straight}))
    if s.three_pairs:
        specials.append(("special.three_pairs_four" if s.four_and_pair_is_three_pairs else "special.three_pairs",
                         {"points": s.three_pairs}))
    if s.two_triplets:
        specials.append(("special.two_triplets", {"points": s.two_triplets}))
    if specials:
        lines.append(("specials", {"items": specials}))
    partial = [(run, pts) for run, pts in s.partial_straights.items() if pts]
    if partial and rs.dice >= 5:
        lines.append(("partial.six" if rs.dice == 6 else "partial",
                      {"items": [("partial.item", {"run": "-".join(str(run)), "points": pts}) for run, pts in partial]}))
    if rs.score_floor < 0:
        lines.append(("floor", {"n": rs.score_floor}))
    lines.append(("pyramiding" if v.pyramiding else "no_span", {}))
    lines.append(("end." + rs.end, {}))
    if rs.end != "instant":  # the instant ending has no ties: every other score is below the target
        lines.append(("tie.tiebreak" if rs.tie == "tiebreak" else "tie.draw", {}))
    zp = v.zilch_penalty
    if zp.count:
        lines.append(("penalty." + zp.mode, {"count": zp.count, "points": zp.points}))
    for key, line in rule_words().said_when_set:  # the catalogue's lines said whenever their key is set
        if is_set(rs, key):
            lines.append((line, {"n": ruleset_value(rs, key)}))
    return lines


def say_line(line: Line, text: Mapping[str, str] = RULES_TEXT, number: Callable[[int], str] = str) -> str:
    """A line of :func:`rules_lines` in words: ``text[key]`` with its values put in (numbers by
    ``number``, a ``{face: points}`` map as "1 = 100, 5 = 50" or ``text["none"]``, a list of lines
    joined with "; ")."""
    key, values = line

    def put(v: Any) -> str:
        if isinstance(v, dict):
            return ", ".join(f"{k} = {number(x)}" for k, x in v.items() if x) or text["none"]
        if isinstance(v, list):
            return "; ".join(say_line(x, text, number) for x in v)
        return number(v) if isinstance(v, int) else str(v)

    return text[key].format(**{k: put(v) for k, v in values.items()})


def rules_summary(rs: Ruleset) -> str:
    """The rules of ``rs`` in plain English sentences, a line each (``zilch rules --summary``)."""
    return "\n".join(say_line(x) for x in rules_lines(rs))


def narrate(game: GameState, policies: Sequence, rng: np.random.Generator,
            names: Sequence[str] | None = None, verbose: bool = True,
            max_turns: int | None = None) -> Iterator[str]:
    """Play ``game`` to the end with ``policies``, yielding a line per roll decision and per turn;
    with ``max_turns``, stop once that many turns are played without a winner (movers that never bank
    under some rules would otherwise play for ever)."""
    names = names or [f"P{q + 1}" for q in range(game.num_players)]
    turn_no = 0
    while not game.done:
        if max_turns is not None and len(game.turns) >= max_turns:
            yield (f"No winner after {len(game.turns)} turns (the turn limit); scores: "
                   + " ".join(str(s) for s in game.scores))
            return
        p = game.current
        n_turns = len(game.turns)
        legal = game.legal_actions()
        action = policies[p].act(game, legal, rng)
        if verbose:
            head = f"  {names[p]} rolls {' '.join(map(str, game.roll))}: " if game.roll else f"  {names[p]}: "
            yield head + game.describe(action)
        game.apply(action)
        for t in game.turns[n_turns:]:
            turn_no += 1
            q = t["player"]
            if t["banked"]:
                what = f"banks {t['turn_total']}"
            else:
                what = f"zilch ({' '.join(map(str, t['zilch_roll']))})"
                if t["recorded"]:
                    what += f", keeps {t['recorded']} permanent"
            if t["banked"] and not t["recorded"]:
                what += " (not on the board)"
            extra = f" [{t['penalty']}]" if t["penalty"] else ""
            yield f"Turn {turn_no:>3} {names[q]:<4} {what}{extra} -> {t['score']}   scores: " + " ".join(
                str(s) for s in game.scores)
    w = game.winners or ()
    yield ("Draw between " if len(w) > 1 else "Winner: ") + ", ".join(names[q] for q in w) + \
        f" with {game.scores[w[0]]} after {len(game.turns)} turns"
