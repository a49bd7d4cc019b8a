"""The exact two-player game solver: the policy that maximises the chance of winning.

Maximising points per turn (:mod:`agents.solver.turn`) is not the same as winning: near the end, and when
behind, optimal play changes. :func:`solve_game` computes, for two players, the probability that the
player to move wins under optimal play by both (a draw counts as half a win) for every state of the
game, and the agent ``optimal-win`` plays from that table.

The state
    At the start of a turn, before anyone reached the target (the *race*): the mover's position in
    the round (only when it matters: ``end = "finish_round"``, where the second player of the round
    reaching the target ends the game, or tie-break turns, which are played in seat order), both
    banked scores, whether each player is on the board, and each player's zilch streak when the
    ruleset has a ``zilch_penalty``. Inside a turn: the turn total, the dice left and the number of
    permanent straights kept (``permanent_straight``). After the race: the last turn against the
    leader's lead (``others_one_turn``; ``finish_round`` when the first player of the round reached
    the target), and the tie-break turns (``tie = "tiebreak"``). Under ``end = "instant"`` there is no
    after: a bank (or a permanent straight's record) at or above the target wins at once, for either
    player, exactly as the second player of a ``finish_round`` round. Scores are counted in units of the
    greatest common divisor of every point value (50 for the presets).

How it is solved
    * One turn is a finite decision problem once two things are known: the win chance after
      banking each turn total (``B``) and after a zilch (``Zv``). :func:`agents.solver.game_kernels.turn_dp`
      solves it backwards over the turn total. Every roll class offers every legal keep (only the
      best one under ``keep = "all_scoring"``, as ``GameState.keeps()``), then bank (when the entry
      threshold, the minimum bank and forced hot dice allow) or roll; the six-dice zilch bonus and
      permanent straights are positions of the turn.
    * The last turn and the tie-break turns are turns against a bar: above it wins, on it ties.
      They are solved first, for every lead up to ``Dcap`` units, where the best chance of beating
      the lead in one turn falls below :data:`TAIL_EPS` (larger leads are valued as ``Dcap``).
      Tie-break rounds (at most ``MAX_TIEBREAK_ROUNDS``, then a draw) are solved from the last back.
    * The race is solved level by level: a level is a sum of the two banked scores. A bank raises
      the sum, so it leads to a level already solved (from the highest sum down). A plain zilch
      keeps the sum: inside a level each state's zilch leads to one state of the same level, and
      the two players' turn-start values depend on each other through zilches (``W(a, b)`` uses
      ``1 - W(b, a)``). Each level is a functional graph: its cycles are solved by Newton's method
      on the win chance (value iteration would also converge, Newton is exact once the policies stop
      changing, in 2-3 turn DPs per state); the other states take one turn DP each in order.
    * A zilch penalty makes a zilch *lower* the sum (three zilches in a row cost 500 in ``farkle``),
      into a level that the downward order has not solved yet, while banks from that lower level
      lead back up: the levels form one coupled system, solved by policy iteration over whole
      sweeps. A *sweep* solves every level downwards with turn DPs, reading penalty states of lower
      levels as the previous step left them (in the first sweep, a guess: the same state with its
      scores raised into the lowest solved level, neither to the target; this guess saves a whole
      sweep against raising both scores equally). Inside a level the streaks only grow, so the level is
      exact given those values. Each turn DP of a sweep also records the turn's *row*: where the
      optimal turn ends (a forward pass), i.e. the state's value as a linear function of other race
      values under the policy found. Cheap Gauss-Seidel passes over the rows then solve that linear
      system (the exact value of the recorded policies), and the next sweep improves the policies.
      It stops when a sweep changes no value by more than ``sweep_tol`` (default 1e-8, below the
      float32 resolution of the stored table): the values then satisfy the optimality equations
      to that tolerance. Plain repeated sweeps (value iteration) converge too, but need about
      twice as many sweeps. A sweep after one that changed no value by more than
      :data:`ROWLESS_BELOW` is expected to be the last and records no rows (they cost a forward pass
      per turn DP). The sweeps' changes are recorded in the table's ``meta``.
    * Turn totals are followed up to where banking is provably optimal: when banking reaches the
      target the bank value only grows with the turn total, and banking beats rolling ``n`` dice
      once the chance the opponent still wins, ``1 - B``, is at most ``P(zilch with n dice) * (1 -
      Zv)``. This cut is exact. Under forced hot dice the cap is the largest lead ``Dcap``.

The table
    :class:`GameTable` holds the race values (float32, the only large array), the last-turn and
    tie-break tables and the ruleset. :func:`solve_game` saves it as ``.npz`` in the cache
    directory (``$ZILCH_SOLVER_CACHE``, else ``~/.cache/zilch-rl``) keyed by a hash of the rules and
    the solver version, and loads it from there next time; ``zilch solve --ruleset R --objective
    win`` builds it. Small preset tables are shipped in ``agents/solver/game_tables`` (same file names)
    and used when the cache has none; a change of the rules or of the solver changes the key, so a
    stale table is never read.

Challenges (``challenge``)
    Each player's state also holds the challenge brackets they used (below the split and at or above
    it; only the lower one where no race score reaches the split). A player free to challenge takes
    the better of a plain turn and a challenge turn: a bank of ``t`` raises them by ``t`` and lowers
    the opponent by ``t`` (not below the floor), a zilch costs 600 or 2,000 (their first or second
    challenge). A challenge always leads to states where its player has used one bracket more, so the
    race is solved in *blocks* of the two players' usages, those of more brackets used first: inside
    a block each state's challenge value is a constant (:func:`agents.solver.game_challenge.challenge_values`)
    and the block is solved as above. The last turn of a player free to challenge is the better of a
    turn against the lead and a challenge of the leader (a bank wins when twice it beats the lead).

Not supported (a clear :class:`zilch_env.UnsupportedRulesError`, :func:`check_supported`): more than two
players, the variants ``pyramiding``, ``overcoming`` (:mod:`agents.solver.multi` solves it at
two players) and ``piggyback``, the penalty mode ``halve``, and a zilch penalty together with tie-break
turns. Scores below zero (``score_floor`` < 0) are score indices from the floor up
(``agents.solver.game_kernels.score_of``).

The two variants not modelled would need, on this solver's grid (:func:`agents.solver.game_support.variant_size`,
whose figures the refusal gives; values at 8 bytes while solving):

* ``piggyback``: the offer (banked total, dice left) in every race state, ``target / unit * dice`` offers
  per state: zonk 48.5 million values (0.36 GB), farkle 873 million (6.5 GB), the turn DPs as many as
  without it. Within this machine's reach (23 GB, about 4e7 and 7e8 rows): not modelled yet, not too large.
* ``pyramiding``: the race unchanged, each turn DP over the pass states (45 to 61 on the presets): about
  6 to 14 times the plain work, zonk 2.4e8 to 5.7e8 rows, farkle 4.4e9 to 1.0e10 (beyond :data:`MAX_GAME_ROWS`).

The six-dice zilch bonus is modelled (a position of the turn, above), at every preset.
"""

