"""Compile the numba kernels the suite uses once, before pytest starts its workers.

    python -m tests.warm_up engine      # the batched engine, the vector env, the multi-player solver
                                        # and the kernels a few tests reach
    python -m tests.warm_up solvers     # the turn solver, the two-player game solver, their tables'
                                        # queries, the evaluation's luck adjustment, the single-game
                                        # view, a review and the vector env's solver opponent
    python -m tests.warm_up other-inline  # the single-game view in the other compile setting, the
                                        # one tests/zilch_env/engine/test_jit.py compares with

``make test`` runs the parts side by side (the first two split so that each takes about as long from
an empty cache; the third is shorter), in the suite's compile setting and cache
folder (tests/conftest.py: ``ZILCH_NUMBA_INLINE=never``, ``NUMBA_CACHE_DIR=.numba-test-cache``). Each
part calls the public entry points the tests call, on tiny inputs, so that numba compiles the same
signatures; the xdist workers then load the kernels from the cache instead of each compiling them
(two workers reaching the same solver at once would compile it twice). A part whose kernels are
cached loads in a few seconds.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

# the suite's compile setting and cache folder, as tests/conftest.py sets them (before numba loads)
os.environ.setdefault("ZILCH_NUMBA_INLINE", "never")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".numba-test-cache"))

import numpy as np  # noqa: E402


def engine() -> None:
    import gymnasium as gym

    from zilch_env.engine.batched import BatchedGames

    b = BatchedGames("zonk", 8, 2, seed=0)
    b.step(b.random_actions())
    b.random_actions(b.legal_masks())
    b.observe(np.zeros(8, dtype=np.int64))
    b.play_random(1)
    b = BatchedGames("zonk", 4, 2, seed=0)
    b.play_to_end(["random", "greedy"], [[0, 1]] * 4)
    for opponents in (None, ["random"], ["greedy"]):
        kw = {} if opponents is None else {"opponents": opponents}
        v = gym.make_vec("Zilch-v2", num_envs=2, vectorization_mode="vector_entry_point", ruleset="zonk", **kw)
        v.reset(seed=0)
        v.step(np.array([int(np.flatnonzero(m)[0]) for m in v.action_masks()]))
        v.close()
    _multi()
    _lesser_kernels()


def _single_games() -> None:
    """The single-game view: whole games of every kind of decision, and their words."""
    import zilch_env
    from zilch_env.players.policy import GreedyMover, RandomMover

    rng = np.random.default_rng(0)
    for mover in (RandomMover(), GreedyMover()):
        g = zilch_env.GameState("zonk", 2, seed=0)
        while not g.done:
            g.apply(mover.act(g, g.legal_actions(), rng))
        g.describe(g.actions[-1])


def _multi() -> None:
    """The multi-player solver: three players, and two under overcoming, its table played in every seat."""
    from agents.solver.multi import solve_multi
    from zilch_env import GameState, load_ruleset

    for overrides, players in (({}, 3), ({"variants.overcoming": True}, 2)):
        rs = load_ruleset("zilch", {"target": 300, "dice": 2, **overrides})
        table = solve_multi(rs, players, cache=False, progress=False)
        for seed in range(4):
            g = GameState(rs, players, seed=seed)
            while not g.done:
                g.apply(table.best_action(g, g.legal_actions()))


def _situations() -> None:
    """The solved game's queries of single situations (the review, the teachers and the solver's own
    tests ask them): a race turn, a last turn against a bar, a chase with a seat after the mover (its
    curve), a tie-break turn and their outcomes; and a game with challenges, solved and queried."""
    from agents.solver.game import solve_game
    from zilch_env import load_ruleset

    t = solve_game(load_ruleset("zilch5k", {"target": 300, "dice": 2}), cache=False, progress=False, threads=1)
    race = t.situation_of(0, 0, [100, 50], [True, True], [0, 0], None, None, 0)
    bar = t.situation_of(1, 0, [350, 100], [True, True], [0, 0], [1], None, 0)
    for sit in (race, bar, ("tiebreak", 1)):
        t.start_value(sit)
        t.turn_outcomes(sit)
    for overcoming, above in ((False, 0), (True, 100)):
        t.start_value(t.final_situation_of(1, 0, [350, 100, 50], [True] * 3, [0] * 3, [1, 2], bar=above,
                                           overcoming=overcoming))
    t = solve_game(load_ruleset("zonk", {"target": 200, "dice": 2, "entry_threshold": 0, "variants.challenge": True}),
                   cache=False, progress=False, threads=1)
    for final_queue, scores in ((None, [100, 50]), ([1], [250, 100])):  # a challenge turn, a last one
        sit = t.situation_of(1, 0, scores, [True, True], [0, 0], final_queue, None, 0, usage=[0, 0], challenged=True)
        t.start_value(sit)
        t.turn_outcomes(sit)


def _lesser_kernels() -> None:
    """Kernels a few tests reach: a rule's turn value by plain recursion (the strategy card's), a
    learned policy's compiled network, and the batched engine stepping chosen rows and refilling its
    dice mid-step."""
    from agents import make_agent
    from agents.solver.rule_value import parse_rule, rule_value
    from zilch_env import GameState, load_ruleset
    from zilch_env.engine.batched import BatchedGames

    rule_value(load_ruleset("zonk", {"dice": 3}), parse_rule("bank=300,dice=2"), True)
    g, rng = GameState("zonk", 2, seed=0), np.random.default_rng(0)
    g.apply(make_agent("ppo:zonk", "zonk").act(g, g.legal_actions(), rng))
    b = BatchedGames("zilch15k", 16, 2, dice=[[0, i] for i in range(16)], dice_block=1)
    b.step_rows([1, 2], [int(np.flatnonzero(m)[0]) for m in b.legal_masks()[[1, 2]]])
    for _ in range(40):  # one dice code a block: games wait for a refill within a step
        b.step(b.random_actions())


def solvers() -> None:
    import gymnasium as gym

    import zilch_env  # noqa: F401  (registers the environments)
    from agents.evaluate import _Context, _play_table_chunk, seat_orders
    from agents.solver import solve_turn
    from agents.solver.game import solve_game
    from zilch_env import load_ruleset

    solve_turn("zonk")
    solve_turn(load_ruleset("zilch15k", {"variants.pyramiding": True}))
    # the game solver: a race with draws, a zilch penalty's sweeps and finish_round, tie-break turns;
    # each table played by the evaluation with the luck adjustment (its queries of the table)
    for name, overrides in (("zonk", {"target": 300, "dice": 2}),
                            ("farkle", {"target": 200, "dice": 2, "variants.zilch_penalty.count": 2,
                                        "variants.zilch_penalty.points": 100}),
                            ("zilch15k", {"target": 300, "dice": 2})):
        rs = load_ruleset(name, overrides)
        solve_game(rs, cache=False, progress=False, threads=1)
        solve_game(rs, progress=False, threads=1)  # stored where the evaluation finds it
        for pair in (["greedy", "random"], ["heuristic", "optimal-win"]):
            _play_table_chunk(_Context(rs, pair, seed=2), (0, 1), seat_orders(2), 0, 4, luck=True)
    _situations()
    # the single-game view once the other part has cached the turn flow's helpers (before its
    # multi-player games reach it)
    _single_games()
    # a game's review by chance of winning, with every choice valued (the web game's review; its first
    # compile otherwise falls inside a browser test's wait)
    from agents import make_agent
    from agents.evaluate.review import review_record
    from zilch_env import GameState

    rs = load_ruleset("zonk")
    agents = [make_agent("greedy", rs), make_agent("random", rs)]
    g, rng = GameState(rs, 2, seed=1), np.random.default_rng(1)
    while not g.done and g.decisions < 40:
        g.apply(agents[g.current].act(g, g.legal_actions(), rng))
    review_record(g.to_record(), choices=True)
    # last: by now the other part has cached the engine's kernels, which this loads instead of
    # compiling them a second time beside it
    v = gym.make_vec("Zilch-v2", num_envs=2, vectorization_mode="vector_entry_point", ruleset="zonk",
                     opponents=["optimal-turn"])
    v.reset(seed=0)
    v.step(np.array([int(np.flatnonzero(m)[0]) for m in v.action_masks()]))
    v.close()


def other_inline() -> None:
    """The subprocess of test_jit.py's comparison of the two compile settings: it compiles the turn
    flow with the setting the suite does not use, into that setting's own cache folder."""
    from tests.zilch_env.engine.test_jit import other_compilation

    other_compilation()


def main(argv: list[str]) -> int:
    parts = {"engine": engine, "solvers": solvers, "other-inline": other_inline}
    if len(argv) != 1 or argv[0] not in parts:
        print(f"usage: python -m tests.warm_up {{{'|'.join(parts)}}}", file=sys.stderr)
        return 2
    os.environ["ZILCH_SOLVER_CACHE"] = tempfile.mkdtemp(prefix="zilch-warm-up-")  # tables solved here stay here
    t0 = time.perf_counter()
    parts[argv[0]]()
    print(f"warm-up {argv[0]}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
