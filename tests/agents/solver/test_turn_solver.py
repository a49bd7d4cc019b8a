"""The exact turn solver: exact zilch odds, agreement with an independent brute-force expectimax in
exact fractions, the published optimum of Busche's Zilch analysis, the zilch-streak MDP, agreement
with the engine (legal choices, simulated means), the agent and the ``solve`` / ``advise`` commands."""

from __future__ import annotations

import json
import time
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from agents import make_agent
from agents.solver import (
    SolverError, _solve_policy, _tables, roll_probability, solve_turn,
)
from zilch_cli import main as zilch
from zilch_env import (
    FRESH, NO_CHALLENGE, PIGGYBACK, PRESETS, GameState, Phase, UnsupportedRulesError, keep_action, load_ruleset,
    mask_of,
    scoring_table,
)

from tests.conftest import keep

# --------------------------------------------------------------------------------------------
# An independent brute force: expectimax straight from docs/rules.md, with the same truncation the solver
# applies beyond its cap (above ``cap`` at risk: bank if allowed, else what a zilch records).


def brute_force(rs, on_board: bool, cap: int, exact: bool = True, max_perm: int = 0):
    num = Fraction if exact else float
    D, sc = rs.dice, rs.scoring
    thr = rs.min_bank if on_board else rs.entry_threshold
    perm_rule = sc.permanent_straight and sc.straight > 0
    bonus = rs.variants.six_dice_zilch_bonus
    table = scoring_table(rs)
    rolls = {n: [(r, num(roll_probability(r)), info) for r, info in table.rolls.items() if len(r) == n]
             for n in range(1, D + 1)}

    def zpay(p):
        return num(p if (on_board or p >= rs.entry_threshold) else 0)

    def bankable(total, left):
        return not (left == 0 and rs.hot_dice == "forced") and total >= thr

    def after(a, p, left):
        if a > cap or p > max_perm:
            return max(num(p + a), zpay(p)) if bankable(p + a, left) else zpay(p)
        roll = R(a, p, left or D)
        return max(num(p + a), roll) if bankable(p + a, left) else roll

    @lru_cache(maxsize=None)
    def R(a, p, n):
        total = num(0)
        for r, pr, info in rolls[n]:
            keeps = info.keeps
            if rs.keep == "all_scoring" and keeps:
                keeps = (info.best,)
            if not keeps:
                if n == D and bonus:  # RULES.md section 7: the bonus, then bank (if allowed) or roll
                    v = after(a + bonus, p, D)
                else:
                    v = zpay(p)
            else:
                v = max(after(a, p + k.points, 0) if (perm_rule and k.straight)
                        else after(a + k.points, p, n - k.n) for k in keeps)
            total += pr * v
        return total

    return R


SMALL_CASES = [
    ("zonk", {"dice": 3}, False, 1500),  # free keeps, optional hot dice, entry 500
    ("zonk", {"dice": 3}, True, 1500),
    ("farkle", {"dice": 3}, True, 1500),  # min bank 300
    ("zilch15k", {"dice": 3}, True, 1500),  # all scoring dice set aside, forced hot dice, min bank 350
    ("zonk", {"dice": 2, "variants.six_dice_zilch_bonus": 100}, True, 1200),  # all dice, no score: bonus
    ("zilch", {"dice": 2}, False, 1200),  # 6 = 50, 5 = nothing
]


@pytest.mark.parametrize("preset, overrides, on_board, cap", SMALL_CASES)
def test_solver_equals_brute_force_in_exact_fractions(preset, overrides, on_board, cap):
    rs = load_ruleset(preset, overrides)
    thr = rs.min_bank if on_board else rs.entry_threshold
    pol = _solve_policy(rs, on_board, thr, 0.0, cap)
    R = brute_force(rs, on_board, cap)
    g = pol.unit
    for n in range(1, rs.dice + 1):
        for a in range(0, cap + 1, g):
            exact = R(a, 0, n)
            assert pol.roll_value(a, n) == pytest.approx(float(exact), rel=1e-12, abs=1e-9), (n, a)


