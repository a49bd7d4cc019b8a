"""Evaluation throughput: two-player games per second for baseline pairs, with 1 and with 2 workers.

    python bench/evaluate.py [--ruleset zonk] [--games 20000] [--pairs greedy:random heuristic:greedy]

For each pair, in one run on this machine (the best of ``--repeat`` runs: other work on a shared
machine only ever slows a run down):

* ``raw`` — the bare single-game loop (``GameState`` + ``legal_actions`` + ``act`` + ``apply``,
  nothing else) on one core: the baseline, measured in the same run;
* ``single 1w`` — :func:`agents.evaluate.evaluate` with ``engine="single"`` in this process (deals,
  seat orders, slot dice, per-game statistics, the report), and its ratio to ``raw``;
* ``1w`` / ``2w`` — ``evaluate`` as it runs by default (``engine="auto"``: pairs the batched engine
  plays in its kernels go there) with one worker and with two, timed over the games after the
  workers have started; ``2w wall`` also counts starting the processes;
* the engine each pair ran on.

Then where one worker's time goes on the single-game engine, per game, measured directly (see
:func:`breakdown`): the engine alone (the same games replayed from their actions), the agents' ``act``,
and the rest, the evaluation's own work. The issue's target is 2,000 two-player games per second
using both cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from agents.base import make_agent  # noqa: E402
from agents.evaluate import (DealCodes, _Context, _play_table_chunk, deal_game, deal_key, evaluate,  # noqa: E402
                             seat_orders, seat_rng)
from zilch_env import GameState, load_ruleset  # noqa: E402


def raw_rate(rs, agents, games: int) -> float:
    """Games per second of the bare single-game loop: no deals, no statistics."""
    pols = [make_agent(a, rs) for a in agents]
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    for i in range(games):
        g = GameState(rs, 2, seed=i)
        p = pols if i % 2 == 0 else pols[::-1]
        while g.winners is None:
            g.apply(p[g.current].act(g, g.legal_actions(), rng))
    return games / (time.perf_counter() - t)


class _Timed:
    """An agent whose ``act`` calls are timed."""

    def __init__(self, agent):
        self.agent, self.name, self.seconds = agent, agent.name, 0.0

    def act(self, state, legal, rng):
        t = time.perf_counter()
        a = self.agent.act(state, legal, rng)
        self.seconds += time.perf_counter() - t
        return a


def breakdown(rs, agents, deals: int) -> dict[str, float]:
    """Where one worker's time goes on the single-game engine, in seconds per game:

    * total — :func:`_play_table_chunk` as the evaluation runs it;
    * agents — time inside the agents' ``act`` (timed by a wrapper);
    * engine — the same games replayed from their recorded actions with no agent: ``GameState`` with
      the deal's slot dice, ``legal_actions`` and ``apply`` only;
    * evaluation — the rest: seat orders, the agents' generators, the play loop, per-game statistics.
    """
    orders = seat_orders(2)
    ctx = _Context(rs, agents, 0)
    games = deals * len(orders)
    t = time.perf_counter()
    _play_table_chunk(ctx, (0, 1), orders, 0, deals)
    total = time.perf_counter() - t
    timed = [_Timed(a) for a in ctx.agents]
    ctx.agents = timed
    _play_table_chunk(ctx, (0, 1), orders, 0, deals)
    agent_s = sum(a.seconds for a in timed)
    records = []  # every game's actions, replayed below through the engine alone
    for d in range(deals):
        codes = DealCodes(deal_key(0, d), 2)
        for order in orders:
            rngs = [seat_rng(0, d, s) for s in range(2)]
            pols = [timed[order[s]].agent for s in range(2)]
            g = deal_game(rs, 2, codes)
            while g.winners is None:
                g.apply(pols[g.current].act(g, g.legal_actions(), rngs[g.current]))
            records.append(g.actions)
    t = time.perf_counter()
    k = 0
    for d in range(deals):
        codes = DealCodes(deal_key(0, d), 2)
        for _ in orders:
            g = deal_game(rs, 2, codes)
            for a in records[k]:
                g.legal_actions()
                g.apply(a)
            k += 1
    engine_s = time.perf_counter() - t
    return {"total": total / games, "engine": engine_s / games, "agents": agent_s / games,
            "evaluation": (total - engine_s - agent_s) / games}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ruleset", default="zonk")
    ap.add_argument("--games", type=int, default=20000,
                    help="games per measurement on the batched engine (default: 20000); a tenth of it "
                    "on the single-game engine")
    ap.add_argument("--pairs", nargs="+", default=["greedy:random", "greedy:greedy", "heuristic:greedy"],
                    metavar="A:B", help="agent spec pairs (default: greedy:random greedy:greedy heuristic:greedy)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement, the best kept (default: 3)")
    ap.add_argument("--no-profile", action="store_true", help="skip the time breakdown")
    args = ap.parse_args()
    rs = load_ruleset(args.ruleset)
    print(f"ruleset {rs.name}; best of {args.repeat}; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} before")
    print(f"{'pair':<20}{'engine':>8}{'games':>7}{'raw':>8}{'single 1w':>11}{'/raw':>6}{'1w':>9}{'2w':>9}"
          f"{'2w wall':>9}{'2w/1w':>7}   (two-player games per second)")
    for pair in args.pairs:
        a, _, b = pair.partition(":")
        specs = [a, b or a]
        probe = evaluate(agents=specs, ruleset=rs, games=2, seed=1, workers=1, solo_turns=0)
        engine = probe.data["tables"][0]["engine"]
        games = args.games if engine == "batched" else max(200, args.games // 10)
        small = max(200, args.games // 10)
        raw = single = r1 = r2 = w2 = 0.0
        for _ in range(args.repeat):
            raw = max(raw, raw_rate(rs, specs, max(100, small // 2)))
            s1 = evaluate(agents=specs, ruleset=rs, games=small, seed=1, workers=1, solo_turns=0, engine="single")
            single = max(single, s1.data["timing"]["games_per_second"])
            one = evaluate(agents=specs, ruleset=rs, games=games, seed=1, workers=1, solo_turns=0)
            t = time.perf_counter()
            two = evaluate(agents=specs, ruleset=rs, games=games, seed=1, workers=2, solo_turns=0)
            wall = time.perf_counter() - t
            r1 = max(r1, one.data["timing"]["games_per_second"])
            r2 = max(r2, two.data["timing"]["games_per_second"])
            w2 = max(w2, two.data["timing"]["games"] / wall)
        print(f"{' vs '.join(specs):<20}{engine:>8}{games:>7}{raw:>8,.0f}{single:>11,.0f}{single / raw:>6.2f}"
              f"{r1:>9,.0f}{r2:>9,.0f}{w2:>9,.0f}{r2 / r1:>7.2f}")
    if not args.no_profile:
        a, _, b = args.pairs[0].partition(":")
        runs = [breakdown(rs, [a, b or a], max(50, args.games // 40)) for _ in range(args.repeat)]
        bd = min(runs, key=lambda r: r["total"])
        print(f"where one worker's time goes on the single-game engine ({args.pairs[0]}), per game:")
        for k, v in bd.items():
            print(f"  {k:<12}{1e6 * v:8.0f} us  {100 * v / bd['total']:5.1f} %")
    print(f"load average {os.getloadavg()[0]:.2f} after (other processes share these cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
