"""The turn flow, written once: numba kernels over the engine's state, plain scalar code, one game at
a time. :class:`zilch_env.engine.GameState` (one game, through :mod:`zilch_env.engine.decisions`) and
:class:`zilch_env.engine.batched.BatchedGames` (many games, in a loop over the batch) both play with
them: the start of a turn and its decisions (challenge, piggyback), the roll, the keep, the bank, the
end of the turn (record, streak, penalty, offer), the ending and the finish.

The state of game ``b`` is row ``st[b]`` of one int64 matrix; :mod:`zilch_env.engine.layout` names
its columns. Each game plays its own rules: column ``RULES_ROW`` picks its row of the stacked rule parameters
``rps`` (one int64 vector ``rp`` per ruleset and player count, the ``R_*`` constants), whose
``R_KEEP_TABLE`` picks its keep table in the stack ``tabs`` (one packed table ``tab`` per distinct table,
:func:`zilch_env.rules.compile`: rulesets that score alike share one, and the batch's tables stay
few enough to stay in the caches).
The batch kernels below take the stacks; every helper takes the one game's ``rp`` and ``tab``.
The rules of the end of a turn and of the game are :mod:`zilch_env.rules.primitives`, compiled.
"""

from __future__ import annotations

from zilch_env.jit import INLINE, njit

from zilch_env.rules import primitives
from zilch_env.engine.layout import (CURRENT, FIRST_SEAT, PHASE, ROLL, DICE_LEFT, TURN_TOTAL, PERMANENT, LAST_RESULT, FINAL_QUEUE_ON, FINAL_QUEUE_POS, FINAL_QUEUE_END, TIEBREAK_SEATS, TIEBREAK_ROUND, WINNER_SEATS, TURNS, DECISIONS, DICE_READ, DICE_WRITTEN, SCORE, ON_BOARD, ZILCH_STREAK, FINAL_QUEUE, SEAT_TURNS, SEAT_POINTS, SEAT_ZILCHES, TURN_ROLLS, FROZEN, FROZEN_POINTS, FROZEN_DICE, CHALLENGED, CHALLENGES_USED, CHALLENGE_BRACKETS, OFFER_ON, OFFER_TOTAL, OFFER_DICE, OFFER_FROZEN, OFFER_FROZEN_POINTS, PIGGYBACKED, RULES_ROW, END_SEAT, END_BANKED, END_TOTAL, END_SCORE, END_CHALLENGED, END_PIGGYBACKED, END_TAKEN, END_COST, END_PENALISED, END_PENALTY, WIDTH, CHALLENGE, PIGGYBACK, KEEP, OVER, PENDING, A_FRESH, A_PIGGYBACK, A_NO_CHALLENGE, A_CHALLENGE, NOT_A_KEEP, R_DICE, R_TARGET, R_ENTRY_THRESHOLD, R_MIN_BANK, R_FORCED_HOT_DICE, R_OVERCOMING, R_PERMANENT_STRAIGHT, R_SIX_DICE_BONUS, R_ZILCH_PENALTY_COUNT, R_ZILCH_PENALTY_POINTS, R_ZILCH_PENALTY_MODE, R_END, R_TIEBREAK, R_PLAYERS, R_MAX_TIEBREAK_ROUNDS, R_DICE_SOURCE, R_PYRAMIDING, R_CHALLENGE, R_PIGGYBACK, R_CHALLENGE_SPLIT, R_CHALLENGE_COST_FIRST, R_CHALLENGE_COST_SECOND, R_SCORE_FLOOR, R_KEEP_TABLE)
from zilch_env.engine.keeps import _freeze, _keep_of, _scores, _unfreeze
from zilch_env.engine.splitmix import (keyed_code, slot_index)


# --------------------------------------------------------------------------------------------
# The turn: start, roll, keep, end, finish


