"""The agent on the held-out suite (and the presets) against perfect play: ``train/generalist_eval.py
--suite``.

For each ruleset, two measures (``agents.evaluate``):

* **against ``optimal-win``**, two players, seat-balanced with common random numbers (each deal played
  in both seat orders), ``--games`` games: the agent's share of the results (wins plus half the draws)
  luck-adjusted by the ruleset's solved game (the dice's luck removed exactly; Student's t 95%
  interval over the deals) beside the raw share. Against ``optimal-win`` the adjusted share is
  0.5 minus the agent's **regret per game**: the win chance its moves gave up against the best
  moves, summed over a game (the opponent's moves give up none, and the seats' starting chances
  average to one half), so the regret is shown as ``0.5 - share``, in points of win chance;
* **points per turn against the turn optimum**: the agent's mean points per turn in one-player
  games (``--solo-turns`` turns from the board, the same dice for every agent) over the exact
  optimum of the turn (``agents.solver.solve_turn(ruleset).points_per_turn``), with a 95% interval.

The game of each ruleset is solved first if the cache has no table (``zilch solve --objective
win``; 6 seconds to 3.3 minutes for each suite ruleset here). Each finished row is written at once to
``--results`` (JSON, with a CSV beside it), so an interrupted run resumes where it stopped: a row
already there with the same agent, games, seed and solo turns is kept, any other is played again.
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Any, NamedTuple

from zilch_env import PRESETS, Ruleset, load_ruleset

from train.held_out import suite

__all__ = ["Row", "suite_rows", "eval_row", "run_suite", "suite_markdown", "csv_text", "SUITE_START", "SUITE_END"]

SUITE_START = "<!-- suite table: train/generalist_eval.py --suite -->"
SUITE_END = "<!-- end of suite table -->"
#: What a row must have been measured with to be kept on resuming.
SETTINGS = ("agent", "games", "seed", "solo_turns")


class Row(NamedTuple):
    """A ruleset to measure: its name, the rules, where it comes from and what it varies."""

    name: str
    ruleset: Ruleset
    kind: str  # "suite" or "preset"
    what: str


def _what(path: Path) -> str:
    """What a suite ruleset varies: its file's opening comment, after the heading and up to the line
    that says why it is outside the distribution (``Outside ...``)."""
    words = []
    for line in path.read_text().splitlines():
        text = line.lstrip("#").strip()
        if not line.startswith("#") or text.startswith("Outside"):
            break
        words.append(text)
    what = " ".join(words)
    if what.startswith("Held-out suite") and ": " in what:
        what = what.split(": ", 1)[1]
    return what.rstrip(".")


def suite_rows(presets: bool = False, directory: Path | None = None) -> list[Row]:
    """The suite's rulesets (``train/suite/``), then, with ``presets``, every preset."""
    rows = [Row(s.name, s.ruleset, "suite", _what(s.path)) for s in suite(directory)]
    if presets:
        rows += [Row(p, load_ruleset(p), "preset", "the preset") for p in PRESETS]
    return rows


def _ci(d: dict[str, Any]) -> dict[str, float]:
    return {k: float(d[k]) for k in ("mean", "low", "high")}


def eval_row(agent: str, row: Row, games: int, seed: int, solo_turns: int, workers: int,
             progress: bool) -> dict[str, Any]:
    """Both measures of the module docstring on one ruleset (its game solved first if need be)."""
    from agents.evaluate import evaluate
    from agents.solver.game import solve_game

    t0 = time.perf_counter()
    table = solve_game(row.ruleset, progress=progress)
    solved = time.perf_counter() - t0
    rep = evaluate(agents=[agent, "optimal-win"], ruleset=row.ruleset, games=games, seed=seed, workers=workers,
                   solo_turns=0, luck="on", progress=progress)
    res = rep.data["tables"][0]["results"][0]
    la = _ci(res["luck_adjusted"])
    raw = res["score_share_t"]
    out: dict[str, Any] = {
        "name": row.name, "kind": row.kind, "what": row.what, "ruleset": row.ruleset.to_dict(),
        "agent": agent, "games": games, "seed": seed, "solo_turns": solo_turns,
        "games_played": int(res["games"]), "deals": int(res["luck_adjusted"]["deals"]),
        "first_player_win": float(table.first_player_win),
        "share": la,
        "raw_share": {"mean": float(raw["rate"]), "low": float(raw["low"]), "high": float(raw["high"])},
        "luck_sd_reduction": float(res["luck_sd_reduction"]),
        "regret_per_game": {"mean": 0.5 - la["mean"], "low": 0.5 - la["high"], "high": 0.5 - la["low"]},
        "solve_seconds": solved,
    }
    t1 = time.perf_counter()
    if solo_turns:
        solo = evaluate(agents=[agent], ruleset=row.ruleset, games=1, seed=seed, workers=workers,
                        solo_turns=solo_turns, luck="off", progress=progress).data["solo"]
        a = solo["agents"][0]
        out["points_per_turn"] = _ci(a["points_per_turn"])
        out["turn_optimum"] = float(solo["optimum"]) if solo["optimum"] else None
        out["of_optimum"] = _ci(a["ratio"]) if "ratio" in a else None
    out["seconds"] = time.perf_counter() - t0
    out["solo_seconds"] = time.perf_counter() - t1
    return out


