"""Scoring: the worked cases of docs/rules.md ("Worked cases") and every combination rule of "Scoring a keep"."""

from __future__ import annotations

import itertools
from math import factorial

import pytest

from zilch_env import PRESETS, load_ruleset, score_dice, scoring_table
from zilch_env.rules.scoring import legal_keeps


def best(preset, roll):
    return scoring_table(load_ruleset(preset)).info(roll).best


@pytest.mark.parametrize(
    "roll, points, kept",
    [
        ([1, 1, 6, 3, 3, 3], 550, [1, 1, 3, 3, 3, 6]),
        ([1, 1, 1, 2, 2, 2], 1200, [1, 1, 1, 2, 2, 2]),
        ([1, 2, 3, 4, 4, 5], 100, [1]),  # 5 does not score in zilch: the kept die is the single 1
        ([3, 3, 3, 3, 3], 300, [3, 3, 3]),  # the two other 3s are rolled again
        ([2, 2, 2, 3, 3, 6], 250, [2, 2, 2, 6]),
        ([1, 1, 1, 6, 6, 5], 1100, [1, 1, 1, 6, 6]),
        ([1, 1, 1, 5, 5, 5], 1500, [1, 1, 1, 5, 5, 5]),
    ],
)
def test_seed000_worked_cases(roll, points, kept):
    b = best("zilch", roll)
    assert (b.points, list(b.dice)) == (points, kept)


def test_seed004_three_pairs_choice():
    rs = load_ruleset("zonk")
    keeps = {tuple(k.dice): k.points for k in legal_keeps(rs, [2, 2, 2, 2, 1, 1])}
    assert keeps[(2, 2, 2, 2)] + keeps[(1, 1)] == 600  # option 1: four 2s (400) + two 1s (200)
    assert keeps[(1, 1, 2, 2, 2, 2)] == 1500  # the best keep is three pairs
    assert best("zonk", [2, 2, 2, 2, 1, 1]).points == 1500


def test_zonk_table():
    rs = load_ruleset("zonk")
    assert [score_dice(rs, [1] * n) for n in (1, 3, 4, 5, 6)] == [100, 1000, 2000, 4000, 8000]
    assert [score_dice(rs, [5] * n) for n in (1, 3, 4, 5, 6)] == [50, 500, 1000, 2000, 4000]
    assert [score_dice(rs, [4] * n) for n in (3, 4, 5, 6)] == [400, 800, 1600, 3200]
    assert score_dice(rs, [1, 2, 3, 4, 5, 6]) == 2000
    assert score_dice(rs, [2, 2, 3, 3, 4, 4]) == 1500
    assert score_dice(rs, [2, 2, 2, 3, 3, 3]) == 1000
    assert score_dice(rs, [4, 4, 4, 6, 6, 6]) == 1000  # two triplets (1000) beats 400 + 600 = 1000 (equal)
    assert score_dice(rs, [5, 5, 5, 6, 6, 6]) == 1100  # two triples scored separately are worth more
    assert score_dice(rs, [2, 3]) is None and score_dice(rs, [2, 2]) is None


def test_farkle_and_kinds_rules():
    f = load_ruleset("farkle")
    assert [score_dice(f, [3] * n) for n in (3, 4, 5, 6)] == [300, 600, 1200, 2400]
    assert score_dice(f, [2, 2, 2, 2, 1, 1]) == 600  # four and a pair is not three pairs in farkle
    assert score_dice(f, [2, 2, 4, 4, 6, 6]) == 1000
    fb = load_ruleset("farkle-basic")
    assert score_dice(fb, [3, 3, 3, 3]) is None  # kinds none: triple + an unscoring die
    assert score_dice(fb, [3] * 6) == 600  # two triples
    assert score_dice(fb, [1, 2, 3, 4, 5, 6]) is None and score_dice(fb, [1, 5]) == 150
    k15 = load_ruleset("zilch15k")
    assert [score_dice(k15, [2] * n) for n in (4, 5, 6)] == [4000, 5000, 6000]
    assert score_dice(k15, [2, 2, 2, 2, 3, 3]) is None  # not three pairs: the pairs must be distinct
    assert score_dice(k15, [2, 2, 3, 3, 4, 4]) == 2000
    assert score_dice(k15, [2, 2, 2, 3, 3, 3]) == 3000
    mult = load_ruleset("zonk", {"scoring.kinds": "multiple", "scoring.kind_values": {4: 2, 5: 3, 6: 4}})
    assert [score_dice(mult, [4] * n) for n in (4, 5, 6)] == [800, 1200, 1600]


