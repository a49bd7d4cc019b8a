"""The engine: source 000's whole game of Fred, one scripted scenario per variant and per ending,
refusals that name the rule and change nothing, records that replay, matches."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zilch_env import (
    CHALLENGE_BASE, FRESH, NO_CHALLENGE, PIGGYBACK, GameState, GreedyMover, IllegalActionError,
    Match, Phase, RandomDice, RandomMover, ScriptedDice, keep_action, load_ruleset, mask_of, play_game, replay,
)
from zilch_env.engine.game import DiceExhausted

from tests.conftest import keep


def game(preset="zonk", players=2, rolls=(), overrides=None, **kw):
    """A game whose first rolls are scripted; after them the dice are random (seeded)."""
    return GameState(load_ruleset(preset, overrides), players, dice=ScriptedDice(rolls, then=RandomDice(0)), **kw)


def test_fred_whole_game_seed000():
    """Source 000: Fred's seven turns replay to 2350 (a one-player zilch game, all scoring dice set aside)."""
    rolls = [
        [1, 2, 3, 4, 4, 5], [3, 3, 3, 3, 3], [6, 5], [4],  # 1: 100 + 300 + 50 = 450, then a zilch
        [1, 2, 2, 2, 4, 4], [3, 4],  # 2: 300, then a zilch
        [2, 2, 3, 3, 4, 5],  # 3: zilch
        [2, 2, 3, 6, 6, 6],  # 4: 600, banked: on the board
        [2, 2, 2, 3, 3, 6],  # 5: 250, banked: 850
        [1, 1, 1, 5, 5, 5], [1, 2, 3, 4, 5, 6], [2, 3, 4, 4, 5, 5],  # 6: 1500 + permanent 1500, zilch: 2350
        [1, 1, 1, 6, 6, 5], [4],  # 7: 1100, then a zilch
    ]
    g = game("zilch", 1, rolls)
    # every scoring die is set aside automatically (the 5 does not score): only bank or roll is chosen
    assert [k.dice for k in g.keeps()] == [(1,)]
    keep(g, [1])
    assert [k.dice for k in g.keeps()] == [(3, 3, 3)] and g.turn_total == 100
    keep(g, [3, 3, 3])
    assert g.roll == (5, 6) and g.turn_total == 400
    assert g.legal_actions() == [keep_action(mask_of(g.roll, [6]), False)]  # 450 < 500: no bank
    keep(g, [6])  # the last die (the five) comes up 4: zilch
    assert g.turns[0] == {**g.turns[0], "turn_total": 450, "recorded": 0, "banked": False}
    keep(g, [1, 2, 2, 2])  # 300, then the two dice zilch; turn 3 zilches on its first roll
    assert len(g.turns) == 3 and g.scores == [0] and not g.on_board[0]
    keep(g, [6, 6, 6], bank=True)
    assert g.scores == [600] and g.on_board[0]
    keep(g, [2, 2, 2, 6], bank=True)  # on the board: no minimum
    assert g.scores == [850]
    keep(g, [1, 1, 1, 5, 5, 5])
    assert g.dice_left == 6 and g.turn_total == 1500  # hot dice
    keep(g, [1, 2, 3, 4, 5, 6])  # a permanent straight; then 2 3 4 4 5 5 zilches
    assert g.turns[-1]["turn_total"] == 3000 and g.turns[-1]["recorded"] == 1500 and g.scores == [2350]
    keep(g, [1, 1, 1, 6, 6])  # 1100; the last die comes up 4
    assert g.turns[-1]["turn_total"] == 1100 and g.turns[-1]["recorded"] == 0
    assert g.scores == [2350] and len(g.turns) == 7 and not g.done


def test_permanent_straight_gets_player_on_board():
    g = game("zilch", 1, [[1, 2, 3, 4, 5, 6], [2, 2, 3, 3, 4, 4]])
    keep(g, [1, 2, 3, 4, 5, 6])
    assert g.scores == [1500] and g.on_board == [True] and g.turns[0]["banked"] is False