def test_solver_equals_brute_force_with_permanent_straights():
    """Source 000's permanent straight on six dice; the brute force stops after 10 straights in a turn
    (a chance below 1e-18), the solver folds the permanent points exactly."""
    rs = load_ruleset("zilch")
    for on_board in (False, True):
        cap = 600
        thr = rs.min_bank if on_board else rs.entry_threshold
        pol = _solve_policy(rs, on_board, thr, 0.0, cap)
        R = brute_force(rs, on_board, cap, exact=False, max_perm=15000)
        for n in (1, 3, 6):
            for a in (0, 250, 600):
                for p in (0, 1500, 3000):
                    assert pol.roll_value(p + a, n, p) == pytest.approx(R(a, p, n), rel=1e-12), (n, a, p)


def test_cap_does_not_change_the_optimum():
    """The certified bracket: raising the cap changes nothing, and the reported tail error is tiny."""
    for preset in ("zonk", "farkle", "zilch15k"):
        sol = solve_turn(preset)
        assert sol.tail_error <= 1e-9
        bigger = _solve_policy(sol.ruleset, True, sol.bank_threshold, 0.0, 2 * sol.cap)
        assert bigger.roll_value(0, 6) == pytest.approx(sol.expected_points, abs=1e-9)


# --------------------------------------------------------------------------------------------
# Known facts


def test_zilch_probabilities_are_exact():
    basic = solve_turn("farkle-basic").zilch_probabilities
    assert basic[1:] == (Fraction(2, 3), Fraction(4, 9), Fraction(5, 18), Fraction(17, 108),
                         Fraction(25, 324), Fraction(5, 162))
    # Three pairs (and the straight) leave fewer six-dice zilches: 1080 / 46656.
    assert solve_turn("farkle").zilch_probabilities[6] == Fraction(5, 216)
    # Probabilities of the sorted rolls of n dice sum to one.
    for n in range(1, 7):
        tb = _tables(load_ruleset("zonk"))
        assert tb.roll_p[tb.n_start[n]:tb.n_start[n + 1]].sum() == pytest.approx(1.0, abs=1e-15)


def test_busche_published_optimum_for_playr_zilch():
    """Matt Busche, "Maximizing Expected Scores in the Game of Zilch" (mattbusche.org, 2010): under the
    rules of Gaby Vanhegan's online Zilch (playr.co.uk) the three streak-dependent strategies score
    620.855 points per turn on average, the best possible. Those rules: 1 = 100, 5 = 50, triples
    (three 1s 1000), each die beyond three doubles, straight 1500, any three pairs 1500 (four of a
    kind and a pair count), six dice without a score 500 and a new roll, bank from 300, no entry
    threshold, hot dice optional, three zilches in a row cost 500."""
    rs = load_ruleset("farkle", {
        "entry_threshold": 0, "min_bank": 300, "scoring.kinds": "double", "scoring.straight": 1500,
        "scoring.three_pairs": 1500, "scoring.four_and_pair_is_three_pairs": True,
        "scoring.two_triplets": 0, "variants.six_dice_zilch_bonus": 500,
        "variants.zilch_penalty": {"count": 3, "points": 500, "mode": "subtract"},
    })
    sol = solve_turn(rs)
    assert sol.points_per_turn == pytest.approx(620.855, abs=5e-4)
    assert sol.expected_points > sol.points_per_turn


@pytest.mark.parametrize("preset", PRESETS)
def test_values_never_below_banking_and_grow_with_the_total(preset):
    for on_board in (True, False):
        sol = solve_turn(preset, on_board)
        rs, pol = sol.ruleset, sol.policy
        for n in range(1, rs.dice + 1):
            totals = range(0, 6001, pol.unit)
            rolls = [pol.roll_value(t, n) for t in totals]
            assert all(b >= a - 1e-9 for a, b in zip(rolls, rolls[1:])), (preset, on_board, n)
            for t in totals:
                if t and pol.can_bank(t, 0 if n == rs.dice else n):
                    assert sol.value(t, n) >= t
        # the first roll of a turn is worth more than nothing, and every choice of a roll is at most its best
        assert sol.expected_points > 0


