"""The walk of a game's review (:mod:`agents.evaluate.review`): the record played again move by move,
each decision valued when it is due and each roll's value read just before the dice fall.

The dice are the record's own (:class:`_HookDice`), which tell the walk just before each roll, while
the game's fields are those of the position rolled from: the roll's value before is read there, and
its value after is that of the next event (the decision it leads to, or, after a zilch, the next
turn's first roll or the end of the game).
"""

from __future__ import annotations

from typing import Any, Callable

from zilch_env import GameState, Phase, Ruleset
from zilch_env.engine.actions import split_keep_action
from zilch_env.engine.dice import ScriptedDice

from agents.evaluate.review_data import TINY, Choice, Decision, Roll, Valued

#: Why a turn-start decision has no value in a measure: a challenge is valued by win chance where the
#: solved game covers it (agents.solver.game_table.GameTable.challenge_choice), nothing else.
TURN_START = ("a turn-start decision ({what}): the turn solver values the play of one turn from its "
              "first roll, and no solved game covers the rules that offer it")
TURN_START_POINTS = ("a turn-start decision ({what}): the turn solver values the play of one turn from its "
                     "first roll; the solved game values it by chance of winning")


class _HookDice:
    """The record's rolls, calling ``before(n)`` just before each roll (the game then at the position
    rolled from) and ``after(dice)`` with what fell."""

    def __init__(self, rolls: list, before: Callable[[int], None], after: Callable[[tuple[int, ...]], None]):
        self.script = ScriptedDice(rolls)
        self.before, self.after = before, after

    def roll(self, n: int) -> tuple[int, ...]:
        self.before(n)
        dice = self.script.roll(n)
        self.after(dice)
        return dice


