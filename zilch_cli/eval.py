"""``zilch eval --ruleset zonk --agents heuristic greedy random --games 2000 --seed 1 --out DIR``:
seat-balanced tournaments with intervals, ratings, the solo measure, a report and plots.

The same command as ``python -m agents.evaluate`` (:mod:`agents.evaluate` documents every option
and every statistic); only ``--ruleset`` / ``--set`` come from the shared :func:`add_ruleset_args`.
"""

from __future__ import annotations

import argparse

from zilch_cli import add_ruleset_args, ruleset_from_args


def register(sub: argparse._SubParsersAction) -> None:
    from agents.evaluate import add_arguments

    p = sub.add_parser(
        "eval", help="tournaments between agents: win rates, ratings, points per turn, report and plots",
        description="Every pair (or set of --players) of the agents plays seat-balanced games: each "
        "deal is played in every seat order with the same dice (common random numbers). Prints win, "
        "draw and loss rates with Wilson 95% intervals, mean score, points per turn, zilch rate and "
        "game length per table; Elo ratings (Bradley-Terry) from all games; and each agent's mean "
        "points per turn in one-player play against the exact turn optimum. --out writes report.md, "
        "report.json and PNG plots. Results depend only on the seed, not on --workers.",
        epilog="Example: zilch eval --ruleset zonk --agents heuristic greedy random --games 2000 "
        "--seed 1 --out reports/zonk",
    )
    add_ruleset_args(p)
    add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.evaluate import run_from_args

    return run_from_args(args, ruleset_from_args(args), "zilch eval")
