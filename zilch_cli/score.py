"""``zilch score --ruleset zonk 2 2 2 2 1 1``: every legal keep of a roll with its points, and the best."""

from __future__ import annotations

import argparse

from zilch_cli import add_ruleset_args, ruleset_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="list the legal keeps of a roll",
                       description="Every legal keep of a roll with its points, most points first, "
                       "and the best keep. Under keep = 'all_scoring' the best keep is the one the "
                       "rules set aside automatically.")
    add_ruleset_args(p)
    p.add_argument("dice", nargs="+", type=int, metavar="DIE", help="the rolled dice, 1 to 6 of them, faces 1-6")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from zilch_env.rules.scoring import scoring_table

    rs = ruleset_from_args(args)
    if not 1 <= len(args.dice) <= rs.dice or any(not 1 <= d <= 6 for d in args.dice):
        print(f"zilch score: error: dice {args.dice}: a roll is 1 to {rs.dice} dice with faces 1 to 6",
              file=sys.stderr)
        return 2
    info = scoring_table(rs).info(args.dice)
    print(f"Roll {' '.join(map(str, info.dice))} under {rs.name}:")
    if info.zilch:
        print("  no scoring die: a zilch")
        return 0
    keeps = sorted(info.keeps, key=lambda k: (-k.points, -k.n, k.mask))
    width = max(len(" ".join(map(str, k.dice))) for k in keeps)
    for k in keeps:
        note = "  straight (permanent)" if k.straight and rs.scoring.permanent_straight else ""
        print(f"  keep {' '.join(map(str, k.dice)):<{width}}  {k.points:>6}{note}")
    b = info.best
    print(f"Best: keep {' '.join(map(str, b.dice))} for {b.points}"
          + (" (set aside automatically: keep = all_scoring)" if rs.keep == "all_scoring" else ""))
    return 0
