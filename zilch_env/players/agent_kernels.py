"""The agents' kernels: the built-in movers decide in compiled code, for many games at once — greedy
(:class:`zilch_env.GreedyMover`), random (:class:`zilch_env.RandomMover`, from per-seat SplitMix64
decision streams) and the turn-value tables of :class:`zilch_env.players.kernel_agents.TurnValueTable`
(``optimal-turn``); and the loops that play whole games between them (the benchmark's random games,
tournaments, the VecEnv's opponents). The engine's kernels (:mod:`zilch_env.engine.kernels`) step the
games; these only decide."""

from __future__ import annotations

import numpy as np

from zilch_env.jit import INLINE, njit

from zilch_env.engine.kernels import (_advance, _apply, _bank_need, _bank_need_of, _may_bank, _may_challenge_seat, _new_game)
from zilch_env.engine.keeps import (_best_keep, _row_keeps, _keep_next)
from zilch_env.engine.layout import (A_CHALLENGE, A_FRESH, A_NO_CHALLENGE, A_PIGGYBACK, CHALLENGE, CURRENT, DECISIONS, DICE_WRITTEN, DICE_READ, KEEP, DICE_LEFT, OFFER_DICE, OFFER_TOTAL, ON_BOARD, OVER, PENDING, PERMANENT, PHASE, PIGGYBACK, ROLL, R_DICE, R_FORCED_HOT_DICE, R_DICE_SOURCE, R_PLAYERS, R_KEEP_TABLE, RULES_ROW, ZILCH_STREAK, TURN_TOTAL, T_KEEP_MASK, T_KEEP_DICE, T_KEEP_POINTS)
from zilch_env.engine.layout import MARGIN
from zilch_env.engine.splitmix import _below


@njit(cache=True, _nrt=False)
def play_opponents(st, seats, kinds, thresholds, min_dice, rng, vals, vbeyond, vint, vsel, rps, dbuf, keys,
                   code_roll, tabs):
    """Play the other seats of every game until its agent (seat ``seats[b]``) is to decide, the game
    is over, or the seat to move is played from Python (kind 2). ``kinds[b, k]`` (0 random, 1 greedy,
    2 outside, 3 turn values: table ``thresholds[b, k]`` of ``vals`` ...) plays the seat ``k`` places
    after the agent's; random decisions come from stream ``rng[b * S + seat]`` (``S`` streams per
    game). Returns the number of games waiting for an outside move."""
    S = rng.shape[0] // st.shape[0]
    waiting = 0
    for b in range(st.shape[0]):
        seat = seats[b]
        rid = st[b, RULES_ROW]
        rp = rps[rid]
        tab = tabs[rps[rid, R_KEEP_TABLE]]
        n = rp[R_PLAYERS]
        while st[b, PHASE] <= KEEP and st[b, CURRENT] != seat:
            p = st[b, CURRENT]
            k = (p - seat + n) % n
            kind = kinds[b, k]
            if kind == 2:
                waiting += 1
                break
            a = _agent_action(st, b, rp, tab, kind, rng, b * S + p, thresholds[b, k], min_dice[b, k], vals, vbeyond,
                              vint, vsel)
            _apply(st, b, a, rp, dbuf, keys, code_roll, tab)
    return waiting


@njit(cache=True, inline=INLINE, _nrt=False)
def _greedy_action(st, b, rp, tab, threshold, min_dice):
    """zilch_env.GreedyMover.act: no challenge, no piggyback; keep the most points (ties: more dice,
    then the lower mask); bank when allowed and the turn total reaches ``threshold`` or fewer than
    ``min_dice`` dice would be left to roll (not counting hot dice)."""
    ph = st[b, PHASE]
    if ph == CHALLENGE:
        return A_NO_CHALLENGE
    if ph == PIGGYBACK:
        return A_FRESH
    mask, pts, kept = _best_keep(st, b, rp, tab, st[b, ROLL])
    a = mask * 2
    total = st[b, TURN_TOTAL] + pts
    left = st[b, DICE_LEFT] - kept
    need, no_bank_n = _bank_need(st, b, rp)
    if _may_bank(pts, kept, need, no_bank_n) and (
        total >= threshold or (left > 0 and left < min_dice)
    ):
        return a + 1
    return a


