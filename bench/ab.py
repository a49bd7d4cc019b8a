"""One benchmark on two checkouts, side by side: the ratio of a figure it prints, new over old.

    python bench/ab.py --old PATH [--rounds 4] [--figure REGEX] -- bench/engine.py --seconds 2

Runs the benchmark command (a script path relative to each checkout, then its arguments; or ``-c
CODE``, run from each checkout's root) alternately
in this checkout and in ``--old`` (e.g. a ``git worktree`` of an earlier commit), each run in a fresh
process with that checkout first on ``PYTHONPATH``, ``--rounds`` times each (ABAB...: the machine's
load changes, and alternating spreads it over both). ``--figure`` is a regular expression whose first
group is the number to compare (default: ``Overall ([\\d,.]+) decisions/s``, bench/engine.py's
summary line; thousands separators are dropped). Prints every run's figure, the medians and the
ratio new / old of the medians.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def figure_of(out: str, pattern: str) -> float:
    m = re.findall(pattern, out)
    if not m:
        raise SystemExit(f"bench/ab.py: the figure {pattern!r} is not in the benchmark's output:\n{out[-2000:]}")
    last = m[-1] if isinstance(m[-1], str) else m[-1][0]
    return float(last.replace(",", ""))


def run(tree: Path, argv: list[str], pattern: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # a script of that checkout, or "-c CODE" run from the checkout's root (which it then imports)
    cmd = [sys.executable, *argv] if argv[0] == "-c" else [sys.executable, str(tree / argv[0]), *argv[1:]]
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"bench/ab.py: {' '.join(cmd)} failed in {tree}:\n{done.stderr[-2000:]}")
    return figure_of(done.stdout, pattern)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        raise SystemExit("bench/ab.py: give the benchmark after --, e.g. -- bench/engine.py --seconds 2")
    cut = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, type=Path, help="the other checkout (e.g. a git worktree)")
    ap.add_argument("--rounds", type=int, default=4, help="runs in each checkout (default 4)")
    ap.add_argument("--figure", default=r"Overall ([\d,.]+) decisions/s",
                    help="regular expression; its first group is the figure compared")
    a = ap.parse_args(argv[:cut])
    bench = argv[cut + 1:]
    if not bench:
        raise SystemExit("bench/ab.py: no benchmark after --")
    if bench[0] != "-c" and not (a.old / bench[0]).exists():
        raise SystemExit(f"bench/ab.py: --old {a.old}: it has no {bench[0]}")
    if a.rounds < 1:
        raise SystemExit(f"bench/ab.py: --rounds {a.rounds}: 1 or more")
    new, old = [], []
    for i in range(a.rounds):
        new.append(run(HERE, bench, a.figure))
        old.append(run(a.old.resolve(), bench, a.figure))
        print(f"round {i + 1}: new {new[-1]:,.1f}  old {old[-1]:,.1f}", flush=True)
    mn, mo = statistics.median(new), statistics.median(old)
    print(f"median: new {mn:,.1f}  old {mo:,.1f}  ratio new/old {mn / mo:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
