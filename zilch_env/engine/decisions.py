"""The decisions of a game, listed, and the single-game view's kernels.

:func:`legal_list` lists one game's legal actions and :func:`keep_list` the keeps of its roll, both
ascending, from the keep helpers of :mod:`zilch_env.engine.kernels`; the batch's legal masks
(:func:`zilch_env.engine.batch_kernels.legal_masks`) and :class:`zilch_env.GameState` both read them.

The ``one_*`` kernels are what :class:`zilch_env.GameState` calls: the turn flow of
:mod:`zilch_env.engine.kernels` on a state of one row, stopping before every roll so that the game's
own dice source (any object with ``roll(n)``) supplies the dice, or, for :class:`~zilch_env.RandomDice`,
:func:`one_step` reads the dice codes of its current block itself. Each returns what the view needs
to know without reading the row: whether a turn ended, whether a roll scored the six-dice bonus.
"""

from __future__ import annotations

from zilch_env.jit import INLINE, njit
from zilch_env.engine.kernels import (_bank_need, _may_bank, _may_challenge_seat, _move, _new_game, _place_roll)
from zilch_env.engine.keeps import (_best_keep, _keep_next, _row_keeps)
from zilch_env.engine.layout import (A_CHALLENGE, A_FRESH, A_NO_CHALLENGE, A_PIGGYBACK, CHALLENGE, KEEP, DICE_LEFT,
                                     PENDING, PHASE, PIGGYBACK, ROLL, R_PLAYERS, T_KEEP_MASK, T_KEEP_DICE, T_KEEP_POINTS)

#: Room for every action of one game (:data:`zilch_env.engine.actions.NUM_ACTIONS`).
ACTION_ROOM = 136
#: Room for every keep of one roll, four numbers each (mask, points, dice, straight).
KEEP_ROOM = 64


@njit(cache=True, inline=INLINE, _nrt=False)
def legal_list(st, b, rp, tab, out):
    """Game ``b``'s legal actions, ascending, into ``out``; returns how many (0 when no decision is due)."""
    ph = st[b, PHASE]
    if ph == CHALLENGE:
        out[0] = A_NO_CHALLENGE
        c = 1
        for a in range(A_CHALLENGE, A_CHALLENGE + rp[R_PLAYERS] - 1):
            if _may_challenge_seat(st, b, rp, a):
                out[c] = a
                c += 1
        return c
    if ph == PIGGYBACK:
        out[0] = A_FRESH
        out[1] = A_PIGGYBACK
        return 2
    if ph != KEEP:
        return 0
    r = st[b, ROLL]
    need, no_bank_n = _bank_need(st, b, rp)
    c = 0
    nk = _row_keeps(st, b, rp, tab, r)
    if nk > 0:  # the table's keeps, read directly (the common case)
        for k in range(nk):
            a = tab[r, T_KEEP_MASK + k] * 2
            out[c] = a
            c += 1
            if _may_bank(tab[r, T_KEEP_POINTS + k], tab[r, T_KEEP_DICE + k], need, no_bank_n):
                out[c] = a + 1
                c += 1
        return c
    cur = 0
    while True:
        cur, mask, pts, kn, _ = _keep_next(st, b, rp, tab, r, cur)
        if cur < 0:
            return c
        out[c] = mask * 2
        c += 1
        if _may_bank(pts, kn, need, no_bank_n):
            out[c] = mask * 2 + 1
            c += 1


@njit(cache=True, inline=INLINE, _nrt=False)
def keep_list(st, b, rp, tab, out):
    """The keeps of game ``b``'s roll, canonical masks ascending, into ``out`` (one row each: mask,
    points, dice, scored as a straight); returns how many (0 outside a keep decision)."""
    if st[b, PHASE] != KEEP:
        return 0
    r = st[b, ROLL]
    c = 0
    cur = 0
    while True:
        cur, mask, pts, kn, straight = _keep_next(st, b, rp, tab, r, cur)
        if cur < 0:
            return c
        out[c, 0] = mask
        out[c, 1] = pts
        out[c, 2] = kn
        out[c, 3] = 1 if straight else 0
        c += 1


@njit(cache=True, _nrt=False)
def one_new(st, first, rp):
    """A new game in the one row of ``st``, up to its first decision or its first roll (PENDING)."""
    _new_game(st, 0, first, rp)


@njit(cache=True, _nrt=False)
def one_legal(st, rp, tab, out):
    """:func:`legal_list` of the one game."""
    return legal_list(st, 0, rp, tab, out)


@njit(cache=True, _nrt=False)
def one_keeps(st, rp, tab, out):
    """:func:`keep_list` of the one game."""
    return keep_list(st, 0, rp, tab, out)


@njit(cache=True, _nrt=False)
def one_best_keep(st, rp, tab):
    """The one game's best keep (:func:`zilch_env.engine.keeps._best_keep`): (mask, points, dice)."""
    return _best_keep(st, 0, rp, tab, st[0, ROLL])


@njit(cache=True, _nrt=False)
def one_move(st, rp, tab, action):
    """A legal ``action`` of the one game, up to the next roll: 1 when it ended the turn (a bank)."""
    return _move(st, 0, action, rp, tab)


@njit(cache=True, _nrt=False)
def one_roll(st, rp, tab, r):
    """Roll id ``r`` is the one game's next roll: 0 it scores, 2 it scored the six-dice bonus, 1 it
    ended the turn."""
    return _place_roll(st, 0, rp, tab, r)


@njit(cache=True, _nrt=False)
def one_step(st, rp, tab, action, codes, pos, code_roll):
    """The one game's move ``action`` (none when negative), then its next roll from the dice codes
    ``codes[pos:]`` if one is due. It stops after a move that ends a turn, so that the view records
    the turn before the next one rolls, after one roll (each roll either waits for a decision or ends
    the turn), and when the codes run out (the view draws more).
    Returns (the next code's position, the roll id made or -1, what :func:`_place_roll` said of it,
    1 when the move ended the turn)."""
    if action >= 0 and _move(st, 0, action, rp, tab):
        return pos, -1, 0, 1
    if st[0, PHASE] != PENDING or pos >= codes.shape[0]:
        return pos, -1, 0, 0
    r = code_roll[st[0, DICE_LEFT], codes[pos]]
    return pos + 1, r, _place_roll(st, 0, rp, tab, r), 0
