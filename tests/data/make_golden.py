"""Golden game records: seeded random games of every preset, each variant alone and all together, at
1 to 6 players, condensed to one hash per game of everything the engine showed at every step (the
legal actions, the action, the scores, the turn results). ``tests/test_golden_games.py`` replays the
same games and requires the same hashes, so any change of the rules' behaviour is seen, whichever
engine plays them.

    python tests/data/make_golden.py            # rewrites tests/data/golden_games.json.gz

Regenerate only for a deliberate change of the rules (say which in the commit).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from zilch_env import PRESETS, GameState, load_ruleset  # noqa: E402

OUT = Path(__file__).with_name("golden_games.json.gz")
GAMES = 40  # per configuration
VARIANTS = {
    "plain": {},
    "pyramiding": {"variants.pyramiding": True},
    "challenge": {"variants.challenge": True},
    "piggyback": {"variants.piggyback": True},
    "overcoming": {"variants.overcoming": True},
    "bonus": {"variants.six_dice_zilch_bonus": 500},
    "penalty": {"variants.zilch_penalty": {"count": 2, "points": 300, "mode": "halve"}},
    "every": {"variants.pyramiding": True, "variants.challenge": True, "variants.piggyback": True,
              "variants.overcoming": True, "variants.six_dice_zilch_bonus": 500,
              "variants.zilch_penalty": {"count": 3, "points": 500, "mode": "subtract"}},
    # issue 23's keys (configurations added after the first records: the older hashes stay as they were)
    "instant": {"end": "instant"},
    "floor": {"score_floor": -2000, "variants.challenge": True,
              "variants.zilch_penalty": {"count": 2, "points": 400, "mode": "subtract"}},
    "partial": {"scoring.partial_straights": {"12345": 500, "23456": 750}},
}
PLAYERS = {"zilch": (1, 3), "zilch15k": (2, 5), "zilch10k": (2,), "zilch5k": (4, 6), "farkle": (2, 3),
           "farkle-basic": (2,), "zonk": (1, 2, 6), "zonk20k": (2,), "cardgames": (2, 3)}


def configs():
    for i, preset in enumerate(PRESETS):
        for j, (variant, overrides) in enumerate(VARIANTS.items()):
            for n in PLAYERS[preset]:
                target = {"target": 3000} if variant != "plain" else {}
                yield f"{preset}/{variant}/{n}", load_ruleset(preset, {**target, **overrides}), n, [i, j, n]


def play(rs, n: int, seed: list[int], game: int) -> tuple[str, int]:
    """One seeded random game: (hash of every step, decisions)."""
    g = GameState(rs, n, seed=np.random.default_rng([*seed, game]))
    pick = np.random.default_rng([*seed, game, 1])
    h = hashlib.blake2b(digest_size=8)
    while not g.done and g.decisions < 20_000:
        legal = g.legal_actions()
        a = legal[int(pick.integers(len(legal)))]
        h.update(repr((legal, a, g.scores, g.roll, g.turn_total)).encode())
        g.apply(a)
    h.update(repr((g.scores, g.winners, [(t["player"], t["banked"], t["recorded"], t["score"], t["events"])
                                          for t in g.turns])).encode())
    return h.hexdigest(), g.decisions


def main() -> int:
    data = {name: [play(rs, n, seed, k) for k in range(GAMES)] for name, rs, n, seed in configs()}
    OUT.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
    print(f"{OUT}: {len(data)} configurations, {sum(len(v) for v in data.values())} games, "
          f"{sum(d for v in data.values() for _, d in v)} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
