"""The turn flow, written once: numba kernels over the engine's state, plain scalar code, one game at
a time. :class:`zilch_env.engine.GameState` (one game, through :mod:`zilch_env.engine.decisions`) and
:class:`zilch_env.engine.batched.BatchedGames` (many games, in a loop over the batch) both play with
them: the start of a turn and its decisions (challenge, piggyback), the roll, the keep, the bank, the
end of the turn (record, streak, penalty, offer), the ending and the finish.

The state of game ``b`` is row ``st[b]`` of one int64 matrix; :mod:`zilch_env.engine.layout` names
its columns. Each game plays its own rules: column ``RID`` picks its row of the stacked rule parameters
``rps`` (one int64 vector ``rp`` per ruleset and player count, the ``R_*`` constants), whose
``R_TAB`` picks its keep table in the stack ``tabs`` (one packed table ``tab`` per distinct table,
:func:`zilch_env.rules.compile`: rulesets that score alike share one, and the batch's tables stay
few enough to stay in the caches).
The batch kernels below take the stacks; every helper takes the one game's ``rp`` and ``tab``.
The rules of the end of a turn and of the game are :mod:`zilch_env.rules.primitives`, compiled.
"""

from __future__ import annotations

from numba import njit

from zilch_env._jit import INLINE

from zilch_env.rules import primitives
from zilch_env.engine.layout import (CUR, FIRST, PHASE, ROLL, LEFT, TOTAL, PERM, LAST, FQ_ON, FQ_POS, FQ_LEN, TB_MASK, TB_ROUND, WIN_MASK, TURNS, DECISIONS, DPOS, DFILL, SCORE, ONB, STREAK, FQ, P_TURNS, P_POINTS, P_ZILCH, RIT, FZ, FZP, FZN, CHAL, CH_USED, CH_BR, OF_ON, OF_TOTAL, OF_DICE, OF_FZ, OF_FZP, PIGGY, RID, END_SEAT, END_BANKED, END_TOTAL, END_SCORE, END_CHALLENGED, END_PIGGYBACKED, END_TAKEN, END_COST, END_PENALISED, END_PENALTY, WIDTH, CHALLENGE, PIGGYBACK, KEEP, OVER, PENDING, A_FRESH, A_PIGGYBACK, A_NO_CHALLENGE, A_CHALLENGE, NONE, R_DICE, R_TARGET, R_ENTRY, R_MIN_BANK, R_FORCED, R_OVERCOMING, R_PERM_STRAIGHT, R_BONUS, R_ZP_COUNT, R_ZP_POINTS, R_ZP_MODE, R_END, R_TIEBREAK, R_PLAYERS, R_MAX_TB, R_KEYED, R_PYR, R_CHALLENGE, R_PIGGYBACK, R_CH_SPLIT, R_CH_COST1, R_CH_COST2, R_FLOOR, R_TAB)
from zilch_env.engine.keeps import _freeze, _keep_of, _scores, _unfreeze
from zilch_env.engine.splitmix import (keyed_code, slot_index)


# --------------------------------------------------------------------------------------------
# The turn: start, roll, keep, end, finish


@njit(cache=True, inline=INLINE)
def _may_challenge(st, b, rp, p):
    """Whether seat ``p`` may challenge at the start of its turn (source 001): two challenge turns at most, one below the split and one
    at or above it, the challenger and some opponent on the board."""
    if st[b, ONB + p] == 0 or st[b, CH_USED + p] >= 2:
        return False
    bracket = 1 if st[b, SCORE + p] >= rp[R_CH_SPLIT] else 0
    if (st[b, CH_BR + p] >> bracket) & 1:
        return False
    for q in range(rp[R_PLAYERS]):
        if q != p and st[b, ONB + q] != 0:
            return True
    return False


@njit(cache=True)
def _start_turn(st, b, rp):
    """The start of a turn: the turn's state reset; a challenge decision, a piggyback decision, or
    a roll of all dice is due."""
    st[b, PHASE] = PENDING
    st[b, ROLL] = -1
    st[b, LEFT] = rp[R_DICE]
    st[b, TOTAL] = 0
    st[b, PERM] = 0
    st[b, RIT] = 0
    _unfreeze(st, b)
    st[b, CHAL] = -1
    st[b, PIGGY] = 0
    p = st[b, CUR]
    if rp[R_CHALLENGE] != 0 and st[b, TB_MASK] == 0 and _may_challenge(st, b, rp, p):
        st[b, PHASE] = CHALLENGE
    elif rp[R_PIGGYBACK] != 0 and st[b, OF_ON] != 0:
        st[b, PHASE] = PIGGYBACK


