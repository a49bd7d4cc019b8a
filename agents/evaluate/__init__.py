"""Tournaments between agents, with confidence intervals, ratings, reports and plots.

    python -m agents.evaluate --ruleset zonk --agents heuristic greedy random --games 2000 --seed 1 \
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
    ``permutations``: all N! orders; ``auto``, the default: permutations up to four players, rotations
    for five and six, where 120 or 720 orders a deal would leave too few deals; for two players all are
    the two orders), so each agent meets, turn by turn, the dice its opponents met: the luck of the dice
    largely cancels between the agents compared (common random numbers). Two copies of one agent
    therefore tie exactly. Rotations keep the agents in one cyclic order (at three players A always
    moves just before B), a bias wherever who moves after whom matters (the last turns after the
    target, piggyback, challenges); permutations seat every agent just before and just after every
    other equally often. Orders that seat copies of one spec alike (one agent against N-1 copies of
    another: N distinct games among the N! orders) are the same game, so each is played once and its
    results stand for all of them (``games_played`` in the report). Every table uses the same deals.
    ``--games`` (every order's game counted) is rounded up to a whole number of deals.

Results per table and agent
    Win, draw and loss rates with Wilson 95% intervals (a draw is a win shared with another player);
    the share of wins (wins plus shares of draws, a draw of k players 1/k each as the engine's
    ``result`` gives it; a fair share is 1/N: 50% at two players, 33.3% at three, 25% at four) with
    Wilson's interval on the effective number of games ``n / design effect``, whose variance is
    therefore that of the per-deal shares (each deal's mean over its seat orders) over the number of
    deals (it may be narrower than for independent games), the sharpest raw measure because it keeps
    what the common dice cancel, and ``score_share_t``, the same share with Student's t 95% interval
    over the per-deal shares (the deals are the independent units; the two agree closely once there
    are a few hundred deals); mean final score; mean points per turn (the points each turn of the agent recorded, i.e. banked
    turn totals and permanent points, before any zilch penalty, with a 95% interval); zilch rate
    (turns ended by a zilch, per turn); mean game length in turns (all players' turns). The games of
    one deal are not independent: an agent's results in its seat orders are negatively correlated
    when the luck cancels. The report gives each rate's design effect (its variance against that of
    independent games; :func:`agents.evaluate.stats.design_effect`), and the intervals use the effective
    number of games ``n / max(1, design effect)`` (:func:`agents.evaluate.stats.clustered_wilson`): never
    narrower than Wilson's interval for independent games, wider if the games of a deal ever pull
    together. Means per turn are clustered by deal.

Luck-adjusted results (``--luck``)
    In two-player games of rules the exact game solver handles (:mod:`agents.solver.game`) the
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
    :func:`agents.evaluate.stats.cluster_mean`) and ``luck_sd_reduction``, the standard deviation of the
    per-deal raw share over that of the adjusted one (a reduction ``k`` is worth ``k**2`` times
    the games). Every state of such a game is one the table values: race turns, the last turns
    after the target, the second player's turn of ``finish_round`` and tie-break turns; forced
    moves add nothing. The rules the solver does not model (the variants ``piggyback``,
    ``challenge``, ``overcoming`` and ``pyramiding``, and the others
    :func:`agents.solver.game.check_supported` names) have no table, so no adjustment. The only inexactness is the table's: float32 values
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
    Bradley-Terry maximum likelihood on the Elo scale (:func:`agents.evaluate.stats.bradley_terry`) from every
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
    game (:func:`agents.evaluate.stats.ratio_mean`).

Engines
    A table whose agents the batched engine (:mod:`zilch_env.engine.batched`) plays in its compiled kernels,
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
    (:mod:`agents.evaluate.ray_eval`: a local Ray, or a cluster with ``--address``), with the same results.

Output
    A table on the terminal; with ``--out DIR``: ``report.md``, ``report.json`` and the plots
    ``winrate_matrix.png`` (score rate of each agent against each other), ``score_distributions.png``
    (final scores) and ``points_per_turn.png`` (solo points per turn against the optimum).
"""

# The package, one module per job: config (what to evaluate), dice (dealing), luck (luck
# adjustment), play (the two engines and the routing), pool (workers, progress), run (orchestration),
# report (tables, Markdown, plots), cli (the command line; python -m agents.evaluate runs __main__).
# Every name below stays importable from agents.evaluate.

from __future__ import annotations

from agents.evaluate.config import (BATCH_CHUNK_DEALS, CHUNK_DEALS, DEFAULT_WORKERS, ENGINES, EvalConfig, LUCK_MODES, MAX_DECISIONS, REPORT_FORMAT, SOLO_CHUNK_GAMES, SOLO_MAX_TURNS, WORKER_START_TIMEOUT)
from agents.evaluate.dice import (_POW6, _SLOT_ROLLS, deal_game, deal_key, distinct_orders, expand_orders, order_kind, ORDER_KINDS, AUTO_PERMUTATIONS_UP_TO, DealCodes, DealDice, decision_keys, seat_orders, seat_rng, solo_rng)
from agents.evaluate.luck import _LUCK_TABLES, _play_luck, luck_table
from agents.evaluate.play import (_Context, _kernel_or_none, _labels, _play, _play_batch_chunk, _play_solo_chunk, _play_table_chunk, _run_task, INTERACTION_VARIANTS, solo_ruleset, turn_optimum)
from agents.evaluate.pool import _init_worker, _Progress, _Runner, _warm_kernels, _WORKER, _worker_task
from agents.evaluate.run import _check, _merge_solo, _run_solo, evaluate
from agents.evaluate.report import (_ci95, _ci_text, _fmt, _has_luck, _json_default, _nested, _num, _rate, _row_cells, _sortable, LUCK_COLUMNS, LUCK_COLUMNS_SHORT, Report, RESULT_COLUMNS)
from agents.evaluate.cli import _quote, add_arguments, main, run_from_args
from agents.base import kernel_agent  # noqa: F401  (the one answer to "can the fast engine play it")

__all__ = [
    'EvalConfig', 'Report', 'evaluate', 'seat_orders', 'order_kind', 'distinct_orders', 'expand_orders', 'ORDER_KINDS', 'DealCodes', 'DealDice', 'deal_game', 'deal_key', 'seat_rng', 'decision_keys', 'kernel_agent', 'turn_optimum', 'luck_table', 'LUCK_MODES', 'add_arguments', 'run_from_args', 'main',
]