from __future__ import annotations

import os
import resource
import time
from typing import Any, Sequence

import numpy as np

from zilch_env import GameState, Ruleset, UnsupportedRulesError, load_ruleset
from zilch_env.engine import layout as L
from zilch_env.rules.primitives import MAX_TIEBREAK_ROUNDS

from agents.solver import game_challenge as GC
from agents.solver import game_kernels as K
from agents.solver import game_sweep as SW
from agents.solver.game_table import (PACKAGED_TABLES, ROWLESS_BELOW, SOLVER_VERSION, GameTable, default_cache_mb, _choose_dcap, _params, _stored_table, cache_dir, check_supported, ruleset_key, table_files, table_path)
from agents.solver.roll_classes import game_unit, roll_tables
from agents.solver.threads import numba_threads
from agents.solver.turn_lanes import LANES

__all__ = [
    "GameTable", "OptimalWinAgent", "UnsupportedRulesError", "solve_game",
    "load_game_table", "cache_dir", "table_path", "check_supported", "solved_game_stored", "solve_size",
    "solve_sweeps", "check_solve_size", "MAX_GAME_ROWS",
]

#: The most turn-DP rows :func:`solve_game` starts (:func:`solve_size`): about two hours on two shared
#: cores (farkle, the largest preset at 7e8, takes 20 to 30 minutes; a target of 1,000,000,000, 4e22).
MAX_GAME_ROWS = 4e9


