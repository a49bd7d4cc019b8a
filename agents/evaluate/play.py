"""Playing the games of a tournament on the two engines, and routing each table to one.

:class:`_Context` is what a worker holds (the rules, the agents built from their specs); the chunk
functions play fixed ranges of deals on the single-game engine (:func:`_play_table_chunk`), on the
batched engine (:func:`_play_batch_chunk`, for tables of kernel agents) and the solo measure
(:func:`_play_solo_chunk`); :func:`_run_task` dispatches one unit of work.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from zilch_env import GameState, IllegalActionError, Policy, Ruleset, UnsupportedRulesError, load_ruleset

from agents.base import kernel_agent
from agents.evaluate.config import MAX_DECISIONS, SOLO_MAX_TURNS
from agents.evaluate.dice import deal_game, deal_key, DealCodes, decision_keys, seat_rng, solo_rng
from agents.evaluate.luck import _play_luck, luck_table


#: Variants that act between players' turns; the solo measure switches them off (see solo_ruleset).
INTERACTION_VARIANTS = ("piggyback", "challenge", "overcoming")


def solo_ruleset(ruleset: Ruleset) -> Ruleset:
    """The rules of the solo measure's one-player games: ``ruleset`` without the variants that tie a
    turn to another player's (``piggyback``, ``challenge``, ``overcoming``). Alone, a player would
    piggyback on or have to overcome their own last turn, which is no turn of the real game, and the
    exact turn optimum is that of a fresh turn."""
    on = {f"variants.{v}": False for v in INTERACTION_VARIANTS if getattr(ruleset.variants, v)}
    return load_ruleset(ruleset, on) if on else ruleset


def turn_optimum(ruleset: Ruleset) -> tuple[float | None, str]:
    """The exact optimum of mean points per turn from the board, and where it comes from.

    ``agents.solver.solve_turn(ruleset).points_per_turn``; ``(None, reason)`` when the solver is not
    installed or does not handle this ruleset (the solo measure then has no ratio).
    """
    try:
        from agents.solver import solve_turn
    except ImportError as e:
        return None, f"no turn solver ({e})"
    try:
        sol = solve_turn(ruleset)
    except Exception as e:  # a variant the solver does not model: say so, measure anyway
        return None, f"the turn solver does not handle this ruleset: {e}"
    if sol.points_per_turn is None:
        # The solver's word: halving or resetting the score has no per-turn average to compare with.
        return None, (f"no per-turn optimum under the {ruleset.variants.zilch_penalty.mode!r} zilch "
                      "penalty (it depends on the score)")
    return float(sol.points_per_turn), "agents.solver.solve_turn(ruleset).points_per_turn"


class _Context:
    """What a process needs to play: the ruleset and one agent object per entrant."""

    def __init__(self, ruleset: Ruleset, specs: Sequence[str | Policy], seed: int,
                 agents: Sequence[Policy] | None = None, luck: Any = None):
        from agents.base import make_agent

        self._luck = luck
        self.ruleset = ruleset
        self.solo_ruleset = solo_ruleset(ruleset)
        self.seed = seed
        self.specs = list(specs)
        self.labels = _labels(specs)
        self.agents = list(agents) if agents is not None else [make_agent(s, ruleset) for s in specs]
        self._solo_agents: list[Policy] | None = None

    def luck_table(self) -> Any:
        """The game table of the luck adjustment (a worker loads its own on first use: its cache of
        solved turns is the process's, which the stable cap keeps from changing any value)."""
        if self._luck is None:
            table, why = luck_table(self.ruleset, 2)
            if table is None:
                raise RuntimeError(f"a worker process found no game table for the luck adjustment: {why}")
            self._luck = table
        return self._luck

    def solo_agent(self, i: int) -> Policy:
        """Entrant ``i`` for the one-player games: built for :func:`solo_ruleset` when that differs
        from the ruleset (an agent playing ``overcoming`` would otherwise try to beat its own last turn)."""
        from agents.base import make_agent

        if self.solo_ruleset is self.ruleset:
            return self.agents[i]
        if self._solo_agents is None:
            self._solo_agents = [make_agent(s, self.solo_ruleset) for s in self.specs]
        return self._solo_agents[i]


def _run_task(ctx: _Context, task: tuple) -> tuple:
    if task[0] == "table":
        return task, _play_table_chunk(ctx, *task[1:])
    if task[0] == "batch":
        return task, _play_batch_chunk(ctx, *task[1:])
    try:
        return task, _play_solo_chunk(ctx, *task[1:])
    except Exception as e:
        # An agent that cannot play alone (one built for opponents, say) loses its solo measure,
        # not the whole evaluation: the report shows why.
        return task, {"error": f"{type(e).__name__}: {e}"}


def _play(game: GameState, pols: Sequence[Policy], rngs: Sequence[np.random.Generator],
          where: Callable[[], tuple[list[str], str]], max_turns: int = MAX_DECISIONS,
          luck: Any = None) -> float | None:
    """Play ``game`` to its end (or ``max_turns`` turns) with one policy and one rng per seat.

    ``where()`` names the seats' agents and the game, for the error messages only (formatting them
    for every game would cost more than the bookkeeping of the game). With ``luck``, the game table
    of a two-player game, returns the luck of seat 0 (see the module docstring), else None.
    """
    if luck is not None:
        return _play_luck(game, pols, rngs, where, luck)
    legal_actions, apply, turns = game.legal_actions, game.apply, game.turns
    p = 0
    try:
        while game.winners is None and len(turns) < max_turns:
            if game.decisions >= MAX_DECISIONS:
                labels, text = where()
                raise RuntimeError(f"{text} did not end within {MAX_DECISIONS} decisions (agents {labels})")
            p = game.current
            apply(pols[p].act(game, legal_actions(), rngs[p]))
    except IllegalActionError as e:
        labels, text = where()
        raise RuntimeError(f"agent {labels[p]!r} chose an illegal action in {text}: {e}") from None
    except UnsupportedRulesError as e:  # an agent that cannot play these games (optimal-win: 2 players only)
        labels, text = where()
        raise UnsupportedRulesError(f"agent {labels[p]!r} cannot play {game.num_players}-player games "
                                    f"of these rules ({text}): {e}") from None
    return None


def _play_table_chunk(ctx: _Context, table: tuple[int, ...], orders: list[tuple[int, ...]],
                      d0: int, d1: int, luck: bool = False) -> dict[str, np.ndarray]:
    """Deals ``d0 .. d1-1`` of one table, each in every seat order; arrays indexed by game and by
    table position (not seat). With ``luck`` (two players) also ``luck``: each position's luck in
    each game (seat 0's luck, or minus it for seat 1)."""
    rs, seed = ctx.ruleset, ctx.seed
    n = len(table)
    games = (d1 - d0) * len(orders)
    score = np.zeros((games, n), np.int64)
    result = np.zeros((games, n), np.float64)
    turns = np.zeros((games, n), np.int32)
    points = np.zeros((games, n), np.int64)
    zilches = np.zeros((games, n), np.int32)
    seat = np.zeros((games, n), np.int8)
    length = np.zeros(games, np.int32)
    agents = [ctx.agents[m] for m in table]
    names = [ctx.labels[m] for m in table]
    gt = ctx.luck_table() if luck else None
    luck_out = np.zeros((games, n), np.float64) if luck else None
    i = 0
    for d in range(d0, d1):
        # Seeding a generator costs ten times more than restoring its state: seed once per deal and
        # rewind the same generators for every seat order.
        codes = DealCodes(deal_key(seed, d), n)
        rngs = [seat_rng(seed, d, s) for s in range(n)]
        start = [x.bit_generator.state for x in rngs]
        for order in orders:
            for x, st in zip(rngs, start):
                x.bit_generator.state = st
            pols = [agents[order[s]] for s in range(n)]
            g = deal_game(rs, n, codes)
            lk = _play(g, pols, rngs, lambda: ([names[order[s]] for s in range(n)], f"deal {d} (seed {seed})"),
                       luck=gt)
            t_turns, t_points, t_zilch = [0] * n, [0] * n, [0] * n
            for t in g.turns:
                s = t["player"]
                t_turns[s] += 1
                t_points[s] += t["recorded"]
                t_zilch[s] += not t["banked"]
            res = g.result()
            for s in range(n):
                m = order[s]
                score[i, m] = g.scores[s]
                result[i, m] = res[s]
                turns[i, m] = t_turns[s]
                points[i, m] = t_points[s]
                zilches[i, m] = t_zilch[s]
                seat[i, m] = s
                if luck_out is not None:
                    luck_out[i, m] = lk if s == 0 else -lk
            length[i] = len(g.turns)
            i += 1
    out = {"score": score, "result": result, "turns": turns, "points": points, "zilches": zilches,
           "seat": seat, "length": length}
    if luck_out is not None:
        out["luck"] = luck_out
    return out


def _kernel_or_none(agent: Any) -> Any:
    """The batched engine's form of ``agent`` (:func:`agents.base.kernel_agent`, the one answer), or
    None where the agent plays on the single-game engine."""
    from zilch_env import UnsupportedRulesError

    try:
        return kernel_agent(agent)
    except UnsupportedRulesError:
        return None


def _play_batch_chunk(ctx: _Context, table: tuple[int, ...], orders: list[tuple[int, ...]], d0: int, d1: int,
                      kernel_agents: Sequence[Any]) -> dict[str, np.ndarray]:
    """Deals ``d0 .. d1-1`` of one table on the batched engine: the same deals (keys, slot dice) and
    seat orders as :func:`_play_table_chunk`, many games at once; the same arrays out."""
    from agents.evaluate.tournament import play_games

    n, m = len(table), len(orders)
    seed = ctx.seed
    deals = range(d0, d1)
    seat_agents = np.tile(np.asarray(orders, dtype=np.int64), (len(deals), 1))  # [game, seat] -> position
    keys = np.repeat(np.array([deal_key(seed, d) for d in deals], dtype=np.uint64), m)
    dkeys = np.repeat(np.stack([decision_keys(seed, d, n) for d in deals]), m, axis=0)
    r = play_games(ctx.ruleset, list(kernel_agents), seat_agents, dice_keys=keys, dice_slots=True,
                   decision_keys=dkeys, max_decisions=MAX_DECISIONS)
    out = {}
    for name, arr in (("score", r.scores), ("result", r.result), ("turns", r.turns), ("points", r.points),
                      ("zilches", r.zilches)):
        by_position = np.empty_like(arr)
        np.put_along_axis(by_position, seat_agents, arr, axis=1)  # seat s holds position seat_agents[g, s]
        out[name] = by_position
    out["seat"] = np.argsort(seat_agents, axis=1).astype(np.int8)  # the seat of each position
    out["length"] = np.asarray(r.length, dtype=np.int32)
    return out


def _play_solo_chunk(ctx: _Context, agent: int, g0: int, g1: int) -> dict[str, np.ndarray]:
    """One-player games ``g0 .. g1-1`` of the solo measure: the points of every turn played from
    the board (score after minus score before, so penalties count), and turns per game."""
    rs, seed = ctx.solo_ruleset, ctx.seed
    pol = ctx.solo_agent(agent)
    label = ctx.labels[agent]
    pts: list[int] = []
    per_game = np.zeros(g1 - g0, np.int32)
    zil = np.zeros(g1 - g0, np.int32)
    for k, gi in enumerate(range(g0, g1)):
        # The same dice in every turn slot for every agent.
        g = deal_game(rs, 1, DealCodes(deal_key(seed, gi, 2), 1))
        _play(g, [pol], [solo_rng(seed, gi)], lambda: ([label], f"solo game {gi} (seed {seed})"),
              max_turns=SOLO_MAX_TURNS)
        on = rs.entry_threshold == 0
        before = 0
        for t in g.turns:
            if on:
                pts.append(t["score"] - before)
                per_game[k] += 1
                zil[k] += not t["banked"]
            before = t["score"]
            on = on or t["recorded"] > 0  # the first recorded score puts the player on the board
    return {"points": np.asarray(pts, np.int64), "turns": per_game, "zilches": zil}


def _labels(agents: Sequence[str | Policy]) -> list[str]:
    """Names for the entrants: the spec (or the agent's ``name``); repeats get ``#2``, ``#3`` ..."""
    out, seen = [], {}
    for a in agents:
        base = a if isinstance(a, str) else str(getattr(a, "name", type(a).__name__))
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return out
