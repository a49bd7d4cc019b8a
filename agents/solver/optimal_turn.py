"""The ``optimal-turn`` agent: the exact turn optimum of :mod:`agents.solver.turn` played move by
move, and its turn-value tables for the batched engine's kernels."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from zilch_env import FRESH, NO_CHALLENGE, PIGGYBACK, GameState, Phase, Ruleset, UnsupportedRulesError, load_ruleset

from agents.solver.turn import TurnPolicy, _check_supported, solve_turn

__all__ = ["OptimalTurnAgent", "turn_value_table"]


class OptimalTurnAgent:
    """Plays every turn for the most points, exactly, from :func:`solve_turn`.

    * Keeps: the solution for its board status (and, under a ``subtract`` zilch-streak penalty, for its
      current streak, so it maximises the long-run points per turn; ``optimal-turn:plain`` ignores the
      streak). Under ``overcoming`` it solves with the bar of the previous turn as bank threshold.
    * Piggyback: takes the offer when rolling its dice from its total is worth more than a fresh turn.
    * Challenge: never. A challenge leaves the challenger's banked points unchanged and costs 600 or
      2000 on a zilch, so for the points of the turn it can only lose.
    It ignores the scores: near the end of a game the points of a turn are not what wins.
    """

    def __init__(self, ruleset: Ruleset, streak: bool = True):
        _check_supported(ruleset)
        self.ruleset = ruleset
        self.streak = streak
        self.name = "optimal-turn" if streak else "optimal-turn:plain"
        solve_turn(ruleset, True)  # solve up front, so play never stalls

    def _policy(self, state: GameState) -> TurnPolicy:
        rs = self.ruleset
        me = state.current
        on = state.on_board[me]
        thr = None
        if rs.variants.overcoming:
            thr = max(state.last_result + 1, rs.min_bank if on else rs.entry_threshold)
        sol = solve_turn(rs, on, thr)
        return sol.policy_for(state.zilch_streak[me] if (self.streak and on) else None)

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        if state.phase == Phase.CHALLENGE:
            return NO_CHALLENGE
        pol = self._policy(state)
        if state.phase == Phase.PIGGYBACK:
            total, dice = state.offer  # type: ignore[misc]
            # the offer's pass goes on, its frozen dice included (they matter under pyramiding)
            take = pol.roll_value(total, dice, 0, *state.offer_frozen) > pol.roll_value(0, self.ruleset.dice)
            return PIGGYBACK if take and PIGGYBACK in legal else FRESH
        return pol.best_action(state, legal)

    def kernel_form(self):
        """This agent as the batched engine's kernels play it (:func:`agents.kernel_agent`): its solved
        turn values, :func:`turn_value_table`."""
        from zilch_env.players.kernel_agents import KernelAgent

        from agents.solver.turn_policy import SolverError

        try:
            return KernelAgent("values", table=turn_value_table(self.ruleset, self.streak))
        except SolverError as e:
            raise UnsupportedRulesError(f"agent {self.name!r}: {e}") from None


def turn_value_table(ruleset: Ruleset | str, streak: bool = True):
    """The ``optimal-turn`` agent in the form the batched engine plays in its kernels: a
    :class:`zilch_env.engine.batched.TurnValueTable` of the solved values (cached per ruleset and ``streak``).

    Its policies are those :class:`OptimalTurnAgent` plays: off the board the turn optimum before the
    board; on it the one for the mover's zilch streak (``streak=True``, under a ``subtract`` penalty)
    or the plain turn optimum (``streak=False``, ``optimal-turn:plain``). The kernels value each
    choice from ``TurnPolicy.R`` and its bound beyond the cap as :meth:`TurnPolicy.decide` does, so
    both engines make the same moves. Raises :class:`zilch_env.UnsupportedRulesError` under ``overcoming`` (the
    agent's bank threshold then follows the previous turn's result, a solve per bar) and
    ``pyramiding``.
    """
    rs = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
    return _turn_value_table(rs, bool(streak))


@lru_cache(maxsize=32)
def _turn_value_table(rs: Ruleset, streak: bool):
    from zilch_env.engine.batched import TurnValueTable

    _check_supported(rs)
    if rs.variants.pyramiding:
        raise UnsupportedRulesError(
            "variants.pyramiding = true: optimal-turn's values depend on the dice frozen in this pass, "
            "and the batched engine reads turn values by dice count only; use the single-game engine")
    if rs.variants.overcoming:
        raise UnsupportedRulesError(
            "variants.overcoming = true: optimal-turn's bank threshold is the previous turn's result plus "
            "one, a different solve for every bar, so the batched engine does not play it; use the "
            "single-game engine")
    off = solve_turn(rs, False).policy_for(None)
    on_sol = solve_turn(rs, True)
    on = list(on_sol.streak_policies) if streak else [on_sol.policy]
    pols: list[TurnPolicy] = []
    for pol in [off, *on]:
        if not any(pol is q for q in pols):
            pols.append(pol)
    index = [next(i for i, q in enumerate(pols) if q is pol) for pol in on]
    select = [[0] * len(on), index]  # pols[0] is the policy off the board
    L = max(p.R.shape[0] for p in pols)
    N = max(p.R.shape[2] for p in pols)
    values = np.zeros((len(pols), L, rs.dice + 1, N))
    beyond = np.zeros((len(pols), L))
    for q, pol in enumerate(pols):
        J, _, n = pol.R.shape
        values[q, :J, :, :n] = pol.R
        # TurnPolicy._roll beyond the cap, the same expression
        beyond[q, :J] = [pol._zpay(j) + min(pol.zilch_offset, 0.0) for j in range(J)]
    units = {p.unit for p in pols}
    straights = {p.straight for p in pols}
    assert len(units) == 1 and len(straights) == 1  # both come from the ruleset's tables
    return TurnValueTable(
        rs, "optimal-turn" if streak else "optimal-turn:plain", values, beyond,
        sizes=[p.R.shape[2] for p in pols], tops=[p.levels for p in pols],
        thresholds=[p.bank_threshold for p in pols], select=select, unit=units.pop(),
        straight=straights.pop())


def _make_optimal_turn(ruleset: Ruleset, arg: str | None) -> OptimalTurnAgent:
    from agents.base import AgentSpecError

    if arg not in (None, "plain", "streak"):
        raise AgentSpecError(f"optimal-turn:{arg}: the argument is 'plain' (ignore zilch streaks) or "
                             f"'streak' (the default)")
    return OptimalTurnAgent(ruleset, streak=arg != "plain")


def _register() -> None:
    from agents.base import register_agent

    register_agent("optimal-turn", _make_optimal_turn,
                   "exact turn optimum (most points per turn; streak-aware under a zilch penalty; "
                   "optimal-turn:plain ignores streaks)")


_register()
