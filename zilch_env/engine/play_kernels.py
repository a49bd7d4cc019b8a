"""The batched engine's kernels that play whole decisions and games: the built-in agents' actions
(random, greedy, turn values), the legal masks, the VecEnv's opponents and outcomes, the benchmark and
tournament loops, and the observation. They stand on the rules kernels of
:mod:`zilch_env.engine.kernels` (the turn flow) and are imported from here."""

from __future__ import annotations

import numpy as np
from numba import njit

from zilch_env._jit import INLINE

from zilch_env.engine.kernels import (_row_keeps, A_CHALLENGE, A_FRESH, A_NO_CHALLENGE, A_PIGGYBACK, CHAL, CHALLENGE, CH_BR, CH_USED, CUR, DECISIONS, DFILL, DPOS, FIRST, FQ, FQ_LEN, FQ_ON, FQ_POS, FZ, KEEP, LAST, LEFT, OF_DICE, OF_ON, OF_TOTAL, ONB, OVER, PENDING, PERM, PHASE, PIGGYBACK, P_TURNS, ROLL, R_CHALLENGE, R_CH_SPLIT, R_DICE, R_ENTRY, R_FORCED, R_KEYED, R_MIN_BANK, R_OVERCOMING, R_PLAYERS, R_PYR, R_TAB, R_TARGET, RID, SCORE, STREAK, TB_MASK, TB_ROUND, TOTAL, T_MASK, T_N, T_PTS, WIN_MASK, _advance, _apply, _bank_need, _bank_need_of, _bonus_roll, _game_reward, _keep_next, _may_bank, _may_challenge_seat, _new_game, _popcount, _pyramid_best, _pyramid_on)
from zilch_env.engine.layout import MARGIN, T_BEST
from zilch_env.engine.decisions import ACTION_ROOM, legal_list
from zilch_env.engine.splitmix import _below


@njit(cache=True)
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
        rid = st[b, RID]
        rp = rps[rid]
        tab = tabs[rps[rid, R_TAB]]
        n = rp[R_PLAYERS]
        while st[b, PHASE] <= KEEP and st[b, CUR] != seat:
            p = st[b, CUR]
            k = (p - seat + n) % n
            kind = kinds[b, k]
            if kind == 2:
                waiting += 1
                break
            if kind == 0:
                a = _random_action(st, b, rp, rng, b * S + p, tab)
            elif kind == 1:
                a = _greedy_action(st, b, rp, tab, thresholds[b, k], min_dice[b, k])
            else:
                a = _value_action(st, b, rp, tab, thresholds[b, k], vals, vbeyond, vint, vsel)
            _apply(st, b, a, rp, dbuf, keys, code_roll, tab)
    return waiting


@njit(cache=True)
def vec_outcome(st, seats, own, illegal, turns_limit, score_reward, illegal_reward, scale, rewards, flags,
                points, agent_turns):
    """What a VecEnv step gave each agent (zilch_env.envs.gym_env.ZilchEnv.step): ``points`` its score change
    (the "score" reward; ``own`` holds the score at its last observation and is updated), ``flags``
    bit 0 terminated (the game is over), bit 1 truncated (``turns_limit`` agent turns played, 0 for
    no limit), bit 2 an illegal action (the game unchanged); ``rewards``: the illegal-action reward,
    else the points under the score reward, else at the end of the game 1 for a sole win, 0 for a
    shared one, -1 otherwise; divided by ``scale``."""
    for b in range(st.shape[0]):
        p = seats[b]
        sc = st[b, SCORE + p]
        bad = illegal[b]
        pts = 0 if bad else sc - own[b]
        own[b] = sc
        points[b] = pts
        at = st[b, P_TURNS + p]
        agent_turns[b] = at
        term = (not bad) and st[b, PHASE] == OVER
        trunc = (not bad) and (not term) and turns_limit > 0 and at >= turns_limit
        f = 0
        if term:
            f |= 1
        if trunc:
            f |= 2
        if bad:
            f |= 4
        flags[b] = f
        if bad:
            r = illegal_reward
        elif score_reward:
            r = float(pts)
        elif term:
            w = st[b, WIN_MASK]
            r = _game_reward((w >> p) & 1 != 0, _popcount(w))
        else:
            r = 0.0
        rewards[b] = r / scale


