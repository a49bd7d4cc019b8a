"""The batch's kernels beyond the turn flow: every game's legal-action mask and the observation of
many games at once (the VecEnv step's outcome, which needs the environments' reward, is
:func:`zilch_env.envs.reward.vec_outcome`). They stand on the
turn-flow kernels of :mod:`zilch_env.engine.kernels`; the agents' kernels that decide moves are
:mod:`zilch_env.players.agent_kernels`."""

from __future__ import annotations

import numpy as np
from zilch_env.jit import njit

from zilch_env.engine.kernels import (_bank_need, _may_bank)
from zilch_env.engine.keeps import (_keep_next, _popcount)
from zilch_env.engine.layout import (CHALLENGED, CHALLENGE, CHALLENGE_BRACKETS, CHALLENGES_USED, CURRENT, FIRST_SEAT, FINAL_QUEUE, FINAL_QUEUE_END, FINAL_QUEUE_ON, FINAL_QUEUE_POS, FROZEN, KEEP, LAST_RESULT, DICE_LEFT, OFFER_DICE, OFFER_ON, OFFER_TOTAL, ON_BOARD, OVER, PERMANENT, PHASE, PIGGYBACK, SEAT_TURNS, ROLL, R_CHALLENGE, R_CHALLENGE_SPLIT, R_DICE, R_ENTRY_THRESHOLD, R_MIN_BANK, R_OVERCOMING, R_PLAYERS, R_PYRAMIDING, R_KEEP_TABLE, R_TARGET, RULES_ROW, SCORE, ZILCH_STREAK, TIEBREAK_SEATS, TIEBREAK_ROUND, TURN_TOTAL, WINNER_SEATS)
from zilch_env.engine.decisions import ACTION_ROOM, legal_list


@njit(cache=True)
def legal_masks(st, out, rps, tabs):
    """``out[b, a]``: action ``a`` is legal in game ``b`` (all False once over)."""
    _legal_masks(st, out, rps, tabs, np.empty(ACTION_ROOM, dtype=np.int64))


@njit(cache=True, _nrt=False)
def _legal_masks(st, out, rps, tabs, legal):
    """:func:`legal_masks` with room for one game's legal actions (``legal``), allocating nothing:
    compiled without numba's reference counts, as the turn flow's helpers are (zilch_env.jit)."""
    out[:, :] = False
    for b in range(st.shape[0]):
        if st[b, PHASE] > KEEP:
            continue
        rid = st[b, RULES_ROW]
        for i in range(legal_list(st, b, rps[rid], tabs[rps[rid, R_KEEP_TABLE]], legal)):
            out[b, legal[i]] = True


# --------------------------------------------------------------------------------------------
# Observations (zilch_env.engine.observation.observe)


@njit(cache=True, _nrt=False)
def observe(st, seats, out, off, rps, finv, rules_block, roll_blocks, tabs):
    """``out[b]`` = zilch_env.observe(game b, seats[b]), field by field in the same arithmetic
    (float64, stored as float32). ``off`` holds the field offsets; per rules row (``RULES_ROW``),
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
        rid = st[b, RULES_ROW]
        rp = rps[rid]
        tab = tabs[rps[rid, R_KEEP_TABLE]]
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
        cur = st[b, CURRENT]
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
            o[o_left] = st[b, DICE_LEFT] / 6
        total = st[b, TURN_TOTAL]
        if total != 0:
            o[o_total] = min(total * inv, ph_)
        perm = st[b, PERMANENT]
        if perm != 0:
            o[o_perm] = min(perm * inv, ph_)
        threshold = rp[R_MIN_BANK] if st[b, ON_BOARD + seat] != 0 else rp[R_ENTRY_THRESHOLD]
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
        last = st[b, LAST_RESULT]
        if last != 0:
            o[o_last] = min(last * inv, ph_)
        if rp[R_OVERCOMING] != 0 and last + 1 > total:
            o[o_overcome] = min((last + 1 - total) * inv, ph_)
        if st[b, OFFER_ON] != 0 and (ph == CHALLENGE or ph == PIGGYBACK):
            o[o_offer] = 1.0
            o[o_offer + 1] = min(st[b, OFFER_TOTAL] * inv, ph_)
            o[o_offer + 2] = st[b, OFFER_DICE] / 6
        if rp[R_PYRAMIDING] != 0:
            for f in range(6):
                if st[b, FROZEN + f] != 0:
                    o[o_frozen + f] = st[b, FROZEN + f] / 6
        queue = st[b, FINAL_QUEUE_ON] != 0 and not over
        qpos = st[b, FINAL_QUEUE_POS]
        qlen = st[b, FINAL_QUEUE_END]
        if queue:
            o[o_final] = 1.0
            o[o_final_left] = (qlen - qpos) / 6
        tied = st[b, TIEBREAK_SEATS]
        if tied != 0:
            o[o_tb] = 1.0
        if st[b, TIEBREAK_ROUND] != 0:
            o[o_tb_round] = st[b, TIEBREAK_ROUND] / max_tb
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
            room = st[b, CHALLENGES_USED + seat] < 2
            br = st[b, CHALLENGE_BRACKETS + seat]
            if room and (br & 1) == 0:
                o[o_challenge] = 1.0
            if room and (br & 2) == 0:
                o[o_challenge + 1] = 1.0
            if own >= rp[R_CHALLENGE_SPLIT]:
                o[o_challenge + 2] = 1.0
        challenged = st[b, CHALLENGED]
        first = st[b, FIRST_SEAT]
        for k in range(n):
            q = (seat + k) % n
            base = o_players + k * npf
            o[base] = 1.0
            sq = st[b, SCORE + q]
            if sq > 0:  # a score below zero (score_floor < 0) shows as 0: the bounds hold (observation.py)
                o[base + 1] = min(sq * inv, ph_)
            if st[b, ON_BOARD + q] != 0:
                o[base + 2] = 1.0
            streak = st[b, ZILCH_STREAK + q]
            if streak != 0:
                o[base + 3] = min(streak * streak_scale, ph_)
            if q == cur and not over:
                o[base + 4] = 1.0
            if queue:
                for i in range(qpos, qlen):
                    if st[b, FINAL_QUEUE + i] == q:
                        o[base + 5] = 1.0
                        break
            if challenged == q:
                o[base + 6] = 1.0
            used = st[b, CHALLENGES_USED + q]
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
            left = st[b, DICE_LEFT]
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

