"""Regenerate the result tables of docs/environment.md (the CSV files beside this script).

    python docs/results/make_results.py turn-optima      # turn_optima.csv: exact, from the turn solver
    python docs/results/make_results.py first-player     # first_player.csv: exact, from the shipped game tables
    python docs/results/make_results.py vs-optimal-win   # vs_optimal_win.csv: collected from the evaluation reports
    python docs/results/make_results.py baselines --presets zonk [--games 2000]
                                                         # baselines_vs_optimal_win.csv: evaluated here
    python docs/results/make_results.py published        # published.csv: published exact values reproduced
    python docs/results/make_results.py zilch-v2 [--episodes 10000] [--workers 2]
                                                         # zilch_v2_baselines.csv and its table in
                                                         # docs/environment.md: evaluated here (minutes)
    python docs/results/make_results.py all              # the first three and published (seconds)

``vs-optimal-win`` collects measured results: the play reports of ``bench/game_solver.py play``
(docs/game-solver/play_P.json, 100,000 games per pair) and the final evaluations of the shipped agents
(checkpoints/P/eval.json, 2,000 games each); each row carries the command that measures it again.
``baselines`` runs ``agents.evaluate`` for the simple baselines against ``optimal-win`` (seat-balanced,
common random numbers, luck-adjusted) and can take minutes per preset. ``zilch-v2`` plays every preset's
``Zilch-v2`` as ``gymnasium.make`` builds it with random, greedy, heuristic, optimal-turn, optimal-win and
the shipped agent (``agents.evaluate.returns``: the protocol); it keeps the rows of
zilch_v2_baselines.csv measured the same way (episodes, seed), so an interrupted run goes on where it
stopped, writes the CSV after each row and the table between the markers of docs/environment.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

PRESETS = ("zilch", "zilch15k", "zilch10k", "zilch5k", "farkle", "farkle-basic", "zonk", "zonk20k", "cardgames")


def write(name: str, header: list[str], rows: list[list]) -> Path:
    path = HERE / name
    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    print(f"wrote {path.relative_to(ROOT)} ({len(rows)} rows)")
    return path


def turn_optima() -> Path:
    from agents.solver import solve_turn
    from zilch_env import load_ruleset

    rows = []
    for p in PRESETS:
        rs = load_ruleset(p)
        on, off = solve_turn(rs, on_board=True), solve_turn(rs, on_board=False)
        ppt = on.points_per_turn
        rows.append([p, f"{on.expected_points:.6f}", f"{off.expected_points:.6f}",
                     "" if ppt is None else f"{ppt:.6f}", rs.min_bank, rs.entry_threshold,
                     f"python docs/results/make_results.py turn-optima  # agents.solver.solve_turn('{p}')"])
    return write("turn_optima.csv", ["preset", "optimum_on_board", "optimum_off_board",
                                     "points_per_turn_with_streak_penalty", "min_bank", "entry_threshold",
                                     "command"], rows)


def first_player() -> Path:
    from agents.solver.game import load_game_table

    rows = []
    for p in PRESETS:
        table = load_game_table(p)
        if table is None:
            rows.append([p, "", "no shipped table", f"zilch solve --ruleset {p} --objective win"])
            continue
        rows.append([p, f"{table.first_player_win:.6f}", "agents/solver/game_tables (shipped)",
                     f"zilch solve --ruleset {p} --objective win"])
    return write("first_player.csv", ["preset", "first_player_optimal_win", "source", "command"], rows)


def published() -> Path:
    """Every published exact value this project reproduces (docs/published.md): source, rules file,
    published value, this project's, the difference, and the command that computes it again."""
    from agents.solver.game import solve_game
    from agents.solver import solve_turn
    from zilch_env import load_ruleset

    rows = []
    playr = "docs/results/rulesets/playr-zilch.toml"
    ppt = solve_turn(load_ruleset(ROOT / playr)).points_per_turn
    rows.append(["Busche (2010) Maximizing Expected Scores in the Game of Zilch, mattbusche.org",
                 playr, "points per turn, optimal streak-dependent play", "620.855", f"{ppt:.6f}",
                 f"{ppt - 620.855:+.6f}", f"zilch solve --ruleset {playr}"])
    # solve_game reads the shipped table (agents/solver/game_tables) when there is one: no solve
    win = solve_game("cardgames", progress=False).first_player_win
    rows.append(["domsleee/farkle README (cardgames.io Farkle), github.com/domsleee/farkle",
                 "zilch_env/rules/presets/cardgames.toml", "first player's win chance, both optimal",
                 "0.533 (53.3%)", f"{win:.6f}", f"{win - 0.533:+.6f}",
                 "zilch solve --ruleset cardgames --objective win"])
    return write("published.csv", ["source", "rules_file", "value", "published", "this_project",
                                   "difference", "command"], rows)


def _ci(d):
    return (d["rate"], d["low"], d["high"]) if isinstance(d, dict) else (d, "", "")


