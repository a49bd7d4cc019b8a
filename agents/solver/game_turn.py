"""The turn kernels of the game solver: one turn as a finite-horizon decision problem (:func:`turn_dp`),
played forwards (:func:`turn_forward`), and the solve's integer vector ``ip``: the engine's rule parameters
(``zilch_env.engine.layout.R_*``) followed by the solve's grid sizes (the ``IP_*`` names).
:mod:`agents.solver.game_kernels` (which names them too) describes the model; import them from there."""

from __future__ import annotations

import numpy as np
from numba import njit

from zilch_env.engine import layout as L
from zilch_env.rules.primitives import nb_can_bank
from zilch_env.rules.schema import PENALTY_MODES


@njit(cache=True, nogil=True)
def turn_dp(tcap, thr, tend, forced, bonus, D, S, NP, B, Zv,
            cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz, p_allonly,
            Q, C, dQ, dC, t_from, cut, pad, arg, fB, fZ, t_top):
    """One turn, solved backwards from the turn-total cap ``tcap`` down to ``t_from``.

    Rules applied:
      * after a roll of ``n`` dice the player picks one option of the roll's class (every option
        of a free keep; the single best keep under ``all_scoring``), then banks or rolls;
      * banking needs ``t >= thr`` (the entry threshold off the board, the minimum bank on it) and,
        under forced hot dice, at least one die left (``m > 0``);
      * a zilch of all ``D`` dice with a six-dice bonus adds ``bonus``, then the player banks (where
        ``thr`` allows) or rolls ``D`` dice again;
      * a straight under ``permanent_straight`` adds one permanent straight (``pi + 1``) that
        survives a zilch.

    Arrays are flat: ``Q[(t * NP + pi) * D + m]`` and ``C[(t * NP + pi) * (D + 1) + n]``; an option's
    ``opt_off`` is its offset in ``Q`` from the position it is taken in (points, permanent
    straights and dice left). ``Q`` and ``C`` need rows up to ``tcap`` plus the largest keep (or
    bonus), ``pad``: positions at or above the cap are valued by banking there (the caller puts the cap where
    that is exact or harmless; under forced hot dice the hot-dice position at the cap rolls once
    more, in closed form).

    In the *end zone* (``t >= tend``: banking reaches the target, so ``B`` is non-decreasing in
    ``t`` there) banking is provably optimal once ``1 - B[t] <= pz[n] * (1 - Zv[pi])``: rolling can
    gain at most ``1 - B[t]`` and loses ``B[t] - Zv[pi]`` with probability at least ``pz[n]``; with
    ``cut`` such positions skip the roll computation (their ``C`` is left at -1). The cut is exact
    for the values; turn it off to read the value of rolling everywhere (``zilch advise``).

    If ``arg`` is not empty it receives the chosen option of every class at every computed roll
    position, ``arg[(t * NP + pi) * ncls + c]`` (for :func:`turn_forward`).

    *Followed value.* If ``dQ`` and ``dC`` are not empty they receive, at every position, the
    expected value of another quantity under the policy the turn DP chooses: ``fB[t]`` where the
    turn banks ``t`` and ``fZ[pi]`` where it ends in a zilch with ``pi`` permanent straights. Empty
    ``fB`` and ``fZ`` stand for 0 and ``[1, 0, ...]``: the value's derivative with respect to
    ``Zv[0]``, i.e. the chance that the turn ends in a plain zilch (Newton on the zilch cycles of the
    two-player solve); the game of three players follows the next player's win chance.

    *Resuming.* With ``0 <= t_top < tcap`` the rows above ``t_top`` are taken as they are in ``Q``,
    ``C``, ``dQ``, ``dC`` (left there by a DP of the same ``B``, ``Zv``, ``fB``, ``fZ`` and cap whose
    bank rule agrees with this one's above ``t_top``) and only the rows from ``t_top`` down are solved:
    overcoming's bar forbids banks at or below it, so the turns of one situation under every bar share
    the rows above the bar.

    Returns ``(C[t_from, 0, D], dC[t_from, 0, D])``: the win chance at the position and the followed
    value there (0 if none is followed).
    """
    ncls = cls_hi[D]
    keep_arg = arg.shape[0] > 0
    deriv = dQ.shape[0] > 0  # follow a second value (by default the derivative) only when asked
    given = fB.shape[0] > 0
    Bcap = B[tcap]
    fcap = fB[tcap] if given else 0.0
    rowq = NP * D
    rowc = NP * (D + 1)
    resume = 0 <= t_top < tcap
    for t in range(tcap, tcap + pad + 1):
        if resume:
            break
        for pi in range(NP):
            z = Zv[pi]
            dz = fZ[pi] if given else (1.0 if pi == 0 else 0.0)
            qb = t * rowq + pi * D
            cb = t * rowc + pi * (D + 1)
            for n in range(1, D + 1):
                C[cb + n] = (1.0 - pz[n]) * Bcap + pz[n] * z
            for m in range(D):
                Q[qb + m] = Bcap
            if bonus > 0:
                # D dice never zilch (the bonus rolls them again): banking at the cap is sure
                C[cb + D] = Bcap
            elif forced:
                # hot dice must be rolled: roll D dice; a class whose every option uses all the
                # dice rolls again, any other banks
                den = 1.0 - p_allonly
                Q[qb] = ((1.0 - pz[D] - p_allonly) * Bcap + pz[D] * z) / den
            if deriv:
                for n in range(1, D + 1):
                    dC[cb + n] = (1.0 - pz[n]) * fcap + pz[n] * dz
                for m in range(D):
                    dQ[qb + m] = fcap
                if bonus > 0:
                    dC[cb + D] = fcap
                elif forced:
                    dQ[qb] = ((1.0 - pz[D] - p_allonly) * fcap + pz[D] * dz) / (1.0 - p_allonly)
    for t in range((t_top if resume else tcap - 1), t_from - 1, -1):
        pmax = NP - 1
        if S > 0 and t // S < pmax:
            pmax = t // S
        bt = B[t]
        fbt = fB[t] if given else 0.0
        bankable = t >= thr
        in_end = cut and t >= tend and bankable and t > t_from
        for pi in range(pmax + 1):
            z = Zv[pi]
            qb = t * rowq + pi * D
            cb = t * rowc + pi * (D + 1)
            for n in range(1, D + 1):
                m_of = n if n < D else 0
                # the exact end-zone cut: banking is optimal here, the roll value is never read
                if in_end and not (m_of == 0 and (forced or bonus > 0)) and 1.0 - bt <= pz[n] * (1.0 - z):
                    Q[qb + m_of] = bt
                    C[cb + n] = -1.0
                    if deriv:
                        dQ[qb + m_of] = fbt
                        dC[cb + n] = 0.0
                    continue
                acc = 0.0
                dacc = 0.0
                ab = (t * NP + pi) * ncls
                if deriv or keep_arg:
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
                        acc += cls_p[c] * best
                        if deriv:
                            dacc += cls_p[c] * dQ[bo]
                        if keep_arg:
                            arg[ab + c] = bopt
                else:
                    # only the value: a branch-free max (the comparisons are unpredictable)
                    for c in range(cls_lo[n], cls_hi[n]):
                        best = -1.0
                        for o in range(opt_lo[c], opt_hi[c]):
                            best = max(best, Q[qb + opt_off[o]])
                        acc += cls_p[c] * best
                if n == D and bonus > 0:
                    # the bonus joins the turn total; then bank (where the bar allows) or roll D again
                    tb = t + bonus
                    k = cb + bonus * rowc + D
                    bv = B[tb] if tb < tcap else Bcap
                    if nb_can_bank(tb, D, thr, forced) and bv >= C[k]:
                        acc += pz[n] * bv
                        if deriv and given:
                            dacc += pz[n] * (fB[tb] if tb < tcap else fcap)
                    else:
                        acc += pz[n] * C[k]
                        if deriv:
                            dacc += pz[n] * dC[k]
                else:
                    acc += pz[n] * z
                    if given:
                        dacc += pz[n] * fZ[pi]
                    elif pi == 0:
                        dacc += pz[n]
                C[cb + n] = acc
                banked = nb_can_bank(t, m_of, thr, forced) and bt >= acc
                Q[qb + m_of] = bt if banked else acc
                if deriv:
                    dC[cb + n] = dacc
                    dQ[qb + m_of] = fbt if banked else dacc
    k = (t_from * NP) * (D + 1) + D
    return C[k], (dC[k] if deriv else 0.0)