@njit(cache=True, inline=INLINE, _nrt=False)
def _may_challenge(st, b, rp, p):
    """Whether seat ``p`` may challenge at the start of its turn (source 001): two challenge turns at most, one below the split and one
    at or above it, the challenger and some opponent on the board."""
    if not _may_challenge_at(st[b, ON_BOARD + p] != 0, st[b, CHALLENGES_USED + p], st[b, CHALLENGE_BRACKETS + p],
                             st[b, SCORE + p], rp[R_CHALLENGE_SPLIT]):
        return False
    for q in range(rp[R_PLAYERS]):
        if q != p and st[b, ON_BOARD + q] != 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def _start_turn(st, b, rp):
    """The start of a turn: the turn's state reset; a challenge decision, a piggyback decision, or
    a roll of all dice is due."""
    st[b, PHASE] = PENDING
    st[b, ROLL] = -1
    st[b, DICE_LEFT] = rp[R_DICE]
    st[b, TURN_TOTAL] = 0
    st[b, PERMANENT] = 0
    st[b, TURN_ROLLS] = 0
    _unfreeze(st, b)
    st[b, CHALLENGED] = -1
    st[b, PIGGYBACKED] = 0
    p = st[b, CURRENT]
    if rp[R_CHALLENGE] != 0 and st[b, TIEBREAK_SEATS] == 0 and _may_challenge(st, b, rp, p):
        st[b, PHASE] = CHALLENGE
    elif rp[R_PIGGYBACK] != 0 and st[b, OFFER_ON] != 0:
        st[b, PHASE] = PIGGYBACK


# The end of a turn and of the game: zilch_env.rules.primitives, compiled (inlined where called).
_turn_record = primitives.nb_turn_record
_zilch_streak = primitives.nb_zilch_streak
_penalised = primitives.nb_penalised
_challenge_cost = primitives.nb_challenge_cost
_challenge_bracket = primitives.nb_challenge_bracket
_may_challenge_at = primitives.nb_may_challenge
_final_turns = primitives.nb_final_turns


@njit(cache=True, _nrt=False)
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
    if count > 1 and rp[R_TIEBREAK] != 0 and st[b, TIEBREAK_ROUND] < rp[R_MAX_TIEBREAK_ROUNDS]:
        st[b, TIEBREAK_ROUND] += 1
        st[b, TIEBREAK_SEATS] = tied
        first = st[b, FIRST_SEAT]
        length = 0
        for i in range(n):
            q = (first + i) % n
            if (tied >> q) & 1:
                st[b, FINAL_QUEUE + length] = q
                length += 1
        st[b, FINAL_QUEUE_ON] = 1
        st[b, FINAL_QUEUE_POS] = 0
        st[b, FINAL_QUEUE_END] = length
        st[b, CURRENT] = st[b, FINAL_QUEUE]
        st[b, OFFER_ON] = 0
        _start_turn(st, b, rp)
        return False
    st[b, WINNER_SEATS] = tied
    st[b, PHASE] = OVER
    st[b, ROLL] = -1
    return True