def test_cardgames_table():
    """cardgames.io Farkle (the ``cardgames`` preset): four, five, six of a kind are 1000 / 2000 /
    3000 whatever the face; three pairs 1500, four of a kind and a pair too; the straight 2500; two
    triplets are two triples."""
    rs = load_ruleset("cardgames")
    assert [score_dice(rs, [2] * n) for n in (3, 4, 5, 6)] == [200, 1000, 2000, 3000]
    assert [score_dice(rs, [1] * n) for n in (1, 2, 3, 4, 5, 6)] == [100, 200, 1000, 1100, 2000, 3000]
    assert score_dice(rs, [1, 2, 3, 4, 5, 6]) == 2500
    assert score_dice(rs, [2, 2, 4, 4, 6, 6]) == 1500
    assert score_dice(rs, [3, 3, 3, 3, 6, 6]) == 1500  # four of a kind and a pair: three pairs
    assert score_dice(rs, [1, 1, 1, 1, 5, 5]) == 1500  # beats 1100 + 100 (four 1s, two 5s)
    assert score_dice(rs, [2, 2, 2, 3, 3, 3]) == 500  # no two-triplets combination: 200 + 300
    assert score_dice(rs, [5, 5, 5, 5, 5, 1]) == 2100
    # four 1s: the triple and a single (1000 + 100) beat the flat four of a kind (1000)
    assert best("cardgames", [1, 1, 1, 1, 2, 3]).points == 1100


PARTIAL = {"scoring.partial_straights": {"12345": 500, "23456": 750}}


@pytest.mark.parametrize("roll, points, kept", [
    ([1, 2, 3, 4, 5, 2], 500, [1, 2, 3, 4, 5]),  # five dice in a run; the other 2 scores nothing alone
    ([1, 2, 3, 4, 5, 5], 550, [1, 2, 3, 4, 5, 5]),  # the sixth die joins as a single 5
    ([1, 2, 3, 4, 5, 1], 600, [1, 1, 2, 3, 4, 5]),  # ... or as a single 1
    ([2, 3, 4, 5, 6, 6], 750, [2, 3, 4, 5, 6]),
    ([1, 2, 3, 4, 5, 6], 2000, [1, 2, 3, 4, 5, 6]),  # the full straight beats 2-3-4-5-6 and the 1 (850)
    ([2, 3, 4, 5, 6], 750, [2, 3, 4, 5, 6]),  # a roll of five dice
    ([1, 1, 1, 2, 3, 4], 1000, [1, 1, 1]),  # no run of five faces
])
def test_partial_straights_worked_cases(roll, points, kept):
    """docs/rules.md, partial straights: five faces in a run in one roll, and a sixth die of a roll
    of six may score beside them as a single."""
    rs = load_ruleset("zonk", PARTIAL)
    b = scoring_table(rs).info(roll).best
    assert (b.points, list(b.dice)) == (points, kept)
    assert not b.straight or kept == [1, 2, 3, 4, 5, 6]  # a partial straight is not a straight
    assert score_dice(rs, [1, 2, 3, 4, 5, 3]) is None  # the 3 beside 1-2-3-4-5 does not score


def test_partial_straight_beside_the_straight_value():
    """With 1-2-3-4-5 worth more than the full straight, 1-2-3-4-5-6 keeps the better split."""
    rs = load_ruleset("zonk", {"scoring.partial_straights": {"23456": 2500}})
    assert score_dice(rs, [1, 2, 3, 4, 5, 6]) == 2600  # 2-3-4-5-6 (2500) and the single 1


def test_seed003_ones_in_separate_rolls():
    f = load_ruleset("farkle")
    assert score_dice(f, [1, 1]) + score_dice(f, [1, 5]) == 350  # never 1000


def test_straight_flag_only_for_straights():
    keeps = legal_keeps(load_ruleset("zilch"), [1, 2, 3, 4, 5, 6])
    flagged = [k for k in keeps if k.straight]
    assert len(flagged) == 1 and flagged[0].points == 1500 and flagged[0].n == 6


@pytest.mark.parametrize("name", PRESETS)
def test_table_is_complete_and_canonical(name):
    table = scoring_table(load_ruleset(name))
    assert len(table.rolls) == 923
    for roll, info in table.rolls.items():
        seen = set()
        for k in info.keeps:
            assert k.counts not in seen  # one canonical keep per multiset of faces
            seen.add(k.counts)
            kept = [roll[i] for i in range(len(roll)) if k.mask >> i & 1]
            assert sorted(kept) == list(k.dice)
            assert score_dice(table.scoring, kept) == k.points > 0


def test_zilch_probabilities_match_the_known_fractions():
    """P(no scoring die) with 1s and 5s scoring: 2/3, 4/9, 5/18, 17/108, 25/324, and for six dice
    5/162 without special combinations or 5/216 with three pairs and the straight."""
    from fractions import Fraction

    base = [Fraction(2, 3), Fraction(4, 9), Fraction(5, 18), Fraction(17, 108), Fraction(25, 324)]
    for name, six in (("farkle-basic", Fraction(5, 162)), ("farkle", Fraction(5, 216))):
        assert zilch_probabilities(name) == base + [six], name


def zilch_probabilities(name):
    from fractions import Fraction

    table = scoring_table(load_ruleset(name))
    out = []
    for n in range(1, 7):
        p = Fraction(0)
        for roll in itertools.combinations_with_replacement(range(1, 7), n):
            info = table.rolls[roll]
            if info.zilch:
                ways = factorial(n)
                for c in info.counts:
                    ways //= factorial(c)
                p += Fraction(ways, 6**n)
        out.append(p)
    return out