@njit(cache=True, inline=INLINE, _nrt=False)
def _random_action(st, b, rp, rng, stream, tab):
    """A legal action drawn uniformly (zilch_env.RandomMover) from decision stream ``stream``, counting
    the legal actions in ascending order."""
    ph = st[b, PHASE]
    if ph == PIGGYBACK:
        return A_FRESH if _below(rng, stream, 2) == 0 else A_PIGGYBACK
    if ph == CHALLENGE:
        count = 1
        for a in range(A_CHALLENGE, A_CHALLENGE + rp[R_PLAYERS] - 1):
            if _may_challenge_seat(st, b, rp, a):
                count += 1
        j = _below(rng, stream, count)
        if j == 0:
            return A_NO_CHALLENGE
        for a in range(A_CHALLENGE, A_CHALLENGE + rp[R_PLAYERS] - 1):
            if _may_challenge_seat(st, b, rp, a):
                j -= 1
                if j == 0:
                    return a
        return -1  # unreachable: j < count
    r = st[b, ROLL]
    need, no_bank_n = _bank_need(st, b, rp)
    nk = _row_keeps(st, b, rp, tab, r)
    if nk > 0:  # the table's keeps (the common case), read directly
        count = 0
        for k in range(nk):
            count += 1
            if _may_bank(tab[r, T_KEEP_POINTS + k], tab[r, T_KEEP_DICE + k], need, no_bank_n):
                count += 1
        j = _below(rng, stream, count)
        for k in range(nk):
            a = tab[r, T_KEEP_MASK + k] * 2
            if j == 0:
                return a
            j -= 1
            if _may_bank(tab[r, T_KEEP_POINTS + k], tab[r, T_KEEP_DICE + k], need, no_bank_n):
                if j == 0:
                    return a + 1
                j -= 1
        return -1  # unreachable: j < count
    count = 0
    c = 0
    while True:
        c, mask, pts, kn, _ = _keep_next(st, b, rp, tab, r, c)
        if c < 0:
            break
        count += 1
        if _may_bank(pts, kn, need, no_bank_n):
            count += 1
    j = _below(rng, stream, count)
    c = 0
    while True:
        c, mask, pts, kn, _ = _keep_next(st, b, rp, tab, r, c)
        if c < 0:
            break
        a = mask * 2
        if j == 0:
            return a
        j -= 1
        if _may_bank(pts, kn, need, no_bank_n):
            if j == 0:
                return a + 1
            j -= 1
    return -1  # unreachable: j < count


# Columns of ``vint``, the integer parameters of each policy of the turn-value tables
V_N = 0  # totals at risk stored: 0 .. N-1 units
V_TOP = 1  # the highest permanent level stored (levels above fold onto it)
V_THR = 2  # the least turn total that may bank (the entry threshold or the minimum bank)
V_UNIT = 3  # points per unit of the totals at risk
V_STRAIGHT = 4  # points of a permanent straight (0: straights are not permanent)
V_SIZE = 5