# The end of a turn and of the game: zilch_env.rules.primitives, compiled (inlined where called).
_turn_record = primitives.nb_turn_record
_zilch_streak = primitives.nb_zilch_streak
_penalised = primitives.nb_penalised
_challenge_cost = primitives.nb_challenge_cost
_final_turns = primitives.nb_final_turns


@njit(cache=True)
def _finish(st, b, contenders, rp):
    """The finish: the best score among ``contenders`` (a seat mask) wins; a tie plays
    tie-break turns (tied seats in playing order) under ``tie = "tiebreak"``, a bounded number of
    times, and is otherwise a draw. Returns True when the game is over."""
    n = rp[R_PLAYERS]
    best = -1
    for q in range(n):
        if (contenders >> q) & 1 and st[b, SCORE + q] > best:
            best = st[b, SCORE + q]
    tied = 0
    count = 0
    for q in range(n):
        if (contenders >> q) & 1 and st[b, SCORE + q] == best:
            tied |= 1 << q
            count += 1
    if count > 1 and rp[R_TIEBREAK] != 0 and st[b, TB_ROUND] < rp[R_MAX_TB]:
        st[b, TB_ROUND] += 1
        st[b, TB_MASK] = tied
        first = st[b, FIRST]
        length = 0
        for i in range(n):
            q = (first + i) % n
            if (tied >> q) & 1:
                st[b, FQ + length] = q
                length += 1
        st[b, FQ_ON] = 1
        st[b, FQ_POS] = 0
        st[b, FQ_LEN] = length
        st[b, CUR] = st[b, FQ]
        st[b, OF_ON] = 0
        _start_turn(st, b, rp)
        return False
    st[b, WIN_MASK] = tied
    st[b, PHASE] = OVER
    st[b, ROLL] = -1
    return True


@njit(cache=True)
def _end_turn(st, b, banked, rp):
    """The end of a turn: record it (the turn total when banked, else the permanent points;
    nothing below the entry threshold before the board), settle a challenge, count zilch streaks and
    apply the zilch penalty, put a bank on offer for piggyback, then the ending rules: who plays
    next, or the result. Returns True when the game is over."""
    p = st[b, CUR]
    n = rp[R_PLAYERS]
    total = st[b, TOTAL]
    was_on = st[b, ONB + p] != 0
    recorded, on_after = _turn_record(banked, total, st[b, PERM], was_on, rp[R_ENTRY])
    st[b, ONB + p] = 1 if on_after else 0
    score = st[b, SCORE + p] + recorded
    q = st[b, CHAL]
    st[b, END_SEAT] = p
    st[b, END_BANKED] = 1 if banked else 0
    st[b, END_TOTAL] = total
    st[b, END_CHALLENGED] = q
    st[b, END_PIGGYBACKED] = st[b, PIGGY]
    st[b, END_TAKEN] = 0
    st[b, END_COST] = 0
    st[b, END_PENALISED] = 0
    st[b, END_PENALTY] = 0
    if q >= 0:
        if banked:  # the banked turn total is also taken from the challenged, down to the floor
            left = st[b, SCORE + q] - total
            if left < rp[R_FLOOR]:
                left = rp[R_FLOOR]
            st[b, END_TAKEN] = st[b, SCORE + q] - left
            st[b, SCORE + q] = left
        else:  # a zilch costs the challenger, by its challenge's order
            cost = _challenge_cost(st[b, CH_USED + p], rp[R_CH_COST1], rp[R_CH_COST2])
            st[b, END_COST] = cost
            score -= cost
    streak, penalty = _zilch_streak(banked, was_on, st[b, STREAK + p], rp[R_ZP_COUNT])
    st[b, STREAK + p] = streak
    if penalty:
        before = score if score > rp[R_FLOOR] else rp[R_FLOOR]
        score = _penalised(score, rp[R_ZP_MODE], rp[R_ZP_POINTS], rp[R_FLOOR])
        st[b, END_PENALISED] = 1
        st[b, END_PENALTY] = before - (score if score > rp[R_FLOOR] else rp[R_FLOOR])
    if score < rp[R_FLOOR]:
        score = rp[R_FLOOR]
    st[b, END_SCORE] = score
    st[b, SCORE + p] = score
    st[b, LAST] = recorded
    st[b, TURNS] += 1
    st[b, P_TURNS + p] += 1
    st[b, P_POINTS + p] += recorded
    if not banked:
        st[b, P_ZILCH + p] += 1
    # piggyback is offered on another player's bank only: a one-player game has no offer
    if banked and rp[R_PIGGYBACK] != 0 and n > 1:
        st[b, OF_ON] = 1
        st[b, OF_TOTAL] = total
        st[b, OF_DICE] = st[b, LEFT]
        for f in range(6):
            st[b, OF_FZ + f] = st[b, FZ + f]
            st[b, OF_FZP + f] = st[b, FZP + f]
    else:
        st[b, OF_ON] = 0
    st[b, ROLL] = -1
    all_seats = (1 << n) - 1
    # Ending (docs/rules.md, "Ending")
    if st[b, TB_MASK] != 0:
        st[b, FQ_POS] += 1
        if st[b, FQ_POS] == st[b, FQ_LEN]:
            return _finish(st, b, st[b, TB_MASK], rp)
    elif st[b, FQ_ON] == 0:
        if score >= rp[R_TARGET]:
            start, length = _final_turns(p, n, st[b, FIRST], rp[R_END])
            for i in range(length):
                st[b, FQ + i] = (start + i) % n
            st[b, FQ_ON] = 1
            st[b, FQ_POS] = 0
            st[b, FQ_LEN] = length
            if length == 0:
                return _finish(st, b, all_seats, rp)
    else:
        st[b, FQ_POS] += 1
        if st[b, FQ_POS] == st[b, FQ_LEN]:
            return _finish(st, b, all_seats, rp)
    if st[b, FQ_ON] != 0:
        st[b, CUR] = st[b, FQ + st[b, FQ_POS]]
    else:
        st[b, CUR] = (p + 1) % n
    _start_turn(st, b, rp)
    return False