def test_entry_threshold_and_min_bank_are_enforced():
    g = game("farkle", 2, [[1, 1, 1, 2, 3, 4], [5, 2, 3, 4, 6, 6]])
    a = keep_action(mask_of(g.roll, [1, 1, 1]), True)
    assert a in g.legal_actions()  # 1000 reaches farkle's entry threshold
    with pytest.raises(IllegalActionError, match="entry threshold 1000"):
        g.apply(keep_action(mask_of(g.roll, [1]), True))
    g.apply(a)
    assert g.scores == [1000, 0] and g.on_board == [True, False]
    g2 = game("farkle", 1, [[1, 1, 1, 2, 3, 4], [1, 2, 3, 4, 4, 6]])
    keep(g2, [1, 1, 1], bank=True)
    with pytest.raises(IllegalActionError, match="minimum bank 300"):
        keep(g2, [1], bank=True)


def test_forced_hot_dice():
    g = game("zilch15k", 1, [[1, 1, 1, 5, 5, 5], [2, 3, 4, 6, 6, 2]])
    a = g.legal_actions()
    assert len(a) == 1 and a[0] % 2 == 0  # no bank with all dice set aside: they must be rolled
    with pytest.raises(IllegalActionError, match="hot dice are forced"):
        g.apply(a[0] + 1)
    g.apply(a[0])
    assert len(g.turns) == 1 and g.scores == [0]  # the forced re-roll zilched: all lost


def test_optional_hot_dice_may_bank():
    g = game("zonk", 1, [[1, 1, 1, 5, 5, 5]])
    a = g.legal_actions()
    assert a == [keep_action(mask_of(g.roll, [1, 1, 1, 5, 5, 5]), b) for b in (False, True)] or len(a) > 2
    keep(g, [1, 1, 1, 5, 5, 5], bank=True)
    assert g.scores == [1500]


def test_illegal_actions_name_the_rule_and_change_nothing():
    g = game("zonk", 2, [[2, 3, 4, 6, 6, 1]])
    before = g.snapshot()
    cases = [
        (keep_action(mask_of(g.roll, [2]), False), "does not score"),
        (keep_action(0, False), "at least one scoring die"),
        (keep_action(1 << 7, False), "out of range"),
        (keep_action(mask_of(g.roll, [1]), True), "entry threshold 500"),
        (FRESH, "turn-start decision"),
        (999, "out of range"),
        ("bank", "not an action number"),
    ]
    for action, words in cases:
        with pytest.raises(IllegalActionError, match=words):
            g.apply(action)
        assert g.snapshot() == before and g.actions == []
    # a non-canonical mask of the same dice is refused, naming the canonical one
    g2 = game("zonk", 2, [[1, 1, 2, 3, 4, 6]])
    with pytest.raises(IllegalActionError, match="canonical"):
        g2.apply(keep_action(0b10, False))


def test_all_scoring_keep_is_forced():
    g = game("zilch", 2, [[1, 1, 2, 3, 4, 6], [1, 2, 3]])
    with pytest.raises(IllegalActionError, match="all_scoring"):
        keep(g, [1])
    keep(g, [1, 1, 6])
    assert g.turn_total == 250


def test_finished_game_accepts_no_move():
    g = game("zonk", 1, [[1, 1, 1, 5, 5, 5]], overrides={"target": 1000})
    keep(g, [1, 1, 1, 5, 5, 5], bank=True)
    assert g.done and g.winners == (0,) and g.legal_actions() == []
    with pytest.raises(IllegalActionError, match="game is over"):
        g.apply(0)


# --------------------------------------------------------------------------- endings


def test_others_one_turn_ending():
    rolls = [[1, 1, 1, 5, 5, 5], [1, 2, 3, 4, 6, 6], [2, 2, 3, 4, 6], [2, 2, 3, 3, 4, 6]]
    g = game("zonk", 3, rolls, overrides={"target": 1000})
    keep(g, [1, 1, 1, 5, 5, 5], bank=True)  # P1 reaches the target: the others get one turn each
    assert g.final_queue == [1, 2] and g.current == 1
    keep(g, [1], bank=False)  # P2 must beat 1500: rolls on and zilches; then P3 zilches at once
    assert [t["player"] for t in g.turns] == [0, 1, 2]
    assert g.done and g.winners == (0,) and g.final_queue == []


def test_draw_shares_the_win():
    rolls = [[1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4]]
    g = game("zonk", 2, rolls, overrides={"target": 1000})
    keep(g, [1, 1, 1], bank=True)
    keep(g, [1, 1, 1], bank=True)
    assert g.done and g.winners == (0, 1) and g.result() == [0.5, 0.5]