def test_single_one_beats_one_and_five():
    """From 1 5 x x x x (no straight in farkle-basic) keep the 1 alone and roll five dice."""
    adv = solve_turn("farkle-basic").decide([1, 5, 2, 3, 4, 6], 0)
    assert adv.best.dice == (1,) and not adv.best.bank
    one_five = next(c for c in adv.choices if c.dice == (1, 5) and not c.bank)
    assert adv.best.value > one_five.value


def test_streak_mdp_satisfies_its_optimality_equations():
    sol = solve_turn("farkle")
    K, P = 3, 500
    assert len(sol.streak_policies) == K and sol.streak_values[0] == 0.0
    h = sol.streak_values
    for k in range(K):
        offset = h[k + 1] if k + 1 < K else -P
        fresh = _solve_policy(sol.ruleset, True, sol.bank_threshold, offset, sol.cap)
        assert sol.points_per_turn + h[k] == pytest.approx(fresh.roll_value(0, 6), abs=1e-7)
    # Playing the streak-blind optimum loses P at the stationary rate of K zilches in a row.
    plain = sol.policy
    z = float(plain.Z[0, 6, 0])
    blind = sol.expected_points - P * z ** K * (1 - z) / (1 - z ** K)
    assert blind < sol.points_per_turn < sol.expected_points
    assert h[0] > h[1] > h[2]


def test_points_per_turn_without_a_penalty_and_for_score_dependent_penalties():
    assert solve_turn("zonk").points_per_turn == solve_turn("zonk").expected_points
    assert solve_turn("farkle", on_board=False).points_per_turn == solve_turn("farkle", False).expected_points
    halve = solve_turn(load_ruleset("farkle", {"variants.zilch_penalty.mode": "halve"}))
    assert halve.points_per_turn is None and halve.expected_points == solve_turn("farkle").expected_points


def test_unsupported_and_unbounded_rules_raise_clear_errors():
    with pytest.raises(UnsupportedRulesError, match="pyramiding"):
        solve_turn(load_ruleset("zilch", {"variants.pyramiding": True}))  # with permanent straights
    every_face = {str(f): 50 for f in range(1, 7)}
    with pytest.raises(SolverError, match="for ever"):
        solve_turn(load_ruleset("zonk", {"scoring.singles": every_face}))
    sol = solve_turn("zonk")
    with pytest.raises(ValueError, match="multiple of 50"):
        sol.value(333, 3)
    with pytest.raises(ValueError, match="1 to 6 dice"):
        sol.value(300, 7)


def test_every_preset_solves_in_seconds():
    solve_turn(load_ruleset("zonk", {"dice": 2}))  # numba kernels compiled or loaded
    from agents.solver import _solve_turn

    for preset in PRESETS:
        rs = load_ruleset(preset, {"name": f"{preset}-timing"})
        t = time.perf_counter()
        solve_turn(rs, True)
        solve_turn(rs, False)
        assert time.perf_counter() - t < 10.0, preset
    assert _solve_turn.cache_info().currsize > 0


# --------------------------------------------------------------------------------------------
# Agreement with the engine


