"""A ruleset's strategy card as data (``zilch strategy``, the rules page of the web game): the exact
parts (:mod:`agents.solver.strategy`: when to bank, the rule of thumb and its cost in points, the
first player's edge and the compensation) and the rule of thumb's cost in win chance, measured in
games against ``optimal-win`` (:func:`agents.evaluate.evaluate`: seat-balanced deals with common
dice, the 95% interval, and the luck-adjusted share where the game table is stored).

The games take minutes, so the cards of the presets are computed once and shipped
(:data:`CARDS_FILE`, written by ``python docs/results/make_results.py strategy-cards``); a card asked
for rules whose card is shipped (the same rules, by :func:`agents.solver.game.ruleset_key`) is that
card. For other rules :func:`strategy_card` computes the exact parts (a second or two) and plays the
games only when asked (``games``).
"""

from __future__ import annotations

import json
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from zilch_env import Ruleset, UnsupportedRulesError, load_ruleset

from agents.evaluate.play import solo_ruleset
from agents.solver.game_table import ruleset_key

__all__ = ["CARD_FORMAT", "CARDS_FILE", "RULE_TEXT", "page_card", "rule_lines", "say_rule", "shipped_card",
           "strategy_card", "turn_key"]

#: The format of a card (the JSON of ``zilch strategy --json`` and of :data:`CARDS_FILE`).
CARD_FORMAT = "zilch-rl/strategy/1"
#: The shipped cards of the presets, by preset name.
CARDS_FILE = Path(__file__).with_name("strategy_cards.json")
#: The seed of the games a card plays (their deals; the same seed gives the same games).
SEED = 37

#: The rule of thumb in English, one sentence per key (the web page's catalogues hold the same keys
#: under ``strategy.`` in every language; tests/zilch_web/test_web_strategy.py holds them equal).
RULE_TEXT = {
    "keep.most": "Set aside every scoring die.",
    "keep.combos": "When you roll on, set aside only three of a kind or better, or, without one, a single "
                   "die (the best); set aside every scoring die when you bank or when all of them score.",
    "bank.all": "Bank once the turn total reaches {points}.",
    "bank.upTo": "Bank at {points} or more with {dice} or fewer dice left.",
    "bank.one": "Bank at {points} or more with 1 die left.",
    "bank.more": "With {range} dice left, bank at {points} or more.",
    "bank.else": "Otherwise roll, hot dice included.",
    "entry.same": "Before you are on the board, the same from {entry}.",
    "entry.upTo": "Before you are on the board, bank as soon as you reach {entry} with {dice} or fewer dice left.",
    "entry.one": "Before you are on the board, bank as soon as you reach {entry} with 1 die left.",
    "entry.any": "Before you are on the board, bank as soon as you reach {entry}.",
}


def rule_lines(rule: dict[str, Any], dice: int, entry: int, free_keep: bool) -> list[tuple[str, dict[str, Any]]]:
    """The rule of thumb (a card's ``rule``) as sentences: ``(key of RULE_TEXT, values)``, numbers
    as numbers (a page writes them its language's way)."""
    out: list[tuple[str, dict[str, Any]]] = []
    if free_keep:
        out.append(("keep." + rule["keep"], {}))
    d, t = rule["dice"], rule["bank_at"]
    if d >= dice:
        out.append(("bank.all", {"points": t}))
    else:
        out.append(("bank.one", {"points": t}) if d == 1 else ("bank.upTo", {"points": t, "dice": d}))
        if rule["above"] is not None:
            lo, hi = d + 1, dice - 1
            out.append(("bank.more", {"points": rule["above"], "range": str(lo) if lo == hi else f"{lo}-{hi}"}))
        out.append(("bank.else", {}))
    if entry:
        e = rule["entry_dice"]
        if e is None:
            out.append(("entry.same", {"entry": entry}))
        elif e >= dice:
            out.append(("entry.any", {"entry": entry}))
        else:
            out.append(("entry.one", {"entry": entry}) if e == 1 else ("entry.upTo", {"entry": entry, "dice": e}))
    return out


