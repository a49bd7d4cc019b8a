"""python_zilch in OpenSpiel: the time of ``pyspiel.random_sim_test`` and of a state's ``clone()`` /
``copy.deepcopy`` (what pyspiel uses to clone a Python game state) against ``GameState.clone``.

    python bench/openspiel.py [--sims 10] [--clones 2000] [--ruleset zonk] [--players 2]

The clones are of a state in the middle of a game (after 60 moves), where the turn records make a
copy cost most; ``copy.deepcopy`` of a ``GameState`` is its ``clone()``.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402

import zilch_env.envs.openspiel  # noqa: E402,F401  (registers python_zilch)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sims", type=int, default=10, help="games of random_sim_test (default 10)")
    ap.add_argument("--clones", type=int, default=2000, help="clones timed (default 2000)")
    ap.add_argument("--ruleset", default="zonk")
    ap.add_argument("--players", type=int, default=2)
    a = ap.parse_args(argv)
    game = pyspiel.load_game("python_zilch", {"ruleset": a.ruleset, "players": a.players})
    t = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=a.sims, serialize=True, verbose=False)
    sim = time.perf_counter() - t
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.move_number() < 60 and not state.is_terminal():
        if state.is_chance_node():
            o, p = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(o, p=np.array(p) / sum(p))))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))

    def per(fn):
        t = time.perf_counter()
        for _ in range(a.clones):
            fn()
        return (time.perf_counter() - t) / a.clones * 1e6

    print(f"python_zilch({a.ruleset}, {a.players} players)")
    print(f"  random_sim_test(num_sims={a.sims}, serialize=True): {sim:.2f} s ({sim / a.sims * 1000:.0f} ms a game)")
    print(f"  state.clone():            {per(state.clone):8.1f} us")
    print(f"  copy.deepcopy(state):     {per(lambda: copy.deepcopy(state)):8.1f} us")
    g = state.game_state
    print(f"  GameState.clone():        {per(g.clone):8.1f} us")
    print(f"  copy.deepcopy(GameState): {per(lambda: copy.deepcopy(g)):8.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
