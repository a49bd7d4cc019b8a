"""Numba kernels of the two-player game solver (:mod:`agents.solver.game`).

Everything here works in *units*: points divided by the greatest common divisor of every point value
of the ruleset (50 for the presets), so turn totals and scores are small integers.

The roll tables (built by :func:`agents.solver.game.roll_tables`) describe, for every number of dice
``n``, the *classes* of rolls: rolls with the same set of distinct keep options, merged with their
summed probability. An option is ``(points, dice left after the keep, straight)``; which dice exactly
were kept never matters for the rest of the turn.

The central kernel is :func:`turn_dp`, one turn of one player as a finite-horizon decision problem.
It is given, for the situation the turn starts in,

* ``B[t]`` -- the win probability of banking a turn total of ``t`` units (whatever follows: the
  opponent's turn, the opponent's last turn, a win),
* ``Zv[pi]`` -- the win probability after a zilch that keeps ``pi`` permanent straights,

and returns the optimal win probability at turn start with its derivative with respect to ``Zv[0]``
(the probability, under the optimal policy, that the turn ends in a plain zilch). Its arrays hold the
value of every position of the turn:

* ``C[t, pi, n]`` -- about to roll ``n`` dice with turn total ``t``,
* ``Q[t, pi, m]`` -- just kept dice, ``m`` dice left (0 = hot dice), choosing bank or roll.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from zilch_env.jit import njit

from zilch_env.engine import layout as L
from zilch_env.rules.primitives import nb_bank_bar, nb_final_turns, nb_penalised, nb_turn_record, nb_zilch_streak

from agents.solver.game_turn import (  # noqa: F401 - the solve's vector names and unit helpers, re-exported
    IP_DCAP, IP_FLOOR, IP_MAXPTS, IP_NP, IP_NS, IP_NSEAT, IP_NU, IP_NZ, IP_SIZE, IP_TU, IP_UNIT, _dp, _dp_arg, bank_z,
    bonus_units, challenge_bit, challenge_cost_units, ip_names, last_turn_index, may_challenge, stored_ip, entry_units,
    min_bank_units, penalty_resets, penalty_units, scratch, split_units, straight_units, streak_of, streak_values,
    turn_dp, turn_forward, usage_of)


# --------------------------------------------------------------------------------------------
# A turn against a bar: the last turn of the game and the tie-break turns.


@njit(cache=True, nogil=True)
def bar_inputs(d, v, on, penf, ip, B, Zv, tmin=0, k=-1):
    """Fill ``B`` and ``Zv`` for a turn that must end above ``d`` units (``d`` itself ties, worth ``v``).

    Banking ``t`` records ``t``; a zilch records the permanent straights (when they count: on the
    board, or enough to get on it) less the penalty when this zilch completes a streak (``penf``).
    With ``k`` 0 or 1 the turn is a challenge of the leader (``k`` challenges declared before it,
    ``on`` true): a bank of ``t`` also lowers the leader by ``t``, so it wins when ``2 t > d``, and a
    zilch costs the challenge's cost (:func:`challenge_cost_units`) too.
    Returns ``(tcap, thr)``: above ``max(d // gain + 1, thr)`` every bank wins (``gain`` 2 for a
    challenge, else 1).
    """
    entry = entry_units(ip)
    thr = nb_bank_bar(on, entry, min_bank_units(ip), False, 0)  # no overcoming here (agents.solver.multi)
    gain = 2 if k >= 0 else 1
    cost = challenge_cost_units(k, ip) if k >= 0 else 0
    tcap = max(d // gain + 1, thr, 1, tmin)
    for t in range(tcap + 1):
        B[t] = 1.0 if gain * t > d else (v if gain * t == d else 0.0)
    S, NP = straight_units(ip), ip[IP_NP]
    pen, resets = penalty_units(ip), penalty_resets(ip)
    for pi in range(NP):
        p = pi * S
        rec = nb_turn_record(False, 0, p, on, entry)[0] - cost
        lost = False
        if penf:
            if resets:
                lost = True
            rec -= pen
        if lost:
            Zv[pi] = 0.0
        else:
            Zv[pi] = 1.0 if rec > d else (v if rec == d else 0.0)
    return tcap, thr


@njit(cache=True, nogil=True)
def bar_chance(d, v, on, penf, ip, rt, p_allonly, k=-1):
    """The best chance of ending one turn above ``d`` units, ``d`` itself tying (worth ``v``); with
    ``k`` 0 or 1, of a challenge of the leader (:func:`bar_inputs`)."""
    tcap = max(d // (2 if k >= 0 else 1) + 1, min_bank_units(ip), entry_units(ip), 1)
    B, Zv, Q, C, dQ, dC = scratch(tcap, ip)
    tc, thr = bar_inputs(d, v, on, penf, ip, B, Zv, 0, k)
    return _dp(tc, thr, 0, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, 0, True)[0]


@njit(cache=True, parallel=True, nogil=True)
def bar_table(d0, d1, v, on, penf, ip, rt, p_allonly, out, k=-1):
    """``out[d]`` = :func:`bar_chance` for d = d0..d1 (one turn DP each, in parallel)."""
    for d in prange(d0, d1 + 1):
        out[d] = bar_chance(d, v, on, penf, ip, rt, p_allonly, k)


@njit(cache=True, nogil=True)
def bar_curve(d0, d1, v, on, penf, ip, rt, p_allonly, out):
    """:func:`bar_table` on one thread (safe to call from several Python threads at once)."""
    for d in range(d0, d1 + 1):
        out[d] = bar_chance(d, v, on, penf, ip, rt, p_allonly)


@njit(cache=True, nogil=True)
def first_tiebreak_inputs(G, ip, B, Zv, tmin=0):
    """Inputs of the first player's tie-break turn: banking ``t`` leaves the second player the bar
    ``t`` (``G[x]`` = their chance against bar ``x``); a zilch leaves the bar of the permanent points."""
    dcap = G.shape[0] - 1
    tcap = max(dcap, tmin)
    for t in range(tcap + 1):
        B[t] = 1.0 - G[min(t, dcap)]
    S = straight_units(ip)
    for pi in range(ip[IP_NP]):
        Zv[pi] = 1.0 - G[min(pi * S, dcap)]
    return tcap, min_bank_units(ip)


@njit(cache=True)
def tiebreak_tables(rounds, ip, rt, p_allonly, G, TB0):
    """Tie-break turns, solved from the last round back to the first.

    In round ``r`` the first player of the round (seat order) plays a turn from the tie, then the
    second plays knowing the first's result ``x``: above ``x`` wins, ``x`` itself ties again (round
    ``r + 1``, or a draw after the last round). ``G[r, x]`` is the second player's chance against bar
    ``x``; ``TB0[r]`` the first player's chance at the start of round ``r`` (rows 1..rounds)."""
    dcap = G.shape[1] - 1
    for r in range(rounds, 0, -1):
        v = 0.5 if r == rounds else 1.0 - TB0[r + 1]
        bar_table(0, dcap, v, True, False, ip, rt, p_allonly, G[r])
        B, Zv, Q, C, dQ, dC = scratch(dcap, ip)
        tcap, thr = first_tiebreak_inputs(G[r], ip, B, Zv)
        TB0[r] = _dp(tcap, thr, 0, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, 0, True)[0]