@njit(cache=True, _nrt=False)
def _end_turn(st, b, banked, rp):
    """The end of a turn: record it (the turn total when banked, else the permanent points;
    nothing below the entry threshold before the board), settle a challenge, count zilch streaks and
    apply the zilch penalty, put a bank on offer for piggyback, then the ending rules: who plays
    next, or the result. Returns True when the game is over."""
    p = st[b, CURRENT]
    n = rp[R_PLAYERS]
    total = st[b, TURN_TOTAL]
    was_on = st[b, ON_BOARD + p] != 0
    recorded, on_after = _turn_record(banked, total, st[b, PERMANENT], was_on, rp[R_ENTRY_THRESHOLD])
    st[b, ON_BOARD + p] = 1 if on_after else 0
    score = st[b, SCORE + p] + recorded
    q = st[b, CHALLENGED]
    st[b, END_SEAT] = p
    st[b, END_BANKED] = 1 if banked else 0
    st[b, END_TOTAL] = total
    st[b, END_CHALLENGED] = q
    st[b, END_PIGGYBACKED] = st[b, PIGGYBACKED]
    st[b, END_TAKEN] = 0
    st[b, END_COST] = 0
    st[b, END_PENALISED] = 0
    st[b, END_PENALTY] = 0
    if q >= 0:
        if banked:  # the banked turn total is also taken from the challenged, down to the floor
            left = st[b, SCORE + q] - total
            if left < rp[R_SCORE_FLOOR]:
                left = rp[R_SCORE_FLOOR]
            st[b, END_TAKEN] = st[b, SCORE + q] - left
            st[b, SCORE + q] = left
        else:  # a zilch costs the challenger, by its challenge's order
            cost = _challenge_cost(st[b, CHALLENGES_USED + p], rp[R_CHALLENGE_COST_FIRST], rp[R_CHALLENGE_COST_SECOND])
            st[b, END_COST] = cost
            score -= cost
    streak, penalty = _zilch_streak(banked, was_on, st[b, ZILCH_STREAK + p], rp[R_ZILCH_PENALTY_COUNT])
    st[b, ZILCH_STREAK + p] = streak
    if penalty:
        before = score if score > rp[R_SCORE_FLOOR] else rp[R_SCORE_FLOOR]
        score = _penalised(score, rp[R_ZILCH_PENALTY_MODE], rp[R_ZILCH_PENALTY_POINTS], rp[R_SCORE_FLOOR])
        st[b, END_PENALISED] = 1
        st[b, END_PENALTY] = before - (score if score > rp[R_SCORE_FLOOR] else rp[R_SCORE_FLOOR])
    if score < rp[R_SCORE_FLOOR]:
        score = rp[R_SCORE_FLOOR]
    st[b, END_SCORE] = score
    st[b, SCORE + p] = score
    st[b, LAST_RESULT] = recorded
    st[b, TURNS] += 1
    st[b, SEAT_TURNS + p] += 1
    st[b, SEAT_POINTS + p] += recorded
    if not banked:
        st[b, SEAT_ZILCHES + p] += 1
    # piggyback is offered on another player's bank only: a one-player game has no offer
    if banked and rp[R_PIGGYBACK] != 0 and n > 1:
        st[b, OFFER_ON] = 1
        st[b, OFFER_TOTAL] = total
        st[b, OFFER_DICE] = st[b, DICE_LEFT]
        for f in range(6):
            st[b, OFFER_FROZEN + f] = st[b, FROZEN + f]
            st[b, OFFER_FROZEN_POINTS + f] = st[b, FROZEN_POINTS + f]
    else:
        st[b, OFFER_ON] = 0
    st[b, ROLL] = -1
    all_seats = (1 << n) - 1
    # Ending (docs/rules.md, "Ending")
    if st[b, TIEBREAK_SEATS] != 0:
        st[b, FINAL_QUEUE_POS] += 1
        if st[b, FINAL_QUEUE_POS] == st[b, FINAL_QUEUE_END]:
            return _finish(st, b, st[b, TIEBREAK_SEATS], rp)
    elif st[b, FINAL_QUEUE_ON] == 0:
        if score >= rp[R_TARGET]:
            start, length = _final_turns(p, n, st[b, FIRST_SEAT], rp[R_END])
            for i in range(length):
                st[b, FINAL_QUEUE + i] = (start + i) % n
            st[b, FINAL_QUEUE_ON] = 1
            st[b, FINAL_QUEUE_POS] = 0
            st[b, FINAL_QUEUE_END] = length
            if length == 0:
                return _finish(st, b, all_seats, rp)
    else:
        st[b, FINAL_QUEUE_POS] += 1
        if st[b, FINAL_QUEUE_POS] == st[b, FINAL_QUEUE_END]:
            return _finish(st, b, all_seats, rp)
    if st[b, FINAL_QUEUE_ON] != 0:
        st[b, CURRENT] = st[b, FINAL_QUEUE + st[b, FINAL_QUEUE_POS]]
    else:
        st[b, CURRENT] = (p + 1) % n
    _start_turn(st, b, rp)
    return False


