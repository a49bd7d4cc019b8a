"""The final round of any number of players (agents.solver.final_round): the three-player game's
last-turn tables it must reproduce, chances that add up, the rules it refuses, and source 000's
four-player ending that docs/rules.md answers from it (Fred's turn is tests/agents/solver/test_turn_solver.py's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.solver import multi as MS
from agents.solver import multi_kernels as M
from agents.solver.final_round import FinalRound
from zilch_env import UnsupportedRulesError, load_ruleset

ROOT = Path(__file__).resolve().parents[3]

#: A loose final cap: the small solves here take a second or two.
EPS = 0.2


@pytest.fixture(scope="module")
def three_over():
    """Zilch to 800 with overcoming, three players: the bar of the turn that reached the target too."""
    rs = load_ruleset("zilch", {"target": 800, "variants.overcoming": True})
    return MS.solve_multi(rs, 3, cache=False, progress=False, tail_eps=EPS)


def test_three_players_are_the_multi_solvers_last_turns(three_over):
    """Seat 0 reached the target; seats 1 and 2 play their last turns: every seat's chance is the
    three-player solver's tables (F3a for the seat that reached it, F3b for the next)."""
    t = three_over
    u = t.unit
    fr = FinalRound(t.ruleset, 3, tail_eps=EPS)
    df = int(t.mp[M.MP_DF])
    for a, b, c, r in [(900, 600, 700, 300), (800, 750, 0, 50), (1050, 700, 750, 600), (800, 500, 500, 0)]:
        on = [True, True, c > 0]
        ch = fr.chances([a, b, c], on, 0, r)
        dB, dC = min((a - b) // u, df), min((a - c) // u, df)
        rr = min(r // u, int(t.mp[M.MP_RB]))
        assert ch[0] == pytest.approx(float(t.F3a[1, int(on[2]), dB, dC, rr]), abs=1e-6)
        assert ch[1] == pytest.approx(float(t.F3b[1, int(on[2]), dB, dC, rr]), abs=1e-6)
        assert ch.sum() == pytest.approx(1.0, abs=1e-9)


def test_four_players_add_up_and_ties_share():
    fr = FinalRound(load_ruleset("zilch", {"target": 1000}), 4, tail_eps=EPS)
    ch = fr.chances([1000, 900, 900, 950], [True] * 4, 0)
    assert ch.sum() == pytest.approx(1.0, abs=1e-9)
    assert ch[1] < ch[2] < ch[3]  # the later a player plays, the more they know (and 3 is ahead)
    # at equal scores the later a player plays, the more they know: the better their chance
    ch = fr.chances([1000, 950, 950, 950], [True] * 4, 0)
    assert ch.sum() == pytest.approx(1.0, abs=1e-9) and ch[0] < ch[1] < ch[2] < ch[3]


def test_two_players_are_the_last_turn_table():
    fr = FinalRound(load_ruleset("zilch", {"target": 1000}), 2, tail_eps=EPS)
    w, t = M.last_share(fr.LV, fr.LW, 1, 0, 6, 0, int(fr.mp[M.MP_DF]))
    ch = fr.chances([1000, 700], [True, True], 0)
    assert ch.tolist() == pytest.approx([1 - w - t + t / 2, w + t / 2], abs=1e-12)


@pytest.mark.parametrize("over, players, says", [
    ({"end": "finish_round"}, 4, "others_one_turn"),
    ({"variants.pyramiding": True}, 3, "pyramiding"),
    ({}, 1, "2 players or more"),
])
def test_rules_it_does_not_solve_are_named(over, players, says):
    with pytest.raises(UnsupportedRulesError, match=says):
        FinalRound(load_ruleset("zilch", over), players)


# ------------------------------------------------------------------ source 000 (docs/rules.md)

def test_the_race_from_a_position_is_the_three_player_game():
    """race_chances solves the race over the states a position can reach: at three players every seat's
    chance is the three-player solver's (its table stores float32)."""
    rs = load_ruleset("zilch", {"target": 800})
    t = MS.solve_multi(rs, 3, cache=False, progress=False, tail_eps=EPS)
    fr = FinalRound(rs, 3, tail_eps=EPS)
    for scores in ([600, 700, 750], [500, 650, 550], [750, 750, 700]):
        assert fr.race_chances(scores, 0) == pytest.approx(t.start_values(scores), abs=1e-7)
    # seat 1 to move: its chances are the start values of the game read from seat 1
    got = fr.race_chances([600, 700, 750], 1)
    assert got[[1, 2, 0]] == pytest.approx(t.start_values([700, 750, 600]), abs=1e-7)


@pytest.fixture(scope="module")
def seed_ending():
    """The four-player ending of source 000: #4 (seat 3) at 3,700 has rolled 1,300; #1 2,500, #2 4,900,
    #3 4,950."""
    return FinalRound("zilch", 4)


#: docs/rules.md's figures: every seat's chance (#1, #2, #3, #4) when #4 banks at 5,000.
BANK = (0.0042, 0.3568, 0.6283, 0.0107)


def test_the_four_player_ending_when_4_banks(seed_ending):
    ch = seed_ending.chances([2500, 4900, 4950, 5000], [True] * 4, 3, 1300)
    assert tuple(round(float(x), 4) for x in ch) == BANK
    assert ch.sum() == pytest.approx(1.0, abs=1e-9)


def test_the_documented_ending_is_what_the_code_gives(seed_ending):
    """docs/results/seed-000.json (written by bench/seed_games.py, whose race after #4's zilch takes
    minutes) holds the figures docs/rules.md gives: the bank and the rolls are recomputed here from
    that race's chances, and every figure of the doc's table is the file's."""
    data = json.loads((ROOT / "docs" / "results" / "seed-000.json").read_text())
    end = data["ending"]
    scores, on = [2500, 4900, 4950, 3700], [True] * 4
    assert seed_ending.chances([2500, 4900, 4950, 5000], on, 3, 1300).tolist() == pytest.approx(end["bank"], abs=1e-12)
    for dice in (1, 6):
        r = seed_ending.turn_choice(scores, on, 3, 1300, dice, zilch=end["race_after_zilch"])
        assert r["roll"].tolist() == pytest.approx(end["roll"][str(dice)]["chances"], abs=1e-12)
        assert r["zilch"] == pytest.approx(end["roll"][str(dice)]["zilch"], abs=1e-12)
    text = (ROOT / "docs" / "rules.md").read_text()
    rows = [end["bank"], end["race_after_zilch"]] + [end["roll"][str(d)]["chances"] for d in range(1, 7)]
    for row in rows:
        assert " | ".join(f"{100 * v:.2f}%" for v in row) in text
    fred = data["fred"]
    assert f"{fred['roll']:.2f}" in text and fred["bank"] == 1100.0