@njit(cache=True, inline=INLINE)
def _advance(st, b, rp, dbuf, keys, code_roll, tab):
    """The rolls due, resumable: while a roll is due, draw the next dice code of this game and
    look its sorted roll up. A scoring roll waits for the player's keep; a zilch of all dice under
    ``six_dice_zilch_bonus`` adds the bonus and waits for the player's bank or roll (the keep of
    nothing, :func:`_bonus_roll`); any other zilch ends the turn and the
    next player rolls (or decides first, at a challenge or piggyback decision). When the game's dice
    codes run out the roll stays due (PENDING) until the caller refills them, so a refill never
    changes the dice a game sees. Keyed dice never run out."""
    _advance_impl(st, b, rp, dbuf, keys, code_roll, tab, 0)


@njit(cache=True, inline=INLINE)
def _advance_impl(st, b, rp, dbuf, keys, code_roll, tab, hold):
    """:func:`_advance`; with ``hold`` 1 it stops where a new turn is due (PENDING before the turn's
    first roll, ``RIT == 0``), with ``hold`` 2 before any roll: :func:`advance_pending` resumes it."""
    ring_mask = dbuf.shape[1] - 1
    mode = rp[R_KEYED]
    while st[b, PHASE] == PENDING:
        if hold == 2 or (hold == 1 and st[b, RIT] == 0):
            return
        pos = st[b, DPOS]
        if mode == 1:
            code = keyed_code(keys[b], pos)
        elif mode == 2:
            cur = st[b, CUR]
            code = keyed_code(keys[b], slot_index(cur, st[b, P_TURNS + cur], st[b, RIT]))
        elif pos == st[b, DFILL]:
            return
        else:
            code = dbuf[b, pos & ring_mask]
        st[b, DPOS] = pos + 1
        _place_roll(st, b, rp, tab, code_roll[st[b, LEFT], code])


@njit(cache=True, inline=INLINE)
def _place_roll(st, b, rp, tab, r):
    """A roll: roll ``r`` (of the game's dice left) is the turn's next roll. A scoring roll
    waits for the player's keep (KEEP); a zilch of all dice under ``six_dice_zilch_bonus`` adds the
    bonus and waits for the player's bank or roll (the keep of nothing, :func:`_bonus_roll`); any
    other zilch ends the turn (the next turn then starts: a decision, or PENDING for its first roll).
    Returns 0 for a scoring roll, 2 for a bonus, 1 when the roll ended the turn."""
    st[b, RIT] += 1
    if _scores(st, b, rp, tab, r):
        st[b, ROLL] = r
        st[b, PHASE] = KEEP
        return 0
    if st[b, LEFT] == rp[R_DICE] and rp[R_BONUS] > 0:  # the bonus joins the turn total; then bank or roll again
        st[b, TOTAL] += rp[R_BONUS]
        st[b, ROLL] = r
        st[b, PHASE] = KEEP
        return 2
    _end_turn(st, b, False, rp)
    return 1


