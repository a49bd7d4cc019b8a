"""Tournaments between agents, with confidence intervals, ratings, reports and plots.

    python -m agents.evaluate --ruleset zonk --agents heuristic greedy random --games 2000 --seed 1 \\
        --out reports/zonk

(``zilch eval`` takes the same options.) Every claim about an agent's strength comes from here.

Tables
    With ``--players 2`` every pair of the listed agents is a table; with ``--players N`` every set of
    N of them (list a spec twice to seat two copies). ``--games`` is the number of games per table.

Deals, seat orders and common random numbers
    Games are grouped in *deals*. Deal ``d`` fixes the dice of every *turn slot*: the r-th roll of the
    t-th turn of the player in seat s shows the same faces in every game of the deal (:class:`DealDice`,
    the slot dice of the batched engine with the deal's key ``SeedSequence([seed, d, 0])``), and one
    decision stream per seat,
    ``default_rng([seed, d, 1, seat])``, is passed to the agent sitting there. The deal is played once
    in every seat order of the table (``--orders rotations``: each agent in each seat once, N orders;
    or ``permutations``: all N! orders; for two players both are the two orders), so each agent meets,
    turn by turn, the dice its opponents met: the luck of the dice largely cancels between the agents
    compared (common random numbers). Two copies of one agent therefore tie exactly. Every table uses
    the same deals. ``--games`` is rounded up to a whole number of deals.

Results per table and agent
    Win, draw and loss rates with Wilson 95% intervals (a draw is a win shared with another player);
    the share of wins (wins plus shares of draws; 50% is even at two players) with a Wilson interval
    whose variance comes from the deals (it may be narrower than for independent games), the sharpest
    measure of a pair because it keeps what the common dice cancel; mean final score; mean points per turn (the points each turn of the agent recorded, i.e. banked
    turn totals and permanent points, before any zilch penalty, with a 95% interval); zilch rate
    (turns ended by a zilch, per turn); mean game length in turns (all players' turns). The games of
    one deal are not independent: an agent's results in its seat orders are negatively correlated
    when the luck cancels. The report gives each rate's design effect (its variance against that of
    independent games; :func:`agents.stats.design_effect`), and the intervals use the effective
    number of games ``n / max(1, design effect)`` (:func:`agents.stats.clustered_wilson`): never
    narrower than Wilson's interval for independent games, wider if the games of a deal ever pull
    together. Means per turn are clustered by deal.

Luck-adjusted results (``--luck``)
    In two-player games of rules the exact game solver handles (:mod:`agents.game_solver`) the
    luck of the dice can be taken out of each game's result exactly, as GNU Backgammon's
    luck-adjusted results do. From seat 0's side, with ``V`` its optimal win chance in a state
    (the mover's table value, or one minus it; the result once the game is over) and ``Q`` the
    value of the action taken, a game's luck is ``(V(s_0) - W_start) + sum_t (V(s_{t+1}) -
    Q(s_t, a_t))``: ``W_start`` is seat 0's chance before the first roll (seat 0 always begins a
    deal's game, so the table's ``first_player_win``), ``s_t`` the states where a player decides
    and ``s_{t+1}`` the next one (after the dice that followed: rolls, zilches, the opponent's
    first rolls); ``s_0`` already holds the opening roll, since a game rolls as it is built. Under
    fair dice ``Q(s, a)`` is the expectation of ``V`` at the next decision, so each term has mean 0
    whatever the agents do, and ``result - luck`` is an unbiased estimate of the result with far
    less variance: it telescopes to ``W_start`` plus the sum of the moves' values minus the best
    values there (each side's regrets against optimal play). Seat 1's adjusted result is one minus
    seat 0's. The report gives each agent's mean adjusted share with Student's t 95% interval over
    the deals (adjusted results are not confined to [0, 1], so no Wilson interval;
    :func:`agents.stats.cluster_mean`) and ``luck_sd_reduction``, the standard deviation of the
    per-deal raw share over that of the adjusted one (a reduction ``k`` is worth ``k**2`` times
    the games). Every state of such a game is one the table values: race turns, the last turns
    after the target, the second player's turn of ``finish_round`` and tie-break turns; forced
    moves add nothing. The rules the solver does not model (the variants ``piggyback``,
    ``challenge``, ``overcoming`` and ``pyramiding``, and the others
    :func:`agents.game_solver.check_supported` names) have no table, so no adjustment. The only inexactness is the table's: float32 values
    (about 3e-8) and leads beyond the largest one tracked valued as it (below 1e-9).

    ``--luck auto`` (the default) adjusts when the game has two players and the rules' table is
    stored (cached or shipped; solving one takes minutes and is never done here), in the tables that
    play on the single-game engine: a table of agents the batched engine's kernels play (greedy,
    random, ``optimal-turn``) stays there unadjusted, since those kernels play about a hundred times
    more games in the time the adjustment would take. ``on`` insists (an error naming why it cannot:
    players, rules, or the ``zilch solve`` command that builds the table) and adjusts every table,
    all of them then on the single-game engine; ``off`` never adjusts. Each adjusted decision costs one
    look-up of the table's values (a solved turn is cached per situation, up to
    ``$ZILCH_WIN_CACHE_MB``; the turns are solved with :meth:`GameTable.stable_cap`, so the values
    do not depend on what a process solved before and the results stay the same for any number of
    workers).

Ratings
    Bradley-Terry maximum likelihood on the Elo scale (:func:`agents.stats.bradley_terry`) from every
    game of every table: in a game each winner beats each non-winner, winners draw with each other
    (half a win each), and two non-winners of an N-player game tell nothing about each other. The
    agent ``random`` is rated 0 when it plays (``--anchor`` picks another), otherwise the mean is 1500.
    One virtual draw per pair keeps a rating finite when an agent never lost. The standard errors
    treat games as independent, which errs on the wide side while the design effects are below 1.

Solo measure
    For each agent: its mean points per turn over ``--solo-turns`` turns played from the board, in
    one-player games of the ruleset (each a fresh game with seeded dice, the same dice for every
    agent; turns before the agent gets on the board are not counted; the variants that tie a turn to
    another player's, ``piggyback``, ``challenge`` and ``overcoming``, are off, as in the optimum,
    and agents named by spec are built for these rules). A turn's points are its change
    of score, so a ``zilch_penalty`` counts. Compared with the exact optimum of the turn,
    ``agents.solver.solve_turn(ruleset).points_per_turn`` (the long-run mean points per turn of the
    best turn policy), as a ratio with a 95% interval from the central limit theorem, clustered by
    game (:func:`agents.stats.ratio_mean`).

Engines
    A table whose agents the batched engine (:mod:`zilch_env.batched`) plays in its compiled kernels,
    greedy, random and optimal-turn players (:func:`kernel_agent`), runs there, tens of times faster,
    with the same deals: its slot dice are the ones :class:`DealDice` rolls, so greedy and
    optimal-turn games are the same move for move on both engines (tested); its random players draw
    their moves from the kernels' own streams (``decision_keys``), equal in distribution. Every other
    table, and the solo measure, runs on the single-game engine. Which engine plays a table depends
    only on its agents and the rules; ``--engine single`` sends every table to the single-game engine.

Workers and determinism
    Work is split into fixed chunks of deals, run by ``--workers`` processes (the ``spawn`` start
    method; every worker builds the agents from their specs), and reduced in deal order. Every game
    depends only on the seed, the deal, the seat order and the engine, so the results are identical
    for a given seed whatever the number of workers. ``--ray`` runs the same chunks as Ray tasks
    (:mod:`agents.ray_eval`: a local Ray, or a cluster with ``--address``), with the same results.

Output
    A table on the terminal; with ``--out DIR``: ``report.md``, ``report.json`` and the plots
    ``winrate_matrix.png`` (score rate of each agent against each other), ``score_distributions.png``
    (final scores) and ``points_per_turn.png`` (solo points per turn against the optimum).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from zilch_env import GameState, IllegalActionError, Policy, RandomDice, Ruleset, load_ruleset
from zilch_env.engine import seed_arg, sorted_rolls_by_code
from zilch_env.splitmix import GOLDEN as _GOLDEN, M64 as _M64, mix64 as _mix64, mix64_array as _mix64_array

from .base import kernel_agent
from .stats import bradley_terry, cluster_mean, clustered_wilson, ratio_mean

__all__ = [
    "EvalConfig", "Report", "evaluate", "seat_orders", "DealCodes", "DealDice", "deal_game", "deal_key", "seat_rng",
    "decision_keys", "kernel_agent", "turn_optimum", "luck_table", "LUCK_MODES",
    "add_arguments", "run_from_args", "main",
]

#: The schema of ``report.json``. 2 adds, per result row, ``luck_adjusted`` and ``luck_sd_reduction``
#: (None when the luck adjustment is off) and ``config.luck``; every field of 1 is unchanged.
REPORT_FORMAT = "zilch-rl/eval/2"
#: Deals per unit of work. Fixed (not derived from the number of workers) so that the work, and
#: therefore every result, is the same however many processes share it.
CHUNK_DEALS = 25
#: Deals per unit of work on the batched engine (many games stepped at once pay off in big batches).
BATCH_CHUNK_DEALS = 512
#: One-player games per unit of work of the solo measure.
SOLO_CHUNK_GAMES = 16
#: A one-player game is cut after this many turns (an agent that rarely banks might never finish).
SOLO_MAX_TURNS = 1000
#: A game with more decisions than this is an agent bug (a game of sane agents takes a few hundred).
MAX_DECISIONS = 1_000_000
#: Seconds a worker process may take to start and build its agents (a solver agent may solve first).
WORKER_START_TIMEOUT = 3600
#: The default number of worker processes: every core.
DEFAULT_WORKERS = os.cpu_count() or 1


# --------------------------------------------------------------------------------------------
# Configuration and seeding


@dataclass
class EvalConfig:
    """What to evaluate. ``agents`` are specs (``"greedy"``, ``"ppo:PATH"``) or agent objects."""

    agents: Sequence[str | Policy]
    """The agents, by spec (see :func:`agents.base.make_agent`) or as objects."""
    ruleset: Ruleset | str = "zonk"
    """The rules: a :class:`Ruleset`, a preset name or a TOML path."""
    games: int = 2000
    """Games per table, rounded up to a whole number of deals (one deal = one game per seat order)."""
    seed: int = 0
    """Seed of every deal's dice and every agent's decisions."""
    workers: int = DEFAULT_WORKERS
    """Worker processes; 1 plays in this process. The results do not depend on it."""
    players: int = 2
    """Players per game (2 to 6)."""
    orders: str = "rotations"
    """Seat orders of each deal: ``rotations`` (N orders) or ``permutations`` (N! orders)."""
    solo_turns: int = 20000
    """On-board turns of the solo measure per agent; 0 skips it."""
    anchor: str | None = None
    """The agent rated 0; default ``random`` if it plays, else the mean rating is 1500."""
    engine: str = "auto"
    """``auto``: tables of agents the batched engine plays in its kernels go there; ``single``: every
    game on the single-game engine."""
    luck: str = "auto"
    """Luck-adjusted results (see the module docstring): ``on`` (every table; an error when
    impossible), ``off``, or ``auto``: for two players when a game table is stored for the rules
    (never solved here), in the tables the batched engine does not play."""
    ray: bool = False
    """Run the chunks as Ray tasks (:mod:`agents.ray_eval`) instead of ``workers`` processes; the
    results are the same."""
    address: str | None = None
    """With ``ray``: the Ray cluster to use; None starts a local Ray with ``workers`` CPUs."""


def seat_orders(players: int, kind: str = "rotations") -> list[tuple[int, ...]]:
    """The seat orders of a deal: ``order[seat]`` is the table position (agent) sitting at ``seat``."""
    if kind == "rotations":
        return [tuple((s + k) % players for s in range(players)) for k in range(players)]
    if kind == "permutations":
        return list(itertools.permutations(range(players)))
    raise ValueError(f"orders = {kind!r}: choose 'rotations' or 'permutations'")


def deal_key(seed: int, deal: int, stream: int = 0) -> int:
    """The 64-bit dice key of a deal: ``SeedSequence([seed, deal, stream])`` (stream 0: the tables'
    deals, 2: the solo measure's games)."""
    return int(np.random.SeedSequence([seed, deal, stream]).generate_state(1, np.uint64)[0])


class DealCodes:
    """The codes of one deal's turn slots, computed a page of :attr:`PAGE_TURNS` turns of every seat at
    a time and shared by the deal's games. Slot ``(s, t, r)``, the r-th roll of the t-th turn of seat s,
    has the code ``mix64(key + (((s << 40) | (t << 16) | r) + 1) * golden) mod 6**6`` (SplitMix64),
    the slot dice of the batched engine (:class:`zilch_env.batched.KeyedSlotDice`), so that both
    engines deal the same dice."""

    PAGE_TURNS = 16
    SLOT_ROLLS = 8  # rolls per turn held in a page; later rolls of a long turn are computed one by one

    def __init__(self, key: int, players: int):
        self.key = int(key) & _M64
        self.players = players
        self._pages: dict[int, list[int]] = {}

    def page(self, k: int) -> list[int]:
        """Turns ``16k .. 16k+15`` of every seat: ``[(s * PAGE_TURNS + t % PAGE_TURNS) * SLOT_ROLLS + r]``."""
        codes = self._pages.get(k)
        if codes is None:
            s = np.arange(self.players, dtype=np.uint64)[:, None, None] << np.uint64(40)
            t = np.arange(k * self.PAGE_TURNS, (k + 1) * self.PAGE_TURNS, dtype=np.uint64)[None, :, None] << np.uint64(16)
            r = np.arange(self.SLOT_ROLLS, dtype=np.uint64)[None, None, :]
            z = np.uint64(self.key) + ((s | t | r) + np.uint64(1)) * np.uint64(_GOLDEN)
            codes = self._pages[k] = (_mix64_array(z.reshape(-1)) % np.uint64(6**6)).tolist()
        return codes

    def code(self, seat: int, turn: int, r: int) -> int:
        """One slot's code (the rolls past ``SLOT_ROLLS`` of a long turn)."""
        return _mix64((self.key + (((seat << 40) | (turn << 16) | r) + 1) * _GOLDEN) & _M64) % 6**6


class DealDice(RandomDice):
    """The dice of one game of a deal, by *turn slot*: the ``r``-th roll of the ``t``-th turn of the
    player in seat ``s`` shows the faces of the deal's code for that slot (:class:`DealCodes`), whoever
    sits there and however earlier turns went. A roll of ``n`` dice takes the code modulo ``6**n`` and
    looks the sorted faces up, as :class:`RandomDice` does.

    Why slots and not one stream: with one stream (``GameState(seed=...)``) roll number k of the game
    goes to whoever happens to roll k-th, so as soon as two agents bank at different moments the
    dice they meet part ways, and the luck no longer cancels: measured on zonk over 1,500 deals, an
    agent's results in the two seat orders of a deal were *positively* correlated (+0.37 for
    heuristic against greedy), the opposite of what common random numbers are for. With slots the
    agents of a pair face each other's dice turn by turn, and the correlation is negative (-0.35
    heuristic/greedy, -0.56 greedy/greedy:500, -0.73 optimal-turn/heuristic): most of the luck cancels.

    These are the dice of :class:`zilch_env.batched.KeyedSlotDice` with the same key, roll for roll
    (tested), so a table plays the same deals in either engine; this class is the fast form for many
    games (pages of codes shared by a deal instead of one hash per roll and a table per game). Like
    it, it is a slot dice source (``by_slot``): the game asks for each roll by its slot. A copy
    (``GameState.clone``, an agent's look-ahead) gets ordinary random dice seeded from the slot: an
    agent cannot peek at the deal.
    """

    by_slot = True

    def __init__(self, codes: DealCodes, first: int = 0):
        self.codes = codes
        self._by_code = sorted_rolls_by_code()
        self._key = (-1, -1)  # the (seat, turn) whose page and base are held
        self._slot = (first, 0, 0)

    def roll_slot(self, n: int, seat: int, turn: int, index: int) -> tuple[int, ...]:
        """The ``index``-th roll (of ``n`` dice) of the ``turn``-th turn of ``seat``."""
        c = self.codes
        if self._key != (seat, turn):
            self._key = (seat, turn)
            self._page = c.page(turn // c.PAGE_TURNS)
            self._base = (seat * c.PAGE_TURNS + turn % c.PAGE_TURNS) * c.SLOT_ROLLS
        self._slot = (seat, turn, index + 1)
        if index < _SLOT_ROLLS:
            return self._by_code[n][self._page[self._base + index] % _POW6[n]]
        return self._by_code[n][c.code(seat, turn, index) % _POW6[n]]

    def roll(self, n: int) -> tuple[int, ...]:
        raise TypeError("deal dice roll by turn slot: a GameState asks roll_slot(n, seat, turn, index)")

    def __deepcopy__(self, memo: dict) -> RandomDice:
        return RandomDice(np.random.default_rng([self.codes.key, *self._slot]))


def deal_game(ruleset: Ruleset, players: int, codes: DealCodes) -> GameState:
    """A new game of the deal ``codes``: ``GameState`` rolling its :class:`DealDice`."""
    return GameState(ruleset, players, dice=DealDice(codes))


_POW6 = [6**n for n in range(7)]
_SLOT_ROLLS = DealCodes.SLOT_ROLLS


def seat_rng(seed: int, deal: int, seat: int) -> np.random.Generator:
    """The decision stream of whoever sits at ``seat`` in deal ``deal`` (the agent's ``rng``)."""
    return np.random.default_rng([seed, deal, 1, seat])


def solo_rng(seed: int, game: int) -> np.random.Generator:
    """The decision stream of one-player game ``game`` of the solo measure."""
    return np.random.default_rng([seed, game, 3, 0])


#: Variants that act between players' turns; the solo measure switches them off (see solo_ruleset).
INTERACTION_VARIANTS = ("piggyback", "challenge", "overcoming")


def solo_ruleset(ruleset: Ruleset) -> Ruleset:
    """The rules of the solo measure's one-player games: ``ruleset`` without the variants that tie a
    turn to another player's (``piggyback``, ``challenge``, ``overcoming``). Alone, a player would
    piggyback on or have to overcome their own last turn, which is no turn of the real game, and the
    exact turn optimum is that of a fresh turn."""
    on = {f"variants.{v}": False for v in INTERACTION_VARIANTS if getattr(ruleset.variants, v)}
    return ruleset.replace(on) if on else ruleset


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


LUCK_MODES = ("auto", "on", "off")


#: The luck adjustment's table, kept between evaluations in one process (``train/ppo.py``'s periodic
#: ones): the turns it solved stay cached. Safe because it solves every turn at its stable cap, so no
#: value it gives depends on which turns were solved before.
_LUCK_TABLES: dict[str, Any] = {}


def luck_table(ruleset: Ruleset, players: int) -> tuple[Any, str]:
    """The game table that adjusts these games for luck, and why there is none: ``(table, "")`` or
    ``(None, reason)``. Only a stored table (cached or shipped with the package) counts: solving one
    takes minutes, which an evaluation never spends unasked."""
    from .game_solver import UnsupportedRules, check_supported, load_game_table

    if players != 2:
        return None, (f"luck adjustment needs two-player games (the exact game table solves those), "
                      f"not {players} players")
    try:
        check_supported(ruleset)
    except UnsupportedRules as e:
        return None, f"the game solver does not handle these rules, so there is no table to adjust with: {e}"
    from .game_solver import ruleset_key

    key = ruleset_key(ruleset)
    table = _LUCK_TABLES.get(key)
    if table is None:
        table = load_game_table(ruleset)
        if table is not None:
            _LUCK_TABLES.clear()  # one table kept: a run evaluates one ruleset again and again
            _LUCK_TABLES[key] = table
    if table is None:
        return None, (f"no game table is stored for the rules {ruleset.name!r}; build it (minutes) with "
                      f"`zilch solve --ruleset {ruleset.name} --objective win` (with the same --set "
                      "options if any), then evaluate again")
    return table, ""


# --------------------------------------------------------------------------------------------
# The work done in each process


class _Context:
    """What a process needs to play: the ruleset and one agent object per entrant."""

    def __init__(self, ruleset: Ruleset, specs: Sequence[str | Policy], seed: int,
                 agents: Sequence[Policy] | None = None, luck: Any = None):
        from .base import make_agent

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
        from .base import make_agent

        if self.solo_ruleset is self.ruleset:
            return self.agents[i]
        if self._solo_agents is None:
            self._solo_agents = [make_agent(s, self.solo_ruleset) for s in self.specs]
        return self._solo_agents[i]


_WORKER: _Context | None = None


def _warm_kernels(ruleset: Ruleset) -> None:
    """Compile (or load from numba's cache) the batched engine's kernels: one tiny game."""
    from zilch_env.batched import KernelAgent

    from .tournament import play_games

    play_games(ruleset, [KernelAgent("random")] * 2, np.zeros((1, 2), np.int64), seed=0, dice_slots=True)


def _init_worker(ruleset: Ruleset, specs: Sequence[str | Policy], seed: int, ready: Any, kernels: bool) -> None:
    """Pool initializer: build the agents (and the batched engine's kernels when tables need them),
    with one thread of linear algebra per process (the processes are the parallelism), then report
    ``("ready", pid)`` or ``("error", text)``."""
    global _WORKER
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = "1"
    try:
        _WORKER = _Context(ruleset, specs, seed)
        if kernels:
            _warm_kernels(ruleset)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
    except BaseException as e:
        ready.put(("error", f"{type(e).__name__}: {e}"))
        raise
    ready.put(("ready", os.getpid()))


def _worker_task(task: tuple) -> tuple:
    assert _WORKER is not None
    return _run_task(_WORKER, task)


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
    return None


def _play_luck(game: GameState, pols: Sequence[Policy], rngs: Sequence[np.random.Generator],
               where: Callable[[], tuple[list[str], str]], table: Any) -> float:
    """:func:`_play` of a two-player game to its end, returning seat 0's luck
    ``(V(s_0) - W_start) + sum_t (V(s_{t+1}) - Q(s_t, a_t))``.

    One look-up of the table per decision gives both terms there: the values of every legal action,
    whose maximum is the mover's optimal value ``V(s_t)`` (which closes the previous term) and one of
    which is the chosen action's ``Q(s_t, a_t)`` (which opens the next). The look-up skips rolling on
    where banking is provably better (the cut DP, as the optimal-win agent plays); only an agent that
    does roll on there costs a second, uncut look-up. The last term closes on the result.
    """
    legal_actions, apply, turns = game.legal_actions, game.apply, game.turns
    w = table.first_player_win
    prev = w if game.first == 0 else 1.0 - w  # seat 0's chance before the first roll
    luck = 0.0
    p = 0
    turn, sit, cap = -1, None, 0  # the situation (and its cap) is the same at every decision of a turn
    try:
        while game.winners is None:
            if game.decisions >= MAX_DECISIONS:
                labels, text = where()
                raise RuntimeError(f"{text} did not end within {MAX_DECISIONS} decisions (agents {labels})")
            p = game.current
            a = pols[p].act(game, legal_actions(), rngs[p])
            if len(turns) != turn:
                turn, sit = len(turns), table.situation(game)
                cap = table.stable_cap(sit)
            values = table.action_values(game, True, cap, sit)
            q = values.get(a)
            if q is not None:  # (an illegal action: apply names the rule below)
                v = max(values.values())
                if q < 0.0:  # rolling on where banking is provably better: the uncut values
                    q = table.action_values(game, False, cap, sit)[a]
                if p:
                    v, q = 1.0 - v, 1.0 - q
                luck += v - prev
                prev = q
            apply(a)
    except IllegalActionError as e:
        labels, text = where()
        raise RuntimeError(f"agent {labels[p]!r} chose an illegal action in {text}: {e}") from None
    return luck + game.result()[0] - prev


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


ENGINES = ("auto", "single")


def _kernel_or_none(agent: Any) -> Any:
    """The batched engine's form of ``agent`` (:func:`agents.base.kernel_agent`, the one answer), or
    None where the agent plays on the single-game engine."""
    from zilch_env import UnsupportedRulesError

    try:
        return kernel_agent(agent)
    except UnsupportedRulesError:
        return None


def decision_keys(seed: int, deal: int, players: int) -> np.ndarray:
    """The 64-bit keys of the kernels' random players, one per seat of deal ``deal``."""
    return np.random.SeedSequence([seed, deal, 1]).generate_state(players, np.uint64)


def _play_batch_chunk(ctx: _Context, table: tuple[int, ...], orders: list[tuple[int, ...]], d0: int, d1: int,
                      kernel_agents: Sequence[Any]) -> dict[str, np.ndarray]:
    """Deals ``d0 .. d1-1`` of one table on the batched engine: the same deals (keys, slot dice) and
    seat orders as :func:`_play_table_chunk`, many games at once; the same arrays out."""
    from .tournament import play_games

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


# --------------------------------------------------------------------------------------------
# Running the work: one process, or a pool


class _Runner:
    """Runs tasks in order, in this process (``workers == 1``) or in a ``spawn`` pool."""

    def __init__(self, ruleset: Ruleset, specs: Sequence[str | Policy], seed: int, workers: int,
                 agents: Sequence[Policy], kernels: bool = False, luck: Any = None):
        self.workers = workers
        self.pool = None
        t = time.perf_counter()
        if workers == 1:
            self.ctx = _Context(ruleset, specs, seed, agents, luck)
            if kernels:
                _warm_kernels(ruleset)
        else:
            import multiprocessing as mp
            import queue

            ctx = mp.get_context("spawn")
            ready = ctx.Queue()
            self.pool = ctx.Pool(workers, _init_worker, (ruleset, list(specs), seed, ready, kernels))
            # Wait until every worker has built its agents, so that the games are timed alone and a
            # worker that cannot build an agent stops the run with its message.
            started = 0
            while started < workers:
                try:
                    status, what = ready.get(timeout=WORKER_START_TIMEOUT)
                except queue.Empty:
                    self.close()
                    raise RuntimeError(f"the worker processes did not start within {WORKER_START_TIMEOUT} s") from None
                if status == "error":
                    self.close()
                    raise RuntimeError(f"a worker process could not build the agents: {what}")
                started += 1
        self.startup_seconds = time.perf_counter() - t

    def map(self, tasks: Sequence[tuple]) -> Iterator[tuple]:
        """``(task, result)`` in the order of ``tasks``."""
        if self.pool is None:
            for t in tasks:
                yield _run_task(self.ctx, t)
        else:
            yield from self.pool.imap(_worker_task, tasks, chunksize=1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None


class _Progress:
    """A rich progress bar on stderr, or nothing."""

    def __init__(self, enabled: bool):
        self.bar = None
        if enabled:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self.bar = Progress(TextColumn("{task.description:<12}"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=False)
            self.bar.start()
        self.tasks: dict[str, Any] = {}
        self.t0: dict[str, float] = {}

    def add(self, key: str, description: str, total: int | None) -> None:
        """A bar of ``total`` steps; ``None`` for a pulsing bar of unknown length."""
        if self.bar is not None and total != 0:
            self.tasks[key] = self.bar.add_task(description, total=total, rate="")
            self.t0[key] = time.perf_counter()

    def remove(self, key: str) -> None:
        if key in self.tasks:
            self.bar.remove_task(self.tasks.pop(key))

    def advance(self, key: str, n: int, unit: str) -> None:
        if key in self.tasks:
            task = self.tasks[key]
            self.bar.advance(task, n)
            done = next(x for x in self.bar.tasks if x.id == task).completed
            dt = time.perf_counter() - self.t0[key]
            self.bar.update(task, rate=f"{done / dt:,.0f} {unit}/s" if dt > 0 else "")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


# --------------------------------------------------------------------------------------------
# Evaluation


def _labels(agents: Sequence[str | Policy]) -> list[str]:
    """Names for the entrants: the spec (or the agent's ``name``); repeats get ``#2``, ``#3`` ..."""
    out, seen = [], {}
    for a in agents:
        base = a if isinstance(a, str) else str(getattr(a, "name", type(a).__name__))
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return out


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
    if not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise ValueError(f"seed = {cfg.seed!r}: a whole number >= 0")
    if not isinstance(cfg.workers, int) or cfg.workers < 1:
        raise ValueError(f"workers = {cfg.workers!r}: at least 1 process")
    if not isinstance(cfg.solo_turns, int) or cfg.solo_turns < 0:
        raise ValueError(f"solo_turns = {cfg.solo_turns!r}: a whole number >= 0 (0 = no solo measure)")
    seat_orders(2, cfg.orders)
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
    from .base import make_agent

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
        if engines[t] == "batched":
            table_tasks += [("batch", t, orders, d0, min(deals, d0 + BATCH_CHUNK_DEALS), [kernels[i] for i in t])
                            for d0 in range(0, deals, BATCH_CHUNK_DEALS)]
        else:
            table_tasks += [("table", t, orders, d0, min(deals, d0 + CHUNK_DEALS), luck)
                            for d0 in range(0, deals, CHUNK_DEALS)]
    luck = luck and any(e == "single" for e in engines.values())  # some table is adjusted
    optimum, optimum_source = turn_optimum(solo_ruleset(rs)) if cfg.solo_turns else (None, "")

    t_start = time.perf_counter()
    bar = _Progress(progress)
    bar.add("start", "starting Ray" if cfg.ray else f"starting {cfg.workers} worker{'s' * (cfg.workers > 1)}", None)
    try:
        if cfg.ray:  # the same tasks as Ray tasks (Ray is imported there only)
            from .ray_eval import RayRunner

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
        bar.add("games", "games", len(tables) * deals * len(orders))
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

    merged = {t: {k: np.concatenate([c[k] for c in chunks[t]]) for k in chunks[t][0]} for t in tables}
    solo_merged = [_merge_solo(parts, cfg.solo_turns) for parts in solo] if cfg.solo_turns else []
    total_games = len(tables) * deals * len(orders)
    timing = {"seconds": elapsed, "startup_seconds": runner.startup_seconds, "tournament_seconds": t_games,
              "games": total_games,
              "games_per_second": total_games / t_games if t_games > 0 else math.nan,
              "workers": runner.workers, "ray": cfg.ray}
    luck_info = {"mode": cfg.luck, "on": luck, "why_off": None if luck else luck_why}
    return Report.build(cfg, rs, specs, labels, tables, orders, deals, merged, solo_merged, optimum,
                        optimum_source, anchor, timing, engines, luck_info)


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


# --------------------------------------------------------------------------------------------
# The report


def _rate(x: np.ndarray, min_deff: float = 1.0) -> dict[str, float]:
    """A rate with its interval from outcomes in [0, 1] shaped ``(deals, seat orders)``."""
    rate, lo, hi, deff = clustered_wilson(x, min_deff)
    return {"rate": rate, "low": lo, "high": hi, "design_effect": deff}


@dataclass
class Report:
    """The result of :func:`evaluate`: ``data`` is the JSON document; ``scores`` and
    ``solo_points`` keep the raw per-game numbers for the plots."""

    data: dict[str, Any]
    scores: dict[str, np.ndarray] = field(default_factory=dict)  # final scores per agent, all its games
    solo_points: dict[str, np.ndarray] = field(default_factory=dict)  # per-turn solo points per agent

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, cfg: EvalConfig, rs: Ruleset, specs: Sequence[str | Policy], labels: list[str],
              tables: list[tuple[int, ...]], orders: list[tuple[int, ...]], deals: int,
              merged: dict[tuple, dict[str, np.ndarray]], solo: list[dict[str, np.ndarray]],
              optimum: float | None, optimum_source: str, anchor: int | None,
              timing: dict[str, Any], engines: dict[tuple, str] | None = None,
              luck: dict[str, Any] | None = None) -> "Report":
        k = len(labels)
        pair_wins = np.zeros((k, k))  # pairwise results from every game: win 1, draw 1/2 each
        scores: dict[str, list[np.ndarray]] = {lab: [] for lab in labels}
        table_out = []
        for t in tables:
            m = merged[t]
            res, g = m["result"], len(m["length"])
            rows = []
            m_orders = len(orders)
            for pos, a in enumerate(t):
                r = res[:, pos]
                win, draw = r == 1.0, (r > 0) & (r < 1.0)
                wins, draws = int(win.sum()), int(draw.sum())
                losses = g - wins - draws
                by_deal = lambda x: x.reshape(-1, m_orders)  # noqa: E731 (games are deal-major)
                ppt = ratio_mean(by_deal(m["points"][:, pos]).sum(1), by_deal(m["turns"][:, pos]).sum(1))
                sc = m["score"][:, pos]
                scores[labels[a]].append(sc)
                adjusted, reduction = None, None
                if "luck" in m:
                    # Per deal, as the raw share's interval: the deal is the independent unit.
                    adj = by_deal(r - m["luck"][:, pos])
                    cm = cluster_mean(adj)
                    adjusted = {"mean": cm.mean, "low": _num(cm.low), "high": _num(cm.high),
                                "stderr": _num(cm.stderr), "deals": cm.clusters}
                    raw_sd = float(by_deal(r).mean(axis=1).std(ddof=1)) if cm.clusters > 1 else math.nan
                    # None when undefined: one deal, or no spread left (optimal play against itself)
                    reduction = _num(raw_sd / cm.sd) if cm.sd > 0 else None
                rows.append({
                    "agent": labels[a], "games": g, "wins": wins, "draws": draws, "losses": losses,
                    "win": _rate(by_deal(win)), "draw": _rate(by_deal(draw)), "loss": _rate(by_deal(r == 0)),
                    # Wins plus shares of draws, with the variance over the deals: the precise measure
                    # of a pair, since its interval keeps what the common dice cancel.
                    "score_share": _rate(by_deal(r), min_deff=1.0 / g),
                    "mean_score": float(sc.mean()), "sd_score": float(sc.std(ddof=1)) if g > 1 else 0.0,
                    "score_quantiles": {q: float(np.quantile(sc, q / 100)) for q in (10, 50, 90)},
                    "points_per_turn": ppt.to_dict(),
                    "zilch_rate": float(m["zilches"][:, pos].sum() / max(1, m["turns"][:, pos].sum())),
                    "turns_per_game": float(m["turns"][:, pos].mean()),
                    # The score share with the dice's luck removed (see the module docstring);
                    # None when the adjustment is off.
                    "luck_adjusted": adjusted, "luck_sd_reduction": reduction,
                })
            for i, j in itertools.combinations(range(len(t)), 2):
                wi, wj = res[:, i] > 0, res[:, j] > 0
                a, b = t[i], t[j]
                pair_wins[a, b] += (wi & ~wj).sum() + 0.5 * (wi & wj).sum()
                pair_wins[b, a] += (wj & ~wi).sum() + 0.5 * (wi & wj).sum()
            seat_wins = [float(res[m["seat"] == s].sum() / g) for s in range(len(t))]
            table_out.append({
                "agents": [labels[a] for a in t], "engine": (engines or {}).get(t, "single"), "deals": deals,
                "games": g,
                "mean_length": float(m["length"].mean()), "seat_score_share": seat_wins, "results": rows,
            })
        games_between = pair_wins + pair_wins.T
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(games_between > 0, pair_wins / games_between, np.nan)
        ratings = None
        if tables:
            rt = bradley_terry(pair_wins, anchor=anchor)
            ratings = [{"agent": labels[i], "rating": _num(rt.rating[i]), "stderr": _num(rt.stderr[i])}
                       for i in range(k)]
            anchor_text = f"{labels[anchor]} = 0" if anchor is not None else "mean = 1500"
        solo_out = None
        solo_points = {}
        if solo:
            agents_out = []
            for a, s in enumerate(solo):
                if "error" in s:
                    agents_out.append({"agent": labels[a], "error": s["error"]})
                    continue
                rm = ratio_mean(s["points"], s["turns"])
                entry = {"agent": labels[a], "points_per_turn": rm.to_dict(),
                         "zilch_rate": s["zilches"] / max(1, int(s["turns"].sum()))}
                if optimum:
                    entry["ratio"] = rm.scaled(optimum).to_dict()
                agents_out.append(entry)
                solo_points[labels[a]] = s["turn_points"]
            solo_out = {"turns": cfg.solo_turns, "optimum": optimum, "optimum_source": optimum_source,
                        "variants_off": [v for v in INTERACTION_VARIANTS if getattr(rs.variants, v)],
                        "agents": agents_out}
        data = {
            "format": REPORT_FORMAT,
            "config": {
                "agents": labels, "specs": [s if isinstance(s, str) else f"<{type(s).__module__}.{type(s).__qualname__}>"
                          for s in specs],
                "ruleset": rs.name, "games": cfg.games, "deals": deals, "seed": cfg.seed,
                "players": cfg.players, "orders": cfg.orders, "seat_orders": [list(o) for o in orders],
                "solo_turns": cfg.solo_turns, "engine": cfg.engine,
                "luck": luck or {"mode": cfg.luck, "on": False, "why_off": "not asked"},
            },
            "ruleset": rs.to_dict(),
            "tables": table_out,
            "pairwise": {"agents": labels, "score_share": _nested(share), "games": _nested(games_between)},
            "ratings": {"scale": "Elo (Bradley-Terry MLE, draws = half)",
                        "anchor": anchor_text, "agents": ratings} if ratings else None,
            "solo": solo_out,
            "timing": timing,
        }
        return cls(data, {lab: np.concatenate(v) if v else np.zeros(0, np.int64) for lab, v in scores.items()},
                   solo_points)

    # ------------------------------------------------------------------ views

    def results(self) -> dict[str, Any]:
        """The report without its timing: identical for a given seed whatever the workers."""
        return {k: v for k, v in self.data.items() if k != "timing"}

    def to_json(self) -> str:
        import json

        return json.dumps(self.data, indent=2, allow_nan=False, default=_json_default)

    def rich_tables(self) -> list[Any]:
        """The report as rich renderables: results per table, ratings, solo measure, with notes."""
        from rich.table import Table
        from rich.text import Text

        d = self.data
        cfg = d["config"]
        out = []
        if d["tables"]:
            tb = Table(title=f"{cfg['ruleset']}: {cfg['players']}-player tables, {d['tables'][0]['games']} "
                       f"games each, seed {cfg['seed']}", title_justify="left")
            luck = _has_luck(d)
            tb.add_column("agent", no_wrap=True)
            tb.add_column("vs", no_wrap=True)
            for col in RESULT_COLUMNS + (LUCK_COLUMNS_SHORT if luck else ()):
                tb.add_column(col, justify="right", no_wrap="CI" in col or col == LUCK_COLUMNS_SHORT[0])
            for t in d["tables"]:
                for ri, r in enumerate(t["results"]):
                    others = ", ".join(a for k, a in enumerate(t["agents"]) if k != ri)
                    tb.add_row(r["agent"], others, *_row_cells(r, t, luck), end_section=ri == len(t["results"]) - 1)
            out.append(tb)
            if luck:
                out.append(Text("luck-adj. share: the score share % with the dice's luck removed by the exact "
                                "game table (unbiased; Student's t 95% interval over the deals); sd ÷: how many "
                                "times smaller the spread of the per-deal share became", style="dim"))
        if d["ratings"]:
            rt = Table(title=f"Elo ratings, {d['ratings']['anchor']}", title_justify="left")
            rt.add_column("agent")
            rt.add_column("rating", justify="right")
            rt.add_column("± 95%", justify="right")
            for r in sorted(d["ratings"]["agents"], key=lambda r: -_sortable(r["rating"])):
                rt.add_row(r["agent"], _fmt(r["rating"], "{:.0f}"), _fmt(_ci95(r["stderr"]), "{:.0f}"))
            out += [rt, Text("Bradley-Terry maximum likelihood over all games, a draw = half a win", style="dim")]
        if d["solo"]:
            s = d["solo"]
            opt = s["optimum"]
            st = Table(title="solo: points per turn from the board" + (f", exact optimum {opt:.1f}" if opt else ""),
                       title_justify="left")
            for col in ("agent", "pts/turn [95% CI]", "of optimum [95% CI]", "zilch %"):
                st.add_column(col, justify="left" if col == "agent" else "right")
            for a in s["agents"]:
                if "error" in a:
                    st.add_row(a["agent"], f"no solo measure: {a['error']}", "-", "-")
                    continue
                st.add_row(a["agent"], _ci_text(a["points_per_turn"], "{:.1f}"),
                           _ci_text(a["ratio"], "{:.1%}") if "ratio" in a else "-",
                           f"{100 * a['zilch_rate']:.1f}")
            out += [st, Text(f"{s['turns']} turns per agent in one-player games; 95% intervals clustered by game"
                             + ("" if opt else f"; {s['optimum_source']}"), style="dim")]
        return out

    def print(self, console: Any = None) -> None:
        from rich.console import Console

        # A pipe or a file gets rich's 80 columns by default, too narrow for the table: use 140 there.
        console = console or Console(width=None if sys.stdout.isatty() else 140)
        for t in self.rich_tables():
            console.print(t)
        tm = self.data["timing"]
        if tm.get("games"):
            w = tm["workers"]
            console.print(f"{tm['games']} games in {tm['tournament_seconds']:.1f} s "
                          f"({tm['games_per_second']:,.0f} games/s, "
                          + (f"Ray, {w} CPU{'s' * (w > 1)})" if tm.get("ray") else f"{w} worker{'s' * (w > 1)})"),
                          style="dim")

    def markdown(self, plots: Sequence[str] = (), command: str | None = None) -> str:
        """The report as Markdown; ``plots`` are image paths relative to the Markdown file."""
        d, cfg = self.data, self.data["config"]
        lines = [f"# Evaluation: {cfg['ruleset']}", ""]
        if command:
            lines += ["```", command, "```", ""]
        lines += [f"Agents: {', '.join(f'`{a}`' for a in cfg['agents'])}. {cfg['players']}-player tables, "
                  f"{cfg['deals']} deals per table, each played in {len(cfg['seat_orders'])} seat orders "
                  f"with the same dice (common random numbers); seed {cfg['seed']}.", ""]
        if d["tables"]:
            luck = _has_luck(d)
            cols = RESULT_COLUMNS + (LUCK_COLUMNS if luck else ())
            lines += ["| table | agent | " + " | ".join(cols) + " | design effect |",
                      "|---|---|" + "---:|" * (len(cols) + 1)]
            for t in d["tables"]:
                for ri, r in enumerate(t["results"]):
                    name = " vs ".join(t["agents"]) if ri == 0 else ""
                    lines.append("| " + " | ".join([name, f"`{r['agent']}`", *_row_cells(r, t, luck),
                                                    f"{r['win']['design_effect']:.2f}"]) + " |")
            lines += ["", "win and draw: rates with Wilson 95% intervals (on the effective number of games when "
                      "the games of a deal pull together, never narrower than for independent games); share: "
                      "wins plus shares of draws, 50% = even, with a Wilson interval whose variance comes from "
                      "the deals, so it keeps the luck the common dice cancel; score: mean final score; pts/turn: points recorded per "
                      "turn; turns: every player's turns per game; design effect: the variance of the win rate "
                      "against that of as many independent games (below 1: the common dice cancelled that much "
                      "of the luck).", ""]
            lk = cfg.get("luck") or {}
            if not luck and lk.get("mode") == "auto" and lk.get("why_off"):
                lines += [f"No luck-adjusted results: {lk['why_off']}.", ""]
            if luck:
                lines += ["luck-adjusted share: each game's result minus the luck of its dice, measured with the "
                          "exact game table (the changes of the optimal win chance that the dice caused, each "
                          "zero on average): an unbiased estimate of the share with far less variance, with "
                          "Student's t 95% interval over the deals; luck sd ÷: the standard deviation of the "
                          "per-deal share over that of the adjusted share (a reduction k is worth k² times the "
                          "games).", ""]
            batched = [" vs ".join(t["agents"]) for t in d["tables"] if t.get("engine") == "batched"]
            if batched:
                lines += [f"On the batched engine (same deals, greedy and optimal-turn games move for move "
                          f"the same): "
                          f"{'; '.join(batched)}. The other tables on the single-game engine.", ""]
        if d["ratings"]:
            lines += [f"## Ratings", "", f"{d['ratings']['scale']}, anchored at {d['ratings']['anchor']}.", "",
                      "| agent | rating | ± 95% |", "|---|---:|---:|"]
            for r in sorted(d["ratings"]["agents"], key=lambda r: -_sortable(r["rating"])):
                lines.append(f"| `{r['agent']}` | {_fmt(r['rating'], '{:.0f}')} | {_fmt(_ci95(r['stderr']), '{:.0f}')} |")
            lines.append("")
        if d["solo"]:
            s = d["solo"]
            opt = s["optimum"]
            lines += ["## Solo measure", "",
                      f"Mean points per turn over {s['turns']} turns from the board (one-player games, "
                      "the same dice for every agent; 95% intervals clustered by game). "
                      + (f"Exact optimum of the turn: **{opt:.2f}** ({s['optimum_source']})." if opt
                         else f"No exact optimum: {s['optimum_source']}.")
                      + (f" Off in these games: {', '.join(s['variants_off'])} (they tie a turn to "
                         "another player's)." if s["variants_off"] else ""), "",
                      "| agent | pts/turn [95% CI] | of optimum [95% CI] | zilch % |", "|---|---:|---:|---:|"]
            for a in s["agents"]:
                if "error" in a:
                    lines.append(f"| `{a['agent']}` | no solo measure: {a['error']} | - | - |")
                    continue
                lines.append(f"| `{a['agent']}` | {_ci_text(a['points_per_turn'], '{:.1f}')} | "
                             f"{_ci_text(a['ratio'], '{:.1%}') if 'ratio' in a else '-'} | "
                             f"{100 * a['zilch_rate']:.1f} |")
            lines.append("")
        for p in plots:
            lines += [f"![{Path(p).stem.replace('_', ' ')}]({p})", ""]
        return "\n".join(lines)

    # ------------------------------------------------------------------ files

    def plot(self, out: str | Path) -> list[str]:
        """Write the PNG plots into ``out``; returns their file names."""
        try:
            import matplotlib
        except ImportError:
            raise ImportError("the plots need matplotlib (pip install matplotlib, or the package's "
                              "'train' extra); without it, write the report with --no-plots") from None

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        d = self.data
        labels = d["config"]["agents"]
        written = []
        if d["tables"]:
            share = np.array([[np.nan if v is None else v for v in row] for row in d["pairwise"]["score_share"]],
                             dtype=float)
            fig, ax = plt.subplots(figsize=(1.2 * len(labels) + 2.5, 1.0 * len(labels) + 1.8))
            ax.set_facecolor("#dddddd")  # the diagonal and pairs that never met stay grey
            im = ax.imshow(np.ma.masked_invalid(share), cmap="RdBu", vmin=0, vmax=1)
            ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
            ax.set_yticks(range(len(labels)), labels)
            ax.set_xlabel("opponent")
            ax.set_ylabel("agent")
            for i in range(len(labels)):
                for j in range(len(labels)):
                    if not np.isnan(share[i, j]):
                        ax.text(j, i, f"{share[i, j]:.2f}", ha="center", va="center",
                                color="white" if abs(share[i, j] - 0.5) > 0.3 else "black")
            fig.colorbar(im, ax=ax, label="score rate (win = 1, draw = ½)")
            ax.set_title(f"{d['config']['ruleset']}: row agent against column agent")
            fig.tight_layout()
            fig.savefig(out / "winrate_matrix.png", dpi=110)
            plt.close(fig)
            written.append("winrate_matrix.png")

            fig, ax = plt.subplots(figsize=(7.5, 4.2))
            allsc = np.concatenate([v for v in self.scores.values() if len(v)])
            bins = np.linspace(0, max(1, allsc.max()), 50)
            for lab in labels:
                if len(self.scores.get(lab, ())):
                    ax.hist(self.scores[lab], bins=bins, histtype="step", linewidth=1.6, density=True,
                            label=f"{lab} (mean {self.scores[lab].mean():.0f})")
            ax.axvline(d["ruleset"]["target"], color="grey", linestyle=":", linewidth=1, label="target")
            ax.set_xlabel("final score")
            ax.set_ylabel("density")
            ax.set_title(f"{d['config']['ruleset']}: final scores over all games")
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(out / "score_distributions.png", dpi=110)
            plt.close(fig)
            written.append("score_distributions.png")

        measured = [a for a in d["solo"]["agents"] if "error" not in a] if d["solo"] else []
        if measured:
            s = d["solo"]
            fig, ax = plt.subplots(figsize=(1.1 * len(measured) + 3, 4.2))
            means = [a["points_per_turn"]["mean"] for a in measured]
            err = np.array([[a["points_per_turn"]["mean"] - a["points_per_turn"]["low"],
                             a["points_per_turn"]["high"] - a["points_per_turn"]["mean"]] for a in measured]).T
            err = np.nan_to_num(err)
            names = [a["agent"] for a in measured]
            ax.bar(range(len(names)), means, yerr=err, capsize=4, color="#4C72B0")
            ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
            if s["optimum"]:
                ax.axhline(s["optimum"], color="#C44E52", linestyle="--", label=f"exact optimum {s['optimum']:.1f}")
                for i, a in enumerate(measured):  # the share of the optimum, inside the bar
                    ax.text(i, means[i] / 2, f"{a['ratio']['mean']:.1%}\nof optimum", ha="center",
                            va="center", fontsize=8, color="white")
                top = max(s["optimum"], max(a["points_per_turn"]["high"] for a in measured))
                ax.set_ylim(0, top * 1.18)
                ax.legend(fontsize=8, loc="upper right")
            ax.set_ylabel("mean points per turn (95% CI)")
            ax.set_title(f"{d['config']['ruleset']}: points per turn from the board")
            fig.tight_layout()
            fig.savefig(out / "points_per_turn.png", dpi=110)
            plt.close(fig)
            written.append("points_per_turn.png")
        return written

    def write(self, out: str | Path, command: str | None = None, plots: bool = True) -> list[Path]:
        """Write ``report.json``, the plots and ``report.md`` into ``out``; returns the paths."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        names = self.plot(out) if plots else []
        (out / "report.json").write_text(self.to_json() + "\n")
        (out / "report.md").write_text(self.markdown(names, command))
        return [out / "report.md", out / "report.json", *(out / n for n in names)]


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _nested(a: np.ndarray) -> list[list[float | None]]:
    return [[_num(float(v)) for v in row] for row in a]


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    raise TypeError(f"not JSON: {type(o).__name__}")


def _sortable(x: float | None) -> float:
    return -math.inf if x is None else x


def _ci95(se: float | None) -> float | None:
    return None if se is None else 1.959963984540054 * se


def _fmt(x: float | None, f: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f.format(x)


def _ci_text(d: dict[str, float], f: str) -> str:
    if d["low"] is None or math.isnan(d["low"]):
        return _fmt(d["mean"], f)
    return f"{f.format(d['mean'])} [{f.format(d['low'])}, {f.format(d['high'])}]"


#: The columns of the results table (terminal and Markdown).
RESULT_COLUMNS = ("win % [95% CI]", "draw %", "share % [95% CI]", "score", "pts/turn", "zilch %", "turns")
#: The columns added when the results are adjusted for luck.
LUCK_COLUMNS = ("luck-adjusted share [95% CI]", "luck sd ÷")
#: Their shorter names on the terminal, where the table is already wide.
LUCK_COLUMNS_SHORT = ("luck-adj. share", "sd ÷")


def _has_luck(d: dict[str, Any]) -> bool:
    return any(r.get("luck_adjusted") for t in d["tables"] for r in t["results"])


def _row_cells(r: dict[str, Any], t: dict[str, Any], luck: bool = False) -> list[str]:
    w, sh = r["win"], r["score_share"]
    cells = [f"{100 * w['rate']:.1f} [{100 * w['low']:.1f}, {100 * w['high']:.1f}]",
             f"{100 * r['draw']['rate']:.1f}", f"{100 * sh['rate']:.1f} [{100 * sh['low']:.1f}, {100 * sh['high']:.1f}]",
             f"{r['mean_score']:.0f}",
             _fmt(r["points_per_turn"]["mean"], "{:.1f}"), f"{100 * r['zilch_rate']:.1f}",
             f"{t['mean_length']:.1f}"]
    if luck:
        la = r.get("luck_adjusted")
        if la is None:
            cells += ["-", "-"]
        else:
            pct = {k: None if la[k] is None else 100 * la[k] for k in ("mean", "low", "high")}
            cells += [_ci_text(pct, "{:.1f}"), _fmt(r["luck_sd_reduction"], "{:.1f}×")]
    return cells


# --------------------------------------------------------------------------------------------
# Command line


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Every option of the evaluation except ``--ruleset`` / ``--set`` (each command adds those)."""
    p.add_argument("--agents", "-a", nargs="+", metavar="SPEC",
                   help="agents by spec: a baseline name (random, greedy, greedy:500, heuristic ...), "
                   "a solver (optimal-turn, optimal-win) or ppo:PATH; repeat a spec to seat copies. "
                   "--list-agents shows them all")
    p.add_argument("--games", "-g", type=int, default=2000,
                   help="games per table, rounded up to whole deals (default: 2000)")
    p.add_argument("--seed", type=seed_arg, default=0,
                   help="seed of the dice and of the agents' choices, 0 or more (default: 0)")
    p.add_argument("--workers", "-j", type=int, default=DEFAULT_WORKERS,
                   help=f"worker processes; results do not depend on it (default: all cores, {DEFAULT_WORKERS})")
    p.add_argument("--ray", action="store_true",
                   help="play the deals as Ray tasks (needs ray[tune]): a local Ray with --workers CPUs, or "
                   "the cluster at --address; the same results as local workers")
    p.add_argument("--address", metavar="ADDR",
                   help="with --ray: a running Ray cluster (auto, HOST:6379 or ray://HOST:10001); default: "
                   "start a local Ray")
    p.add_argument("--players", "-n", type=int, default=2,
                   help="players per game, 2 to 6; every set of that many agents is a table (default: 2)")
    p.add_argument("--orders", choices=("rotations", "permutations"), default="rotations",
                   help="seat orders each deal is played in: rotations (N, each agent in each seat once) "
                   "or permutations (N!); the same for 2 players (default: rotations)")
    p.add_argument("--solo-turns", type=int, default=20000, metavar="N",
                   help="turns from the board per agent for the solo measure against the exact turn "
                   "optimum; 0 skips it (default: 20000)")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="auto: tables of greedy, random and optimal-turn players (the agents the batched "
                   "engine plays in its kernels) run there, tens of times faster; single: every game on the "
                   "single-game engine (default: auto)")
    p.add_argument("--luck", choices=LUCK_MODES, default="auto",
                   help="luck-adjusted results: each game's result minus the luck of its dice, measured "
                   "with the exact two-player game table (the change of the optimal win chance the dice "
                   "caused at each step, zero on average), so an unbiased share with a much narrower "
                   "interval. auto: on for 2 players when the rules' table is stored (cached or shipped; "
                   "never solved here); on: required, an error says why it cannot be (players, rules, or "
                   "the 'zilch solve --objective win' command to run), and every table then plays on the "
                   "single-game engine; auto leaves the tables the batched engine plays (greedy, random, "
                   "optimal-turn) there, unadjusted; off: never (default: auto)")
    p.add_argument("--anchor", metavar="AGENT",
                   help="the agent rated 0 (default: random if it plays, else mean rating 1500)")
    p.add_argument("--out", "-o", metavar="DIR", help="write report.md, report.json and the PNG plots into DIR")
    p.add_argument("--no-plots", action="store_true", help="with --out, skip the PNG plots")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--list-agents", action="store_true", help="list the agent specs and exit")


def run_from_args(args: argparse.Namespace, ruleset: Ruleset, prog: str) -> int:
    """Run an evaluation from parsed arguments; returns the exit status."""
    from .base import AgentSpecError, agent_names

    if args.list_agents:
        names = agent_names()
        width = max(map(len, names), default=0)
        for name, help in names.items():
            print(f"{name:<{width}}  {help}")
        return 0
    if not args.agents:
        print(f"{prog}: error: name the agents with --agents SPEC ... (see --list-agents)", file=sys.stderr)
        return 2
    cfg = EvalConfig(agents=args.agents, ruleset=ruleset, games=args.games, seed=args.seed,
                     workers=args.workers, players=args.players, orders=args.orders,
                     solo_turns=args.solo_turns, anchor=args.anchor, engine=args.engine, luck=args.luck,
                     ray=args.ray, address=args.address)
    try:
        report = evaluate(cfg, progress=not args.quiet)
    except (AgentSpecError, ValueError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:  # (a worker or a Ray task that failed, or Ray missing)
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    report.print()
    if args.out:
        command = " ".join([prog, *(_quote(a) for a in sys.argv[1:])])
        try:
            paths = report.write(args.out, command=command, plots=not args.no_plots)
        except ImportError as e:
            print(f"{prog}: error: {e}", file=sys.stderr)
            return 2
        print(f"written: {', '.join(str(p) for p in paths)}")
    return 0


def _quote(a: str) -> str:
    import shlex

    return shlex.quote(a)


def main(argv: list[str] | None = None) -> int:
    from zilch_env.ruleset import RulesetError, parse_overrides

    p = argparse.ArgumentParser(
        prog="python -m agents.evaluate",
        description="Seat-balanced tournaments between agents with common random numbers: win rates "
        "with Wilson intervals, Elo ratings, points per turn against the exact turn optimum; a table, "
        "Markdown, JSON and PNG plots.",
        epilog="Example: python -m agents.evaluate --ruleset zonk --agents heuristic greedy random "
        "--games 2000 --seed 1 --out reports/zonk",
    )
    p.add_argument("--ruleset", "-r", default="zonk", help="preset name or TOML file (default: zonk)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a rule by dotted key, e.g. target=20000 or variants.piggyback=true (repeatable)")
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        rs = load_ruleset(args.ruleset, parse_overrides(args.overrides))
    except RulesetError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    try:
        return run_from_args(args, rs, p.prog)
    except KeyboardInterrupt:
        print(f"{p.prog}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