def say_rule(lines: list[tuple[str, dict[str, Any]]], texts: dict[str, str] | None = None,
             number=lambda n: f"{n:,}") -> str:
    """The sentences of :func:`rule_lines` said from ``texts`` (default English), numbers by ``number``."""
    texts = RULE_TEXT if texts is None else texts
    said = []
    for key, values in lines:
        v = {k: number(x) if isinstance(x, int) and k in ("points", "entry") else x for k, x in values.items()}
        said.append(texts[key].format(**v))
    return " ".join(said)


# --------------------------------------------------------------------------------------------
# The card


def _turn_part(rs: Ruleset) -> tuple[dict[str, Any], dict[str, Any] | None, str | None]:
    from agents.solver.strategy import rule_dict, bank_table, search_rules, turn_optimum_of

    turn = {**bank_table(rs), **turn_optimum_of(rs)}
    try:
        found = search_rules(rs)
    except UnsupportedRulesError as e:
        return turn, None, str(e)
    rule = rule_dict(found["rule"])
    lines = rule_lines(rule, rs.dice, rs.entry_threshold, rs.keep == "free")
    part = {
        **rule, "words": say_rule(lines), "lines": [[k, v] for k, v in lines],
        "points_per_turn": found["points_per_turn"], "cost": found["cost"], "optimum": found["optimum"],
        "measure": found["measure"], "entry_points": found["entry_points"], "entry_cost": found["entry_cost"],
        "entry_optimum": found["entry_optimum"], "tolerance": found["tolerance"],
        "best": {**rule_dict(found["best"]["rule"]), "cost": found["best"]["cost"]},
        "by_size": {str(n): {**rule_dict(x["rule"]), "cost": x["cost"]} for n, x in found["by_size"].items()},
        "candidates": found["candidates"],
    }
    return turn, part, None


def _game_part(rs: Ruleset, named: str) -> tuple[Any, dict[str, Any] | None, str | None]:
    from agents.solver.game import check_supported, load_game_table
    from agents.solver.strategy import game_edge

    try:
        check_supported(rs)
    except UnsupportedRulesError as e:
        return None, None, f"the game solver does not handle these rules: {e}"
    table = load_game_table(rs)
    if table is None:
        return None, None, (f"no solved game is stored for these rules; `zilch solve {named} --objective win` "
                            f"builds it (minutes), then the card shows the first player's edge and the "
                            f"compensation")
    edge = game_edge(table)
    return table, edge, None


def _win_part(rs: Ruleset, spec: str, games: int, seed: int, workers: int, progress: bool,
              named: str) -> dict[str, Any]:
    """The rule's share of games against ``optimal-win`` (seat-balanced, luck-adjusted)."""
    from agents.evaluate import evaluate

    t0 = time.perf_counter()
    rep = evaluate(agents=[spec, "optimal-win"], ruleset=rs, games=games, seed=seed, workers=workers,
                   solo_turns=0, luck="on", progress=progress)
    row = next(r for r in rep.data["tables"][0]["results"] if r["agent"] == spec)
    share, adj = row["score_share"], row["luck_adjusted"]
    return {"games": row["games"], "seed": seed, "opponent": "optimal-win", "share": share["rate"],
            "low": share["low"], "high": share["high"],
            "luck_adjusted": None if adj is None else adj["mean"],
            "luck_low": None if adj is None else adj["low"], "luck_high": None if adj is None else adj["high"],
            "luck_sd_reduction": row["luck_sd_reduction"], "seconds": round(time.perf_counter() - t0, 1),
            "command": f"zilch strategy {named} --games {games} --seed {seed}"}


def turn_key(rs: Ruleset) -> str:
    """A key of the rules of one turn: equal for rules whose turn part of the card is the same, those
    that differ only in the target, the ending, ties, the score floor and the variants that tie a
    turn to another player's (piggyback, challenge, overcoming)."""
    solo = solo_ruleset(rs)
    return ruleset_key(load_ruleset(solo, {"target": 10000, "end": "others_one_turn", "tie": "draw",
                                           "score_floor": 0}))