def test_finish_round_ending():
    # P2 reaches the target: P3 (after P2 in this round) plays, P1 does not get another turn.
    rolls = [[2, 3, 4, 6, 6, 2], [1, 1, 1, 1, 2, 3], [1, 1, 1, 5, 5, 5]]
    g = game("farkle", 3, rolls, overrides={"target": 2000, "entry_threshold": 0})
    assert g.done is False
    keep(g, [1, 1, 1, 1], bank=True)  # P2: 2000
    assert g.final_queue == [2]
    keep(g, [1, 1, 1, 5, 5, 5], bank=True)  # P3: 1500, then the round is over
    assert g.done and g.winners == (1,)
    # when the last player of the round reaches the target, the game ends at once
    g2 = game("farkle", 2, [[2, 3, 4, 6, 6, 2], [1, 1, 1, 1, 2, 3]], overrides={"target": 2000, "entry_threshold": 0})
    keep(g2, [1, 1, 1, 1], bank=True)
    assert g2.done and g2.winners == (1,)


def test_instant_ending():
    """end = "instant": the first player to bank at or above the target wins at once; the others
    get no last turn (docs/rules.md, Ending). Here P2 of three banks 2000 first and wins."""
    rolls = [[2, 3, 4, 6, 6, 2], [1, 1, 1, 1, 2, 3]]
    g = game("zonk", 3, rolls, overrides={"target": 2000, "entry_threshold": 0, "end": "instant"})
    assert len(g.turns) == 1 and not g.turns[0]["banked"]  # P1 zilched on the first roll
    keep(g, [1, 1, 1, 1], bank=True)  # P2: four 1s = 2000 (zonk doubles), the target
    assert g.done and g.winners == (1,) and g.result() == [0.0, 1.0, 0.0]
    assert [t["player"] for t in g.turns] == [0, 1] and g.final_queue == []
    # below the target play goes on as usual
    g2 = game("zonk", 2, [[1, 1, 1, 2, 3, 4]], overrides={"target": 2000, "entry_threshold": 0, "end": "instant"})
    keep(g2, [1, 1, 1], bank=True)
    assert not g2.done and g2.current == 1 and g2.final_queue is None


def test_instant_ending_first_player_cardgames():
    """cardgames: six 1s are 3000 flat; a player at 7000 banking them reaches 10000 and wins before
    the second player moves again."""
    g = game("cardgames", 2, [[1, 1, 1, 1, 1, 1]])
    g.scores = [7000, 0]
    keep(g, [1, 1, 1, 1, 1, 1], bank=True)
    assert g.scores == [10000, 0] and g.done and g.winners == (0,)


def test_tiebreak_turns():
    rolls = [[1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4],  # both bank 1000: tied
             [1, 5, 2, 3, 4, 4]]  # tie-break: P1 rolls 150 and may not bank it
    g = game("zilch5k", 2, rolls, overrides={"target": 1000})
    g.apply(g.legal_actions()[-1])  # all_scoring keep 1 1 1, bank
    g.apply(g.legal_actions()[-1])
    assert not g.done and g.tiebreak_players == (0, 1) and g.current == 0 and g.tiebreak_round == 1
    with pytest.raises(IllegalActionError, match="minimum bank 350"):
        g.apply(g.legal_actions()[0] + 1)
    # a tie-break turn where P1 banks 1050 and P2 zilches
    g3 = game("zilch5k", 2, [[1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4], [1, 1, 1, 5, 2, 3], [2, 3, 4, 6, 2, 3]],
              overrides={"target": 1000})
    g3.apply(g3.legal_actions()[-1])
    g3.apply(g3.legal_actions()[-1])
    g3.apply(g3.legal_actions()[-1])  # tie-break: P1 banks 1050
    assert g3.done and g3.winners == (0,) and g3.scores == [2050, 1000]


def test_tiebreak_is_bounded():
    from zilch_env.rules.primitives import MAX_TIEBREAK_ROUNDS

    rolls = [[1, 1, 1, 2, 3, 4]] * 2 + [[2, 3, 4, 6, 2, 3]] * (2 * MAX_TIEBREAK_ROUNDS)
    g = game("zilch5k", 2, rolls, overrides={"target": 1000})
    g.apply(g.legal_actions()[-1])
    g.apply(g.legal_actions()[-1])
    assert g.done and g.winners == (0, 1) and g.tiebreak_round == MAX_TIEBREAK_ROUNDS


