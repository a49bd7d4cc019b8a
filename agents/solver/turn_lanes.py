"""The turn DP of the game solvers, on one turn or on :data:`LANES` turns at once.

:func:`turn_dp_lanes` solves ``nl`` turns (*lanes*) of the same ruleset side by side: each lane has
its own endings (``B``, ``Zv``, the followed ``fB``/``fZ``), turn-total cap, bank bar and end zone;
they share the roll classes, so every position's keep options are looked up once for all lanes and
the best option of a class is taken for eight lanes with the same vector instructions (about four
times the turns per second of one lane on the machines we measured). Arrays are *laned*: entry ``l``
of position ``x`` is at ``x * W + l``, with ``W`` 1 (one turn, the layout of
:func:`agents.solver.game_turn.turn_dp`, which calls this with ``W = 1``) or :data:`LANES`.

The rules of one turn, the cap, the end-zone cut and the followed value are those of
:func:`agents.solver.game_turn.turn_dp` (its docstring describes them); every lane's values are,
bit for bit, those of that lane solved alone: a lane's rows at or above its own cap hold its cap's
values, and a position is cut where that lane alone would cut it.
"""

from __future__ import annotations

import numpy as np
from zilch_env.jit import njit

from zilch_env.rules.primitives import nb_can_bank

#: Turns solved side by side by the batched kernels (eight float64 lanes: one AVX-512 register, two AVX2).
LANES = 8


@njit(cache=True, nogil=True, inline="always")
def _max1(Q, qb, off, o0, o1):
    best = -1.0
    for o in range(o0, o1):
        best = max(best, Q[qb + off[o]])
    return best


@njit(cache=True, nogil=True, inline="always")
def _max8(Q, qb, off, o0, o1):
    """The best ``Q`` over the options ``o0:o1`` for eight lanes (``Q[(qb + off[o]) * 8 + l]``)."""
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = -1.0
    for o in range(o0, o1):
        k = (qb + off[o]) * 8
        b0 = max(b0, Q[k])
        b1 = max(b1, Q[k + 1])
        b2 = max(b2, Q[k + 2])
        b3 = max(b3, Q[k + 3])
        b4 = max(b4, Q[k + 4])
        b5 = max(b5, Q[k + 5])
        b6 = max(b6, Q[k + 6])
        b7 = max(b7, Q[k + 7])
    return b0, b1, b2, b3, b4, b5, b6, b7


@njit(cache=True, nogil=True, inline="always")
def _argmax8(Q, qb, off, o0, o1):
    """:func:`_max8` with each lane's first best option: ``(best0, ..., best7, arg0, ..., arg7)``."""
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = -1.0
    i0 = i1 = i2 = i3 = i4 = i5 = i6 = i7 = o0
    for o in range(o0, o1):
        k = (qb + off[o]) * 8
        v = Q[k]
        c = v > b0
        b0 = v if c else b0
        i0 = o if c else i0
        v = Q[k + 1]
        c = v > b1
        b1 = v if c else b1
        i1 = o if c else i1
        v = Q[k + 2]
        c = v > b2
        b2 = v if c else b2
        i2 = o if c else i2
        v = Q[k + 3]
        c = v > b3
        b3 = v if c else b3
        i3 = o if c else i3
        v = Q[k + 4]
        c = v > b4
        b4 = v if c else b4
        i4 = o if c else i4
        v = Q[k + 5]
        c = v > b5
        b5 = v if c else b5
        i5 = o if c else i5
        v = Q[k + 6]
        c = v > b6
        b6 = v if c else b6
        i6 = o if c else i6
        v = Q[k + 7]
        c = v > b7
        b7 = v if c else b7
        i7 = o if c else i7
    return b0, b1, b2, b3, b4, b5, b6, b7, i0, i1, i2, i3, i4, i5, i6, i7