def strategy_card(ruleset: Ruleset | str, games: int = 0, seed: int = SEED, workers: int = 1,
                  progress: bool = False, stored: bool = True, command: str | None = None) -> dict[str, Any]:
    """The strategy card of ``ruleset`` (the format :data:`CARD_FORMAT`; see the module docstring).

    With ``stored`` and no ``games``, the shipped card of the same rules when there is one (its win
    figure from 10,000 games). Else computed: ``turn`` (the bank table and the optimum's points),
    ``rule`` (the rule of thumb, its words and costs; None with ``why["rule"]`` where the rules have
    none), ``game`` (the edge and the compensation; None with ``why["game"]`` without a solved game),
    ``win`` (the rule's share of ``games`` games against ``optimal-win``; None with ``why["win"]``
    when not played). ``command`` is how a command line names these rules (default ``--ruleset
    NAME``), for the commands the card suggests."""
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    if stored and not games:
        card = shipped_card(rs)
        if card is not None:
            return card
    t0 = time.perf_counter()
    why: dict[str, str] = {}
    named = command or f"--ruleset {rs.name}"
    turn, rule, why_rule = _turn_part(rs)
    if why_rule:
        why["rule"] = why_rule
    table, game, why_game = _game_part(rs, named)
    if why_game:
        why["game"] = why_game
    win = None
    if rule is None:
        why["win"] = "no rule of thumb to measure"
    elif table is None:
        why["win"] = "the games against optimal-win need the solved game: " + why_game
    elif rs.variants.pyramiding:  # pragma: no cover - no rule then
        why["win"] = "no rule of thumb under pyramiding"
    elif not games:
        why["win"] = (f"not measured: `zilch strategy {named} --games 10000` plays the rule against "
                      f"optimal-win (minutes)")
    else:
        win = _win_part(rs, rule["spec"], games, seed, workers, progress, named)
    return {"format": CARD_FORMAT, "ruleset": rs.name, "key": ruleset_key(rs), "turn_key": turn_key(rs),
            "dice": rs.dice,
            "target": rs.target, "entry_threshold": rs.entry_threshold, "min_bank": rs.min_bank,
            "free_keep": rs.keep == "free", "rules_arg": named, "turn": turn, "rule": rule, "game": game, "win": win,
            "why": why,
            "source": "computed", "seconds": round(time.perf_counter() - t0, 1)}


@lru_cache(maxsize=1)
def _shipped() -> dict[str, Any]:
    if not CARDS_FILE.exists():
        return {}
    return json.loads(CARDS_FILE.read_text(encoding="utf-8")).get("cards", {})


def shipped_card(ruleset: Ruleset | str) -> dict[str, Any] | None:
    """The shipped card of these rules (any name: matched by the rules' key), or None."""
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    key = ruleset_key(rs)
    for card in _shipped().values():
        if card.get("key") == key:
            return {**card, "ruleset": rs.name, "source": "stored",
                    "rules_arg": card["rules_arg"] if rs.name == card["ruleset"] else f"--ruleset {rs.name}"}
    return None


def shipped_turn(ruleset: Ruleset) -> dict[str, Any] | None:
    """A shipped card whose turn part is these rules' (:func:`turn_key`), or None."""
    key = turn_key(ruleset)
    return next((c for c in _shipped().values() if c.get("turn_key") == key), None)


def page_card(ruleset: Ruleset) -> dict[str, Any] | None:
    """The card a page shows at once (nothing is played or searched here): the shipped card of these
    rules; else, where a shipped card has the same turn (:func:`turn_key`: another target, ending
    or a variant between players), its turn and rule of thumb with the edge from a stored game
    table if there is one (the rule's games were played under the shipped card's rules, so its win
    figure is left out); else None."""
    card = shipped_card(ruleset)
    if card is not None:
        return card
    same = shipped_turn(ruleset)
    if same is None:
        return None
    _, game, why_game = _game_part(ruleset, f"--ruleset {ruleset.name}")
    why = {"win": f"measured under the rules of {same['ruleset']} only"}
    if why_game:
        why["game"] = why_game
    return {**same, "ruleset": ruleset.name, "key": ruleset_key(ruleset), "target": ruleset.target,
            "game": game, "win": None, "why": why, "source": f"turn of {same['ruleset']}"}