@njit(cache=True, inline=INLINE, _nrt=False)
def _advance(st, b, rp, dbuf, keys, code_roll, tab):
    """The rolls due, resumable: while a roll is due, draw the next dice code of this game and
    look its sorted roll up. A scoring roll waits for the player's keep; a zilch of all dice under
    ``six_dice_zilch_bonus`` adds the bonus and waits for the player's bank or roll (the keep of
    nothing, :func:`_bonus_roll`); any other zilch ends the turn and the
    next player rolls (or decides first, at a challenge or piggyback decision). When the game's dice
    codes run out the roll stays due (PENDING) until the caller refills them, so a refill never
    changes the dice a game sees. Keyed dice never run out."""
    _advance_impl(st, b, rp, dbuf, keys, code_roll, tab, 0)


@njit(cache=True, inline=INLINE, _nrt=False)
def _advance_impl(st, b, rp, dbuf, keys, code_roll, tab, hold):
    """:func:`_advance`; with ``hold`` 1 it stops where a new turn is due (PENDING before the turn's
    first roll, ``TURN_ROLLS == 0``), with ``hold`` 2 before any roll: :func:`advance_pending` resumes it."""
    ring_mask = dbuf.shape[1] - 1
    mode = rp[R_DICE_SOURCE]
    while st[b, PHASE] == PENDING:
        if hold == 2 or (hold == 1 and st[b, TURN_ROLLS] == 0):
            return
        pos = st[b, DICE_READ]
        if mode == 1:
            code = keyed_code(keys[b], pos)
        elif mode == 2:
            cur = st[b, CURRENT]
            code = keyed_code(keys[b], slot_index(cur, st[b, SEAT_TURNS + cur], st[b, TURN_ROLLS]))
        elif pos == st[b, DICE_WRITTEN]:
            return
        else:
            code = dbuf[b, pos & ring_mask]
        st[b, DICE_READ] = pos + 1
        _place_roll(st, b, rp, tab, code_roll[st[b, DICE_LEFT], code])


@njit(cache=True, inline=INLINE, _nrt=False)
def _place_roll(st, b, rp, tab, r):
    """A roll: roll ``r`` (of the game's dice left) is the turn's next roll. A scoring roll
    waits for the player's keep (KEEP); a zilch of all dice under ``six_dice_zilch_bonus`` adds the
    bonus and waits for the player's bank or roll (the keep of nothing, :func:`_bonus_roll`); any
    other zilch ends the turn (the next turn then starts: a decision, or PENDING for its first roll).
    Returns 0 for a scoring roll, 2 for a bonus, 1 when the roll ended the turn."""
    st[b, TURN_ROLLS] += 1
    if _scores(st, b, rp, tab, r):
        st[b, ROLL] = r
        st[b, PHASE] = KEEP
        return 0
    if st[b, DICE_LEFT] == rp[R_DICE] and rp[R_SIX_DICE_BONUS] > 0:  # the bonus joins the turn total; then bank or roll again
        st[b, TURN_TOTAL] += rp[R_SIX_DICE_BONUS]
        st[b, ROLL] = r
        st[b, PHASE] = KEEP
        return 2
    _end_turn(st, b, False, rp)
    return 1


_bank_bar = primitives.nb_bank_bar
_bank_need_of = primitives.nb_bank_need
_may_bank = primitives.nb_may_bank  # scalars only: helpers taking arrays cost reference counting per call


@njit(cache=True, inline=INLINE, _nrt=False)
def _bank_need(st, b, rp):
    """(need, no_bank_n) of game ``b``: zilch_env.rules.primitives.bank_need at the bar of
    primitives.bank_bar for the player to move."""
    p = st[b, CURRENT]
    bar = _bank_bar(st[b, ON_BOARD + p] != 0, rp[R_ENTRY_THRESHOLD], rp[R_MIN_BANK], rp[R_OVERCOMING] != 0, st[b, LAST_RESULT])
    return _bank_need_of(bar, st[b, TURN_TOTAL], st[b, DICE_LEFT], rp[R_FORCED_HOT_DICE] != 0)


