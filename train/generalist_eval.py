"""The evaluation of the agent for any ruleset (``checkpoints/any``, ``train/ppo.py --ruleset any``).

    python train/generalist_eval.py [--agent ppo:checkpoints/any] [--games 2000] [--other-games 1000]
                                    [--out checkpoints/any] [--write checkpoints/README.md]

Three parts, each table seat-balanced with common random numbers (``agents.evaluate``):

``presets``
    on every preset, two players, against ``optimal-win``: the luck-adjusted share (the dice's luck
    removed by the exact game table; Student's t interval over the deals), beside the preset's own
    win agent (``checkpoints/<preset>``, its final evaluation's ``eval.json``). The generalist plays
    the deals of that evaluation (its seed), so the two shares are measured on the same dice.
``variants``
    every variant alone and all together on zonk and farkle (:func:`zilch_env.rules.distribution.variant_rules`),
    two players, against ``heuristic``: the share (wins plus half the draws) with its interval.
``held-out``
    rulesets outside the training distribution (:func:`zilch_env.rules.distribution.held_out_rules`: other
    targets and scoring values, 2, 3 and 4 players) against copies of ``heuristic``, every seat order
    (permutations): the agent's share of the seats' results; the fair share is one over the players.

With ``--solved``, every variant and held-out row whose game :mod:`agents.solver.multi` solves (three
players, or two under ``overcoming``: zilch- and zonk-like rules, targets up to about 5,000 at three
players) also plays ``optimal-win`` (that solved game, every player maximising their own chance) in the
agent's seat on the same deals: what exact play takes against the heuristic there (solved and cached on
first use, minutes each).

Writes ``eval.json`` and ``eval.md`` into ``--out`` and, with ``--write``, the table between the
generalist markers of that Markdown file.

``--suite`` plays instead the held-out suite (``train/suite/``, :mod:`train.held_out`), and with
``--suite-presets`` every preset too, against ``optimal-win`` (:mod:`train.suite_eval`): per ruleset
the luck-adjusted share with its interval, the regret per game and the points per turn against the
turn optimum, each row written to ``--results`` (JSON and CSV) as it finishes, so that a run resumes;
``--write`` then puts the table between the suite markers of that Markdown file::

    python train/generalist_eval.py --suite --suite-presets --games 2000 --solo-turns 20000 \
        --write docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from zilch_env import PRESETS  # noqa: E402
from zilch_env.rules.distribution import RulesDraw, held_out_rules, variant_rules  # noqa: E402

PARTS = ("presets", "variants", "held-out")
MARK_START = "<!-- generalist table: train/generalist_eval.py -->"
MARK_END = "<!-- end of generalist table -->"


def _share(row: dict[str, Any]) -> dict[str, float]:
    s = row["score_share"]
    return {"mean": float(s["rate"]), "low": float(s["low"]), "high": float(s["high"])} if isinstance(s, dict) \
        else {"mean": float(s), "low": float("nan"), "high": float("nan")}


def _specialist(preset: str, checkpoints: Path) -> dict[str, Any] | None:
    """The preset's own win agent's final evaluation against optimal-win (its eval.json)."""
    p = checkpoints / preset / "eval.json"
    if not p.is_file():
        return None
    ev = json.loads(p.read_text())
    vs = (ev.get("vs") or {}).get("optimal-win")
    if not vs or not vs.get("luck_adjusted"):
        return None
    return {"seed": int(ev["seed"]), "games": int(vs["games"]), "share": vs["luck_adjusted"]}


def eval_presets(agent: str, games: int, workers: int, checkpoints: Path, progress: bool) -> list[dict[str, Any]]:
    from agents.evaluate import evaluate

    out = []
    for preset in PRESETS:
        spec = _specialist(preset, checkpoints)
        seed = spec["seed"] if spec else 20_001
        n = spec["games"] if spec else games
        rep = evaluate(agents=[agent, "optimal-win"], ruleset=preset, games=n, seed=seed, workers=workers,
                       solo_turns=0, luck="on", progress=progress)
        row = rep.data["tables"][0]["results"][0]
        la = row["luck_adjusted"]
        out.append({"preset": preset, "games": row["games"], "seed": seed,
                    "share": {k: float(la[k]) for k in ("mean", "low", "high")},
                    "specialist": spec["share"] if spec else None})
        print(f"{preset}: {100 * la['mean']:.2f}% [{100 * la['low']:.2f}, {100 * la['high']:.2f}] vs optimal-win"
              + (f"; its own win agent {100 * spec['share']['mean']:.2f}%" if spec else ""), flush=True)
    return out


def solvable(d: RulesDraw) -> bool:
    """Whether :mod:`agents.solver.multi` solves the game of ``d`` (its rules and players)."""
    from agents.solver.multi import check_multi_supported
    from zilch_env import UnsupportedRulesError

    try:
        check_multi_supported(d.ruleset, d.players)
    except UnsupportedRulesError:
        return False
    return True


def eval_against_heuristic(agent: str, draws: list[RulesDraw], games: int, workers: int, seed: int,
                           progress: bool, solved: bool = False) -> list[dict[str, Any]]:
    from agents.evaluate import evaluate

    out = []
    for d in draws:
        shares = {}
        for who in [agent] + (["optimal-win"] if solved and solvable(d) else []):
            if who == "optimal-win":  # solved once here, not in each worker
                from agents.solver.multi import solve_multi

                solve_multi(d.ruleset, d.players, progress=progress)
            rep = evaluate(agents=[who] + ["heuristic"] * (d.players - 1), ruleset=d.ruleset, games=games,
                           seed=seed, workers=workers, players=d.players, solo_turns=0, luck="off",
                           orders="permutations", progress=progress)
            row = rep.data["tables"][0]["results"][0]
            shares[who] = (_share(row), row["games"])
        s, n = shares[agent]
        ref = shares.get("optimal-win")
        out.append({"rules": d.label, "players": d.players, "games": n, "share": s, "fair": 1.0 / d.players,
                    **({"solved": ref[0]} if ref else {})})
        print(f"{d.label}: {100 * s['mean']:.1f}% [{100 * s['low']:.1f}, {100 * s['high']:.1f}] vs heuristic "
              f"(fair {100 / d.players:.1f}%)"
              + (f"; the solved game {100 * ref[0]['mean']:.1f}% [{100 * ref[0]['low']:.1f}, "
                 f"{100 * ref[0]['high']:.1f}]" if ref else ""), flush=True)
    return out


def pct(s: dict[str, float] | None) -> str:
    if not s:
        return "-"
    return f"{100 * s['mean']:.2f} [{100 * s['low']:.2f}, {100 * s['high']:.2f}]"


def markdown(res: dict[str, Any]) -> str:
    lines = [f"Agent `{res['agent']}` (command: `{res['command']}`).", ""]
    if res.get("presets"):
        lines += ["Every preset, two players, against `optimal-win`: luck-adjusted share % [95% CI] on the "
                  "deals of the preset's own win agent's final evaluation.", "",
                  "| preset | any ruleset (`ppo:checkpoints/any`) | its own win agent | difference (points) |",
                  "|---|---|---|---:|"]
        for r in res["presets"]:
            sp = r["specialist"]
            diff = f"{100 * (r['share']['mean'] - sp['mean']):+.2f}" if sp else "-"
            lines.append(f"| `{r['preset']}` | {pct(r['share'])} | {pct(sp)} | {diff} |")
        lines.append("")
    for part, title in (("variants", "Variants, two players, against `heuristic`"),
                        ("held-out", "Rulesets outside the training distribution, against copies of "
                                     "`heuristic` (every seat order)")):
        if res.get(part):
            ref = any("solved" in r for r in res[part])
            lines += [f"{title}: the agent's share % [95% CI] of the seats' results"
                      + ("; where `agents.solver.multi` solves the game, `optimal-win` (that solved game) in the "
                         "agent's seat on the same deals." if ref else "."), "",
                      "| rules | players | games | share % [95% CI] | fair share % | above fair |"
                      + (" the solved game % [95% CI] |" if ref else ""),
                      "|---|---:|---:|---|---:|---|" + ("---|" if ref else "")]
            for r in res[part]:
                s = r["share"]
                above = "yes" if s["low"] > r["fair"] else ("no" if s["high"] < r["fair"] else "within the interval")
                extra = ""
                if ref:
                    x = r.get("solved")
                    extra = f" {100 * x['mean']:.1f} [{100 * x['low']:.1f}, {100 * x['high']:.1f}] |" if x else " - |"
                lines.append(f"| {r['rules']} | {r['players']} | {r['games']} | {100 * s['mean']:.1f} "
                             f"[{100 * s['low']:.1f}, {100 * s['high']:.1f}] | {100 * r['fair']:.1f} | {above} |"
                             + extra)
            lines.append("")
    lines.append(f"Measured in {res['seconds'] / 60:.1f} minutes by `{res['command']}`.")
    return "\n".join(lines) + "\n"


def write_between_markers(path: Path, text: str, start: str = MARK_START, end: str = MARK_END) -> None:
    doc = path.read_text()
    if start in doc and end in doc:
        head, rest = doc.split(start, 1)
        _, tail = rest.split(end, 1)
        doc = f"{head}{start}\n{text}{end}{tail}"
    else:
        doc = doc.rstrip("\n") + f"\n\n{start}\n{text}{end}\n"
    path.write_text(doc)


def run_suite_command(args: argparse.Namespace, command: str, p: argparse.ArgumentParser) -> int:
    """``--suite``: the suite (and the presets) against optimal-win, resumable (:mod:`train.suite_eval`)."""
    from train.suite_eval import SUITE_END, SUITE_START, run_suite, suite_markdown, suite_rows

    try:
        rows = suite_rows(args.suite_presets, Path(args.suite_dir) if args.suite_dir else None)
    except (OSError, ValueError) as e:  # no folder, no file, a bad ruleset file
        p.error(f"--suite{'-dir ' + args.suite_dir if args.suite_dir else ''}: {e}")
    out = run_suite(args.agent, rows, args.games, args.seed, args.solo_turns, args.workers, Path(args.results),
                    command, not args.no_progress)
    md = suite_markdown(out, command)
    if args.write:
        write_between_markers(Path(args.write), md, SUITE_START, SUITE_END)
    print(md)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="train/generalist_eval.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--agent", default="ppo:checkpoints/any", help="the agent spec to evaluate")
    p.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS, help="which tables to play")
    p.add_argument("--games", type=int, default=2000,
                   help="games per preset against optimal-win where the preset has no win agent's evaluation "
                        "to match (else that evaluation's count); with --suite, games per ruleset")
    p.add_argument("--other-games", type=int, default=1000, help="games per variant and held-out ruleset")
    p.add_argument("--seed", type=int, default=0, help="seed of the variant and held-out deals")
    p.add_argument("--workers", type=int, default=2, help="worker processes")
    p.add_argument("--checkpoints", default=str(ROOT / "checkpoints"), help="where the presets' win agents are")
    p.add_argument("--out", default="", help="write eval.json and eval.md here (default: the agent's directory)")
    p.add_argument("--write", default="", help="replace the generalist table between its markers in this file")
    p.add_argument("--solved", action="store_true",
                   help="also play optimal-win in the agent's seat where agents.solver.multi solves the game (three "
                        "players, or two under overcoming; solved and cached on first use, minutes each)")
    p.add_argument("--suite", action="store_true",
                   help="play the held-out suite (train/suite/*.toml) against optimal-win instead of the parts: "
                        "luck-adjusted share, regret per game, points per turn against the turn optimum; "
                        "resumable through --results")
    p.add_argument("--suite-presets", action="store_true", help="with --suite: every preset too, measured alike")
    p.add_argument("--suite-dir", default="", help="with --suite: another folder of ruleset files")
    p.add_argument("--solo-turns", type=int, default=20000,
                   help="with --suite: one-player turns per ruleset for the points per turn (0: none)")
    p.add_argument("--results", default=str(ROOT / "docs" / "results" / "suite.json"),
                   help="with --suite: the rows, written as each finishes (and a .csv beside it); rows already "
                        "there with the same agent, games, seed and solo turns are kept")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    for name in ("games", "other_games", "workers"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} {getattr(args, name)}: 1 or more")
    if args.seed < 0:
        p.error(f"--seed {args.seed}: 0 or more")
    if args.solo_turns < 0:
        p.error(f"--solo-turns {args.solo_turns}: 0 or more")
    if (args.suite_presets or args.suite_dir) and not args.suite:
        p.error("--suite-presets and --suite-dir go with --suite")
    from agents.base import make_agent

    try:  # a ruleset no preset's agent plays: the agent must play any
        make_agent(args.agent, held_out_rules()[3].ruleset)
    except Exception as e:  # a bad spec, a missing checkpoint, a policy of one ruleset
        p.error(f"--agent {args.agent}: {e}")
    t0 = time.perf_counter()
    command = " ".join(["python", "train/generalist_eval.py", *(argv if argv is not None else sys.argv[1:])])
    if args.suite:
        return run_suite_command(args, command, p)
    res: dict[str, Any] = {"agent": args.agent, "command": command}
    progress = not args.no_progress
    if "presets" in args.parts:
        res["presets"] = eval_presets(args.agent, args.games, args.workers, Path(args.checkpoints), progress)
    if "variants" in args.parts:
        res["variants"] = eval_against_heuristic(args.agent, variant_rules(), args.other_games, args.workers,
                                                 args.seed, progress, args.solved)
    if "held-out" in args.parts:
        res["held-out"] = eval_against_heuristic(args.agent, held_out_rules(), args.other_games, args.workers,
                                                 args.seed, progress, args.solved)
    res["seconds"] = time.perf_counter() - t0
    md = markdown(res)
    out = Path(args.out) if args.out else (Path(args.agent.partition(":")[2]) if args.agent.startswith("ppo:")
                                          else None)
    if out is not None and out.is_dir():
        (out / "eval.json").write_text(json.dumps(res, indent=2) + "\n")
        (out / "eval.md").write_text("# Evaluation of the agent for any ruleset\n\n" + md)
    if args.write:
        write_between_markers(Path(args.write), md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
