"""The turn solver under pyramiding (agents.solver.turn_pyramid): an independent brute-force expectimax in
exact fractions over (total at risk, dice frozen in this pass), the agent's moves against the engine's
legal actions, and a simulated mean of the optimal policy played by the engine."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from agents import make_agent
from agents.solver import _solve_policy, solve_turn, turn_value_table
from zilch_env import GameState, Phase, UnsupportedRulesError, load_ruleset
from zilch_env.rules.compiled import roll_probability
from zilch_env.rules.scoring import BONUS_KEEPS, pass_keeps, pyramid_freeze, scoring_table


def brute_force(rs, on_board: bool, cap: int):
    """Expectimax straight from docs/rules.md (pyramiding: kept dice join the frozen dice of their face
    in this pass), with the solver's truncation beyond ``cap`` at risk: bank if allowed, else zilch."""
    D, sc = rs.dice, rs.scoring
    thr = rs.min_bank if on_board else rs.entry_threshold
    bonus = rs.variants.six_dice_zilch_bonus
    table = scoring_table(rs)
    rolls = {n: [(r, Fraction(roll_probability(r)), info) for r, info in table.rolls.items() if len(r) == n]
             for n in range(1, D + 1)}

    def bankable(total, left):
        return not (left == 0 and rs.hot_dice == "forced") and total >= thr

    def after(a, left, fz, fp):
        if a > cap:
            return Fraction(a) if bankable(a, left) else Fraction(0)
        roll = R(a, fz, fp) if left else R(a, (0,) * 6, (0,) * 6)
        return max(Fraction(a), roll) if bankable(a, left) else roll

    @lru_cache(maxsize=None)
    def R(a, fz, fp):
        n = D - sum(fz)
        total = Fraction(0)
        for r, pr, info in rolls[n]:
            keeps = pass_keeps(sc, info, fz, fp, True, rs.keep == "all_scoring", bool(bonus) and n == D)
            if not keeps:
                continue  # a zilch records nothing
            best = None
            for k in keeps:
                if keeps is BONUS_KEEPS:
                    v = after(a + bonus, D, (0,) * 6, (0,) * 6)
                else:
                    left = n - k.n
                    nf, np_ = pyramid_freeze(sc, k, fz, fp) if left else ((0,) * 6, (0,) * 6)
                    v = after(a + k.points, left, tuple(nf), tuple(np_))
                best = v if best is None else max(best, v)
            total += pr * best
        return total

    return R


@pytest.mark.parametrize("preset, overrides, on_board, cap", [
    ("zonk", {"dice": 3}, True, 1500),
    ("zonk", {"dice": 3}, False, 1500),  # entry threshold 500
    ("zilch15k", {"dice": 3}, True, 1500),  # all scoring dice set aside, forced hot dice
    ("farkle", {"dice": 4, "variants.six_dice_zilch_bonus": 300}, True, 1000),  # four-dice bonus
])
def test_pyramiding_solver_equals_brute_force_in_exact_fractions(preset, overrides, on_board, cap):
    rs = load_ruleset(preset, {**overrides, "variants.pyramiding": True})
    thr = rs.min_bank if on_board else rs.entry_threshold
    pol = _solve_policy(rs, on_board, thr, 0.0, cap)
    R = brute_force(rs, on_board, cap)
    checked = 0
    for (fz, fp), s in pol.graph.index.items():
        n = rs.dice - sum(fz)
        for a in range(0, cap + 1, pol.unit * 5):
            exact = R(a, fz, fp)
            got = pol.roll_value(a, n, 0, fz, fp)
            assert got == pytest.approx(float(exact), rel=1e-12, abs=1e-9), (fz, fp, a)
            checked += 1
    assert len(pol.graph.states) > 5 and checked > 40