# --------------------------------------------------------------------------------------------
# The race: turn-start states before anyone reached the target.


@njit(cache=True, nogil=True)
def score_of(i, ip):
    """The banked score (units) of score index ``i``: 0 off the board (index 0), else ``i - 1 -
    IP_FLOOR`` (scores from ``-IP_FLOOR``, the score floor, up)."""
    return i - 1 - ip[IP_FLOOR] if i > 0 else 0


@njit(cache=True, nogil=True)
def encode(seat, ia, za, ib, zb, ip):
    NS, NZ = ip[IP_NS], ip[IP_NZ]
    return (((seat * NS + ia) * NZ + za) * NS + ib) * NZ + zb


@njit(cache=True, nogil=True)
def decode(sid, ip):
    NS, NZ = ip[IP_NS], ip[IP_NZ]
    zb = sid % NZ
    sid //= NZ
    ib = sid % NS
    sid //= NS
    za = sid % NZ
    sid //= NZ
    ia = sid % NS
    seat = sid // NS
    return seat, ia, za, ib, zb


@njit(cache=True, nogil=True)
def after_zilch(ia, za, p, ip, cost=0):
    """The mover's (score index, state value, score) after a zilch keeping ``p`` permanent units and
    costing ``cost`` units (a challenge's): the engine's end-of-turn rules (:mod:`zilch_env.rules.primitives`)
    in units. The state value keeps the challenges used; without a zilch penalty it holds no streak,
    nor before the board."""
    on = ia > 0
    f = ip[IP_FLOOR]
    recorded, on_after = nb_turn_record(False, 0, p, on, entry_units(ip))
    if not on_after:
        return 0, 0, 0
    count = ip[L.R_ZILCH_PENALTY_COUNT]
    streak, penalty = nb_zilch_streak(False, on, streak_of(za, ip), count)
    A = (ia - 1 - f if on else 0) + recorded - cost
    if penalty:  # the game solver plays the subtract and reset penalties
        A = max(-f, nb_penalised(A, ip[L.R_ZILCH_PENALTY_MODE], penalty_units(ip), -f))
    A = max(A, -f)
    return 1 + f + A, (streak if on and count > 0 else 0) + bank_z(za, ip), A


