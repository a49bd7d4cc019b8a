"""The exact two-player game solver per preset: solve time, peak memory, the first player's win
chance under optimal play, and how other agents fare against optimal-win.

    python bench/game_solver.py solve [--presets zonk farkle ...] [--set KEY=VALUE ...] [--force] [--threads N]
                                      [--players 3]
    python bench/game_solver.py play  [--presets ...] [--opponents optimal-turn heuristic]
                                      [--games 100000] [--workers 2] [--seed 1]
    python bench/game_solver.py selfplay [--presets ...] [--set KEY=VALUE ...] [--games 2000] [--seed 1]

``solve`` solves each preset in its own process (so the peak memory is that solve's own, from
``resource.getrusage``) and caches the table where ``optimal-win`` finds it; it prints, per preset, the
first player's optimal win chance, the wall time, the CPU time of all the solve's threads (on a
busy machine, CPU time / threads is what the wall time would be alone), the peak resident memory, the states, turn DPs and
sweeps, and the table file's size. Times depend on the machine's load: run it alone. With ``--players 3``
it solves the game of three players instead (:mod:`agents.solver.multi`, every player maximising their
own chance; ``--presets zilch`` is the seed's game to 5,000).
``--set`` solves
each preset with a variant (the same dotted keys as ``zilch``'s ``--set``; two players), e.g. ``--set
variants.six_dice_zilch_bonus=500``: the table is then the variant's, named ``PRESET+KEY=VALUE``.

``play`` runs seat-balanced games (every deal played in both seat orders, the same dice for both,
see :mod:`agents.evaluate`) of each opponent against ``optimal-win`` and prints the opponent's score
rate (a draw as half) with its 95% interval. Reference: optimal-win's own first-player chance.

``selfplay`` checks a stored table against the engine: ``optimal-win`` plays both seats of ``--games``
seeded engine games (the first seat alternating), and the first player's score rate (a draw as half)
with its 95% interval is printed beside the table's value, with whether the interval holds it.

Results go to the terminal and, with ``--out FILE``, to a JSON file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PRESETS = ("zilch", "zilch5k", "zilch10k", "zonk", "farkle-basic", "farkle", "zilch15k")

_SOLVE_ONE = """
import json, sys
from zilch_env.rules.load import load_ruleset
from agents.solver.game import solve_game
rs = load_ruleset(sys.argv[1], json.loads(sys.argv[4]))
t = solve_game(rs, force=sys.argv[2] == "1", threads=int(sys.argv[3]) or None, progress=True)
print(json.dumps({"first_player_win": t.first_player_win, **t.meta}))
"""

_SOLVE_MULTI = """
import json, resource, sys
from agents.solver.multi import solve_multi
t = solve_multi(sys.argv[1], int(sys.argv[4]), force=sys.argv[2] == "1", threads=int(sys.argv[3]) or None,
                progress=True)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"first_player_win": t.first_player_win, "peak_rss_mb": round(peak, 1), "path": str(t.path),
                  **t.meta}))
