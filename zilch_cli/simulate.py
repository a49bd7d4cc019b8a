"""``zilch simulate --ruleset zonk --players 3 --seed 1``: a whole game by simple movers, turn by turn."""

from __future__ import annotations

import argparse

from zilch_cli import add_ruleset_args, output_file_problem, ruleset_from_args, seed_arg, write_record


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play a game with simple built-in movers and print it",
                       description="Play one seeded game with the built-in greedy movers (keep the "
                       "most points, bank from the threshold on) and print every roll, keep and turn "
                       "result. The same seed prints the same game.")
    add_ruleset_args(p)
    p.add_argument("--players", "-n", type=int, default=2, help="1 to 6 players (default: 2)")
    p.add_argument("--seed", type=seed_arg, default=0, help="dice seed (default: 0)")
    p.add_argument("--threshold", type=int, default=350,
                   help="the movers bank once the turn total reaches this (default: 350)")
    p.add_argument("--max-turns", type=int, default=10_000, metavar="N",
                   help="stop after N turns without a winner: under some rules the movers never bank "
                   "(default: 10000)")
    p.add_argument("--record", metavar="FILE", help="also write the JSON game record to FILE (its folder must exist; written whole or not at all)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the turn results")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import sys

    import numpy as np

    from zilch_env import GameState, GreedyMover
    from zilch_env.engine.text import narrate

    rs = ruleset_from_args(args)
    if not 1 <= args.players <= 6:
        print(f"zilch simulate: error: --players {args.players}: a game has 1 to 6 players", file=sys.stderr)
        return 2
    if args.max_turns < 1:
        print(f"zilch simulate: error: --max-turns {args.max_turns}: at least 1 turn", file=sys.stderr)
        return 2
    if args.record and (problem := output_file_problem("--record", args.record)):
        print(f"zilch simulate: error: {problem}", file=sys.stderr)
        return 2
    game = GameState(rs, args.players, seed=args.seed)
    mover = GreedyMover(args.threshold)
    rng = np.random.default_rng(args.seed)
    print(f"{rs.name}: {args.players} players, target {rs.target}, seed {args.seed}")
    for line in narrate(game, [mover] * args.players, rng, verbose=not args.quiet, max_turns=args.max_turns):
        print(line)
    if args.record:
        return write_record("simulate", args.record, game.to_record(), lambda p: print(f"record written to {p}"))
    return 0
