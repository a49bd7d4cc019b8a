"""How long the review of a game takes (``zilch review``, :func:`agents.evaluate.review.review_record`).

    python bench/review.py [--ruleset zonk] [--decisions 40] [--games 5] [--seed 1]

Each game is seeded: ``greedy`` against ``optimal-turn`` (two players, so that the review is by win
chance where a game table is stored, and both seats make decisions the review values), cut to its
first ``--decisions`` decisions (a record the review reads as it reads a finished game's). Reported,
in seconds:

* ``cold``: the first review of the process (the stored game table loaded, the turn solver solved and
  its compiled kernels loaded from numba's cache; an empty cache compiles for minutes first, not counted);
* ``warm, new game``: the median review of the other games (every table in memory, but each game's
  own turns solved by the game table's turn DP);
* ``warm, same game``: the first game reviewed again (every turn cached);
* the replay alone (:func:`zilch_env.replay`) of the same records as the baseline in the same process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def record_of(rs, decisions: int, seed: int) -> dict:
    """A seeded game of greedy against optimal-turn, cut to its first ``decisions`` decisions (the
    next seed when a game ends sooner)."""
    import numpy as np

    from agents import make_agent
    from zilch_env import GameState

    agents = [make_agent("greedy", rs), make_agent("optimal-turn", rs)]
    while True:
        g = GameState(rs, 2, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.done and g.decisions < decisions:
            g.apply(agents[g.current].act(g, g.legal_actions(), rng))
        if g.decisions == decisions:
            return g.to_record()
        seed += 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ruleset", default="zonk", help="preset or TOML file (default zonk)")
    ap.add_argument("--decisions", type=int, default=40, help="decisions per game (default 40)")
    ap.add_argument("--games", type=int, default=5, help="games reviewed (default 5)")
    ap.add_argument("--seed", type=int, default=1, help="the first game's seed (default 1)")
    args = ap.parse_args()
    if args.decisions < 1 or args.games < 1:
        ap.error("--decisions and --games are at least 1")

    from zilch_env import load_ruleset, replay

    from agents.evaluate.review import review_record

    rs = load_ruleset(args.ruleset)
    records = [record_of(rs, args.decisions, args.seed + i) for i in range(args.games)]

    def timed(fn, *a):
        t0 = time.perf_counter()
        out = fn(*a)
        return time.perf_counter() - t0, out

    cold, review = timed(review_record, records[0])
    warm = [timed(review_record, r)[0] for r in records[1:]]
    again = timed(review_record, records[0])[0]
    replays = [timed(replay, r)[0] for r in records]
    decisions = len(review.decisions)
    print(f"{rs.name}: {args.games} games of {decisions} decisions and {len(review.rolls)} rolls (the first "
          f"game), reviewed by {review.measure}" + (f" ({review.why_points})" if review.why_points else ""))
    print(f"  cold (first review of the process): {cold:.3f} s")
    if warm:
        print(f"  warm, new game: median {statistics.median(warm):.3f} s (max {max(warm):.3f} s) over "
              f"{len(warm)} games")
    print(f"  warm, same game again: {again:.3f} s")
    base = statistics.median(replays)
    print(f"  replay alone (baseline): median {base * 1000:.1f} ms; the review of a new game is "
          f"{(statistics.median(warm) if warm else cold) / base:.0f}x its replay")
    return 0


if __name__ == "__main__":
    sys.exit(main())
