"""Golden solver records: the exact solvers' values, pinned to 1e-9.

* Turn solver (``agents.solver.solve_turn``): every preset, plain and with each variant (pyramiding,
  challenge, piggyback, overcoming, a six-dice zilch bonus, a ``halve`` and a ``subtract`` zilch-streak
  penalty, partial straights), off and on the board; under overcoming also solves with a bar (the
  ``bank_threshold`` the ``optimal-turn`` agent passes). Rules the solver refuses (pyramiding with
  permanent straights) are recorded as refused. Per solve: the start value, the points per turn, the
  streak values, the cap and tail, and per policy (one per zilch streak where a ``subtract`` penalty
  applies) the shape of its value table, a deterministic sample of its entries and two sums over all
  of them.
* Two-player game solver (``agents.solver.solve_game``, never from a cache): small rulesets, every ending
  and tie rule, a penalty, a bonus and a score floor. Per table: the first player's win chance, a sample
  of every table (``W``, ``F``, ``G``, ``TB0``) with sums, and a few race turns' start values (a turn DP
  each, what ``optimal-win`` plays from).
* Multi-player solver (``agents.solver.solve_multi``, never from a cache): tiny three-player rulesets
  (plain, and with the six-dice zilch bonus) and a two-player one under overcoming. Per table: the start values, a sample of every table with
  sums, and a few race turns' start values.

The sampled entries are at flat indices ``(k * 2654435761) % size`` (k = 0, 1, ...), computed again
by the test from the recorded shape; values are stored as JSON floats (full double precision).

    python tests/data/make_golden_solvers.py    # rewrites tests/data/golden_solvers.json.gz

``tests/test_golden_solvers.py`` solves again and requires every number within :data:`TOL` (sums within
a relative 1e-9). Regenerate only for a deliberate change of a solver (say which in the commit).

Every entry point used is imported in the block below (and nowhere else, the test included): when a
module moves, update that block only.
"""

from __future__ import annotations

import gzip
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

# ---- the public entry points (update here when they move) -----------------------------------
from zilch_env import load_ruleset  # noqa: E402
from agents.solver import solve_game, solve_multi, solve_turn  # noqa: E402
# ----------------------------------------------------------------------------------------------

OUT = Path(__file__).with_name("golden_solvers.json.gz")
TOL = 1e-9
SUM_RTOL = 1e-9

PRESETS = ("zilch", "zilch15k", "zilch10k", "zilch5k", "farkle", "farkle-basic", "zonk", "zonk20k", "cardgames")
TURN_VARIANTS = {
    "plain": {},
    "pyramiding": {"variants.pyramiding": True},
    "challenge": {"variants.challenge": True},
    "piggyback": {"variants.piggyback": True},
    "overcoming": {"variants.overcoming": True},
    "bonus": {"variants.six_dice_zilch_bonus": 500},
    "penalty-halve": {"variants.zilch_penalty": {"count": 2, "points": 300, "mode": "halve"}},
    "penalty-subtract": {"variants.zilch_penalty": {"count": 3, "points": 500, "mode": "subtract"}},
    "partial": {"scoring.partial_straights": {"12345": 500, "23456": 750}},
}
#: Under overcoming the agent solves with the previous turn's result as the bar: a few bars.
OVERCOMING_BARS = (550, 1000, 2500)
#: Table entries sampled per policy: the plain presets' more, each variant's fewer.
TURN_SAMPLES = {"plain": 256}
TURN_SAMPLES_OTHER = 64

