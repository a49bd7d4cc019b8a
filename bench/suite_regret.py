"""Where an agent loses win chance against perfect play: its regret split by kind of decision.

    python bench/suite_regret.py --ruleset train/suite/rich-singles.toml [--agent ppo:checkpoints/any]
                                 [--games 400] [--seed 3] [--top 12]

The agent plays ``--games`` two-player games against ``optimal-win`` (each seat half the games, the
dice seeded). At each of its decisions the ruleset's solved game values every legal action (the win
chance under optimal play by both afterwards, uncut); the decision's loss is the best value minus the
value of the action taken. The losses are summed per game and split

* by phase: before the agent is on the board (``entry``), the race (``race``), the last turn or a
  tie-break turn (``last``);
* by kind of mistake against the best action: ``banked`` (banked where rolling on was better),
  ``rolled`` (rolled on where banking was better), ``keep`` (the same bank-or-roll choice, another keep);
* and, for the bank-or-roll mistakes, by the dice the agent would roll next and its turn total, where
  the largest sums of loss are (the ``--top`` of them).

The total per game is the regret that ``train/generalist_eval.py --suite`` measures as ``0.5 - the
luck-adjusted share`` (here on fewer games and without the luck's variance reduction: a guide to
where, not a figure to quote). The ruleset's game table must be stored (``zilch solve --ruleset R
--objective win``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _bin(total: int) -> str:
    edges = (0, 300, 600, 1000, 1500, 2500, 4000)
    for lo, hi in zip(edges, edges[1:]):
        if total < hi:
            return f"{lo}-{hi - 1}"
    return f"{edges[-1]}+"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--ruleset", required=True, help="preset name or TOML file (its game table stored)")
    ap.add_argument("--agent", default="ppo:checkpoints/any", help="the agent spec")
    ap.add_argument("--games", type=int, default=400, help="games against optimal-win")
    ap.add_argument("--seed", type=int, default=3, help="seed of the dice and decisions")
    ap.add_argument("--top", type=int, default=12, help="bank-or-roll situations listed")
    args = ap.parse_args(argv)
    if args.games < 1 or args.top < 0:
        ap.error(f"--games {args.games} --top {args.top}: games 1 or more, top 0 or more")

    import numpy as np

    from zilch_env import GameState, load_ruleset
    from zilch_env.engine.actions import split_keep_action

    from agents.base import make_agent
    from agents.evaluate.luck import luck_table

    rs = load_ruleset(args.ruleset)
    table, why = luck_table(rs, 2)
    if table is None:
        ap.error(why)
    agent, best = make_agent(args.agent, rs), make_agent("optimal-win", rs)
    loss = defaultdict(float)
    count = defaultdict(int)
    spots = defaultdict(lambda: [0.0, 0])
    decisions = 0
    per_game = np.zeros(args.games)
    t0 = time.perf_counter()
    for g in range(args.games):
        seat = g % 2
        game = GameState(rs, 2, seed=np.random.default_rng([args.seed, g, 9]), first=0)
        rngs = [np.random.default_rng([args.seed, g, s]) for s in (0, 1)]
        turn, sit, cap = -1, None, 0
        while game.winners is None:
            p = game.current
            legal = game.legal_actions()
            if p != seat:
                game.apply(best.act(game, legal, rngs[p]))
                continue
            a = agent.act(game, legal, rngs[p])
            if (len(game.turns), game.challenged) != turn:  # a new turn, or a challenge declared in it
                turn, sit = (len(game.turns), game.challenged), table.situation(game)
                cap = table.stable_cap(sit)
            values = table.action_values(game, False, cap, sit)
            top = max(values, key=values.get)
            lost = values[top] - values[a]
            decisions += 1
            phase = "last" if sit[0] != "race" else ("race" if game.on_board[p] else "entry")
            (m, bank), (bm, bbank) = split_keep_action(a), split_keep_action(top)
            kind = "keep" if bank == bbank else ("banked" if bank else "rolled")
            if lost > 1e-7:
                per_game[g] += lost
                loss[(phase, kind)] += lost
                count[(phase, kind)] += 1
                if kind != "keep":
                    kept = [k for k in game.keeps() if k.mask == m][0]
                    left = game.dice_left - kept.n
                    left = left or rs.dice  # hot dice: all the dice again
                    spot = spots[(phase, kind, left, _bin(game.turn_total + kept.points))]
                    spot[0] += lost
                    spot[1] += 1
            game.apply(a)
    seconds = time.perf_counter() - t0
    total = sum(loss.values())
    print(f"{args.agent} against optimal-win on {rs.name}: {args.games} games, {decisions} decisions of the agent "
          f"({seconds:.0f} s)")
    half = 1.96 * per_game.std(ddof=1) / np.sqrt(args.games) if args.games > 1 else float("nan")
    print(f"regret per game {100 * total / args.games:.3f} points of win chance (95% interval "
          f"+-{100 * half:.3f})")
    print("\n| phase | mistake | decisions with a loss | loss per game (points) | share of the regret |")
    print("|---|---|---:|---:|---:|")
    for key in sorted(loss, key=lambda k: -loss[k]):
        print(f"| {key[0]} | {key[1]} | {count[key]} | {100 * loss[key] / args.games:.3f} | "
              f"{100 * loss[key] / total:.1f}% |")
    if args.top and spots:
        print("\n| phase | mistake | dice to roll next | turn total after the keep | decisions | loss per game "
              "(points) |")
        print("|---|---|---:|---|---:|---:|")
        for key in sorted(spots, key=lambda k: -spots[k][0])[:args.top]:
            s = spots[key]
            print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {s[1]} | {100 * s[0] / args.games:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
