"""Numba kernels of one situation of a real game, for the agents and the advice: the whole turn's
values in a race, against a bar, from given endings and in a tie-break (:mod:`agents.solver.game_kernels`
describes the model)."""

from __future__ import annotations

import numpy as np
from zilch_env.jit import njit
from zilch_env.engine import layout as L

from agents.solver.game_turn import (IP_DCAP, IP_FLOOR, IP_NP, IP_TU, _dp, _dp_arg, entry_units, min_bank_units,
                                     scratch, turn_forward)
from agents.solver.game_challenge import challenge_inputs
from agents.solver.game_kernels import bar_inputs, first_tiebreak_inputs, race_inputs


# --------------------------------------------------------------------------------------------
# One situation of a real game, for the agent and the advice: the whole turn's values.


@njit(cache=True, nogil=True)
def race_situation(sid, W, F, ip, rt, p_allonly, tmin, cut, challenge=False):
    """The turn DP of race state ``sid`` with a cap of at least ``tmin`` (with ``challenge``, of the
    challenge turn declared in it): (tcap, thr, B, Q, C)."""
    tmax = max(ip[IP_DCAP] + ip[IP_TU] + ip[IP_FLOOR], tmin) + 1
    B, Zv, Q, C, dQ, dC = scratch(tmax, ip)
    if challenge:
        tcap, thr, tend = challenge_inputs(sid, W, F, ip, rt, B, Zv, tmin)
    else:
        tcap, thr, tend = race_inputs(sid, W, F, ip, rt, B, Zv, tmin)
    _dp(tcap, thr, tend, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, 0, cut)
    return tcap, thr, B, Q, C


@njit(cache=True, nogil=True)
def bar_situation(d, v, on, penf, ip, rt, p_allonly, tmin, cut, k=-1):
    """The turn DP of a last turn (or a second tie-break turn) against bar ``d``; with ``k`` 0 or 1,
    a last turn played as a challenge of the leader (``bar_inputs``)."""
    tmax = max(d + 1, min_bank_units(ip), entry_units(ip), 1, tmin)
    B, Zv, Q, C, dQ, dC = scratch(tmax, ip)
    tcap, thr = bar_inputs(d, v, on, penf, ip, B, Zv, tmin, k)
    _dp(tcap, thr, 0, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, 0, cut)
    return tcap, thr, B, Q, C


@njit(cache=True, nogil=True)
def given_situation(Bv, Zvv, thr, ip, rt, p_allonly, cut):
    """The turn DP of a turn whose endings are valued by the caller: ``Bv[t]`` banking turn total
    ``t`` (every total at or above ``len(Bv) - 1`` is banked there), ``Zvv[pi]`` a zilch keeping
    ``pi`` permanent straights, ``thr`` the least bank."""
    tcap = Bv.shape[0] - 1
    B, Zv, Q, C, dQ, dC = scratch(tcap, ip)
    B[:] = Bv
    Zv[:] = Zvv
    _dp(tcap, thr, 0, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, 0, cut)
    return tcap, thr, B, Q, C


@njit(cache=True, nogil=True)
def tiebreak_situation(G, ip, rt, p_allonly, tmin, cut):
    """The turn DP of the first tie-break turn of a round (``G`` = that round's bar chances)."""
    tmax = max(G.shape[0] - 1, tmin)
    B, Zv, Q, C, dQ, dC = scratch(tmax, ip)
    tcap, thr = first_tiebreak_inputs(G, ip, B, Zv, tmin)
    _dp(tcap, thr, 0, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, 0, cut)
    return tcap, thr, B, Q, C


@njit(cache=True)
def situation_outcomes(kind, sid, d, v, on, penf, W, F, G, ip, rt, p_allonly, k=-1):
    """How the optimal turn of a situation ends: (bank[t], zil[pi], B, Zv) with ``bank[t]`` the
    chance of banking turn total ``t`` and ``zil[pi]`` of a zilch keeping ``pi`` permanent
    straights. ``kind``: 0 race state ``sid``, 1 a turn against bar ``d`` (tie worth ``v``; with
    ``k`` 0 or 1 a last turn played as a challenge, as ``bar_inputs``), 2 the first tie-break turn
    against ``G``, 3 the challenge turn declared in race state ``sid``."""
    if kind == 0 or kind == 3:
        tmax = ip[IP_DCAP] + ip[IP_TU] + ip[IP_FLOOR] + 1
    elif kind == 1:
        tmax = max(d + 1, min_bank_units(ip), entry_units(ip), 1)
    else:
        tmax = G.shape[0] - 1
    B, Zv, Q, C, dQ, dC = scratch(tmax, ip)
    tend = 0
    if kind == 0:
        tcap, thr, tend = race_inputs(sid, W, F, ip, rt, B, Zv, 0)
    elif kind == 3:
        tcap, thr, tend = challenge_inputs(sid, W, F, ip, rt, B, Zv, 0)
    elif kind == 1:
        tcap, thr = bar_inputs(d, v, on, penf, ip, B, Zv, 0, k)
    else:
        tcap, thr = first_tiebreak_inputs(G, ip, B, Zv, 0)
    arg = np.empty((tcap + 1) * ip[IP_NP] * rt[1][ip[L.R_DICE]], np.int32)
    _dp_arg(tcap, thr, tend, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, True, arg)
    bank = np.zeros(tcap + 1)
    zil = np.zeros(ip[IP_NP])
    turn_forward(tcap, thr, ip, B, rt, p_allonly, C, arg, bank, zil, np.empty(C.shape[0]), np.empty(C.shape[0]))
    return bank, zil, B[:tcap + 1].copy(), Zv.copy()
