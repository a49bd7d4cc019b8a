"""``zilch solve --ruleset farkle [--json]``: the exact optimum of a ruleset.

``--objective turn`` (the default) prints, on the board and before it, the
optimal expected points of one turn, the optimal long-run points per turn under a zilch-streak
penalty, and the solve time, then the shape of the optimal policy: the turn total from which it banks
with each number of dice left to roll, and the zilch odds. ``--objective win`` builds (or loads from
the cache) the exact two-player game table of :mod:`agents.solver.game`, with a progress bar, and
prints the first player's chance of winning under optimal play, the solve's time and memory, and the
win chances at a few scores; with ``--players 3``, or two players under ``overcoming``, the game of
:mod:`agents.solver.multi` and every seat's chance. Each objective is one ``_solve_<objective>``
function returning plain data, printed by ``_print_<objective>`` or as JSON.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from zilch_cli import add_ruleset_args, answer, ruleset_from_args

#: What ``--objective`` may ask for.
OBJECTIVES = ("turn", "win")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve", help="solve a ruleset exactly and print the optimum",
        description="Solve a ruleset exactly. Objective 'turn': the play that maximises the points of "
        "one turn (backward induction over turn total and dice left), on the board and before it; "
        "under a zilch-streak penalty also the best long-run points per turn, from play that depends "
        "on the current streak. Prints the optima, the solve times, the totals from which the optimal "
        "player banks with each number of dice, and the zilch odds. Objective 'win': the play that "
        "maximises the chance of winning (a draw shared), for every state of the game: two players, or "
        "with --players 3 three (every player maximising their own chance; also two under overcoming); "
        "the table is cached ($ZILCH_SOLVER_CACHE, else ~/.cache/zilch-rl) for the optimal-win "
        "agent and 'zilch advise --score ... --opponent ...'.")
    add_ruleset_args(p)
    p.add_argument("--objective", choices=OBJECTIVES, default="turn",
                   help="what to optimise: 'turn' = the most points per turn (default); 'win' = the chance "
                   "of winning a two-player game (builds or loads the game table; a solve beyond about two hours "
                   "or half the free memory is refused first with the estimate; Ctrl-C stops it, writing nothing)")
    p.add_argument("--force", action="store_true",
                   help="with --objective win: solve again even if the table is cached")
    p.add_argument("--players", type=int, choices=(2, 3), default=2,
                   help="with --objective win: the players (3: agents.solver.multi, targets up to about 5,000; "
                   "two under overcoming are solved there too)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.solver import SolverError
    from zilch_env import UnsupportedRulesError

    rs = ruleset_from_args(args)
    if args.objective == "win":
        if args.players == 3 or rs.variants.overcoming:
            return answer("solve", lambda: _solve_multi(rs, args.players, args.force, progress=not args.json),
                          (UnsupportedRulesError,), _print_multi, args.json)
        return _run_win(rs, args)
    if args.players != 2:
        print(f"zilch solve: error: --players {args.players}: only with --objective win (the turn optimum is "
              f"one player's)", file=sys.stderr)
        return 2
    return answer("solve", lambda: _solve_turn(rs), (SolverError, UnsupportedRulesError), _print_turn, args.json)


def _run_win(rs, args: argparse.Namespace) -> int:
    from zilch_env import UnsupportedRulesError

    return answer("solve", lambda: _solve_win(rs, args.force, progress=not args.json), (UnsupportedRulesError,),
                  _print_win, args.json)


def _solve_win(rs, force: bool, progress: bool) -> dict[str, Any]:
    """The two-player game table (solved now or loaded), as plain data."""
    from agents.solver.game import load_game_table, solve_game

    cached = not force and load_game_table(rs) is not None
    table = solve_game(rs, force=force, progress=progress)
    path = table.path
    T, u = rs.target, table.unit
    marks = _marks(rs, ((T // 4) // u * u, (T // 2) // u * u, (3 * T // 4) // u * u, (T - 1) // u * u))
    on = rs.entry_threshold == 0
    grid = {str(a): {str(b): table.race_value(0, a, on or a > 0, 0, b, on or b > 0, 0) for b in marks} for a in marks}
    return {"ruleset": rs.name, "objective": "win", "first_player_win": table.first_player_win,
            "loaded_from_cache": cached, "table": str(path),
            "table_mb": round(path.stat().st_size / 1e6, 3) if path is not None and path.exists() else None,
            "solve": table.meta, "win_chance_at_turn_start": grid}


def _marks(rs, scores) -> list[int]:
    """The scores of a printed table: 0, and those of ``scores`` from the entry threshold (the least a
    first bank reaches) to below the target (the multi-player table refuses a score on the board below
    the threshold)."""
    return sorted({0} | {m for m in scores if rs.entry_threshold <= m < rs.target})


def _solve_multi(rs, players: int, force: bool, progress: bool) -> dict[str, Any]:
    """The game of ``players`` players of :mod:`agents.solver.multi` (solved now or loaded), as plain data."""
    from agents.solver.multi import load_multi_table, solve_multi

    cached = not force and load_multi_table(rs, players) is not None
    table = solve_multi(rs, players, force=force, progress=progress)
    path = table.path
    T, u = rs.target, table.unit
    entry = rs.entry_threshold
    marks = _marks(rs, (max(entry, (T // 2) // u * u), (T - 1) // u * u))
    rows = {}
    for a in marks:
        for b in marks:
            sc = [a, b] + ([b] if players == 3 else [])
            rows[" ".join(map(str, sc))] = [round(float(x), 6) for x in table.start_values(sc)]
    start = [float(x) for x in table.start_values([0] * players, [entry == 0] * players)]
    return {"ruleset": rs.name, "objective": "win", "players": players, "start": start,
            "loaded_from_cache": cached, "table": str(path),
            "table_mb": round(path.stat().st_size / 1e6, 3) if path is not None and path.exists() else None,
            "solve": table.meta, "win_chances_at_turn_start": rows}


def _print_multi(data: dict[str, Any]) -> None:
    m, n = data["solve"], data["players"]
    print(f"{data['ruleset']}: each seat's chance of winning a {n}-player game when every player maximises their "
          f"own (exact; a draw shared)")
    print("  at the start, in playing order: " + ", ".join(f"{v:.5f}" for v in data["start"]))
    how = "loaded from the cache" if data["loaded_from_cache"] else "solved now"
    print(f"  table: {data['table']} ({data['table_mb']} MB, {how})")
    print(f"  solve: {m['seconds']:.1f} s, {m['states']} turn-start states (scores and bar), {m['turn_dps']} turn "
          f"DPs, {m['threads']} thread(s); leads and bars beyond {m['final_cap_points']} valued as it")
    print("Win chances at the start of a turn (scores in playing order from the mover, bar 0):")
    for sc, vals in data["win_chances_at_turn_start"].items():
        print(f"  {sc:>20}  " + "  ".join(f"{v:.3f}" for v in vals))


def _print_win(data: dict[str, Any]) -> None:
    m = data["solve"]
    print(f"{data['ruleset']}: the chance of winning a two-player game under optimal play (exact; a draw "
          f"counts as half)")
    print(f"  the first player wins {data['first_player_win']:.5f}")
    how = "loaded from the cache" if data["loaded_from_cache"] else "solved now"
    conv = "" if m.get("converged", True) else "  NOT CONVERGED"
    print(f"  table: {data['table']} ({data['table_mb']} MB, {how})")
    print(f"  solve: {m['seconds']:.1f} s, peak memory {m['peak_rss_mb']:.0f} MB, {m['states']} turn-start "
          f"states, {m['turn_dps']} turn DPs, {m['sweeps']} sweep(s), {m['threads']} thread(s){conv}")
    grid = data["win_chance_at_turn_start"]
    cols = list(next(iter(grid.values())))
    print("Win chance of the player to move at the start of a turn (rows: their score, columns: the "
          "opponent's):")
    print("  " + " " * 7 + "".join(f"{c:>8}" for c in cols))
    for a, row in grid.items():
        print(f"  {a:>7}" + "".join(f"{row[c]:8.3f}" for c in cols))


def _solve_turn(rs) -> dict[str, Any]:
    """The turn optimum on and off the board, as plain data."""
    from agents.solver import TAIL_TOLERANCE, solve_turn, warm_up

    out: dict[str, Any] = {"ruleset": rs.name, "objective": "turn", "dice": rs.dice, "hot_dice": rs.hot_dice,
                           "pyramiding": rs.variants.pyramiding, "tolerance": TAIL_TOLERANCE, "kernel_seconds": warm_up()}
    for key, on in (("on_board", True), ("off_board", False)):
        out[key] = solve_turn(rs, on).to_dict()
    zp = rs.variants.zilch_penalty
    out["zilch_penalty"] = ({"count": zp.count, "points": zp.points, "mode": zp.mode} if zp.count else None)
    return out


def _dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def _print_turn(data: dict[str, Any]) -> None:
    on, off = data["on_board"], data["off_board"]
    print(f"{data['ruleset']}: the most points per turn (exact)")
    rows = [
        ("", "on the board", "before the board"),
        ("expected points of a turn", f"{on['expected_points']:.3f}", f"{off['expected_points']:.3f}"),
    ]
    zp = data["zilch_penalty"]
    if zp:
        ppt = "n/a" if on["points_per_turn"] is None else f"{on['points_per_turn']:.3f}"
        rows.append(("long-run points per turn", ppt, f"{off['points_per_turn']:.3f}"))
    rows.append(("bank threshold", str(on["bank_threshold"]), str(off["bank_threshold"])))
    rows.append(("solve time", f"{on['solve_seconds']:.3f} s", f"{off['solve_seconds']:.3f} s"))
    w = max(len(r[0]) for r in rows)
    for a, b, c in rows:
        print(f"  {a:<{w}}  {b:>14}  {c:>16}")
    if zp:
        if zp["mode"] == "subtract":
            print(f"  ({zp['count']} zilches in a row cost {zp['points']}: the long-run figure plays a "
                  f"policy per current streak; relative streak values "
                  + ", ".join(f"{v:.1f}" for v in on["streak_values"]) + ")")
        else:
            print(f"  ({zp['count']} zilches in a row: mode {zp['mode']!r} depends on the score, so it has "
                  f"no per-turn average; the expected points ignore it)")
    print("The optimal player on the board banks (whenever the rules allow) from these turn totals on:")
    parts = []
    for n, t in on["bank_totals"].items():
        if t is not None:
            when = f"{t}"
        elif int(n) == data["dice"] and data["hot_dice"] == "forced":
            when = "never (hot dice are forced)"
        else:
            when = f"never (below {on['cap']})"
        parts.append(f"{_dice(int(n))} to roll: {when}")
    print("  " + "; ".join(parts))
    fresh = " (a fresh pass: no dice frozen)" if data.get("pyramiding") else ""
    print(f"Chance of a zilch{fresh}: "
          + ", ".join(f"{_dice(int(n))} {z}" for n, z in on["zilch_probabilities"].items()))
    if on["bank_above"] is not None:
        print(f"(Proved: with more than {on['bank_above']:.0f} at risk banking is optimal with any dice that "
              f"can zilch. Totals are solved up to {on['cap']}; the optimum is certified to within "
              f"{data['tolerance']:g} points, bracket {max(on['tail_error'], 0.0):.2g}.)")
    print(f"(Solve times exclude loading the compiled kernels once per process: {data['kernel_seconds']:.2f} s.)")