# --------------------------------------------------------------------------- variants


def test_pyramiding_group_replaces_singles():
    g = game("zonk", 1, [[2, 3, 4, 6, 6, 5], [5, 5, 2, 3, 4], [1, 3, 4]], overrides={"variants.pyramiding": True})
    keep(g, [5])
    assert g.turn_total == 50 and g.frozen[4] == 1
    pts = {k.dice: k.points for k in g.keeps()}
    assert pts[(5, 5)] == 450  # 5 5 5 = 500 replaces the frozen 50
    assert pts[(5,)] == 50  # one more 5 alone is a single (two frozen-and-new 5s are no group)
    keep(g, [5, 5])
    assert g.turn_total == 500 and g.frozen[4] == 3 and g.frozen_points[4] == 500


def test_pyramiding_makes_a_lone_die_keepable():
    g = game("zonk", 1, [[2, 2, 2, 3, 4, 6], [2, 3, 4], [1, 6]], overrides={"variants.pyramiding": True})
    keep(g, [2, 2, 2])
    assert {k.dice: k.points for k in g.keeps()} == {(2,): 200}  # four 2s (400) replace the triple (200)
    keep(g, [2])
    assert g.turn_total == 400
    plain = game("zonk", 1, [[2, 2, 2, 3, 4, 6], [2, 3, 4]])
    keep(plain, [2, 2, 2])
    assert plain.done is False and len(plain.turns) == 1  # without pyramiding that roll zilched


def test_challenge_bank_and_zilch():
    rs = {"variants.challenge": True, "entry_threshold": 0}
    rolls = [[1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4], [1, 5, 5, 5, 2, 3], [2, 3, 4, 6, 2, 3]]
    g = game("zonk", 2, rolls, overrides=rs)
    assert g.phase == Phase.CHALLENGE and g.legal_actions() == [NO_CHALLENGE, CHALLENGE_BASE]
    g.apply(NO_CHALLENGE)
    keep(g, [1, 1, 1], bank=True)
    g.apply(NO_CHALLENGE)
    keep(g, [1, 1, 1], bank=True)
    g.apply(CHALLENGE_BASE)  # P1 challenges P2 (the opponent one seat on)
    keep(g, [1, 5, 5, 5], bank=True)
    assert g.scores == [1600, 400] and g.challenges_used == [1, 0]
    g.apply(CHALLENGE_BASE)  # P2 challenges P1 and zilches: 600 off
    assert g.scores == [1600, 400 - 400] and g.turns[-1]["penalty"].startswith("challenge zilch -600")
    assert g.phase == Phase.KEEP  # P1 used its challenge below 5000: no offer this turn


def test_challenge_needs_both_on_board():
    g = game("zonk", 2, [[1, 2, 3, 4, 6, 6]], overrides={"variants.challenge": True})
    assert g.phase == Phase.KEEP  # nobody is on the board yet


def test_overcoming_bar():
    rolls = [[1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4], [1, 1, 1]]
    g = game("zonk", 2, rolls, overrides={"variants.overcoming": True})
    keep(g, [1, 1, 1], bank=True)
    assert g.last_result == 1000
    with pytest.raises(IllegalActionError, match="does not beat the previous player's last turn, 1000"):
        keep(g, [1, 1, 1], bank=True)
    keep(g, [1, 1, 1])
    keep(g, [1, 1, 1], bank=True)
    assert g.scores == [1000, 2000]


def test_piggyback():
    rolls = [[1, 1, 1, 5, 2, 3], [1, 5]]
    g = game("zonk", 2, rolls, overrides={"variants.piggyback": True})
    keep(g, [1, 1, 1, 5], bank=True)  # banks 1050 with two dice left
    assert g.phase == Phase.PIGGYBACK and g.offer == (1050, 2)
    with pytest.raises(IllegalActionError, match="piggyback"):
        g.apply(0)
    g.apply(PIGGYBACK)
    assert g.turn_total == 1050 and len(g.roll) == 2 and g.roll == (1, 5)
    keep(g, [1, 5], bank=True)
    assert g.scores == [1050, 1200]


