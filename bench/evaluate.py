"""Evaluation throughput: two-player games per second for baseline pairs, with 1 and with 2 workers.

    python bench/evaluate.py [--ruleset zonk] [--games 20000] [--pairs greedy:random heuristic:greedy]

For each pair, in one run on this machine (the best of ``--repeat`` runs: other work on a shared
machine only ever slows a run down):

* ``raw cpu`` — the bare single-game loop (``GameState`` + ``legal_actions`` + ``act`` + ``apply``,
  nothing else) per CPU second: the baseline, measured in the same run;
* ``single cpu`` — the evaluation's loop on the single-game engine (deals, seat orders, slot dice,
  per-game statistics) per CPU second, in batches alternating with ``raw``, and ``/raw`` the
  median ratio of the two (:func:`raw_vs_single`);
* ``1w cpu`` / ``1w wall`` — ``evaluate`` as it runs by default (``engine="auto"``: pairs the batched
  engine plays in its kernels go there) in this process, per CPU second and per elapsed second;
* ``2w wall`` — the same with two worker processes, per elapsed second of the games (after the
  workers have started); ``2w start`` also counts starting them (imports, agents, kernels);
* the engine each pair ran on.

CPU time is what one free core does whatever else the machine runs; elapsed time is what the
machine gave, which is all that two workers can be measured by.

Then where one worker's CPU time goes on the single-game engine, per game (see :func:`breakdown`):
the engine, the agents' ``act``, and the evaluation's own work (the same games played by a bare loop
and by the evaluation). The issue's target is 2,000 two-player games per second
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

from agents.evaluate import (DealCodes, _Context, _play_table_chunk, deal_game, deal_key, evaluate,  # noqa: E402
                             seat_orders, seat_rng)
from zilch_env import GameState, load_ruleset  # noqa: E402


def raw_vs_single(rs, agents, games: int, batches: int = 10) -> tuple[float, float, float]:
    """Games per CPU second of the bare single-game loop (``GameState(seed=i)``, one generator for
    both players, nothing else) and of the evaluation's own loop on the single-game engine
    (:func:`_play_table_chunk`: deals, slot dice, seat orders, statistics), played in alternating
    batches so that a shared machine's changing load cancels; the medians over the batches, and the
    median ratio of the two."""
    ctx = _Context(rs, agents, 0)
    pols = list(ctx.agents)
    orders = seat_orders(2)
    per = max(1, games // batches // 2)  # deals per batch, two games each
    raw, single, ratio = [], [], []
    for b in range(batches):
        def bare() -> float:
            rng = np.random.default_rng(b)
            t = time.process_time()
            for i in range(b * 2 * per, (b + 1) * 2 * per):
                g = GameState(rs, 2, seed=i)
                p = pols if i % 2 == 0 else pols[::-1]
                while g.winners is None:
                    g.apply(p[g.current].act(g, g.legal_actions(), rng))
            return 2 * per / (time.process_time() - t)

        def chunk() -> float:
            t = time.process_time()
            _play_table_chunk(ctx, (0, 1), orders, b * per, (b + 1) * per)
            return 2 * per / (time.process_time() - t)

        if b % 2:
            c, r = chunk(), bare()
        else:
            r, c = bare(), chunk()
        raw.append(r)
        single.append(c)
        ratio.append(c / r)
    return float(np.median(raw)), float(np.median(single)), float(np.median(ratio))


def cpu_rate(**kw) -> tuple[float, float]:
    """``evaluate(workers=1, **kw)``: games per wall second (of the games) and per CPU second (of the call)."""
    t = time.process_time()
    r = evaluate(workers=1, solo_turns=0, luck="off", **kw)  # the engines' speed, not the luck look-ups
    cpu = time.process_time() - t
    return r.data["timing"]["games_per_second"], r.data["timing"]["games"] / cpu


class _Timed:
    """An agent whose ``act`` calls are timed in CPU time."""

    def __init__(self, agent):
        self.agent, self.name, self.seconds, self.calls = agent, agent.name, 0.0, 0

    def act(self, state, legal, rng):
        t = time.process_time()
        a = self.agent.act(state, legal, rng)
        self.seconds += time.process_time() - t
        self.calls += 1
        return a


def _timer_cost(n: int = 200000) -> float:
    """CPU seconds one timed call spends in ``process_time`` itself."""
    t = time.process_time()
    for _ in range(n):
        time.process_time()
    return (time.process_time() - t) / n


def _bare(rs, agents, orders, d0: int, d1: int) -> None:
    """The games of ``_play_table_chunk``, the same deals, dice and decision streams, with nothing
    else: no statistics, no arrays, no error context."""
    for d in range(d0, d1):
        codes = DealCodes(deal_key(0, d), 2)
        rngs = [seat_rng(0, d, s) for s in range(2)]
        start = [x.bit_generator.state for x in rngs]
        for order in orders:
            for x, st in zip(rngs, start):
                x.bit_generator.state = st
            pols = [agents[order[s]] for s in range(2)]
            g = deal_game(rs, 2, codes)
            while g.winners is None:
                g.apply(pols[g.current].act(g, g.legal_actions(), rngs[g.current]))


def breakdown(rs, agents, deals: int, batches: int = 30) -> dict[str, float]:
    """Where one worker's CPU time goes on the single-game engine, in seconds per game.

    The deals are cut into ``batches``; each batch is played three ways one right after the other
    (in alternating order), so that a shared machine's changing load cancels in the comparisons:
    as the evaluation plays it (:func:`_play_table_chunk`), by a bare loop (:func:`_bare`: the same
    games and nothing else), and by the bare loop with the agents' ``act`` timed. The shares are the
    medians over the batches:

    * evaluation — (evaluation - bare) / evaluation: per-game statistics and arrays, the play
      loop's checks;
    * agents — time inside ``act`` (less the timer's own cost) / evaluation;
    * engine — the rest: ``GameState`` with the deal's slot dice, ``legal_actions``, ``apply``,
      seeding the deal.
    """
    orders = seat_orders(2)
    ctx = _Context(rs, agents, 0)
    plain = list(ctx.agents)
    per = max(1, deals // batches)
    cost = _timer_cost()
    totals, evals, agents_f = [], [], []
    for i in range(batches):
        d0, d1 = i * per, (i + 1) * per
        timed = [_Timed(a) for a in plain]
        runs = {}
        steps = [("eval", lambda: _play_table_chunk(ctx, (0, 1), orders, d0, d1)),
                 ("bare", lambda: _bare(rs, plain, orders, d0, d1)),
                 ("timed", lambda: _bare(rs, timed, orders, d0, d1))]
        for name, fn in (steps if i % 2 == 0 else steps[::-1]):
            t = time.process_time()
            fn()
            runs[name] = time.process_time() - t
        totals.append(runs["eval"] / (per * len(orders)))
        evals.append((runs["eval"] - runs["bare"]) / runs["eval"])
        agents_f.append(sum(a.seconds - a.calls * cost for a in timed) / runs["eval"])
    total = float(np.median(totals))
    ev, ag = float(np.median(evals)), float(np.median(agents_f))
    return {"total": total, "engine": total * (1 - ev - ag), "agents": total * ag, "evaluation": total * ev}


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
    print("two-player games per second; cpu: per CPU second of this process (what one free core does);")
    print("wall: per elapsed second (what this machine gave while shared)")
    print(f"{'pair':<20}{'engine':>8}{'games':>7}{'raw cpu':>9}{'single cpu':>11}{'/raw':>6}{'1w cpu':>9}"
          f"{'1w wall':>9}{'2w wall':>9}{'2w start':>9}")
    for pair in args.pairs:
        a, _, b = pair.partition(":")
        specs = [a, b or a]
        probe = evaluate(agents=specs, ruleset=rs, games=2, seed=1, workers=1, solo_turns=0, luck="off")
        engine = probe.data["tables"][0]["engine"]
        games = args.games if engine == "batched" else max(1000, args.games // 10)
        small = max(1000, args.games // 10)
        raw, single, ratio = raw_vs_single(rs, specs, small)
        c1 = r1 = r2 = w2 = 0.0
        for _ in range(args.repeat):
            wall1, cpu1 = cpu_rate(agents=specs, ruleset=rs, games=games, seed=1)
            r1, c1 = max(r1, wall1), max(c1, cpu1)
            t = time.perf_counter()
            two = evaluate(agents=specs, ruleset=rs, games=games, seed=1, workers=2, solo_turns=0, luck="off")
            wall = time.perf_counter() - t
            r2 = max(r2, two.data["timing"]["games_per_second"])
            w2 = max(w2, two.data["timing"]["games"] / wall)
        print(f"{' vs '.join(specs):<20}{engine:>8}{games:>7}{raw:>9,.0f}{single:>11,.0f}{ratio:>6.2f}"
              f"{c1:>9,.0f}{r1:>9,.0f}{r2:>9,.0f}{w2:>9,.0f}")
    if not args.no_profile:
        a, _, b = args.pairs[0].partition(":")
        bd = breakdown(rs, [a, b or a], max(300, args.games // 20))
        print(f"where one worker's CPU time goes on the single-game engine ({args.pairs[0]}), per game:")
        for k, v in bd.items():
            print(f"  {k:<12}{1e6 * v:8.0f} us  {100 * v / bd['total']:5.1f} %")
    print(f"load average {os.getloadavg()[0]:.2f} after (other processes share these cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