def solve_size(rs: Ruleset, sweeps: int = 10) -> tuple[float, float]:
    """``(rows, bytes)``: an estimate of a two-player solve's work in turn-DP rows (each pair of
    scores, each turn total below the target, ``sweeps`` times) and of its table's memory (a float
    per pair of scores, seat and zilch streak, as ``_solve`` allocates it). The default of ten sweeps
    is a penalty's policy iteration; it is also the size measure that picks the rulesets of
    ``train/teach_any.py``. :func:`check_solve_size` counts the sweeps the rules take."""
    unit = game_unit(rs)
    ip = _params(rs, roll_tables(rs, unit), 0)  # the grid of the race (no lead tracked: not needed here)
    tu, ns, nz, nseat = (int(ip[i]) for i in (K.IP_TU, K.IP_NS, K.IP_NZ, K.IP_NSEAT))
    states = float(nseat) * (ns * nz) ** 2
    return states * (sweeps * tu + 1) / 2, states * 8 * 2


def solve_sweeps(rs: Ruleset) -> int:
    """The turn DPs a race state takes in a solve, as :func:`solve_size` counts sweeps: about ten under
    a zilch penalty (its policy iteration; farkle's took four to six), else one, and one more for a
    challenge turn (each state's challenge value is a turn of its own)."""
    return (10 if rs.variants.zilch_penalty.count else 1) + (1 if rs.variants.challenge else 0)


def check_solve_size(rs: Ruleset) -> None:
    """Refuse, with the figures, a solve that cannot finish on this machine: beyond
    :data:`MAX_GAME_ROWS` rows of work, or beyond half the memory available now."""
    from zilch_env.engine.checks import available_memory

    rows, need = solve_size(rs, solve_sweeps(rs))
    have = available_memory()
    if rows > MAX_GAME_ROWS or need > have / 2:
        raise UnsupportedRulesError(
            f"target = {rs.target:,}: solving this two-player game would take about {rows:.1e} turn-DP rows "
            f"(at most {MAX_GAME_ROWS:.0e}, about two hours on two cores) and {need / 2**30:,.1f} GB of memory "
            f"({have / 2**30:,.1f} GB available); lower the target (farkle's 7e8 rows take "
            f"20 to 30 minutes)")


# ============================================================================================
# Solving


def solve_game(ruleset: Ruleset | str, *, cache: bool = True, directory: str | os.PathLike | None = None,
               force: bool = False, progress: bool = True, threads: int | None = None,
               sweep_tol: float = 1e-8, max_sweeps: int = 200) -> GameTable:
    """The solved two-player game of ``ruleset`` (a preset name, a TOML path or a :class:`Ruleset`).

    With ``cache`` the table is read from (or, once solved, written to) :func:`table_path`;
    ``force`` solves again anyway. ``threads`` is the number of numba threads (default: numba's).
    Penalty rulesets repeat the race sweep until no value changes by more than ``sweep_tol``.
    """
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    check_supported(rs)
    if cache and not force:
        table = _stored_table(rs, directory)
        if table is not None:
            return table
    check_solve_size(rs)
    table = _solve(rs, progress=progress, threads=threads, sweep_tol=sweep_tol, max_sweeps=max_sweeps)
    if cache:
        table.path = table.save(table_path(rs, directory))
    return table


def load_game_table(ruleset: Ruleset | str, directory: str | os.PathLike | None = None) -> GameTable | None:
    """The stored table of ``ruleset`` (cached, or shipped in ``agents/solver/game_tables``) if there is
    a valid one, else None (never solves)."""
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    return _stored_table(rs, directory)


