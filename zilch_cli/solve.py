"""``zilch solve --ruleset farkle [--json]``: the exact optimum of a ruleset.

``--objective turn`` (the default, and for now the only one) prints, on the board and before it, the
optimal expected points of one turn, the optimal long-run points per turn under a zilch-streak
penalty, and the solve time, then the shape of the optimal policy: the turn total from which it banks
with each number of dice left to roll, and the zilch odds. Each objective is one ``_solve_<objective>``
function returning plain data, printed by ``_print_<objective>`` or as JSON.
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
        "solve", help="solve a ruleset exactly and print the optimum",
        description="Solve a ruleset exactly. Objective 'turn': the play that maximises the points of "
        "one turn (backward induction over turn total and dice left), on the board and before it; "
        "under a zilch-streak penalty also the best long-run points per turn, from play that depends "
        "on the current streak. Prints the optima, the solve times, the totals from which the optimal "
        "player banks with each number of dice, and the zilch odds.")
    add_ruleset_args(p)
    p.add_argument("--objective", choices=OBJECTIVES, default="turn",
                   help="what to optimise: 'turn' = the most points per turn (default)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.solver import SolverError

    rs = ruleset_from_args(args)
    try:
        data = _solve_turn(rs)
    except SolverError as e:
        print(f"zilch solve: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        _print_turn(data)
    return 0


def _solve_turn(rs) -> dict[str, Any]:
    """The turn optimum on and off the board, as plain data."""
    from agents.solver import TAIL_TOLERANCE, solve_turn, warm_up

    out: dict[str, Any] = {"ruleset": rs.name, "objective": "turn", "dice": rs.dice, "hot_dice": rs.hot_dice,
                           "tolerance": TAIL_TOLERANCE, "kernel_seconds": warm_up()}
    for key, on in (("on_board", True), ("off_board", False)):
        out[key] = solve_turn(rs, on).to_dict()
    zp = rs.variants.zilch_penalty
    out["zilch_penalty"] = ({"count": zp.count, "points": zp.points, "mode": zp.mode} if zp.count else None)
    return out


def _dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def _print_turn(data: dict[str, Any]) -> None:
    on, off = data["on_board"], data["off_board"]
    print(f"{data['ruleset']}: the most points per turn (exact)")
    rows = [
        ("", "on the board", "before the board"),
        ("expected points of a turn", f"{on['expected_points']:.3f}", f"{off['expected_points']:.3f}"),
    ]
    zp = data["zilch_penalty"]
    if zp:
        ppt = "n/a" if on["points_per_turn"] is None else f"{on['points_per_turn']:.3f}"
        rows.append(("long-run points per turn", ppt, f"{off['points_per_turn']:.3f}"))
    rows.append(("bank threshold", str(on["bank_threshold"]), str(off["bank_threshold"])))
    rows.append(("solve time", f"{on['solve_seconds']:.3f} s", f"{off['solve_seconds']:.3f} s"))
    w = max(len(r[0]) for r in rows)
    for a, b, c in rows:
        print(f"  {a:<{w}}  {b:>14}  {c:>16}")
    if zp:
        if zp["mode"] == "subtract":
            print(f"  ({zp['count']} zilches in a row cost {zp['points']}: the long-run figure plays a "
                  f"policy per current streak; relative streak values "
                  + ", ".join(f"{v:.1f}" for v in on["streak_values"]) + ")")
        else:
            print(f"  ({zp['count']} zilches in a row: mode {zp['mode']!r} depends on the score, so it has "
                  f"no per-turn average; the expected points ignore it)")
    print("The optimal player on the board banks (whenever the rules allow) from these turn totals on:")
    parts = []
    for n, t in on["bank_totals"].items():
        if t is not None:
            when = f"{t}"
        elif int(n) == data["dice"] and data["hot_dice"] == "forced":
            when = "never (hot dice are forced)"
        else:
            when = f"never (below {on['cap']})"
        parts.append(f"{_dice(int(n))} to roll: {when}")
    print("  " + "; ".join(parts))
    print("Chance of a zilch: " + ", ".join(f"{_dice(int(n))} {z}" for n, z in on["zilch_probabilities"].items()))
    if on["bank_above"] is not None:
        print(f"(Proved: with more than {on['bank_above']:.0f} at risk banking is optimal with any dice that "
              f"can zilch. Totals are solved up to {on['cap']}; the optimum is certified to within "
              f"{data['tolerance']:g} points, bracket {max(on['tail_error'], 0.0):.2g}.)")
    print(f"(Solve times exclude loading the compiled kernels once per process: {data['kernel_seconds']:.2f} s.)")
