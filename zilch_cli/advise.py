"""``zilch advise --ruleset zonk --turn-total 350 --dice 1 1 5 3 4 2 [--on-board]``: the best keep,
whether to bank or roll, and the expected value of every choice.

``--objective turn`` (the default, and for now the only one) values each choice by the exact turn
optimum (:func:`agents.solver.solve_turn`): the expected points the turn ends with when the rest of it
is played optimally. Each objective is one ``_advise_<objective>`` function returning the rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from zilch_cli import add_ruleset_args, ruleset_from_args

#: What ``--objective`` may ask for.
OBJECTIVES = ("turn",)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "advise", help="the best keep and bank-or-roll for a roll, with the value of every choice",
        description="Advise one decision: after rolling DICE with TURN_TOTAL points already this turn, "
        "list every legal keep with banking (where the rules allow it) and rolling on, each with its "
        "expected points under optimal play from then on, best first.",
        epilog="Example: zilch advise --ruleset zonk --turn-total 350 --dice 1 1 5 3 4 2 --on-board")
    add_ruleset_args(p)
    p.add_argument("--turn-total", type=int, default=0, metavar="POINTS",
                   help="points of this turn before this roll (default 0)")
    p.add_argument("--dice", type=int, nargs="+", required=True, metavar="DIE",
                   help="the roll: 1 to 6 dice, faces 1-6")
    p.add_argument("--on-board", action="store_true",
                   help="the player is on the board (default: not yet, so the entry threshold applies)")
    p.add_argument("--permanent", type=int, default=0, metavar="POINTS",
                   help="permanent straight points included in the turn total (permanent_straight rules)")
    p.add_argument("--streak", type=int, default=None, metavar="K",
                   help="zilches in a row so far (with a 'subtract' zilch penalty): value choices for "
                   "the most points in the long run; values then include the cost of the streak")
    p.add_argument("--objective", choices=OBJECTIVES, default="turn",
                   help="what to optimise: 'turn' = the most points this turn (default)")
    p.add_argument("--json", action="store_true", help="print the choices as JSON")
    p.set_defaults(func=run)


def _error(msg: str) -> int:
    print(f"zilch advise: error: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from agents.solver import SolverError

    rs = ruleset_from_args(args)
    if not 1 <= len(args.dice) <= rs.dice or any(not 1 <= d <= 6 for d in args.dice):
        return _error(f"--dice {' '.join(map(str, args.dice))}: a roll is 1 to {rs.dice} dice with faces 1 to 6")
    if args.turn_total < 0:
        return _error(f"--turn-total {args.turn_total}: a turn total is 0 or more")
    if args.streak is not None and args.streak < 0:
        return _error(f"--streak {args.streak}: a streak is 0 or more zilches")
    try:
        data = _advise_turn(rs, args)
    except (SolverError, ValueError) as e:
        return _error(str(e))
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        _print(data)
    return 0


def _advise_turn(rs, args: argparse.Namespace) -> dict[str, Any]:
    """Every choice valued by the turn optimum, as plain data (best first)."""
    from agents.solver import solve_turn

    sol = solve_turn(rs, args.on_board)
    zp = rs.variants.zilch_penalty
    streak = args.streak if (args.on_board and zp.count and zp.mode == "subtract") else None
    advice = sol.decide(args.dice, args.turn_total, args.permanent, streak=streak)
    n = len(advice.roll)
    rows = []
    for ch in advice.choices:
        left = n - ch.keep.n
        rows.append({
            "keep": list(ch.dice), "points": ch.keep.points, "bank": ch.bank,
            "dice_to_roll": None if ch.bank else (left or rs.dice), "hot_dice": left == 0,
            "turn_total": args.turn_total + ch.keep.points, "value": ch.value, "action": ch.action,
        })
    notes = []
    if args.streak is not None and streak is None:
        notes.append("--streak ignored: it matters only on the board under a 'subtract' zilch penalty")
    if streak is not None:
        notes.append(f"values include the long-run cost of the zilch streak ({streak} so far), relative "
                     f"to a banked turn; the long-run optimum is {sol.points_per_turn:.3f} points per turn")
    zilch_records = args.permanent if (args.on_board or args.permanent >= rs.entry_threshold) else 0
    return {
        "ruleset": rs.name, "objective": "turn", "roll": list(advice.roll), "turn_total": args.turn_total,
        "permanent": args.permanent, "on_board": args.on_board, "streak": streak,
        "bank_threshold": sol.bank_threshold, "zilch": advice.zilch, "zilch_records": zilch_records,
        "choices": rows, "notes": notes,
    }


def _print(data: dict[str, Any]) -> None:
    board = "on the board" if data["on_board"] else f"not on the board (entry {data['bank_threshold']})"
    print(f"{data['ruleset']}: rolled {' '.join(map(str, data['roll']))} with {data['turn_total']} this turn, "
          f"{board}")
    if data["zilch"]:
        print(f"  no scoring die: a zilch, the turn ends and records {data['zilch_records']}")
        return
    width = max(len(" ".join(map(str, r["keep"]))) for r in data["choices"])
    for i, r in enumerate(data["choices"]):
        keep = " ".join(map(str, r["keep"]))
        if r["bank"]:
            what = f"bank {r['turn_total']}"
        else:
            k = r["dice_to_roll"]
            what = f"roll {k} {'die' if k == 1 else 'dice'}" + (" (hot dice)" if r["hot_dice"] else "")
        mark = "->" if i == 0 else "  "
        print(f"  {mark} keep {keep:<{width}} {r['points']:>6}  then {what:<22} expected {r['value']:10.2f}")
    b = data["choices"][0]
    what = "bank" if b["bank"] else "roll on"
    print(f"Best: keep {' '.join(map(str, b['keep']))} and {what} (expected {b['value']:.2f} points this turn"
          + (", streak term included" if data["streak"] is not None else "") + ")")
    for note in data["notes"]:
        print(f"  note: {note}")
