"""The two engines played against each other, move for move, on many seeded games.

    python bench/engine_proof.py [--games 100000] [--chunk 1000] [--only zonk/every ...]

Every configuration (each preset with its own rules; each variant alone and every variant together,
on zonk and farkle with a 3,000 target so that games are short) is played ``--games`` times by the
single-game engine (:class:`zilch_env.GameState`) and the batched engine
(:class:`zilch_env.engine.batched.BatchedGames`) with the same dice and the same random legal actions; after
every step every state field and the legal actions must be equal, and at the end the turn records
(:func:`tests.zilch_env.engine.test_batched.differential`). The player count cycles 1 to 6 from chunk to chunk, and the
dice alternate between the numpy streams, the keyed streams and the turn-slot streams. Exits 1 at the
first difference, naming the game and the field.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.progress import track  # noqa: E402

from zilch_env import PRESETS, load_ruleset  # noqa: E402

# each variant alone and all together, as the golden records have them
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))
from make_golden import VARIANTS  # noqa: E402


def configs() -> dict[str, object]:
    out = {f"{p}/plain": load_ruleset(p) for p in PRESETS}
    for base in ("zonk", "farkle"):
        for name, overrides in VARIANTS.items():
            if name == "plain":
                continue
            out[f"{base}/{name}"] = load_ruleset(base, {"target": 3000, **overrides})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--games", type=int, default=100_000, help="games per configuration (default 100000)")
    ap.add_argument("--chunk", type=int, default=1000, help="games played side by side (default 1000)")
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help="configurations to play (default all): " + ", ".join(configs()))
    a = ap.parse_args(argv)
    if a.games < 1 or a.chunk < 1:
        ap.error(f"--games {a.games} --chunk {a.chunk}: both must be 1 or more")
    cfg = configs()
    for name in a.only or ():
        if name not in cfg:
            ap.error(f"--only {name!r}: not a configuration; choose from {', '.join(cfg)}")
    names = a.only or list(cfg)
    # Imported here: the differential lives with the tests that run it on small budgets.
    from tests.zilch_env.engine.test_batched import differential

    print(f"{'configuration':<20} {'games':>8} {'steps':>11} {'draws':>6} {'tiebreaks':>9} "
          f"{'penalties':>9} {'seconds':>8}")
    total = 0
    for name in names:
        t0 = time.perf_counter()
        sums = {"games": 0, "steps": 0, "draws": 0, "tiebreaks": 0, "penalties": 0}
        chunks = -(-a.games // a.chunk)
        for c in track(range(chunks), name):
            n = min(a.chunk, a.games - c * a.chunk)
            players = 1 + c % 6
            kind = c % 3
            try:
                got = differential(cfg[name], players, n, seed=1000 + c, keyed=kind == 1, slots=kind == 2,
                                   first=c % players)
            except BaseException as e:  # pytest.fail raises a BaseException subclass
                if isinstance(e, KeyboardInterrupt):
                    raise
                print(f"{name}: chunk {c} ({players} players) differs:\n{e}")
                return 1
            for k in sums:
                sums[k] += got[k]
        total += sums["games"]
        print(f"{name:<20} {sums['games']:>8} {sums['steps']:>11} {sums['draws']:>6} {sums['tiebreaks']:>9} "
              f"{sums['penalties']:>9} {time.perf_counter() - t0:>8.1f}", flush=True)
    print(f"all equal: {total} games in {len(names)} configurations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
