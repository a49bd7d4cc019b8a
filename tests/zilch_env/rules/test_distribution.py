"""The ruleset distribution ``any`` (zilch_env.rules.distribution): seeded, every draw loadable and
playable, the presets in the documented share, and the held-out rulesets outside it."""

from __future__ import annotations

import numpy as np
import pytest

from zilch_env import PRESETS, load_ruleset
from zilch_env.engine.batched import BatchedGames
from zilch_env.rules.distribution import P_PRESET, TARGETS, held_out_rules, sample_rules, variant_rules


def test_draws_are_seeded_loadable_and_playable():
    a, b = sample_rules(60, seed=5), sample_rules(60, seed=5)
    assert [d.ruleset for d in a] == [d.ruleset for d in b] and [d.players for d in a] == [d.players for d in b]
    assert [d.ruleset for d in sample_rules(10, seed=6)] != [d.ruleset for d in a[:10]]  # another seed, others
    for d in a:
        assert d.ruleset == load_ruleset(d.preset, d.overrides)  # the loader's own ruleset
        assert d.preset in PRESETS and 2 <= d.players <= 4 and 2000 <= d.ruleset.target <= 20000
    g = BatchedGames([d.ruleset for d in a], 120, [d.players for d in a], seed=1)
    decisions, finished = g.play_random(300)
    assert finished > 0


def test_the_share_of_presets_and_of_variants():
    draws = sample_rules(300, seed=1)
    exact = np.mean([not d.overrides for d in draws])
    assert abs(exact - P_PRESET) < 0.08  # 0.3 drawn exactly, sd about 0.026
    assert np.mean([d.players == 2 for d in draws]) > 0.5
    for v in ("pyramiding", "challenge", "overcoming", "piggyback"):
        assert any(getattr(d.ruleset.variants, v) for d in draws), v
    assert any(d.ruleset.end == "instant" for d in draws)
    assert any(d.ruleset.scoring.partial_straights for d in draws)


def test_held_out_rules_are_outside_the_grids():
    held = held_out_rules()
    assert {d.players for d in held} == {2, 3, 4}
    for d in held:
        plain = load_ruleset(d.preset)
        assert d.ruleset.target not in TARGETS or d.ruleset.scoring != plain.scoring, d.label
    assert len(variant_rules()) == 14 and all(d.players == 2 for d in variant_rules())


def test_a_bad_count_is_named():
    with pytest.raises(ValueError, match="count = 0: a whole number of rulesets, 1 or more"):
        sample_rules(0)
