"""The batched turn DP (agents.solver.turn_lanes): eight turns solved side by side give, bit for bit, what
each turn solved alone gives (values, followed values, options chosen, where the turn ends), whatever
each lane's cap, bar and end zone, on rules with permanent straights, forced hot dice and the six-dice
bonus."""

from __future__ import annotations

import numpy as np
import pytest

from agents.solver import game_kernels as K
from agents.solver.turn_lanes import LANES, turn_dp_lanes, turn_forward_lane
from zilch_env import load_ruleset
from zilch_env.engine import layout as L

CASES = {
    "zilch": {},  # all_scoring, permanent straights
    "zilch15k": {},  # forced hot dice
    "farkle": {"variants.six_dice_zilch_bonus": 500, "variants.zilch_penalty.count": 0},  # free keeps, the bonus
}


def _rules(name):
    from agents.solver.game_table import _params
    from agents.solver.roll_classes import game_unit, roll_tables

    rs = load_ruleset(name, CASES[name])
    rt = roll_tables(rs, game_unit(rs))
    ip = _params(rs, rt, 60)
    return ip, rt.as_tuple(int(ip[K.IP_NP]), rs.dice), rt.p_allonly


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("mode", ["value", "deriv", "arg", "follow"])
def test_eight_lanes_are_eight_turns(name, mode):
    ip, rt, pa = _rules(name)
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    D, NP = int(ip[L.R_DICE]), int(ip[K.IP_NP])
    S, bonus = int(K.straight_units(ip)), int(K.bonus_units(ip))
    forced = bool(ip[L.R_FORCED_HOT_DICE])
    pad = max(int(ip[K.IP_MAXPTS]), bonus)
    ncls = int(cls_hi[D])
    rng = np.random.default_rng(hash((name, mode)) % 2**32)
    nl = 7  # one lane idle: its garbage must not leak
    tcaps = rng.integers(20, 90, LANES)
    thrs = rng.integers(0, 12, LANES)
    tends = rng.integers(10, 60, LANES)
    tmax = int(tcaps.max())
    rows = tmax + 1 + pad
    Bs = [np.sort(rng.random(tmax + 1)) for _ in range(LANES)]
    Zs = [np.sort(rng.random(NP)) * 0.4 for _ in range(LANES)]
    follow = mode == "follow"
    fBs = [rng.random(tmax + 1) for _ in range(LANES)] if follow else None
    fZs = [rng.random(NP) for _ in range(LANES)] if follow else None
    deriv = mode in ("deriv", "follow")
    record = mode == "arg"

    def arrays(W):
        Q = np.full(rows * NP * D * W, np.nan)
        C = np.full(rows * NP * (D + 1) * W, np.nan)
        n = rows if deriv else 0
        dQ, dC = np.full(n * NP * D * W, np.nan), np.full(n * NP * (D + 1) * W, np.nan)
        arg = np.zeros((tmax + 1) * NP * ncls * W if record else 0, np.int32)
        return Q, C, dQ, dC, arg

    # each lane alone
    alone = []
    for l in range(nl):
        Q, C, dQ, dC, arg = arrays(1)
        out_v, out_d = np.zeros(1), np.zeros(1)
        fB = fBs[l] if follow else np.zeros(0)
        fZ = fZs[l] if follow else np.zeros(0)
        turn_dp_lanes(1, 1, tcaps[l:l + 1], thrs[l:l + 1], tends[l:l + 1], forced, bonus, D, S, NP, Bs[l], Zs[l],
                      cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz, pa, Q, C, dQ, dC, 0, True, pad, arg, fB, fZ,
                      -1, out_v, out_d)
        alone.append((out_v[0], out_d[0], Q, C, arg))
    # side by side
    Q, C, dQ, dC, arg = arrays(LANES)
    B = np.stack(Bs, axis=1).ravel()
    Zv = np.stack(Zs, axis=1).ravel()
    fB = np.stack(fBs, axis=1).ravel() if follow else np.zeros(0)
    fZ = np.stack(fZs, axis=1).ravel() if follow else np.zeros(0)
    out_v, out_d = np.zeros(LANES), np.zeros(LANES)
    turn_dp_lanes(LANES, nl, tcaps, thrs, tends, forced, bonus, D, S, NP, B, Zv, cls_lo, cls_hi, cls_p, opt_lo,
                  opt_hi, opt_off, pz, pa, Q, C, dQ, dC, 0, True, pad, arg, fB, fZ, -1, out_v, out_d)
    for l in range(nl):
        v, d, Q1, C1, arg1 = alone[l]
        assert out_v[l] == v and out_d[l] == d, (l, out_v[l], v, out_d[l], d)
        assert 0.0 < v < 1.0 and (d != 0.0) == deriv
        computed = np.arange(tcaps[l] * NP * (D + 1))  # every row below the lane's cap
        assert np.array_equal(C[computed * LANES + l], C1[computed], equal_nan=True)
        if record:
            # where the turn ends, played forwards from the options chosen side by side and alone
            # (and from the laned values alone, the options found again where the turn goes)
            ends = []
            for W, Qx, Cx, argx, Bx, lane in ((LANES, Q, C, arg, B, l), (1, Q1, C1, arg1, Bs[l], 0),
                                              (LANES, Q, C, arg[:0], B, l)):
                bank, zil = np.zeros(tcaps[l] + 1), np.zeros(NP)
                work = np.empty(rows * NP * (D + 1))
                turn_forward_lane(W, lane, int(tcaps[l]), int(thrs[l]), forced, bonus, D, S, NP, Bx, cls_lo, cls_hi,
                                  cls_p, opt_lo, opt_hi, opt_off, pz, pa, pad, Qx, Cx, argx, bank, zil, work.copy(),
                                  work.copy())
                ends.append((bank, zil))
            for bank, zil in ends[1:]:
                assert np.array_equal(ends[0][0], bank) and np.array_equal(ends[0][1], zil)
            assert ends[0][0].sum() + ends[0][1].sum() == pytest.approx(1.0, abs=1e-12)