def _random_decisions(rs, n_states, seed):
    """(roll, turn total, permanent, on the board, legal actions) of KEEP decisions in random play."""
    game = GameState(rs, 2, seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_states and not game.done:
        legal = game.legal_actions()
        if game.phase == Phase.KEEP:
            out.append((game.roll, game.turn_total, game.permanent, game.on_board[game.current], list(legal)))
        game.apply(int(legal[rng.integers(len(legal))]))
    return out


@pytest.mark.parametrize("preset, overrides", [
    ("zonk", {}), ("farkle", {}), ("zilch", {}), ("zilch15k", {}),
    ("zonk", {"variants.six_dice_zilch_bonus": 500, "min_bank": 350}),
])
def test_choices_are_exactly_the_engine_legal_actions(preset, overrides):
    rs = load_ruleset(preset, overrides)
    for roll, total, permanent, on_board, legal in _random_decisions(rs, 300, seed=3):
        adv = solve_turn(rs, on_board).decide(roll, total, permanent)
        assert sorted(c.action for c in adv.choices) == sorted(legal)
        assert adv.best.value == max(c.value for c in adv.choices)


def test_simulated_optimal_turns_match_the_expected_points():
    rs = load_ruleset("zonk", {"entry_threshold": 0, "target": 10**9})
    agent = make_agent("optimal-turn", rs)
    game = GameState(rs, 1, seed=11)
    rng = np.random.default_rng(0)
    while len(game.turns) < 4000:
        game.apply(agent.act(game, game.legal_actions(), rng))
    pts = np.array([t["recorded"] for t in game.turns[:4000]], dtype=float)
    se = pts.std(ddof=1) / np.sqrt(len(pts))
    assert abs(pts.mean() - solve_turn("zonk").expected_points) < 4 * se


# --------------------------------------------------------------------------------------------
# The agent in every phase


def test_optimal_turn_piggybacks_when_it_pays_and_never_challenges():
    rs = load_ruleset("zonk", {"variants.piggyback": True, "variants.challenge": True, "entry_threshold": 0})
    agent = make_agent("optimal-turn", rs)
    rng = np.random.default_rng(0)
    # P1 banks 1000 with 3 dice left; P2 may piggyback on it.
    g = GameState(rs, 2, dice=[[1, 1, 1, 2, 3, 4]])
    assert g.phase == Phase.CHALLENGE and len(g.legal_actions()) == 2  # both on the board (no entry)
    assert agent.act(g, g.legal_actions(), rng) == NO_CHALLENGE
    g.apply(NO_CHALLENGE)
    keep(g, [1, 1, 1], bank=True)
    sol = solve_turn(rs)
    assert agent.act(g, g.legal_actions(), rng) == NO_CHALLENGE
    g.apply(NO_CHALLENGE)
    assert g.phase == Phase.PIGGYBACK and g.offer == (1000, 3)
    want = PIGGYBACK if sol.roll_value(1000, 3) > sol.expected_points else FRESH
    assert agent.act(g, g.legal_actions(), rng) == want == PIGGYBACK


def test_optimal_turn_respects_overcoming():
    """Under overcoming the bar of the previous turn raises the bank threshold; the agent solves for it."""
    rs = load_ruleset("zonk", {"variants.overcoming": True, "entry_threshold": 0})
    agent = make_agent("optimal-turn", rs)
    rng = np.random.default_rng(0)
    g = GameState(rs, 2, dice=[[1, 1, 1, 2, 3, 4], [5, 2, 3, 4, 6, 6]])
    keep(g, [1, 1, 1], bank=True)  # P1 records 1000: P2 must beat it to bank
    assert g.last_result == 1000 and g.roll == (2, 3, 4, 5, 6, 6)
    a = agent.act(g, g.legal_actions(), rng)
    assert a in g.legal_actions() and a == keep_action(mask_of(g.roll, [5]), False)
    thr = solve_turn(rs, True, bank_threshold=1001)
    assert thr.bank_threshold == 1001 and thr.expected_points < solve_turn(rs).expected_points


def test_optimal_turn_plays_whole_games_under_every_variant():
    for preset, overrides in [
        ("farkle", {"variants.piggyback": True}),
        ("zilch15k", {"variants.challenge": True, "variants.overcoming": True}),
        ("zilch", {"variants.six_dice_zilch_bonus": 300, "target": 3000}),
        ("zonk", {"variants.pyramiding": True, "variants.piggyback": True, "variants.overcoming": True,
                  "variants.six_dice_zilch_bonus": 500}),
    ]:
        rs = load_ruleset(preset, {"target": 3000, **overrides})
        agents = [make_agent("optimal-turn", rs), make_agent("optimal-turn:plain", rs)]
        game = GameState(rs, 2, seed=5)
        rng = np.random.default_rng(5)
        while not game.done:
            game.apply(agents[game.current].act(game, game.legal_actions(), rng))
    with pytest.raises(UnsupportedRulesError, match="pyramiding"):
        make_agent("optimal-turn", load_ruleset("zilch", {"variants.pyramiding": True}))


# --------------------------------------------------------------------------------------------
# Command line


def test_zilch_solve_prints_the_optimum(capsys):
    assert zilch(["solve", "--ruleset", "farkle"]) == 0
    out = capsys.readouterr().out
    assert f"{solve_turn('farkle').expected_points:.3f}" in out and "long-run points per turn" in out
    assert f"{solve_turn('farkle').points_per_turn:.3f}" in out and "solve time" in out
    assert zilch(["solve", "--ruleset", "zonk", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["on_board"]["expected_points"] == pytest.approx(solve_turn("zonk").expected_points)
    assert data["off_board"]["expected_points"] == pytest.approx(solve_turn("zonk", False).expected_points)
    assert zilch(["solve", "--ruleset", "zonk", "--set", "variants.pyramiding=true"]) == 0
    out = capsys.readouterr().out
    pyr = solve_turn(load_ruleset("zonk", {"variants.pyramiding": True}))
    assert f"{pyr.expected_points:.3f}" in out and "no dice frozen" in out
    assert zilch(["solve", "--ruleset", "zilch", "--set", "variants.pyramiding=true"]) == 2
    assert "pyramiding" in capsys.readouterr().err


def test_zilch_advise_values_every_choice(capsys):
    argv = ["advise", "--ruleset", "zonk", "--turn-total", "350", "--dice", "1", "1", "5", "3", "4", "2"]
    assert zilch(argv + ["--on-board", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    adv = solve_turn("zonk").decide([1, 1, 5, 3, 4, 2], 350)
    assert len(data["choices"]) == len(adv.choices) == 10  # 1, 5, 1 1, 1 5, 1 1 5: each bank or roll
    assert [c["value"] for c in data["choices"]] == pytest.approx([c.value for c in adv.choices])
    assert data["choices"][0]["keep"] == [1] and not data["choices"][0]["bank"]
    assert zilch(argv) == 0
    out = capsys.readouterr().out
    assert "Best: keep 1 and roll on" in out and "not on the board" in out
    assert zilch(["advise", "--ruleset", "zonk", "--dice", "2", "3", "4", "6", "6", "3"]) == 0
    assert "zilch" in capsys.readouterr().out
    assert zilch(["advise", "--ruleset", "zonk", "--dice", "7"]) == 2
    assert "faces 1 to 6" in capsys.readouterr().err
    assert zilch(["advise", "--ruleset", "zonk", "--turn-total", "333", "--dice", "1"]) == 2
    assert "multiple of 50" in capsys.readouterr().err


def test_partial_straights_and_the_instant_ending_in_the_turn_solver():
    """The turn solver plays partial straights from the compiled keeps (a roll of 1 2 3 4 5 3 offers
    1-2-3-4-5 for 500) and is worth more with them; the game's ending does not change a turn."""
    zonk = load_ruleset("zonk")
    partial = load_ruleset("zonk", {"scoring.partial_straights": {"12345": 500, "23456": 750}})
    assert solve_turn(partial).expected_points > solve_turn(zonk).expected_points + 10
    adv = solve_turn(partial).decide([1, 2, 3, 4, 5, 3], 0)
    bank = next(c for c in adv.choices if c.dice == (1, 2, 3, 4, 5) and c.bank)
    assert bank.value == 500 and adv.best == bank  # rolling the one die left is worth less
    instant = load_ruleset("zonk", {"end": "instant"})
    assert solve_turn(instant).expected_points == solve_turn(zonk).expected_points


def test_freds_last_roll_in_source_000():
    """Source 000: Fred, on the board, rolls 1 1 1 6 6 5 (1100 under its scoring: the 5 scores nothing)
    and rolls the last die on: "He should have stopped and kept the 1100 points". The turn solver
    agrees: banking is worth 1100 expected points, rolling the one die on 499.36 (docs/rules.md)."""
    sol = solve_turn(load_ruleset("zilch"), True)
    advice = sol.decide((1, 1, 1, 5, 6, 6), 0)
    assert [(c.bank, round(c.value, 2)) for c in advice.choices] == [(True, 1100.0), (False, 499.36)]
