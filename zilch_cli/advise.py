"""``zilch advise --ruleset zonk --turn-total 350 --dice 1 1 5 3 4 2 [--on-board]``: the best keep,
whether to bank or roll, and the expected value of every choice.

``--objective turn`` (the default) values each choice by the exact turn
optimum (:func:`agents.solver.solve_turn`): the expected points the turn ends with when the rest of it
is played optimally. ``--objective win`` (the default when ``--score`` or ``--opponent`` is given)
values each choice by the chance of winning a two-player game from the exact game table
(:mod:`agents.solver.game`; built on first use): ``zilch advise --ruleset zonk --score 4200 --opponent
4800 --turn-total 350 --dice 1 1 5 3 4 2``. Each objective is one ``_advise_<objective>`` function
returning the rows.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from zilch_cli import add_ruleset_args, answer, ruleset_from_args

#: What ``--objective`` may ask for.
OBJECTIVES = ("turn", "win")


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
    p.add_argument("--frozen", type=int, nargs="+", default=None, metavar="DIE",
                   help="under variants.pyramiding: the dice kept earlier in this pass of the dice (faces), "
                        "which later dice of their face may join; --dice is then the roll of the dice left")
    p.add_argument("--permanent", type=int, default=0, metavar="POINTS",
                   help="permanent straight points included in the turn total (permanent_straight rules)")
    p.add_argument("--streak", type=int, default=None, metavar="K",
                   help="zilches in a row so far (with a 'subtract' zilch penalty): value choices for "
                   "the most points in the long run; values then include the cost of the streak")
    p.add_argument("--objective", choices=OBJECTIVES, default=None,
                   help="what to optimise: 'turn' = the most points this turn (the default), 'win' = the "
                   "chance of winning a two-player game (the default when --score or --opponent is given)")
    g = p.add_argument_group("the game situation (objective 'win', two players)")
    g.add_argument("--score", type=int, default=None, metavar="POINTS",
                   help="your banked score (default 0; above 0 you are on the board)")
    g.add_argument("--opponent", type=int, default=None, metavar="POINTS",
                   help="the opponent's banked score (default 0); at or above the target this is your last "
                   "turn, to beat it")
    g.add_argument("--opponent-on-board", action="store_true",
                   help="the opponent is on the board (implied by a score above 0)")
    g.add_argument("--opponent-streak", type=int, default=0, metavar="K",
                   help="the opponent's zilches in a row (with a zilch penalty)")
    g.add_argument("--position", type=int, choices=(1, 2), default=1,
                   help="your place in the round: 1 = you started the game (default), 2 = the opponent did "
                   "(matters under end = finish_round and for tie-break turns)")
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
    objective = args.objective or ("win" if (args.score is not None or args.opponent is not None) else "turn")
    if objective == "win":
        return _run_win(rs, args)
    return answer("advise", lambda: _advise_turn(rs, args), (SolverError, ValueError), _print, args.json)


def _run_win(rs, args: argparse.Namespace) -> int:
    from zilch_env import UnsupportedRulesError

    return answer("advise", lambda: _advise_win(rs, args), (UnsupportedRulesError, ValueError), _print_win,
                  args.json)


def _advise_win(rs, args: argparse.Namespace) -> dict[str, Any]:
    """Every choice valued by the chance of winning the game, as plain data (best first)."""
    from agents.solver.game import solve_game

    score = args.score or 0
    opp = args.opponent or 0
    unit = _unit(rs)
    for name, v in (("--score", score), ("--opponent", opp)):
        if v < 0 or v % unit:
            raise ValueError(f"{name} {v}: a banked score is 0 or more and a multiple of {unit} under these rules")
    if score >= rs.target:
        raise ValueError(f"--score {score}: at or above the target {rs.target} you have finished; advice "
                         f"covers the race and the last turn against a leader")
    entry = rs.entry_threshold
    on = args.on_board or score > 0 or entry == 0
    opp_on = args.opponent_on_board or opp > 0 or entry == 0
    zp = rs.variants.zilch_penalty
    streak = (args.streak or 0) if (zp.count and on) else 0
    opp_streak = args.opponent_streak if (zp.count and opp_on) else 0
    for name, k in (("--streak", streak), ("--opponent-streak", opp_streak)):
        if zp.count and not 0 <= k < zp.count:
            raise ValueError(f"{name} {k}: under this penalty a streak is 0 to {zp.count - 1} zilches")
    position = args.position - 1
    if opp >= rs.target and rs.end == "instant":
        raise ValueError(f"under end = instant the game is over once a score reaches the target "
                         f"({opp} >= {rs.target}): there is no last turn to advise on")
    if opp >= rs.target and rs.end == "finish_round" and position == 0:
        raise ValueError("under end = finish_round only the second player of the round plays a last turn "
                         "(use --position 2)")
    table = solve_game(rs, progress=not args.json)
    if opp >= rs.target:
        situation = table.last_turn_situation(score, opp, on, streak, position)
        phase = f"your last turn: beat {opp}"
    else:
        situation = table.race_situation(score, opp, on, opp_on, streak, opp_streak, position)
        phase = "the race to the target"
    rows = []
    for ch in table.choices(situation, args.dice, args.turn_total, args.permanent):
        k = ch["keep"]
        left = len(args.dice) - k.n
        rows.append({
            "keep": list(k.dice), "points": k.points, "bank": ch["bank"],
            "dice_to_roll": None if ch["bank"] else (left or rs.dice), "hot_dice": left == 0,
            "turn_total": args.turn_total + k.points, "win_chance": ch["value"], "action": ch["action"],
        })
    return {
        "ruleset": rs.name, "objective": "win", "roll": sorted(args.dice), "turn_total": args.turn_total,
        "permanent": args.permanent, "score": score, "opponent": opp, "on_board": on,
        "opponent_on_board": opp_on, "streak": streak, "opponent_streak": opp_streak,
        "position": args.position, "phase": phase, "choices": rows,
    }


def _unit(rs) -> int:
    from agents.solver.game import game_unit

    return game_unit(rs)


def _print_choices(choices: list[dict[str, Any]], value: Any) -> None:
    """One line per choice, best first (marked ->): the keep, its points, bank or roll, and ``value(row)``."""
    width = max(len(" ".join(map(str, r["keep"]))) for r in choices)
    for i, r in enumerate(choices):
        keep = " ".join(map(str, r["keep"]))
        if r["bank"]:
            what = f"bank {r['turn_total']}"
        else:
            k = r["dice_to_roll"]
            what = f"roll {k} {'die' if k == 1 else 'dice'}" + (" (hot dice)" if r["hot_dice"] else "")
        mark = "->" if i == 0 else "  "
        print(f"  {mark} keep {keep:<{width}} {r['points']:>6}  then {what:<22} {value(r)}")


def _print_win(data: dict[str, Any]) -> None:
    print(f"{data['ruleset']}: rolled {' '.join(map(str, data['roll']))} with {data['turn_total']} this turn; "
          f"you {data['score']}{'' if data['on_board'] else ' (not on the board)'}, the opponent "
          f"{data['opponent']}{'' if data['opponent_on_board'] else ' (not on the board)'}; {data['phase']}")
    if not data["choices"]:
        print("  no scoring die: a zilch, the turn ends")
        return
    _print_choices(data["choices"], lambda r: f"win chance {r['win_chance']:.4f}")
    b = data["choices"][0]
    print(f"Best: keep {' '.join(map(str, b['keep']))} and {'bank' if b['bank'] else 'roll on'} "
          f"(wins {100 * b['win_chance']:.2f}% under optimal play by both)")


def _frozen_pass(rs, faces: list[int] | None, rolled: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The pass of the dice that ``--frozen`` names (pyramiding): frozen dice by face and their points."""
    if not rs.variants.pyramiding:
        if faces:
            raise ValueError("--frozen: dice frozen in a pass matter only under variants.pyramiding = true")
        return None
    from agents.solver.turn_pyramid import pass_graph

    faces = faces or []
    bad = [f for f in faces if not 1 <= f <= 6]
    if bad:
        raise ValueError(f"--frozen {bad[0]}: a die shows 1 to 6")
    if len(faces) + rolled != rs.dice:
        raise ValueError(f"--frozen gives {len(faces)} and --dice {rolled} of the {rs.dice} dice: together "
                         f"they are the dice of the pass")
    counts = tuple(faces.count(f) for f in range(1, 7))
    found = [k for k in pass_graph(rs).index if k[0] == counts]
    if not found:
        raise ValueError(f"--frozen {' '.join(map(str, sorted(faces)))}: no pass of the dice under these "
                         f"rules sets these dice aside (every kept die scores)")
    return max(found, key=lambda k: sum(k[1]))  # the points they score together at most