def test_piggyback_declined_and_not_after_zilch():
    g = game("zonk", 2, [[1, 1, 1, 5, 2, 3], [2, 2, 3, 3, 4, 6], [1, 2, 3, 4, 6, 6]], overrides={"variants.piggyback": True})
    keep(g, [1, 1, 1, 5], bank=True)
    g.apply(FRESH)
    assert g.turn_total == 0 and g.phase == Phase.KEEP or len(g.turns) == 2
    assert g.phase == Phase.KEEP and g.current == 0  # P2 zilched: no offer for P1


@pytest.mark.parametrize("mode, expected", [("subtract", 1000 - 500), ("halve", 500), ("reset", 0)])
def test_zilch_penalty_modes(mode, expected):
    z = [2, 3, 4, 6, 2, 3]
    rolls = [[1, 1, 1, 2, 3, 4], z, z, z]
    g = game("farkle", 1, rolls, overrides={"variants.zilch_penalty.mode": mode})
    keep(g, [1, 1, 1], bank=True)
    # the next three turns zilch on their first roll (no decision to make): the third costs
    assert len(g.turns) == 4 and g.scores == [expected] and g.zilch_streak == [0]


def test_zilch_penalty_counts_only_on_the_board():
    z = [2, 3, 4, 6, 2, 3]
    g = game("farkle", 1, [z] * 4)
    assert [t["banked"] for t in g.turns[:4]] == [False] * 4
    assert g.zilch_streak == [0] and g.scores == [0]  # four zilches before the board: no count, no penalty


def test_zilch_penalty_floors_at_zero():
    z = [2, 3, 4, 6, 2, 3]
    g = game("farkle", 1, [[5, 2, 3, 4, 6, 6], z, z, z], overrides={"entry_threshold": 0, "min_bank": 0,
                                                              "variants.zilch_penalty.count": 3})
    keep(g, [5], bank=True)  # 50 banked, then three zilches in a row cost 500: the score stops at 0
    assert g.scores == [0] and g.turns[3]["penalty"] == "3 zilches: subtract"


def test_score_floor_lets_penalties_go_below_zero():
    """score_floor (docs/rules.md): penalties may take a banked score down to the floor. 50 banked,
    then three zilches in a row cost 500: -450 (with the default floor 0 the score stops at 0, see
    test_zilch_penalty_floors_at_zero); three more: -950, then the floor -1000 stops the next."""
    z = [2, 3, 4, 6, 2, 3]
    rules = {"entry_threshold": 0, "min_bank": 0, "variants.zilch_penalty.count": 3, "score_floor": -1000}
    g = game("farkle", 1, [[5, 2, 3, 4, 6, 6]] + [z] * 9, overrides=rules)
    keep(g, [5], bank=True)
    assert [t["score"] for t in g.turns] == [50, 50, 50, -450, -450, -450, -950, -950, -950, -1000]
    assert [e["points"] for t in g.turns for e in t["events"] if e["kind"] == "zilch_penalty"] == [500, 500, 50]
    # halving or resetting never raises a score below zero
    for mode in ("halve", "reset"):
        h = game("farkle", 1, [[5, 2, 3, 4, 6, 6]] + [z] * 6, overrides={
            **rules, "variants.zilch_penalty": {"count": 3, "points": 500, "mode": mode}, "score_floor": -500})
        keep(h, [5], bank=True)
        assert [t["score"] for t in h.turns][3] == (25 if mode == "halve" else 0)


def test_score_floor_with_challenges():
    """A zilch in a challenge costs 600 (first challenge) down to the floor; a challenged player
    loses a bank's total down to the floor."""
    rules = {"variants.challenge": True, "entry_threshold": 0, "score_floor": -2500}
    rolls = [[1, 1, 1, 2, 3, 4], [5, 2, 3, 4, 6, 6], [2, 3, 4, 6, 2, 3], [1, 1, 1, 1, 2, 3]]
    g = game("zonk", 2, rolls, overrides=rules)
    g.apply(NO_CHALLENGE)
    keep(g, [1, 1, 1], bank=True)  # P1 1000
    g.apply(NO_CHALLENGE)
    keep(g, [5], bank=True)  # P2 50
    g.apply(CHALLENGE_BASE)  # P1 challenges P2 and zilches: 1000 - 600 = 400
    assert g.scores == [400, 50] and g.turns[-1]["penalty"] == "challenge zilch -600"
    g.apply(CHALLENGE_BASE)  # P2 challenges P1 and banks four 1s (2000): P1 400 - 2000 = -1600
    keep(g, [1, 1, 1, 1], bank=True)
    assert g.scores == [-1600, 2050]
    assert g.turns[-1]["events"] == [{"kind": "challenge_transfer", "seat": 0, "points": 2000}]


