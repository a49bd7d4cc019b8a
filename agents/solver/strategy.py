"""The exact parts of a ruleset's strategy card (``zilch strategy``; the rules page of the web game).

* **When to bank** (:func:`bank_table`): from the turn solver (:func:`agents.solver.solve_turn`), for
  each number of dice the player would roll next, the least turn total from which the turn optimum
  banks (and never rolls again), on the board and before it (the entry threshold).
* **The rule of thumb** (:func:`search_rules`): a small family of rules a person can remember
  (:class:`agents.solver.rule_value.Rule`): "bank at T or more" (``F1``); "bank at T or more with D
  dice or fewer left, otherwise roll" (``F2``); the same with a second total T2 for more dice, short
  of a fresh roll of all of them (``F3``); each with the keep of the most points or of combinations
  only (``combos``: roll on with the three-of-a-kinds, or one single die); before the board,
  optionally "bank as soon as you may with E dice or fewer" (``entry_dice``). Every rule's points
  per turn are computed exactly (:func:`agents.solver.rule_value.rule_points_per_turn`), so its
  cost is the optimum's points per turn less its own. The rule given is the simplest (fewest
  numbers, :meth:`Rule.numbers`) of those within :func:`tolerance` of the best of the family; its
  part before the board is chosen the same way on the points of a turn before the board.
* **The first player's edge and the compensation** (:func:`game_edge`): from the solved two-player
  game (:mod:`agents.solver.game`), the first player's chance at the start, and the chance with a
  head start of c points for one player, read from the table for every c on its score grid. The
  table indexes a player off the board as one state of score 0 and the others by score from the
  floor up, so a head start is a score *on the board* (c = 0: excused from the entry threshold);
  under rules without an entry threshold it is exactly a game started at (0, c). The head start goes
  to the player the edge is against (the second player when the first player's chance is above
  one half); the compensation is the c that brings the chance closest to one half.

The ``thumb`` agent (:class:`ThumbAgent`, spec ``thumb:bank=300,dice=2``, or plain ``thumb`` for the
rule of thumb of the rules played) plays a rule in the engine: ``zilch eval --agents thumb
optimal-win`` measures its cost in games.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from zilch_env import FRESH, NO_CHALLENGE, GameState, Phase, Ruleset, UnsupportedRulesError, load_ruleset

from agents.solver.rule_value import (KEEPS, Rule, combos_keep, parse_rule, rule_points_per_turn, rule_value)

__all__ = ["Rule", "ThumbAgent", "bank_table", "game_edge", "rule_dict", "search_rules", "tolerance",
           "turn_optimum_of"]

#: Turn totals the rules are searched over: steps of this many points (or the rules' unit, if larger).
STEP = 50
#: The largest ``bank_at`` tried; the second total ``above`` is tried up to three times it.
MAX_BANK_AT = 3000


def tolerance(optimum: float) -> float:
    """How much worse than the best rule of the family the simplest rule may be: 0.5% of the
    optimum's points per turn, at least 1 point (a turn's points vary by hundreds)."""
    return max(1.0, 0.005 * optimum)


def _turn_rules(rs: Ruleset) -> Ruleset:
    """The rules of one player's turn: without the variants that tie a turn to another player's
    (piggyback, challenge, overcoming), as the evaluation's solo measure plays them."""
    from agents.evaluate.play import solo_ruleset

    return solo_ruleset(rs)


def turn_optimum_of(rs: Ruleset) -> dict[str, Any]:
    """The turn optimum's points: ``points_per_turn`` on the board (a subtracted zilch-streak
    penalty counted; None under ``halve`` / ``reset``), ``expected_points`` of one turn on the board
    and ``entry_points`` of a turn before the board (None without an entry threshold)."""
    from agents.solver import solve_turn

    rs = _turn_rules(rs)
    on = solve_turn(rs, on_board=True)
    off = solve_turn(rs, on_board=False) if rs.entry_threshold else None
    return {"points_per_turn": on.points_per_turn, "expected_points": on.expected_points,
            "entry_points": None if off is None else off.expected_points}


def bank_table(rs: Ruleset) -> dict[str, Any]:
    """When the turn optimum banks: ``{"on_board": {n: total}, "entry": {n: total} or None}``, for
    n dice to roll next (n = all of them: after hot dice), the least turn total from which it banks
    whenever it may and never rolls again (``agents.solver.turn.TurnPolicy.bank_totals``; None: it
    rolls up to the largest total the solve stores), with ``min_bank`` and ``entry_threshold``."""
    from agents.solver import solve_turn

    rs = _turn_rules(rs)
    on = solve_turn(rs, on_board=True).policy.bank_totals()
    off = solve_turn(rs, on_board=False).policy.bank_totals() if rs.entry_threshold else None
    return {"dice": rs.dice, "min_bank": rs.min_bank, "entry_threshold": rs.entry_threshold,
            "on_board": {str(n): t for n, t in on.items()},
            "entry": None if off is None else {str(n): t for n, t in off.items()}}


