"""A local Ray evaluation against the process pool: the same tournament, the same run, time ratio.

    python bench/ray_eval.py [--ruleset zonk] [--agents heuristic greedy random] [--games 2000]
                             [--solo-turns 20000] [--workers 2] [--repeat 3]

Runs ``agents.evaluate.evaluate`` on the process pool (``--workers`` spawn processes) and on Ray
(``ray=True``: the same chunks as Ray tasks), alternating, ``--repeat`` times each, in this one
process, and checks that the reports are identical, number for number. Two ways of running Ray are
timed:

* ``ray (own)`` — as ``zilch eval --ray`` runs: each evaluation starts a local Ray with ``--workers``
  CPUs and stops it at the end (Ray's start-up and its worker processes' imports count);
* ``ray (warm)`` — on a Ray started once before and warmed by a small other evaluation (as a sweep,
  a notebook or a cluster would have it: the workers have imported the code and loaded the compiled
  kernels; they still build the agents, and load the game table of the luck adjustment, at their
  first task).

Reported per way: the whole call (``wall``, best of the repeats: a shared machine only ever slows a
run down), its start-up part (``start``: the pool's workers building their agents, Ray's ``init``)
and the games alone (``games``), with the ratios to the pool's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.evaluate import evaluate  # noqa: E402


def one(kind: str, kw: dict) -> tuple[float, dict, str]:
    t = time.perf_counter()
    rep = evaluate(ray=kind != "pool", **kw)
    wall = time.perf_counter() - t
    return wall, rep.data["timing"], json.dumps(rep.results(), sort_keys=True, default=str)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/ray_eval.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--ruleset", default="zonk")
    p.add_argument("--agents", nargs="+", default=["heuristic", "greedy", "random"])
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--solo-turns", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2, help="pool processes, and the local Ray's CPUs")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    import ray

    from agents.evaluate.ray_eval import local_runtime_env

    kw = dict(agents=a.agents, ruleset=a.ruleset, games=a.games, seed=a.seed, solo_turns=a.solo_turns,
              workers=a.workers)
    print(f"{a.ruleset}: {' '.join(a.agents)}, {a.games} games per table, {a.solo_turns} solo turns, "
          f"{a.workers} workers/CPUs, best of {a.repeat}; load {os.getloadavg()[0]:.1f}", flush=True)
    times: dict[str, list[tuple[float, dict]]] = {"pool": [], "ray (own)": [], "ray (warm)": []}
    texts = set()
    for r in range(a.repeat):
        for kind in ("pool", "ray (own)"):
            wall, tm, text = one(kind, kw)
            times[kind].append((wall, tm))
            texts.add(text)
        ray.init(num_cpus=a.workers, include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env())
        try:
            # Warm: the workers import the code and compile (load) the kernels on a small other job.
            # Not the measured evaluation itself: a worker keeps the game table it loaded and the
            # turns it solved for the luck adjustment, and the same deals would then cost less.
            evaluate(agents=["greedy", "random"], ruleset=a.ruleset, games=50, seed=a.seed + 1, solo_turns=100,
                     luck="off", ray=True)
            wall, tm, text = one("ray (warm)", kw)
        finally:
            ray.shutdown()
        times["ray (warm)"].append((wall, tm))
        texts.add(text)
        print(f"  repeat {r + 1}: " + ", ".join(f"{k} {v[-1][0]:.1f} s" for k, v in times.items()), flush=True)
    same = len(texts) == 1
    best = {k: min(v, key=lambda x: x[0]) for k, v in times.items()}
    base = best["pool"]
    print(f"\nreports identical across pool and Ray runs: {same}")
    print(f"{'':<11} {'wall s':>7} {'start s':>8} {'games s':>8} {'wall/pool':>10} {'games/pool':>11}")
    for k, (wall, tm) in best.items():
        games = tm["seconds"] - tm["startup_seconds"]
        base_games = base[1]["seconds"] - base[1]["startup_seconds"]
        print(f"{k:<11} {wall:7.2f} {tm['startup_seconds']:8.2f} {games:8.2f} {wall / base[0]:10.2f} "
              f"{games / base_games:11.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
