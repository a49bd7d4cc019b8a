"""The kernels' walk over a roll's canonical masks (``zilch_env.engine.keeps._next_canonical``), which
pyramiding's keeps are scored along: every mask that keeps each face's dice from its lowest sorted
positions, in ascending order, and no other."""

from __future__ import annotations

import math

from zilch_env import load_ruleset
from zilch_env.engine.keeps import _next_canonical
from zilch_env.rules.compiled import ROLLS, compile as compile_rules


def canonical(roll, m):
    """The definition: for each face, the kept dice are the lowest positions of its block."""
    for face in set(roll):
        first, count = roll.index(face), roll.count(face)
        block = (m >> first) & ((1 << count) - 1)
        if block & (block + 1):  # not a run of low bits
            return False
    return True


def test_the_walk_gives_every_canonical_mask_in_order():
    tab = compile_rules(load_ruleset("zonk")).table
    for r, roll in enumerate(ROLLS):
        want = [m for m in range(1, 1 << len(roll)) if canonical(list(roll), m)]
        got, m = [], _next_canonical(tab, r, 0)
        while m > 0:
            got.append(m)
            m = _next_canonical(tab, r, m)
        assert got == want, roll
        # one mask per choice of how many dice of each face, but keeping none at all
        assert len(want) == math.prod(roll.count(f) + 1 for f in set(roll)) - 1