@njit(cache=True, nogil=True)
def turn_dp_lanes(W, nl, tcaps, thrs, tends, forced, bonus, D, S, NP, B, Zv,
                  cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz, p_allonly,
                  Q, C, dQ, dC, t_from, cut, pad, arg, fB, fZ, t_top, out_v, out_d):
    """``nl`` turns solved side by side (``W`` = 1 or :data:`LANES` lanes per position).

    Per lane ``l``: ``tcaps[l]``, ``thrs[l]``, ``tends[l]`` (cap, least bank, start of the end zone),
    ``B[t * W + l]`` (up to its cap), ``Zv[pi * W + l]``, and where given ``fB``/``fZ`` the same way;
    the results go to ``out_v[l]`` (the value at turn total ``t_from`` with all the dice) and
    ``out_d[l]`` (the followed value there). ``Q``, ``C``, ``dQ``, ``dC`` and ``arg`` are laned
    versions of :func:`agents.solver.game_turn.turn_dp`'s arrays, sized for the largest cap (plus
    ``pad``); ``arg`` holds option ``o`` of class ``c`` at ``((t * NP + pi) * ncls + c) * W + l``.
    ``t_top`` (resuming) applies to every lane and needs ``t_top`` below every lane's cap."""
    ncls = cls_hi[D]
    keep_arg = arg.shape[0] > 0
    deriv = dQ.shape[0] > 0
    given = fB.shape[0] > 0
    wide = W == LANES
    rowq = NP * D
    rowc = NP * (D + 1)
    tmax = 0
    for l in range(nl):
        tmax = max(tmax, tcaps[l])
    resume = 0 <= t_top < tmax
    acc = np.zeros(LANES)
    dacc = np.zeros(LANES)
    # each lane's rows at and above its cap: bank there (the cap is the caller's choice, see turn_dp)
    for l in range(nl):
        if resume:
            break
        tcap = tcaps[l]
        Bcap = B[tcap * W + l]
        fcap = fB[tcap * W + l] if given else 0.0
        for t in range(tcap, tcap + pad + 1):
            for pi in range(NP):
                z = Zv[pi * W + l]
                dz = fZ[pi * W + l] if given else (1.0 if pi == 0 else 0.0)
                qb = t * rowq + pi * D
                cb = t * rowc + pi * (D + 1)
                for n in range(1, D + 1):
                    C[(cb + n) * W + l] = (1.0 - pz[n]) * Bcap + pz[n] * z
                for m in range(D):
                    Q[(qb + m) * W + l] = Bcap
                if bonus > 0:
                    # D dice never zilch (the bonus rolls them again): banking at the cap is sure
                    C[(cb + D) * W + l] = Bcap
                elif forced:
                    # hot dice must be rolled: roll D dice; a class whose every option uses all the
                    # dice rolls again, any other banks
                    Q[qb * W + l] = ((1.0 - pz[D] - p_allonly) * Bcap + pz[D] * z) / (1.0 - p_allonly)
                if deriv:
                    for n in range(1, D + 1):
                        dC[(cb + n) * W + l] = (1.0 - pz[n]) * fcap + pz[n] * dz
                    for m in range(D):
                        dQ[(qb + m) * W + l] = fcap
                    if bonus > 0:
                        dC[(cb + D) * W + l] = fcap
                    elif forced:
                        dQ[qb * W + l] = ((1.0 - pz[D] - p_allonly) * fcap + pz[D] * dz) / (1.0 - p_allonly)
    cutl = np.zeros(LANES, np.bool_)
    for t in range((t_top if resume else tmax - 1), t_from - 1, -1):
        pmax = NP - 1
        if S > 0 and t // S < pmax:
            pmax = t // S
        for pi in range(pmax + 1):
            qb = t * rowq + pi * D
            cb = t * rowc + pi * (D + 1)
            ab = (t * NP + pi) * ncls
            for n in range(1, D + 1):
                m_of = n if n < D else 0
                # the exact end-zone cut, lane by lane: banking is optimal, the roll is never read
                todo = False
                for l in range(nl):
                    if t >= tcaps[l]:
                        cutl[l] = False  # the lane's boundary rows stay as they are
                        continue
                    bt = B[t * W + l]
                    z = Zv[pi * W + l]
                    cutl[l] = (cut and t >= tends[l] and t >= thrs[l] and t > t_from
                               and not (m_of == 0 and (forced or bonus > 0)) and 1.0 - bt <= pz[n] * (1.0 - z))
                    if cutl[l]:
                        Q[(qb + m_of) * W + l] = bt
                        C[(cb + n) * W + l] = -1.0
                        if deriv:
                            dQ[(qb + m_of) * W + l] = fB[t * W + l] if given else 0.0
                            dC[(cb + n) * W + l] = 0.0
                    else:
                        todo = True
                if not todo:
                    continue
                for l in range(LANES):
                    acc[l] = 0.0
                    dacc[l] = 0.0
                if wide and not (deriv or keep_arg):
                    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
                    for c in range(cls_lo[n], cls_hi[n]):
                        b0, b1, b2, b3, b4, b5, b6, b7 = _max8(Q, qb, opt_off, opt_lo[c], opt_hi[c])
                        p = cls_p[c]
                        a0 += p * b0
                        a1 += p * b1
                        a2 += p * b2
                        a3 += p * b3
                        a4 += p * b4
                        a5 += p * b5
                        a6 += p * b6
                        a7 += p * b7
                    acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7] = a0, a1, a2, a3, a4, a5, a6, a7
                elif wide:
                    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
                    d0 = d1 = d2 = d3 = d4 = d5 = d6 = d7 = 0.0
                    for c in range(cls_lo[n], cls_hi[n]):
                        b0, b1, b2, b3, b4, b5, b6, b7, i0, i1, i2, i3, i4, i5, i6, i7 = _argmax8(
                            Q, qb, opt_off, opt_lo[c], opt_hi[c])
                        p = cls_p[c]
                        a0 += p * b0
                        a1 += p * b1
                        a2 += p * b2
                        a3 += p * b3
                        a4 += p * b4
                        a5 += p * b5
                        a6 += p * b6
                        a7 += p * b7
                        if keep_arg:
                            k = (ab + c) * LANES
                            arg[k], arg[k + 1], arg[k + 2], arg[k + 3] = i0, i1, i2, i3
                            arg[k + 4], arg[k + 5], arg[k + 6], arg[k + 7] = i4, i5, i6, i7
                        if deriv:
                            d0 += p * dQ[(qb + opt_off[i0]) * LANES]
                            d1 += p * dQ[(qb + opt_off[i1]) * LANES + 1]
                            d2 += p * dQ[(qb + opt_off[i2]) * LANES + 2]
                            d3 += p * dQ[(qb + opt_off[i3]) * LANES + 3]
                            d4 += p * dQ[(qb + opt_off[i4]) * LANES + 4]
                            d5 += p * dQ[(qb + opt_off[i5]) * LANES + 5]
                            d6 += p * dQ[(qb + opt_off[i6]) * LANES + 6]
                            d7 += p * dQ[(qb + opt_off[i7]) * LANES + 7]
                    acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7] = a0, a1, a2, a3, a4, a5, a6, a7
                    dacc[0], dacc[1], dacc[2], dacc[3], dacc[4], dacc[5], dacc[6], dacc[7] = d0, d1, d2, d3, d4, d5, d6, d7
                elif deriv or keep_arg:
                    a = 0.0
                    da = 0.0
                    for c in range(cls_lo[n], cls_hi[n]):
                        best = -1.0
                        bo = 0
                        bopt = 0
                        for o in range(opt_lo[c], opt_hi[c]):
                            k = qb + opt_off[o]
                            v = Q[k]
                            if v > best:
                                best = v
                                bo = k
                                bopt = o
                        a += cls_p[c] * best
                        if deriv:
                            da += cls_p[c] * dQ[bo]
                        if keep_arg:
                            arg[ab + c] = bopt
                    acc[0] = a
                    dacc[0] = da
                else:
                    # only the value: a branch-free max (the comparisons are unpredictable)
                    a = 0.0
                    for c in range(cls_lo[n], cls_hi[n]):
                        a += cls_p[c] * _max1(Q, qb, opt_off, opt_lo[c], opt_hi[c])
                    acc[0] = a
                for l in range(nl):
                    if t >= tcaps[l] or cutl[l]:
                        continue
                    tcap = tcaps[l]
                    thr = thrs[l]
                    a = acc[l]
                    da = dacc[l]
                    if n == D and bonus > 0:
                        # the bonus joins the turn total; then bank (where the bar allows) or roll D again
                        tb = t + bonus
                        k = (cb + bonus * rowc + D) * W + l
                        bv = B[tb * W + l] if tb < tcap else B[tcap * W + l]
                        if nb_can_bank(tb, D, thr, forced) and bv >= C[k]:
                            a += pz[n] * bv
                            if deriv and given:
                                da += pz[n] * (fB[tb * W + l] if tb < tcap else fB[tcap * W + l])
                        else:
                            a += pz[n] * C[k]
                            if deriv:
                                da += pz[n] * dC[k]
                    else:
                        a += pz[n] * Zv[pi * W + l]
                        if given:
                            da += pz[n] * fZ[pi * W + l]
                        elif pi == 0:
                            da += pz[n]
                    C[(cb + n) * W + l] = a
                    bt = B[t * W + l]
                    banked = nb_can_bank(t, m_of, thr, forced) and bt >= a
                    Q[(qb + m_of) * W + l] = bt if banked else a
                    if deriv:
                        dC[(cb + n) * W + l] = da
                        dQ[(qb + m_of) * W + l] = (fB[t * W + l] if given else 0.0) if banked else da
    k = (t_from * NP) * (D + 1) + D
    for l in range(nl):
        out_v[l] = C[k * W + l]
        out_d[l] = dC[k * W + l] if deriv else 0.0


