"""One stage of the two-player race solve (:mod:`agents.solver.game`), eight turns at a time.

A stage's jobs are independent (:func:`agents.solver.game_kernels.build_schedule`): single states whose
zilch leads to a solved state (one turn DP each) and cycles of states linked by zilches (Newton's
method, :func:`solve_cycles`). Jobs of one kind and cycle length are dealt out in *batches* of up to
:data:`agents.solver.turn_lanes.LANES`, whose turns are solved side by side by
:func:`agents.solver.turn_lanes.turn_dp_lanes`; every value is, bit for bit, the one the turn solved
alone gives.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from zilch_env.jit import njit

from zilch_env.engine import layout as L

from agents.solver.game_kernels import (IP_DCAP, IP_FLOOR, IP_MAXPTS, IP_NP, IP_NSEAT, IP_TU, after_zilch, bonus_units,
                                        decode, encode, race_inputs_lane, row_value, score_of,
                                        straight_units)
from agents.solver.turn_lanes import LANES, turn_dp_lanes, turn_forward_lane

#: A state's recorded row is kept while the turn's value beats it by less than this (a policy that is
#: no better than the recorded one by more than rounding): only the others are played forwards again.
ROW_KEPT_BELOW = 1e-14

#: An empty followed value (turn_dp's ``fB``/``fZ``): the derivative with respect to ``Zv[0]``.
_NONE = np.zeros(0)


@njit(cache=True, nogil=True)
def sweep_buffers(ip, rt):
    """One thread's work arrays for any batch of race turns: (B, Zv, Q, C, dQ, dC, arg, bank, zil,
    Mr, Mp, tcaps, thrs, tends, out_v, out_d, sids), laned (:data:`LANES`). Allocated once per thread
    and stage: fresh large arrays for every turn DP cost more than the DP in the allocator."""
    NP, D = ip[IP_NP], ip[L.R_DICE]
    tmax = ip[IP_DCAP] + ip[IP_TU] + ip[IP_FLOOR] + ip[IP_MAXPTS] + 1
    rows = tmax + 1 + max(ip[IP_MAXPTS], bonus_units(ip))
    W = LANES
    return (np.zeros((tmax + 1) * W), np.zeros(NP * W), np.empty(rows * NP * D * W),
            np.empty(rows * NP * (D + 1) * W), np.empty(rows * NP * D * W), np.empty(rows * NP * (D + 1) * W),
            np.empty((tmax + 1) * NP * rt[1][D] * W, np.int32), np.zeros(tmax + 1), np.zeros(NP),
            np.empty(rows * NP * (D + 1)), np.empty(rows * NP * (D + 1)),
            np.zeros(W, np.int64), np.zeros(W, np.int64), np.zeros(W, np.int64), np.zeros(W), np.zeros(W),
            np.zeros(W, np.int64))


@njit(cache=True, nogil=True)
def _dp_lanes(nl, ip, rt, p_allonly, deriv, record, buf):
    """The turn DPs of ``buf``'s lanes ``:nl`` (inputs filled): values to ``out_v``, with ``deriv``
    the derivatives to ``out_d``, with ``record`` the options chosen to ``arg``."""
    B, Zv, Q, C, dQ, dC, arg, bank, zil, Mr, Mp, tcaps, thrs, tends, out_v, out_d, sids = buf
    nw = 1 if nl == 1 else LANES
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    bonus = bonus_units(ip)
    if not deriv:
        dQ = dQ[:0]
        dC = dC[:0]
    if not record:
        arg = arg[:0]
    turn_dp_lanes(nw, nl, tcaps, thrs, tends, ip[L.R_FORCED_HOT_DICE] == 1, bonus, ip[L.R_DICE], straight_units(ip),
                  ip[IP_NP], B, Zv, cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz, p_allonly, Q, C, dQ, dC, 0,
                  True, max(ip[IP_MAXPTS], bonus), arg, _NONE, _NONE, -1, out_v, out_d)


@njit(cache=True, nogil=True)
def race_eval_lanes(nl, W, F, CH, ip, rt, p_allonly, rows, deriv, buf):
    """The turns of the race states ``buf``'s ``sids[:nl]``, side by side: their win chances go to
    ``out_v[:nl]`` and, with ``deriv``, the derivatives with respect to their same-level zilch
    values (the chance the turn ends in a plain zilch) to ``out_d[:nl]``. Returns the number of
    turn DPs done.

    With ``rows`` (a tuple ``(row_ptr, coef, zt, zc, const)`` of non-empty arrays) each state's *row*
    is kept up to date too: its value as a linear function of other race values under the optimal
    policy found, ``W[sid] = const + sum_t coef[t] * W[bank target of t] + zc * W[zt]`` (see
    :func:`agents.solver.game_kernels.linear_sweep`). A state whose recorded row is still optimal (its
    value at the current race values is the turn's, to :data:`ROW_KEPT_BELOW`) keeps it; the others
    (and states without a row) are solved again recording the options chosen, and played forwards
    to get their row (:func:`agents.solver.turn_lanes.turn_forward_lane`); a batch none of whose
    states has a row yet records the options in its first turn DPs.

    Under ``challenge``, ``CH[sid]`` is the value of the state's challenge turn (-1 where its mover may
    not challenge; ``CH`` empty without the variant): it leads to states of another block, solved
    before, so it is a constant here. Where it beats the plain turn the state takes it, with
    derivative 0 and a constant row."""
    row_ptr, coef, zt, zc, const = rows
    B, Zv, Q, C, dQ, dC, arg, bank, zil, Mr, Mp, tcaps, thrs, tends, out_v, out_d, sids = buf
    nw = 1 if nl == 1 else LANES
    for l in range(nl):
        tcaps[l], thrs[l], tends[l] = race_inputs_lane(sids[l], W, F, ip, rt, B, Zv, 0, nw, l)
    record = row_ptr.shape[0] > 0
    fresh = record  # no state of the batch has a row yet (the first sweep): record the options at once
    for l in range(nl):
        if record and const[sids[l]] == const[sids[l]]:
            fresh = False
    _dp_lanes(nl, ip, rt, p_allonly, deriv, fresh, buf)
    chose = np.zeros(LANES, np.bool_)
    if CH.shape[0] > 0:
        for l in range(nl):
            c = CH[sids[l]]
            if c > out_v[l]:
                out_v[l] = c
                out_d[l] = 0.0
                chose[l] = True
    if not record:
        return nl
    # the states whose policy changed (or without a row): their rows are recorded again
    redo = np.empty(LANES, np.int64)
    nr = 0
    for l in range(nl):
        pred = row_value(sids[l], W, ip, rows)
        if fresh or not out_v[l] - pred < ROW_KEPT_BELOW:  # a better policy (or no row yet: NaN)
            redo[nr] = l
            nr += 1
    if nr == 0:
        return nl
    keep_v = out_v.copy()
    keep_d = out_d.copy()
    keep_s = sids.copy()
    keep_c = chose.copy()
    if not fresh:
        for q in range(nr):
            sids[q] = keep_s[redo[q]]
        nw = 1 if nr == 1 else LANES
        for q in range(nr):
            tcaps[q], thrs[q], tends[q] = race_inputs_lane(sids[q], W, F, ip, rt, B, Zv, 0, nw, q)
        _dp_lanes(nr, ip, rt, p_allonly, deriv, True, buf)
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    bonus = bonus_units(ip)
    forced = ip[L.R_FORCED_HOT_DICE] == 1
    D, S, NP = ip[L.R_DICE], straight_units(ip), ip[IP_NP]
    pad = max(ip[IP_MAXPTS], bonus)
    Tu = ip[IP_TU]
    for q in range(nr):
        sid = sids[q]
        if keep_c[redo[q]]:  # the challenge turn: a constant (its states are solved)
            for t in range(row_ptr[sid + 1] - row_ptr[sid]):
                coef[row_ptr[sid] + t] = 0.0
            zt[sid] = sid
            zc[sid] = 0.0
            const[sid] = CH[sid]
            continue
        tcap = tcaps[q]
        turn_forward_lane(nw, q, tcap, thrs[q], forced, bonus, D, S, NP, B, cls_lo, cls_hi, cls_p, opt_lo, opt_hi,
                          opt_off, pz, p_allonly, pad, Q, C, arg, bank, zil, Mr, Mp)
        seat, ia, za, ib, zb = decode(sid, ip)
        a = score_of(ia, ip)
        k = 0.0
        p0 = row_ptr[sid]
        n = row_ptr[sid + 1] - p0
        for t in range(n):
            coef[p0 + t] = 0.0
        for t in range(tcap + 1):
            if bank[t] == 0.0:
                continue
            if a + t < Tu and t < n:
                coef[p0 + t] = -bank[t]
                k += bank[t]
            else:
                k += bank[t] * B[t * nw + q]
        ia2, z2, A = after_zilch(ia, za, 0, ip)
        opp_seat = 1 - seat if ip[IP_NSEAT] == 2 else 0
        zt[sid] = encode(opp_seat, ib, zb, ia2, z2, ip)
        zc[sid] = -zil[0]
        k += zil[0]
        for pi in range(1, NP):
            k += zil[pi] * Zv[pi * nw + q]
        const[sid] = k
    out_v[:] = keep_v
    out_d[:] = keep_d
    sids[:] = keep_s
    return nl + (0 if fresh else nr)


@njit(cache=True, nogil=True)
def solve_cycles(kind, start, length, j0, j1, members, W, F, CH, ip, rt, p_allonly, tol, rows, buf):
    """Solve the cycles of race states ``j0:j1`` (jobs of one length ``k``) side by side: member ``i``'s
    zilch leads to member ``i + 1``, the last one's to the first. Newton's method on each cycle's first
    member's value ``x``: going round the cycle backwards gives ``G(x)``; ``h(x) = x - G(x)`` is
    increasing (each turn's value moves by less than its zilch value does), so a bracketed Newton step
    converges; it is exact once the policies along the cycle stop changing (values are piecewise
    linear). A cycle whose step is within ``tol`` leaves the batch. Returns the number of turn DPs."""
    sids, out_v, out_d = buf[16], buf[14], buf[15]
    nl = j1 - j0
    k = length[j0]
    x = np.empty(LANES)
    lo = np.zeros(LANES)
    hi = np.ones(LANES)
    slope = np.empty(LANES)
    done = np.zeros(LANES, np.bool_)
    act = np.empty(LANES, np.int64)
    for l in range(nl):
        v = W[members[start[j0 + l]]]
        x[l] = 0.5 if v != v else v  # not solved before: start in the middle
    dps = 0
    for it in range(100):
        na = 0
        for l in range(nl):
            if not done[l]:
                act[na] = l
                na += 1
        if na == 0:
            break
        for q in range(na):
            l = act[q]
            W[members[start[j0 + l]]] = x[l]
            slope[l] = 1.0
        for i in range(k - 1, -1, -1):
            for q in range(na):
                sids[q] = members[start[j0 + act[q]] + i]
            dps += race_eval_lanes(na, W, F, CH, ip, rt, p_allonly, rows, True, buf)
            for q in range(na):
                slope[act[q]] *= -out_d[q]
                if i > 0:
                    W[sids[q]] = out_v[q]
        for q in range(na):
            l = act[q]
            g = out_v[q]
            h = x[l] - g
            if abs(h) <= tol:
                W[members[start[j0 + l]]] = g
                done[l] = True
                continue
            if h < 0.0:
                lo[l] = max(lo[l], x[l])
            else:
                hi[l] = min(hi[l], x[l])
            xn = x[l] - h / (1.0 - slope[l])
            if not (lo[l] < xn < hi[l]):
                xn = 0.5 * (lo[l] + hi[l])
            x[l] = xn
    return dps


@njit(cache=True, parallel=True, nogil=True)
def solve_stage(kind, start, length, bptr, members, W, F, CH, ip, rt, p_allonly, tol, old, rows, workers):
    """Solve the batches of one stage in parallel: batch ``b`` is the jobs ``bptr[b]:bptr[b + 1]``
    (of one kind and cycle length): kind 0 = states whose zilch leads to a solved state (one turn DP
    each), kind 1 = cycles (:func:`solve_cycles`). Worker ``w`` takes batches ``w, w + workers, ...``
    (pass them sorted by cost, so that every worker gets a fair share) with its own work arrays.
    ``old`` receives each state's value before this solve (for the change between sweeps). Returns
    the number of turn DPs done."""
    nb = bptr.shape[0] - 1
    work = np.zeros(workers, dtype=np.int64)
    for w in prange(workers):
        buf = sweep_buffers(ip, rt)
        sids, out_v = buf[16], buf[14]
        for b in range(w, nb, workers):
            j0, j1 = bptr[b], bptr[b + 1]
            for j in range(j0, j1):
                for i in range(length[j]):
                    old[start[j] + i] = W[members[start[j] + i]]
            if kind[j0] == 0:
                nl = j1 - j0
                for q in range(nl):
                    sids[q] = members[start[j0 + q]]
                work[w] += race_eval_lanes(nl, W, F, CH, ip, rt, p_allonly, rows, False, buf)
                for q in range(nl):
                    W[sids[q]] = out_v[q]
            else:
                work[w] += solve_cycles(kind, start, length, j0, j1, members, W, F, CH, ip, rt, p_allonly, tol, rows,
                                        buf)
    return work.sum()
