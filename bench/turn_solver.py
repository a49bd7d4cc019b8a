"""The exact turn optimum of every preset, its solve time, and each baseline's points per turn as a
share of it.

    .venv/bin/python bench/turn_solver.py [--turns 20000] [--seed 0] [--presets zonk farkle ...]
        [--agents random greedy ...] [--json FILE]

For each preset: the optimal expected points of one turn on the board and before it (exact, from
:func:`agents.solver.solve_turn`, timed cold with the compiled kernels already loaded), the optimal
long-run points per turn under a zilch-streak penalty, then for each agent the mean points of
``--turns`` seeded single turns played through the engine from an on-board position, with a 95%
confidence interval, as a share of the on-board optimum. (On the board: the ruleset is played with
``entry_threshold = 0``, which only changes the turns before the board, and a target no turn reaches.)
Where a ruleset has a ``subtract`` zilch-streak penalty the table also gives the mean per turn after
penalties, against ``points_per_turn``. ``optimal-turn`` is in the table as the check that the
simulated mean agrees with the computed optimum.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_agent  # noqa: E402
from agents.solver import _solve_turn, solve_turn  # noqa: E402
from zilch_env import PRESETS, GameState, load_ruleset  # noqa: E402

AGENTS = ["random", "greedy-cautious", "greedy", "greedy-bold", "greedy-table", "heuristic", "optimal-turn"]


def single_turns(ruleset, spec: str, turns: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Points recorded by ``turns`` consecutive on-board turns of one player (and the same after
    zilch-streak penalties)."""
    rs = load_ruleset(ruleset, {"entry_threshold": 0, "target": 10**9})
    agent = make_agent(spec, rs)
    game = GameState(rs, 1, seed=seed)
    rng = np.random.default_rng(seed + 1)
    zp = rs.variants.zilch_penalty
    while len(game.turns) < turns:
        game.apply(agent.act(game, game.legal_actions(), rng))
    rec = np.array([t["recorded"] for t in game.turns[:turns]], dtype=float)
    pen = rec.copy()
    if zp.count and zp.mode == "subtract":
        pen -= np.array([zp.points if t["penalty"] else 0 for t in game.turns[:turns]], dtype=float)
    return rec, pen


def ci95(x: np.ndarray) -> float:
    return 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turns", type=int, default=20_000, help="single turns per agent and preset (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    p.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS, metavar="PRESET")
    p.add_argument("--agents", nargs="+", default=AGENTS, metavar="SPEC", help=f"agent specs (default: {' '.join(AGENTS)})")
    p.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = p.parse_args(argv)

    t0 = time.perf_counter()
    solve_turn(load_ruleset("zonk", {"dice": 2}))  # compile (or load) the numba kernels first
    jit = time.perf_counter() - t0
    print(f"numba kernels ready in {jit:.2f} s (compiled once, then cached on disk)\n")

    rows, results = [], {}
    for preset in args.presets:
        rs = load_ruleset(preset)
        _solve_turn.cache_clear()
        t = time.perf_counter()
        on = solve_turn(rs, True)
        t_on = time.perf_counter() - t
        t = time.perf_counter()
        off = solve_turn(rs, False)
        t_off = time.perf_counter() - t
        res = {"expected_points_on_board": on.expected_points, "expected_points_off_board": off.expected_points,
               "points_per_turn": on.points_per_turn, "solve_seconds_on_board": t_on,
               "solve_seconds_off_board": t_off, "agents": {}}
        penalised = on.points_per_turn is not None and abs(on.points_per_turn - on.expected_points) > 1e-9
        for spec in args.agents:
            t = time.perf_counter()
            rec, pen = single_turns(rs, spec, args.turns, args.seed)
            a = {"mean": float(rec.mean()), "ci95": ci95(rec), "share": float(rec.mean() / on.expected_points),
                 "seconds": time.perf_counter() - t}
            if penalised:
                a.update(mean_after_penalty=float(pen.mean()), ci95_after_penalty=ci95(pen),
                         share_after_penalty=float(pen.mean() / on.points_per_turn))
            res["agents"][spec] = a
            print(f"  {preset:<12} {spec:<16} {a['mean']:8.1f} ± {a['ci95']:5.1f}  "
                  f"{100 * a['share']:5.1f}%  ({a['seconds']:.1f} s)", flush=True)
        results[preset] = res
        rows.append((preset, on, off, t_on, t_off, res, penalised))

    print(f"\n### Turn optimum and baselines ({args.turns} single turns per agent, seed {args.seed})\n")
    head = "| preset | optimum on board | off board | points/turn (streak) | solve on / off (s) | " + \
        " | ".join(args.agents) + " |"
    print(head)
    print("|" + "---|" * (5 + len(args.agents)))
    for preset, on, off, t_on, t_off, res, penalised in rows:
        ppt = "n/a" if on.points_per_turn is None else f"{on.points_per_turn:.3f}"
        cells = []
        for spec in args.agents:
            a = res["agents"][spec]
            cell = f"{a['mean']:.1f} ± {a['ci95']:.1f} ({100 * a['share']:.1f}%)"
            if penalised:
                cell += f"; after penalty {a['mean_after_penalty']:.1f} ({100 * a['share_after_penalty']:.1f}%)"
            cells.append(cell)
        print(f"| {preset} | {on.expected_points:.3f} | {off.expected_points:.3f} | {ppt} | "
              f"{t_on:.3f} / {t_off:.3f} | " + " | ".join(cells) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"turns": args.turns, "seed": args.seed, "jit_seconds": jit, "presets": results}, f, indent=2)
        print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