# --------------------------------------------------------------------------------------------
# The solve's integer vector ``ip`` (one int64 array, numba-friendly): the engine's rule parameters of
# the ruleset, ``compile(rs).params(players)`` indexed by ``zilch_env.engine.layout.R_*`` (points), then
# the grid the solve tabulates, indexed by these names (units of ``IP_UNIT`` points). The rules are
# read from the first part only; the helpers below give their amounts in units.

IP_UNIT = L.R_SIZE  # points per unit (every score and turn total is a multiple of it)
IP_TU = L.R_SIZE + 1  # race score rows: scores below the target, 0 .. IP_TU - 1 units (the target rounded up)
IP_FLOOR = L.R_SIZE + 2  # score rows below 0 (-score_floor in units): index 1 + IP_FLOOR + a holds score a
IP_NS = L.R_SIZE + 3  # score indices: 0 = not on the board (score 0), 1 + IP_FLOOR + a = on the board with score a
IP_NZ = L.R_SIZE + 4  # zilch-streak values tracked (the penalty count, or 1 without a penalty)
IP_NSEAT = L.R_SIZE + 5  # 2 when the value depends on the mover's position in the round, else 1
IP_DCAP = L.R_SIZE + 6  # largest lead tracked at the end of the game (units)
IP_NP = L.R_SIZE + 7  # permanent-straight counts tracked (1 = none)
IP_MAXPTS = L.R_SIZE + 8  # most units one keep can score (at least 1): the padding rows of a turn DP
IP_SIZE = L.R_SIZE + 9


