"""No input gets a traceback or a hang: each case of the rules loader, the engine and the command line
that once crashed or hung, with the clear error (or the right answer) it gets now."""

from __future__ import annotations

import math

import numpy as np
import pytest

from zilch_cli import main
from zilch_env import (GameState, IllegalActionError, RecordError, RulesetError, load_ruleset,
                       loads_ruleset, replay)
from zilch_env.engine.game import PIGGYBACK, Phase
from zilch_env.rules.playable import turn_reach, why_unplayable
from zilch_env.rules.schema import MAX_POINTS, MAX_TARGET, Ruleset
from zilch_env.rules.load import ruleset_from_dict
from zilch_env.rules.scoring import score_dice


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ---------------------------------------------------------------- 1. rules under which no game can end

_FOUR = {"dice": 4, "scoring.singles": {}, "scoring.kinds": "none"}


@pytest.mark.parametrize("overrides, reason", [
    ({"dice": 2, "scoring.singles": {}}, "every turn is a zilch"),
    ({"dice": 1, "hot_dice": "forced"}, "no turn can ever bank"),
    ({"dice": 3, "scoring.singles": {}, "hot_dice": "forced"}, "no turn can ever bank"),
    # four dice, no singles, no bonus for four of a kind: a turn banks at most one triple, 1000 points
    ({**_FOUR, "entry_threshold": 1500}, "no player can get on the board"),
    ({**_FOUR, "entry_threshold": 0, "min_bank": 1500}, "the target cannot be reached"),
])
def test_rules_under_which_no_game_can_end_are_refused(overrides, reason):
    with pytest.raises(RulesetError, match=reason) as e:
        load_ruleset("zonk", overrides)
    assert "cannot be played to an end" in str(e.value) and "docs/rules.md" in str(e.value)


def test_the_six_dice_bonus_alone_makes_a_game_playable():
    # nothing ever scores, but every roll of both dice earns the bonus, which the player may bank
    rs = load_ruleset("zonk", {"dice": 2, "scoring.singles": {}, "variants.six_dice_zilch_bonus": 500,
                               "entry_threshold": 0})
    g = GameState(rs, 1, seed=0)
    assert g.legal_actions() == [0, 1] and g.turn_total == 500
    g.apply(1)
    assert g.scores == [500]


def test_the_playability_bounds_are_exact():
    # four dice without singles or kinds: the most a turn banks is the best triple, exactly
    rs = load_ruleset("zonk", _FOUR)
    assert turn_reach(rs.scoring, 4, "optional", "free", False, 0).most_banked == 1000
    assert load_ruleset("zonk", {**_FOUR, "entry_threshold": 1000}).entry_threshold == 1000
    # the entry bank alone may reach the target even when min_bank cannot be reached afterwards
    ok = load_ruleset("zonk", {**_FOUR, "entry_threshold": 500, "min_bank": 1500, "target": 1000})
    assert ok.target == 1000
    # three dice without singles: every triple sets all three aside, so hot dice make totals unbounded
    three = load_ruleset("zonk", {"dice": 3, "scoring.singles": {}})
    assert turn_reach(three.scoring, 3, "optional", "free", False, 0).most_banked == math.inf
    # one die, optional hot dice: the total is unbounded, any entry threshold can be reached
    rs1 = load_ruleset("zonk", {"dice": 1, "entry_threshold": MAX_POINTS})
    assert turn_reach(rs1.scoring, 1, "optional", "free", False, 0).most_banked == math.inf
    # a permanent straight records points at a zilch without any bank: forced hot dice, straights only
    perm = load_ruleset("zilch", {"scoring.singles": {}, "scoring.triples": {}, "hot_dice": "forced"})
    assert turn_reach(perm.scoring, 6, "forced", "all_scoring", False, 0).permanent_route
    with pytest.raises(RulesetError, match="no turn can ever bank"):
        load_ruleset("zilch", {"scoring.singles": {}, "scoring.triples": {}, "hot_dice": "forced",
                               "scoring.permanent_straight": False})


