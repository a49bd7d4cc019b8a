"""Values the batched engine's API and replay() refuse (a negative seed, float actions, digit strings,
2**70, 10**12 games, an unknown record format): each a ValueError / RecordError naming the value and
what is allowed, never a silent truncation, an OverflowError or a MemoryError."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from zilch_env import GameState, RecordError, replay
from zilch_env.engine.batched import BatchedGames
from zilch_env.engine.checks import INT64, whole_numbers


@pytest.fixture(scope="module")
def batch():
    return BatchedGames("zonk", 2, seed=1)


@pytest.mark.parametrize("seed", [-1, "5", 1.5, True])
def test_a_bad_seed_is_refused(seed):
    with pytest.raises(ValueError, match="a seed is a whole number 0 or more"):
        BatchedGames("zonk", 2, seed=seed)


def test_a_large_seed_is_a_seed():
    assert BatchedGames("zonk", 1, seed=2**70).seed == 2**70


def test_a_batch_beyond_memory_is_refused_with_the_figure():
    with pytest.raises(ValueError, match=r"num_games = 1,000,000,000,000: needs about [\d.,]+ TB of memory"):
        BatchedGames("zonk", 10**12)


@pytest.mark.parametrize("actions, what", [([0.7, 1.2], "floats"), (["1", "2"], "strings"),
                                           ([True, False], "booleans"), ([2**70, 1], "out of range"),
                                           ([1, "1"], "strings")])
def test_actions_must_be_whole_numbers(batch, actions, what):
    before = batch._st.copy()
    with pytest.raises(ValueError, match=f"actions = .*{what}"):
        batch.step(actions)
    assert (batch._st == before).all()  # nothing changed


def test_an_illegal_whole_number_action_is_still_flagged_not_refused(batch):
    assert batch.step([-1, 10**6]).tolist() == [True, True]


def test_rows_keys_and_firsts_are_checked(batch):
    with pytest.raises(ValueError, match=r"rows = \[0.5\]: floats"):
        batch.step_rows([0.5], [1])
    with pytest.raises(ValueError, match=r"actions = \[1.5\]: floats"):
        batch.step_rows([0], [1.5])
    with pytest.raises(ValueError, match=r"actions = .*out of range"):
        batch.step_rows([0], [2**70])
    with pytest.raises(ValueError, match="rows = .*: 2 is out of range; rows are whole numbers from 0 to 1"):
        batch.reset(rows=[2])
    with pytest.raises(ValueError, match="rows = .*out of range"):
        batch.reset(rows=[2**70])
    with pytest.raises(ValueError, match="first = 0.5: floats"):
        batch.reset(first=0.5)
    with pytest.raises(ValueError, match=r"dice_keys = \[.*\]: .* out of range; dice_keys are whole numbers from 0"):
        BatchedGames("zonk", 1, dice_keys=[2**70])
    with pytest.raises(ValueError, match="dice_keys = .*-1 is out of range"):
        BatchedGames("zonk", 1, dice_keys=[-1])
    assert BatchedGames("zonk", 1, dice_keys=[2**64 - 1]).num_games == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=3), st.booleans()),
                max_size=4))
def test_whole_numbers_accepts_exactly_ints_in_range(values):
    ok = all(isinstance(v, int) and not isinstance(v, bool) and INT64[0] <= v <= INT64[1] for v in values)
    try:
        out = whole_numbers("actions", values, *INT64)
    except ValueError as e:
        assert not ok and "actions = " in str(e)
    else:
        assert ok and out.tolist() == list(values) and out.dtype == np.int64


def test_replay_refuses_an_unknown_format_tag():
    g = GameState("zonk", 2, seed=3)
    g.apply(g.legal_actions()[0])
    rec = g.to_record()
    assert replay(rec).scores == g.scores
    with pytest.raises(RecordError, match="format 'zilch-rl/game-record/99' is not one this version reads"):
        replay({**rec, "format": "zilch-rl/game-record/99"})
    with pytest.raises(RecordError, match="format 7 is not one"):
        replay({**rec, "format": 7})
