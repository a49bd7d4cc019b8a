"""The strategy card's exact parts (agents.solver.rule_value, agents.solver.strategy).

* A rule of thumb's turn, valued by the backward induction with its far field, equals a plain
  recursion over the engine's own keeps written here (tiny rulesets: three dice; and six dice with
  permanent straights), on the board and before it, with both keeps; its points per turn under a
  zilch-streak penalty equal the stationary chain of the streak solved as a linear system.
* The card's rule is the simplest of the family within the tolerance of the best, the family
  searched exhaustively here on a three-dice ruleset.
* The ``thumb`` agent plays the rule: its points per turn in the engine match the exact value.
* The compensation read from a small solved game matches games played in the engine from that
  head start.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from zilch_env import GameState, load_ruleset, play_game
from zilch_env.rules.primitives import can_bank
from zilch_env.rules.scoring import scoring_table

from agents import make_agent
from agents.solver.rule_value import KEEPS, Rule, combos_keep, parse_rule, rule_points_per_turn, rule_value
from agents.solver.strategy import game_edge, search_rules, tolerance


def brute_value(rs, rule: Rule, on_board: bool, cap: int = 20_000) -> float:
    """The rule's expected points of a turn by plain recursion over (permanent, total, dice to roll):
    every sorted roll with its multinomial chance, the engine's keeps; beyond ``cap`` the turn is
    counted as banked there (no rule here gets near it but with a negligible chance)."""
    table = scoring_table(rs)
    D, sc = rs.dice, rs.scoring
    s = sc.straight if sc.permanent_straight else 0
    thr = rs.min_bank if on_board else rs.entry_threshold
    forced = rs.hot_dice == "forced"
    bars = rule.thresholds(D, on_board)
    rolls = {n: [] for n in range(1, D + 1)}
    for roll, info in table.rolls.items():
        n = len(roll)
        if 1 <= n <= D:
            p = math.factorial(n) / math.prod(math.factorial(c) for c in info.counts) / 6 ** n
            keeps = list(info.keeps)
            if rs.keep == "all_scoring" and keeps:
                keeps = [max(keeps, key=lambda k: (k.points, k.n, -k.mask))]
            rolls[n].append((p, roll, keeps))

    def banks(total: int, left: int) -> bool:
        return can_bank(total, left, thr, forced) and total >= bars[left or D]

    @lru_cache(maxsize=None)
    def rolling(perm: int, total: int, n: int) -> float:
        if total >= cap:
            return float(total)
        v = 0.0
        for p, roll, keeps in rolls[n]:
            if not keeps:
                v += p * (perm if (on_board or perm >= rs.entry_threshold) else 0)
                continue
            best = max(keeps, key=lambda k: (k.points, k.n, -k.mask))
            k = best
            if not banks(total + best.points, n - best.n) and rule.keep == "combos" and rs.keep == "free":
                i = combos_keep(rs, roll, keeps, keeps.index(best))
                k = best if i is None else keeps[i]
            t, left = total + k.points, n - k.n
            p2 = perm + (k.points if (s and k.straight) else 0)
            v += p * (t if banks(t, left) else rolling(p2, t, left or D))
        return v

    return rolling(0, 0, D)


RULES = [Rule(300, 3), Rule(350, 2), Rule(250, 1), Rule(300, 2, keep="combos"), Rule(200, 1, 900),
         Rule(400, 1, 600, keep="combos"), Rule(300, 2, entry_dice=3), Rule(0, 2), Rule(300, 1, entry_dice=1)]


@pytest.mark.parametrize("name, overrides", [
    ("zonk", {"dice": 3}),  # free keeps, an entry threshold
    ("farkle", {"dice": 3, "entry_threshold": 350}),  # a minimum bank, a zilch-streak penalty
    ("zilch5k", {"dice": 3, "min_bank": 150}),  # all scoring dice kept, forced hot dice
])
def test_a_rules_turn_is_the_plain_recursion(name, overrides):
    rs = load_ruleset(name, overrides)
    for rule in RULES:
        for on in (True, False):
            exact, zilch = rule_value(rs, rule, on)
            assert abs(exact - brute_value(rs, rule, on)) < 1e-9, (rule, on)
            assert 0 < zilch < 1


def test_permanent_straights_fold_as_in_the_solver():
    """Six dice under zilch: a straight's 1500 points survive a zilch; the rule's thresholds lie below
    and above a straight's level, so both the stored levels and the fold are used."""
    rs = load_ruleset("zilch")
    for rule, on in ((Rule(300, 6), False), (Rule(300, 3, 2000), True), (Rule(1600, 6), True)):
        assert abs(rule_value(rs, rule, on)[0] - brute_value(rs, rule, on, cap=12_000)) < 1e-9, (rule, on)


