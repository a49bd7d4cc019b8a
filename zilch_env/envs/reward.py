"""The reward of a finished game, one definition for every environment.

``Zilch-v1`` (:class:`zilch_env.envs.gym_env.ZilchEnv`), the PettingZoo env (:mod:`zilch_env.envs.aec`) and the
OpenSpiel game (:mod:`zilch_env.envs.openspiel`) call :func:`game_reward`; it is plain Python on numbers
so that the batched engine's kernels (``vec_outcome``, behind ``zilch_env.envs.vec_env`` and
``zilch_env.envs.vector``) can compile the same source with numba.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["game_reward", "game_rewards"]


def game_reward(is_winner: bool, num_winners: int) -> float:
    """The reward of one seat at the end of a game: +1 for a sole win, 0 for a shared win (a draw
    between the tied players), -1 otherwise."""
    if is_winner:
        return 0.0 if num_winners > 1 else 1.0
    return -1.0


def game_rewards(winners: Iterable[int] | None, num_players: int) -> list[float]:
    """:func:`game_reward` of every seat ``0 .. num_players - 1``, given the winning seats."""
    w = set(winners or ())
    return [game_reward(q in w, len(w)) for q in range(num_players)]
