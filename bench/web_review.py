"""How long the web game's review endpoints take (``POST /api/review``, ``GET /api/games/{id}/review``).

    python bench/web_review.py [--decisions 40] [--games 5] [--seed 1]

The records are those of ``bench/review.py`` (seeded zonk games of ``greedy`` against
``optimal-turn``, cut to their first ``--decisions`` decisions), and one finished web game of a
greedy human against the greedy computer (Easy), stored in a fresh database. Each measurement runs
in a fresh Python process, as a server just started would: the app is made (``create_app``), then
the requests go through FastAPI's test client (the server's whole work; no network). Reported, in
seconds, per request (``?wait=10``, so each answer is the review):

* ``cold``: the first review request of the process (the review's imports, the stored game table
  loaded, the turn solver solved; numba's cache already filled), for each endpoint first;
* ``warm, new game``: the median of the other records, posted after the first;
* ``warm, the same game again``: the answer kept by the review service (no work);
* the first requests of a process whose review service was readied as the server readies it at
  start (:meth:`zilch_web.review.ReviewService.warm`, a short zonk game reviewed in the background).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _client(db: str):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from zilch_web.app import create_app

    return TestClient(create_app(db, cpu_specs=["greedy"]))


def _timed(fn):
    t0 = time.perf_counter()
    r = fn()
    assert r.status_code == 200, r.text
    return time.perf_counter() - t0, r.json()


def finished_game(db: str, seed: int) -> str:
    """A web game of a greedy human (the keep worth most, bank from 300) against greedy, played to its end."""
    client = _client(db)
    made = client.post("/api/games", json={"ruleset": "zonk", "seed": seed,
                                           "players": [{"name": "You"}, {"cpu": "greedy"}]}).json()
    g = made["game"]
    while g["status"] != "over":
        if g["phase"] != "keep":
            a = g["choices"][0]["action"]
        else:
            k = max(g["keeps"], key=lambda k: (k["points"], k["n"]))
            a = k["bank"] if k["bank"] is not None and k["total"] >= 300 else k["roll"]
        g = client.post(f"/api/games/{made['id']}/moves", json={"version": g["version"], "seat": g["current"],
                                                                 "token": made["token"], "action": a}).json()["game"]
    return made["id"]


def measure(db: str, records_file: str, gid: str, first: str) -> dict:
    """In this (fresh) process: the app made, then the review requests timed; ``first`` says which
    endpoint is asked first (cold)."""
    t0 = time.perf_counter()
    client = _client(db)
    out = {"startup": time.perf_counter() - t0}
    records = json.loads(Path(records_file).read_text())
    post = lambda rec: client.post("/api/review?wait=10", json=rec)  # noqa: E731
    get = lambda: client.get(f"/api/games/{gid}/review?wait=10")  # noqa: E731
    if first == "readied":  # as the server does at start (zilch_web.review.ReviewService.warm)
        out["warm_up"] = client.app.state.reviews.warm()
        out["post_first"], _ = _timed(lambda: post(records[0]))
        out["get_first"], _ = _timed(get)
        return out
    if first == "get":
        out["get_cold"], review = _timed(get)
        out["get_decisions"] = len(review["decisions"])
        out["get_again"], _ = _timed(get)
        return out
    out["post_cold"], review = _timed(lambda: post(records[0]))
    out["post_decisions"], out["post_rolls"] = len(review["decisions"]), len(review["rolls"])
    out["post_warm"] = [_timed(lambda r=r: post(r))[0] for r in records[1:]]
    out["post_again"], _ = _timed(lambda: post(records[0]))
    out["get_warm"], review = _timed(get)
    out["get_decisions"] = len(review["decisions"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=40, help="decisions per posted record (default 40)")
    ap.add_argument("--games", type=int, default=5, help="records posted (default 5)")
    ap.add_argument("--seed", type=int, default=1, help="the first record's seed (default 1)")
    ap.add_argument("--measure", nargs=4, metavar=("DB", "RECORDS", "GAME", "FIRST"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(*args.measure)))
        return 0
    if args.decisions < 1 or args.games < 1:
        ap.error("--decisions and --games are at least 1")

    from review import record_of  # bench/review.py

    from zilch_env import load_ruleset

    rs = load_ruleset("zonk")
    with tempfile.TemporaryDirectory() as tmp:
        db, records_file = os.path.join(tmp, "games.sqlite3"), os.path.join(tmp, "records.json")
        Path(records_file).write_text(json.dumps([record_of(rs, args.decisions, args.seed + i)
                                                  for i in range(args.games)]))
        gid = finished_game(db, args.seed)
        runs = {}
        for first in ("post", "get", "readied"):
            out = subprocess.run([sys.executable, __file__, "--measure", db, records_file, gid, first],
                                 check=True, capture_output=True, text=True, env=os.environ)
            runs[first] = json.loads(out.stdout.strip().splitlines()[-1])
    p, g = runs["post"], runs["get"]
    print(f"zonk, web review endpoints (each a fresh process; app made in {p['startup']:.2f} s, not counted)")
    print(f"  POST /api/review, {p['post_decisions']} decisions, {p['post_rolls']} rolls:")
    print(f"    cold (the first review of the process): {p['post_cold']:.3f} s")
    if p["post_warm"]:
        print(f"    warm, a new game: median {statistics.median(p['post_warm']):.3f} s (max {max(p['post_warm']):.3f} s) "
              f"over {len(p['post_warm'])} records")
    print(f"    warm, the same game again (kept): {p['post_again']:.4f} s")
    print(f"  GET /api/games/ID/review, a finished web game of {g['get_decisions']} decisions:")
    print(f"    cold (the first review of the process): {g['get_cold']:.3f} s")
    print(f"    warm (after the posted records): {p['get_warm']:.3f} s")
    print(f"    the same game again (kept): {g['get_again']:.4f} s")
    w = runs["readied"]
    print(f"  after the server's start-up readying ({w['warm_up']:.2f} s, in the background): the first "
          f"POST {w['post_first']:.3f} s, then the first GET {w['get_first']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