def _solve(rs: Ruleset, progress: bool, threads: int | None, sweep_tol: float, max_sweeps: int,
           tol: float = 1e-11) -> GameTable:
    import numba

    from agents.progress import Progress

    t0 = time.perf_counter()
    cpu0 = time.process_time()
    with numba_threads(threads):
        unit = game_unit(rs)
        rt = roll_tables(rs, unit)
        dcap = _choose_dcap(rs, rt)
        ip = _params(rs, rt, dcap)
        rtt = rt.as_tuple(int(ip[K.IP_NP]), int(ip[L.R_DICE]))
        R = MAX_TIEBREAK_ROUNDS
        G = np.zeros((R + 2, dcap + 1))
        TB0 = np.full(R + 2, 0.5)
        if ip[L.R_TIEBREAK]:
            K.tiebreak_tables(R, ip, rtt, rt.p_allonly, G, TB0)
        challenge = bool(ip[L.R_CHALLENGE])
        F = np.zeros((2, 4 if challenge else 2, 2, dcap + 1))
        nseat, entry = int(ip[K.IP_NSEAT]), bool(ip[L.R_ENTRY_THRESHOLD])
        perm_pen = bool(K.straight_units(ip) and ip[L.R_ZILCH_PENALTY_COUNT])
        for fs in range(nseat):
            v = 0.5 if not ip[L.R_TIEBREAK] else (TB0[1] if fs == 0 else 1.0 - TB0[1])
            for on in ((0, 1) if entry else (1,)):
                for penf in ((0, 1) if perm_pen else (0,)):
                    K.bar_table(0, dcap, v, bool(on), bool(penf), ip, rtt, rt.p_allonly, F[fs, on, penf])
            if challenge:  # the last turn of a player free to challenge: the better of the two turns
                for k in range(2):
                    for penf in ((0, 1) if perm_pen else (0,)):
                        K.bar_table(0, dcap, v, True, bool(penf), ip, rtt, rt.p_allonly, F[fs, 2 + k, penf], k)
                        F[fs, 2 + k, penf] = np.maximum(F[fs, 2 + k, penf], F[fs, 1, penf])
        # fill the combinations that cannot differ (seatless rules, no entry, no permanent+penalty)
        for fs in range(2):
            for on in range(F.shape[1]):
                for penf in range(2):
                    src = (min(fs, nseat - 1), on if (entry or on > 1) else 1, penf if perm_pen else 0)
                    if (fs, on, penf) != src:
                        F[fs, on, penf] = F[src]
        t_tables = time.perf_counter() - t0
        workers = numba.get_num_threads()
        total = int(ip[K.IP_NSEAT] * ip[K.IP_NS] * ip[K.IP_NZ] * ip[K.IP_NS] * ip[K.IP_NZ])
        # unsolved states are NaN: only penalty states of lower levels are read before they are
        # solved (first sweep), and those reads take a guess (agents.solver.game_kernels._guess)
        W = np.full(total, np.nan)
        CH = np.full(total, -1.0) if challenge else np.zeros(0)
        penalty = bool(ip[L.R_ZILCH_PENALTY_COUNT])
        rows = _row_arrays(ip, total) if penalty else _NO_ROWS
        blocks = _blocks(ip)
        sweeps, dps, change, history, linear_passes, rowless, states = 0, 0, 0.0, [], 0, 0, 0
        converged = True
        bar = Progress(progress)
        task = bar.add(f"solve {rs.name}", total=1, info="levels")
        try:
            for bi, (u1, u2) in enumerate(blocks):
                level_ptr, stage_ptr, kind, start, length, members = K.build_schedule(ip, u1, u2)
                kind, start, length, bptr, stage_bptr = _balance(ip, stage_ptr, kind, start, length, members)
                states += int(members.shape[0])
                if challenge:  # a challenge leads into blocks solved before: a constant of each state
                    GC.challenge_values(members, W, F, ip, rtt, rt.p_allonly, CH)
                old = np.zeros(members.shape[0])
                nlev = level_ptr.shape[0] - 1
                where = f" (usages {u1}, {u2}: block {bi + 1} of {len(blocks)})" if challenge else ""
                change = 0.0
                for sweep in range(max_sweeps if penalty else 1):
                    sweeps += 1
                    change = 0.0
                    bar.update(task, completed=0, total=nlev)
                    last = penalty and sweep >= 2 and history[-1] < ROWLESS_BELOW
                    rows_now = _NO_ROWS if last else rows
                    rowless += int(last)
                    bar.update(task, description=f"solve {rs.name}" + (f" (sweep {sweep + 1})" if penalty else "")
                               + where)
                    for li in range(nlev):
                        for st in range(level_ptr[li], level_ptr[li + 1]):
                            j0, j1 = stage_ptr[st], stage_ptr[st + 1]
                            if j0 == j1:
                                continue
                            b0, b1 = stage_bptr[st], stage_bptr[st + 1]
                            dps += int(SW.solve_stage(kind, start, length, bptr[b0:b1 + 1], members, W, F, CH, ip,
                                                      rtt, rt.p_allonly, tol, old, rows_now, min(workers, b1 - b0)))
                            # a stage's members are contiguous (its jobs may be reordered, see _balance)
                            m0, m1 = int(start[j0:j1].min()), int((start[j0:j1] + length[j0:j1]).max())
                            if sweep:
                                change = max(change, float(np.abs(W[members[m0:m1]] - old[m0:m1]).max()))
                        bar.advance(task)
                    if not penalty:
                        break
                    history.append(change if sweep else float("nan"))
                    bar.update(task, info=f"levels, change {change:.1e}")
                    if sweep and change < sweep_tol:
                        break
                    if last:
                        continue  # no rows were recorded: the next sweep improves on these values
                    # policy evaluation: the recorded rows, solved by cheap Gauss-Seidel passes
                    for _ in range(10000):
                        linear_passes += 1
                        if K.linear_sweep(members, W, ip, rows) < 1e-14:
                            break
                converged = converged and ((not penalty) or change < sweep_tol)
        finally:
            bar.close()
        seconds = time.perf_counter() - t0
        cpu_seconds = time.process_time() - cpu0
        meta = {
            "ruleset": rs.name, "unit": unit, "dcap_points": dcap * unit, "seconds": round(seconds, 2),
            "cpu_seconds": round(cpu_seconds, 1),
            "table_seconds": round(t_tables, 2), "peak_rss_mb": round(_peak_rss_mb(), 1),
            "turn_dps": dps, "sweeps": sweeps, "sweep_changes": history, "linear_passes": linear_passes,
            "rowless_sweeps": rowless,
            "states": states, "blocks": len(blocks),
            "threads": numba.get_num_threads(), "solver_version": SOLVER_VERSION,
            "converged": converged,
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
    return GameTable(ruleset=rs, unit=unit, ip=ip, W=W.astype(np.float32), F=F, G=G, TB0=TB0, meta=meta,
                     CH=CH.astype(np.float32))


def _blocks(ip: np.ndarray) -> list[tuple[int, int]]:
    """The blocks of the race solve (:func:`agents.solver.game_kernels.build_schedule`): under
    ``challenge`` every pair of the two players' challenge usages, the pairs of more brackets used
    first (a challenge leads from a block to one with a bracket more); else one block of every state."""
    nu = int(ip[K.IP_NU])
    if not nu:
        return [(-1, -1)]
    pairs = [(u1, u2) for u1 in range(nu) for u2 in range(u1, nu)]
    return sorted(pairs, key=lambda p: (-(bin(p[0]).count("1") + bin(p[1]).count("1")), p))


def _balance(ip: np.ndarray, stage_ptr: np.ndarray, kind: np.ndarray, start: np.ndarray, length: np.ndarray,
             members: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Deal each stage's jobs into batches of up to :data:`agents.solver.turn_lanes.LANES` jobs of one
    kind and cycle length and of about the same cost (a turn DP costs about the number of turn totals
    below the target), the most expensive batches first: ``solve_stage`` deals them out round-robin
    to its workers. Returns the jobs reordered (kind, start, length), the batches' bounds ``bptr``
    (job indices) and each stage's first batch ``stage_bptr``."""
    NS, NZ, Tu = int(ip[K.IP_NS]), int(ip[K.IP_NZ]), int(ip[K.IP_TU])
    ia = (members // (NZ * NS * NZ)) % NS
    a = np.where(ia > 0, ia - 1 - int(ip[K.IP_FLOOR]), 0)
    cost_m = (Tu - a + 20).astype(np.float64)
    csum = np.concatenate([[0.0], np.cumsum(cost_m)])
    cost = csum[start + length] - csum[start]
    order = np.arange(kind.shape[0])
    bounds = [0]
    stage_bptr = [0]
    for st in range(stage_ptr.shape[0] - 1):
        j0, j1 = int(stage_ptr[st]), int(stage_ptr[st + 1])
        idx = j0 + np.lexsort((-cost[j0:j1], length[j0:j1], kind[j0:j1]))
        batches = []
        i = 0
        while i < idx.size:
            e = i + 1
            while (e < idx.size and e - i < LANES and kind[idx[e]] == kind[idx[i]]
                   and length[idx[e]] == length[idx[i]]):
                e += 1
            batches.append(idx[i:e])
            i = e
        batches.sort(key=lambda b: -float(cost[b].sum()))
        pos = j0
        for b in batches:
            order[pos:pos + b.size] = b
            pos += b.size
            bounds.append(pos)
        stage_bptr.append(len(bounds) - 1)
    return (kind[order], start[order], length[order], np.array(bounds, np.int64), np.array(stage_bptr, np.int64))


_NO_ROWS = (np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))


def _row_arrays(ip: np.ndarray, total: int) -> tuple:
    """Storage of every race state's row (see ``agents.solver.game_sweep.race_eval_lanes``): the bank part
    of the row of a mover at score ``a`` has one coefficient per turn total below ``target - a``."""
    NS, NZ, Tu = int(ip[K.IP_NS]), int(ip[K.IP_NZ]), int(ip[K.IP_TU])
    ia = (np.arange(total) // (NZ * NS * NZ)) % NS
    a = np.where(ia > 0, ia - 1 - int(ip[K.IP_FLOOR]), 0)
    row_ptr = np.zeros(total + 1, np.int64)
    row_ptr[1:] = np.cumsum(Tu - a)
    # no row yet: NaN constants (every state records its row in the first sweep)
    return (row_ptr, np.zeros(int(row_ptr[-1])), np.zeros(total, np.int64), np.zeros(total), np.full(total, np.nan))


def _peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ============================================================================================
# The agent


class OptimalWinAgent:
    """Plays the move that maximises its chance of winning the game, from the solved game.

    Two-player games of rules this module solves: any state (the race, the last turn after the
    opponent reached the target, the second player's turn of ``finish_round`` and tie-break turns),
    from :attr:`table`. Games of three players, and two-player games under ``overcoming``: from the
    solved game of :mod:`agents.solver.multi` (every player maximising their own chance), solved and
    cached on the first move of such a game. Games neither solves raise
    :class:`zilch_env.UnsupportedRulesError` naming the rule.
    """

    name = "optimal-win"

    def __init__(self, ruleset: Ruleset | str, table: GameTable | None = None):
        rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
        two = table is not None or _two_player_rules(rs)
        #: The two-player game table (None under rules only the multi-player solver solves).
        self.table = (table if table is not None else solve_game(rs)) if two else None
        self.ruleset = self.table.ruleset if self.table is not None else rs
        self._multi: dict[int, Any] = {}

    def table_for(self, players: int) -> Any:
        """The solved game this agent plays a game of ``players`` players from."""
        if players == 2 and self.table is not None:
            return self.table
        table = self._multi.get(players)
        if table is None:
            from agents.solver.multi import solve_multi

            table = self._multi[players] = solve_multi(self.ruleset, players)
        return table

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        return self.table_for(state.num_players).best_action(state, legal)


def solved_game_stored(ruleset: Ruleset | str, players: int = 2) -> bool:
    """Whether :class:`OptimalWinAgent` plays a game of ``players`` players of these rules from stored
    tables alone (cached or shipped), never solving first: the two-player game table where this module
    solves the rules (the agent loads it when it is built), and for three players, or two under rules
    only :mod:`agents.solver.multi` solves, that solver's table. False for rules no solver solves."""
    from agents.solver.multi import check_multi_supported, multi_table_path

    try:
        rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
        two = _two_player_rules(rs)
        if two and not any(p.is_file() for p in table_files(rs)):
            return False
        if two and players == 2:
            return True
        check_multi_supported(rs, players)
        return multi_table_path(rs, players).is_file()
    except (ValueError, OverflowError):  # rules a solver refuses, or numbers it cannot hold
        return False


def _two_player_rules(rs: Ruleset) -> bool:
    try:
        check_supported(rs)
    except UnsupportedRulesError:
        return False
    return True


def _factory(ruleset: Ruleset, arg: str | None) -> OptimalWinAgent:
    """``optimal-win`` (the cached table, solved on first use) or ``optimal-win:PATH`` (a table file)."""
    if arg:
        check_supported(ruleset)
        table = GameTable.load(arg)
        if ruleset_key(table.ruleset) != ruleset_key(ruleset):
            raise ValueError(f"optimal-win:{arg}: the table solves {table.ruleset.name!r}, not "
                             f"{ruleset.name!r}")
        return OptimalWinAgent(ruleset, table)
    if not _two_player_rules(ruleset):
        from agents.solver.multi import check_multi_supported

        errors = []
        for players in (2, 3):
            try:
                check_multi_supported(ruleset, players)
            except UnsupportedRulesError as e:
                errors.append(f"{players} players: {e}")
            else:
                break
        else:
            try:
                check_supported(ruleset)
            except UnsupportedRulesError as e:
                raise UnsupportedRulesError(f"optimal-win: no solver solves these rules. Two players: {e}. "
                                            f"The multi-player solver, {'; '.join(errors)}") from None
    return OptimalWinAgent(ruleset)


def _register() -> None:
    from agents.base import register_agent

    register_agent("optimal-win", _factory,
                   "maximises the chance of winning, from the exact solved game: two players, and three (or two "
                   "under overcoming) where agents.solver.multi solves the rules (solved and cached on first "
                   "use; optimal-win:PATH loads a two-player table file)")


_register()
