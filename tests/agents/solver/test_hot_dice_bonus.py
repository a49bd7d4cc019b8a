"""The solvers under the hot-dice bonus (``scoring.hot_dice_bonus``), against brute forces that add the
bonus themselves: the keeps of the ruleset without the bonus, plus the bonus wherever a keep takes
every die of the roll (docs/rules.md). The solvers read the bonus from the compiled keeps only."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import pytest

from zilch_env import load_ruleset
from zilch_env.rules.compiled import roll_probability
from zilch_env.rules.scoring import scoring_table

from agents.solver.turn import _solve_policy
from tests.agents.solver.test_game_solver import BruteForce, _solve

BONUS = 100


def _keeps_with_bonus(rs):
    """{n: [(probability, [(points, dice left)])]}: every roll of n dice with its keeps, the bonus added here."""
    plain = load_ruleset(rs, {"scoring.hot_dice_bonus": 0})
    out = {}
    for n in range(1, rs.dice + 1):
        out[n] = [(roll_probability(roll), [(k.points + (rs.scoring.hot_dice_bonus if k.n == n else 0), n - k.n)
                                            for k in info.keeps])
                  for roll, info in scoring_table(plain).rolls.items() if len(roll) == n]
    return out


@pytest.mark.parametrize("on_board", [False, True])
def test_turn_solver_equals_a_brute_force_that_adds_the_bonus(on_board):
    rs = load_ruleset("zonk", {"dice": 3, "scoring.hot_dice_bonus": BONUS})
    cap = 1500
    thr = rs.min_bank if on_board else rs.entry_threshold
    rolls = _keeps_with_bonus(rs)

    def after(a, left):  # beyond the cap: bank if allowed, else nothing (as the solver truncates)
        bank = Fraction(a) if a >= thr else None
        if a > cap:
            return bank if bank is not None else Fraction(0)
        roll = R(a, left or rs.dice)
        return max(bank, roll) if bank is not None else roll

    @lru_cache(maxsize=None)
    def R(a, n):
        return sum(p * (max(after(a + pts, left) for pts, left in keeps) if keeps else 0) for p, keeps in rolls[n])

    pol = _solve_policy(rs, on_board, thr, 0.0, cap)
    for n in range(1, rs.dice + 1):
        for a in range(0, cap + 1, pol.unit):
            assert pol.roll_value(a, n) == pytest.approx(float(R(a, n)), rel=1e-12, abs=1e-9), (n, a)
    # the bonus is worth something: the value of a fresh turn rises with it
    plain = _solve_policy(load_ruleset("zonk", {"dice": 3}), on_board, thr, 0.0, cap)
    assert pol.roll_value(0, 3) > plain.roll_value(0, 3) + 5


class _BonusBruteForce(BruteForce):
    """The test_game_solver brute force with its keeps from the ruleset without the bonus, the bonus
    added here."""

    def __init__(self, rs, cap_extra=1000):
        super().__init__(rs, cap_extra)
        self.rolls = {n: [(float(p), keeps) for p, keeps in lst] for n, lst in _keeps_with_bonus(rs).items()}
        self.maxpts = max(pts for lst in self.rolls.values() for _, ks in lst for pts, _ in ks)


def test_game_solver_equals_a_brute_force_that_adds_the_bonus():
    rs = load_ruleset("zonk", {"target": 300, "dice": 2, "entry_threshold": 0, "scoring.hot_dice_bonus": 50})
    V = _BonusBruteForce(rs).solve()
    table = _solve(rs, sweep_tol=1e-13)
    assert table.meta["converged"]
    worst = max(abs(table.race_value(pos, a, on_a, za, b, on_b, zb) - v)
                for (pos, a, b, on_a, on_b, za, zb, _, _), v in V.items())
    assert worst < 1.5e-7, worst
    # and the bonus changes the game: the first player's chance differs from the game without it
    plain = _solve(load_ruleset("zonk", {"target": 300, "dice": 2, "entry_threshold": 0}), sweep_tol=1e-13)
    assert not math.isclose(table.race_value(0, 0, True, 0, 0, True, 0), plain.race_value(0, 0, True, 0, 0, True, 0),
                            abs_tol=1e-4)
