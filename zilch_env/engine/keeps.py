"""The keeps of a roll in the engine's kernels: the keep table's row as it is, or, under pyramiding
with dice frozen in this pass, scored by :func:`zilch_env.rules.primitives.pass_keep` from the
compiled rules' points of one face's dice (as the loader's check and the turn solver score them);
the keep of nothing after a six-dice zilch bonus; and the frozen dice a keep adds. The turn flow (:mod:`zilch_env.engine.kernels`), the legal
actions (:mod:`zilch_env.engine.decisions`) and the agents' kernels read a roll's keeps here only."""

from __future__ import annotations

from zilch_env.jit import INLINE, njit
from zilch_env.rules import primitives
from zilch_env.engine.layout import (DICE_LEFT, FROZEN, FROZEN_POINTS, FROZEN_DICE, NOT_A_KEEP, R_DICE, R_SIX_DICE_BONUS, R_HOT_DICE_BONUS, R_PYRAMIDING, R_ALL_SCORING, R_FACE_POINTS, T_KEEP_COUNT, T_KEEP_MASK, T_KEEP_POINTS, T_KEEP_DICE, T_KEEP_STRAIGHT, T_KEEP_OF_MASK, T_ROLL_DICE, T_FACE_COUNT, T_FACE_FIRST, T_BEST_KEEP)


_popcount = primitives.nb_popcount
_pass_keep = primitives.nb_pass_keep
_pass_freeze = primitives.nb_pass_freeze
_face_gain = primitives.nb_face_gain


@njit(cache=True, inline=INLINE, _nrt=False)
def _pyramid_on(st, b, rp):
    """Whether the keeps of game ``b`` depend on frozen dice (pyramiding with dice kept this pass)."""
    return rp[R_PYRAMIDING] != 0 and st[b, FROZEN_DICE] > 0


@njit(cache=True, inline=INLINE, _nrt=False)
def _bonus_roll(st, b, rp, tab, r):
    """zilch_env.rules.scoring.pass_keeps's ``bonus``: roll ``r`` took all the dice under the six-dice zilch
    bonus and nothing in it scores, so its one keep is the keep of nothing (scoring.NO_KEEP: mask 0,
    no points, no dice), after which the player banks or rolls all the dice again."""
    return rp[R_SIX_DICE_BONUS] > 0 and st[b, DICE_LEFT] == rp[R_DICE] and tab[r, T_KEEP_COUNT] == 0


@njit(cache=True, inline=INLINE, _nrt=False)
def _pyramid_keep(st, b, rp, tab, r, m):
    """(points, dice) of keeping the dice at the sorted positions in ``m`` of roll ``r`` with game
    ``b``'s frozen dice (:func:`zilch_env.rules.primitives.pass_keep`); points NOT_A_KEEP when ``m``
    is not a canonical keep that scores."""
    return _pass_keep(rp, R_FACE_POINTS, tab, r, T_FACE_COUNT, T_FACE_FIRST, tab[r, T_ROLL_DICE], st, b, FROZEN,
                      FROZEN_POINTS, m, rp[R_HOT_DICE_BONUS], NOT_A_KEEP)


@njit(cache=True, inline=INLINE, _nrt=False)
def _next_scoring(st, b, rp, tab, r, m):
    """The canonical mask of roll ``r`` (each face's dice taken from its lowest sorted positions)
    after ``m`` (0 to start; -1 after the last) whose dice of each face score with game ``b``'s
    frozen dice of that face. In the sorted roll each face holds one block of positions, a lower face
    a lower block, so the canonical masks ascend as a count whose digits are the dice kept of each
    face, the lowest face the lowest digit; a face's dice score alone or join their frozen dice
    whatever the other faces keep (:func:`zilch_env.rules.primitives.pass_keep`), and keeping none of
    a face always does, so the count with the digits that do not score skipped gives exactly the
    masks :func:`_pyramid_keep` scores, ascending, without the roll's other canonical masks (of six
    dice up to 63, of which a few score)."""
    for f in range(6):
        c = tab[r, T_FACE_COUNT + f]
        if c == 0:
            continue
        first = tab[r, T_FACE_FIRST + f]
        block = ((1 << c) - 1) << first
        have = st[b, FROZEN + f]
        have_points = st[b, FROZEN_POINTS + f]
        for k in range(_popcount(m & block) + 1, c + 1):
            if _face_gain(rp, R_FACE_POINTS, f, k, have, have_points, NOT_A_KEEP) != NOT_A_KEEP:
                # this face keeps k dice; every lower face starts again from none
                return (m & ~((1 << first) - 1) & ~block) | (((1 << k) - 1) << first)
    return -1


@njit(cache=True, inline=INLINE, _nrt=False)
def _pyramid_best(st, b, rp, tab, r):
    """The pyramiding keep of the most points, ties to more dice, then the lower mask (the keep of
    ``all_scoring`` and of the greedy mover): (mask, points, dice), mask -1 for none."""
    bm = -1
    bp = 0
    bn = 0
    m = _next_scoring(st, b, rp, tab, r, 0)
    while m > 0:
        pts, n = _pyramid_keep(st, b, rp, tab, r, m)
        if pts > bp or (pts == bp and n > bn) or bm < 0:
            bm, bp, bn = m, pts, n
        m = _next_scoring(st, b, rp, tab, r, m)
    return bm, bp, bn


