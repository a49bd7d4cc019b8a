"""Hints: the best move of the player to move by the exact turn solver, with expected values.

:func:`agents.solver.solve_turn` solves a turn exactly: for each roll, turn total and dice left it
gives every keep, then bank or roll, with the points the turn is expected to record from there on
when played perfectly afterwards. That is what "best" means here: the most points this turn (and,
under a ``subtract`` zilch-streak penalty, the most points per turn in the long run, the streak's
future cost included). It does not look at the scores, so near the end of a game, when only
winning counts, a bolder or safer move can be right; the hint says so once the last turns begin.

The same hint serves the terminal game's ``?`` and the web game's hint button.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

from zilch_env import FRESH, NO_CHALLENGE, PIGGYBACK, Phase, Ruleset, UnsupportedRulesError, legal_keeps

from zilch_web.table import Table, cpu_agent
from zilch_web.seats import agent_lock


class HintUnavailable(RuntimeError):
    """No hint for this position (the solver does not cover these rules, or nothing to decide)."""


#: The largest turn-solver grid (turn totals up to the solver's cap, in steps of the rules' points
#: unit) a web hint may solve; rules beyond it are answered 409 before any solving. The preset
#: rules need 400 (zonk) to 1,000 totals; 500,000 is solved in seconds.
MAX_HINT_GRID = 500_000


def solve_key(table: Table) -> tuple[Ruleset, bool, int | None]:
    """What the hint of this position solves: (rules, on the board, the bar of ``overcoming``)."""
    g, rs = table.state, table.ruleset
    on = bool(g.on_board[g.current])
    thr = None
    if rs.variants.overcoming:
        thr = max(g.last_result + 1, rs.min_bank if on else rs.entry_threshold)
    return rs, on, thr


@functools.lru_cache(maxsize=256)
def points_unit(rs: Ruleset) -> int:
    """The greatest common divisor of every amount a keep (or the six-dice bonus) can add: the step
    of the turn totals the solver stores."""
    unit = int(rs.variants.six_dice_zilch_bonus or 0)
    for n in range(1, rs.dice + 1):
        for roll in itertools.combinations_with_replacement(range(1, 7), n):
            for k in legal_keeps(rs, roll):
                unit = math.gcd(unit, int(k.points))
                if unit == 1:
                    return 1
    return unit or 1


def solve_size(table: Table) -> int:
    """A size estimate made before solving: how many turn totals the solver would store at least
    (its first cap, eight times the least bankable total, over the points unit)."""
    from agents.solver import FIRST_CAP

    rs, on, thr = solve_key(table)
    bar = thr if thr is not None else (rs.min_bank if on else rs.entry_threshold)
    return max(FIRST_CAP, 8 * int(bar)) // points_unit(rs) + 1


def check_size(table: Table | None = None, rules: Ruleset | None = None) -> None:
    """Refuse (:class:`HintUnavailable`) a solve beyond :data:`MAX_HINT_GRID`: the hint's of this
    position (``table``), or every solve of these ``rules`` (either bar: what the ``optimal-turn``
    player solves over a game)."""
    if table is not None:
        size, rs = solve_size(table), table.ruleset
    else:
        from agents.solver import FIRST_CAP

        rs = rules
        size = max(FIRST_CAP, 8 * max(int(rs.min_bank), int(rs.entry_threshold))) // points_unit(rs) + 1
    if size > MAX_HINT_GRID:
        raise HintUnavailable(f"no hint under these rules: the turn solver would store {size:,} turn totals "
                              f"(the points unit is {points_unit(rs)}); a hint solves at most "
                              f"{MAX_HINT_GRID:,}")


def _policy(table: Table) -> Any:
    """The solved turn for the player to move: their board status, the bar of ``overcoming``, and
    their zilch streak (as the ``optimal-turn`` agent plays)."""
    try:
        from agents.solver import solve_turn
    except ImportError as e:  # pragma: no cover - the solver ships with the package
        raise HintUnavailable(f"the exact turn solver is not installed ({e})") from None
    g, rs = table.state, table.ruleset
    me = g.current
    on = g.on_board[me]
    thr = None
    if rs.variants.overcoming:
        thr = max(g.last_result + 1, rs.min_bank if on else rs.entry_threshold)
    try:
        sol = solve_turn(rs, on, thr)
    except UnsupportedRulesError as e:
        raise HintUnavailable(f"no hint under these rules: {e}") from None
    streak = g.zilch_streak[me] if on else None
    return sol, sol.policy_for(streak), bool(on and rs.variants.zilch_penalty.count and len(sol.streak_policies) > 1)


def _fmt(v: float) -> str:
    return f"{v:,.1f}"


#: The hint's explanation in English, by key: a hint carries its sentences as ``explain_keys``
#: (``[[key, values]]``) that the page says in its language (catalogue keys ``hint.explain.KEY``,
#: the English word for word), and as ``explain``, these sentences in English.
HINT_TEXT = {
    "keep": "Exact turn solver: the points this turn is expected to record, playing perfectly from here "
            "(turn total now {total}).",
    "piggyback": "Exact turn solver: the points this turn is expected to record either way.",
    "challenge": "The turn solver counts your own points: a challenge never adds to them and a zilch "
                 "costs 600 (then 2000), so for your score it advises no challenge.",
    "streak": "Values count the future cost of the zilch streak penalty.",
    "last": "Last turns: the solver maximises this turn's points and ignores the scores; only winning "
            "counts now, so weigh what you need.",
    "win2": "The chances of winning are the exact solved game's, with perfect play by both players.",
    "winN": "The chances of winning are the exact solved game's, with perfect play by every player.",
    "expect": "expect {value} points",
    "challengeValue": "fewer of your own points (a zilch costs you extra), but a bank is also taken from them",
    "challengeWin": "The exact solved game weighs what a challenge takes from your opponent against what its zilch costs you: the chances of winning say which is better.",
}


def _expect(value: float) -> str:
    return HINT_TEXT["expect"].format(value=_fmt(value))


def _say(keys: list[list[Any]]) -> str:
    """The English of a hint's ``explain_keys``."""
    return " ".join(HINT_TEXT[k].format(**v) for k, v in keys)