_bank_bar = primitives.nb_bank_bar
_bank_need_of = primitives.nb_bank_need
_may_bank = primitives.nb_may_bank  # scalars only: helpers taking arrays cost reference counting per call


@njit(cache=True, inline=INLINE)
def _bank_need(st, b, rp):
    """(need, no_bank_n) of game ``b``: zilch_env.rules.primitives.bank_need at the bar of
    primitives.bank_bar for the player to move."""
    p = st[b, CUR]
    bar = _bank_bar(st[b, ONB + p] != 0, rp[R_ENTRY], rp[R_MIN_BANK], rp[R_OVERCOMING] != 0, st[b, LAST])
    return _bank_need_of(bar, st[b, TOTAL], st[b, LEFT], rp[R_FORCED] != 0)


@njit(cache=True, inline=INLINE)
def _may_challenge_seat(st, b, rp, action):
    """Whether challenge action ``action`` (131 + k - 1: the opponent k seats on) names an opponent on
    the board."""
    n = rp[R_PLAYERS]
    k = action - A_CHALLENGE + 1
    return 1 <= k < n and st[b, ONB + (st[b, CUR] + k) % n] != 0


@njit(cache=True, inline=INLINE)
def _legal(st, b, action, rp, tab):
    """Whether ``action`` is legal for game ``b`` (as zilch_env.engine.decisions.legal_list lists them)."""
    ph = st[b, PHASE]
    if ph == CHALLENGE:
        return action == A_NO_CHALLENGE or _may_challenge_seat(st, b, rp, action)
    if ph == PIGGYBACK:
        return action == A_FRESH or action == A_PIGGYBACK
    if ph != KEEP or action < 0 or action >= 128:
        return False
    pts, kn, _ = _keep_of(st, b, rp, tab, st[b, ROLL], action >> 1)
    if pts == NONE:
        return False
    if action & 1:
        need, no_bank_n = _bank_need(st, b, rp)
        return _may_bank(pts, kn, need, no_bank_n)
    return True


@njit(cache=True, inline=INLINE)
def _apply(st, b, action, rp, dbuf, keys, code_roll, tab):
    """A legal action applied, then the rolls due: a turn-start decision, or a keep and bank or roll."""
    _apply_impl(st, b, action, rp, dbuf, keys, code_roll, tab, 0)


@njit(cache=True, inline=INLINE)
def _apply_impl(st, b, action, rp, dbuf, keys, code_roll, tab, hold):
    """:func:`_apply`; with ``hold`` a turn that ends stops before the next turn's first roll."""
    _move(st, b, action, rp, tab)
    _advance_impl(st, b, rp, dbuf, keys, code_roll, tab, hold)


@njit(cache=True, inline=INLINE)
def _move(st, b, action, rp, tab):
    """The move itself, up to the next roll (PENDING) or the next turn's start: a turn-start decision,
    or a keep and a bank or a roll. Returns 1 when the move ended the turn (a bank), else 0."""
    st[b, DECISIONS] += 1
    ph = st[b, PHASE]
    if ph == CHALLENGE:
        if action != A_NO_CHALLENGE:
            p = st[b, CUR]
            st[b, CHAL] = (p + action - A_CHALLENGE + 1) % rp[R_PLAYERS]
            st[b, CH_BR + p] |= 1 << (1 if st[b, SCORE + p] >= rp[R_CH_SPLIT] else 0)
            st[b, CH_USED + p] += 1
        st[b, PHASE] = PIGGYBACK if (rp[R_PIGGYBACK] != 0 and st[b, OF_ON] != 0) else PENDING
    elif ph == PIGGYBACK:
        if action == A_PIGGYBACK:  # play on from the previous player's bank: its pass goes on
            st[b, TOTAL] = st[b, OF_TOTAL]
            st[b, LEFT] = st[b, OF_DICE]
            for f in range(6):
                st[b, FZ + f] = st[b, OF_FZ + f]
                st[b, FZP + f] = st[b, OF_FZP + f]
                st[b, FZN] += st[b, OF_FZ + f]
            st[b, PIGGY] = 1
        st[b, PHASE] = PENDING
    else:
        r = st[b, ROLL]
        m = action >> 1
        pts, kn, straight = _keep_of(st, b, rp, tab, r, m)
        st[b, TOTAL] += pts
        if straight and rp[R_PERM_STRAIGHT] != 0:
            st[b, PERM] += pts
        left = st[b, LEFT] - kn
        if left == 0:  # hot dice: the next roll takes all dice and starts a new pass
            left = rp[R_DICE]
            _unfreeze(st, b)
        elif rp[R_PYR] != 0:
            _freeze(st, b, rp, tab, r, m)
        st[b, LEFT] = left
        if action & 1:
            _end_turn(st, b, True, rp)
            return 1
        st[b, PHASE] = PENDING
        st[b, ROLL] = -1
    return 0