def _advise_turn(rs, args: argparse.Namespace) -> dict[str, Any]:
    """Every choice valued by the turn optimum, as plain data (best first)."""
    from agents.solver import solve_turn
    from zilch_env.rules.scoring import scoring_table

    zp = rs.variants.zilch_penalty
    streak = args.streak if (args.on_board and zp.count and zp.mode == "subtract") else None
    if streak is not None and streak >= zp.count:
        raise ValueError(f"--streak {streak}: under this penalty ({zp.count} zilches in a row cost "
                         f"{zp.points}) a streak is 0 to {zp.count - 1} zilches: the count starts again "
                         f"at {zp.count}")
    # every value asked about is certified: the solve reaches past the largest total after this keep
    table = scoring_table(rs)
    top = max((k.points for k in table.info(args.dice).keeps), default=0)
    frozen = _frozen_pass(rs, args.frozen, len(args.dice))
    if frozen is not None:
        from agents.solver.turn_pyramid import pass_graph

        top = max(top, int(pass_graph(rs).k_pts.max()))
    sol = solve_turn(rs, args.on_board, reach=args.turn_total + top)
    advice = sol.decide(args.dice, args.turn_total, args.permanent, streak=streak,
                        **({"frozen": frozen[0], "frozen_points": frozen[1]} if frozen else {}))
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
    _print_choices(data["choices"], lambda r: f"expected {r['value']:10.2f}")
    b = data["choices"][0]
    what = "bank" if b["bank"] else "roll on"
    print(f"Best: keep {' '.join(map(str, b['keep']))} and {what} (expected {b['value']:.2f} points this turn"
          + (", streak term included" if data["streak"] is not None else "") + ")")
    for note in data["notes"]:
        print(f"  note: {note}")