def test_pyramiding_is_worth_points_and_the_solve_is_certified():
    plain = solve_turn("zonk")
    pyr = solve_turn(load_ruleset("zonk", {"variants.pyramiding": True}))
    assert pyr.tail_error <= 1e-9 and pyr.expected_points > plain.expected_points
    # frozen dice change what a roll is worth: a frozen 1 (100) with five dice to roll is worth more
    # than 100 plus five fresh dice without it
    pol = pyr.policy
    assert pol.roll_value(100, 5, 0, (1, 0, 0, 0, 0, 0), (100, 0, 0, 0, 0, 0)) > \
        pol.roll_value(100, 5, 0, (0, 0, 0, 0, 1, 0), (0, 0, 0, 0, 50, 0)) - 50
    with pytest.raises(ValueError, match="depends on the dice frozen"):
        pol.roll_value(100, 5)
    with pytest.raises(ValueError, match="no pass of the dice"):
        pol.roll_value(100, 5, 0, (1, 0, 0, 0, 0, 0), (999, 0, 0, 0, 0, 0))


def test_pyramiding_with_permanent_straights_is_refused_by_name():
    with pytest.raises(UnsupportedRulesError, match="permanent_straight"):
        solve_turn(load_ruleset("zilch", {"variants.pyramiding": True}))


def test_optimal_turn_plays_pyramiding_legally_and_scores_its_value():
    """The agent's moves are legal in the engine (frozen dice, piggyback offers with their frozen pass),
    and one-player turns played by the engine average the solved value (within 4 standard errors)."""
    rs = load_ruleset("zonk", {"variants.pyramiding": True, "entry_threshold": 0, "target": 10**9})
    agent = make_agent("optimal-turn:plain", rs)
    expected = solve_turn(rs, True).expected_points
    rng = np.random.default_rng(0)
    g = GameState(rs, 1, seed=1)
    points = []
    while len(g.turns) < 3000:
        legal = g.legal_actions()
        a = agent.act(g, legal, rng)
        assert a in legal
        g.apply(a)
    points = np.array([t["recorded"] for t in g.turns], dtype=float)
    se = points.std() / np.sqrt(len(points))
    assert abs(points.mean() - expected) < 4 * se, (points.mean(), expected, se)
    pig = load_ruleset("zonk", {"variants.pyramiding": True, "variants.piggyback": True, "target": 3000})
    a2 = make_agent("optimal-turn", pig)
    g = GameState(pig, 2, seed=3)
    offers = 0
    while not g.done:
        legal = g.legal_actions()
        offers += g.phase == Phase.PIGGYBACK
        g.apply(a2.act(g, legal, rng))
    assert offers > 0


def test_the_batched_engine_refuses_pyramiding_optimal_turn_by_name():
    with pytest.raises(UnsupportedRulesError, match="frozen in this pass"):
        turn_value_table(load_ruleset("zonk", {"variants.pyramiding": True}))


def test_zilch_advise_takes_the_frozen_dice_of_the_pass(capsys):
    from zilch_cli import main as zilch

    argv = ["advise", "--ruleset", "zonk", "--set", "variants.pyramiding=true", "--on-board", "--json",
            "--turn-total", "100", "--frozen", "1", "--dice", "1", "2", "3", "4", "6"]
    assert zilch(argv) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    pol = solve_turn(load_ruleset("zonk", {"variants.pyramiding": True})).policy
    best = data["choices"][0]
    assert best["keep"] == [1] and not best["bank"]
    assert best["value"] == pytest.approx(pol.roll_value(200, 4, 0, (2, 0, 0, 0, 0, 0), (200, 0, 0, 0, 0, 0)))
    assert zilch(argv[:-6] + ["--frozen", "1", "--dice", "1", "2", "3", "4", "6", "6"]) == 2
    assert "of the 6 dice" in capsys.readouterr().err
    assert zilch(["advise", "--ruleset", "zonk", "--frozen", "1", "--dice", "1", "2", "3", "4", "6"]) == 2
    assert "only under variants.pyramiding" in capsys.readouterr().err