GAME_RULESETS = (
    ("zonk/1000", "zonk", {"target": 1000}),
    ("zilch/1000", "zilch", {"target": 1000}),
    ("zilch5k/1000", "zilch5k", {"target": 1000}),
    ("zilch15k/500", "zilch15k", {"target": 500}),  # tie-break turns
    ("farkle/1000-no-penalty", "farkle", {"target": 1000, "entry_threshold": 300,  # finish_round
                                          "variants.zilch_penalty.count": 0}),
    ("cardgames/1000", "cardgames", {"target": 1000}),  # instant end
    # the penalties, the bonus and the score floor on two dice (as tests/agents/test_game_solver.py's
    # brute-force cases: six-dice games with a penalty take tens of seconds)
    ("farkle-2-dice-penalty", "farkle", {"target": 200, "dice": 2, "entry_threshold": 100, "min_bank": 0,
                                         "variants.zilch_penalty.count": 2, "variants.zilch_penalty.points": 100}),
    ("reset-penalty-bonus", "farkle", {"target": 200, "dice": 2, "entry_threshold": 0, "min_bank": 50,
                                       "variants.zilch_penalty.count": 2, "variants.zilch_penalty.mode": "reset",
                                       "variants.six_dice_zilch_bonus": 50}),
    ("floor-penalty", "farkle", {"target": 200, "dice": 2, "entry_threshold": 0, "min_bank": 0,
                                 "score_floor": -150, "variants.zilch_penalty.count": 2,
                                 "variants.zilch_penalty.points": 100}),
    ("floor-instant", "farkle", {"target": 200, "dice": 2, "entry_threshold": 100, "min_bank": 0,
                                 "end": "instant", "score_floor": -100,
                                 "variants.zilch_penalty": {"count": 1, "points": 100, "mode": "subtract"}}),
    ("zilch5k-2-dice-tiebreak", "zilch5k", {"target": 300, "dice": 2, "entry_threshold": 0, "min_bank": 100}),
)
#: (name, preset, overrides, players, tail_eps or None for the solver's default; the tests of
#: agents.solver.multi take a loose tail too, for speed)
MULTI_RULESETS = (
    ("zilch/600/3p", "zilch", {"target": 600}, 3, 1e-2),
    ("zilch/600+bonus/3p", "zilch", {"target": 600, "variants.six_dice_zilch_bonus": 500}, 3, 1e-2),
    # overcoming at two players (three players under overcoming take tens of seconds even at 300)
    ("zilch/500+overcoming/2p", "zilch", {"target": 500, "variants.overcoming": True}, 2, 1e-3),
)
TABLE_SAMPLES = 256


def sample_indices(size: int, count: int) -> list[int]:
    """``count`` deterministic, well spread flat indices into a table of ``size`` entries (all of a small one)."""
    if size <= count:
        return list(range(size))
    return [(k * 2654435761) % size for k in range(count)]


def num(x) -> float | str:
    """A float for JSON: finite values as they are, the others by name."""
    x = float(x)
    return x if math.isfinite(x) else repr(x)


def pin_array(a: np.ndarray, count: int) -> dict:
    """A table pinned: its shape, ``count`` sampled entries and sums over every finite entry."""
    a = np.asarray(a, dtype=np.float64)
    flat = a.reshape(-1)
    finite = np.isfinite(flat)
    weights = 1.0 + (np.arange(flat.size) % 97) / 97.0  # a weighted sum sees entries that trade places
    return {"shape": list(a.shape), "samples": [num(flat[i]) for i in sample_indices(flat.size, count)],
            "sum": float(flat[finite].sum()), "wsum": float((flat[finite] * weights[finite]).sum()),
            "nonfinite": int((~finite).sum())}


def turn_configs():
    """(name, ruleset, on_board, bank_threshold, samples) of every turn solve."""
    for preset in PRESETS:
        for variant, over in TURN_VARIANTS.items():
            rs = load_ruleset(preset, over)
            count = TURN_SAMPLES.get(variant, TURN_SAMPLES_OTHER)
            for on in (False, True):
                yield f"{preset}/{variant}/{'on' if on else 'off'}", rs, on, None, count
            if variant == "overcoming":
                for bar in OVERCOMING_BARS:
                    yield f"{preset}/{variant}/on/bar{bar}", rs, True, bar, TURN_SAMPLES_OTHER


