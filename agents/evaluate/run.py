"""The orchestration: :func:`evaluate` builds the tables and the work, routes each table to an
engine, runs the chunks on the pool, and reduces them in deal order into a :class:`Report`.
"""

from __future__ import annotations

from typing import Any
import itertools
import math
import time

import numpy as np

from zilch_env import load_ruleset, Ruleset

from agents.evaluate.config import (BATCH_CHUNK_DEALS, CHUNK_DEALS, ENGINES, EvalConfig, LUCK_MODES, SOLO_CHUNK_GAMES, SOLO_MAX_TURNS)
from agents.evaluate.dice import distinct_orders, expand_orders, order_kind, seat_orders
from agents.evaluate.luck import luck_table
from agents.evaluate.play import _kernel_or_none, _labels, solo_ruleset, turn_optimum
from agents.evaluate.pool import _Progress, _Runner
from agents.evaluate.report import Report

#: The most games per table (and solo turns per agent) an evaluation plays (issue 41: 10**12 ran on).
MAX_GAMES = 100_000_000


def _check(cfg: EvalConfig, n_agents: int) -> None:
    if not isinstance(cfg.players, int) or not 2 <= cfg.players <= 6:
        raise ValueError(f"players = {cfg.players!r}: a table seats 2 to 6 players "
                         "(the one-player measure is the solo measure, --solo-turns)")
    if n_agents == 0:
        raise ValueError("no agents: name at least one agent spec")
    if n_agents < cfg.players and n_agents > 1:
        raise ValueError(f"{cfg.players} players need at least {cfg.players} agents, got {n_agents} "
                         "(repeat a spec to seat copies of one agent)")
    if n_agents == 1 and not cfg.solo_turns:
        raise ValueError("one agent plays no table: name more agents or ask for the solo measure "
                         "(--solo-turns)")
    if not isinstance(cfg.games, int) or cfg.games < 1:
        raise ValueError(f"games = {cfg.games!r}: at least 1 game per table")
    if cfg.games > MAX_GAMES:
        raise ValueError(f"games = {cfg.games:,}: at most {MAX_GAMES:,} games per table (already hours on "
                         f"the batched engine, whose intervals are then below 0.01%); run several seeds for more")
    if not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise ValueError(f"seed = {cfg.seed!r}: a whole number >= 0")
    if not isinstance(cfg.workers, int) or cfg.workers < 1:
        raise ValueError(f"workers = {cfg.workers!r}: at least 1 process")
    if not isinstance(cfg.solo_turns, int) or not 0 <= cfg.solo_turns <= MAX_GAMES:
        raise ValueError(f"solo_turns = {cfg.solo_turns!r}: a whole number from 0 to {MAX_GAMES:,} "
                         f"(0 = no solo measure)")
    order_kind(cfg.players, cfg.orders)
    if cfg.engine not in ENGINES:
        raise ValueError(f"engine = {cfg.engine!r}: choose one of {', '.join(ENGINES)}")
    if cfg.luck not in LUCK_MODES:
        raise ValueError(f"luck = {cfg.luck!r}: choose one of {', '.join(LUCK_MODES)}")
    if cfg.address and not cfg.ray:
        raise ValueError(f"address = {cfg.address!r} is a Ray cluster's: it needs ray = True (--ray)")