def _load(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise SystemExit(f"--results {path}: not a results file this script wrote ({e}); move it away or "
                         "name another") from None
    return {r["name"]: r for r in data.get("rows", [])}


def _save(path: Path, rows: list[dict[str, Any]], command: str) -> None:
    from agents.files import write_text_whole

    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_whole(path, json.dumps({"command": command, "rows": rows}, indent=1) + "\n")
    write_text_whole(path.with_suffix(".csv"), csv_text(rows))


def run_suite(agent: str, rows: list[Row], games: int, seed: int, solo_turns: int, workers: int,
              results: Path, command: str, progress: bool) -> list[dict[str, Any]]:
    """Every row measured (:func:`eval_row`) or kept from ``results`` (resuming), written after each."""
    done = _load(results)
    want = {"agent": agent, "games": games, "seed": seed, "solo_turns": solo_turns}
    out: list[dict[str, Any]] = []
    kept = [r for r in rows if r.name in done and all(done[r.name].get(k) == want[k] for k in SETTINGS)]
    for i, row in enumerate(rows, 1):
        if row in kept:
            out.append(done[row.name])
            print(f"[{i}/{len(rows)}] {row.name}: kept from {results}", flush=True)
        else:
            print(f"[{i}/{len(rows)}] {row.name} ({row.what}): {games} games against optimal-win"
                  + (f", {solo_turns} solo turns" if solo_turns else "") + " ...", flush=True)
            out.append(eval_row(agent, row, games, seed, solo_turns, workers, progress))
            print(f"[{i}/{len(rows)}] {row.name}: {line(out[-1])}", flush=True)
        # the rows measured or kept so far, then the file's other rows (those still to come, other rulesets)
        names = {r["name"] for r in out}
        _save(results, out + [r for n, r in done.items() if n not in names], command)
    return out


def pct(s: dict[str, float] | None, digits: int = 2) -> str:
    if not s:
        return "-"
    return f"{100 * s['mean']:.{digits}f} [{100 * s['low']:.{digits}f}, {100 * s['high']:.{digits}f}]"


def line(r: dict[str, Any]) -> str:
    """One row as a line of text."""
    text = (f"{pct(r['share'])}% luck-adjusted against optimal-win (raw {pct(r['raw_share'], 1)}%), "
            f"regret {100 * r['regret_per_game']['mean']:.2f} points of win chance per game")
    if r.get("of_optimum"):
        text += (f"; {r['points_per_turn']['mean']:.1f} points per turn, {pct(r['of_optimum'], 1)}% of the "
                 f"optimum {r['turn_optimum']:.1f}")
    return text + f" ({r['seconds']:.0f} s)"


def suite_markdown(rows: list[dict[str, Any]], command: str) -> str:
    """The table of the rows, with the command."""
    games = sorted({r["games_played"] for r in rows})
    solo = sorted({r["solo_turns"] for r in rows})
    lines = [f"Agent `{rows[0]['agent']}` against `optimal-win`, two players, {'/'.join(map(str, games))} "
             f"seat-balanced games a ruleset (seed {rows[0]['seed']}); share % [95% CI] luck-adjusted by the "
             "ruleset's solved game and raw; regret = 0.5 - the adjusted share, in points of win chance per "
             f"game; points per turn in one-player games ({'/'.join(map(str, solo))} turns from the board) "
             "against the exact turn optimum.", "",
             "| ruleset | what it varies | share % luck-adjusted | raw share % | regret per game (points) "
             "| points per turn | of the turn optimum % |", "|---|---|---|---|---:|---:|---|"]
    for r in rows:
        name = f"`{r['name']}`" + (" (preset)" if r["kind"] == "preset" else "")
        ppt = (f"{r['points_per_turn']['mean']:.1f} / {r['turn_optimum']:.1f}" if r.get("points_per_turn")
               and r.get("turn_optimum") else "-")
        lines.append(f"| {name} | {r['what']} | {pct(r['share'])} | {pct(r['raw_share'], 1)} | "
                     f"{100 * r['regret_per_game']['mean']:.2f} | {ppt} | {pct(r.get('of_optimum'), 1)} |")
    minutes = sum(r["seconds"] for r in rows) / 60
    lines += ["", f"Measured by `{command}` ({minutes:.0f} minutes of evaluation, the games solved beforehand)."]
    return "\n".join(lines) + "\n"


def csv_text(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV, one line a ruleset (percentages as fractions)."""
    cols = ["name", "kind", "what", "agent", "games_played", "seed", "share", "share_low", "share_high",
            "raw_share", "raw_share_low", "raw_share_high", "regret_per_game", "luck_sd_reduction",
            "points_per_turn", "turn_optimum", "of_optimum", "of_optimum_low", "of_optimum_high", "solo_turns",
            "first_player_win", "seconds"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        oo = r.get("of_optimum") or {}
        w.writerow([r["name"], r["kind"], r["what"], r["agent"], r["games_played"], r["seed"],
                    *(f"{r['share'][k]:.5f}" for k in ("mean", "low", "high")),
                    *(f"{r['raw_share'][k]:.5f}" for k in ("mean", "low", "high")),
                    f"{r['regret_per_game']['mean']:.5f}", f"{r['luck_sd_reduction']:.2f}",
                    f"{r['points_per_turn']['mean']:.2f}" if r.get("points_per_turn") else "",
                    f"{r['turn_optimum']:.2f}" if r.get("turn_optimum") else "",
                    *((f"{oo[k]:.4f}" for k in ("mean", "low", "high")) if oo else ("", "", "")),
                    r["solo_turns"], f"{r['first_player_win']:.5f}", f"{r['seconds']:.1f}"])
    return buf.getvalue()