def ip_names() -> tuple[str, ...]:
    """The name of each entry of the solve's vector: the rule parameters' names
    (:func:`zilch_env.rules.packed.param_names`), then the grid's (``IP_*``)."""
    grid = sorted(((v, k) for k, v in globals().items() if k.startswith("IP_") and k != "IP_SIZE"))
    return L.param_names() + tuple(k for _, k in grid)


def stored_ip(stored: np.ndarray, names: np.ndarray | None, fresh, where: str) -> np.ndarray:
    """The solve's vector of a table file, checked: ``stored`` its vector, ``names`` the names of its
    entries (None in a file that does not name them: then the layout must be this one), ``fresh``
    a function of the lead cap giving the solver's own vector for the table's rules. Entries are
    matched by name, so a table solved before a rule parameter was added stays valid while that
    parameter is at 0 (its rule off) for the table's rules. Returns the solver's vector; ValueError
    names the first entry that differs."""
    if names is None:
        named = dict(zip(ip_names(), stored.tolist())) if stored.size == IP_SIZE else {}
    else:
        named = dict(zip((str(n) for n in names), stored.tolist()))
    if "IP_DCAP" not in named:
        raise ValueError(f"{where}: the table's parameters are in a layout this solver does not read")
    ip = fresh(int(named["IP_DCAP"]))
    for name, value in zip(ip_names(), ip.tolist()):
        if named.get(name, 0) != value:
            raise ValueError(f"{where}: the table's parameter {name} is {named.get(name, 'missing')}, this solver's "
                             f"for its rules {value}: the table is stale")
    unknown = sorted(set(named) - set(ip_names()))
    if unknown:
        raise ValueError(f"{where}: the table has parameters this solver does not know ({', '.join(unknown)})")
    return ip

_SUBTRACT = PENALTY_MODES.index("subtract")
_RESET = PENALTY_MODES.index("reset")