@njit(cache=True, nogil=True)
def _guess(seat, ia, za, ib, zb, level, W, ip):
    """A first guess for a state of a lower level, not solved yet in the first sweep (a zilch
    penalty leads there): the same state with its scores raised into the lowest solved level
    (above ``level``), half each, but neither to the target (a score that would reach it gives its
    excess to the other); 0.5 if both are too close to the target for that."""
    Tu = ip[IP_TU]
    a = score_of(ia, ip)
    b = score_of(ib, ip)
    need = level + 1 - (a + b)
    a2 = a + need // 2
    b2 = b + need - need // 2
    if a2 > Tu - 1:
        b2 += a2 - (Tu - 1)
        a2 = Tu - 1
    if b2 > Tu - 1:
        a2 += b2 - (Tu - 1)
        b2 = Tu - 1
    if a2 <= Tu - 1:
        v = W[encode(seat, 1 + ip[IP_FLOOR] + a2, za, 1 + ip[IP_FLOOR] + b2, zb, ip)]
        if v == v:
            return v
    return 0.5


@njit(cache=True, nogil=True)
def race_inputs(sid, W, F, ip, rt, B, Zv, tmin=0):
    """:func:`race_inputs_lane` of one turn (``B[t]``, ``Zv[pi]``)."""
    return race_inputs_lane(sid, W, F, ip, rt, B, Zv, tmin, 1, 0)


@njit(cache=True, nogil=True)
def race_inputs_lane(sid, W, F, ip, rt, B, Zv, tmin, nw, l):
    """Fill ``B`` (bank values) and ``Zv`` (zilch values) for the turn starting in race state ``sid``,
    as lane ``l`` of ``nw`` (``B[t * nw + l]``, ``Zv[pi * nw + l]``, :mod:`agents.solver.turn_lanes`).

    Banking ``t`` with ``a + t`` below the target hands the opponent the move (their win chance is
    ``W``); at or above it, the opponent plays the last turn against the lead (``F``), or under
    ``finish_round`` the mover, second in the round, has won, and under ``instant`` the mover has won. Returns ``(tcap, thr, tend)``; ``B``
    must have room for the largest cap (``Dcap + Tu``, or ``tmin`` if larger: the cap is at least
    ``tmin``).
    """
    seat, ia, za, ib, zb = decode(sid, ip)
    Tu, Dcap = ip[IP_TU], ip[IP_DCAP]
    on_a, on_b = ia > 0, ib > 0
    a = score_of(ia, ip)
    b = score_of(ib, ip)
    thr = nb_bank_bar(on_a, entry_units(ip), min_bank_units(ip), False, 0)
    opp_seat = 1 - seat if ip[IP_NSEAT] == 2 else 0
    wins_at_target = nb_final_turns(seat, 2, 0, ip[L.R_END])[1] == 0  # no last turn for the other seat
    count = ip[L.R_ZILCH_PENALTY_COUNT]
    penb = 1 if (count > 0 and on_b and streak_of(zb, ip) == count - 1) else 0
    fs = 1 - seat if ip[IP_NSEAT] == 2 else 0  # the last turn is the opponent's
    Ff = F[fs, last_turn_index(on_b, zb, b, ip), penb]
    tend = max(Tu - a, 0)
    # zilch values
    zmax = 0.0
    S = straight_units(ip)
    for pi in range(ip[IP_NP]):
        ia2, z2, A = after_zilch(ia, za, pi * S, ip)
        if A >= Tu:
            val = 1.0 if wins_at_target else 1.0 - Ff[min(A - b, Dcap)]
        else:
            tgt = encode(opp_seat, ib, zb, ia2, z2, ip)
            wt = W[tgt]
            if wt != wt:  # a penalty state not solved yet (first sweep): guess
                wt = _guess(opp_seat, ib, zb, ia2, z2, a + b, W, ip)
            val = 1.0 - wt
        Zv[pi * nw + l] = val
        zmax = max(zmax, val)
    # the turn-total cap
    start = max(tend, thr)
    if wins_at_target:
        tcap = max(start, 1)
    elif ip[L.R_FORCED_HOT_DICE] == 1 or ip[L.R_SIX_DICE_BONUS] > 0:
        tcap = max(Dcap + b - a, start, 1)
    else:
        pz = rt[6]
        pzmin = 1.0
        for n in range(1, ip[L.R_DICE] + 1):
            pzmin = min(pzmin, pz[n])
        need = pzmin * (1.0 - zmax)
        d = a + start - b
        while d < Dcap and Ff[d] > need:
            d += 1
        tcap = max(min(d - a + b + ip[IP_MAXPTS], Dcap + b - a), start, 1)
    tcap = max(tcap, tmin)
    zbank = bank_z(za, ip)
    for t in range(tcap + 1):
        A = a + t
        if t < thr:
            B[t * nw + l] = 0.0
        elif A < Tu:
            B[t * nw + l] = 1.0 - W[encode(opp_seat, ib, zb, 1 + ip[IP_FLOOR] + A, zbank, ip)]
        elif wins_at_target:
            B[t * nw + l] = 1.0
        else:
            B[t * nw + l] = 1.0 - Ff[min(A - b, Dcap)]
    return tcap, thr, tend


