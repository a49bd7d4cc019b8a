"""The one interface every player of the game implements: environments, evaluation, training and
the web game all call ``act``. ``agents/`` builds its baselines, solvers and learned policies on it;
the simple movers here are what ``zilch simulate`` and the environments use when no agent is given.
"""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from zilch_env.engine.game import FRESH, NO_CHALLENGE, GameState, Phase


@runtime_checkable
class Policy(Protocol):
    """Chooses the move of the player to move (``state.current``) from ``legal``.

    ``state`` is the whole game as that player sees it (dice already rolled, all scores; the game
    hides nothing but future dice). ``legal`` is ``state.legal_actions()``. Any randomness must come
    from ``rng``, which the caller seeds, so that games replay exactly.

    A player may also offer faster forms of the same decisions, which the batched engine and the
    evaluation use when present: ``kernel_form()``, the player as the kernels play it (a
    :class:`~zilch_env.players.kernel_agents.KernelAgent`, as ``optimal-turn`` does), or
    ``act_batch(games, rows) -> actions``, its moves in many games at once between kernel calls
    (:func:`~zilch_env.players.kernel_agents.batch_policy_actions`).
    """

    name: str

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int: ...


class RandomMover:
    """Uniformly random among the legal actions."""

    name = "random"

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        return int(legal[int(rng.integers(len(legal)))])


class GreedyMover:
    """The greedy mover: keep the most points (ties to the most dice); bank as soon as the turn
    total reaches the threshold and banking is allowed, or when fewer than ``min_dice`` dice would be
    left to roll. Never challenges or piggybacks. The default opponent of the environments and of
    ``zilch simulate``, and the ``greedy`` agents of ``agents.baselines``.

    ``threshold`` is one number, or a mapping from the number of dice that would be rolled next (all
    of them after hot dice) to the threshold for it (a missing count takes the one below it). The
    batched engine's kernels play the same moves for one whole-number threshold.
    """

    def __init__(self, threshold: float | Mapping[int, float] = 300, min_dice: int = 2, name: str | None = None):
        if isinstance(threshold, Mapping):
            given = {int(n): float(t) for n, t in threshold.items()}
            if not given:
                raise ValueError("threshold: a number, or a mapping from dice counts 1-6 to numbers; got {}")
            last = given[min(given)]
            self.thresholds = {}
            for n in range(1, 7):
                last = given.get(n, last)
                self.thresholds[n] = last
            same = set(self.thresholds.values())
            #: the one threshold for every dice count, or None when they differ
            self.threshold: float | None = same.pop() if len(same) == 1 else None
        else:
            self.threshold = threshold
            self.thresholds = {n: float(threshold) for n in range(1, 7)}
        self.min_dice = min_dice
        self.name = f"greedy{threshold}" if name is None else name

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        if state.phase == Phase.CHALLENGE:
            return NO_CHALLENGE
        if state.phase == Phase.PIGGYBACK:
            return FRESH
        k = state.best_keep()
        roll, bank = k.mask * 2, k.mask * 2 + 1
        total, left = state.turn_total + k.points, state.dice_left - k.n
        if bank in legal and (total >= self.thresholds[left or state.ruleset.dice] or 0 < left < self.min_dice):
            return bank
        return roll


def play_game(state: GameState, policies: Sequence[Policy], rng: np.random.Generator | int | None = None,
              max_decisions: int = 1_000_000) -> GameState:
    """Play ``state`` to the end with one policy per seat; returns the finished state."""
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    for _ in range(max_decisions):
        if state.done:
            return state
        legal = state.legal_actions()
        state.apply(policies[state.current].act(state, legal, rng))
    raise RuntimeError(f"the game did not end within {max_decisions} decisions")
