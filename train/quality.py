"""The quality table of the trained agents, from their final evaluations (``checkpoints/*/eval.json``).

    python train/quality.py [--checkpoints checkpoints] [--write checkpoints/README.md] [--brief docs/benchmarks.md]

One row per preset: the score agent's (``checkpoints/<preset>-score``) mean points per turn alone as a
share of the exact turn optimum, and the win agent's (``checkpoints/<preset>``) win rate in
seat-balanced two-player games against each opponent of its final evaluation, with 95% intervals:
the luck-adjusted share (marked *: wins plus half the draws, with the dice's luck removed by the exact
game table, ``agents.evaluate --luck``) where the preset has one, else the plain share.
Every number is read from the ``eval.json`` that ``train/ppo.py`` wrote after training; nothing here
plays a game. A cell is "-" where that evaluation was not run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PRESETS = ["zilch", "zilch15k", "zilch10k", "zilch5k", "farkle", "farkle-basic", "zonk", "zonk20k"]
OPPONENTS = ["random", "greedy", "greedy-cautious", "greedy-bold", "greedy-table", "heuristic", "optimal-turn",
             "optimal-win"]


def _load(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.is_file() else None


def _ratio(ev: dict | None) -> str:
    solo = (ev or {}).get("solo") or {}
    r = solo.get("of_optimum")
    if not r:
        return "-"
    return f"{100 * r['mean']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"


def _win(ev: dict | None, opp: str) -> str:
    """The share of the games (wins + half draws) with its interval: luck-adjusted where the final
    evaluation had the game table (marked *), else the plain share (the win rate in an ``eval.json``
    written before the share's interval was kept)."""
    r = ((ev or {}).get("vs") or {}).get(opp)
    if not r:
        return "-"
    la = r.get("luck_adjusted")
    if la:
        return f"{100 * la['mean']:.2f}* [{100 * la['low']:.2f}, {100 * la['high']:.2f}]"
    w = r.get("score_share_ci") or r["win"]
    return f"{100 * w['rate']:.1f} [{100 * w['low']:.0f}, {100 * w['high']:.0f}]"


def table(root: Path) -> str:
    lines = ["| preset | score agent: pts/turn of optimum | win agent alone: of optimum | "
             + " | ".join(f"share % vs `{o}`" for o in OPPONENTS) + " | games/table | best checkpoint at step |",
             "|---" * (5 + len(OPPONENTS)) + "|"]
    for p in PRESETS:
        win, score = _load(root / p / "eval.json"), _load(root / f"{p}-score" / "eval.json")
        meta = _load(root / p / "policy.json") or {}
        steps = (meta.get("training") or {}).get("timesteps")
        lines.append(f"| `{p}` | {_ratio(score)} | {_ratio(win)} | "
                     + " | ".join(_win(win, o) for o in OPPONENTS)
                     + f" | {(win or {}).get('games_per_table', '-')} | {f'{steps:,}' if steps else '-'} |")
    return "\n".join(lines)


BRIEF = ["random", "greedy", "greedy-table", "heuristic", "optimal-turn", "optimal-win"]


def brief(root: Path) -> str:
    """The short table of docs/benchmarks.md: the score agent's share of the turn optimum and the win agent's
    share of the games (wins plus half the draws) against the main opponents."""
    lines = ["| preset | score agent alone: of turn optimum | "
             + " | ".join(f"win agent vs {o}" for o in BRIEF) + " |",
             "|---" + "|---:" * (1 + len(BRIEF)) + "|"]
    for p in PRESETS:
        win, score = _load(root / p / "eval.json"), _load(root / f"{p}-score" / "eval.json")
        r = ((score or {}).get("solo") or {}).get("of_optimum")
        cells = [f"{100 * r['mean']:.1f}%" if r else "-"]
        for o in BRIEF:
            v = ((win or {}).get("vs") or {}).get(o)
            la = (v or {}).get("luck_adjusted")
            cells.append("-" if not v else f"{100 * la['mean']:.2f}*" if la else f"{100 * v['score_share']:.1f}")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _replace(path: Path, start: str, end: str, text: str) -> None:
    doc = path.read_text() if path.exists() else ""
    block = f"{start}\n{text}\n{end}"
    if start in doc and end in doc:
        doc = doc[: doc.index(start)] + block + doc[doc.index(end) + len(end):]
    else:
        doc = doc + ("\n" if doc else "") + block + "\n"
    path.write_text(doc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoints", default="checkpoints", help="the checkpoint root (default checkpoints)")
    ap.add_argument("--write", default=None, help="replace the table between the markers in this Markdown file")
    ap.add_argument("--brief", default=None, metavar="FILE",
                    help="also replace the short table (score agent, and the win agent's share of the games "
                         "against the main opponents) between the brief-table markers in FILE (docs/benchmarks.md)")
    args = ap.parse_args()
    text = table(Path(args.checkpoints))
    if args.write:
        _replace(Path(args.write), "<!-- quality table: train/quality.py -->", "<!-- end of quality table -->", text)
    print(text)
    if args.brief:
        short = brief(Path(args.checkpoints))
        _replace(Path(args.brief), "<!-- brief quality table -->", "<!-- end of brief quality table -->", short)
        print(short)
    return 0


if __name__ == "__main__":
    sys.exit(main())
