"""Baseline agents: every agent in every phase and variant, seeded determinism, the greedy threshold
rules, the heuristic's keeps, table, push, endgame, challenges and piggybacks, and their strength order."""

from __future__ import annotations

import numpy as np
import pytest

from agents import AgentSpecError, agent_names, make_agent
from agents.baselines import GREEDY_PRESETS, GreedyAgent, HeuristicAgent, parse_thresholds
from zilch_env import (
    CHALLENGE_BASE, FRESH, NO_CHALLENGE, PIGGYBACK, GameState, Phase, keep_action, load_ruleset, mask_of,
)

from tests.conftest import keep

SPECS = ["random", "greedy", "greedy:500", "greedy:1=250,2=300,3=400,4=1000,5=2500,6=inf",
         "greedy-cautious", "greedy-bold", "greedy-table", "heuristic", "optimal-turn"]

RNG = np.random.default_rng(0)


def act(agent, game):
    return agent.act(game, game.legal_actions(), RNG)


def test_every_baseline_is_registered():
    names = agent_names()
    for name in ("random", "greedy", "greedy-cautious", "greedy-bold", "greedy-table", "heuristic", "optimal-turn"):
        assert name in names and names[name]
    assert make_agent("greedy:500", "zonk").name == "greedy:500"
    assert make_agent("greedy-table", "zonk").thresholds == GREEDY_PRESETS["greedy-table"]


@pytest.mark.parametrize("spec, message", [
    ("greedy:abc", "greedy:abc"), ("greedy:7=300", "dice 1 to 6"), ("greedy:-5", "greedy:-5"),
    ("random:1", "no argument"), ("heuristic:x", "no argument"), ("greedy-bold:3", "no argument"),
    ("optimal-turn:fast", "plain"),
])
def test_bad_specs_name_the_problem(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec, "zonk")


def test_greedy_thresholds_by_dice():
    t = parse_thresholds("1=250,3=400,5=2500,6=inf")
    assert t == {1: 250, 2: 250, 3: 400, 4: 400, 5: 2500, 6: float("inf")}
    assert parse_thresholds("500") == {n: 500 for n in range(1, 7)}


VARIANT_RULES = [
    ("zonk", {}), ("farkle", {}), ("zilch", {}), ("zilch15k", {}), ("farkle-basic", {}),
    ("zonk", {"variants.piggyback": True, "variants.challenge": True}),
    ("zilch15k", {"variants.challenge": True, "variants.overcoming": True}),
    ("farkle", {"variants.piggyback": True, "variants.overcoming": True, "variants.six_dice_zilch_bonus": 500}),
    ("zonk", {"variants.pyramiding": True, "variants.challenge": True}),
    ("zilch", {"variants.piggyback": True, "end": "finish_round", "tie": "tiebreak"}),
]


@pytest.mark.parametrize("preset, overrides", VARIANT_RULES)
def test_every_agent_plays_whole_games_under_every_rule(preset, overrides):
    """Games of 3 players (each agent against two others) end with legal moves only, and the same seed
    replays the same game."""
    rs = load_ruleset(preset, {"target": 2500, **overrides})
    specs = [s for s in SPECS if not (s == "optimal-turn" and rs.variants.pyramiding)]
    for i, spec in enumerate(specs):
        lineup = [spec, specs[(i + 1) % len(specs)], specs[(i + 2) % len(specs)]]

        def play(seed):
            agents = [make_agent(s, rs) for s in lineup]
            game = GameState(rs, 3, seed=seed)
            rng = np.random.default_rng(seed)
            for _ in range(200_000):
                if game.done:
                    return game
                game.apply(agents[game.current].act(game, game.legal_actions(), rng))  # raises if illegal
            raise AssertionError(f"{lineup} did not finish")

        a, b = play(7), play(7)
        assert a.to_record() == b.to_record()


