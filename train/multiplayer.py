"""The shipped agents at 3- and 4-player tables against copies of ``heuristic``.

    python train/multiplayer.py [--players 3 4] [--games 2000] [--checkpoints checkpoints]
        [--agent ppo:checkpoints/any --rulesets zonk farkle ...] [--write checkpoints/README.md] [--json FILE]

Every shipped agent plays its own preset: the win agent ``ppo:checkpoints/<preset>`` and the score
agent ``ppo:checkpoints/<preset>-score`` (both trained on their preset, the win agent for two players;
the observation holds six player blocks, so they read any table), and ``optimal-turn`` (the exact
best turn for points, blind to the scores) as a reference row per preset. Each sits at a table with
N-1 copies of ``heuristic`` (:mod:`agents.evaluate`): every deal is played in all N! seat orders with
the same dice in every turn slot (common random numbers); the copies are one agent, so only the N
orders that put the agent in a different seat differ, and each is played once. ``--agent SPEC`` adds
any agent on each ruleset of ``--rulesets`` (a generalist such as ``ppo:checkpoints/any``).

The share is the agent's wins plus its shares of draws (a draw of k players is 1/k each), out of its
games; a fair share is 1/N (33.3% at three players, 25% at four). Its 95% interval is Student's t
over the per-deal shares (each deal's mean over its seat orders; the deals are independent), and
"above fair" means the interval's lower bound is above 1/N. Every row of a preset plays the same
deals (the same seed). ``--write`` replaces the table between the markers
``<!-- multiplayer table: train/multiplayer.py -->`` and ``<!-- end of multiplayer table -->``
(appended when the file has none); ``--json`` keeps every number, rewritten after each row, and
with ``--resume`` a row already in that file (the same preset, agent, players, games, seed and, for a
``ppo:`` agent, the same policy file by its SHA-256) is kept, not played again: an interrupted run
continues, and adding an agent (``--agent ppo:checkpoints/any --resume``) plays only its rows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shlex
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train.quality import PRESETS, _replace  # noqa: E402

#: The markers of the table in a Markdown file (``--write``).
START = "<!-- multiplayer table: train/multiplayer.py -->"
END = "<!-- end of multiplayer table -->"
#: Who fills the other seats.
OPPONENT = "heuristic"
#: The reference row of every preset.
REFERENCE = "optimal-turn"
FORMAT = "zilch-rl/multiplayer/1"


def plan(root: Path, presets: list[str], extra: list[str], rulesets: list[str] | None,
         reference: bool = True) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The rows to play, ``(preset, spec, kind)``, and what was skipped (a preset with no checkpoint).

    Per preset: its win agent, its score agent (where their ``policy.onnx`` is there) and the
    reference; then every ``extra`` spec on each of ``rulesets`` (default: ``presets``)."""
    rows, skipped = [], []
    for p in presets:
        for name, kind in ((p, "win"), (f"{p}-score", "score")):
            d = root / name
            if (d / "policy.onnx").is_file():
                rows.append((p, f"ppo:{d.as_posix()}", kind))
            else:
                skipped.append(f"{kind} agent of {p}: no {d / 'policy.onnx'}")
        if reference:
            rows.append((p, REFERENCE, "reference"))
    for spec in extra:
        for p in rulesets or presets:
            rows.append((p, spec, "extra"))
    return rows, skipped