def test_six_dice_zilch_bonus():
    # RULES.md section 7: the bonus joins the turn total and the player banks or rolls six fresh dice
    rolls = [[2, 2, 3, 3, 4, 6], [1, 2, 3, 4, 6, 6]]
    on = {"variants.six_dice_zilch_bonus": 500, "entry_threshold": 0}
    g = game("farkle", 1, rolls, overrides=on)
    assert g.turn_total == 500 and g.roll == (2, 2, 3, 3, 4, 6) and not g.turns
    assert g.legal_actions() == [0, 1]  # the keep of nothing: roll (0) or bank (1), 500 >= min bank 300
    assert g.describe(0) == "roll 6 fresh dice" and g.describe(1) == "bank 500"
    assert "banks (action 1) or rolls all 6 dice again (action 0)" in g.why_illegal(2)
    g.apply(0)
    assert g.turn_total == 500 and g.roll == (1, 2, 3, 4, 6, 6)
    keep(g, [1], bank=True)
    assert g.scores == [600] and [e["kind"] for e in g.turns[0]["events"]] == ["bonus"]
    banked = game("farkle", 1, rolls, overrides=on)
    banked.apply(1)
    assert banked.scores == [500] and banked.turns[0]["turn_total"] == 500
    # below the bar the only choice is to roll again (farkle's entry threshold 1000)
    low = game("farkle", 1, rolls, overrides={"variants.six_dice_zilch_bonus": 500})
    assert low.legal_actions() == [0] and "below the entry threshold 1000" in low.why_illegal(1)
    g2 = game("farkle", 1, [[1, 2, 3, 4, 6, 6], [2, 3, 3, 4, 6]], overrides={"variants.six_dice_zilch_bonus": 500})
    keep(g2, [1])
    assert len(g2.turns) == 1 and g2.turns[0]["recorded"] == 0  # five dice zilched: no bonus


# --------------------------------------------------------------------------- records, seeds, matches


@pytest.mark.parametrize("preset", ["zonk", "zilch", "farkle", "zilch15k"])
def test_record_replays_to_the_same_state(preset):
    g = GameState(preset, 3, seed=7)
    play_game(g, [RandomMover(), GreedyMover(), GreedyMover(500)], np.random.default_rng(7))
    rec = json.loads(json.dumps(g.to_record()))
    r = replay(rec)
    assert r.snapshot() == g.snapshot() and r.done
    rec["actions"][3] = 999
    with pytest.raises(ValueError, match="illegal in the replay"):
        replay(rec)


def test_same_seed_same_game():
    def run(seed):
        g = GameState("zonk", 2, seed=seed)
        play_game(g, [RandomMover(), GreedyMover()], np.random.default_rng(seed))
        return g.rolls, g.actions, g.scores

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_clone_is_independent():
    g = GameState("zonk", 2, seed=1)
    c = g.clone()
    a = g.legal_actions()[0]
    g.apply(a)
    assert c.actions == [] and c.snapshot() != g.snapshot()
    c.apply(a)
    assert c.snapshot() == g.snapshot()  # the clone rolls the same dice


def test_match_winner_starts_next_game():
    m = Match("zonk", 3, seed=5)
    rng = np.random.default_rng(0)
    for _ in range(3):
        g = m.next_game()
        if len(m.games) > 1:
            prev = m.games[-2]
            assert g.first == prev.winners[0] and g.current == g.first
        play_game(g, [GreedyMover()] * 3, rng)
    assert sum(m.wins()) == 3


def test_scripted_dice_checks_counts():
    with pytest.raises(ValueError, match="has 5 dice but the game rolls 6"):
        game("zonk", 1, [[1, 2, 3, 4, 5]])
    with pytest.raises(ValueError, match="faces 1 to 6"):
        game("zonk", 1, [[0, 1, 2, 3, 4, 5]])


