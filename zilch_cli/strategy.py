"""``zilch strategy --ruleset R [--games N] [--json]``: the strategy card of a ruleset: when to bank,
the simplest rule of thumb and what it costs, the first player's edge and the compensation
(:func:`agents.evaluate.strategy.strategy_card`; the method is in docs/rules.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from zilch_cli import add_ruleset_args, answer, ruleset_from_args

EPILOG = """\
The card:
  when to bank   for each number of dice you would roll next (all of them after hot dice), the
                 least turn total from which the turn optimum (the most points per turn) banks:
                 on the board, and before it (the entry threshold). Below it, roll.
  rule of thumb  the simplest rule of a small family ("bank at T or more", "... with D or fewer
                 dice left, otherwise roll", a second total for more dice, keeping only
                 combinations when rolling on, a rule before the board) within 0.5% of the best
                 rule of the family; its cost against the optimum in points per turn is exact
                 (its turn valued over every roll), and in win chance it is its share of games
                 against optimal-win (seat-balanced deals with common dice, 95% interval, and
                 luck-adjusted, its luck taken out by the solved game).
  edge           the first player's chance at the start when both play to win (a draw as half),
                 and the head start for the other player, on the score grid, that brings it
                 closest to even, read from the solved game: a head start is a score on the board
                 (under an entry threshold, 0 = excused from it).
The presets' cards are shipped with their 10,000 games; for other rules the card is computed (a
second or two; the game part needs a stored game table, `zilch solve --objective win`), and
--games N plays the rule against optimal-win (minutes, with a progress bar).

Examples: zilch strategy --ruleset zonk
          zilch strategy --ruleset zonk --set target=5000 --games 2000
          zilch strategy --ruleset farkle --json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "strategy", help="the strategy card of a ruleset: when to bank, a rule of thumb and its cost, "
        "the first player's edge and the compensation",
        description="The strategy card of a ruleset: from the exact turn solver, when to bank by turn total "
        "and dice left, on the board and before it; the simplest rule of thumb that costs least, in words, "
        "with its cost against the optimum in points per turn (exact) and in win chance against "
        "optimal-win; from the solved two-player game, the first player's edge and the points of "
        "compensation that make the game closest to even.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_ruleset_args(p)
    p.add_argument("--games", type=_games, default=0, metavar="N",
                   help="play the rule of thumb against optimal-win in N seat-balanced games (needs the "
                   "solved game; minutes); default: the shipped card's 10,000 games for the presets, none "
                   "otherwise")
    p.add_argument("--seed", type=int, default=None, help="the seed of those games (default 37)")
    p.add_argument("--workers", type=_workers, default=1, help="processes for those games (default 1)")
    p.add_argument("--json", action="store_true", help="print the card as JSON (format zilch-rl/strategy/1)")
    p.set_defaults(func=run)