"""


def label(name: str, sets: list[str]) -> str:
    """The name of a preset solved with ``--set`` overrides: ``zonk+variants.six_dice_zilch_bonus=500``."""
    return "+".join([name, *sets])


def solve(presets: list[str], force: bool, threads: int, sets: list[str] | None = None,
          players: int = 2) -> list[dict]:
    from zilch_env.rules.load import load_ruleset, parse_overrides
    from agents.solver.game import table_path

    sets = list(sets or [])
    overrides = parse_overrides(sets)
    rows = []
    for name in presets:
        t0 = time.perf_counter()
        if players == 2:
            proc = subprocess.run([sys.executable, "-c", _SOLVE_ONE, name, "1" if force else "0", str(threads),
                                   json.dumps(overrides)], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True)
        else:
            proc = subprocess.run([sys.executable, "-c", _SOLVE_MULTI, name, "1" if force else "0", str(threads),
                                   str(players)], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True)
        wall = time.perf_counter() - t0
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        info["preset"] = label(name, sets)
        info["process_seconds"] = round(wall, 1)
        path = table_path(load_ruleset(name, overrides)) if players == 2 else Path(info["path"])
        info["file_mb"] = round(path.stat().st_size / 1e6, 2)
        rows.append(info)
        if players != 2:
            print(f"{name:<13} {players} players  first player {info['first_player_win']:.5f}  solve "
                  f"{info['seconds']:8.1f} s  cpu {info['cpu_seconds']:8.1f} s  peak {info['peak_rss_mb']:7.0f} MB  "
                  f"states {info['states']:>9}  turn DPs {info['turn_dps']:>10}  file {info['file_mb']} MB", flush=True)
            continue
        print(f"{info['preset']:<13} first player {info['first_player_win']:.5f}  solve {info['seconds']:8.1f} s  "
              f"cpu {info.get('cpu_seconds', float('nan')):8.1f} s  peak {info['peak_rss_mb']:7.0f} MB  states {info['states']:>7}  turn DPs {info['turn_dps']:>8}  "
              f"sweeps {info['sweeps']}  file {info['file_mb']} MB", flush=True)
    return rows


def play(presets: list[str], opponents: list[str], games: int, workers: int, seed: int) -> list[dict]:
    from agents.evaluate import EvalConfig, evaluate
    from agents.solver.game import load_game_table

    rows = []
    for name in presets:
        table = load_game_table(name)
        if table is None:
            print(f"{name}: no cached game table; run 'python bench/game_solver.py solve --presets {name}' first",
                  file=sys.stderr)
            continue
        for opp in opponents:
            t0 = time.perf_counter()
            rep = evaluate(EvalConfig(agents=["optimal-win", opp], ruleset=name, games=games, seed=seed,
                                      workers=workers, solo_turns=0), progress=True)
            res = rep.results()
            row = {"preset": name, "opponent": opp, "seconds": round(time.perf_counter() - t0, 1),
                   "first_player_win_optimal": table.first_player_win, "report": res}
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "report"}), flush=True)
            rep.print()
    return rows


def selfplay(presets: list[str], sets: list[str], games: int, seed: int) -> list[dict]:
    import math

    import numpy as np

    from zilch_env import GameState, play_game
    from zilch_env.rules.load import load_ruleset, parse_overrides
    from agents.solver.game import OptimalWinAgent, load_game_table

    rows = []
    for name in presets:
        rs = load_ruleset(name, parse_overrides(sets))
        table = load_game_table(rs)
        if table is None:
            print(f"{label(name, sets)}: no stored game table; run 'python bench/game_solver.py solve --presets "
                  f"{name}{''.join(' --set ' + s for s in sets)}' first", file=sys.stderr)
            continue
        agent = OptimalWinAgent(rs, table)
        rng = np.random.default_rng(seed)
        t0 = time.perf_counter()
        score = 0.0
        for g in range(games):
            first = g % 2
            state = play_game(GameState(rs, 2, seed=seed * 1_000_000 + g, first=first), [agent, agent], rng)
            score += state.result()[first]
        rate, p = score / games, table.first_player_win
        half = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / games)
        row = {"preset": label(name, sets), "games": games, "seed": seed, "first_player_rate": round(rate, 5),
               "ci95": [round(rate - half, 5), round(rate + half, 5)], "table": round(p, 5),
               "holds": abs(rate - p) <= half, "seconds": round(time.perf_counter() - t0, 1)}
        rows.append(row)
        print(f"{row['preset']:<13} first player won {rate:.4f} [{rate - half:.4f}, {rate + half:.4f}] of {games} "
              f"games, the table says {p:.4f}: {'within' if row['holds'] else 'OUTSIDE'} the interval "
              f"({row['seconds']} s)", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("solve", "play", "selfplay"))
    ap.add_argument("--presets", nargs="+", default=list(PRESETS))
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="solve each preset with this rule changed (repeatable), e.g. "
                         "variants.six_dice_zilch_bonus=500")
    ap.add_argument("--force", action="store_true", help="solve again even if a table is cached")
    ap.add_argument("--threads", type=int, default=0, help="numba threads of a solve (default: all cores)")
    ap.add_argument("--players", type=int, choices=(2, 3), default=2,
                    help="solve: the game of 2 players (agents.solver.game) or 3 (agents.solver.multi)")
    ap.add_argument("--opponents", nargs="+", default=["optimal-turn", "heuristic"])
    ap.add_argument("--games", type=int, default=None,
                    help="play: games per preset and opponent, both seat orders (default 100000); "
                         "selfplay: games per preset (default 2000)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, help="write the results as JSON here")
    args = ap.parse_args(argv)
    if args.what == "solve":
        if args.sets and args.players != 2:
            ap.error("--set solves two-player games only (--players 2)")
        rows = solve(args.presets, args.force, args.threads, args.sets, args.players)
    elif args.what == "selfplay":
        rows = selfplay(args.presets, args.sets, args.games or 2000, args.seed)
    else:
        rows = play(args.presets, args.opponents, args.games or 100_000, args.workers, args.seed)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