def measure(preset: str, spec: str, players: int, games: int, seed: int, workers: int) -> dict[str, Any]:
    """One row: ``spec`` against ``players - 1`` copies of :data:`OPPONENT`, every seat permutation.

    ``games`` counts the games played: ``ceil(games / players)`` deals, each in its ``players``
    distinct orders (the evaluation is asked for all ``players!`` orders and plays those)."""
    from agents.evaluate import evaluate

    deals = -(-games // players)
    t = time.perf_counter()
    rep = evaluate(agents=[spec] + [OPPONENT] * (players - 1), ruleset=preset, players=players,
                   orders="permutations", games=deals * math.factorial(players), seed=seed,
                   workers=workers, solo_turns=0, luck="off")
    seconds = time.perf_counter() - t
    table = rep.data["tables"][0]
    row = table["results"][0]
    share = row["score_share_t"]
    fair = 1.0 / players
    return {
        "share": {k: share[k] for k in ("rate", "low", "high", "stderr")},
        "share_wilson": {k: row["score_share"][k] for k in ("rate", "low", "high", "design_effect")},
        "fair_share": fair, "above_fair": share["low"] is not None and share["low"] > fair,
        "win": row["win"]["rate"], "draw": row["draw"]["rate"], "mean_score": row["mean_score"],
        "deals": table["deals"], "games_played": table["games_played"], "games_counted": table["games"],
        "orders": len(rep.data["config"]["seat_orders"]), "engine": table["engine"], "seconds": seconds,
    }


def fingerprint(spec: str) -> str | None:
    """The SHA-256 of the policy file a ``ppo:`` spec plays (None for other specs): a row measured
    with another file (a retrained agent) is not reused by ``--resume``."""
    if not spec.startswith("ppo:"):
        return None
    from agents.learned import resolve_policy_path

    return hashlib.sha256(resolve_policy_path(spec[4:]).read_bytes()).hexdigest()


def _key(row: dict[str, Any]) -> tuple:
    return (row["preset"], row["agent"], row["players"], row.get("policy_sha256"))


def _agent_cell(r: dict[str, Any]) -> str:
    label = {"win": "win agent", "score": "score agent", "reference": "reference"}.get(r["kind"])
    return f"`{r['agent']}`" + (f" ({label})" if label else "")


def markdown(doc: dict[str, Any]) -> str:
    """The table (and its legend and command) from the JSON document."""
    lines = ["| preset | agent | players | share % [95% CI] | fair share % | above fair | games |",
             "|---|---|---:|---:|---:|:---:|---:|"]
    for r in doc["rows"]:
        head = f"| `{r['preset']}` | {_agent_cell(r)} | {r['players']} | "
        if "error" in r:
            lines.append(head + f"error: {r['error']} | {100 * r['fair_share']:.1f} | - | - |")
            continue
        s = r["share"]
        lines.append(head + f"{100 * s['rate']:.2f} [{100 * s['low']:.2f}, {100 * s['high']:.2f}] | "
                     f"{100 * r['fair_share']:.1f} | {'yes' if r['above_fair'] else 'no'} | {r['games_played']:,} |")
    cfg, tm = doc["config"], doc["timing"]
    lines += ["", f"Each agent in one seat, `{cfg['opponent']}` in the others; every deal played in all N! seat "
              "orders with the same dice (common random numbers; the N orders that differ are played, once "
              "each, the copies of the opponent being one agent); games: the games played, "
              f"{cfg['games']} asked per row, seed {cfg['seed']} (the same deals for every row of a preset). "
              "share: wins plus shares of draws (a draw of k players is 1/k each); 95% interval: Student's "
              "t over the per-deal shares (each deal's mean over its seat orders); above fair: the "
              "interval's lower bound is above the fair share 1/N.", "",
              f"`{doc['command']}`: {tm['seconds'] / 60:.1f} minutes wall time, {cfg['workers']} "
              f"worker{'s' * (cfg['workers'] > 1)}"
              + (f" ({tm['kept_rows']} rows kept from an earlier run; the evaluations of all rows took "
                 f"{sum(r.get('seconds', 0.0) for r in doc['rows']) / 60:.1f} minutes)." if tm.get("kept_rows")
                 else ".")]
    return "\n".join(lines)


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n")
    tmp.replace(path)


def _players(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of players (2 to 6)") from None
    if not 2 <= n <= 6:
        raise argparse.ArgumentTypeError(f"{n}: a table seats 2 to 6 players (3 and 4 are the point here)")
    return n


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python train/multiplayer.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoints", default="checkpoints", metavar="DIR",
                    help="the checkpoint root: DIR/<preset> (win agent) and DIR/<preset>-score (default: checkpoints)")
    ap.add_argument("--presets", nargs="+", default=PRESETS, metavar="PRESET",
                    help=f"the presets whose agents play (default: {' '.join(PRESETS)})")
    ap.add_argument("--players", "-n", nargs="+", type=_players, default=[3, 4], metavar="N",
                    help="players per table, each 2 to 6 (default: 3 4)")
    ap.add_argument("--games", "-g", type=int, default=2000,
                    help="games played per row, rounded up to whole deals of N games (default: 2000)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals, 0 or more (default: 0)")
    ap.add_argument("--agent", action="append", default=[], metavar="SPEC",
                    help="an extra agent (any agent spec, e.g. ppo:checkpoints/any), played on each of "
                    "--rulesets; repeatable")
    ap.add_argument("--rulesets", nargs="+", default=None, metavar="PRESET",
                    help="the rules the --agent specs play (default: the --presets)")
    ap.add_argument("--no-reference", action="store_true", help=f"skip the {REFERENCE} row of each preset")
    ap.add_argument("--workers", "-j", type=int, default=1,
                    help="worker processes per row; the results do not depend on it (default: 1)")
    ap.add_argument("--write", metavar="FILE",
                    help="replace the table between the multiplayer-table markers in FILE (checkpoints/README.md)")
    ap.add_argument("--json", metavar="FILE", help="write every number to FILE (rewritten after each row)")
    ap.add_argument("--resume", action="store_true",
                    help="with --json: keep the rows already in FILE measured the same way (same games, seed "
                    "and policy file), play only the others")
    ap.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    from zilch_env import load_ruleset
    from zilch_env.rules.schema import RulesetError

    if args.games < 1:
        ap.error(f"--games {args.games}: at least 1 game per row")
    if args.seed < 0:
        ap.error(f"--seed {args.seed}: 0 or more")
    if args.workers < 1:
        ap.error(f"--workers {args.workers}: at least 1")
    if args.resume and not args.json:
        ap.error("--resume reads the rows of the --json FILE: give --json FILE too")
    if args.rulesets and not args.agent:
        ap.error("--rulesets names the rules of the --agent specs: give --agent SPEC too")
    for p in [*args.presets, *(args.rulesets or [])]:
        try:
            load_ruleset(p)
        except RulesetError as e:
            ap.error(f"ruleset {p!r}: {e}")
    from agents.base import AgentSpecError, make_agent

    root = Path(args.checkpoints)
    rows, skipped = plan(root, list(args.presets), args.agent, args.rulesets, not args.no_reference)
    if not any(kind in ("win", "score", "extra") for _, _, kind in rows):
        ap.error(f"no agent to evaluate: no DIR/<preset>/policy.onnx under {root} for {' '.join(args.presets)}, "
                 "and no --agent")
    for preset, spec in {(p, s) for p, s, _ in rows}:  # a bad spec fails now, not after an hour
        try:
            make_agent(spec, load_ruleset(preset))
        except (AgentSpecError, ValueError, OSError) as e:
            ap.error(f"agent {spec!r} on {preset}: {e}")
    for why in skipped:
        print(f"skipped: {why}", file=sys.stderr)

    command = " ".join(["python train/multiplayer.py", *(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))])
    doc: dict[str, Any] = {
        "format": FORMAT, "command": command,
        "config": {"players": args.players, "games": args.games, "seed": args.seed, "opponent": OPPONENT,
                   "checkpoints": str(root), "workers": args.workers, "orders": "permutations"},
        "skipped": skipped, "rows": [], "timing": {"seconds": 0.0, "kept_rows": 0},
    }
    work = [(p, s, k, n) for p, s, k in rows for n in args.players]
    prints = {s: fingerprint(s) for _, s, _ in rows}
    kept: dict[tuple, dict[str, Any]] = {}
    if args.resume and Path(args.json).is_file():
        old = json.loads(Path(args.json).read_text())
        same = {k: old.get("config", {}).get(k) for k in ("games", "seed", "opponent")} == \
            {k: doc["config"][k] for k in ("games", "seed", "opponent")}
        if same and old.get("format") == FORMAT:
            kept = {_key(r): r for r in old.get("rows", []) if "error" not in r}
        else:
            print(f"--resume: {args.json} was measured with other --games, --seed or opponent; playing every row",
                  file=sys.stderr)
    from agents.progress import Progress

    bar = Progress(not args.quiet)
    task = bar.add("rows", total=len(work))
    t0 = time.perf_counter()
    failed = 0
    try:
        for preset, spec, kind, n in work:
            bar.update(task, description=f"{preset} {spec} {n}p")
            row: dict[str, Any] = {"preset": preset, "agent": spec, "kind": kind, "players": n,
                                   "policy_sha256": prints[spec]}
            if _key(row) in kept:
                row = {**kept[_key(row)], "kind": kind}
                doc["timing"]["kept_rows"] += 1
            else:
                try:
                    row.update(measure(preset, spec, n, args.games, args.seed, args.workers))
                except (ValueError, RuntimeError) as e:  # an agent that cannot play N players: the row says so
                    failed += 1
                    row.update({"error": str(e), "fair_share": 1.0 / n})
                    print(f"{preset} {spec} {n} players: error: {e}", file=sys.stderr)
            doc["rows"].append(row)
            doc["timing"]["seconds"] = time.perf_counter() - t0
            if args.json:
                _write_json(Path(args.json), doc)
            bar.advance(task)
    except KeyboardInterrupt:
        print(f"interrupted after {len(doc['rows'])} of {len(work)} rows"
              + (f" (kept in {args.json})" if args.json else ""), file=sys.stderr)
        return 130
    finally:
        bar.close()
    text = markdown(doc)
    if args.write:
        _replace(Path(args.write), START, END, text)
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