@njit(cache=True)
def legal_masks(st, out, rps, tabs):
    """``out[b, a]``: action ``a`` is legal in game ``b`` (all False once over)."""
    out[:, :] = False
    legal = np.empty(ACTION_ROOM, dtype=np.int64)
    for b in range(st.shape[0]):
        if st[b, PHASE] > KEEP:
            continue
        rid = st[b, RID]
        for i in range(legal_list(st, b, rps[rid], tabs[rps[rid, R_TAB]], legal)):
            out[b, legal[i]] = True


@njit(cache=True, inline=INLINE)
def _greedy_action(st, b, rp, tab, threshold, min_dice):
    """zilch_env.GreedyMover.act: no challenge, no piggyback; keep the most points (ties: more dice,
    then the lower mask); bank when allowed and the turn total reaches ``threshold`` or fewer than
    ``min_dice`` dice would be left to roll (not counting hot dice)."""
    ph = st[b, PHASE]
    if ph == CHALLENGE:
        return A_NO_CHALLENGE
    if ph == PIGGYBACK:
        return A_FRESH
    r = st[b, ROLL]
    if _pyramid_on(st, b, rp):
        mask, pts, kept = _pyramid_best(st, b, rp, tab, r)
    elif _bonus_roll(st, b, rp, tab, r):
        mask, pts, kept = 0, 0, 0
    else:
        k = tab[r, T_BEST]
        mask, pts, kept = tab[r, T_MASK + k], tab[r, T_PTS + k], tab[r, T_N + k]
    a = mask * 2
    total = st[b, TOTAL] + pts
    left = st[b, LEFT] - kept
    need, no_bank_n = _bank_need(st, b, rp)
    if _may_bank(pts, kept, need, no_bank_n) and (
        total >= threshold or (left > 0 and left < min_dice)
    ):
        return a + 1
    return a


@njit(cache=True, inline=INLINE)
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
            if _may_bank(tab[r, T_PTS + k], tab[r, T_N + k], need, no_bank_n):
                count += 1
        j = _below(rng, stream, count)
        for k in range(nk):
            a = tab[r, T_MASK + k] * 2
            if j == 0:
                return a
            j -= 1
            if _may_bank(tab[r, T_PTS + k], tab[r, T_N + k], need, no_bank_n):
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


@njit(cache=True, inline=INLINE)
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
    p = st[b, CUR]
    on = 1 if st[b, ONB + p] != 0 else 0
    streak = st[b, STREAK + p]
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
        i = st[b, OF_TOTAL] // unit
        take = vals[q, 0, st[b, OF_DICE], i] if i < size else vbeyond[q, 0]
        fresh = vals[q, 0, dice, 0] if size > 0 else vbeyond[q, 0]
        return A_PIGGYBACK if take > fresh else A_FRESH
    r = st[b, ROLL]
    total = st[b, TOTAL]
    perm = st[b, PERM]
    n = st[b, LEFT]
    need, no_bank_n = _bank_need_of(thr, total, n, rp[R_FORCED] != 0)
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


@njit(cache=True)
def agent_actions(st, out, kinds, thresholds, min_dice, rng, vals, vbeyond, vint, vsel, rps, tabs):
    """The built-in agents' actions for the player to move in every game waiting for a decision:
    per game ``kinds[b]`` 0 random (decision stream ``rng[b]``), 1 greedy with ``thresholds[b]``
    and ``min_dice[b]``, or 3 turn values (table ``thresholds[b]``). ``out[b]`` is -1 for games not
    waiting for a decision."""
    for b in range(st.shape[0]):
        if st[b, PHASE] > KEEP:
            out[b] = -1
            continue
        rid = st[b, RID]
        rp = rps[rid]
        tab = tabs[rps[rid, R_TAB]]
        if kinds[b] == 0:
            out[b] = _random_action(st, b, rp, rng, b, tab)
        elif kinds[b] == 1:
            out[b] = _greedy_action(st, b, rp, tab, thresholds[b], min_dice[b])
        else:
            out[b] = _value_action(st, b, rp, tab, thresholds[b], vals, vbeyond, vint, vsel)


@njit(cache=True)
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
            rid = st[b, RID]
            rp = rps[rid]
            tab = tabs[rps[rid, R_TAB]]
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
            if rp[R_KEYED] == 0 and st[b, DFILL] - st[b, DPOS] < MARGIN:
                low = True
        if low:
            return t + 1, decisions, finished
    return sweeps, decisions, finished