def evaluate(config: EvalConfig | None = None, *, progress: bool = False, **kw: Any) -> "Report":
    """Run a tournament (and the solo measure) and return its :class:`Report`.

    ``evaluate(agents=["greedy", "random"], ruleset="zonk", games=1000, seed=1)`` or
    ``evaluate(EvalConfig(...))``. Agent objects are accepted in place of specs; with more than one
    worker they must be picklable (module-level classes).
    """
    cfg = config if config is not None else EvalConfig(**kw)
    rs = cfg.ruleset if isinstance(cfg.ruleset, Ruleset) else load_ruleset(cfg.ruleset)
    specs = list(cfg.agents)
    labels = _labels(specs)
    _check(cfg, len(specs))
    # Resolve every spec here first, so a bad one fails now, with its message, not in a worker
    # (one worker plays with these very agents; a pool's workers build their own).
    from agents.base import make_agent

    agents = [make_agent(s, rs) for s in specs]
    anchor = None
    if cfg.anchor is not None:
        if cfg.anchor not in labels:
            raise ValueError(f"anchor {cfg.anchor!r} is not one of the agents {labels}")
        anchor = labels.index(cfg.anchor)
    elif "random" in labels:
        anchor = labels.index("random")

    n = cfg.players
    tables = list(itertools.combinations(range(len(specs)), n)) if len(specs) >= n else []
    orders = seat_orders(n, cfg.orders)
    deals = -(-cfg.games // len(orders))
    # Each table plays only its distinct orders (copies of one spec in the same seats play the same
    # game), and the results of every order are rebuilt from them: the same numbers, fewer games.
    keys = [s if isinstance(s, str) else ("object", id(s)) for s in specs]
    layouts = {t: distinct_orders([keys[i] for i in t], orders) for t in tables}
    if cfg.luck == "off":
        gt, luck_why = None, "luck = 'off'"
    elif not tables:  # the solo measure alone: no game to adjust, no table to load
        gt, luck_why = None, "no table of players"
    else:
        gt, luck_why = luck_table(rs, n)
        if cfg.luck == "on" and gt is None:
            raise ValueError(f"luck = 'on' is impossible here: {luck_why}")
    luck = gt is not None
    # Which engine plays each table depends only on the rules, the agents and the luck mode (the
    # batched kernels do not consult the game table), never on the workers. Under ``auto`` a table
    # the kernels play stays there, unadjusted: the batched engine plays ~100x more games in the time
    # the adjustment would take, which narrows its interval more; ``on`` adjusts every table.
    batch_ok = cfg.engine == "auto" and not (luck and cfg.luck == "on")  # every ruleset plays there
    kernels = [_kernel_or_none(a) for a in agents] if batch_ok else [None] * len(agents)
    engines = {t: "batched" if all(kernels[i] is not None for i in t) else "single" for t in tables}
    table_tasks = []
    for t in tables:
        played = layouts[t][0]
        if engines[t] == "batched":
            table_tasks += [("batch", t, played, d0, min(deals, d0 + BATCH_CHUNK_DEALS), [kernels[i] for i in t])
                            for d0 in range(0, deals, BATCH_CHUNK_DEALS)]
        else:
            table_tasks += [("table", t, played, d0, min(deals, d0 + CHUNK_DEALS), luck)
                            for d0 in range(0, deals, CHUNK_DEALS)]
    played_games = sum(deals * len(layouts[t][0]) for t in tables)
    luck = luck and any(e == "single" for e in engines.values())  # some table is adjusted
    optimum, optimum_source = turn_optimum(solo_ruleset(rs)) if cfg.solo_turns else (None, "")

    t_start = time.perf_counter()
    bar = _Progress(progress)
    bar.add("start", "starting Ray" if cfg.ray else f"starting {cfg.workers} worker{'s' * (cfg.workers > 1)}", None)
    try:
        if cfg.ray:  # the same tasks as Ray tasks (Ray is imported there only)
            from agents.evaluate.ray_eval import RayRunner

            runner = RayRunner(rs, specs, cfg.seed, cfg.workers, kernels="batched" in engines.values(),
                               address=cfg.address)
        else:
            runner = _Runner(rs, specs, cfg.seed, cfg.workers, agents, kernels="batched" in engines.values(),
                             luck=gt if luck else None)
    except BaseException:
        bar.close()
        raise
    bar.remove("start")
    chunks: dict[tuple, list[dict[str, np.ndarray]]] = {t: [] for t in tables}
    solo: list[list[dict[str, np.ndarray]]] = [[] for _ in specs]
    t_games = 0.0
    try:
        bar.add("games", "games", played_games)
        t0 = time.perf_counter()
        for task, res in runner.map(table_tasks):
            chunks[task[1]].append(res)
            bar.advance("games", len(res["length"]), "games")
        t_games = time.perf_counter() - t0
        if cfg.solo_turns:
            solo = _run_solo(runner, bar, len(specs), cfg.solo_turns)
    finally:
        bar.close()
        runner.close()
    elapsed = time.perf_counter() - t_start

    merged = {t: expand_orders({k: np.concatenate([c[k] for c in chunks[t]]) for k in chunks[t][0]}, deals,
                               *layouts[t][1:]) for t in tables}
    solo_merged = [_merge_solo(parts, cfg.solo_turns) for parts in solo] if cfg.solo_turns else []
    total_games = len(tables) * deals * len(orders)
    # ``games`` counts every seat order's game; ``games_played`` only those played (the distinct ones).
    timing = {"seconds": elapsed, "startup_seconds": runner.startup_seconds, "tournament_seconds": t_games,
              "games": total_games, "games_played": played_games,
              "games_per_second": played_games / t_games if t_games > 0 else math.nan,
              "workers": runner.workers, "ray": cfg.ray}
    luck_info = {"mode": cfg.luck, "on": luck, "why_off": None if luck else luck_why}
    return Report.build(cfg, rs, specs, labels, tables, orders, deals, merged, solo_merged, optimum,
                        optimum_source, anchor, timing, engines, luck_info,
                        {t: deals * len(layouts[t][0]) for t in tables})


def _run_solo(runner: _Runner, bar: _Progress, n_agents: int, want: int) -> list[list[dict[str, Any]]]:
    """Play one-player games in chunks, in waves, until every agent has ``want`` on-board turns.

    The waves are sized from the turns seen so far, so little is wasted; which games are played does
    not depend on the waves (game ``k`` is always the same game), and :func:`_merge_solo` keeps
    exactly the first ``want`` turns, so the result does not either.
    """
    parts: list[list[dict[str, np.ndarray]]] = [[] for _ in range(n_agents)]
    errors: dict[int, str] = {}
    have = [0] * n_agents
    games = [0] * n_agents
    bar.add("solo", "solo turns", want * n_agents)
    pending = {a: 1 for a in range(n_agents)}  # the first wave: one chunk each, to learn the turn rate
    while pending:
        tasks = []
        for a, chunks in pending.items():
            for _ in range(chunks):
                tasks.append(("solo", a, games[a], games[a] + SOLO_CHUNK_GAMES))
                games[a] += SOLO_CHUNK_GAMES
        for task, res in runner.map(tasks):
            a = task[1]
            if "error" in res or a in errors:
                errors.setdefault(a, res.get("error", ""))
                continue
            parts[a].append(res)
            got = int(res["turns"].sum())
            bar.advance("solo", max(0, min(got, want - have[a])), "turns")
            have[a] += got
        pending = {}
        for a in range(n_agents):
            if have[a] >= want or a in errors:
                continue
            if games[a] >= 10 * SOLO_CHUNK_GAMES and have[a] == 0:
                errors[a] = (f"never got on the board in {games[a]} one-player games of up to "
                             f"{SOLO_MAX_TURNS} turns")
                continue
            rate = max(have[a], 1) / games[a]  # on-board turns per game so far
            need = (want - have[a]) / rate * 1.05
            pending[a] = max(1, math.ceil(need / SOLO_CHUNK_GAMES))
    for a, why in errors.items():
        bar.advance("solo", max(0, want - have[a]), "turns")
        parts[a] = [{"error": why}]  # type: ignore[list-item]
    return parts


def _merge_solo(parts: list[dict[str, np.ndarray]], want: int) -> dict[str, Any]:
    """The first ``want`` on-board turns, in game order, as per-game sums (the last game may be cut)."""
    if parts and "error" in parts[0]:
        return parts[0]
    points = np.concatenate([p["points"] for p in parts])[:want]
    turns = np.concatenate([p["turns"] for p in parts])
    zil_game = np.concatenate([p["zilches"] for p in parts])
    ends = np.cumsum(turns)
    last = int(np.searchsorted(ends, want))  # the game holding turn number ``want``
    turns = turns[: last + 1].copy()
    if len(turns):
        turns[-1] -= int(ends[last]) - want
    starts = np.concatenate([[0], np.cumsum(turns)[:-1]]).astype(np.int64)
    per_game = np.add.reduceat(points, starts) if len(points) else np.zeros(0, np.int64)
    per_game = np.where(turns > 0, per_game, 0)
    return {"points": per_game, "turns": turns, "turn_points": points,
            "zilches": int(zil_game[: last + 1].sum())}
