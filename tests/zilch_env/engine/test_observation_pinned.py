"""The observation's values, bit for bit, pinned by a digest: every observation (every seat) of
seeded games under the presets and variant rulesets, 1 to 4 players. The digests were computed by
the field-by-field Python encoder that ``zilch_env.observe`` replaced with the compiled kernel it
shares with the batched engine; any change to a value changes them (and must bump ``OBS_VERSION``).
They pin layout 3, the first ``OBS_SIZES[3]`` values of every later layout (a layout extends the one
before it); layout 4's ``rules_table`` is tested field by field in ``test_observation.py``."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from zilch_env import GameState, load_ruleset, observe
from zilch_env.engine.observation import OBS_SIZES, kernel_constants, state_row

#: (preset, overrides, players, (digest, observations))
CASES = [
    ("zonk", {}, 2, ("dff64ac62843e7d4", 496)),
    ("zilch", {}, 3, ("a2ca79becfb0ca3e", 552)),
    ("zilch15k", {}, 2, ("13930f341172e5a4", 680)),
    ("farkle", {}, 4, ("d70b4b9d343ef99e", 3216)),
    ("farkle-basic", {}, 1, ("3fa4f064c3e787e6", 341)),
    ("zonk", {"variants.pyramiding": True}, 2, ("754754bec8f02c26", 494)),
    ("farkle", {"variants.piggyback": True, "variants.challenge": True, "variants.overcoming": True}, 3,
     ("1a13043a83fb1718", 2010)),
    ("zilch", {"end": "finish_round", "tie": "tiebreak", "target": 1500}, 2, ("728e72522f262e0d", 98)),
    ("farkle", {"variants.six_dice_zilch_bonus": 500, "variants.zilch_penalty.count": 3,
                "variants.zilch_penalty.mode": "halve"}, 2, ("f51181877fa1c657", 742)),
    # (the bonus case's games follow the six-dice bonus choice of docs/rules.md; its digest is the
    # Python encoder's on the same games, computed before that encoder was replaced)
]


def digest(name: str, overrides: dict, players: int, games: int = 4) -> tuple[str, int]:
    """sha256 of every observation of ``games`` seeded games of mixed random and greedy-ish play."""
    rs = load_ruleset(name, overrides)
    rng = np.random.default_rng(12345)
    h = hashlib.sha256()
    count = 0
    for g in range(games):
        s = GameState(rs, players, seed=1000 + g, first=g % players)
        for _ in range(400):
            for seat in range(players):
                h.update(observe(s, seat)[:OBS_SIZES[3]].tobytes())
                count += 1
            if s.done:
                break
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))] if rng.random() < 0.5 else legal[-1])
    return h.hexdigest()[:16], count


@pytest.mark.parametrize("name, overrides, players, pinned", CASES)
def test_observations_are_pinned(name, overrides, players, pinned):
    assert digest(name, overrides, players) == pinned


def test_state_row_leaves_the_state_alone_and_constants_are_shared_by_clones():
    s = GameState("farkle", 3, seed=4)
    before = s.snapshot()
    want = observe(s, 1)
    row = state_row(s)
    assert row.dtype == np.int64 and row.ndim == 1
    c = kernel_constants(s.ruleset, 3)
    for _ in range(5):
        t = s.clone()
        assert kernel_constants(t.ruleset, 3) is c  # a clone's copied ruleset finds the same entry
        assert np.array_equal(observe(t, 1), want)
    assert s.snapshot() == before


def test_a_bad_seat_is_named():
    with pytest.raises(ValueError, match="seat 2"):
        observe(GameState("zonk", 2, seed=0), 2)


class _Rebuilt:
    """A stand-in state that is not a GameState: ``observe`` rebuilds its row with ``state_row``."""

    def __init__(self, state):
        self._s = state

    def __getattr__(self, name):
        return getattr(self._s, name)


def test_the_games_own_row_and_the_rebuilt_row_give_the_same_observation():
    """``observe`` reads a GameState's own row; :func:`state_row` rebuilds one from its fields. Every
    observation, every seat, of games under every preset and every variant, 1 to 4 players: equal."""
    from tests.conftest import CONFIGS

    rng = np.random.default_rng(7)
    checked = 0
    for name, overrides in CONFIGS.values():
        rs = load_ruleset(name, overrides)
        for players in (1, 2, 3, 4):
            s = GameState(rs, players, seed=players, first=players - 1)
            for _ in range(150):
                for seat in range(players):
                    own = observe(s, seat)
                    assert np.array_equal(own, observe(_Rebuilt(s), seat)), (name, overrides, players, seat, s.actions)
                    checked += 1
                if s.done:
                    break
                legal = s.legal_actions()
                s.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 3000
