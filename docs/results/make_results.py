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
    python docs/results/make_results.py strategy-cards [--presets zonk ...] [--games 10000] [--workers 1]
                                                         # agents/evaluate/strategy_cards.json: the presets'
                                                         # strategy cards, each rule of thumb played against
                                                         # optimal-win (minutes per preset; merged by preset)
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
    # Busche and Neller 2017: the table is shipped with the package (agents/solver/game_tables)
    from agents.solver.strategy import game_edge

    bn = "docs/results/rulesets/busche-neller-farkle.toml"
    edge = game_edge(solve_game(load_ruleset(ROOT / bn), progress=False))
    rows.append(["Busche and Neller (2017) Optimal Play of the Farkle Dice Game, Advances in Computer Games",
                 bn, "points given to the second player that make the game closest to even", "about 200",
                 f"{edge['points']} (first player {edge['first_player_win_with']:.6f}; none "
                 f"{edge['first_player_win']:.6f})", f"{edge['points'] - 200:+d}",
                 f"zilch strategy --ruleset {bn}"])
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


def _one_thread() -> None:
    """Worker initializer: one thread of linear algebra and numba per process (the processes are the
    parallelism). Only in spawned workers: numba refuses a new thread count in a process whose
    threads have started, so the calling process's environment is left alone."""
    import os

    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def _pinned_row(task: tuple[str, str, int, int]) -> list:
    """One cell of the table, in a worker process: ``(preset, agent, episodes, seed)``."""
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
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                                    initializer=_one_thread) as pool:
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


def strategy_cards(presets: list[str], games: int, workers: int, replay: bool = False) -> Path:
    """The presets' strategy cards (agents.evaluate.strategy), each rule of thumb played ``games``
    seat-balanced games against optimal-win; merged by preset into the shipped file. A card's games
    are kept from the file when its rules, rule of thumb, seed and number of games are the same
    (the exact parts are computed again; ``replay`` plays them again anyway)."""
    import time

    from agents.evaluate.strategy import CARD_FORMAT, CARDS_FILE, SEED, _shipped, _win_part, strategy_card
    from zilch_env import load_ruleset

    data = json.loads(CARDS_FILE.read_text()) if CARDS_FILE.exists() else {"format": CARD_FORMAT, "cards": {}}
    for p in presets:
        t0 = time.perf_counter()
        rs = load_ruleset(p)
        card = strategy_card(rs, stored=False)
        old = data["cards"].get(p) or {}
        win = old.get("win")
        same = (win and old.get("key") == card["key"] and (old.get("rule") or {}).get("spec") == card["rule"]["spec"]
                and win["games"] >= games and win["seed"] == SEED)
        if replay or not same:
            win = _win_part(rs, card["rule"]["spec"], games, SEED, workers, True, f"--ruleset {p}")
        card["win"] = win
        card["why"].pop("win", None)
        card["seconds"] = round(time.perf_counter() - t0, 1)
        data["cards"][p] = card
        data["cards"] = {k: data["cards"][k] for k in PRESETS if k in data["cards"]}
        data["command"] = "python docs/results/make_results.py strategy-cards --presets PRESET --games 10000"
        CARDS_FILE.write_text(json.dumps(data, indent=1) + "\n")
        _shipped.cache_clear()
        print(f"{p}: {card['rule']['spec']} costs {card['rule']['cost']:.2f} points per turn; "
              f"{win['share']:.4f} [{win['low']:.4f}, {win['high']:.4f}] against optimal-win, luck-adjusted "
              f"{win['luck_adjusted']:.4f} [{win['luck_low']:.4f}, {win['luck_high']:.4f}]; games "
              f"{win['seconds']} s", flush=True)
    print(f"wrote {CARDS_FILE.relative_to(ROOT)}")
    strategy_csv()
    return CARDS_FILE


