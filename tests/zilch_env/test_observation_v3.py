"""Observation layout 3: ``keep_lead``, ``keep_ahead`` and ``keep_target`` per keep mask, appended
after layout 2.

The fields must equal a direct computation from ``state.keeps()`` and the scores (every variant,
pyramiding included), stay in bounds, be zero outside the keep phase, describe the player to move
whatever the observing seat, and leave the first 279 values meaning what layout 2 meant. The batched
engine's encoder is checked against ``observe`` in tests/zilch_env/test_batched.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from zilch_env import GameState, Phase, observe
from zilch_env.observation import LAYOUT, OBS_HIGH, OBS_LOW, OBS_SIZE, OBS_SIZES, OBS_VERSION, POINTS_HIGH, field_values

from .test_observation_v2 import RULESETS, random_states


def expected(state: GameState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three fields as the layout defines them, straight from the engine's keeps."""
    lead = np.zeros(64, dtype=np.float32)
    ahead = np.zeros(64, dtype=np.float32)
    target = np.zeros(64, dtype=np.float32)
    if state.phase == Phase.KEEP:
        rs, cur = state.ruleset, state.current
        best = max([s for q, s in enumerate(state.scores) if q != cur], default=0)
        for k in state.keeps():
            banked = state.scores[cur] + state.turn_total + k.points
            lead[k.mask] = min(max((banked - best) / rs.target, -POINTS_HIGH), POINTS_HIGH)
            ahead[k.mask] = banked > best
            target[k.mask] = banked >= rs.target
    return lead, ahead, target


def test_sizes_and_version():
    assert OBS_VERSION == 3 and OBS_SIZES == {1: 151, 2: 279, 3: 471} and OBS_SIZE == 471
    at = {f.name: f.index for f in LAYOUT}
    assert at["keep_lead"] == slice(279, 343) and at["keep_ahead"] == slice(343, 407)
    assert at["keep_target"] == slice(407, 471)
    assert OBS_LOW[279:343].min() == -POINTS_HIGH and OBS_HIGH[279:343].max() == POINTS_HIGH
    assert OBS_LOW[343:].min() == 0 and OBS_HIGH[343:].max() == 1
    assert [f.name for f in LAYOUT[-5:]] == ["keep_points", "keep_dice", "keep_lead", "keep_ahead", "keep_target"]


@pytest.mark.parametrize("name,overrides", RULESETS,
                         ids=["+".join([n] + [k.split(".")[-1] for k in o]) for n, o in RULESETS])
def test_fields_equal_the_direct_computation(name, overrides):
    """Over every state of random 3-player games, from every seat: the fields equal the direct
    computation (the same for every observing seat), stay in bounds, are zero outside the keep
    phase, and both flags take both values."""
    keep_states = 0
    seen = {"ahead": set(), "target": set()}
    for state in random_states(name, overrides, games=6, seed=1):
        want = expected(state)
        for seat in range(state.num_players):
            obs = observe(state, seat)
            v = field_values(obs)
            for got, w in zip((v["keep_lead"], v["keep_ahead"], v["keep_target"]), want):
                assert np.array_equal(got, w)
            assert np.all(obs >= OBS_LOW) and np.all(obs <= OBS_HIGH)
        if state.phase != Phase.KEEP:
            assert not any(w.any() for w in want)
            continue
        keep_states += 1
        legal = np.flatnonzero(field_values(observe(state, 0))["keep_dice"])
        seen["ahead"].update(want[1][legal].tolist())
        seen["target"].update(want[2][legal].tolist())
    assert keep_states > 50
    assert seen["ahead"] == {0.0, 1.0}
    assert seen["target"] == {0.0, 1.0} or name.startswith("zilch")  # random zilch games rarely get there


def test_a_last_turn_reads_win_or_lose_per_keep():
    """The decision that motivated the layout: in a last turn at 9,500 against 10,000, a roll of
    1 3 4 4 4 after 50 points. Keeping 1 + 444 (550 in all) and banking wins (lead +50); keeping the 1
    alone (150) does not (lead -350)."""
    from zilch_env import ScriptedDice, keep_action, load_ruleset

    rs = load_ruleset("farkle")  # target 10,000, free keeps
    game = GameState(rs, 2, dice=ScriptedDice([[5, 2, 3, 6, 6, 2], [1, 3, 4, 4, 4]]), first=1)
    game.on_board[:] = [True, True]
    game.apply(keep_action(next(k.mask for k in game.keeps() if k.dice == (5,)), bank=False))
    game.scores[:] = [10000, 9500]
    game.final_queue = [1]
    assert game.current == 1 and game.phase == Phase.KEEP and game.turn_total == 50
    assert game.roll == (1, 3, 4, 4, 4)
    v = field_values(observe(game, 1))
    keeps = {tuple(sorted(k.dice)): k.mask for k in game.keeps()}
    win, lose = keeps[(1, 4, 4, 4)], keeps[(1,)]
    assert v["keep_lead"][win] == pytest.approx(50 / 10000) and v["keep_ahead"][win] == 1.0
    assert v["keep_lead"][lose] == pytest.approx(-350 / 10000) and v["keep_ahead"][lose] == 0.0
    assert v["keep_target"][win] == 1.0 and v["keep_target"][lose] == 0.0
    # the other seat's view describes the same mover
    assert np.array_equal(field_values(observe(game, 0))["keep_lead"], v["keep_lead"])