def vs_optimal_win() -> Path:
    rows = []
    for p in PRESETS:
        play = ROOT / "docs" / "game-solver" / f"play_{p}.json"
        if play.exists():
            for entry in json.loads(play.read_text()):
                rep = entry["report"]
                res = rep["tables"][0]["results"]
                other = next(r for r in res if r["agent"] != "optimal-win")
                w, lo, hi = _ci(other["score_share"])
                rows.append([p, entry["opponent"], "baseline", other["games"], f"{w:.5f}", f"{lo:.5f}", f"{hi:.5f}",
                             f"docs/game-solver/play_{p}.json",
                             f"ZILCH_WIN_CACHE_MB=4000 python bench/game_solver.py play --presets {p} --games 100000 "
                             f"--workers 1 --out docs/game-solver/play_{p}.json"])
        ev = ROOT / "checkpoints" / p / "eval.json"
        if ev.exists():
            data = json.loads(ev.read_text())
            v = data.get("vs", {}).get("optimal-win")
            if v:
                w, lo, hi = _ci(v["score_share_ci"] or v["score_share"])
                rows.append([p, f"ppo:checkpoints/{p}", "shipped agent", v["games"], f"{w:.5f}", f"{lo:.5f}",
                             f"{hi:.5f}", f"checkpoints/{p}/eval.json",
                             f"python -m agents.evaluate --ruleset {p} --agents ppo:checkpoints/{p} optimal-win "
                             f"--games {v['games']} --seed {data['seed']} --solo-turns 0"])
    return write("vs_optimal_win.csv", ["preset", "agent", "kind", "games", "score_share_vs_optimal_win",
                                        "ci95_low", "ci95_high", "source", "command"], rows)


def baselines(presets: list[str], games: int, seed: int) -> Path:
    from agents.evaluate import evaluate
    from zilch_env import load_ruleset

    path = HERE / "baselines_vs_optimal_win.csv"
    header = ["preset", "agent", "games", "score_share_vs_optimal_win", "ci95_low", "ci95_high",
              "luck_adjusted_share", "luck_ci95_low", "luck_ci95_high", "command"]
    old = {}
    if path.exists():
        with path.open() as f:
            for r in csv.DictReader(f):
                old[(r["preset"], r["agent"])] = [r[k] for k in header]
    for p in presets:
        for agent in ("random", "greedy", "greedy-table"):
            rep = evaluate(agents=[agent, "optimal-win"], ruleset=load_ruleset(p), games=games, seed=seed,
                           players=2, solo_turns=0, progress=False)
            row = rep.data["tables"][0]["results"][0]
            w, lo, hi = _ci(row["score_share"])
            la = row.get("luck_adjusted") or {}
            old[(p, agent)] = [p, agent, row["games"], f"{w:.5f}", f"{lo:.5f}", f"{hi:.5f}",
                               f"{la.get('mean', ''):.5f}" if la else "", f"{la.get('low', ''):.5f}" if la else "",
                               f"{la.get('high', ''):.5f}" if la else "",
                               f"python -m agents.evaluate --ruleset {p} --agents {agent} optimal-win --games {games} "
                               f"--seed {seed} --solo-turns 0"]
            print(p, agent, old[(p, agent)][3:9])
    return write(path.name, header, sorted(old.values()))


#: The agents of the pinned environment's baseline table, in its column order; "shipped" is the
#: preset's own trained agent (agents.evaluate.returns.shipped_spec).
PINNED_AGENTS = ("random", "greedy", "heuristic", "optimal-turn", "optimal-win", "shipped")
PINNED_CSV = "zilch_v2_baselines.csv"
PINNED_HEADER = ["env_id", "preset", "agent", "spec", "episodes", "seed", "mean_return", "ci95_low", "ci95_high",
                 "wins", "draws", "losses", "cpu_seconds", "command"]
MARK_START, MARK_END = "<!-- zilch-v2-baselines:start -->", "<!-- zilch-v2-baselines:end -->"


def _pinned_row(task: tuple[str, str, int, int]) -> list:
    """One cell of the table, in a worker process: ``(preset, agent, episodes, seed)``."""
    import os

    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    from agents.evaluate.returns import env_returns, mean_return, shipped_spec

    preset, agent, episodes, seed = task
    spec = shipped_spec(preset) if agent == "shipped" else agent
    t = time.process_time()
    ret = env_returns(spec, preset, episodes, seed=seed)
    cpu = time.process_time() - t
    m = mean_return(ret)
    return ["Zilch-v2", preset, agent, spec, episodes, seed, f"{m.mean:.5f}", f"{m.low:.5f}", f"{m.high:.5f}",
            int((ret > 0).sum()), int((ret == 0).sum()), int((ret < 0).sum()), f"{cpu:.1f}",
            f"python docs/results/make_results.py zilch-v2 --presets {preset} --episodes {episodes} --seed {seed}"]


