"""Source 000's two narrated decisions, answered by the solvers (docs/rules.md, "Worked cases").

    python bench/seed_games.py [--out docs/results/seed-000.json] [--no-race]

* Fred's seventh turn: 1,100 in hand, one die left (no opponent given): the turn's expected points
  when he banks and when he rolls on (:func:`agents.solver.turn.solve_turn`).
* The four-player ending: #4 at 3,700 has rolled 1,300 with #1 at 2,500, #2 at 4,900, #3 at 4,950.
  Every player's win chance when #4 banks at 5,000 (the final round: the three others each play one
  last turn, :class:`agents.solver.final_round.FinalRound`) and when he rolls on with 1 to 6 dice (the
  text does not say how many he has left), for his own best chance. A roll that ends in a plain zilch
  leaves the game a four-player race at #1's turn; ``race_chances`` solves that race over the states it
  can reach (``--no-race`` leaves it out: the roll's chances are then lower bounds, each short by at
  most the zilch chance printed).

Prints the figures with the CPU and wall time, and writes them as JSON with ``--out``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEATS = ("#1", "#2", "#3", "#4")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    ap.add_argument("--no-race", action="store_true", help="leave out the race after #4's zilch (minutes)")
    args = ap.parse_args(argv)
    from agents.solver.final_round import FinalRound
    from agents.solver.turn import solve_turn

    t0, c0 = time.perf_counter(), time.process_time()
    turn = solve_turn("zilch", on_board=True, reach=2000)
    fred = {"bank": turn.value(1100, 1), "roll": turn.roll_value(1100, 1)}
    print(f"Fred, 1,100 in hand and one die: bank {fred['bank']:.2f} expected points, roll {fred['roll']:.2f}")
    fr = FinalRound("zilch", 4)
    scores, on = [2500, 4900, 4950, 3700], [True] * 4
    bank = fr.chances([2500, 4900, 4950, 5000], on, 3, 1300)
    print("#4 banks at 5,000:", "  ".join(f"{s} {v:.4%}" for s, v in zip(SEATS, bank)))
    race = None
    if not args.no_race:
        race = fr.race_chances(scores, 0, progress=True)
        print("after #4's zilch (#1 to play):", "  ".join(f"{s} {v:.4%}" for s, v in zip(SEATS, race)))
    rolls = {}
    for dice in range(1, 7):
        r = fr.turn_choice(scores, on, 3, 1300, dice, zilch=race)
        rolls[dice] = {"chances": r["roll"].tolist(), "zilch": r["zilch"]}
        print(f"#4 rolls {dice} dice on:", "  ".join(f"{s} {v:.4%}" for s, v in zip(SEATS, r["roll"])),
              f"  (the turn ends in a zilch {r['zilch']:.2%})")
    out = {"fred": fred, "ending": {"seats": SEATS, "bank": bank.tolist(),
                                    "race_after_zilch": None if race is None else race.tolist(), "roll": rolls},
           "seconds": round(time.perf_counter() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    print(f"{out['seconds']} s wall, {out['cpu_seconds']} CPU-seconds, peak {out['peak_rss_mb']} MB")
    if args.out:
        args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