def _games(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 10_000_000:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of games from 0 to 10,000,000")
    return n


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 64:
        raise argparse.ArgumentTypeError(f"{text!r}: 1 to 64 worker processes")
    return n


def run(args: argparse.Namespace) -> int:
    from zilch_env import UnsupportedRulesError

    from agents.evaluate.strategy import SEED, strategy_card
    from agents.solver import SolverError

    rs = ruleset_from_args(args)
    seed = SEED if args.seed is None else args.seed
    if args.seed is not None and args.seed < 0:
        print(f"zilch strategy: error: --seed {args.seed}: a whole number >= 0", file=sys.stderr)
        return 2
    named = " ".join([f"--ruleset {args.ruleset}", *(f"--set {o}" for o in args.overrides)])

    def compute() -> dict[str, Any]:
        card = strategy_card(rs, games=args.games, seed=seed, workers=args.workers, progress=not args.json,
                             command=named)
        return {**card, "rules_arg": named}

    return answer("strategy", compute, (UnsupportedRulesError, SolverError, ValueError), _print, args.json)


def _total(totals: dict[str, int | None], dice: str) -> str:
    """A cell of the bank table: the total, "never" (the optimum rolls on up to the largest total
    the solve stores) or "-" (not listed)."""
    if dice not in totals:
        return "-"
    return "never" if totals[dice] is None else f"{totals[dice]:,}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def _print(card: dict[str, Any]) -> None:
    from agents.evaluate.strategy import say_rule

    t = card["turn"]
    D = card["dice"]
    head = f"Strategy card: {card['ruleset']} ({D} dice, first to {card['target']:,}"
    head += f"; {card['entry_threshold']:,} to get on the board)" if card["entry_threshold"] else ")"
    print(head)
    print()
    print(f"When to bank (the turn optimum; dice left = the dice you would roll next, {D} after hot dice)")
    cols = [str(n) for n in range(1, D + 1)]
    width = 7

    def row(label: str, totals: dict[str, int | None]) -> str:
        cells = "".join(f"{_total(totals, c):>{width}}" for c in cols)
        return f"  {label:<18}{cells}"

    print(f"  {'dice left':<18}" + "".join(f"{c:>{width}}" for c in cols))
    print(row("on the board", t["on_board"]))
    if t["entry"] is not None:
        print(row("before the board", t["entry"]))
    if len(t["on_board"]) < D:
        print("  Under pyramiding only a fresh roll of all the dice is listed: the others depend on the dice "
              "frozen in the pass.")
    ppt = t["points_per_turn"] if t["points_per_turn"] is not None else t["expected_points"]
    line = f"  Below these totals roll on. The optimum scores {ppt:.1f} points per turn on the board"
    if t["entry_points"] is not None:
        line += f" ({t['entry_points']:.1f} in a turn before it)"
    print(line + ".")
    print()
    rule = card["rule"]
    print("Rule of thumb")
    if rule is None:
        print(f"  none: {card['why'].get('rule', '')}")
    else:
        print(f"  {say_rule([tuple(x) for x in rule['lines']])}")
        share = 100 * rule["points_per_turn"] / rule["optimum"] if rule["optimum"] else float("nan")
        line = (f"  Costs {rule['cost']:.2f} {rule['measure']} against the optimum ({rule['points_per_turn']:.2f} "
                f"of {rule['optimum']:.2f}, {share:.1f}%)")
        if rule["entry_cost"] is not None:
            line += f"; before the board {rule['entry_cost']:.2f} points a turn"
        print(line + ".")
        win = card["win"]
        if win is not None:
            text = (f"  Against optimal-win over {win['games']:,} seat-balanced games: {_pct(win['share'])} "
                    f"[{_pct(win['low'])}, {_pct(win['high'])}]")
            if win["luck_adjusted"] is not None:
                text += (f"; luck-adjusted {_pct(win['luck_adjusted'])} [{_pct(win['luck_low'])}, "
                         f"{_pct(win['luck_high'])}]")
            print(text + f" (even: 50%; seed {win['seed']}).")
        else:
            print(f"  Win chance: {card['why'].get('win', '')}")
        best = rule["best"]
        if best["spec"] != rule["spec"]:
            print(f"  The best rule of the family ({best['spec']}) costs {best['cost']:.2f}; within "
                  f"{rule['tolerance']:.2f} of it the simplest is given.")
        print(f"  Play it: zilch eval {card['rules_arg']} --agents {rule['spec']} optimal-win")
    print()
    print("First player's edge (the solved game, both playing to win)")
    game = card["game"]
    if game is None:
        print(f"  {card['why'].get('game', '')}")
        return
    print(f"  The first player wins {_pct(game['first_player_win'])} (a draw as half).")
    to = game["to"]
    where = " on the board" if game["on_board"] else ""
    if game["points"] is None:
        print(f"  No head start for the {to} player brings it closer to even.")
    else:
        print(f"  A head start of {game['points']:,} points{where} for the {to} player brings it to "
              f"{_pct(game['first_player_win_with'])}, the closest to even.")
    print("  head start: " + ", ".join(f"{c:,} {_pct(w)}" for c, w in game["curve"][:12]))