def turn_record(rs, on_board: bool, threshold: int | None, count: int) -> dict:
    try:
        sol = solve_turn(rs, on_board, threshold)
    except ValueError as e:  # UnsupportedRulesError, SolverError
        return {"refused": type(e).__name__}
    pols = list(sol.streak_policies) if len(sol.streak_policies) > 1 else [sol.policy]
    return {
        "expected_points": num(sol.expected_points),
        "points_per_turn": None if sol.points_per_turn is None else num(sol.points_per_turn),
        "streak_values": [num(v) for v in sol.streak_values],
        "bank_threshold": int(sol.bank_threshold), "cap": int(sol.cap), "tail_error": num(sol.tail_error),
        "bank_above": None if sol.bank_above is None else num(sol.bank_above),
        "policies": [pin_array(p.values, count) for p in pols],
    }


def game_record(rs) -> dict:
    t = solve_game(rs, cache=False, progress=False)
    u = t.unit
    T = rs.target
    scores = sorted({0, (T // 2) // u * u, (T - u) // u * u})
    race = {}
    for a in scores:
        for b in scores:
            on_a, on_b = (a > 0 or rs.entry_threshold == 0), (b > 0 or rs.entry_threshold == 0)
            try:
                sit = t.race_situation(a, b, on_a, on_b)
            except ValueError:  # a score the rules cannot hold (below the entry threshold)
                continue
            race[f"{a}/{b}"] = num(t.start_value(sit))
    return {
        "first_player_win": num(t.first_player_win), "unit": int(u),
        "W": pin_array(t.W, TABLE_SAMPLES), "F": pin_array(t.F, TABLE_SAMPLES), "G": pin_array(t.G, TABLE_SAMPLES),
        "TB0": pin_array(t.TB0, TABLE_SAMPLES), "turn_start_values": race,
    }


def multi_record(rs, players: int, tail_eps: float | None) -> dict:
    kw = {} if tail_eps is None else {"tail_eps": tail_eps}
    t = solve_multi(rs, players, cache=False, progress=False, **kw)
    u = t.unit
    T = rs.target
    entry = rs.entry_threshold
    pts = sorted({s for s in (0, entry, (T // 2) // u * u, (T - u) // u * u) if s < T and (s == 0 or s >= entry)})
    starts = {}
    turn = {}
    for a in pts:
        for b in pts:
            scores = [a, b] + ([pts[len(pts) // 2]] if players == 3 else [])
            starts["/".join(map(str, scores))] = [num(v) for v in t.start_values(scores)]
            sit = t.situation_of(0, scores, [s > 0 or entry == 0 for s in scores], None, 0)
            turn["/".join(map(str, scores))] = num(t.start_value(sit))
    return {
        "first_player_win": num(t.first_player_win), "unit": int(u),
        **{k: pin_array(getattr(t, k), TABLE_SAMPLES) for k in ("W0", "W1", "LV", "LW", "F3a", "F3b")},
        "start_values": starts, "turn_start_values": turn,
    }


def game_configs():
    for name, preset, over in GAME_RULESETS:
        yield name, load_ruleset(preset, over)


def multi_configs():
    for name, preset, over, players, eps in MULTI_RULESETS:
        yield name, load_ruleset(preset, over), players, eps


def main() -> int:
    import time

    t0 = time.perf_counter()
    turn = {name: turn_record(rs, on, thr, count) for name, rs, on, thr, count in turn_configs()}
    t1 = time.perf_counter()
    game = {name: game_record(rs) for name, rs in game_configs()}
    t2 = time.perf_counter()
    multi = {name: multi_record(rs, n, eps) for name, rs, n, eps in multi_configs()}
    t3 = time.perf_counter()
    data = {"turn": turn, "game": game, "multi": multi}
    OUT.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
    print(f"{OUT}: {len(turn)} turn solves ({sum('refused' in r for r in turn.values())} refused, {t1 - t0:.1f} s), "
          f"{len(game)} game solves ({t2 - t1:.1f} s), {len(multi)} multi-player solves ({t3 - t2:.1f} s); "
          f"{OUT.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