@njit(cache=True, nogil=True)
def row_value(sid, W, ip, rows):
    """The value of race state ``sid`` under its recorded row (its turn's policy as a linear function
    of the race values, see :func:`agents.solver.game_sweep.race_eval_lanes`) at the values ``W``;
    NaN if no row is recorded yet."""
    row_ptr, coef, zt, zc, const = rows
    seat, ia, za, ib, zb = decode(sid, ip)
    a = score_of(ia, ip)
    opp_seat = 1 - seat if ip[IP_NSEAT] == 2 else 0
    stride = ip[IP_NZ]  # the banker's score index is the fourth component of encode()
    base = encode(opp_seat, ib, zb, 1 + ip[IP_FLOOR] + a, bank_z(za, ip), ip)
    v = const[sid] + (zc[sid] * W[zt[sid]] if zc[sid] != 0.0 else 0.0)
    p0 = row_ptr[sid]
    for t in range(row_ptr[sid + 1] - p0):
        c = coef[p0 + t]
        if c != 0.0:
            v += c * W[base + t * stride]
    return v


@njit(cache=True)
def linear_sweep(members, W, ip, rows):
    """One Gauss-Seidel pass over the recorded rows, in solve order; returns the largest change.

    A row fixes the policy of a turn, so this is the exact evaluation of the recorded policies:
    cheap passes converge to the race values under them, and a full sweep of turn DPs then only
    has to improve the policies (policy iteration)."""
    change = 0.0
    for q in range(members.shape[0]):
        sid = members[q]
        v = row_value(sid, W, ip, rows)
        d = abs(v - W[sid])
        if d > change:
            change = d
        W[sid] = v
    return change


@njit(cache=True, nogil=True)
def zilch_target(sid, ip):
    """The race state after a plain zilch (no permanent points) in ``sid``, and its score sum."""
    seat, ia, za, ib, zb = decode(sid, ip)
    ia2, z2, A = after_zilch(ia, za, 0, ip)
    opp_seat = 1 - seat if ip[IP_NSEAT] == 2 else 0
    b = score_of(ib, ip)
    return encode(opp_seat, ib, zb, ia2, z2, ip), A + b


@njit(cache=True, nogil=True)
def valid_state(seat, ia, za, ib, zb, ip):
    """Whether a race state can occur: off the board means score 0 and no streak (and needs an
    entry threshold); scores are below the target."""
    if ip[L.R_ENTRY_THRESHOLD] == 0 and (ia == 0 or ib == 0):
        return False
    if (ia == 0 and za != 0) or (ib == 0 and zb != 0):
        return False
    return True


@njit(cache=True, nogil=True)
def in_block(za, zb, u1, u2, ip):
    """Whether a state whose players hold ``za`` and ``zb`` is in the block of challenge usages
    ``{u1, u2}`` (either player either one; every state when ``u1`` is -1)."""
    if u1 < 0:
        return True
    ua, ub = usage_of(za, ip), usage_of(zb, ip)
    return (ua == u1 and ub == u2) or (ua == u2 and ub == u1)


