"""The turn kernels of the game solver: one turn as a finite-horizon decision problem (:func:`turn_dp`),
played forwards (:func:`turn_forward`), and the solve's integer vector ``ip``: the engine's rule parameters
(``zilch_env.engine.layout.R_*``) followed by the solve's grid sizes (the ``IP_*`` names).
:mod:`agents.solver.game_kernels` (which names them too) describes the model; import them from there."""

from __future__ import annotations

import numpy as np
from zilch_env.jit import njit

from zilch_env.engine import layout as L
from zilch_env.rules.primitives import nb_challenge_bracket, nb_challenge_cost, nb_may_challenge, nb_popcount
from zilch_env.rules.schema import PENALTY_MODES

from agents.solver.turn_lanes import turn_dp_lanes, turn_forward_lane


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
    tcaps = np.empty(1, np.int64)
    thrs = np.empty(1, np.int64)
    tends = np.empty(1, np.int64)
    tcaps[0], thrs[0], tends[0] = tcap, thr, tend
    out_v = np.empty(1)
    out_d = np.empty(1)
    turn_dp_lanes(1, 1, tcaps, thrs, tends, forced, bonus, D, S, NP, B, Zv, cls_lo, cls_hi, cls_p, opt_lo, opt_hi,
                  opt_off, pz, p_allonly, Q, C, dQ, dC, t_from, cut, pad, arg, fB, fZ, t_top, out_v, out_d)
    return out_v[0], out_d[0]


# --------------------------------------------------------------------------------------------
# The solve's integer vector ``ip`` (one int64 array, numba-friendly): the engine's rule parameters of
# the ruleset, ``compile(rs).params(players)`` indexed by ``zilch_env.engine.layout.R_*`` (points), then
# the grid the solve tabulates, indexed by these names (units of ``IP_UNIT`` points). The rules are
# read from the first part only; the helpers below give their amounts in units.

IP_UNIT = L.R_SIZE  # points per unit (every score and turn total is a multiple of it)
IP_TU = L.R_SIZE + 1  # race score rows: scores below the target, 0 .. IP_TU - 1 units (the target rounded up)
IP_FLOOR = L.R_SIZE + 2  # score rows below 0 (-score_floor in units): index 1 + IP_FLOOR + a holds score a
IP_NS = L.R_SIZE + 3  # score indices: 0 = not on the board (score 0), 1 + IP_FLOOR + a = on the board with score a
IP_NZ = L.R_SIZE + 4  # per-player values tracked beside the score: zilch streaks times challenge usages (see IP_NU)
IP_NSEAT = L.R_SIZE + 5  # 2 when the value depends on the mover's position in the round, else 1
IP_DCAP = L.R_SIZE + 6  # largest lead tracked at the end of the game (units)
IP_NP = L.R_SIZE + 7  # permanent-straight counts tracked (1 = none)
IP_MAXPTS = L.R_SIZE + 8  # most units one keep can score (at least 1): the padding rows of a turn DP
IP_NU = L.R_SIZE + 9  # challenge usages tracked per player under ``challenge`` (the brackets used, a bit each), else 0
IP_SIZE = L.R_SIZE + 10


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


@njit(cache=True, nogil=True)
def streak_values(ip):
    """The zilch-streak values tracked per player: the penalty count, or 1 without a penalty."""
    return max(ip[L.R_ZILCH_PENALTY_COUNT], 1)


@njit(cache=True, nogil=True)
def streak_of(z, ip):
    """The zilch streak held in a player's state value ``z`` (``z = streak + streak_values * usage``)."""
    return z % streak_values(ip)


@njit(cache=True, nogil=True)
def usage_of(z, ip):
    """The challenge brackets a player has used (bit 0 below the split, bit 1 at or above it), held
    in their state value ``z``; 0 without ``challenge``."""
    return z // streak_values(ip)


@njit(cache=True, nogil=True)
def bank_z(z, ip):
    """A player's state value after a bank: the streak back to 0, the challenges used kept."""
    return z - z % streak_values(ip)


# --------------------------------------------------------------------------------------------
# Challenges (source 001): a player on the board, with an opponent on the board, may challenge at the
# start of a turn, once below the split and once at or above it (judged by their score then). A banked
# challenge turn also takes its total from the opponent (down to the floor); a zilch costs the
# challenger the first or the second cost, by how many challenges they declared.


@njit(cache=True, nogil=True)
def split_units(ip):
    """The score (units) from which a challenge is in the upper bracket."""
    return -(-ip[L.R_CHALLENGE_SPLIT] // ip[IP_UNIT])


@njit(cache=True, nogil=True)
def challenge_bit(score, ip):
    """The bracket bit of a challenge declared at ``score`` units (1 below the split, 2 at or above)."""
    return nb_challenge_bracket(score, split_units(ip))


@njit(cache=True, nogil=True)
def may_challenge(on, z, score, opp_on, ip):
    """Whether a player with state value ``z`` at ``score`` units may challenge an opponent: -1 if not,
    else the challenges they declared before (0 or 1: the cost of this one's zilch is the first or
    the second)."""
    u = usage_of(z, ip)
    k = nb_popcount(u)
    if ip[L.R_CHALLENGE] == 0 or not opp_on or not nb_may_challenge(on, k, u, score, split_units(ip)):
        return -1
    return k


@njit(cache=True, nogil=True)
def challenge_cost_units(k, ip):
    """What a zilch costs (units) in a player's challenge declared after ``k`` others."""
    return nb_challenge_cost(k + 1, ip[L.R_CHALLENGE_COST_FIRST], ip[L.R_CHALLENGE_COST_SECOND]) // ip[IP_UNIT]


@njit(cache=True, nogil=True)
def last_turn_index(on, z, score, ip):
    """The board index of the last-turn tables (``F[seat, index, penalty due, lead]``) of a player
    with state value ``z`` at ``score`` units: 0 off the board, 1 on it, 2 or 3 on it and free to
    challenge the leader (its first or its second challenge): the better of a plain turn and a
    challenge turn."""
    if not on:
        return 0
    k = may_challenge(True, z, score, True, ip)
    return 1 if k < 0 else 2 + k


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
    bonus = bonus_units(ip)
    turn_forward_lane(1, 0, tcap, thr, ip[L.R_FORCED_HOT_DICE] == 1, bonus, ip[L.R_DICE], straight_units(ip), ip[IP_NP],
                      B, cls_lo, cls_hi, cls_p, opt_lo, opt_hi, opt_off, pz, p_allonly, max(ip[IP_MAXPTS], bonus), C[:0],
                      C, arg, bank, zil, Mr, Mp)


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
