"""zilch_env.rules.compile: one ruleset's tables, read by the batched engine and both solvers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from zilch_env import PRESETS, load_ruleset
from zilch_env.engine import layout as L
from zilch_env.rules.compiled import ROLLS, compile, roll_probability
from zilch_env.rules.scoring import scoring_table


@pytest.mark.parametrize("preset", PRESETS)
def test_compiled_rolls_keeps_and_chances(preset):
    rs = load_ruleset(preset)
    cr = compile(rs)
    assert compile(rs) is cr  # compiled once per ruleset
    for n in range(1, 7):
        ids = cr.rolls_of(n)
        assert all(len(ROLLS[r]) == n for r in ids)
        assert sum(cr.probability[r] for r in ids) == 1
        assert cr.zilch[n] == sum(cr.probability[r] for r in ids if not cr.keeps[r])
    st = scoring_table(rs)
    for r, roll in enumerate(ROLLS):
        info = st.rolls[roll]
        want = (info.best,) if rs.keep == "all_scoring" and info.best else info.keeps
        assert cr.keeps[r] == want and cr.best[r] == info.best
        row = cr.table[r]
        assert row[L.T_KEEP_COUNT] == len(want) and row[L.T_ROLL_DICE] == len(roll)
        assert [row[L.T_KEEP_MASK + k] for k in range(len(want))] == [k.mask for k in want]
        assert [row[L.T_FACE_COUNT + f] for f in range(6)] == [roll.count(f + 1) for f in range(6)]


def test_roll_probability_is_exact_multinomial():
    assert roll_probability((1, 2, 3, 4, 5, 6)) == Fraction(720, 6**6)
    assert roll_probability((5, 5)) == Fraction(1, 36)
    assert roll_probability((1, 1, 2)) == Fraction(3, 216)


def test_units_and_params():
    farkle = compile(load_ruleset("farkle"))
    assert farkle.unit == 50 and farkle.score_unit == 50
    odd = compile(load_ruleset("zonk", {"variants.zilch_penalty": {"count": 3, "points": 25, "mode": "subtract"}}))
    assert odd.unit == 50 and odd.score_unit == 25
    rp = farkle.params(3, keyed=1)
    assert rp[L.R_PLAYERS] == 3 and rp[L.R_DICE_SOURCE] == 1 and rp[L.R_ZILCH_PENALTY_COUNT] == 3
    # pyramiding's per-face scoring: three 2s are 200, two 2s score nothing, four 1s double the triple
    assert rp[L.R_FACE_POINTS + 1 * 7 + 3] == 200 and rp[L.R_FACE_POINTS + 1 * 7 + 2] == -1
    assert rp[L.R_FACE_POINTS + 0 * 7 + 4] == 2000
    assert not farkle.table.flags.writeable and np.array_equal(farkle.code_roll[6][:3], farkle.code_roll[6][:3])