def test_points_per_turn_under_a_streak_penalty_is_the_streak_chain():
    rs = load_ruleset("farkle", {"dice": 3})
    rule = Rule(300, 2)
    e, z = rule_value(rs, rule, True)
    K, P = 3, 500
    # streak k -> k + 1 on a zilch (the K-th pays P and starts again), -> 0 on a bank
    T = np.zeros((K, K))
    for k in range(K):
        T[k, 0] += 1 - z
        T[k, (k + 1) % K] += z
    w, v = np.linalg.eig(T.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    pi /= pi.sum()
    assert abs(rule_points_per_turn(rs, rule) - (e - P * pi[K - 1] * z)) < 1e-9
    plain = load_ruleset("zonk", {"dice": 3})  # no penalty: the points of a turn
    assert rule_points_per_turn(plain, rule) == rule_value(plain, rule, True)[0]


def test_the_card_rule_is_the_simplest_near_the_best_of_the_whole_family():
    rs = load_ruleset("zonk", {"dice": 3, "entry_threshold": 300})
    found = search_rules(rs)
    totals = range(50, 3001, 50)
    family = [Rule(t, 3, keep=k) for t in totals for k in KEEPS]
    family += [Rule(t, d, keep=k) for t in totals for d in (1, 2) for k in KEEPS]
    family += [Rule(t, 1, a, keep=k) for t in totals for a in range(t + 50, 3001, 100) for k in KEEPS]
    values = {r: rule_points_per_turn(rs, r) for r in family}
    best = max(values.values())
    opt = found["optimum"]
    tol = tolerance(opt)
    assert found["best"]["points_per_turn"] >= best - 1e-9  # the search found the family's best
    rule = found["rule"]
    plain = Rule(rule.bank_at, rule.dice, rule.above, None, rule.keep)
    assert rule_points_per_turn(rs, plain) >= best - tol
    assert not [r for r, v in values.items() if v >= best - tol and r.numbers(3) < plain.numbers(3)]
    assert abs(found["points_per_turn"] - brute_value(rs, plain, True)) < 1e-9
    assert abs(found["cost"] - (opt - found["points_per_turn"])) < 1e-12 and found["cost"] >= 0
    assert found["entry_points"] == pytest.approx(brute_value(rs, rule, False), abs=1e-9)


def test_the_thumb_agent_plays_the_rule():
    """In the engine, one-player turns of ``thumb:...`` score the rule's exact points (a 4-sigma band)."""
    rs = load_ruleset("zonk", {"dice": 3, "entry_threshold": 0})
    rule = parse_rule("bank=300,dice=2,keep=combos", 3)
    agent = make_agent(rule.spec(), rs)
    assert agent.name == "thumb:bank=300,dice=2,keep=combos"
    rng = np.random.default_rng(3)
    points = []
    for g in range(25):
        state = GameState(rs, 1, seed=900 + g)
        while not state.done and len(state.turns) < 100:
            state.apply(agent.act(state, state.legal_actions(), rng))
        points += [t["recorded"] for t in state.turns]
    exact = rule_value(rs, rule, True)[0]
    mean, sd = np.mean(points), np.std(points) / math.sqrt(len(points))
    assert abs(mean - exact) < 4 * sd, (mean, exact, sd)


def test_a_spec_names_what_is_wrong():
    rs = load_ruleset("zonk")
    for text, word in [("bank=abc", "not a whole number"), ("dice=2", "bank=POINTS is required"),
                       ("bank=300,dice=9", "from 1 to 6"), ("bank=300,keep=all", "one of most, combos"),
                       ("bank=300,bank=200", "each key once"), ("bank=500,above=400", "above >= bank")]:
        with pytest.raises(ValueError, match=word):
            make_agent("thumb:" + text, rs)
    assert make_agent("thumb", rs).rule == search_rules(rs)["rule"]


def test_the_compensation_is_what_games_from_that_head_start_give(solve_once):
    rs = load_ruleset("zonk", {"target": 1000, "entry_threshold": 0})
    table = solve_once(rs)
    edge = game_edge(table)
    assert edge["to"] == "second" and edge["first_player_win"] == table.first_player_win > 0.5
    c, w = edge["points"], edge["first_player_win_with"]
    assert c and abs(w - 0.5) < abs(edge["first_player_win"] - 0.5)
    assert all(abs(w - 0.5) <= abs(x - 0.5) for _, x in edge["curve"])
    assert dict(edge["curve"])[c] == w == table.race_value(0, 0, True, 0, c, True, 0)
    agent = make_agent("optimal-win", rs)
    rng = np.random.default_rng(0)
    games, won = 1000, 0.0
    for g in range(games):
        state = GameState(rs, 2, seed=50_000 + g)
        state.scores = [0, c]  # the second player's head start, before the first roll is played
        won += play_game(state, [agent, agent], rng).result()[0]
    sigma = math.sqrt(w * (1 - w) / games)
    assert abs(won / games - w) < 4 * sigma, (won / games, w)