def pinned_table(rows: list[dict]) -> str:
    """The Markdown table of docs/environment.md: a row per preset, a column per agent, each cell the
    mean return and the half-width of its 95% interval (the interval is symmetric)."""
    by = {(r["preset"], r["agent"]): r for r in rows}
    head = ["preset"] + [("shipped agent" if a == "shipped" else f"`{a}`") for a in PINNED_AGENTS]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(PINNED_AGENTS)]
    for p in PRESETS:
        cells = [p]
        for a in PINNED_AGENTS:
            r = by.get((p, a))
            if r is None:
                cells.append("")
                continue
            mean, half = float(r["mean_return"]), (float(r["ci95_high"]) - float(r["ci95_low"])) / 2
            cell = f"{mean:+.3f} ± {half:.3f}"
            cells.append(cell + (f" (`{r['spec']}`)" if a == "shipped" else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def zilch_v2(presets: list[str], episodes: int, seed: int, workers: int, out: Path = HERE,
             doc: Path = ROOT / "docs" / "environment.md") -> Path:
    """The baseline table of the pinned environment (see the module docstring): the CSV in ``out``,
    the table between the markers of ``doc``; ``workers`` processes (1: in this one)."""
    import concurrent.futures as cf
    import multiprocessing as mp

    path = out / PINNED_CSV
    kept: dict[tuple[str, str], list] = {}
    if path.exists():
        with path.open() as f:
            for r in csv.DictReader(f):
                kept[(r["preset"], r["agent"])] = [r[k] for k in PINNED_HEADER]
    todo = [(p, a, episodes, seed) for p in presets for a in PINNED_AGENTS
            if not ((p, a) in kept and kept[(p, a)][4] == str(episodes) and kept[(p, a)][5] == str(seed))]
    # optimal-win first: its cells are the longest, so the two workers end together
    todo.sort(key=lambda t: t[1] != "optimal-win")
    print(f"zilch-v2: {len(todo)} cells to play ({len(presets) * len(PINNED_AGENTS) - len(todo)} kept), "
          f"{episodes:,} episodes each, {workers} worker(s)", flush=True)
    t0 = time.perf_counter()

    def save() -> None:
        rows = sorted(kept.values(), key=lambda r: (PRESETS.index(r[1]) if r[1] in PRESETS else 99,
                                                   PINNED_AGENTS.index(r[2])))
        with path.open("w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(PINNED_HEADER)
            w.writerows(rows)

    def done(k: int, row: list) -> None:
        kept[(row[1], row[2])] = [str(x) for x in row]
        save()
        print(f"[{k}/{len(todo)}] {row[1]} {row[3]}: {float(row[6]):+.4f} [{float(row[7]):+.4f}, "
              f"{float(row[8]):+.4f}] ({row[12]} s CPU; {time.perf_counter() - t0:.0f} s so far)", flush=True)

    if workers == 1:
        for k, task in enumerate(todo, 1):
            done(k, _pinned_row(task))
    else:
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as pool:
            futures = [pool.submit(_pinned_row, t) for t in todo]
            for k, fut in enumerate(cf.as_completed(futures), 1):
                done(k, fut.result())
    save()
    print(f"wrote {path} ({len(kept)} rows)")
    with path.open() as f:
        rows = list(csv.DictReader(f))
    text = doc.read_text()
    if MARK_START in text and MARK_END in text:
        head, rest = text.split(MARK_START, 1)
        _, tail = rest.split(MARK_END, 1)
        doc.write_text(head + MARK_START + "\n" + pinned_table(rows) + "\n" + MARK_END + tail)
        print(f"wrote the table of {doc}")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("turn-optima", "first-player", "vs-optimal-win", "published", "baselines",
                                     "zilch-v2", "all"))
    ap.add_argument("--presets", nargs="+", default=None,
                    help="for baselines (default zonk) and zilch-v2 (default every preset)")
    ap.add_argument("--games", type=int, default=2000, help="for baselines (default 2000)")
    ap.add_argument("--seed", type=int, default=None, help="for baselines (default 1) and zilch-v2 (default 0)")
    ap.add_argument("--episodes", type=int, default=10000, help="for zilch-v2: episodes per cell (default 10000)")
    ap.add_argument("--workers", type=int, default=2, help="for zilch-v2: processes (default 2)")
    a = ap.parse_args(argv)
    if a.what in ("turn-optima", "all"):
        turn_optima()
    if a.what in ("first-player", "all"):
        first_player()
    if a.what in ("vs-optimal-win", "all"):
        vs_optimal_win()
    if a.what in ("published", "all"):
        published()
    if a.what == "baselines":
        baselines(a.presets or ["zonk"], a.games, 1 if a.seed is None else a.seed)
    if a.what == "zilch-v2":
        zilch_v2(a.presets or list(PRESETS), a.episodes, 0 if a.seed is None else a.seed, a.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
