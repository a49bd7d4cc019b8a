"""The kernels' walk over the keeps of a roll under pyramiding (``zilch_env.engine.keeps._next_scoring``):
every mask that keeps each face's dice from its lowest sorted positions and scores with the dice
frozen in the pass (``zilch_env.rules.primitives.pass_keep``, the rule as the loader and the turn
solver read it), in ascending order, and no other (under the hot-dice bonus too); each is then
scored by ``pass_keep`` itself."""

from __future__ import annotations

import itertools

import numpy as np

from zilch_env import load_ruleset
from zilch_env.engine import layout as L
from zilch_env.engine.keeps import _next_scoring
from zilch_env.rules import primitives
from zilch_env.rules.compiled import ROLLS, compile as compile_rules


def canonical(roll, m):
    """The definition: for each face, the kept dice are the lowest positions of its block."""
    for face in set(roll):
        first, count = roll.index(face), roll.count(face)
        block = (m >> first) & ((1 << count) - 1)
        if block & (block + 1):  # not a run of low bits
            return False
    return True


def frozen_states(rp):
    """Rows of a state with dice frozen in the pass: none, and every one- or two-face freeze of up
    to three dice, with the points those dice scored alone (a freeze the rules let happen)."""
    yield np.zeros((1, L.WIDTH), dtype=np.int64)
    for faces in itertools.chain(itertools.combinations(range(6), 1), itertools.combinations(range(6), 2)):
        for counts in itertools.product(range(1, 4), repeat=len(faces)):
            st = np.zeros((1, L.WIDTH), dtype=np.int64)
            for f, k in zip(faces, counts):
                pts = int(rp[L.R_FACE_POINTS + f * 7 + k])
                if pts < 0:
                    break
                st[0, L.FROZEN + f], st[0, L.FROZEN_POINTS + f] = k, pts
            else:
                st[0, L.FROZEN_DICE] = sum(counts)
                yield st


def test_the_walk_gives_every_scoring_canonical_mask_in_order():
    masks = [[m for m in range(1, 1 << len(roll)) if canonical(list(roll), m)] for roll in ROLLS]
    for name, over in (("zilch15k", {}), ("farkle", {"scoring.hot_dice_bonus": 250})):
        rules = compile_rules(load_ruleset(name, {"variants.pyramiding": True, **over}))
        tab, rp = rules.table, rules.params(2)
        walked = 0
        for i, st in enumerate(frozen_states(rp)):
            for r in range(i % 5, len(ROLLS), 5):  # each freeze a fifth of the rolls, every roll often
                roll, want = ROLLS[r], []
                for m in masks[r]:
                    pts, _ = primitives.pass_keep(rp, L.R_FACE_POINTS, tab, r, L.T_FACE_COUNT, L.T_FACE_FIRST,
                                                  len(roll), st, 0, L.FROZEN, L.FROZEN_POINTS, m,
                                                  int(rp[L.R_HOT_DICE_BONUS]), None)
                    if pts is not None:
                        want.append(m)
                got, m = [], _next_scoring(st, 0, rp, tab, r, 0)
                while m > 0:
                    got.append(m)
                    m = _next_scoring(st, 0, rp, tab, r, m)
                assert got == want, (name, roll, st[0, L.FROZEN:L.FROZEN + 6])
                walked += len(got)
        assert walked > 10_000
