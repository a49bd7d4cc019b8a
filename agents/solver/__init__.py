"""The exact solvers under one name: the turn solver (:mod:`agents.solver.turn`), the ``optimal-turn``
agent (:mod:`agents.solver.optimal_turn`), the two-player game solver (:mod:`agents.solver.game`) and the
game solver of three players and of overcoming (:mod:`agents.solver.multi`).

    from agents.solver import solve_turn, solve_game, solve_multi, turn_value_table
"""

from agents.solver.optimal_turn import OptimalTurnAgent, turn_value_table
from agents.solver.turn import (FIRST_CAP, MAX_GRID, TAIL_TOLERANCE, Advice, Choice, SolverError, TurnPolicy, TurnSolution, UnsupportedRulesError, roll_probability, solve_turn, warm_up)
from agents.solver.turn import _check_supported, _solve_policy, _solve_turn  # noqa: F401  (tests, bench)
from zilch_env.rules.compiled import compile as _tables  # noqa: F401  (tests: the compiled rules the turn solver reads)
from agents.solver.game import solve_game  # noqa: E402
from agents.solver.multi import solve_multi  # noqa: E402

__all__ = [
    "Advice", "Choice", "FIRST_CAP", "MAX_GRID", "OptimalTurnAgent", "SolverError", "TAIL_TOLERANCE",
    "TurnPolicy", "TurnSolution", "UnsupportedRulesError", "roll_probability", "solve_game", "solve_multi",
    "solve_turn", "turn_value_table", "warm_up",
]
