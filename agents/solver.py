"""The exact solvers under one name: the turn solver (:mod:`agents.turn_solver`), the ``optimal-turn``
agent (:mod:`agents.optimal_turn`), the two-player game solver (:mod:`agents.game_solver`) and the
game solver of three players and of overcoming (:mod:`agents.multi_solver`).

    from agents.solver import solve_turn, solve_game, solve_multi, turn_value_table
"""

from agents.optimal_turn import OptimalTurnAgent, turn_value_table
from agents.turn_solver import (FIRST_CAP, MAX_GRID, TAIL_TOLERANCE, Advice, Choice, SolverError, TurnPolicy,
                                TurnSolution, UnsupportedRulesError, roll_probability, solve_turn, warm_up)
from agents.turn_solver import _check_supported, _solve_policy, _solve_turn, _tables  # noqa: F401  (tests, bench)
from agents.game_solver import solve_game  # noqa: E402
from agents.multi_solver import solve_multi  # noqa: E402

__all__ = [
    "Advice", "Choice", "FIRST_CAP", "MAX_GRID", "OptimalTurnAgent", "SolverError", "TAIL_TOLERANCE",
    "TurnPolicy", "TurnSolution", "UnsupportedRulesError", "roll_probability", "solve_game", "solve_multi",
    "solve_turn", "turn_value_table", "warm_up",
]