@njit(cache=True, inline=INLINE, _nrt=False)
def _value_action(st, b, rp, tab, t, vals, vbeyond, vint, vsel):
    """The choice of highest value under turn-value table ``t`` (zilch_env.engine.batched.TurnValueTable;
    agents.solver.turn.TurnPolicy.decide and best_action, statement for statement): the table's policy
    ``q`` for the mover's board status and zilch streak; each keep valued by rolling on,
    ``extra + vals[q, j, dice, i]`` at ``j`` permanent straights (folded onto the top level, their
    points above it in ``extra``) and ``i`` units at risk (``vbeyond[q, j]`` from ``N`` units on),
    and, where banking is allowed, by banking the new turn total. The best value wins; ties go to
    banking, then to more points, then to the lower mask. At turn start (agents.solver.optimal_turn.OptimalTurnAgent):
    never a challenge; piggyback when rolling the offer's dice from its total is worth more than a
    fresh turn."""
    ph = st[b, PHASE]
    if ph == CHALLENGE:
        return A_NO_CHALLENGE
    p = st[b, CURRENT]
    on = 1 if st[b, ON_BOARD + p] != 0 else 0
    streak = st[b, ZILCH_STREAK + p]
    if streak > vsel.shape[2] - 1:
        streak = vsel.shape[2] - 1
    q = vsel[t, on, streak]
    size = vint[q, V_N]
    top = vint[q, V_TOP]
    thr = vint[q, V_THR]
    unit = vint[q, V_UNIT]
    s = vint[q, V_STRAIGHT]
    dice = rp[R_DICE]
    if ph == PIGGYBACK:  # TurnPolicy.roll_value of the offer against a fresh turn's
        i = st[b, OFFER_TOTAL] // unit
        take = vals[q, 0, st[b, OFFER_DICE], i] if i < size else vbeyond[q, 0]
        fresh = vals[q, 0, dice, 0] if size > 0 else vbeyond[q, 0]
        return A_PIGGYBACK if take > fresh else A_FRESH
    r = st[b, ROLL]
    total = st[b, TURN_TOTAL]
    perm = st[b, PERMANENT]
    n = st[b, DICE_LEFT]
    need, no_bank_n = _bank_need_of(thr, total, n, rp[R_FORCED_HOT_DICE] != 0)
    best_a = -1
    best_v = 0.0
    best_bank = False
    best_pts = 0
    best_mask = 0
    c = 0
    while True:
        c, mask, pts, kn, straight = _keep_next(st, b, rp, tab, r, c)
        if c < 0:
            break
        t2 = total + pts
        p2 = perm
        if s > 0 and straight:
            p2 += pts
        j = 0
        extra = 0
        if p2 != 0:
            j = p2 // s
            if j > top:
                extra = (j - top) * s
                j = top
        i = (t2 - p2) // unit
        left = n - kn
        nn = left if left > 0 else dice
        v = extra + (vals[q, j, nn, i] if i < size else vbeyond[q, j])
        # the roll choice, then the bank choice (sort key: -value, not bank, -points, mask)
        if best_a < 0 or v > best_v or (v == best_v and not best_bank and (
                pts > best_pts or (pts == best_pts and mask < best_mask))):
            best_a, best_v, best_bank, best_pts, best_mask = mask * 2, v, False, pts, mask
        if _may_bank(pts, kn, need, no_bank_n):
            v = float(t2)
            if best_a < 0 or v > best_v or (v == best_v and (not best_bank or pts > best_pts or (
                    pts == best_pts and mask < best_mask))):
                best_a, best_v, best_bank, best_pts, best_mask = mask * 2 + 1, v, True, pts, mask
    return best_a


@njit(cache=True, inline=INLINE, _nrt=False)
def _agent_action(st, b, rp, tab, kind, rng, stream, threshold, min_dice, vals, vbeyond, vint, vsel):
    """The move of a built-in agent of ``kind`` (0 random from decision stream ``stream``, 1 greedy at
    ``threshold`` and ``min_dice``, 3 the turn-value table ``threshold``) in game ``b``."""
    if kind == 0:
        return _random_action(st, b, rp, rng, stream, tab)
    if kind == 1:
        return _greedy_action(st, b, rp, tab, threshold, min_dice)
    return _value_action(st, b, rp, tab, threshold, vals, vbeyond, vint, vsel)


@njit(cache=True, _nrt=False)
def agent_actions(st, out, kinds, thresholds, min_dice, rng, vals, vbeyond, vint, vsel, rps, tabs):
    """The built-in agents' actions for the player to move in every game waiting for a decision:
    per game ``kinds[b]`` 0 random (decision stream ``rng[b]``), 1 greedy with ``thresholds[b]``
    and ``min_dice[b]``, or 3 turn values (table ``thresholds[b]``). ``out[b]`` is -1 for games not
    waiting for a decision."""
    for b in range(st.shape[0]):
        if st[b, PHASE] > KEEP:
            out[b] = -1
            continue
        rid = st[b, RULES_ROW]
        rp = rps[rid]
        tab = tabs[rps[rid, R_KEEP_TABLE]]
        out[b] = _agent_action(st, b, rp, tab, kinds[b], rng, b, thresholds[b], min_dice[b], vals, vbeyond, vint, vsel)


_BYTES = np.uint64(0x0101010101010101)  # times a word of 0/1 bytes: their sum in the top byte
_S56 = np.uint64(56)
_FF = np.uint64(0xFF)