def _grid(rs: Ruleset) -> tuple[int, list[int]]:
    from zilch_env.rules.compiled import compile as compile_rules

    unit = compile_rules(rs).unit
    step = unit * max(1, -(-STEP // unit))
    lo = max(step, -(-rs.min_bank // step) * step)
    return step, list(range(lo, max(lo, MAX_BANK_AT) + 1, step))


def _family(rs: Ruleset, keep: str, ppt) -> list[tuple[float, Rule]]:
    """Every rule of the family with this keep, as ``(points per turn, rule)``: F1 and F2 over the
    whole grid; F3 by a coordinate search per D (the second total on a coarse grid from the best F2
    total, then each total on the fine grid in turn, twice)."""
    D = rs.dice
    step, totals = _grid(rs)
    out = [(ppt(Rule(t, D, keep=keep)), Rule(t, D, keep=keep)) for t in totals]
    for d in range(1, D):
        f2 = [(ppt(Rule(t, d, keep=keep)), Rule(t, d, keep=keep)) for t in totals]
        out += f2
        if d >= D - 1:
            continue  # with all the dice but one, no dice count lies between d and a fresh roll
        t1 = max(f2)[1].bank_at
        above = list(range(t1 + step, max(t1 + step, 3 * MAX_BANK_AT) + 1, 2 * step))
        t2 = max(above, key=lambda a: ppt(Rule(t1, d, a, keep=keep)))
        for _ in range(2):
            t1 = max((t for t in totals if t < t2), key=lambda t: ppt(Rule(t, d, t2, keep=keep)))
            near = [a for a in range(t2 - 4 * step, t2 + 4 * step + 1, step) if a > t1]
            t2 = max(near, key=lambda a: ppt(Rule(t1, d, a, keep=keep)))
        out.append((ppt(Rule(t1, d, t2, keep=keep)), Rule(t1, d, t2, keep=keep)))
    return out


def search_rules(ruleset: Ruleset | str) -> dict[str, Any]:
    """The rule of thumb of a ruleset (see the module docstring): ``rule`` (a :class:`Rule`), its
    ``points_per_turn`` and ``cost`` against the optimum (points per turn on the board), before the
    board its ``entry_points`` and ``entry_cost`` (None without an entry threshold), ``best`` the
    best rule of the family with its points and cost, ``by_shape`` the best rule of each size
    (numbers to remember) with its cost, ``tolerance`` and ``measure`` (what "points per turn" counts:
    ``"points per turn"``, or under a halving or resetting penalty ``"points of a turn"``, its
    penalty left out). Raises :class:`zilch_env.UnsupportedRulesError` under pyramiding."""
    rs = _turn_rules(ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset))
    if rs.variants.pyramiding:
        raise UnsupportedRulesError("variants.pyramiding = true: the rule of thumb is valued over the turn "
                                    "solver's state without the dice frozen in a pass, on which pyramiding's "
                                    "keeps depend; the bank table is exact")
    opt = turn_optimum_of(rs)
    per_turn = opt["points_per_turn"] is not None
    optimum = opt["points_per_turn"] if per_turn else opt["expected_points"]

    def ppt(rule: Rule) -> float:
        return rule_points_per_turn(rs, rule) if per_turn else rule_value(rs, rule, True)[0]

    keeps = KEEPS if rs.keep == "free" else ("most",)
    family = [x for k in keeps for x in _family(rs, k, ppt)]
    best_v, best = max(family)
    tol = tolerance(optimum)
    D = rs.dice
    by_size: dict[int, tuple[float, Rule]] = {}
    for v, r in family:
        n = r.numbers(D)
        if n not in by_size or v > by_size[n][0]:
            by_size[n] = (v, r)
    ok = [(r.numbers(D), -v, r) for v, r in family if v >= best_v - tol]
    _, neg, rule = min(ok)
    value = -neg
    entry_points = entry_cost = None
    if rs.entry_threshold:
        e_opt = opt["entry_points"]
        options = [(rule_value(rs, Rule(rule.bank_at, rule.dice, rule.above, e, rule.keep), False)[0], e)
                   for e in (None, *range(1, D + 1))]
        e_best = max(v for v, _ in options)
        fine = [(v, e) for v, e in options if v >= e_best - tolerance(e_opt)]
        chosen = None if any(e is None for _, e in fine) else max(fine)[1]
        rule = Rule(rule.bank_at, rule.dice, rule.above, chosen, rule.keep)
        entry_points = rule_value(rs, rule, False)[0]
        entry_cost = e_opt - entry_points
    return {
        "rule": rule, "points_per_turn": value, "cost": optimum - value, "optimum": optimum,
        "entry_points": entry_points, "entry_cost": entry_cost,
        "entry_optimum": opt["entry_points"],
        "best": {"rule": best, "points_per_turn": best_v, "cost": optimum - best_v},
        "by_size": {n: {"rule": r, "points_per_turn": v, "cost": optimum - v} for n, (v, r) in sorted(by_size.items())},
        "tolerance": tol, "measure": "points per turn" if per_turn else "points of a turn",
        "candidates": len(family),
    }


# --------------------------------------------------------------------------------------------
# The game: the first player's edge and the compensation


def game_edge(table: Any) -> dict[str, Any]:
    """The first player's edge and the compensation, from a solved two-player game
    (:class:`agents.solver.game.GameTable`): ``first_player_win`` at the start (a draw as half);
    ``to`` the player a head start goes to (``"second"`` when the first player's chance is above one
    half, else ``"first"``); ``curve`` the first player's chance for every head start c on the grid
    (points, on the board) up to where it passes one half (and a little beyond); ``points`` the head
    start that brings the first player's chance closest to one half (None when no head start comes
    closer than none) and ``first_player_win_with`` that chance; ``on_board`` whether the rules have
    an entry threshold (a head start then also puts its player on the board)."""
    rs = table.ruleset
    entry = rs.entry_threshold > 0
    w0 = float(table.first_player_win)
    to = "second" if w0 > 0.5 else "first"
    u = int(table.unit)
    curve: list[tuple[int, float]] = []
    beyond = 0
    for c in range(0, rs.target, u):
        if to == "second":
            w = table.race_value(0, 0, not entry, 0, c, True, 0)
        else:
            w = table.race_value(0, c, True, 0, 0, not entry, 0)
        curve.append((c, float(w)))
        if (w - 0.5) * (w0 - 0.5) <= 0:
            beyond += 1
            if beyond >= 3:
                break
    best_c, best_w = None, w0
    for c, w in curve:
        if abs(w - 0.5) < abs(best_w - 0.5):
            best_c, best_w = c, w
    return {"first_player_win": w0, "to": to, "points": best_c, "first_player_win_with": best_w,
            "on_board": entry, "unit": u, "curve": curve}


# --------------------------------------------------------------------------------------------
# The agent that plays a rule


class ThumbAgent:
    """Plays a :class:`Rule` (agent spec ``thumb:bank=300,dice=2[,above=...][,entry_dice=...]
    [,keep=combos]``; plain ``thumb``: the rule of thumb :func:`search_rules` gives for the rules):
    keeps the most points and banks where the rule banks with them, else keeps the rule's keep and
    rolls on (banking after it where the rule says so). Never challenges or piggybacks."""

    def __init__(self, ruleset: Ruleset, rule: Rule):
        self.ruleset, self.rule = ruleset, rule
        self.name = rule.spec()
        self._on = rule.thresholds(ruleset.dice, True)
        self._off = rule.thresholds(ruleset.dice, False)

    def _banks(self, state: GameState, keep, legal: set[int]) -> bool:
        from zilch_env import keep_action

        left = state.dice_left - keep.n
        bar = self._on if state.on_board[state.current] else self._off
        return (keep_action(keep.mask, True) in legal
                and state.turn_total + keep.points >= bar[left or self.ruleset.dice])

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        from zilch_env import keep_action

        if state.phase == Phase.CHALLENGE:
            return NO_CHALLENGE
        if state.phase == Phase.PIGGYBACK:
            return FRESH
        allowed = set(legal)
        best = state.best_keep()
        if self._banks(state, best, allowed):
            return keep_action(best.mask, True)
        keep = best
        if self.rule.keep == "combos" and self.ruleset.keep == "free" and not self.ruleset.variants.pyramiding:
            keeps = state.keeps()
            i = combos_keep(self.ruleset, state.roll, keeps, keeps.index(best))
            if i is not None:
                keep = keeps[i]
        return keep_action(keep.mask, self._banks(state, keep, allowed))


@lru_cache(maxsize=16)
def _card_rule(rs: Ruleset) -> Rule:
    return search_rules(rs)["rule"]


def _make_thumb(ruleset: Ruleset, arg: str | None) -> ThumbAgent:
    from agents.base import AgentSpecError

    if arg is None:
        try:
            return ThumbAgent(ruleset, _card_rule(ruleset))
        except UnsupportedRulesError as e:
            raise AgentSpecError(f"thumb: no rule of thumb for these rules ({e}); give one, e.g. "
                                 f"thumb:bank=300,dice=2") from None
    try:
        return ThumbAgent(ruleset, parse_rule(arg, ruleset.dice))
    except ValueError as e:
        raise AgentSpecError(str(e)) from None


def rule_dict(rule: Rule) -> dict[str, Any]:
    """A rule as plain data (a card's ``rule``), with the agent spec that plays it."""
    return {"bank_at": rule.bank_at, "dice": rule.dice, "above": rule.above, "entry_dice": rule.entry_dice,
            "keep": rule.keep, "spec": rule.spec()}
