"""The challenge turns of the two-player game solver (:mod:`agents.solver.game`, ``variants.challenge``,
source 001): a player on the board, with the opponent on the board, may challenge at the start of a
turn, once below the split and once at or above it (judged by their score then). A banked challenge
turn also takes its total from the opponent (down to the floor); a zilch costs the challenger the
first or the second cost, by how many challenges they declared. The state's usages and the helpers
that read them are :mod:`agents.solver.game_turn`'s; the race's own kernels, and the last turn played as
a challenge of the leader (``bar_inputs`` with ``k``), :mod:`agents.solver.game_kernels`'s."""

from __future__ import annotations

from numba import prange

from zilch_env.jit import njit

from zilch_env.engine import layout as L
from zilch_env.rules.primitives import nb_bank_bar, nb_final_turns

from agents.solver.game_kernels import (IP_DCAP, IP_FLOOR, IP_NP, IP_NSEAT, IP_TU, _dp, after_zilch, bank_z,
                                        challenge_bit, challenge_cost_units, decode, encode, entry_units,
                                        last_turn_index, may_challenge, min_bank_units, scratch, score_of,
                                        straight_units, streak_of, streak_values)


@njit(cache=True, nogil=True)
def _last_turn(F, fs, on, z, score, penalty_due, lead, ip):
    """The chance of the player at ``score`` (state value ``z``) in their last turn, ``lead`` units
    behind the leader (capped at the largest lead tracked)."""
    return F[fs, last_turn_index(on, z, score, ip), 1 if penalty_due else 0, min(lead, ip[IP_DCAP])]


@njit(cache=True, nogil=True)
def challenge_inputs(sid, W, F, ip, rt, B, Zv, tmin=0):
    """:func:`challenge_inputs_lane` of one turn."""
    return challenge_inputs_lane(sid, W, F, ip, rt, B, Zv, tmin, 1, 0)


@njit(cache=True, nogil=True)
def challenge_inputs_lane(sid, W, F, ip, rt, B, Zv, tmin, nw, l):
    """Fill ``B`` and ``Zv`` (lane ``l`` of ``nw``) for the challenge turn of race state ``sid``,
    whose mover may challenge (:func:`may_challenge`): the state's usages are those before it. A
    bank of ``t`` moves the mover to ``a + t`` and the opponent to ``b - t`` (not below the floor);
    a zilch costs the challenger (:func:`challenge_cost_units`); the mover has used this bracket
    from then on. Returns ``(tcap, thr, tend)``."""
    seat, ia, za, ib, zb = decode(sid, ip)
    Tu, Dcap, f = ip[IP_TU], ip[IP_DCAP], ip[IP_FLOOR]
    a = score_of(ia, ip)
    b = score_of(ib, ip)
    k = may_challenge(ia > 0, za, a, ib > 0, ip)
    za2 = za + streak_values(ip) * challenge_bit(a, ip)
    thr = nb_bank_bar(True, entry_units(ip), min_bank_units(ip), False, 0)
    opp_seat = 1 - seat if ip[IP_NSEAT] == 2 else 0
    wins_at_target = nb_final_turns(seat, 2, 0, ip[L.R_END])[1] == 0
    count = ip[L.R_ZILCH_PENALTY_COUNT]
    penb = count > 0 and streak_of(zb, ip) == count - 1
    fs = 1 - seat if ip[IP_NSEAT] == 2 else 0
    S = straight_units(ip)
    cost = challenge_cost_units(k, ip)
    for pi in range(ip[IP_NP]):
        ia2, z2, A = after_zilch(ia, za2, pi * S, ip, cost)
        if A >= Tu:
            val = 1.0 if wins_at_target else 1.0 - _last_turn(F, fs, True, zb, b, penb, A - b, ip)
        else:
            val = 1.0 - W[encode(opp_seat, ib, zb, ia2, z2, ip)]
        Zv[pi * nw + l] = val
    tend = max(Tu - a, 0)
    tcap = max(tend, thr, 1, tmin)
    if not wins_at_target:
        tcap = max(tcap, Dcap + b - a)
    zbank = bank_z(za2, ip)
    for t in range(tcap + 1):
        A = a + t
        Bo = max(b - t, -f)
        if t < thr:
            B[t * nw + l] = 0.0
        elif A < Tu:
            B[t * nw + l] = 1.0 - W[encode(opp_seat, 1 + f + Bo, zb, 1 + f + A, zbank, ip)]
        elif wins_at_target:
            B[t * nw + l] = 1.0
        else:
            B[t * nw + l] = 1.0 - _last_turn(F, fs, True, zb, Bo, penb, A - Bo, ip)
    return tcap, thr, tend


@njit(cache=True, nogil=True)
def challenge_value(sid, W, F, ip, rt, p_allonly):
    """The win chance of the challenge turn of race state ``sid`` (-1 if its mover may not challenge)."""
    seat, ia, za, ib, zb = decode(sid, ip)
    if may_challenge(ia > 0, za, score_of(ia, ip), ib > 0, ip) < 0:
        return -1.0
    tmax = ip[IP_DCAP] + ip[IP_TU] + ip[IP_FLOOR] + 1
    B, Zv, Q, C, dQ, dC = scratch(tmax, ip)
    tcap, thr, tend = challenge_inputs(sid, W, F, ip, rt, B, Zv)
    return _dp(tcap, thr, tend, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, 0, True)[0]


@njit(cache=True, parallel=True, nogil=True)
def challenge_values(sids, W, F, ip, rt, p_allonly, CH):
    """``CH[sid]`` = :func:`challenge_value` for every state of ``sids`` (in parallel)."""
    for i in prange(sids.shape[0]):
        CH[sids[i]] = challenge_value(sids[i], W, F, ip, rt, p_allonly)
