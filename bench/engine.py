"""Engine throughput: random legal games for each preset, on one core.

    python bench/engine.py [--seconds 3] [--players 2] [--ruleset zonk ...] [--mover random|greedy]

A decision is one ``apply`` of a legal action chosen uniformly at random (``legal_actions`` is
called before every decision, as an agent would). Rolls that need no decision (zilches) are
included in the time. The target is at least 100,000 decisions per second on one core. Decisions
per CPU second are printed too: on a shared machine they move less than the elapsed rate.
Tables (scoring, dice codes) are built before timing starts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from zilch_env import PRESETS, GameState, GreedyMover, load_ruleset  # noqa: E402


def run(ruleset, players: int, seconds: float, mover: str) -> tuple[int, int, float, float]:
    r = random.Random(0)
    greedy = GreedyMover()
    rng = np.random.default_rng(0)
    games = decisions = 0
    start, cpu = time.perf_counter(), time.process_time()
    seed = 0
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            g = GameState(ruleset, players, seed=seed)
            seed += 1
            if mover == "random":
                while g.winners is None:
                    legal = g.legal_actions()
                    g.apply(legal[int(r.random() * len(legal))])
            else:
                while g.winners is None:
                    g.apply(greedy.act(g, g.legal_actions(), rng))
            decisions += g.decisions
            games += 1
    return games, decisions, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per preset (default 3)")
    ap.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    ap.add_argument("--ruleset", nargs="*", default=list(PRESETS), help="presets to run (default: all)")
    ap.add_argument("--mover", choices=["random", "greedy"], default="random",
                    help="random legal decisions (default) or the built-in greedy mover")
    args = ap.parse_args()
    rulesets = [load_ruleset(name) for name in args.ruleset]
    for rs in rulesets:  # warm-up: build the scoring table and the dice code table
        run(rs, args.players, 0.05, args.mover)
    print(f"{args.mover} legal games, {args.players} players, one core, {args.seconds:g} s per preset\n")
    print("| preset | games | decisions | decisions/s | games/s | µs/decision | decisions per CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    tot_g = tot_d = tot_t = tot_c = 0.0
    for rs in rulesets:
        g, d, t, c = run(rs, args.players, args.seconds, args.mover)
        tot_g, tot_d, tot_t, tot_c = tot_g + g, tot_d + d, tot_t + t, tot_c + c
        print(f"| {rs.name} | {g} | {d} | {d / t:,.0f} | {g / t:,.0f} | {1e6 * t / d:.1f} | {d / c:,.0f} |")
    print(f"| **all** | {tot_g:.0f} | {tot_d:.0f} | {tot_d / tot_t:,.0f} | {tot_g / tot_t:,.0f} | "
          f"{1e6 * tot_t / tot_d:.1f} | {tot_d / tot_c:,.0f} |")
    target = 100_000
    verdict = "meets" if tot_d / tot_t >= target else "is below"
    print(f"\nOverall {tot_d / tot_t:,.0f} decisions/s {verdict} the target of {target:,} decisions/s.")


if __name__ == "__main__":
    main()