def strategy_csv() -> Path:
    """docs/results/strategy.csv: each preset's rule of thumb, its costs and the compensation, from the
    shipped cards (agents/evaluate/strategy_cards.json)."""
    from agents.evaluate.strategy import CARDS_FILE

    rows = []
    for p, c in json.loads(CARDS_FILE.read_text())["cards"].items():
        r, w, g = c["rule"], c["win"], c["game"]
        rows.append([p, r["spec"], r["words"], f"{r['optimum']:.4f}", f"{r['points_per_turn']:.4f}", f"{r['cost']:.4f}",
                     "" if r["entry_cost"] is None else f"{r['entry_cost']:.4f}", w["games"], f"{w['share']:.5f}",
                     f"{w['low']:.5f}", f"{w['high']:.5f}", f"{w['luck_adjusted']:.5f}", f"{w['luck_low']:.5f}",
                     f"{w['luck_high']:.5f}", f"{g['first_player_win']:.6f}", g["to"],
                     "" if g["points"] is None else g["points"], g["on_board"], f"{g['first_player_win_with']:.6f}",
                     w["command"]])
    _strategy_table()
    return write("strategy.csv", ["preset", "rule_spec", "rule", "optimum_points_per_turn", "rule_points_per_turn",
                                  "cost_points_per_turn", "entry_cost_points", "games", "share_vs_optimal_win",
                                  "ci95_low", "ci95_high", "luck_adjusted_share", "luck_ci95_low", "luck_ci95_high",
                                  "first_player_win", "head_start_to", "head_start_points", "head_start_on_board",
                                  "first_player_win_with_head_start", "command"], rows)


def _strategy_table() -> None:
    """The presets' table of docs/rules.md (between its strategy-table markers), from the shipped cards."""
    from agents.evaluate.strategy import CARDS_FILE

    lines = ["| preset | rule of thumb (`thumb:` spec) | cost: points per turn (of the optimum) | against `optimal-win` "
             "[95%] | luck-adjusted [95%] | first player | head start closest to even |",
             "|---|---|---:|---:|---:|---:|---|"]
    for p, c in json.loads(CARDS_FILE.read_text())["cards"].items():
        r, w, g = c["rule"], c["win"], c["game"]
        if g["points"] is None:
            head = "none comes closer"
        elif g["on_board"] and g["points"] == 0:
            head = f"{g['to']} player on the board from the start: {100 * g['first_player_win_with']:.2f}%"
        else:
            head = (f"{g['points']:,} to the {g['to']} player{' (on the board)' if g['on_board'] else ''}: "
                    f"{100 * g['first_player_win_with']:.2f}%")
        lines.append(f"| {p} | `{r['spec'][6:]}` | {r['cost']:.2f} ({r['optimum']:.1f}) | {100 * w['share']:.2f}% "
                     f"[{100 * w['low']:.2f}, {100 * w['high']:.2f}] | {100 * w['luck_adjusted']:.2f}% "
                     f"[{100 * w['luck_low']:.2f}, {100 * w['luck_high']:.2f}] | {100 * g['first_player_win']:.2f}% "
                     f"| {head} |")
    doc = ROOT / "docs" / "rules.md"
    text = doc.read_text()
    start, end = "<!-- strategy table -->\n", "<!-- end of strategy table -->"
    i, j = text.index(start) + len(start), text.index(end)
    doc.write_text(text[:i] + "\n".join(lines) + "\n" + text[j:])
    print(f"wrote the strategy table of {doc.relative_to(ROOT)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("turn-optima", "first-player", "vs-optimal-win", "published", "baselines",
                                     "zilch-v2", "strategy-cards", "all"))
    ap.add_argument("--presets", nargs="+", default=None,
                    help="for baselines (default zonk), zilch-v2 and strategy-cards (default every preset)")
    ap.add_argument("--games", type=int, default=None,
                    help="for baselines (default 2000) and strategy-cards (default 10000)")
    ap.add_argument("--seed", type=int, default=None, help="for baselines (default 1) and zilch-v2 (default 0)")
    ap.add_argument("--episodes", type=int, default=10000, help="for zilch-v2: episodes per cell (default 10000)")
    ap.add_argument("--workers", type=int, default=None,
                    help="processes: for zilch-v2 (default 2) and strategy-cards (default 1)")
    ap.add_argument("--replay", action="store_true", help="for strategy-cards: play the games again even when "
                    "the file has them for the same rules and rule of thumb")
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
        baselines(a.presets or ["zonk"], a.games or 2000, 1 if a.seed is None else a.seed)
    if a.what == "zilch-v2":
        zilch_v2(a.presets or list(PRESETS), a.episodes, 0 if a.seed is None else a.seed, a.workers or 2)
    if a.what == "strategy-cards":
        strategy_cards(a.presets or list(PRESETS), a.games or 10000, a.workers or 1, a.replay)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