class Walker:
    """Plays a record again and values it: :attr:`decisions` and :attr:`rolls` once :meth:`run` ends.

    ``table`` is the stored game table (None: no win chances) and ``why_points`` why there is none;
    ``reach`` the largest turn total the turn solver is asked about (its solve certifies every value
    up to it). With ``choices`` every decision also carries the scores and every legal move with
    its values (:attr:`Decision.choices`), which the walk computes anyway."""

    def __init__(self, rs: Ruleset, num_players: int, table: Any, reach: int, choices: bool = False):
        self.rs, self.n, self.table, self.reach = rs, num_players, table, reach
        self.want_choices = choices
        self._values: dict[str, dict[int, float]] = {}  # the last decision's values of every move, per measure
        self.why_no_points = self._turn_solver_problem()
        self.decisions: list[Decision] = []
        self.rolls: list[Roll] = []
        self.g: GameState | None = None
        self._pending: Roll | None = None  # the last roll, its value after not known yet
        self._rolling_on = False  # the last decision rolled on: the next roll continues its turn
        self._q_win: float | None = None  # that decision's values (the next roll's values before)
        self._q_points: float | None = None
        self._sit_key: tuple | None = None
        self._sit: tuple | None = None

    def _turn_solver_problem(self) -> str | None:
        from zilch_env import UnsupportedRulesError

        from agents.solver import SolverError, solve_turn

        try:
            solve_turn(self.rs, True, reach=self.reach)
        except (UnsupportedRulesError, SolverError) as e:
            return f"the turn solver does not value these rules: {e}"
        return None

    # ------------------------------------------------------------------ the walk
    def run(self, record: dict[str, Any], progress: Callable[[int, int], None] | None) -> GameState:
        """Play ``record`` (already checked to replay) again, valuing every decision and roll."""
        dice = _HookDice(record["rolls"], self._before_roll, self._after_roll)
        g = self.g = GameState.__new__(GameState)  # the hooks read the game while its first rolls fall
        g.__init__(self.rs, self.n, dice=dice, first=record.get("first", 0))
        actions = record["actions"]
        for i, a in enumerate(actions):
            self._decision(i, int(a))
            g.apply(int(a))
            if progress is not None:
                progress(i + 1, len(actions))
        self._close_at_end()
        return g

    # ------------------------------------------------------------------ rolls
    def _before_roll(self, n: int) -> None:
        g = self.g
        seat, first = g.current, not self._rolling_on
        self._rolling_on = False
        win = points = None
        if self.table is not None:
            if first:
                fields = self.table.challenge_fields(g) if hasattr(self.table, "challenge_fields") else {}
                sit = self.table.situation_of(seat, g.first, g.scores, g.on_board, g.zilch_streak, g.final_queue,
                                              g.tiebreak_players, g.tiebreak_round, **fields)
                win = self.table.start_value(sit)
            else:
                win = self._q_win
        pol, _ = self._points_policy(g)
        if pol is not None:
            points = (pol.roll_value(g.turn_total, n, g.permanent, g.frozen, g.frozen_points) if first
                      else self._q_points)
        if self._pending is not None:  # the previous roll zilched: a scoring roll leads to a decision first
            prev = self._pending
            after = None if win is None else (win if prev.seat == seat else 1.0 - win)
            self._close(prev, True, after, self._recorded(prev))
        self._pending = Roll(len(self.rolls), seat, len(g.turns), [], first, win_before=win, points_before=points)
        self.rolls.append(self._pending)

    def _after_roll(self, dice: tuple[int, ...]) -> None:
        self.rolls[-1].dice = list(dice)

    def _recorded(self, roll: Roll) -> float | None:
        """What the turn of ``roll`` recorded (its zilch ended it), if that turn is valued in points."""
        if roll.points_before is None or roll.turn >= len(self.g.turns):
            return None
        return float(self.g.turns[roll.turn]["recorded"])

    @staticmethod
    def _close(roll: Roll, zilch: bool, win_after: float | None, points_after: float | None) -> None:
        roll.zilch = zilch
        if roll.win_before is not None and win_after is not None:
            roll.win_after, roll.win_luck = win_after, win_after - roll.win_before
        if roll.points_before is not None and points_after is not None:
            roll.points_after, roll.points_luck = points_after, points_after - roll.points_before

    def _close_at_end(self) -> None:
        """The last roll's value after: the result (a zilch ended the game), or the decision it led to."""
        roll, g = self._pending, self.g
        self._pending = None
        if roll is None:
            return
        if g.done:
            self._close(roll, True, g.result()[roll.seat] if self.table is not None else None, self._recorded(roll))
        elif g.phase == Phase.KEEP and g.current == roll.seat and len(g.turns) == roll.turn:
            win = self._win(g, None) if self.table is not None else None
            points = self._points(g, None) if self._points_policy(g)[0] is not None else None
            self._close(roll, False, win.best if win else None, points.best if points else None)
        else:  # a zilch, and the next turn starts with a decision the record does not hold yet
            self._close(roll, True, None, self._recorded(roll))

    # ------------------------------------------------------------------ decisions
    def _decision(self, i: int, a: int) -> None:
        g = self.g
        d = Decision(i, g.current, len(g.turns), list(g.roll), g.turn_total, a, g.describe(a))
        self.decisions.append(d)
        self._values = {}
        if self.want_choices:
            d.scores, d.on_board = [int(x) for x in g.scores], [bool(x) for x in g.on_board]
        self._value(d, g, a)
        if self.want_choices:
            d.choices = self._choices(g)

    def _choices(self, g: GameState) -> list[Choice]:
        """Every legal move of the decision with its values (those the walk computed), the best
        first under the measure that valued it."""
        win, points = self._values.get("win", {}), self._values.get("points", {})
        out = [Choice(b, g.describe(b), win.get(b), points.get(b)) for b in g.legal_actions()]
        key = "win" if win else "points"
        out.sort(key=lambda c: (-(getattr(c, key) if getattr(c, key) is not None else -1e18), c.action))
        return out

    def _value(self, d: Decision, g: GameState, a: int) -> None:
        """Value decision ``d`` (action ``a``) and close the roll it answers."""
        if g.phase != Phase.KEEP:
            why = TURN_START.format(what=g.phase.name.lower())
            d.kind = "turn_start"
            after = None
            if g.phase == Phase.CHALLENGE and hasattr(self.table, "challenge_choice"):
                d.win = self._win(g, a)  # the plain turn against the challenge, from the solved game
                d.not_valued = {"points": TURN_START_POINTS.format(what=g.phase.name.lower())}
                after = d.win.best
            else:
                d.not_valued = {"win": why, "points": why}
            if self._pending is not None:  # the previous turn's last roll zilched: valued where this decision is
                roll, self._pending = self._pending, None
                win_after = None if after is None else (after if roll.seat == g.current else 1.0 - after)
                self._close(roll, True, win_after, self._recorded(roll))
            self._rolling_on = False
            self._q_win = self._q_points = None
            return
        d.roll_index = len(self.rolls) - 1
        if self.table is not None:
            d.win = self._win(g, a)
        else:
            d.not_valued["win"] = "no win chance: see why_points"
        why = self._points_policy(g)[1]
        d.points = self._points(g, a) if why is None else None
        if d.points is None:
            d.not_valued["points"] = why or "the move made is not among the turn solver's choices"
        if self._pending is not None:
            roll, self._pending = self._pending, None
            self._close(roll, False, d.win.best if d.win else None, d.points.best if d.points else None)
        self._rolling_on = not split_keep_action(a)[1]
        self._q_win = d.win.value if d.win else None
        self._q_points = d.points.value if d.points else None

    def _win(self, g: GameState, a: int | None) -> Valued:
        """The decision valued by win chance, from the table, in the mover's view (``a`` None: only
        the best move)."""
        table = self.table
        key = (len(g.turns), g.tiebreak_round, g.current, g.challenged)  # a challenge changes the turn
        if key != self._sit_key:
            self._sit_key, self._sit = key, table.situation(g)
        sit = self._sit
        cap = table.stable_cap(sit)
        values = table.action_values(g, True, cap, sit)
        best = max(values.values())
        ties = [b for b, v in values.items() if v >= best - 1e-12]
        # ties: bank before rolling on; no challenge before a challenge (as optimal-win plays them)
        best_a = min(ties) if g.phase == Phase.CHALLENGE else min(ties, key=lambda b: (not b & 1, b))
        if a is None:
            return Valued(best, best, 0.0, best_a, g.describe(best_a))
        q = values[a]
        if q < 0.0 or (self.want_choices and min(values.values()) < 0.0):
            # rolling on where banking is provably better: the uncut values
            uncut = table.action_values(g, False, cap, sit)
            values = {b: (v if v >= 0.0 else uncut[b]) for b, v in values.items()}
            q = values[a]
        self._values["win"] = values
        return self._valued(g, a, q, best, best_a, "win")

    def _points(self, g: GameState, a: int | None) -> Valued | None:
        """The decision valued by the turn optimum's expected points of the turn (``a`` None: only the
        best move); None if the choice made is not among the solver's choices."""
        advice = self._points_policy(g)[0].advise(g)
        best = advice.choices[0]
        if a is None:
            return Valued(best.value, best.value, 0.0, best.action, g.describe(best.action))
        self._values["points"] = {ch.action: float(ch.value) for ch in advice.choices}
        chosen = next((ch for ch in advice.choices if ch.action == a), None)
        if chosen is None:
            return None
        return self._valued(g, a, chosen.value, best.value, best.action, "points")

    @staticmethod
    def _valued(g: GameState, a: int, q: float, best: float, best_a: int, measure: str) -> Valued:
        loss = best - q
        if loss <= TINY[measure]:  # a best move (ties included)
            return Valued(q, q, 0.0, a, g.describe(a))
        return Valued(q, best, loss, best_a, g.describe(best_a))

    def _points_policy(self, g: GameState) -> tuple[Any, str | None]:
        """The turn optimum that values the position of ``g`` and None, or None and why there is none."""
        from zilch_env import UnsupportedRulesError

        from agents.solver import SolverError

        if self.why_no_points is not None:
            return None, self.why_no_points
        if g.challenged is not None:
            return None, ("a challenged turn: a bank takes points from the challenged player and a zilch costs "
                          "points, which the turn solver's expected points of the turn do not count")
        try:
            return self._policy(g), None
        except (SolverError, UnsupportedRulesError, ValueError) as e:
            return None, f"the turn solver cannot value this position: {e}"

    def _policy(self, g: GameState):
        """The turn optimum for the mover: its board status, and under overcoming the previous turn's
        result as the bar its bank must beat (as the ``optimal-turn`` agent plays)."""
        from agents.solver import solve_turn

        rs, me = self.rs, g.current
        on = bool(g.on_board[me])
        thr = None
        if rs.variants.overcoming:
            thr = max(g.last_result + 1, rs.min_bank if on else rs.entry_threshold)
        return solve_turn(rs, on, thr, reach=self.reach).policy