@njit(cache=True, _nrt=False)
def random_actions_from_masks(st, words, out, rng):
    """:func:`_random_action` read from the games' legal masks, what ``BatchedGames.legal_masks``
    wrote for this state, seen as 8-byte words (``words[b]`` = ``masks[b].view(np.uint64)``, one 0/1
    byte per action, the lowest action in a word's lowest byte): the same draw from decision stream
    ``rng[b]`` over the legal actions in ascending order, without deciding the roll's keeps again.
    ``out[b]`` is -1 for games not waiting for a decision (or whose masks are all False)."""
    for b in range(st.shape[0]):
        out[b] = -1
        if st[b, PHASE] > KEEP:
            continue
        count = 0
        for k in range(words.shape[1]):
            count += np.int64((words[b, k] * _BYTES) >> _S56)
        if count == 0:
            continue
        j = _below(rng, b, count)
        for k in range(words.shape[1]):
            w = words[b, k]
            n = np.int64((w * _BYTES) >> _S56)
            if j >= n:
                j -= n
                continue
            for i in range(8):
                if (w >> np.uint64(8 * i)) & _FF:
                    if j == 0:
                        out[b] = 8 * k + i
                        break
                    j -= 1
            break


@njit(cache=True, _nrt=False)
def play_random(st, sweeps, rng, rps, dbuf, keys, code_roll, tabs, firsts):
    """The benchmark loop: ``sweeps`` times over the batch, one uniformly random legal decision in
    each game; a game that is over starts again (first seat ``firsts[b]``, its dice stream going on).
    Stops early, after a sweep, when a game is short of dice codes. Returns (sweeps done, decisions,
    games finished)."""
    decisions = 0
    finished = 0
    for t in range(sweeps):
        low = False
        for b in range(st.shape[0]):
            ph = st[b, PHASE]
            rid = st[b, RULES_ROW]
            rp = rps[rid]
            tab = tabs[rps[rid, R_KEEP_TABLE]]
            if ph == OVER:
                finished += 1
                _new_game(st, b, firsts[b], rp)
                _advance(st, b, rp, dbuf, keys, code_roll, tab)
            elif ph == PENDING:
                _advance(st, b, rp, dbuf, keys, code_roll, tab)
            else:
                a = _random_action(st, b, rp, rng, b, tab)
                _apply(st, b, a, rp, dbuf, keys, code_roll, tab)
                decisions += 1
            if rp[R_DICE_SOURCE] == 0 and st[b, DICE_WRITTEN] - st[b, DICE_READ] < MARGIN:
                low = True
        if low:
            return t + 1, decisions, finished
    return sweeps, decisions, finished


@njit(cache=True, _nrt=False)
def play_agents(st, seat_agent, kinds, thresholds, min_dice, rng, vals, vbeyond, vint, vsel, max_decisions, rps,
                dbuf, keys, code_roll, tabs):
    """Play every game towards its end with built-in agents: ``seat_agent[b, q]`` is the agent (an
    index into ``kinds``/``thresholds``/``min_dice``; kind 3 plays turn-value table ``thresholds[a]``)
    at seat ``q`` of game ``b``, whose random decisions come from stream ``rng[b * S + q]`` (``S``
    streams per game). A game stops when it is over, waits for
    dice, or its seat to move is played from Python (kind 2). Returns (the row of a game that
    reached ``max_decisions`` decisions or -1, the number of games waiting for an outside move)."""
    S = rng.shape[0] // st.shape[0]
    waiting = 0
    for b in range(st.shape[0]):
        rid = st[b, RULES_ROW]
        rp = rps[rid]
        tab = tabs[rps[rid, R_KEEP_TABLE]]
        while st[b, PHASE] <= KEEP:
            if st[b, DECISIONS] >= max_decisions:
                return b, waiting
            p = st[b, CURRENT]
            ag = seat_agent[b, p]
            kind = kinds[ag]
            if kind == 2:
                waiting += 1
                break
            a = _agent_action(st, b, rp, tab, kind, rng, b * S + p, thresholds[ag], min_dice[ag], vals, vbeyond, vint,
                              vsel)
            _apply(st, b, a, rp, dbuf, keys, code_roll, tab)
    return -1, waiting


