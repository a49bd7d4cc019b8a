"""The reward of a finished game, one definition for every environment.

``Zilch-v1`` (:class:`zilch_env.envs.gym_env.ZilchEnv`), the PettingZoo env (:mod:`zilch_env.envs.aec`) and the
OpenSpiel game (:mod:`zilch_env.envs.openspiel`) call :func:`game_reward`; it is plain Python on numbers
so that :func:`vec_outcome`, the kernel behind the vector envs' step (``zilch_env.envs.vec_env`` and
``zilch_env.envs.vector``), compiles the same source with numba.
"""

from __future__ import annotations

from typing import Iterable

from zilch_env.jit import njit

from zilch_env.engine.keeps import _popcount
from zilch_env.engine.layout import OVER, PHASE, SCORE, SEAT_TURNS, WINNER_SEATS

__all__ = ["game_reward", "game_rewards", "vec_outcome"]


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


_game_reward = njit(cache=True, _nrt=False)(game_reward)  # the same source, compiled


@njit(cache=True, _nrt=False)
def vec_outcome(st, seats, own, illegal, turns_limit, score_reward, illegal_reward, scale, rewards, flags,
                points, agent_turns):
    """What a VecEnv step gave each agent (what :meth:`zilch_env.envs.gym_env.ZilchEnv.step` gives): ``points`` its score change
    (the "score" reward; ``own`` holds the score at its last observation and is updated), ``flags``
    bit 0 terminated (the game is over), bit 1 truncated (``turns_limit`` agent turns played, 0 for
    no limit), bit 2 an illegal action (the game unchanged); ``rewards``: the illegal-action reward,
    else the points under the score reward, else at the end of the game 1 for a sole win, 0 for a
    shared one, -1 otherwise; divided by ``scale``."""
    for b in range(st.shape[0]):
        p = seats[b]
        sc = st[b, SCORE + p]
        bad = illegal[b]
        pts = 0 if bad else sc - own[b]
        own[b] = sc
        points[b] = pts
        at = st[b, SEAT_TURNS + p]
        agent_turns[b] = at
        term = (not bad) and st[b, PHASE] == OVER
        trunc = (not bad) and (not term) and turns_limit > 0 and at >= turns_limit
        f = 0
        if term:
            f |= 1
        if trunc:
            f |= 2
        if bad:
            f |= 4
        flags[b] = f
        if bad:
            r = illegal_reward
        elif score_reward:
            r = float(pts)
        elif term:
            w = st[b, WINNER_SEATS]
            r = _game_reward((w >> p) & 1 != 0, _popcount(w))
        else:
            r = 0.0
        rewards[b] = r / scale