@njit(cache=True, inline=INLINE, _nrt=False)
def _may_challenge_seat(st, b, rp, action):
    """Whether challenge action ``action`` (131 + k - 1: the opponent k seats on) names an opponent on
    the board."""
    n = rp[R_PLAYERS]
    k = action - A_CHALLENGE + 1
    return 1 <= k < n and st[b, ON_BOARD + (st[b, CURRENT] + k) % n] != 0


@njit(cache=True, inline=INLINE, _nrt=False)
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
    if pts == NOT_A_KEEP:
        return False
    if action & 1:
        need, no_bank_n = _bank_need(st, b, rp)
        return _may_bank(pts, kn, need, no_bank_n)
    return True


@njit(cache=True, inline=INLINE, _nrt=False)
def _apply(st, b, action, rp, dbuf, keys, code_roll, tab):
    """A legal action applied, then the rolls due: a turn-start decision, or a keep and bank or roll."""
    _apply_impl(st, b, action, rp, dbuf, keys, code_roll, tab, 0)


@njit(cache=True, inline=INLINE, _nrt=False)
def _apply_impl(st, b, action, rp, dbuf, keys, code_roll, tab, hold):
    """:func:`_apply`; with ``hold`` a turn that ends stops before the next turn's first roll."""
    _move(st, b, action, rp, tab)
    _advance_impl(st, b, rp, dbuf, keys, code_roll, tab, hold)


@njit(cache=True, inline=INLINE, _nrt=False)
def _move(st, b, action, rp, tab):
    """The move itself, up to the next roll (PENDING) or the next turn's start: a turn-start decision,
    or a keep and a bank or a roll. Returns 1 when the move ended the turn (a bank), else 0."""
    st[b, DECISIONS] += 1
    ph = st[b, PHASE]
    if ph == CHALLENGE:
        if action != A_NO_CHALLENGE:
            p = st[b, CURRENT]
            st[b, CHALLENGED] = (p + action - A_CHALLENGE + 1) % rp[R_PLAYERS]
            st[b, CHALLENGE_BRACKETS + p] |= _challenge_bracket(st[b, SCORE + p], rp[R_CHALLENGE_SPLIT])
            st[b, CHALLENGES_USED + p] += 1
        st[b, PHASE] = PIGGYBACK if (rp[R_PIGGYBACK] != 0 and st[b, OFFER_ON] != 0) else PENDING
    elif ph == PIGGYBACK:
        if action == A_PIGGYBACK:  # play on from the previous player's bank: its pass goes on
            st[b, TURN_TOTAL] = st[b, OFFER_TOTAL]
            st[b, DICE_LEFT] = st[b, OFFER_DICE]
            for f in range(6):
                st[b, FROZEN + f] = st[b, OFFER_FROZEN + f]
                st[b, FROZEN_POINTS + f] = st[b, OFFER_FROZEN_POINTS + f]
                st[b, FROZEN_DICE] += st[b, OFFER_FROZEN + f]
            st[b, PIGGYBACKED] = 1
        st[b, PHASE] = PENDING
    else:
        r = st[b, ROLL]
        m = action >> 1
        pts, kn, straight = _keep_of(st, b, rp, tab, r, m)
        st[b, TURN_TOTAL] += pts
        if straight and rp[R_PERMANENT_STRAIGHT] != 0:
            st[b, PERMANENT] += pts
        left = st[b, DICE_LEFT] - kn
        if left == 0:  # hot dice: the next roll takes all dice and starts a new pass
            left = rp[R_DICE]
            _unfreeze(st, b)
        elif rp[R_PYRAMIDING] != 0:
            _freeze(st, b, rp, tab, r, m)
        st[b, DICE_LEFT] = left
        if action & 1:
            _end_turn(st, b, True, rp)
            return 1
        st[b, PHASE] = PENDING
        st[b, ROLL] = -1
    return 0