@njit(cache=True, nogil=True)
def entry_units(ip):
    """The entry threshold in units: the least turn total (units) that reaches it (0 = none)."""
    return -(-ip[L.R_ENTRY_THRESHOLD] // ip[IP_UNIT])


@njit(cache=True, nogil=True)
def min_bank_units(ip):
    """The minimum bank on the board in units (rounded up, as :func:`entry_units`)."""
    return -(-ip[L.R_MIN_BANK] // ip[IP_UNIT])


@njit(cache=True, nogil=True)
def penalty_units(ip):
    """The points a ``subtract`` zilch-streak penalty takes, in units (0 under the other modes)."""
    return ip[L.R_ZILCH_PENALTY_POINTS] // ip[IP_UNIT] if ip[L.R_ZILCH_PENALTY_MODE] == _SUBTRACT else 0


@njit(cache=True, nogil=True)
def penalty_resets(ip):
    """Whether the zilch-streak penalty resets the score (mode ``reset``)."""
    return ip[L.R_ZILCH_PENALTY_MODE] == _RESET


@njit(cache=True, nogil=True)
def bonus_units(ip):
    """The six-dice zilch bonus in units (0 = off)."""
    return ip[L.R_SIX_DICE_BONUS] // ip[IP_UNIT]


@njit(cache=True, nogil=True)
def straight_units(ip):
    """A permanent straight in units (0 when straights are not permanent): the step of the
    permanent-points grid."""
    return ip[L.R_STRAIGHT] // ip[IP_UNIT] if ip[L.R_PERMANENT_STRAIGHT] != 0 else 0


#: An empty followed value (turn_dp's ``fB``/``fZ``): the derivative with respect to ``Zv[0]``.
_NONE = np.zeros(0)


@njit(cache=True, nogil=True)
def _dp(tcap, thr, tend, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, t_from, cut):
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    bonus = bonus_units(ip)
    return turn_dp(tcap, thr, tend, ip[L.R_FORCED_HOT_DICE] == 1, bonus, ip[L.R_DICE], straight_units(ip), ip[IP_NP],
                   B, Zv, cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz,
                   p_allonly, Q, C, dQ, dC, t_from, cut, max(ip[IP_MAXPTS], bonus),
                   np.zeros(0, np.int32), _NONE, _NONE, -1)


@njit(cache=True, nogil=True)
def _dp_arg(tcap, thr, tend, ip, B, Zv, rt, p_allonly, Q, C, dQ, dC, cut, arg):
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    bonus = bonus_units(ip)
    return turn_dp(tcap, thr, tend, ip[L.R_FORCED_HOT_DICE] == 1, bonus, ip[L.R_DICE], straight_units(ip), ip[IP_NP],
                   B, Zv, cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz,
                   p_allonly, Q, C, dQ, dC, 0, cut, max(ip[IP_MAXPTS], bonus), arg, _NONE, _NONE, -1)


@njit(cache=True, nogil=True)
def turn_forward(tcap, thr, ip, B, rt, p_allonly, C, arg, bank, zil, Mr, Mp):
    """Where the optimal turn ends: after :func:`turn_dp` with ``arg``, play the turn forwards
    from its start with the same choices and add up the chance of each ending: ``bank[t]`` (banked
    at turn total ``t``; at or past the cap counts as ``tcap``) and ``zil[pi]`` (a zilch with ``pi``
    permanent straights). The turn's value is ``sum(bank * B) + sum(zil * Zv)``. ``Mr`` and
    ``Mp`` are work arrays of at least ``(tcap + 1 + pad) * NP * (D + 1)`` entries."""
    cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz = rt
    forced = ip[L.R_FORCED_HOT_DICE] == 1
    bonus = bonus_units(ip)
    D, S, NP = ip[L.R_DICE], straight_units(ip), ip[IP_NP]
    ncls = cls_hi[D]
    rowc = NP * (D + 1)
    pad = max(ip[IP_MAXPTS], bonus)
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
        for pi in range(pmax + 1):
            cb = t * rowc + pi * (D + 1)
            qb = (t * NP + pi) * D
            # decisions after a keep at t
            for m in range(D):
                mass = Mp[qb + m]
                if mass == 0.0:
                    continue
                n2 = m if m > 0 else D
                c2 = C[cb + n2]
                if nb_can_bank(t, m, thr, forced) and (c2 < 0.0 or B[t] >= c2):
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
                    Mp[qb + opt_off[arg[ab + c]]] += mass * cls_p[c]
                if n == D and bonus > 0:  # the bonus, then bank or roll D dice again (as turn_dp)
                    tb = t + bonus
                    kb = tb * rowc + pi * (D + 1) + D
                    if tb < tcap and nb_can_bank(tb, D, thr, forced) and B[tb] >= C[kb]:
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


@njit(cache=True, nogil=True)
def scratch(tcap, ip, deriv=False):
    """Work arrays of one turn DP up to ``tcap``: (B, Zv, Q, C, dQ, dC), with the padding rows;
    ``dQ``/``dC`` are empty (no derivative tracked) unless ``deriv``. ``Q`` and ``C`` start at 0,
    so the positions a DP never reaches hold 0 rather than whatever the memory held: a solved turn
    is the same array every time (about 2% of a turn DP's time)."""
    NP, D = ip[IP_NP], ip[L.R_DICE]
    rows = tcap + 1 + max(ip[IP_MAXPTS], bonus_units(ip))
    nd = rows if deriv else 0
    return (np.zeros(tcap + 1), np.zeros(NP), np.zeros(rows * NP * D), np.zeros(rows * NP * (D + 1)),
            np.empty(nd * NP * D), np.empty(nd * NP * (D + 1)))
