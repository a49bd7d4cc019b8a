"""Evaluation throughput: two-player games per second for baseline pairs, with 1 and with 2 workers.

    python bench/evaluate.py [--ruleset zonk] [--games 4000] [--pairs greedy:random heuristic:greedy]

For each pair, in one run on this machine:

* ``raw`` — the bare engine loop (``GameState`` + ``legal_actions`` + ``act`` + ``apply``, nothing
  else) on one core: the ceiling for one worker, measured in the same run as the baseline;
* ``eval 1w`` — :func:`agents.evaluate.evaluate` in this process (seat-balanced deals, seeding,
  per-game statistics, the report), and its ratio to ``raw`` (the evaluation's own overhead);
* ``eval 2w`` — the same with two worker processes, timed over the games only (``tournament``) and
  over the whole call including starting the processes (``wall``), and its speed-up over 1 worker.

Then where one worker's time goes, per game, measured directly (see :func:`breakdown`): the
engine alone (the same games replayed from their actions), the agents' ``act``, and the rest, the
evaluation's own work. The issue's target is 2,000 two-player games per second using both cores.

Pairs name agent specs (``greedy:random`` = greedy against random); while ``agents.baselines`` is
not installed the specs fall back to ``zilch_env``'s movers (greedy = ``GreedyMover(300)``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from agents.base import agent_names, make_agent  # noqa: E402
from agents.evaluate import DealCodes, DealDice, _Context, _play_table_chunk, evaluate, seat_orders, seat_rng  # noqa: E402
from zilch_env import GameState, GreedyMover, RandomMover, load_ruleset  # noqa: E402

def resolve(spec: str, rs):
    """The spec's agent, or the engine's own mover while the baselines are not installed."""
    if spec in agent_names() or spec.partition(":")[0] in agent_names():
        return spec
    fallback = {"greedy": GreedyMover(300), "random": RandomMover()}
    if spec in fallback:
        return fallback[spec]
    return None


def raw_rate(rs, agents, games: int) -> float:
    """Games per second of the bare loop: no seat orders, no statistics."""
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
    """Where one worker's time goes, in seconds per game, measured directly (no profiler):

    * total — :func:`_play_table_chunk` as the evaluation runs it;
    * agents — time inside the agents' ``act`` (timed by a wrapper);
    * engine — the same games replayed from their recorded actions with no agent: ``GameState``
      with the deal's dice (:class:`DealDice`), ``legal_actions`` and ``apply`` only;
    * evaluation — the rest: seat orders, seeding the agents' generators, the play loop and the
      per-game statistics.
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
    # Record every game's actions, then replay them through the engine alone.
    records = []
    for d in range(deals):
        codes = DealCodes((0, d, 0), 2)
        for order in orders:
            rngs = [seat_rng(0, d, s) for s in range(2)]
            pols = [ctx.agents[order[s]].agent for s in range(2)]
            dice = DealDice(codes)
            g = GameState(rs, 2, dice=dice)
            dice.game = g
            while g.winners is None:
                g.apply(pols[g.current].act(g, g.legal_actions(), rngs[g.current]))
            records.append(g.actions)
    t = time.perf_counter()
    k = 0
    for d in range(deals):
        codes = DealCodes((0, d, 0), 2)
        for _ in orders:
            dice = DealDice(codes)
            g = GameState(rs, 2, dice=dice)
            dice.game = g
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
    ap.add_argument("--games", type=int, default=4000, help="games per measurement (default: 4000)")
    ap.add_argument("--pairs", nargs="+", default=["greedy:random", "heuristic:greedy", "greedy:greedy"],
                    metavar="A:B", help="agent pairs (default: greedy:random heuristic:greedy greedy:greedy)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement, the best kept (default: 3)")
    ap.add_argument("--no-profile", action="store_true", help="skip the time breakdown")
    args = ap.parse_args()
    rs = load_ruleset(args.ruleset)
    print(f"ruleset {rs.name}, {args.games} games per measurement, best of {args.repeat}; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before")
    print(f"{'pair':<22}{'raw 1 core':>12}{'eval 1w':>10}{'/raw':>7}{'eval 2w':>10}{'2w wall':>10}"
          f"{'2w/1w':>7}  (two-player games per second)")
    for pair in args.pairs:
        a, _, b = pair.partition(":")
        if not b:
            b, a = a, a
        agents = [resolve(a, rs), resolve(b, rs)]
        if None in agents:
            print(f"{pair:<22}skipped: agent {a if agents[0] is None else b!r} is not installed")
            continue
        names = [x if isinstance(x, str) else x.name for x in agents]
        label = " vs ".join(names)
        raw = r1 = r2 = w2 = 0.0
        for _ in range(args.repeat):  # the best of a few runs: other work on the machine only slows
            raw = max(raw, raw_rate(rs, agents, args.games))
            one = evaluate(agents=agents, ruleset=rs, games=args.games, seed=1, workers=1, solo_turns=0)
            t = time.perf_counter()
            two = evaluate(agents=agents, ruleset=rs, games=args.games, seed=1, workers=2, solo_turns=0)
            wall = time.perf_counter() - t
            r1 = max(r1, one.data["timing"]["games_per_second"])
            r2 = max(r2, two.data["timing"]["games_per_second"])
            w2 = max(w2, two.data["timing"]["games"] / wall)
        print(f"{label:<22}{raw:>12,.0f}{r1:>10,.0f}{r1 / raw:>7.2f}{r2:>10,.0f}{w2:>10,.0f}{r2 / r1:>7.2f}")
    if not args.no_profile:
        a, _, b = args.pairs[0].partition(":")
        agents = [resolve(a, rs), resolve(b or a, rs)]
        if None not in agents:
            runs = [breakdown(rs, agents, max(50, args.games // 4)) for _ in range(args.repeat)]
            b = min(runs, key=lambda r: r["total"])
            print(f"where one worker's time goes ({args.pairs[0]}), microseconds per game:")
            for k, v in b.items():
                print(f"  {k:<12}{1e6 * v:8.0f} us  {100 * v / b['total']:5.1f} %")
    print(f"load average {os.getloadavg()[0]:.2f} after (other processes share these cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