def hint_for(table: Table, win: bool = True) -> dict[str, Any]:
    """The best move for the player to move, and every choice with its expected value; with
    ``win``, the chances of winning where the solved game is stored (:func:`add_win_chances`).

    Returns ``{"phase", "best": action, "best_label", "best_keep": faces or None, "options":
    [{"action", "label", "value", "value_text"}] best first, "explain", "explain_keys"}``; ``value`` is
    the expected points the turn records from this decision on (the turn total so far included);
    ``explain`` is the English of ``explain_keys`` (:data:`HINT_TEXT`).
    """
    g, rs = table.state, table.ruleset
    if g.done:
        raise HintUnavailable("the game is over")
    sol, pol, streaky = _policy(table)
    notes: list[list[Any]] = []
    if streaky:
        notes.append(["streak", {}])
    if g.final_queue is not None or g.tiebreak_players is not None:
        notes.append(["last", {}])
    options: list[dict[str, Any]] = []
    best_keep = None
    if g.phase == Phase.KEEP:
        legal = set(g.legal_actions())
        advice = pol.advise(g)
        for ch in advice.choices:
            if ch.action in legal:
                options.append({"action": ch.action, "label": g.describe(ch.action), "value": ch.value,
                                "value_text": _expect(ch.value),
                                "keep": list(ch.dice), "bank": ch.bank})
        if not options:  # pragma: no cover - every legal keep is valued
            raise HintUnavailable("the solver found no legal choice")
        best_keep = options[0]["keep"]
        explain = ["keep", {"total": g.turn_total}]
    elif g.phase == Phase.PIGGYBACK:
        total, dice = g.offer  # type: ignore[misc]
        take = pol.roll_value(total, dice, 0, *g.offer_frozen)  # its pass goes on (pyramiding)
        fresh = pol.roll_value(0, rs.dice, 0)
        options = [{"action": PIGGYBACK, "label": table.label(PIGGYBACK), "value": take,
                    "value_text": _expect(take)},
                   {"action": FRESH, "label": table.label(FRESH), "value": fresh,
                    "value_text": _expect(fresh)}]
        options.sort(key=lambda o: -o["value"])
        explain = ["piggyback", {}]
    elif g.phase == Phase.CHALLENGE:
        fresh = pol.roll_value(0, rs.dice, 0)
        options = [{"action": NO_CHALLENGE, "label": table.label(NO_CHALLENGE), "value": fresh,
                    "value_text": _expect(fresh)}]
        for a in g.legal_actions():
            if a != NO_CHALLENGE:
                options.append({"action": a, "label": table.label(a), "value": None,
                                "value_text": HINT_TEXT["challengeValue"]})
        explain = ["challenge", {}]
    else:  # pragma: no cover
        raise HintUnavailable("nothing to decide")
    best = options[0]
    out = {"phase": g.phase.name.lower(), "best": best["action"], "best_label": best["label"],
           "best_keep": best_keep, "options": options, "explain": _say([explain, *notes]),
           "explain_keys": [explain, *notes], "win_chance": None}
    return add_win_chances(table, out) if win else out


def add_win_chances(table: Table, hint: dict[str, Any]) -> dict[str, Any]:
    """The hint with each option's chance of winning (:func:`_win_chances`), where known."""
    win = _win_chances(table)
    if win is not None:
        for o in hint["options"]:
            o["win_chance"] = win.get(o["action"])
        said = ["win2" if table.state.num_players == 2 else "winN", {}]
        hint["explain_keys"] = [*hint.get("explain_keys", []), said]
        hint["explain"] += " " + _say([said])
        hint["win_chance"] = max(win.values())
        if table.state.phase == Phase.CHALLENGE:
            # the solved game values the challenge itself: its chance of winning decides, not the points
            options = sorted(hint["options"], key=lambda o: -o["win_chance"])
            keys = [["challengeWin", {}], *hint["explain_keys"][1:]]
            hint.update(options=options, best=options[0]["action"], best_label=options[0]["label"],
                        explain_keys=keys, explain=_say(keys))
    return hint


def _win_chances(table: Table) -> dict[int, float] | None:
    """The chance of winning after each legal action under optimal play by every player, from the
    solved game that ``optimal-win`` plays (the two-player game table; for three players, and two under
    overcoming, :mod:`agents.solver.multi`'s game), where it is stored (never solved for a hint), at
    a roll to keep from or (two players) a challenge decision; None otherwise. The table is the one the Perfect CPU seat plays from: the
    hint asks the same shared agent (:func:`~zilch_web.seats.cpu_agent`), so a server holds one copy."""
    from zilch_web.levels import has_game_table

    g, rs = table.state, table.ruleset
    # at a keep; at a challenge decision where the two-player game with challenges is solved
    valued = g.phase == Phase.KEEP or (g.phase == Phase.CHALLENGE and g.num_players == 2)
    if not valued or not has_game_table(rs, g.num_players):  # it knows which counts are solved
        return None
    try:
        agent = cpu_agent("optimal-win", rs)
        with agent_lock(agent):
            return {a: float(v) for a, v in agent.table_for(g.num_players).action_values(g).items()}
    except (ValueError, OverflowError):  # a position the table does not cover
        return None