@njit(cache=True)
def _new_game(st, b, first, rp):
    """A fresh game in row ``b`` (up to its first decision or its first roll); the dice columns stay."""
    for c in range(DPOS):
        st[b, c] = 0
    for c in range(SCORE, RID):
        st[b, c] = 0
    for c in range(RID + 1, WIDTH):
        st[b, c] = 0
    on = 1 if rp[R_ENTRY] == 0 else 0
    for q in range(rp[R_PLAYERS]):
        st[b, ONB + q] = on
    st[b, FIRST] = first
    st[b, CUR] = first
    _start_turn(st, b, rp)


# --------------------------------------------------------------------------------------------
# Batch kernels (called from Python)


@njit(cache=True)
def new_games(st, rows, firsts, rps, dbuf, keys, code_roll, tabs):
    """Start new games in ``rows`` with first seats ``firsts`` and roll their first dice."""
    for i in range(rows.shape[0]):
        b = rows[i]
        rid = st[b, RID]
        _new_game(st, b, firsts[i], rps[rid])
        _advance(st, b, rps[rid], dbuf, keys, code_roll, tabs[rps[rid, R_TAB]])


@njit(cache=True)
def advance_pending(st, rps, dbuf, keys, code_roll, tabs):
    """Resume every game whose roll is due (after a refill of its dice codes)."""
    for b in range(st.shape[0]):
        if st[b, PHASE] == PENDING:
            rid = st[b, RID]
            _advance(st, b, rps[rid], dbuf, keys, code_roll, tabs[rps[rid, R_TAB]])


@njit(cache=True, inline=INLINE)
def _step_impl(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, hold):
    for b in range(st.shape[0]):
        illegal[b] = False
        if st[b, PHASE] > KEEP:
            continue
        a = actions[b]
        rid = st[b, RID]
        rp = rps[rid]
        tab = tabs[rps[rid, R_TAB]]
        if not _legal(st, b, a, rp, tab):
            illegal[b] = True
            continue
        _apply_impl(st, b, a, rp, dbuf, keys, code_roll, tab, hold)


@njit(cache=True)
def step(st, actions, illegal, rps, dbuf, keys, code_roll, tabs):
    """Apply ``actions[b]`` to every game waiting for a decision; an illegal action leaves its game
    unchanged and sets ``illegal[b]``. Games that are over (or waiting for dice) are left alone."""
    _step_impl(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, 0)


@njit(cache=True)
def step_hold(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, hold):
    """:func:`step`, but stopping short of some rolls, so that the state there can be read, PENDING;
    :func:`advance_pending` then rolls on. ``hold`` 1: a game whose turn ends (a bank, or a zilch of
    the dice rolled on) stops before the next turn's first roll (``RIT == 0``); 2: every game stops
    before its next roll (right after the move: the turn's next roll, or the next turn's first)."""
    _step_impl(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, hold)


@njit(cache=True)
def step_rows(st, rows, actions, illegal, rps, dbuf, keys, code_roll, tabs):
    """:func:`step` for the games ``rows`` only: ``actions[i]`` goes to game ``rows[i]``."""
    for i in range(rows.shape[0]):
        b = rows[i]
        illegal[i] = False
        if st[b, PHASE] > KEEP:
            continue
        a = actions[i]
        rid = st[b, RID]
        rp = rps[rid]
        tab = tabs[rps[rid, R_TAB]]
        if not _legal(st, b, a, rp, tab):
            illegal[i] = True
            continue
        _apply(st, b, a, rp, dbuf, keys, code_roll, tab)