def test_every_preset_and_variant_is_playable():
    for name in ("zilch", "zilch15k", "zilch10k", "zilch5k", "farkle", "farkle-basic", "zonk", "zonk20k"):
        for variant in ("pyramiding", "challenge", "overcoming", "piggyback"):
            assert why_unplayable(load_ruleset(name, {f"variants.{variant}": True})) is None
        assert why_unplayable(load_ruleset(name, {"variants.six_dice_zilch_bonus": 500})) is None


def test_long_zilch_chains_do_not_recurse():
    # one scoring face on one die: most turns zilch on their first roll, one after another, inside a
    # single apply; the engine loops instead of recursing
    rs = load_ruleset("zonk", {"dice": 1, "scoring.singles": {1: 100}, "entry_threshold": 0})
    g = GameState(rs, 6, dice=[[2]] * 3000 + [[1]])
    assert len(g.turns) == 3000 and g.roll == (1,)


def test_the_simulate_command_refuses_rules_that_cannot_end(capsys):
    code, _, err = run(capsys, "simulate", "-q", "--set", "dice=1", "--set", "hot_dice=forced")
    assert code == 2 and "no turn can ever bank" in err


# ---------------------------------------------------------------- 2-4. overrides and values


def test_an_override_below_a_number_is_an_error(capsys):
    with pytest.raises(RulesetError, match="'scoring.singles.1' is a number of points, not a table"):
        load_ruleset("zonk", {"scoring.singles.1.x": 1})
    code, _, err = run(capsys, "rules", "zonk", "--set", "scoring.singles.1.x=5")
    assert code == 2 and "not a table" in err
    assert load_ruleset("zonk", {"scoring.singles.1": 200}).scoring.singles[1] == 200


def test_kind_values_must_match_kinds(capsys):
    for kinds in ("flat", "multiple"):
        with pytest.raises(RulesetError, match=f'kinds = "{kinds}" needs scoring.kind_values'):
            load_ruleset("zonk", {"scoring.kinds": kinds})
    with pytest.raises(RulesetError, match='kinds = "double" does not use it'):
        load_ruleset("zonk", {"scoring.kind_values": {4: 2}})
    code, _, err = run(capsys, "score", "--set", "scoring.kinds=flat", "2", "2", "2", "2")
    assert code == 2 and "needs scoring.kind_values" in err
    assert load_ruleset("zonk", {"scoring.kinds": "multiple", "scoring.kind_values": {4: 2}}).scoring.kinds == "multiple"


@pytest.mark.parametrize("key, value", [
    ("scoring.triples.1", 5_000_000_000), ("scoring.singles.1", 2**62),
    ("entry_threshold", 10**30), ("scoring.straight", 10**19), ("variants.zilch_penalty.points", 10**7),
    ("variants.six_dice_zilch_bonus", MAX_POINTS + 1),
])
def test_points_beyond_the_engines_integers_are_refused(key, value):
    with pytest.raises(RulesetError, match=f"from 0 to {MAX_POINTS}|from 1 to {MAX_POINTS}") as e:
        load_ruleset("zonk", {key: value})
    assert "fits the engines' integers" in str(e.value)


def test_the_eval_command_refuses_huge_points(capsys):
    code, _, err = run(capsys, "eval", "--ruleset", "zonk", "--set", "target=99999999999999999999999",
                       "--agents", "greedy", "random", "--games", "10", "--luck", "off")
    assert code == 2 and "allowed values are whole numbers from 1 to 1000000000" in err
    with pytest.raises(RulesetError, match="target = 1000000001: allowed values are whole numbers from 1 to 1000000000"):
        load_ruleset("zonk", {"target": MAX_TARGET + 1})