@njit(cache=True, _nrt=False)
def _new_game(st, b, first, rp):
    """A fresh game in row ``b`` (up to its first decision or its first roll); the dice columns stay."""
    for c in range(DICE_READ):
        st[b, c] = 0
    for c in range(SCORE, RULES_ROW):
        st[b, c] = 0
    for c in range(RULES_ROW + 1, WIDTH):
        st[b, c] = 0
    on = 1 if rp[R_ENTRY_THRESHOLD] == 0 else 0
    for q in range(rp[R_PLAYERS]):
        st[b, ON_BOARD + q] = on
    st[b, FIRST_SEAT] = first
    st[b, CURRENT] = first
    _start_turn(st, b, rp)


# --------------------------------------------------------------------------------------------
# Batch kernels (called from Python)


@njit(cache=True, _nrt=False)
def new_games(st, rows, firsts, rps, dbuf, keys, code_roll, tabs):
    """Start new games in ``rows`` with first seats ``firsts`` and roll their first dice."""
    for i in range(rows.shape[0]):
        b = rows[i]
        rid = st[b, RULES_ROW]
        _new_game(st, b, firsts[i], rps[rid])
        _advance(st, b, rps[rid], dbuf, keys, code_roll, tabs[rps[rid, R_KEEP_TABLE]])


@njit(cache=True, _nrt=False)
def advance_pending(st, rps, dbuf, keys, code_roll, tabs):
    """Resume every game whose roll is due (after a refill of its dice codes)."""
    for b in range(st.shape[0]):
        if st[b, PHASE] == PENDING:
            rid = st[b, RULES_ROW]
            _advance(st, b, rps[rid], dbuf, keys, code_roll, tabs[rps[rid, R_KEEP_TABLE]])


@njit(cache=True, inline=INLINE, _nrt=False)
def _step_impl(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, hold):
    for b in range(st.shape[0]):
        illegal[b] = False
        if st[b, PHASE] > KEEP:
            continue
        a = actions[b]
        rid = st[b, RULES_ROW]
        rp = rps[rid]
        tab = tabs[rps[rid, R_KEEP_TABLE]]
        if not _legal(st, b, a, rp, tab):
            illegal[b] = True
            continue
        _apply_impl(st, b, a, rp, dbuf, keys, code_roll, tab, hold)


@njit(cache=True, _nrt=False)
def step(st, actions, illegal, rps, dbuf, keys, code_roll, tabs):
    """Apply ``actions[b]`` to every game waiting for a decision; an illegal action leaves its game
    unchanged and sets ``illegal[b]``. Games that are over (or waiting for dice) are left alone."""
    _step_impl(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, 0)


@njit(cache=True, _nrt=False)
def step_hold(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, hold):
    """:func:`step`, but stopping short of some rolls, so that the state there can be read, PENDING;
    :func:`advance_pending` then rolls on. ``hold`` 1: a game whose turn ends (a bank, or a zilch of
    the dice rolled on) stops before the next turn's first roll (``TURN_ROLLS == 0``); 2: every game stops
    before its next roll (right after the move: the turn's next roll, or the next turn's first)."""
    _step_impl(st, actions, illegal, rps, dbuf, keys, code_roll, tabs, hold)


@njit(cache=True, _nrt=False)
def step_rows(st, rows, actions, illegal, rps, dbuf, keys, code_roll, tabs):
    """:func:`step` for the games ``rows`` only: ``actions[i]`` goes to game ``rows[i]``."""
    for i in range(rows.shape[0]):
        b = rows[i]
        illegal[i] = False
        if st[b, PHASE] > KEEP:
            continue
        a = actions[i]
        rid = st[b, RULES_ROW]
        rp = rps[rid]
        tab = tabs[rps[rid, R_KEEP_TABLE]]
        if not _legal(st, b, a, rp, tab):
            illegal[i] = True
            continue
        _apply(st, b, a, rp, dbuf, keys, code_roll, tab)