@njit(cache=True)
def build_schedule(ip, u1=-1, u2=-1):
    """The order of the race solve: score sums (levels) from the highest down, and inside a level
    the states grouped in stages of independent jobs.

    A bank raises the mover's score, so it leads to a higher (solved) level. A plain zilch keeps the
    sum, unless it completes a penalty streak (a lower level, solved in the previous sweep, see
    :func:`agents.solver.game.solve_game`). Inside a level each state's zilch leads to at most one
    state of the same level, so the level is a functional graph: its cycles (two players trading
    zilches; longer ones through streaks) are jobs of the first stage, solved by Newton's method;
    every other state is one turn DP once the state its zilch leads to is solved: stage = distance
    to a cycle or to a state whose zilch leaves the level.

    Under ``challenge`` a challenge leads to a state where its mover has used one more bracket: the
    race is solved in blocks of the two players' usages (``u1``, ``u2``: only the states where one
    player has used ``u1`` and the other ``u2``), the blocks of more brackets used first; plain turns
    stay in their block.

    Returns (level_ptr, stage_ptr, job_kind, job_start, job_len, members): level ``i`` owns stages
    ``level_ptr[i]:level_ptr[i+1]``, stage ``j`` owns jobs ``stage_ptr[j]:stage_ptr[j+1]``, job ``k``
    owns ``members[job_start[k]:job_start[k]+job_len[k]]``.
    """
    NSEAT, NS, NZ, Tu = ip[IP_NSEAT], ip[IP_NS], ip[IP_NZ], ip[IP_TU]
    total = NSEAT * NS * NZ * NS * NZ
    level = np.full(total, -1, np.int64)
    nvalid = 0
    for sid in range(total):
        seat, ia, za, ib, zb = decode(sid, ip)
        if valid_state(seat, ia, za, ib, zb, ip) and in_block(za, zb, u1, u2, ip):
            # the score sum, counted from the lowest (both at the score floor)
            level[sid] = score_of(ia, ip) + score_of(ib, ip) + 2 * ip[IP_FLOOR]
            nvalid += 1
    maxlev = 2 * (Tu - 1 + ip[IP_FLOOR])
    # states by level, highest first
    count = np.zeros(maxlev + 2, np.int64)
    for sid in range(total):
        if level[sid] >= 0:
            count[maxlev - level[sid] + 1] += 1
    for i in range(1, maxlev + 2):
        count[i] += count[i - 1]
    order = np.empty(nvalid, np.int64)
    fill = count.copy()
    for sid in range(total):
        if level[sid] >= 0:
            k = maxlev - level[sid]
            order[fill[k]] = sid
            fill[k] += 1
    tgt = np.full(total, -1, np.int64)
    for sid in range(total):
        if level[sid] >= 0:
            t, tl = zilch_target(sid, ip)
            if tl + 2 * ip[IP_FLOOR] == level[sid]:  # the same score sum (levels count from both at the floor)
                tgt[sid] = t
    color = np.zeros(total, np.int8)
    depth = np.zeros(total, np.int64)
    cyc_head = np.full(total, -1, np.int64)  # for cycle members: the first member of their cycle
    path = np.empty(nvalid + 1, np.int64)
    level_ptr = np.zeros(maxlev + 2, np.int64)
    stage_ptr_l = [0]
    kind_l = []
    start_l = []
    len_l = []
    members = np.empty(nvalid, np.int64)
    nm = 0
    for li in range(maxlev + 1):
        lo, hi = count[li], count[li + 1]
        maxd = 0
        for q in range(lo, hi):
            x = order[q]
            if color[x] != 0:
                continue
            n = 0
            y = x
            while y >= 0 and color[y] == 0:
                color[y] = 1
                path[n] = y
                n += 1
                y = tgt[y]
            cut = n
            if y >= 0 and color[y] == 1:  # a new cycle: path from y to the end
                for i in range(n):
                    if path[i] == y:
                        cut = i
                        break
                for i in range(cut, n):
                    depth[path[i]] = 0
                    cyc_head[path[i]] = y
                    color[path[i]] = 2
            for i in range(cut - 1, -1, -1):
                nxt = tgt[path[i]]
                depth[path[i]] = 0 if nxt < 0 else depth[nxt] + 1
                color[path[i]] = 2
                maxd = max(maxd, depth[path[i]])
        for d in range(maxd + 1):
            for q in range(lo, hi):
                x = order[q]
                if depth[x] != d:
                    continue
                if cyc_head[x] >= 0:
                    if cyc_head[x] != x:
                        continue
                    kind_l.append(1)
                    start_l.append(nm)
                    k = 0
                    y = x
                    while True:
                        members[nm] = y
                        nm += 1
                        k += 1
                        y = tgt[y]
                        if y == x:
                            break
                    len_l.append(k)
                else:
                    kind_l.append(0)
                    start_l.append(nm)
                    members[nm] = x
                    nm += 1
                    len_l.append(1)
            stage_ptr_l.append(len(kind_l))
        level_ptr[li + 1] = len(stage_ptr_l) - 1
    stage_ptr = np.array(stage_ptr_l, dtype=np.int64)
    return (level_ptr, stage_ptr, np.array(kind_l, dtype=np.int64), np.array(start_l, dtype=np.int64),
            np.array(len_l, dtype=np.int64), members[:nm])
