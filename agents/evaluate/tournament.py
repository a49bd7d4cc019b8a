"""Tournaments on the batched engine: whole games between kernel agents and batch policies, many at
once, with per-game results.

:func:`play_games` deals the games (dice per game, seat orders, the random agents' decision streams),
plays them in batches with :meth:`zilch_env.engine.batched.BatchedGames.play_to_end` and gathers every game's
scores, winners, turns, points and zilches (:class:`BatchResults`). The evaluation
(:mod:`agents.evaluate`) plays its seat-balanced deals through it; ``zilch_env`` stays free of agents:
the engine plays any agent it is given, and this module decides who plays whom.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from zilch_env.engine.batched import BatchedGames, KernelAgent, stream_keys
from zilch_env.engine.game import MAX_PLAYERS
from zilch_env.rules.schema import Ruleset
from zilch_env.rules.load import load_ruleset

__all__ = ["BatchResults", "play_games"]


@dataclass
class BatchResults:
    """Per game (rows) and seat (columns): ``scores`` final scores, ``winners`` seats sharing the win,
    ``result`` 1 / (number of winners) for each winner, ``turns`` turns played, ``points`` points
    recorded (banked totals and permanent points, before penalties), ``zilches`` turns not banked;
    per game ``length`` turns of all players and ``decisions``."""

    scores: np.ndarray
    winners: np.ndarray
    result: np.ndarray
    turns: np.ndarray
    points: np.ndarray
    zilches: np.ndarray
    length: np.ndarray
    decisions: np.ndarray




def play_games(
    ruleset: Ruleset | str,
    agents: Sequence["str | KernelAgent | Any"],
    seat_agents: np.ndarray | Sequence[Sequence[int]],
    seed: int | None = 0,
    dice: Sequence[Any] | None = None,
    dice_keys: Sequence[int] | np.ndarray | None = None,
    dice_slots: bool = False,
    decision_keys: np.ndarray | None = None,
    first: int | Sequence[int] = 0,
    batch: int = 1024,
    max_decisions: int = 1_000_000,
    progress: Callable[[int], None] | None = None,
) -> BatchResults:
    """Play ``len(seat_agents)`` whole games between built-in agents, many at once.

    Args:
        ruleset: a :class:`Ruleset` or a preset name / TOML path.
        agents: the entrants: specs or objects :func:`kernel_agent` accepts (played in the kernels),
            or batch policies (played from Python, see :func:`zilch_env.engine.batched.batch_policy_actions`).
        seat_agents: ``(games, players)`` ints: ``seat_agents[g][q]`` is the entrant at seat ``q`` of game ``g``.
        seed: the seed of the defaults below (``None``: fresh entropy).
        dice: one numpy dice seed per game: game ``g`` rolls the dice of
            ``GameState(ruleset, players, seed=dice[g])`` (slower: a generator per game).
        dice_keys: or one keyed-dice key per game (:class:`zilch_env.engine.batched.KeyedDice`); give the games of one deal
            the same key for common random numbers. Default: ``stream_keys(seed, games)``.
        dice_slots: keyed dice by turn slot (:class:`zilch_env.engine.batched.KeyedSlotDice`): with one key per deal, each
            seat's t-th turn meets the same dice in every seat order, however the turns before went.
        decision_keys: ``(games, players)`` uint64 keys of the random agents' decision streams (one per
            seat). Default: ``stream_keys(seed, games * players, salt=1)``.
        first: the first seat of every game, or one per game.
        batch: games stepped at once.
        max_decisions: a game longer than this raises RuntimeError (an agent that never banks).
        progress: called with the number of games finished after each batch.

    The results do not depend on ``batch``. With greedy agents at every seat they are those of
    playing the same games one at a time with :class:`zilch_env.GreedyMover` and the same dice
    (tested); random agents use SplitMix64 decision streams, so their games are equal to
    :class:`zilch_env.RandomMover`'s in distribution, not move for move.

    For a tournament with common random numbers (as ``agents.evaluate`` plays it): list each deal
    once per seat order in ``seat_agents``, give all games of a deal the same ``dice_keys`` entry
    and ``dice_slots=True``, and read the results per game and seat.
    """
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    seats = np.asarray(seat_agents, dtype=np.int64)
    if seats.ndim != 2 or not 1 <= seats.shape[1] <= MAX_PLAYERS:
        raise ValueError(f"seat_agents: expected shape (games, players) with 1 to {MAX_PLAYERS} players, "
                         f"got {seats.shape}")
    if seats.size and (seats.min() < 0 or seats.max() >= len(agents)):
        raise ValueError(f"seat_agents: entries are indices into the {len(agents)} agents")
    games, n = seats.shape
    if dice is not None and dice_keys is not None:
        raise ValueError("give dice (numpy seeds) or dice_keys (keyed dice), not both")
    if dice is not None and len(dice) != games:
        raise ValueError(f"dice: {len(dice)} seeds for {games} games; give one per game")
    if dice is None:
        keys = stream_keys(seed, games) if dice_keys is None else np.asarray(dice_keys, dtype=np.uint64)
        if keys.shape != (games,):
            raise ValueError(f"dice_keys: expected {games} keys (one per game), got shape {keys.shape}")
    dk = (stream_keys(seed, games * n, salt=1).reshape(games, n) if decision_keys is None
          else np.asarray(decision_keys, dtype=np.uint64))
    if dk.shape != (games, n):
        raise ValueError(f"decision_keys: expected shape ({games}, {n}), got {dk.shape}")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch = {batch!r}: a whole number of games stepped at once, 1 or more")
    firsts = np.broadcast_to(np.asarray(first, dtype=np.int64), (games,))
    out = {k: np.zeros((games, n), dtype=np.int64) for k in ("scores", "turns", "points", "zilches")}
    winners = np.zeros((games, n), dtype=bool)
    length = np.zeros(games, dtype=np.int64)
    decisions = np.zeros(games, dtype=np.int64)
    for g0 in range(0, games, batch):
        g1 = min(games, g0 + batch)
        if dice is not None:
            bg = BatchedGames(rs, g1 - g0, n, dice=list(dice[g0:g1]), first=firsts[g0:g1], decision_keys=dk[g0:g1])
        else:
            bg = BatchedGames(rs, g1 - g0, n, dice_keys=keys[g0:g1], dice_slots=dice_slots, first=firsts[g0:g1],
                              decision_keys=dk[g0:g1])
        try:
            bg.play_to_end(agents, seats[g0:g1], max_decisions)
        except RuntimeError as e:  # name the game by its index in this call, not in its batch
            raise RuntimeError(_renumber(str(e), g0)) from None
        out["scores"][g0:g1] = bg.scores
        winners[g0:g1] = bg.winners
        for k, v in bg.turn_stats.items():
            out[k][g0:g1] = v
        length[g0:g1] = bg.turns
        decisions[g0:g1] = bg.decisions
        if progress is not None:
            progress(g1 - g0)
    result = winners / np.maximum(winners.sum(axis=1, keepdims=True), 1)
    return BatchResults(out["scores"], winners, result, out["turns"], out["points"], out["zilches"], length,
                        decisions)


def _renumber(message: str, offset: int) -> str:
    """``message`` of :meth:`BatchedGames.play_to_end` with its game number shifted by ``offset``."""
    import re

    return re.sub(r"\bgame (\d+)", lambda m: f"game {int(m.group(1)) + offset}", message, count=1)