@njit(cache=True)
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
        rid = st[b, RID]
        rp = rps[rid]
        tab = tabs[rps[rid, R_TAB]]
        while st[b, PHASE] <= KEEP:
            if st[b, DECISIONS] >= max_decisions:
                return b, waiting
            p = st[b, CUR]
            ag = seat_agent[b, p]
            kind = kinds[ag]
            if kind == 2:
                waiting += 1
                break
            if kind == 0:
                a = _random_action(st, b, rp, rng, b * S + p, tab)
            elif kind == 1:
                a = _greedy_action(st, b, rp, tab, thresholds[ag], min_dice[ag])
            else:
                a = _value_action(st, b, rp, tab, thresholds[ag], vals, vbeyond, vint, vsel)
            _apply(st, b, a, rp, dbuf, keys, code_roll, tab)
    return -1, waiting


# --------------------------------------------------------------------------------------------
# Observations (zilch_env.envs.observation.observe)


@njit(cache=True)
def observe(st, seats, out, off, rps, finv, rules_block, roll_blocks, tabs):
    """``out[b]`` = zilch_env.observe(game b, seats[b]), field by field in the same arithmetic
    (float64, stored as float32). ``off`` holds the field offsets; per rules row (``RID``),
    ``finv[rid]`` = (1 / target, points clip, 1 / max(zilch penalty count, 3), tie-break rounds
    limit) and ``rules_block[rid]`` the constant ``rules`` field followed by the ``rules_table``
    field (``off[30]`` values of the first). ``keep_points`` / ``keep_dice`` are read from the roll's
    keeps in the game's table (points, dice kept; dice left 0 = hot dice, all the ruleset's dice
    rolled next)."""
    o_phase, o_to_move, o_roll, o_roll_end = off[0], off[1], off[2], off[3]
    o_left, o_total, o_perm, o_thr, o_to_bank, o_bank_ok = off[4], off[5], off[6], off[7], off[8], off[9]
    o_last, o_overcome, o_final, o_final_left = off[10], off[11], off[12], off[13]
    o_tb, o_tb_round, o_lead, o_deficit, o_players, o_rules = off[14], off[15], off[16], off[17], off[18], off[19]
    npf = off[20]
    o_keep_points, o_keep_dice = off[21], off[22]
    o_keep_lead, o_keep_ahead, o_keep_target = off[23], off[24], off[25]
    o_offer, o_frozen, o_challenge = off[26], off[27], off[28]
    o_rules_table, n_rules = off[29], off[30]
    n_table = rules_block.shape[1] - n_rules
    out[:, :] = 0.0
    for b in range(st.shape[0]):
        rid = st[b, RID]
        rp = rps[rid]
        tab = tabs[rps[rid, R_TAB]]
        n = rp[R_PLAYERS]
        inv = finv[rid, 0]
        ph_ = finv[rid, 1]
        streak_scale = finv[rid, 2]
        max_tb = finv[rid, 3]
        all_dice = rp[R_DICE]
        target = rp[R_TARGET]
        seat = seats[b]
        ph = st[b, PHASE]
        over = ph == OVER
        cur = st[b, CUR]
        mine = (not over) and cur == seat
        o = out[b]
        o[o_phase + ph] = 1.0
        if mine:
            o[o_to_move] = 1.0
        r = st[b, ROLL]
        if r >= 0:
            for i in range(o_roll_end - o_roll):
                o[o_roll + i] = roll_blocks[r, i]
        if not over:
            o[o_left] = st[b, LEFT] / 6
        total = st[b, TOTAL]
        if total != 0:
            o[o_total] = min(total * inv, ph_)
        perm = st[b, PERM]
        if perm != 0:
            o[o_perm] = min(perm * inv, ph_)
        threshold = rp[R_MIN_BANK] if st[b, ONB + seat] != 0 else rp[R_ENTRY]
        if threshold != 0:
            o[o_thr] = min(threshold * inv, ph_)
            if threshold > total:
                o[o_to_bank] = min((threshold - total) * inv, ph_)
        if mine and ph == KEEP:
            need, no_bank_n = _bank_need(st, b, rp)
            c = 0
            while True:
                c, mask, pts, kn, _ = _keep_next(st, b, rp, tab, r, c)
                if c < 0:
                    break
                if _may_bank(pts, kn, need, no_bank_n):
                    o[o_bank_ok] = 1.0
                    break
        last = st[b, LAST]
        if last != 0:
            o[o_last] = min(last * inv, ph_)
        if rp[R_OVERCOMING] != 0 and last + 1 > total:
            o[o_overcome] = min((last + 1 - total) * inv, ph_)
        if st[b, OF_ON] != 0 and (ph == CHALLENGE or ph == PIGGYBACK):
            o[o_offer] = 1.0
            o[o_offer + 1] = min(st[b, OF_TOTAL] * inv, ph_)
            o[o_offer + 2] = st[b, OF_DICE] / 6
        if rp[R_PYR] != 0:
            for f in range(6):
                if st[b, FZ + f] != 0:
                    o[o_frozen + f] = st[b, FZ + f] / 6
        queue = st[b, FQ_ON] != 0 and not over
        qpos = st[b, FQ_POS]
        qlen = st[b, FQ_LEN]
        if queue:
            o[o_final] = 1.0
            o[o_final_left] = (qlen - qpos) / 6
        tied = st[b, TB_MASK]
        if tied != 0:
            o[o_tb] = 1.0
        if st[b, TB_ROUND] != 0:
            o[o_tb_round] = st[b, TB_ROUND] / max_tb
        own = st[b, SCORE + seat]
        best_other = 0  # the best other score (below zero under score_floor < 0); 0 alone
        seen = False
        for q in range(n):
            if q != seat and (not seen or st[b, SCORE + q] > best_other):
                best_other = st[b, SCORE + q]
                seen = True
        lead = (own - best_other) * inv
        o[o_lead] = ph_ if lead > ph_ else (-ph_ if lead < -ph_ else lead)
        deficit = best_other - own - (total if mine else 0)
        if deficit > 0:
            o[o_deficit] = min(deficit * inv, ph_)
        if rp[R_CHALLENGE] != 0:
            room = st[b, CH_USED + seat] < 2
            br = st[b, CH_BR + seat]
            if room and (br & 1) == 0:
                o[o_challenge] = 1.0
            if room and (br & 2) == 0:
                o[o_challenge + 1] = 1.0
            if own >= rp[R_CH_SPLIT]:
                o[o_challenge + 2] = 1.0
        challenged = st[b, CHAL]
        first = st[b, FIRST]
        for k in range(n):
            q = (seat + k) % n
            base = o_players + k * npf
            o[base] = 1.0
            sq = st[b, SCORE + q]
            if sq > 0:  # a score below zero (score_floor < 0) shows as 0: the bounds hold (observation.py)
                o[base + 1] = min(sq * inv, ph_)
            if st[b, ONB + q] != 0:
                o[base + 2] = 1.0
            streak = st[b, STREAK + q]
            if streak != 0:
                o[base + 3] = min(streak * streak_scale, ph_)
            if q == cur and not over:
                o[base + 4] = 1.0
            if queue:
                for i in range(qpos, qlen):
                    if st[b, FQ + i] == q:
                        o[base + 5] = 1.0
                        break
            if challenged == q:
                o[base + 6] = 1.0
            used = st[b, CH_USED + q]
            if used != 0:
                o[base + 7] = used / 2
            if tied != 0 and (tied >> q) & 1:
                o[base + 8] = 1.0
            if q == first:
                o[base + 9] = 1.0
        for i in range(n_rules):
            o[o_rules + i] = rules_block[rid, i]
        for i in range(n_table):
            o[o_rules_table + i] = rules_block[rid, n_rules + i]
        if ph == KEEP and r >= 0:
            left = st[b, LEFT]
            base = st[b, SCORE + cur] + total  # the mover's score if it banked the turn so far
            best = 0  # the best other score as observation.observe takes it: the others' maximum
            seen = False  # (below zero under score_floor < 0), 0 without others
            for q in range(n):
                if q != cur and (not seen or st[b, SCORE + q] > best):
                    best = st[b, SCORE + q]
                    seen = True
            c = 0
            while True:
                c, m, pts, kn, _ = _keep_next(st, b, rp, tab, r, c)
                if c < 0:
                    break
                o[o_keep_points + m] = min(pts * inv, ph_)
                rest = left - kn
                o[o_keep_dice + m] = (rest if rest != 0 else all_dice) / 6
                banked = base + pts
                kl = (banked - best) * inv
                o[o_keep_lead + m] = ph_ if kl > ph_ else (-ph_ if kl < -ph_ else kl)
                if banked > best:
                    o[o_keep_ahead + m] = 1.0
                if banked >= target:
                    o[o_keep_target + m] = 1.0