@njit(cache=True, nogil=True)
def turn_forward_lane(W, l, tcap, thr, forced, bonus, D, S, NP, B, cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz,
                      p_allonly, pad, Q, C, arg, bank, zil, Mr, Mp):
    """Where lane ``l``'s optimal turn ends (:func:`agents.solver.game_turn.turn_forward`), from the
    laned ``C`` and ``arg`` of :func:`turn_dp_lanes` (``W`` lanes) and the lane's ``B[t * W + l]``.
    With ``arg`` empty the option of each class is found again where the turn goes, from the laned
    ``Q`` (the first best option, as ``turn_dp_lanes`` records it): a turn reaches a small share of its
    positions (about an eighth in a race), so this costs less than recording every choice."""
    given = arg.shape[0] > 0
    ncls = cls_hi[D]
    rowc = NP * (D + 1)
    rows = tcap + 1 + pad
    Mr[:rows * rowc] = 0.0  # mass about to roll n dice
    Mp[:rows * NP * D] = 0.0  # mass that just kept, m dice left
    bank[:] = 0.0
    zil[:] = 0.0
    Mr[D] = 1.0
    for t in range(0, tcap):
        pmax = NP - 1
        if S > 0 and t // S < pmax:
            pmax = t // S
        bt = B[t * W + l]
        for pi in range(pmax + 1):
            cb = t * rowc + pi * (D + 1)
            qb = (t * NP + pi) * D
            # decisions after a keep at t
            for m in range(D):
                mass = Mp[qb + m]
                if mass == 0.0:
                    continue
                n2 = m if m > 0 else D
                c2 = C[(cb + n2) * W + l]
                if nb_can_bank(t, m, thr, forced) and (c2 < 0.0 or bt >= c2):
                    bank[t] += mass
                else:
                    Mr[cb + n2] += mass
            # rolls at t
            ab = (t * NP + pi) * ncls
            for n in range(1, D + 1):
                mass = Mr[cb + n]
                if mass == 0.0:
                    continue
                # an option's offset from the position in Q is its offset in Mp (same layout)
                for c in range(cls_lo[n], cls_hi[n]):
                    if given:
                        o = arg[(ab + c) * W + l]
                    else:
                        best = -1.0
                        o = opt_lo[c]
                        for o2 in range(opt_lo[c], opt_hi[c]):
                            v = Q[(qb + opt_off[o2]) * W + l]
                            if v > best:
                                best = v
                                o = o2
                    Mp[qb + opt_off[o]] += mass * cls_p[c]
                if n == D and bonus > 0:  # the bonus, then bank or roll D dice again (as turn_dp)
                    tb = t + bonus
                    kb = tb * rowc + pi * (D + 1) + D
                    if tb < tcap and nb_can_bank(tb, D, thr, forced) and B[tb * W + l] >= C[kb * W + l]:
                        bank[tb] += mass * pz[n]
                    else:
                        Mr[kb] += mass * pz[n]
                else:
                    zil[pi] += mass * pz[n]
    # at and past the cap: bank there, or (forced hot dice) roll all the dice once more
    for t in range(tcap, rows):
        for pi in range(NP):
            cb = t * rowc + pi * (D + 1)
            qb = (t * NP + pi) * D
            for m in range(D):
                mass = Mp[qb + m]
                if m == 0 and forced and bonus == 0:
                    den = 1.0 - p_allonly
                    bank[tcap] += mass * (1.0 - pz[D] - p_allonly) / den
                    zil[pi] += mass * pz[D] / den
                else:
                    bank[tcap] += mass
            for n in range(1, D + 1):
                bank[tcap] += Mr[cb + n]