@njit(cache=True, inline=INLINE, _nrt=False)
def _keep_next(st, b, rp, tab, r, c):
    """The legal keeps of game ``b``'s roll ``r`` one by one, canonical masks ascending: from cursor
    ``c`` (0 to start) the next keep as (next cursor, mask, points, dice, scored as a straight); the
    next cursor is -1 when there are no more."""
    if _pyramid_on(st, b, rp):
        if rp[R_ALL_SCORING] != 0:  # the one keep: every scoring die, for the most points
            if c != 0:
                return -1, 0, 0, 0, False
            bm, bp, bn = _pyramid_best(st, b, rp, tab, r)
            if bm < 0:
                return -1, 0, 0, 0, False
            return 1 << tab[r, T_ROLL_DICE], bm, bp, bn, False  # a cursor past every mask
        m = _next_scoring(st, b, rp, tab, r, c)  # the cursor is the last mask given
        if m < 0:
            return -1, 0, 0, 0, False
        pts, n = _pyramid_keep(st, b, rp, tab, r, m)
        return m, m, pts, n, False
    if c >= tab[r, T_KEEP_COUNT]:
        if c == 0 and _bonus_roll(st, b, rp, tab, r):
            return 1, 0, 0, 0, False
        return -1, 0, 0, 0, False
    return c + 1, tab[r, T_KEEP_MASK + c], tab[r, T_KEEP_POINTS + c], tab[r, T_KEEP_DICE + c], tab[r, T_KEEP_STRAIGHT + c] != 0


@njit(cache=True, inline=INLINE, _nrt=False)
def _row_keeps(st, b, rp, tab, r):
    """How many keeps of roll ``r`` the table row holds as they are (columns T_KEEP_MASK, T_KEEP_POINTS, T_KEEP_DICE, in
    :func:`_keep_next`'s order): all of them unless pyramiding dice are frozen in this pass; 0 when the
    keeps come from :func:`_keep_next` alone (pyramiding, or the keep of nothing after a six-dice
    bonus). The hot loops read the row directly when it is above 0, and iterate otherwise."""
    if _pyramid_on(st, b, rp):
        return 0
    return tab[r, T_KEEP_COUNT]


@njit(cache=True, inline=INLINE, _nrt=False)
def _keep_of(st, b, rp, tab, r, m):
    """(points, dice, straight) of the legal keep with mask ``m`` of roll ``r``; points NOT_A_KEEP when
    ``m`` is not a legal keep."""
    if m == 0 and _bonus_roll(st, b, rp, tab, r):
        return 0, 0, False
    if m <= 0 or m >= 64:
        return NOT_A_KEEP, 0, False
    if _pyramid_on(st, b, rp):
        if rp[R_ALL_SCORING] != 0:
            bm, bp, bn = _pyramid_best(st, b, rp, tab, r)
            if bm != m:
                return NOT_A_KEEP, 0, False
            return bp, bn, False
        pts, n = _pyramid_keep(st, b, rp, tab, r, m)
        return pts, n, False
    k = tab[r, T_KEEP_OF_MASK + m]
    if k < 0:
        return NOT_A_KEEP, 0, False
    return tab[r, T_KEEP_POINTS + k], tab[r, T_KEEP_DICE + k], tab[r, T_KEEP_STRAIGHT + k] != 0


@njit(cache=True, inline=INLINE, _nrt=False)
def _scores(st, b, rp, tab, r):
    """Whether roll ``r`` has a legal keep in game ``b`` (else it is a zilch)."""
    if tab[r, T_KEEP_COUNT] > 0:
        return True
    return _pyramid_on(st, b, rp) and _keep_next(st, b, rp, tab, r, 0)[0] >= 0


@njit(cache=True, inline=INLINE, _nrt=False)
def _freeze(st, b, rp, tab, r, m):
    """The dice kept by mask ``m`` join game ``b``'s frozen dice of this pass
    (:func:`zilch_env.rules.primitives.pass_freeze`)."""
    st[b, FROZEN_DICE] += _pass_freeze(rp, R_FACE_POINTS, tab, r, T_FACE_COUNT, T_FACE_FIRST, st, b, FROZEN,
                                       FROZEN_POINTS, m)


@njit(cache=True, inline=INLINE, _nrt=False)
def _unfreeze(st, b):
    for f in range(6):
        st[b, FROZEN + f] = 0
        st[b, FROZEN_POINTS + f] = 0
    st[b, FROZEN_DICE] = 0


@njit(cache=True, inline=INLINE, _nrt=False)
def _best_keep(st, b, rp, tab, r):
    """The keep of the most points of game ``b``'s roll ``r``, ties to more dice, then the lower mask
    (``all_scoring``'s keep and the greedy mover's choice): (mask, points, dice); the keep of nothing
    after a six-dice zilch bonus."""
    if _pyramid_on(st, b, rp):
        return _pyramid_best(st, b, rp, tab, r)
    if _bonus_roll(st, b, rp, tab, r):
        return 0, 0, 0
    k = tab[r, T_BEST_KEEP]
    return tab[r, T_KEEP_MASK + k], tab[r, T_KEEP_POINTS + k], tab[r, T_KEEP_DICE + k]