def test_greedy_keeps_most_points_and_banks_from_its_threshold():
    rs = load_ruleset("zonk", {"entry_threshold": 0})
    g = GameState(rs, 1, dice=[[1, 5, 2, 3, 4, 6]])  # straight 2000 in zonk
    assert act(make_agent("greedy", rs), g) == keep_action(mask_of(g.roll, [1, 2, 3, 4, 5, 6]), True)
    g = GameState(rs, 1, dice=[[5, 5, 2, 3, 4, 6]])
    assert act(make_agent("greedy", rs), g) == keep_action(mask_of(g.roll, [5, 5]), False)  # 100 < 300
    assert act(GreedyAgent(100), g) == keep_action(mask_of(g.roll, [5, 5]), True)
    # by dice: 100 with 4 dice to roll banks under 4=100 but not under 4=1000
    assert act(GreedyAgent(parse_thresholds("4=100,5=1000")), g) == keep_action(mask_of(g.roll, [5, 5]), True)
    assert act(GreedyAgent(parse_thresholds("3=100,4=1000")), g) == keep_action(mask_of(g.roll, [5, 5]), False)
    # below the entry threshold a greedy player must roll on whatever its threshold
    g = GameState(load_ruleset("zonk"), 1, dice=[[5, 5, 2, 3, 4, 6]])
    assert act(GreedyAgent(0), g) == keep_action(mask_of(g.roll, [5, 5]), False)


def test_heuristic_rerolls_scoring_dice_when_that_pays():
    rs = load_ruleset("farkle-basic", {"entry_threshold": 0})
    h = make_agent("heuristic", rs)
    g = GameState(rs, 1, dice=[[1, 5, 2, 3, 4, 6]])
    assert act(h, g) == keep_action(mask_of(g.roll, [1]), False)  # the 1 alone, five dice to roll
    g = GameState(rs, 1, dice=[[5, 5, 5, 2, 3, 1]])
    # 5 5 5 1 = 600 with 2 dice left: the table banks from 300
    assert act(h, g) == keep_action(mask_of(g.roll, [1, 5, 5, 5]), True)
    g = GameState(rs, 1, dice=[[2, 2, 2, 5, 3, 4]])
    # 250 with 2 dice left is below 300, so it rolls; the 5 alone with five dice to roll beats the
    # triple with three (the exact solver agrees: 340.3 against 247.6 expected points)
    assert act(h, g) == keep_action(mask_of(g.roll, [5]), False)
    from agents.solver import solve_turn

    assert solve_turn(rs).decide(g.roll, 0).best.action == act(h, g)


def test_heuristic_takes_hot_dice_and_must_reach_thresholds():
    rs = load_ruleset("zonk")
    h = make_agent("heuristic", rs)
    g = GameState(rs, 1, dice=[[1, 1, 5, 5, 3, 3]])  # three pairs: 1500, all six dice
    assert act(h, g) == keep_action(0b111111, False)  # six fresh dice are worth the risk of 1500
    g = GameState(rs, 1, dice=[[1, 5, 2, 3, 4, 6]])  # zonk straight: 2000
    assert act(h, g) == keep_action(0b111111, False)
    g = GameState(rs, 1, dice=[[1, 1, 1, 1, 1, 1]])  # 8000 with six dice: the table banks from 6000
    assert act(h, g) == keep_action(0b111111, True)
    forced = load_ruleset("zilch15k", {"entry_threshold": 0})
    g = GameState(forced, 1, dice=[[1, 1, 5, 5, 5, 1]])  # two triplets, hot dice are forced: roll
    assert act(make_agent("heuristic", forced), g) in g.legal_actions()
    assert act(make_agent("heuristic", forced), g) & 1 == 0


def test_heuristic_pushes_when_far_behind_near_the_end():
    def second_turn(p0_roll, p0_keep):
        rs = load_ruleset("zonk", {"entry_threshold": 0, "target": 2000})
        g = GameState(rs, 2, dice=[p0_roll, [5, 5, 5, 2, 3, 4]])
        keep(g, p0_keep, bank=True)
        return g, act(make_agent("heuristic", rs), g)

    g, a = second_turn([1, 1, 1, 6, 6, 6], [1, 1, 1, 6, 6, 6])  # P1 banks 1600 of 2000: P2 far behind
    assert g.scores == [1600, 0] and a == keep_action(mask_of(g.roll, [5, 5, 5]), False)
    g, a = second_turn([1, 2, 3, 4, 6, 6], [1])  # P1 banks 100: the table banks 500 with 3 dice
    assert g.scores == [100, 0] and a == keep_action(mask_of(g.roll, [5, 5, 5]), True)