def test_rules_with_many_keeps_play_on_the_batched_engine():
    from zilch_env.engine.batched import BatchedGames

    rs = load_ruleset("zonk", {"scoring.singles": {1: 100, 5: 50, 2: 20}})
    games = BatchedGames(rs, 8, 2, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = games.legal_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        games.step(acts)
    assert games.legal_masks().shape == (8, 136)
    # six different faces all scoring: 63 keeps, the most any roll can have
    six = load_ruleset("zonk", {"scoring.singles": {f: 10 for f in range(1, 7)}})
    BatchedGames(six, 2, 2, seed=0)


# ---------------------------------------------------------------- 6-10. the engine's inputs


def test_a_negative_seed_is_a_clear_error(capsys):
    with pytest.raises(ValueError, match="seed = -1: a seed is a whole number 0 or more"):
        GameState("zonk", 2, seed=-1)
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--seed", "-1"])
    assert e.value.code == 2 and "a seed is a whole number 0 or more" in capsys.readouterr().err


def test_a_turn_that_zilches_right_after_another_keeps_its_roll_in_the_narration(capsys):
    code, out, _ = run(capsys, "simulate", "--ruleset", "zilch", "--players", "4", "--seed", "1")
    assert code == 0
    line = next(l for l in out.splitlines() if l.startswith("Turn  11 "))
    assert "zilch ()" not in line and "zilch (2 2 3 3 4 4)" in line
    assert not any("zilch ()" in l for l in out.splitlines())


def test_no_piggyback_offer_in_a_one_player_game(kp):
    rs = load_ruleset("zonk", {"variants.piggyback": True})
    g = GameState(rs, 1, dice=[[1, 1, 1, 2, 3, 4], [5, 2, 3, 4, 6, 6]])
    kp(g, [1, 1, 1], bank=True)
    assert g.offer is None and g.phase == Phase.KEEP and PIGGYBACK not in g.legal_actions()
    assert g.scores == [1000] and g.roll == (2, 3, 4, 5, 6, 6)
    # two players: the offer stands
    g2 = GameState(rs, 2, dice=[[1, 1, 1, 2, 3, 4]])
    kp(g2, [1, 1, 1], bank=True)
    assert g2.phase == Phase.PIGGYBACK and g2.offer == (1000, 3)


def test_one_rule_for_action_numbers_and_player_counts():
    g = GameState("zonk", 2, seed=0)
    a = g.legal_actions()[0]
    for bad in (float(a), np.array([a]), str(a), True, None, [a]):
        with pytest.raises(IllegalActionError, match="not an action number"):
            g.clone().apply(bad)
        assert "not an action number" in g.why_illegal(bad)
    g.clone().apply(np.int64(a))  # NumPy integers are action numbers
    with pytest.raises(IllegalActionError, match="out of range"):
        g.apply(10**30)
    for bad in (True, 0, 7, 2.0, "2"):
        with pytest.raises(ValueError, match="a game has 1 to 6 players"):
            GameState("zonk", bad)
    assert GameState("zonk", np.int64(3)).num_players == 3


def test_numpy_dice_are_faces_and_bools_are_not():
    g = GameState("zonk", 2, dice=np.array([[1, 1, 1, 2, 3, 4]]))
    assert g.roll == (1, 1, 1, 2, 3, 4) and all(type(d) is int for d in g.roll)
    rs = load_ruleset("zonk")
    assert score_dice(rs, [np.int64(1)]) == 100 and score_dice(rs, np.array([1, 5])) == 150
    with pytest.raises(ValueError, match="die True is not a face"):
        score_dice(rs, [True, 1])
    with pytest.raises(ValueError, match="a roll is 1 to 6 dice with faces 1 to 6"):
        GameState("zonk", 2, dice=[[True, 1, 1, 2, 3, 4]])


# ---------------------------------------------------------------- 11. advice


def test_advise_refuses_a_streak_the_penalty_cannot_have(capsys):
    code, _, err = run(capsys, "advise", "--ruleset", "farkle", "--on-board", "--streak", "7",
                       "--turn-total", "300", "--dice", "1", "2", "3", "3", "4", "6")
    assert code == 2 and "a streak is 0 to 2 zilches" in err


def test_advise_beyond_the_first_cap_solves_far_enough(capsys):
    code, out, _ = run(capsys, "advise", "--ruleset", "zonk", "--turn-total", "20000", "--dice", "1",
                       "--on-board", "--json")
    import json

    rows = json.loads(out)["choices"]
    roll = next(r for r in rows if not r["bank"])
    # rolling six dice from 20100: at least 20100 when they score (2/3 of rolls score at least 50)
    assert 0.9 * 20100 < roll["value"] < 20100 + 1000
    code, _, err = run(capsys, "advise", "--ruleset", "zonk", "--turn-total", "1000000000", "--dice", "1",
                       "--on-board")
    assert code == 2 and "beyond what the turn solver stores" in err


# ---------------------------------------------------------------- 12-13. records and messages


@pytest.mark.parametrize("record, what", [
    ({}, "lacks ruleset, num_players, rolls, actions"), ("not json", "not JSON"), ("[1, 2]", "a JSON object"),
    ({"ruleset": 5, "num_players": 2, "rolls": [], "actions": []}, "not a table of rules"),
    ({"ruleset": {}, "num_players": 2, "rolls": [], "actions": []}, "the record's ruleset"),
])
def test_a_broken_record_names_what_is_wrong(record, what):
    with pytest.raises(RecordError, match=what):
        replay(record)


def test_a_record_with_a_changed_action_or_missing_roll_is_named():
    g = GameState("zonk", 2, seed=3)
    while len(g.actions) < 6 and not g.done:
        g.apply(g.legal_actions()[-1])
    rec = g.to_record()
    assert replay(rec).scores == g.scores
    short = dict(rec, rolls=rec["rolls"][:1], final=None)
    with pytest.raises(RecordError, match="needs a roll the record does not have|illegal in the replay"):
        replay(short)
    bad = dict(rec, actions=[999] + rec["actions"][1:])
    with pytest.raises(RecordError, match="record action #1"):
        replay(bad)
    with pytest.raises(RecordError, match="the record has no rolls"):  # not even the first, made at the start
        replay(dict(rec, rolls=[], final=None))


def test_messages_speak_toml_and_count_seats_from_one():
    with pytest.raises(RulesetError, match='dice = "x": expected an integer'):
        load_ruleset("zonk", {"dice": "x"})
    with pytest.raises(RulesetError, match="scoring.straight = true: expected an integer"):
        load_ruleset("zonk", {"scoring.straight": True})
    with pytest.raises(RulesetError, match=r"scoring.kind_values.4 = 0: allowed values are whole numbers from 1 to 100"):
        load_ruleset("zonk", {"scoring.kinds": "multiple", "scoring.kind_values": {4: 0}})
    with pytest.raises(RulesetError, match="the preset a ruleset starts from is its name"):
        load_ruleset("zonk", {"extends": "farkle"})
    with pytest.raises(RulesetError, match="ruleset_from_dict takes a complete ruleset"):
        ruleset_from_dict({**load_ruleset("zonk").to_dict(), "extends": "farkle"})
    with pytest.raises(RulesetError, match=r'kind_values = \{4 = 2\}'):
        loads_ruleset('extends = "zonk"\n[scoring]\nkind_values = { 4 = 2 }\n')
    rs = load_ruleset("zonk", {"variants.challenge": True})
    g = GameState(rs, 3, dice=[[1, 1, 1, 5, 5, 5]] * 2 + [[2, 3, 4, 6, 6, 2]] * 3)
    g.apply(127)  # players 1 and 2 keep all six dice and bank 1500; player 3 zilches
    g.apply(127)
    assert g.on_board == [True, True, False] and g.current == 0
    assert g.phase == Phase.CHALLENGE
    assert "player 3 is not on the board" in g.why_illegal(132)
    assert g.describe(131) == "challenge player 2"


def test_cli_messages_have_no_python_reprs(capsys):
    code, _, err = run(capsys, "rules", "zonk", "--set", "variants.pyramiding=yes")
    assert code == 2 and 'variants.pyramiding = "yes": expected true or false' in err
    code, _, err = run(capsys, "rules", "zonk", "--set", "scoring.singles={4 = 0, 9 = 1}")
    assert code == 2 and "scoring.singles.9 = 1: 9 is not a face" in err and "{4: 0" not in err


def test_a_ruleset_is_still_hashable_and_round_trips():
    rs = load_ruleset("zilch15k")
    assert isinstance(rs, Ruleset) and hash(rs) == hash(load_ruleset("zilch15k"))
    assert ruleset_from_dict(rs.to_dict()) == rs
