"""BatchedZilchVecEnv.warm_up: it runs the step's kernels without moving the games, and a seed
after it starts the run exactly where a run without the warm-up starts (train/ppo.py relies on it)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from zilch_env.envs.vec_env import BatchedZilchVecEnv  # noqa: E402


@pytest.mark.parametrize("shaped", [False, True])
def test_seeded_reset_after_warm_up_is_the_plain_seeded_reset(shaped):
    potential = None
    if shaped:
        from agents.solver.win_shaping import WinPotential
        from agents.solver.game import load_game_table

        table = load_game_table("zonk")
        if table is None:
            pytest.skip("no stored zonk game table")
        potential = WinPotential("zonk", table, threads=1)

    def env():
        return BatchedZilchVecEnv("zonk", num_envs=4, num_players=2, seed=0, opponent="greedy",
                                  potential=potential, luck=False)

    plain, warmed = env(), env()
    plain.seed(11)
    plain.reset()
    warmed.seed(11)
    warmed.warm_up()
    # the games stay where the reset left them: the step ran on a copy
    assert [warmed.games.snapshot(b) for b in range(4)] == [plain.games.snapshot(b) for b in range(4)]
    for v in (plain, warmed):
        v.seed(11)
    rng = np.random.default_rng(0)
    a, b = plain.reset(), warmed.reset()
    for _ in range(30):
        assert np.array_equal(a, b)
        assert np.array_equal(plain.action_masks(), warmed.action_masks())
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in plain.action_masks()])
        a, ra, da, _ = plain.step(acts)
        b, rb, db, _ = warmed.step(acts)
        assert np.array_equal(ra, rb) and np.array_equal(da, db)