def test_heuristic_plays_its_last_turn_to_beat_the_leader():
    rs = load_ruleset("zonk", {"entry_threshold": 0, "target": 1000})
    g = GameState(rs, 2, dice=[[1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4], [5, 2, 3]])
    keep(g, [1, 1, 1], bank=True)  # P1 reaches the target: P2 has one last turn
    assert g.final_queue == [1]
    h = make_agent("heuristic", rs)
    assert act(h, g) == keep_action(mask_of(g.roll, [1, 1, 1]), False)  # 1000 only ties: roll on
    g.apply(keep_action(mask_of(g.roll, [1, 1, 1]), False))
    assert act(h, g) == keep_action(mask_of(g.roll, [5]), True)  # 1050 beats 1000: bank
    g.apply(act(h, g))
    assert g.done and g.winners == (1,)


def test_heuristic_challenges_the_leader_when_behind():
    rs = load_ruleset("zonk", {"variants.challenge": True})
    g = GameState(rs, 2, dice=[[1, 1, 1, 6, 6, 6], [5, 5, 5, 1, 2, 3], [1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4]])
    keep(g, [1, 1, 1, 6, 6, 6], bank=True)  # P1: 1600
    keep(g, [5, 5, 5, 1], bank=True)  # P2: 600, both on the board now
    h = make_agent("heuristic", rs)
    assert g.phase == Phase.CHALLENGE and g.current == 0
    assert act(h, g) == NO_CHALLENGE  # P1 leads
    g.apply(NO_CHALLENGE)
    keep(g, [1, 1, 1], bank=True)  # P1: 2600
    assert g.phase == Phase.CHALLENGE and g.current == 1
    assert act(h, g) == CHALLENGE_BASE  # 2000 behind: challenge the leader
    for spec in ("random", "greedy", "optimal-turn"):
        assert act(make_agent(spec, rs), g) in g.legal_actions()
    assert act(make_agent("greedy", rs), g) == NO_CHALLENGE


def test_heuristic_piggybacks_on_good_offers_only():
    rs = load_ruleset("zonk", {"variants.piggyback": True, "entry_threshold": 0})
    h = make_agent("heuristic", rs)
    g = GameState(rs, 2, dice=[[1, 1, 1, 2, 3, 4]])
    keep(g, [1, 1, 1], bank=True)  # offer: 1000 with 3 dice
    assert g.phase == Phase.PIGGYBACK and act(h, g) == PIGGYBACK
    assert act(make_agent("greedy", rs), g) == FRESH and act(make_agent("random", rs), g) in (FRESH, PIGGYBACK)
    g = GameState(rs, 2, dice=[[5, 5, 1, 1, 5, 3]])
    keep(g, [1, 1, 5, 5, 5], bank=True)  # offer: 700 with 1 die
    assert g.offer == (700, 1) and act(h, g) == FRESH


def test_heuristic_odds_are_the_zilch_probabilities():
    z, gain = HeuristicAgent.odds(load_ruleset("farkle-basic"))
    assert [round(z[n], 6) for n in range(1, 7)] == [round(x, 6) for x in (2 / 3, 4 / 9, 5 / 18, 17 / 108, 25 / 324, 5 / 162)]
    assert gain[1] == pytest.approx(75.0)  # a scoring single die: 1 or 5, equally likely


def _turn_mean(spec, turns=8000, seed=0):
    rs = load_ruleset("zonk", {"entry_threshold": 0, "target": 10**9})
    agent = make_agent(spec, rs)
    game = GameState(rs, 1, seed=seed)
    rng = np.random.default_rng(seed)
    while len(game.turns) < turns:
        game.apply(agent.act(game, game.legal_actions(), rng))
    pts = np.array([t["recorded"] for t in game.turns[:turns]], dtype=float)
    return pts.mean(), pts.std(ddof=1) / np.sqrt(turns)


def test_strength_order_of_the_baselines():
    """Points per turn: random < greedy < greedy-table < heuristic (each gap over 3 standard errors)."""
    means = {s: _turn_mean(s) for s in ("random", "greedy", "greedy-table", "heuristic")}
    order = ["random", "greedy", "greedy-table", "heuristic"]
    for lo, hi in zip(order, order[1:]):
        (m1, s1), (m2, s2) = means[lo], means[hi]
        assert m2 - m1 > 3 * np.hypot(s1, s2), (lo, hi, means)
