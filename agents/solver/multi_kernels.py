"""Numba kernels of the game solver of two or three players with overcoming (:mod:`agents.solver.multi`).

Units, roll classes, the integer parameters ``ip`` and the turn DP are the two-player solver's
(:mod:`agents.solver.game_kernels`, :func:`agents.solver.game_turn.turn_dp`); this module adds the state of a game
of ``N`` players (2 or 3, the rule parameter ``R_PLAYERS`` of ``ip``) under ``overcoming``, the sizes of
its grid ``mp`` (the ``MP_*`` names), and the endings of such a game.

The state at the start of a race turn (every score below the target)
    The score index of each player in playing order from the mover (0 = off the board, else 1 +
    the score in units) and the *bar*: the previous turn's recorded result in units (below the
    target, ``NB - 1``: a larger one would have reached it; always 0 without ``overcoming``). ``sid = ((ia * NS + ib) * NS + ic) * NB + bar`` for
    three players (``ia`` the mover, ``ib`` the next, ``ic`` the one after), ``(ia * NS + ib) * NB +
    bar`` for two. ``W0[sid]`` is the mover's win chance, ``W1[sid]`` the next player's (three
    players; the third's is ``1 - W0 - W1``): a draw of ``k`` players is worth ``1 / k`` to each.

The endings (once the mover's score reaches the target, every other player plays one more turn)
    ``LV[on, k, d, x]``: the last player's chance in their last turn, needing to end above ``d``
    units (``d`` itself ties with ``k + 1`` players at the top: worth ``1 / (k + 2)``) and, under
    overcoming, to bank above ``x`` (the previous turn's result); ``LW`` the same turn's chance of
    ending above ``d`` (an outright win). Three players: ``F3a``/``F3b[on_b, on_c, dB, dC, r]``, the
    win chances of the player who reached the target (``a``) and of the next (``b``), when ``a`` is
    ``dB`` units above ``b`` and ``dC`` above ``c`` with a turn that recorded ``r``: ``b`` plays its last
    turn knowing that ``c`` then plays theirs (``LV``/``LW``) against the top score and ``b``'s result.
    Leads and bars beyond ``DF`` (where the best one-turn chance of making them up falls below the
    solve's ``tail_eps``) are valued as ``DF``; ``a``'s result as ``b``'s bar beyond ``RB`` (where
    that chance falls below :data:`agents.solver.multi.BAR_EPS`, at least the target) as ``RB``.

Every turn maximises its mover's own win chance (a max-n equilibrium: every player plays the same
policy); ``turn_dp`` follows the other player's chance (``fB``/``fZ``) under the mover's choices.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from zilch_env.jit import njit

from zilch_env.engine import layout as L
from zilch_env.rules.primitives import nb_bank_bar as bank_bar, nb_turn_record

from agents.solver.game_turn import (IP_MAXPTS, IP_NP, IP_NS, IP_TU, bonus_units, entry_units, min_bank_units,
                                     straight_units, turn_dp)
from agents.solver.turn_lanes import LANES, turn_dp_lanes

MP_NB = 0  # bar values tracked (1 without overcoming)
MP_DF = 1  # largest lead (and bar) tracked in the final turns, units
MP_RB = 2  # largest result of the turn that reached the target tracked as the next player's bar, units
#            (0 without overcoming, where it is no bar)
MP_SIZE = 3


# --------------------------------------------------------------------------------------------
# One turn DP with a followed value


@njit(cache=True, nogil=True)
def dp(tcap, thr, tend, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC, t_top, cut):
    """:func:`turn_dp` of one turn from its start, following ``fB``/``fZ`` when ``dQ`` is not empty:
    ``(value, followed value)``; ``t_top >= 0`` resumes (rows above it as left by the last call)."""
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    bonus = bonus_units(ip)
    return turn_dp(tcap, thr, tend, ip[L.R_FORCED_HOT_DICE] == 1, bonus, ip[L.R_DICE], straight_units(ip), ip[IP_NP],
                   B, Zv, cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz, p_allonly, Q, C, dQ, dC, 0, cut,
                   max(ip[IP_MAXPTS], bonus), np.zeros(0, np.int32), fB, fZ, t_top)


@njit(cache=True, nogil=True)
def buffers(tmax, ip, follow):
    """One turn's work arrays up to cap ``tmax``: (B, fB, Zv, fZ, Q, C, dQ, dC); ``dQ``/``dC``
    empty unless ``follow``."""
    NP, D = ip[IP_NP], ip[L.R_DICE]
    rows = tmax + 1 + max(ip[IP_MAXPTS], bonus_units(ip))
    nd = rows if follow else 0
    return (np.zeros(tmax + 1), np.zeros(tmax + 1), np.zeros(NP), np.zeros(NP),
            np.zeros(rows * NP * D), np.zeros(rows * NP * (D + 1)),
            np.zeros(nd * NP * D), np.zeros(nd * NP * (D + 1)))


@njit(cache=True, nogil=True)
def recorded(on, p, ip):
    """What a zilch keeping ``p`` permanent units records (``zilch_env.rules.primitives.turn_record``)."""
    return nb_turn_record(False, 0, p, on, entry_units(ip))[0]


# --------------------------------------------------------------------------------------------
# The last turn of the game


@njit(cache=True, nogil=True)
def last_inputs(d, vt, on, ip, B, fB, Zv, fZ, tcap):
    """Fill a last turn's endings: above ``d`` units wins (1), ``d`` ties (``vt``); ``fB``/``fZ``
    1 where the turn ends above ``d`` (the outright win it follows)."""
    for t in range(tcap + 1):
        B[t] = 1.0 if t > d else (vt if t == d else 0.0)
        fB[t] = 1.0 if t > d else 0.0
    S = straight_units(ip)
    for pi in range(ip[IP_NP]):
        rec = recorded(on, pi * S, ip)
        Zv[pi] = 1.0 if rec > d else (vt if rec == d else 0.0)
        fZ[pi] = 1.0 if rec > d else 0.0


@njit(cache=True, nogil=True)
def last_situation(d, x, vt, on, ip, mp, rt, p_allonly, tmin, cut):
    """The DP of a last turn needing above ``d`` (``d`` ties, worth ``vt``) with bar ``x``:
    ``(tcap, thr, B, Q, C, value, chance of ending above d)``."""
    thr = bank_bar(on, entry_units(ip), min_bank_units(ip), ip[L.R_OVERCOMING] == 1, x)
    tcap = max(d + 1, thr, 1, tmin)
    B, fB, Zv, fZ, Q, C, dQ, dC = buffers(tcap, ip, True)
    last_inputs(d, vt, on, ip, B, fB, Zv, fZ, tcap)
    v, w = dp(tcap, thr, 0, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC, -1, cut)
    return tcap, thr, B, Q, C, v, w


@njit(cache=True, parallel=True, nogil=True)
def last_tables(ip, mp, rt, p_allonly, LV, LW):
    """``LV``/``LW[on, k, d, x]`` for d, x = 0..DF (see the module docstring): for each ``d`` one DP
    from the bar's start, then each bar that forbids more banks resumes it below that bar."""
    DF = mp[MP_DF]
    entry = entry_units(ip)
    over = ip[L.R_OVERCOMING] == 1
    nk = LV.shape[1]
    jobs = 2 * nk * (DF + 1)
    for j in prange(jobs):
        on = j // (nk * (DF + 1))
        k = (j // (DF + 1)) % nk
        d = j % (DF + 1)
        if on == 0 and entry == 0:
            continue  # everyone is on the board: copied below
        vt = 1.0 / (k + 2)
        tcap = max(DF + 2, entry + 1)
        B, fB, Zv, fZ, Q, C, dQ, dC = buffers(tcap, ip, True)
        last_inputs(d, vt, on == 1, ip, B, fB, Zv, fZ, tcap)
        thr0 = bank_bar(on == 1, entry, min_bank_units(ip), over, 0)
        v, w = dp(tcap, thr0, 0, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC, -1, True)
        for x in range(DF + 1):
            thr = bank_bar(on == 1, entry, min_bank_units(ip), over, x)
            # a bar below d forbids only banks worth nothing (below d), which rolling on beats
            if thr != thr0 and x >= d:
                v, w = dp(tcap, thr, 0, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC, thr - 1, True)
                thr0 = thr
            LV[on, k, d, x] = v
            LW[on, k, d, x] = w
    if entry == 0:
        LV[0] = LV[1]
        LW[0] = LW[1]


@njit(cache=True, nogil=True)
def last_share(LV, LW, on, k, d, x, DF):
    """The last player's turn against a top score ``d`` units above them, ``k + 1`` players on it,
    and bar ``x``: (their chance of ending above it, of tying it)."""
    dd = min(max(d, 0), DF)
    xx = min(max(x, 0), DF)
    w = LW[on, k, dd, xx]
    v = LV[on, k, dd, xx]
    return w, (v - w) * (k + 2)


@njit(cache=True, nogil=True)
def _second_end(y, dB, dC, on_c, LV, LW, DF):
    """``(b's chance, a's chance)`` once ``b`` records ``y`` units (its result, ``c``'s bar)."""
    if y < dB:  # a alone at the top
        w, t = last_share(LV, LW, on_c, 0, dC, y, DF)
        return 0.0, (1.0 - w - t) + t / 2.0
    if y == dB:  # a and b tie at the top
        w, t = last_share(LV, LW, on_c, 1, dC, y, DF)
        v = (1.0 - w - t) / 2.0 + t / 3.0
        return v, v
    w, t = last_share(LV, LW, on_c, 0, y - dB + dC, y, DF)
    return (1.0 - w - t) + t / 2.0, 0.0


@njit(cache=True, nogil=True)
def second_fill(dB, dC, on_b, on_c, ip, mp, LV, LW, B, fB, Zv, fZ, tcap):
    """Fill ``b``'s last turn (see :func:`_second_end`): banks, and zilches recording the permanent
    straights kept."""
    DF = mp[MP_DF]
    for y in range(tcap + 1):
        B[y], fB[y] = _second_end(y, dB, dC, on_c, LV, LW, DF)
    S = straight_units(ip)
    for pi in range(ip[IP_NP]):
        Zv[pi], fZ[pi] = _second_end(recorded(on_b, pi * S, ip), dB, dC, on_c, LV, LW, DF)


@njit(cache=True, nogil=True)
def second_cap(dB, dC, ip, mp):
    """The cap of ``b``'s last turn: from there on ``c`` needs at least ``DF`` (valued as ``DF``), above
    every bar ``b`` may have."""
    return max(dB + 1 + max(mp[MP_DF] - dC, 0), mp[MP_RB] + 1, mp[MP_DF] + 1, entry_units(ip), 1)


@njit(cache=True, nogil=True)
def second_situation(dB, dC, r, on_b, on_c, ip, mp, rt, p_allonly, LV, LW, tmin, cut):
    """The DP of ``b``'s last turn (three players): ``(tcap, thr, B, Q, C, b's chance, a's chance)``."""
    thr = bank_bar(on_b, entry_units(ip), min_bank_units(ip), ip[L.R_OVERCOMING] == 1, r)
    tcap = max(second_cap(dB, dC, ip, mp), thr, tmin)
    B, fB, Zv, fZ, Q, C, dQ, dC_ = buffers(tcap, ip, True)
    second_fill(dB, dC, on_b, on_c, ip, mp, LV, LW, B, fB, Zv, fZ, tcap)
    v, w = dp(tcap, thr, dB + 1, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC_, -1, cut)
    return tcap, thr, B, Q, C, v, w


@njit(cache=True, parallel=True, nogil=True)
def second_tables(ip, mp, rt, p_allonly, LV, LW, F3a, F3b):
    """``F3a``/``F3b[on_b, on_c, dB, dC, r]`` (three players): ``b``'s last turn for every lead and
    every result ``r`` of ``a``'s turn (``b``'s bar, up to ``RB``), one DP per lead pair resumed below
    each bar that forbids more banks; a bar below ``dB`` forbids only banks worth nothing to ``b``."""
    DF, RB = mp[MP_DF], mp[MP_RB]
    entry = entry_units(ip)
    over = ip[L.R_OVERCOMING] == 1
    jobs = 4 * DF * DF
    for j in prange(jobs):
        on_b = j // (2 * DF * DF)
        on_c = (j // (DF * DF)) % 2
        dB = 1 + (j // DF) % DF
        dC = 1 + j % DF
        if entry == 0 and (on_b == 0 or on_c == 0):
            continue
        tcap = second_cap(dB, dC, ip, mp)
        B, fB, Zv, fZ, Q, C, dQ, dCc = buffers(tcap, ip, True)
        second_fill(dB, dC, on_b == 1, on_c, ip, mp, LV, LW, B, fB, Zv, fZ, tcap)
        thr0 = bank_bar(on_b == 1, entry, min_bank_units(ip), over, 0)
        v, w = dp(tcap, thr0, dB + 1, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dCc, -1, True)
        for r in range(RB + 1):
            thr = bank_bar(on_b == 1, entry, min_bank_units(ip), over, r)
            if thr != thr0 and r >= dB:
                v, w = dp(tcap, thr, dB + 1, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dCc, thr - 1, True)
                thr0 = thr
            F3a[on_b, on_c, dB, dC, r] = w
            F3b[on_b, on_c, dB, dC, r] = v
    if entry == 0:
        for on_b in range(2):
            for on_c in range(2):
                F3a[on_b, on_c] = F3a[1, 1]
                F3b[on_b, on_c] = F3b[1, 1]


# --------------------------------------------------------------------------------------------
# The race


@njit(cache=True, nogil=True)
def score_of(i):
    """The score (units) of score index ``i``: 0 off the board, else ``i - 1``."""
    return i - 1 if i > 0 else 0


@njit(cache=True, nogil=True)
def encode(ia, ib, ic, bar, ip, mp):
    NS, NB = ip[IP_NS], mp[MP_NB]
    if ip[L.R_PLAYERS] == 2:
        return (ia * NS + ib) * NB + bar
    return ((ia * NS + ib) * NS + ic) * NB + bar


@njit(cache=True, nogil=True)
def race_cap(ia, ib, ic, ip, mp):
    """A race turn's cap: from there on every lead is at least ``DF`` (valued as ``DF``), and above
    every bar tracked."""
    a, b, c = score_of(ia), score_of(ib), score_of(ic)
    top = max(b, c) if ip[L.R_PLAYERS] == 3 else b
    return max(mp[MP_DF] + top - a, ip[IP_TU] - a + 1, mp[MP_NB], entry_units(ip), 1)


@njit(cache=True, nogil=True)
def _after(ia, ib, ic, A, rec, on, ip, mp, W0, W1, LV, LW, F3a, F3b):
    """(mover's chance, next player's chance) once the mover ends the turn at score ``A`` units
    recording ``rec`` (``on``: on the board after it)."""
    Tu, DF, NB = ip[IP_TU], mp[MP_DF], mp[MP_NB]
    x = min(rec, NB - 1) if ip[L.R_OVERCOMING] == 1 else 0  # the next state's bar
    ia2 = 1 + A if on else 0
    b = score_of(ib)
    if ip[L.R_PLAYERS] == 2:
        if A < Tu:
            s = encode(ib, ia2, 0, x, ip, mp)
            return 1.0 - W0[s], W0[s]
        w, t = last_share(LV, LW, 1 if ib > 0 else 0, 0, A - b, rec if ip[L.R_OVERCOMING] == 1 else 0, DF)
        vb = w + t / 2.0
        return 1.0 - vb, vb
    if A < Tu:
        s = encode(ib, ic, ia2, x, ip, mp)
        return 1.0 - W0[s] - W1[s], W0[s]
    c = score_of(ic)
    ob, oc = 1 if ib > 0 else 0, 1 if ic > 0 else 0
    r = min(rec, mp[MP_RB])
    return F3a[ob, oc, min(A - b, DF), min(A - c, DF), r], F3b[ob, oc, min(A - b, DF), min(A - c, DF), r]


@njit(cache=True, nogil=True)
def race_fill(ia, ib, ic, ip, mp, W0, W1, LV, LW, F3a, F3b, B, fB, Zv, fZ, tcap):
    """Fill a race turn's endings: ``B``/``fB[t]`` the mover's and the next player's chance after
    banking ``t``, ``Zv``/``fZ[pi]`` after a zilch keeping ``pi`` permanent straights (a plain zilch
    leads to the next player's turn at the same scores, bar 0)."""
    a = score_of(ia)
    on = ia > 0
    B[0] = 0.0
    fB[0] = 0.0
    for t in range(1, tcap + 1):
        B[t], fB[t] = _after(ia, ib, ic, a + t, t, True, ip, mp, W0, W1, LV, LW, F3a, F3b)
    S = straight_units(ip)
    for pi in range(ip[IP_NP]):
        rec = recorded(on, pi * S, ip)
        Zv[pi], fZ[pi] = _after(ia, ib, ic, a + rec, rec, on or rec > 0, ip, mp, W0, W1, LV, LW, F3a, F3b)


@njit(cache=True, nogil=True)
def race_situation(ia, ib, ic, bar, ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, tmin, cut):
    """The DP of a race turn under bar ``bar`` (units, unclipped): ``(tcap, thr, B, Q, C, value,
    next player's chance)``."""
    thr = bank_bar(ia > 0, entry_units(ip), min_bank_units(ip), ip[L.R_OVERCOMING] == 1, bar)
    tcap = max(race_cap(ia, ib, ic, ip, mp), thr, tmin)
    B, fB, Zv, fZ, Q, C, dQ, dC = buffers(tcap, ip, True)
    race_fill(ia, ib, ic, ip, mp, W0, W1, LV, LW, F3a, F3b, B, fB, Zv, fZ, tcap)
    v, w = dp(tcap, thr, max(ip[IP_TU] - score_of(ia), 0), ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC,
              -1, cut)
    return tcap, thr, B, Q, C, v, w


@njit(cache=True, nogil=True)
def _solve_class(rot, k, ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, tol, buf):
    """Solve the ``k`` rotations of one score tuple (``rot[j]``'s plain zilch leads to ``rot[j + 1]``,
    the last one's to the first, bar 0): Gauss-Seidel on their bar-0 values until no value moves by
    more than ``tol``, then every bar of each (:func:`_solve_bars`). Returns the number of turn DPs
    (resumed ones counted as one)."""
    B, fB, Zv, fZ, Q, C, dQ, dC = buf
    three = ip[L.R_PLAYERS] == 3
    entry, minb, over = entry_units(ip), min_bank_units(ip), ip[L.R_OVERCOMING] == 1
    Tu = ip[IP_TU]
    n = 0
    for j in range(k):
        s = encode(rot[j, 0], rot[j, 1], rot[j, 2], 0, ip, mp)
        if W0[s] != W0[s]:
            W0[s] = 1.0 / ip[L.R_PLAYERS]
            if three:
                W1[s] = 1.0 / 3.0
    for it in range(1000):
        change = 0.0
        for jj in range(k - 1, -1, -1):
            ia, ib, ic = rot[jj, 0], rot[jj, 1], rot[jj, 2]
            tcap = race_cap(ia, ib, ic, ip, mp)
            race_fill(ia, ib, ic, ip, mp, W0, W1, LV, LW, F3a, F3b, B, fB, Zv, fZ, tcap)
            thr0 = bank_bar(ia > 0, entry, minb, over, 0)
            v, w = dp(tcap, thr0, max(Tu - score_of(ia), 0), ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC,
                      -1, True)
            n += 1
            s = encode(ia, ib, ic, 0, ip, mp)
            change = max(change, abs(v - W0[s]))
            W0[s] = v
            if three:
                change = max(change, abs(w - W1[s]))
                W1[s] = w
        if change <= tol:
            break
    return n + _solve_bars(rot, k, ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, buf)


@njit(cache=True, nogil=True)
def _solve_bars(rot, k, ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, buf):
    """Every bar above 0 of the ``k`` rotations of one solved score tuple (under overcoming): the
    bar-0 DP again, resumed below each bar that forbids more banks. Returns the number of turn DPs."""
    B, fB, Zv, fZ, Q, C, dQ, dC = buf
    NB = mp[MP_NB]
    if NB == 1:
        return 0
    three = ip[L.R_PLAYERS] == 3
    entry, minb, over = entry_units(ip), min_bank_units(ip), ip[L.R_OVERCOMING] == 1
    Tu = ip[IP_TU]
    n = 0
    for jj in range(k):
        ia, ib, ic = rot[jj, 0], rot[jj, 1], rot[jj, 2]
        tcap = race_cap(ia, ib, ic, ip, mp)
        race_fill(ia, ib, ic, ip, mp, W0, W1, LV, LW, F3a, F3b, B, fB, Zv, fZ, tcap)
        thr0 = bank_bar(ia > 0, entry, minb, over, 0)
        tend = max(Tu - score_of(ia), 0)
        v, w = dp(tcap, thr0, tend, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC, -1, True)
        n += 1
        s0 = encode(ia, ib, ic, 0, ip, mp)
        for bar in range(1, NB):
            thr = bank_bar(ia > 0, entry, minb, over, bar)
            if thr != thr0:
                v, w = dp(tcap, thr, tend, ip, rt, p_allonly, B, Zv, fB, fZ, Q, C, dQ, dC, thr - 1, True)
                thr0 = thr
                n += 1
            W0[s0 + bar] = v
            if three:
                W1[s0 + bar] = w
    return n


@njit(cache=True, nogil=True)
def lane_buffers(tmax, ip, follow):
    """The laned work arrays of :func:`_solve_classes` (:data:`agents.solver.turn_lanes.LANES` turns side by
    side, up to cap ``tmax``): (B, fB, Zv, fZ, Q, C, dQ, dC, tcaps, thrs, tends, out_v, out_d); ``dQ``/``dC``
    empty unless ``follow``."""
    NP, D, W = ip[IP_NP], ip[L.R_DICE], LANES
    rows = tmax + 1 + max(ip[IP_MAXPTS], bonus_units(ip))
    nd = rows if follow else 0
    return (np.zeros((tmax + 1) * W), np.zeros((tmax + 1) * W), np.zeros(NP * W), np.zeros(NP * W),
            np.zeros(rows * NP * D * W), np.zeros(rows * NP * (D + 1) * W),
            np.zeros(nd * NP * D * W), np.zeros(nd * NP * (D + 1) * W),
            np.zeros(W, np.int64), np.zeros(W, np.int64), np.zeros(W, np.int64), np.zeros(W), np.zeros(W))


@njit(cache=True, nogil=True)
def _solve_classes(rots, ks, cls, ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, tol, buf, lbuf):
    """:func:`_solve_class` of up to :data:`agents.solver.turn_lanes.LANES` score tuples ``cls`` of one
    rotation count at once: their Gauss-Seidel passes run in step, the turns of one rotation of every
    tuple still moving solved side by side (:func:`agents.solver.turn_lanes.turn_dp_lanes`); a tuple
    leaves the batch after the pass in which it would have stopped alone, so every value is, bit for
    bit, :func:`_solve_class`'s. Returns the number of turn DPs."""
    B, fB, Zv, fZ = buf[0], buf[1], buf[2], buf[3]
    LB, LfB, LZv, LfZ, LQ, LC, LdQ, LdC, tcaps, thrs, tends, out_v, out_d = lbuf
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    nc = cls.shape[0]
    k = ks[cls[0]]
    three = ip[L.R_PLAYERS] == 3
    entry, minb, over = entry_units(ip), min_bank_units(ip), ip[L.R_OVERCOMING] == 1
    Tu, NP, D = ip[IP_TU], ip[IP_NP], ip[L.R_DICE]
    bonus = bonus_units(ip)
    forced = ip[L.R_FORCED_HOT_DICE] == 1
    S = straight_units(ip)
    pad = max(ip[IP_MAXPTS], bonus)
    no_arg = np.zeros(0, np.int32)
    n = 0
    for q in range(nc):
        rot = rots[cls[q]]
        for j in range(k):
            s = encode(rot[j, 0], rot[j, 1], rot[j, 2], 0, ip, mp)
            if W0[s] != W0[s]:
                W0[s] = 1.0 / ip[L.R_PLAYERS]
                if three:
                    W1[s] = 1.0 / 3.0
    active = np.ones(nc, np.bool_)
    change = np.zeros(nc)
    act = np.zeros(LANES, np.int64)
    for it in range(1000):
        na = 0
        for q in range(nc):
            if active[q]:
                act[na] = q
                na += 1
        if na == 0:
            break
        nw = 1 if na == 1 else LANES
        for q in range(na):
            change[act[q]] = 0.0
        for jj in range(k - 1, -1, -1):
            for l in range(na):
                rot = rots[cls[act[l]]]
                ia, ib, ic = rot[jj, 0], rot[jj, 1], rot[jj, 2]
                tcap = race_cap(ia, ib, ic, ip, mp)
                race_fill(ia, ib, ic, ip, mp, W0, W1, LV, LW, F3a, F3b, B, fB, Zv, fZ, tcap)
                for t in range(tcap + 1):
                    LB[t * nw + l] = B[t]
                    LfB[t * nw + l] = fB[t]
                for pi in range(NP):
                    LZv[pi * nw + l] = Zv[pi]
                    LfZ[pi * nw + l] = fZ[pi]
                tcaps[l] = tcap
                thrs[l] = bank_bar(ia > 0, entry, minb, over, 0)
                tends[l] = max(Tu - score_of(ia), 0)
            turn_dp_lanes(nw, na, tcaps, thrs, tends, forced, bonus, D, S, NP, LB, LZv, cls_lo, cls_hi, cls_p,
                          opt_lo, opt_hi, opt_off, pz, p_allonly, LQ, LC, LdQ, LdC, 0, True, pad, no_arg, LfB, LfZ,
                          -1, out_v, out_d)
            n += na
            for l in range(na):
                q = act[l]
                rot = rots[cls[q]]
                s = encode(rot[jj, 0], rot[jj, 1], rot[jj, 2], 0, ip, mp)
                v, w = out_v[l], out_d[l]
                change[q] = max(change[q], abs(v - W0[s]))
                W0[s] = v
                if three:
                    change[q] = max(change[q], abs(w - W1[s]))
                    W1[s] = w
        for l in range(na):
            if change[act[l]] <= tol:
                active[act[l]] = False
    for q in range(nc):
        n += _solve_bars(rots[cls[q]], k, ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, buf)
    return n


@njit(cache=True, parallel=True, nogil=True)
def solve_level(rots, ks, ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, tol, workers, order, bptr):
    """Solve the score tuples of one level (one sum of the scores) in parallel, each worker with its
    own work arrays. ``rots[i]`` holds the rotations of tuple ``i`` (``ks[i]`` of them). With ``bptr``
    empty worker ``w`` takes tuples ``w, w + workers, ...`` one at a time (:func:`_solve_class`);
    otherwise it takes batches ``w, w + workers, ...``, batch ``b`` the tuples ``order[bptr[b]:bptr[b + 1]]``
    (at most :data:`agents.solver.turn_lanes.LANES`, of one rotation count), solved side by side
    (:func:`_solve_classes`, the same values). Returns the number of turn DPs."""
    n = ks.shape[0]
    tmax = mp[MP_DF] + ip[IP_TU] + mp[MP_NB] + entry_units(ip) + 1
    work = np.zeros(workers, np.int64)
    follow = ip[L.R_PLAYERS] == 3
    nbatch = bptr.shape[0] - 1
    for w in prange(workers):
        buf = buffers(tmax, ip, follow)
        if nbatch < 1:
            for i in range(w, n, workers):
                work[w] += _solve_class(rots[i], ks[i], ip, mp, rt, p_allonly, W0, W1, LV, LW, F3a, F3b, tol, buf)
        else:
            lbuf = lane_buffers(tmax, ip, follow)
            for b in range(w, nbatch, workers):
                work[w] += _solve_classes(rots, ks, order[bptr[b]:bptr[b + 1]], ip, mp, rt, p_allonly, W0, W1, LV,
                                          LW, F3a, F3b, tol, buf, lbuf)
    return work.sum()