def test_bad_game_arguments():
    with pytest.raises(ValueError, match="1 to 6 players"):
        GameState("zonk", 7)
    with pytest.raises(ValueError, match="first player"):
        GameState("zonk", 2, first=2)


def test_turns_carry_typed_events(kp):
    """Each turn's ``events``: what happened besides the bank or zilch, typed (no text to parse)."""
    rs = load_ruleset("zonk", {"variants.challenge": True, "variants.six_dice_zilch_bonus": 500,
                               "variants.piggyback": True,
                               "variants.zilch_penalty": {"count": 1, "points": 300, "mode": "subtract"},
                               "entry_threshold": 0})
    g = GameState(rs, 2, dice=[[2, 2, 3, 3, 4, 6], [1, 1, 1, 5, 2, 3],  # P1: the bonus, then 1050 banked
                               [2, 3]])  # P2 piggybacks on 1550 with 2 dice: a zilch
    assert g.phase == Phase.CHALLENGE  # no entry threshold: everyone is on the board, and may challenge
    g.apply(NO_CHALLENGE)
    assert g.turn_total == 500 and g.phase == Phase.KEEP
    g.apply(0)  # after the bonus: roll six fresh dice
    kp(g, [1, 1, 1, 5], bank=True)
    assert g.turns[0]["events"] == [{"kind": "bonus", "points": 500}]
    assert g.phase == Phase.CHALLENGE
    g.apply(CHALLENGE_BASE)  # P2 challenges P1
    g.apply(PIGGYBACK)
    t = g.turns[1]
    assert not t["banked"] and t["zilch_roll"] == [2, 3] and t["piggyback"]
    assert t["events"] == [{"kind": "piggyback", "points": 1550, "dice": 2},
                           {"kind": "challenge_cost", "points": 600},
                           {"kind": "zilch_penalty", "mode": "subtract", "count": 1, "points": 0}]


def test_the_game_is_a_view_over_one_row_of_the_engine_state():
    """GameState reads its fields from its row of the engine's state, which the shared kernels write:
    a position is set by assigning whole fields, never one item of a copy."""
    from zilch_env.engine import layout as L

    g = GameState("zonk", 3, seed=4)
    g.scores = [700, 0, 9000]
    assert g._st[0, L.SCORE: L.SCORE + 3].tolist() == [700, 0, 9000] and g.scores == [700, 0, 9000]
    with pytest.raises(TypeError, match=r"assign the whole field \(game.scores = \[...\]\)"):
        g.scores[0] = 7000
    with pytest.raises(TypeError, match="game.on_board"):
        g.on_board[1] = True
    assert g.scores == [700, 0, 9000]
    with pytest.raises(ValueError, match="2 values for 3 seats"):
        g.zilch_streak = [1, 1]
    g.final_queue = [1, 2]
    assert g.final_queue == [1, 2] and isinstance(g.final_queue[0], int)
    g.offer = (450, 2)
    assert g.offer == (450, 2) and g.offer_frozen == ([0] * 6, [0] * 6)
    # every field a plain Python value, as JSON takes it
    json.dumps(g.snapshot())
    assert all(type(x) is int for x in g.scores) and all(type(x) is bool for x in g.on_board)


def test_turn_summaries_come_from_the_row_end_of_turn_columns():
    """The summary of a turn (typed events included) is what the kernels recorded at its end."""
    from zilch_env import load_ruleset

    rs = load_ruleset("zonk", {"variants.zilch_penalty.count": 1, "variants.zilch_penalty.points": 500,
                               "variants.zilch_penalty.mode": "subtract", "entry_threshold": 0})
    g = GameState(rs, 2, dice=ScriptedDice([[1, 1, 1, 2, 3, 4], [2, 3, 4, 6, 6, 2]], then=RandomDice(0)))
    g.apply(keep_action(0b000111, bank=True))  # 1000 banked; player 2 zilches on the first roll
    t = g.turns[0]
    assert (t["player"], t["banked"], t["turn_total"], t["recorded"], t["score"]) == (0, True, 1000, 1000, 1000)
    t = g.turns[1]
    assert t["player"] == 1 and not t["banked"] and t["zilch_roll"] == [2, 2, 3, 4, 6, 6]
    assert t["penalty"] == "1 zilches: subtract" and t["events"] == [
        {"kind": "zilch_penalty", "mode": "subtract", "count": 1, "points": 0}]
